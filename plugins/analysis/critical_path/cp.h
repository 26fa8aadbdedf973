/* critical_path: what the plugin's files share (private to the plugin). */
#ifndef TRACEPIPE_CRITICAL_PATH_H
#define TRACEPIPE_CRITICAL_PATH_H

#include <stdint.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_iter.h>

/* Edge types (docs/plugins/critical_path.md, "The graph"). */
enum {
    CP_SELF,       /* an event's own time: start -> end of a leaf */
    CP_NESTING,    /* parent start -> first child start, last child end -> parent end */
    CP_HOST_ORDER, /* previous event's end -> next start on a host thread */
    CP_LAUNCH,     /* launch call start -> the GPU activity's start */
    CP_STREAM,     /* previous activity's end -> next start on a stream */
    CP_EVENT_WAIT, /* recorded activity's end -> first activity after a stream wait */
    CP_SYNC,       /* waited-for activity's end -> sync call's end */
    CP_MEMCPY,     /* a blocking copy's end -> its call's end */
    CP_GAP,        /* a wait no edge explains, of measured length */
    CP_EDGE__N
};

/* Bound-by categories. */
enum {
    CP_GPU_COMPUTE,
    CP_COMMUNICATION,
    CP_MEMCPY_CAT,
    CP_LAUNCH_OVERHEAD,
    CP_HOST_CPU,
    CP_SYNC_WAIT,
    CP_IDLE,
    CP_CAT__N
};

extern const char *const cp_edge_names[CP_EDGE__N];
extern const char *const cp_cat_names[CP_CAT__N];

/* One typed in-edge of a point: src point, weight (ns), the node whose time
 * the weight is (owner). */
typedef struct cp_edge {
    int32_t src, owner;
    int64_t w;
    uint8_t type;
} cp_edge;

/* The graph: nodes are host events and GPU activities; node k has points
 * 2k (start) and 2k+1 (end); in-edges of point p are e[off[p], off[p+1]). */
typedef struct cp_graph {
    tp_stage *st;
    const tp_cols *c;
    size_t nn, np;      /* nodes, points (2 nn) */
    uint32_t *row;      /* node -> row */
    int32_t *node_of;   /* row -> node or -1 */
    uint8_t *cat;       /* node -> category of its own time */
    int64_t *t;         /* point -> measured time (ns) */
    uint32_t *off;      /* np + 1 */
    cp_edge *e;
    size_t ne, cap;
    int64_t *rt;        /* point -> replayed time */
    int32_t *bind;      /* point -> binding in-edge (index into e), -1: a source */
    int64_t n_dropped;  /* edges left out: their measured times contradict them */
    int64_t n_cyclic;   /* points left at their measured times (a cycle of ties) */
} cp_graph;

/* A what-if's factors on the edges' weights (NULL: the measured weights):
 * a node's own time (self), its own time between its children (piece), launch
 * delays; sync edges into dropped calls are left out. */
typedef struct cp_change {
    double *self_scale, *piece_scale; /* per node */
    uint8_t *drop;                    /* per node: its sync edges dropped */
    double launch;
} cp_change;

/* Builds g from trace t (hierarchy must have run).  TP_OK or an error (reported). */
int cp_build(cp_graph *g, tp_stage *st, const tp_trace *t);
/* Replays g: rt and bind from the edges' weights (under ch when not NULL). */
int cp_replay(cp_graph *g, const cp_change *ch);
/* The factors of what-if m (the i-th) on g's nodes, into ch's arrays (nn cells each). */
int cp_change_of(const cp_graph *g, const tp_optmap *m, size_t i, cp_change *ch);
void cp_graph_free(cp_graph *g);

static inline int32_t cp_node_of_point(int32_t p) { return p / 2; }

#endif
