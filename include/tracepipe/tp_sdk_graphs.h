/*
 * tracepipe SDK: CUDA / HIP graph replays (docs/architecture.md, "The
 * semantics layer", graph replays).  Part of the SDK (tp_sdk.h).
 *
 * A graph launch (the vocabulary's `graph` launch APIs: cudaGraphLaunch,
 * cuGraphLaunch, hipGraphLaunch, ...) replays the kernels, copies and sets
 * captured in a graph; they all carry the launch's correlation id, so the
 * launch link (tp_link_launches) ties each to the launch call, not to the op
 * that captured it.  Here:
 *
 *   replay   one graph launch call and the activities it launched;
 *   graph    the replays of one graph: the `graph id` of the activities' or
 *            the launch's args when the trace writes one, else replays with
 *            the same activities (name and stream, in any order: the
 *            streams of a graph interleave differently from replay to
 *            replay); numbered in order of first replay when no id is given;
 *   op       what a replayed activity is shown under: the op that captured
 *            it, when a reader knew it (the extension columns below, which
 *            the kineto reader fills from the trace's own captures or a
 *            capture trace, option capture:), else the pseudo-op
 *            `graph <id>`: never "(no op)".
 */
#ifndef TRACEPIPE_TP_SDK_GRAPHS_H
#define TRACEPIPE_TP_SDK_GRAPHS_H

#include <stddef.h>
#include <stdint.h>

#include "tp_plugin.h"
#include "tp_sdk_ext.h"
#include "tp_sdk_vocab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Extension columns (TP_COL_SID) a reader sets on replayed activities whose
 * capturing op it knows: the outermost and the innermost cpu op above the
 * capture-time launch. */
#define TP_GRAPH_OP_COLUMN "graph_op"
#define TP_GRAPH_INNER_OP_COLUMN "graph_inner_op"
/* ... and of the innermost op: its args as compact JSON text (TP_COL_SID:
 * "Input Dims", "Input type" ...), and which capture-time call it was
 * (TP_COL_I64, 1-based, 0 unknown: the activities of one replay with the
 * same value ran for one call of that op). */
#define TP_GRAPH_OP_ARGS_COLUMN "graph_op_args"
#define TP_GRAPH_OP_CALL_COLUMN "graph_op_call"
/* When the trace holds the captures themselves (the profiler was on while
 * the graphs were captured): TP_COL_I64, 1 on the capture-time host rows
 * (the ops around each captured launch, and the launch calls).  Their GPU
 * work is the replays', so an analysis counting calls of ops with GPU work
 * counts those through the replays (tp_graph_op_calls), not these rows. */
#define TP_GRAPH_CAPTURED_COLUMN "graph_captured"

/* TP_GRAPH_CAPTURED_COLUMN's cells (one per row) into *rows, NULL when
 * the trace has no such column: TP_OK, or TP_ENOMEM when it has one that
 * could not be read as an array (tp_sdk_ext.h; the stage reports it). */
static inline int tp_graph_captured_rows(const tp_trace *t, const int64_t **rows)
{
    const void *cells = NULL;
    int rc = tp_ext_column_cells(t, TP_GRAPH_CAPTURED_COLUMN, TP_COL_I64, &cells);
    *rows = (const int64_t *)cells;
    return rc;
}

/* One graph: its id, how often it was replayed, its activities. */
typedef struct tp_graph {
    int64_t id;         /* the trace's graph id, else the ordinal of first replay */
    int64_t replays;    /* graph launch calls */
    int64_t activities; /* replayed activities, all replays */
    int64_t gpu_ns;     /* the sum of their durations */
    tp_str pseudo_op;   /* interned "graph <id>" */
} tp_graph;

typedef struct tp_graphs {
    int32_t *graph;        /* per row: the graph (index into graphs) of a replayed activity, else -1;
                              NULL when the trace replays no graph (the accessors below read it) */
    tp_graph *graphs;      /* in order of first replay */
    size_t ngraphs;
    const tp_str *op;       /* TP_GRAPH_OP_COLUMN's cells, or NULL */
    const tp_str *inner_op; /* TP_GRAPH_INNER_OP_COLUMN's cells, or NULL */
    size_t nrows;
    const tp_str *op_args;   /* TP_GRAPH_OP_ARGS_COLUMN's cells, or NULL */
    const int64_t *op_call;  /* TP_GRAPH_OP_CALL_COLUMN's cells, or NULL */
} tp_graphs;

