/*
 * kineto reader: graph captures (kin_capture.c collects them, from a capture
 * trace or from the run trace itself; kin_capture_match.c matches the run
 * trace's graph replays with them).
 */
#ifndef KIN_CAPTURE_H
#define KIN_CAPTURE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_vocab.h>

/* An event of a capture that matters here. */
enum { CE_OP, CE_BEGIN, CE_END, CE_LAUNCH };
typedef struct cap_ev {
    int src;              /* 0: the run trace itself, 1: the capture trace */
    int64_t pid, tid, ts, end;
    int type;
    tp_launch_what what;
    tp_str name, kernel;  /* kernel: a launch's args.kernel, 0 if absent */
    tp_str outer, inner;  /* a launch's ops */
    int module;           /* an op that is a module (never a launch's op) */
    int captured;         /* an op around a captured launch */
    int64_t node;         /* a launch's args "graph node id", -1 if absent */
    json_t *args;         /* an op's args in the capture trace (borrowed), or NULL */
    int64_t row;          /* an op's row in the run trace, -1 */
    tp_str args_text;     /* an op's args as JSON text, interned on first use */
    uint32_t inner_ev;    /* a launch's innermost op: its event index + 1, 0 none */
} cap_ev;

/* One capture: launches evs[launches[first .. first + n)]. */
typedef struct cap_region {
    size_t first, n;
} cap_region;

typedef struct capture {
    tp_stage *st;
    cap_ev *ev;
    size_t nev, cap_ev;
    uint32_t *launches; /* launch events in capture order, region by region */
    size_t nlaunches;
    cap_region *regions;
    size_t nregions;
} capture;

/* What matching did, for the log line. */
typedef struct cap_stats {
    size_t replays, matched, by_node;
} cap_stats;

/* Matches every graph replay of t with the captures of cp and labels the
 * matched activities (graph_op, graph_inner_op, graph_op_args,
 * graph_op_call).  TP_OK or TP_ENOMEM. */
int kin_capture_label(capture *cp, tp_trace *t, cap_stats *s);

/* Marks the run trace's own capture-time ops and launch calls
 * (TP_GRAPH_CAPTURED_COLUMN).  TP_OK or TP_ENOMEM. */
int kin_capture_mark(const capture *cp, tp_trace *t);

/* Row's args "graph node id" (a non-negative integer), else -1. */
int64_t kin_row_node_id(const tp_trace *t, size_t row);

#endif
