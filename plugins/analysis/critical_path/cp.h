/* critical_path: what the plugin's files share (private to the plugin). */
#ifndef TRACEPIPE_CRITICAL_PATH_H
#define TRACEPIPE_CRITICAL_PATH_H

#include <stdint.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_hier.h>
#include <tracepipe/tp_sdk_iter.h>
#include <tracepipe/tp_sdk_vocab.h>

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
    CP_COLLECTIVE, /* the last rank's collective start -> another rank's collective end */
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

/* Whose time an edge's weight is (its owner): its destination's node, its
 * source's, or the destination's parent's (a parent's own time between two
 * children).  An edge's byte holds its type (low 4 bits) and this. */
enum { CP_OWN_DST, CP_OWN_SRC, CP_OWN_PARENT };
#define CP_EDGE_BYTE(type, own) ((uint8_t)((unsigned)(type) | ((unsigned)(own) << 4)))
#define CP_TYPE_OF(b) ((uint8_t)((b) & 0x0Fu))
#define CP_OWN_OF(b) ((unsigned)(b) >> 4)
extern const char *const cp_cat_names[CP_CAT__N];

/* The graph: nodes are host events and GPU activities; node k has points
 * 2k (start) and 2k+1 (end), whose measured times are read from the
 * trace's columns (cp_t), not stored.  Edges in CSR by destination, int32 indices,
 * one array per field (13 bytes an edge): the in-edges of point p are
 * [off[p], off[p+1]), each a source point, a weight (ns) and a byte: its
 * type and whose time the weight is (cp_owner).  One topological order of
 * the points, made once, serves every replay; a replay leaves each point's
 * binding in-edge (its source and byte), all the walk needs: without
 * what-ifs the edges are freed after the one replay. */
/* One trace of the graph: a rank, when a stage is given several. */
typedef struct cp_trace {
    const tp_trace *t;
    const tp_cols *c;
    tp_hier_cview h;
    int32_t *node_of;   /* row -> node or -1, while the graph is built */
    size_t from, to;    /* its nodes */
    int64_t offset;     /* its clock minus the first trace's (ns): times are the first's */
    int64_t rank;       /* trace info rank, else its index */
    int64_t t0;         /* its window's start (ns, its own clock) */
} cp_trace;

typedef struct cp_graph {
    tp_stage *st;
    cp_trace *tr;       /* nt traces; their nodes in trace order */
    size_t nt;
    size_t nn, np;      /* nodes, points (2 nn) */
    uint32_t *row;      /* node -> row in its trace (in row order within a trace) */
    uint8_t *cat;       /* node -> category of its own time */
    uint32_t *off;      /* np + 1 */
    int32_t *src;       /* edge -> source point */
    int64_t *w;         /* edge -> weight */
    uint8_t *type;      /* edge -> CP_EDGE_BYTE(type, owner) */
    size_t ne;
    uint32_t *order;    /* points, sources first; the last n_cyclic lie on cycles of ties
                           (NULL once no replay needs it) */
    int64_t *rt;        /* point -> replayed time; NULL: the measured (a replay without change) */
    int32_t *bsrc;      /* point -> its binding in-edge's source point, -1: none */
    uint8_t *btype;     /* point -> that edge's byte */
    int64_t n_dropped;  /* edges left out: their measured times contradict them */
    int64_t n_cyclic;   /* points left at their measured times (a cycle of ties) */
} cp_graph;


/* The trace of node k. */
static inline const cp_trace *cp_trace_of(const cp_graph *g, size_t k)
{
    size_t lo = 0, hi = g->nt - 1;
    while (lo < hi) {
        size_t mid = (lo + hi + 1) / 2;
        if (g->tr[mid].from <= k)
            lo = mid;
        else
            hi = mid - 1;
    }
    return &g->tr[lo];
}

/* The columns of node k's trace. */
static inline const tp_cols *cp_cols_of(const cp_graph *g, size_t k)
{
    return g->nt == 1 ? g->tr[0].c : cp_trace_of(g, k)->c;
}

/* The measured time of point p (ns, on the first trace's clock). */
static inline int64_t cp_t(const cp_graph *g, int64_t p)
{
    const cp_trace *tr = g->nt == 1 ? g->tr : cp_trace_of(g, (size_t)(p / 2));
    uint32_t r = g->row[p / 2];
    return tr->c->ts[r] + ((p & 1) ? tr->c->dur[r] : 0) - tr->offset;
}

/* The replayed time of point p: the measured one until a what-if replays. */
static inline int64_t cp_rt(const cp_graph *g, int64_t p)
{
    return g->rt ? g->rt[p] : cp_t(g, p);
}

/* Node k of trace tr whose row is row, or -1 (nodes are in row order). */
static inline int32_t cp_node_of_row(const cp_graph *g, const cp_trace *tr, uint32_t row)
{
    size_t lo = tr->from, hi = tr->to;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->row[mid] < row)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < tr->to && g->row[lo] == row ? (int32_t)lo : -1;
}

static inline int32_t cp_node_of_point(int32_t p) { return p / 2; }

/* The owner of an edge (byte b, source point s) into point p: the node whose time its weight is. */
static inline int32_t cp_owner(const cp_graph *g, uint8_t b, int32_t s, int32_t p)
{
    int32_t k = cp_node_of_point(p);
    if (CP_OWN_OF(b) == CP_OWN_SRC)
        return cp_node_of_point(s);
    if (CP_OWN_OF(b) == CP_OWN_DST)
        return k;
    const cp_trace *tr = g->nt == 1 ? g->tr : cp_trace_of(g, (size_t)k);
    int32_t parent = tp_hier_parent(&tr->h, g->row[k]);
    int32_t owner = parent >= 0 ? cp_node_of_row(g, tr, (uint32_t)parent) : -1;
    return owner >= 0 ? owner : k;
}

/* A what-if's factors on the edges' weights (NULL: the measured weights):
 * a node's own time (self), its own time between its children (piece), launch
 * delays; sync edges into dropped calls are left out. */
typedef struct cp_change {
    double *self_scale, *piece_scale; /* per node */
    uint8_t *drop;                    /* per node: its sync edges dropped */
    double launch;
} cp_change;

/* Builds g from the stage's traces (hierarchy must have run on each): one
 * trace, or the ranks of a job, their collectives matched (tp_sdk_coll.h).
 * TP_OK or an error (reported). */
int cp_build(cp_graph *g, tp_stage *st);
/* With several traces: the collectives matched across them, each trace's
 * clock offset (tr[i].offset) and *coll_src, per node the start point of
 * the last rank's arrival at its collective (-1); NULL with one trace. */
int cp_match_collectives(cp_graph *g, const tp_vocab *v, int32_t **coll_src);
/* The topological order of g's points (once, before the first replay). */
int cp_order(cp_graph *g);
/* Replays g in its order: bsrc/btype from the edges' weights, and rt under ch
 * (NULL: without change, rt stays the measured times and is not stored). */
int cp_replay(cp_graph *g, const cp_change *ch);
/* The factors of what-if m (the i-th) on g's nodes, into ch's arrays (nn cells each). */
int cp_change_of(const cp_graph *g, const tp_optmap *m, size_t i, cp_change *ch);
/* Where the overlay's flow from path node a, leaving at from, ends in the
 * next path node b (ns on the first trace's clock), or -1: none. */
int64_t cp_flow_to(const cp_graph *g, size_t a, size_t b, int64_t from);
/* Frees the edges (no replay after this one). */
void cp_graph_drop_edges(cp_graph *g);
void cp_graph_free(cp_graph *g);

#endif
