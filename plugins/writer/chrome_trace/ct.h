/* chrome_trace: what its files share (private to the plugin): the output
 * buffer and its writers (chrome_trace.c), the arg and flow overlays
 * (ct_overlay.c). */
#ifndef TRACEPIPE_CT_H
#define TRACEPIPE_CT_H

#include <stdint.h>
#include <stdio.h>
#include <tracepipe/tp_plugin.h>
#include <zlib.h>

#define CT_BUF (1u << 16)

typedef struct ct_out {
    FILE *f;
    gzFile gz;
    size_t len;
    int err;   /* errno of the first failed write, or -1 for zlib */
    int multi;        /* several traces (ranks) in one file */
    int64_t rank;     /* multi: the rank of the trace being written */
    int64_t pid_base; /* multi: added to numeric pids, one range per trace */
    int args_parsed;  /* the trace's args were read by a JSON parser (kineto) */
    char buf[CT_BUF];
} ct_out;

/* Several traces in one file: rank k's numeric pids move to
 * (k + 1) * CT_PID_STRIDE + pid, above any real pid (Linux: < 2^22). */
#define CT_PID_STRIDE INT64_C(1000000000)

void out_str(ct_out *o, const char *s);
void out_i64(ct_out *o, int64_t v);
/* ns as exact decimal us */
void out_us(ct_out *o, int64_t ns);
/* a JSON string, escaped */
void out_json_str(ct_out *o, const char *s, size_t n);
/* pid / tid / flow id: a number, or the text it was */
void out_id(ct_out *o, tp_stage *st, int64_t v, size_t n_str);
/* a pid, in the trace's range with several traces */
void out_pid(ct_out *o, tp_stage *st, int64_t v, size_t n_str);

/* Arg overlays of one trace: (row, key, value), by row, one per (row, key). */
typedef struct ct_mark {
    uint32_t row;
    uint32_t order; /* the input and row it came from: the first of a (row, key) wins */
    const char *key, *value;
} ct_mark;

typedef struct ct_marks {
    ct_mark *v;
    size_t n, at; /* at: the cursor, events being written in row order */
} ct_marks;

/* The rank of trace k: trace info rank, else k. */
int64_t ct_trace_rank(const tp_trace *t, size_t k);
/* The marks of trace k (t_k) from every input result of kind `arg`; no
 * other trace is asked for. */
int ct_load_marks(tp_stage *st, const tp_trace *t_k, size_t k, ct_marks *m);
/* One end of a flow overlay row, kept while its trace is written: that
 * event's pid and tid, its trace and the trace's rank. */
typedef struct ct_flow_end {
    int64_t pid, tid, rank;
    uint32_t k;
    uint8_t state;    /* CT_END_* */
    uint8_t fallback; /* in trace 0 for want of its result's own trace (a later one may be) */
} ct_flow_end;

/* An end: not seen yet; at an event of its trace; its trace seen, no event to draw it at. */
enum { CT_END_NONE, CT_END_FOUND, CT_END_SKIP };

/* The ends of every input result of kind `flow` (two per row: from, to;
 * the inputs' rows one after another) and the traces' largest numeric flow
 * id, gathered while each trace is written: no trace is asked for again. */
typedef struct ct_flows {
    ct_flow_end *end;
    size_t n;         /* ends */
    int64_t max_id;
} ct_flows;

/* The flow inputs' ends, none found yet (n = 0: no flow input). */
int ct_flows_init(tp_stage *st, ct_flows *f);
/* The ends in trace k (t_k, being written) and its flow ids. */
void ct_flows_keep(tp_stage *st, ct_flows *f, const tp_trace *t_k, size_t k);
/* The flows as "s"/"f" events (t0: each trace's window start, kept while
 * it was written); returns how many flows. */
size_t ct_write_flows(ct_out *o, tp_stage *st, const ct_flows *f, const int64_t *t0, int *first);
void ct_flows_free(ct_flows *f);

#endif
