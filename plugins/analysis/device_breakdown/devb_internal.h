/* device_breakdown plugin: state shared by its source files. */
#ifndef TP_DEVB_INTERNAL_H
#define TP_DEVB_INTERNAL_H

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_iter.h>
#include <tracepipe/tp_sdk_vocab.h>
#include <tracepipe/tp_sdk_graphs.h>
#include <tracepipe/tp_sdk_hier.h>

typedef struct db_config {
    int64_t depth;
    int64_t truncate;
    int short_names;
    int merge_ops;
} db_config;

/*
 * The declared results (the stage's descriptor in device_breakdown.c lists
 * them; streams.c writes the first two).  Times are of the kernels, memcpys
 * and memsets; the window is the trace's (tp_trace_window), the same in
 * every row.
 */
#define DB_STREAMS_COLS(X, P)                                                                  \
    X(P, device, I64, NULL, "device")                                                          \
    X(P, stream, I64, NULL, "stream")                                                          \
    X(P, window_us, F64, "us", "the trace's window (time_window clip, else the trace span)")   \
    X(P, active_us, F64, "us", "time with at least one of the stream's activities running "    \
                               "(interval union)")                                             \
    X(P, window_idle_us, F64, "us", "window_us minus the stream's active time inside it")      \
    X(P, active_percent, F64, "percent", "100 x active_us / window_us (0 for an empty window)")
TP_COLUMNS(db_streams, DB_STREAMS_COLS);

#define DB_DEVICES_COLS(X, P)                                                                  \
    X(P, device, I64, NULL, "device")                                                          \
    X(P, n_streams, I64, "count", "streams of the device with activities")                     \
    X(P, busy_us, F64, "us", "time with at least one of its activities running, any stream "   \
                             "(interval union)")                                               \
    X(P, sum_stream_busy_us, F64, "us", "its streams' active_us added (exceeds busy_us by "     \
                                        "the time streams overlap)")                           \
    X(P, window_us, F64, "us", "the trace's window, as in <id>.streams")                       \
    X(P, window_idle_us, F64, "us", "window_us minus busy_us inside it")                       \
    X(P, busy_percent, F64, "percent", "100 x busy_us / window_us (0 for an empty window)")
TP_COLUMNS(db_devices, DB_DEVICES_COLS);

/* The SDK's aggregated-tree columns (tp_sdk_topn.h), then the stream's. */
#define DB_TREE_COLS(X, P)                                                                     \
    X(P, id, I64, NULL, "node id, 0 up in pre-order")                                          \
    X(P, parent_id, I64, NULL, "the parent node's id; null for a top-level node")              \
    X(P, depth, I64, NULL, "levels below the top-level node (0 for it)")                       \
    X(P, name, STR, NULL, "stream N (device D stream N with several devices), all streams "    \
                          "(sum), a host op, a graph's op (graph <id>), a kernel name, Others "  \
                          "or (unlinked)")             \
    X(P, time_us, F64, "us", "summed duration of the node's GPU activities (on its stream)")   \
    X(P, percent_of_parent, F64, "percent",                                                    \
      "100 x time_us / the parent's time_us (100 for a top-level node)")                       \
    X(P, percent_of_total, F64, "percent", "100 x time_us / its top-level node's time_us")     \
    X(P, count, I64, "count", "events grouped in the node (a top-level node: its activities)") \
    X(P, device, I64, NULL, "device of the row's stream node; null under all streams (sum)")   \
    X(P, stream, I64, NULL, "stream of the row's stream node; null under all streams (sum)")
TP_COLUMNS(db_tree, DB_TREE_COLS);

typedef struct db_stream {
    int32_t device, stream;
    size_t first, count; /* its activities: by_stream[first .. first + count) */
    int64_t active;      /* ns covered by at least one of them */
    int64_t in_window;   /* the part of active inside the trace's window */
} db_stream;

/* An activity, grouped by stream, with the position in pre of its entry:
 * the lowest host event above it that the tree can show, where its time is
 * added (-1: unlinked, its launcher outside the host forest).  The op it is
 * shown under is the entry's nearest ancestor-or-self that is not a runtime
 * call (db_owner). */