/*
 * Finds the graph replays of trace t: an activity is replayed when its
 * launcher (launcher: hierarchy.launcher or tp_link_launches) is a call the
 * vocabulary v names a graph launch.  Graph ids: an integer `graph id` in
 * the activity's args, else in the launch call's args, else by the replay's
 * replay's activities (names and streams).  TP_OK or TP_ENOMEM; free with
 * tp_graphs_free.
 */
int tp_graphs_find(tp_stage *st, const tp_trace *t, const tp_vocab *v, const int32_t *launcher,
                   tp_graphs *g);
/* The same with launcher per member of gpu (by rank), as the hierarchy's
 * compact gpu_launcher holds it (issue 31). */
struct tp_rowset;
int tp_graphs_find_ranked(tp_stage *st, const tp_trace *t, const tp_vocab *v,
                          const struct tp_rowset *gpu, const int32_t *launcher, tp_graphs *g);
void tp_graphs_free(tp_graphs *g);
/* tp_graphs_find computes the graphs once per trace and publishes them on
 * it (attachments tp.graphs.row, tp.graphs.list); later stages asking for
 * the same trace adopt them (a filtered trace computes its own). */

/* The replays of trace t, one per graph launch call (launcher, v as for
 * tp_graphs_find): replay i is rows (*rows)[(*start)[i] .. (*start)[i+1])
 * for i < *nreplays, in order of the launch's start, each in start order.
 * TP_OK or TP_ENOMEM; tp_free both. */
int tp_graph_replays(tp_stage *st, const tp_trace *t, const tp_vocab *v, const int32_t *launcher,
                     uint32_t **rows, size_t **start, size_t *nreplays);

/* The op name of row a when it is a replayed activity: the capturing op
 * (outermost; inner = 1: innermost, else the outermost) when known, else
 * `graph <id>`; 0 (the empty string) when a is not replayed. */
static inline tp_str tp_graph_op_of(const tp_graphs *g, size_t a, int inner)
{
    if (a >= g->nrows || g->graph == NULL || g->graph[a] < 0)
        return 0;
    const tp_str *col = inner && g->inner_op ? g->inner_op : g->op;
    if (col != NULL && col[a] != 0)
        return col[a];
    return g->graphs[g->graph[a]].pseudo_op;
}

/* The args (JSON text, *len bytes) of the innermost op that captured
 * replayed row a, and in *call which capture-time call of it (1-based);
 * NULL when a reader did not give them. */
const char *tp_graph_op_args(tp_stage *st, const tp_graphs *g, size_t a, size_t *len,
                             int64_t *call);

/* The replayed activities whose capturing op's args are known (above),
 * one group per call of that op per replay (launch row by launcher, then
 * capture-time call): group i is rows (*rows)[(*start)[i] .. (*start)[i+1])
 * for i < *ncalls, in row order.  TP_OK or TP_ENOMEM; tp_free both. */
int tp_graph_op_calls(tp_stage *st, const tp_graphs *g, const int32_t *launcher, uint32_t **rows,
                      size_t **start, size_t *ncalls);

/* Is row a replayed by a graph launch? */
static inline int tp_graph_replayed(const tp_graphs *g, size_t a)
{
    return a < g->nrows && g->graph != NULL && g->graph[a] >= 0;
}

/* Stream capture calls, which open and close the capture of a graph:
 * 1 for a begin (cudaStreamBeginCapture, cuStreamBeginCapture,
 * hipStreamBeginCapture and their _ToGraph / per-thread forms), 2 for an
 * end (...StreamEndCapture), 0 for any other name: the vocabulary's
 * tp_vocab_graph_capture (tp_sdk_vocab.h). */
int tp_graph_capture_call(const char *name);

#ifdef __cplusplus
}
#endif

#endif