typedef struct db_act {
    int32_t row, entry;
} db_act;

/*
 * Memory: only the host events the tree can show count (the "set", a bit
 * per row with a rank directory: ~1.5 bits per row): the activities' entries
 * and their ancestors.  An activity's entry is the topmost merge op above its
 * launcher (below it the tree shows the op's activities only, never its
 * host children), else the launcher.  Everything per set member is indexed
 * by its position in the set's forest pre-order (db_pos), everything per
 * activity by its index in by_stream, so no array has one int per trace
 * row.  int32 rows and positions: the plugin refuses traces of 2^31 rows
 * or more.
 */
typedef struct db {
    tp_stage *st;
    const db_config *cfg;
    const tp_trace *t; /* the trace */
    int64_t w0, w1;    /* its window (tp_trace_window) */
    const tp_cols *c;
    tp_hier_cview hv; /* hierarchy */
    const int32_t *roots;
    size_t nroots;
    size_t nacts;
    uint64_t *inset;    /* per row, a bit: an entry or an ancestor of one */
    uint32_t *rank_dir; /* per 64 rows: set bits before them */
    int32_t *pre; /* the set's rows in the host forest's pre-order */
    size_t npre;
    int32_t *pos; /* per set member (by rank): its index in pre, -1 outside the forest */
    db_act *by_stream; /* activities sorted by (device, stream, row) */
    /* pre-order positions whose dt the current stream set: ntouched of
     * them, listed while at most touched_cap (npre / 16 + 1); beyond that
     * (scan) the marks alone say which */
    int32_t *touched;
    size_t ntouched, touched_cap;
    int scan;
    uint8_t *mark; /* per position: touched */
    /* per pass, for touched positions only: the activities they own on this
     * stream (by_stream indexes), as linked lists (-1 = end); their touched
     * host children are their hierarchy children with a mark */
    int32_t *ofirst;         /* per position */
    int32_t *onext;          /* per activity */
    int32_t top_first; /* activities owned by the stream node */
    db_stream *streams; /* distinct (device, stream), sorted */
    size_t nstreams;
    int multi_device;
    tp_str *short_memo; /* per name id: shortened id + 1, 0 = not yet */
    uint8_t *module_memo; /* per name id: 0 unknown, 1 module-like, 2 not */
    tp_vocab vocab;       /* module prefixes (the SDK's, with the pipeline's) */
    tp_iter_view steps;   /* step markers are module-like too */
    tp_graphs graphs;     /* graph replays: their activities sit under their graph op */
    size_t nnames;
    /* the stream being written */
    int all;
    int32_t dev, stream;
    size_t cur_first, cur_count; /* its activities in by_stream (all: every one) */
    int64_t *dt; /* device time per position */
    int64_t total_ns, unlinked_ns, count;
} db;

/* The rank of set member r: its index among the members in row order. */
static inline uint32_t db_rank(const db *d, int64_t r)
{
    return tp_bits_rank(d->inset, d->rank_dir, r);
}

/* Row r's index in pre: -1 when the tree cannot show it (outside the set
 * or the host forest). */
static inline int32_t db_pos(const db *d, int64_t r)
{
    if (!tp_bits_has(d->inset, r))
        return -1;
    return d->pos[db_rank(d, r)];
}

/* The position in pre of the op shown above entry position e (>= 0), or
 * -1: the stream node. */
static inline int32_t db_owner(const db *d, int32_t e)
{
    int32_t r = d->pre[e];
    while (r >= 0 && d->c->kind[r] == TP_KIND_RUNTIME)
        r = tp_hier_parent(&d->hv, r);
    return r >= 0 ? db_pos(d, r) : -1;
}

/* With merge_ops: row r is an op that gathers its subtree's activities. */
int db_is_merge_op(db *d, int64_t r);

/* Collects activities, owners, the pre-order and the stream list. */
int db_prepare(db *d);
/* The tree passes' arrays (after the streams' and devices' tables). */
int db_alloc_pass_arrays(db *d);

/* Writes <id>.streams. */
int db_write_streams(db *d);
int db_write_devices(db *d);

#endif
