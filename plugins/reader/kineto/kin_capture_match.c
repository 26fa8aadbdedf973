/*
 * kineto reader: matching the run trace's graph replays with the captures
 * (kin_capture.c).  A replay is the activities one graph launch call
 * replayed (the SDK's launch links, tp_link_launches, and replays,
 * tp_graph_replays).  A replay takes, in this order:
 *
 *   1. by graph node id: when every activity has a "graph node id" some
 *      capture-time launch call also has, that call;
 *   2. by alignment with a capture: the first capture that aligns one to
 *      one (the same count, kinds, and kernel names where the capture call
 *      names its kernel: HIP's args.kernel), else the first whose launches
 *      contain the replay's in order (capture calls no replay ran skipped;
 *      kernels only where the capture names them).  The replay's order:
 *      by graph node id when every activity has one (nodes are numbered as
 *      they are captured), else one queue per (device, stream), each in
 *      start order, merged the way the capture's calls come: each call
 *      takes the head of a queue it stands for (when several: the one
 *      continuing the longest run of calls, then the earliest start), so a
 *      graph whose streams interleave differently at replay still aligns.
 *
 * Matched activities get the extension columns graph_op, graph_inner_op,
 * graph_op_args and graph_op_call (tp_sdk_graphs.h).
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "kin.h"
#include "kin_capture.h"
#include <tracepipe/tp_sdk_graphs.h>
#include <tracepipe/tp_sdk_json.h>
#include <tracepipe/tp_sdk_sort.h>
#include <tracepipe/tp_sdk_trace.h>

#define RUN_MAX 64 /* how far a tie between queues looks ahead */

/* One replay being matched: positions 0..n-1 in matching order. */
typedef struct replay {
    const tp_cols *c;
    uint32_t *rows;    /* the activity at each position */
    int64_t *node;     /* its graph node id, -1 */
    uint32_t *perm;    /* positions grouped by queue, each queue in order */
    size_t *qstart;    /* queue q: perm[qstart[q] .. qstart[q + 1]) */
    size_t *head;      /* per queue, while aligning */
    uint32_t *match;   /* the capture launch (event index) of each position */
    size_t n, nq;
} replay;

/* (graph node id, capture event) of the capture launches that have one. */
typedef struct node_ix {
    int64_t node;
    uint32_t ev;
} node_ix;

static int node_cmp(const void *a, const void *b, void *ctx)
{
    const node_ix *x = a, *y = b;
    (void)ctx;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    return (x->ev > y->ev) - (x->ev < y->ev);
}

static int build_node_ix(const capture *cp, node_ix **ix, size_t *n)
{
    *n = 0;
    *ix = tp_malloc((cp->nlaunches ? cp->nlaunches : 1) * sizeof **ix);
    if (*ix == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < cp->nlaunches; i++)
        if (cp->ev[cp->launches[i]].node >= 0)
            (*ix)[(*n)++] = (node_ix){cp->ev[cp->launches[i]].node, cp->launches[i]};
    return tp_sort(*ix, *n, sizeof **ix, node_cmp, NULL);
}

/* The first capture launch with graph node id node, or -1. */
static int64_t find_node(const node_ix *ix, size_t n, int64_t node)
{
    size_t k = tp_lower_bound_i64(ix, n, sizeof *ix, offsetof(node_ix, node), node);
    return k < n && ix[k].node == node ? (int64_t)ix[k].ev : -1;
}

/* Does capture launch l stand for run activity row a?  Skipping capture
 * calls (exact 0) needs the kernel's name: without it any capture holding
 * enough kernels would do. */
static int same_work(const capture *cp, const tp_cols *c, uint32_t l, uint32_t a, int exact)
{
    const cap_ev *e = &cp->ev[l];
    tp_launch_what want = c->kind[a] == TP_KIND_MEMCPY   ? TP_LAUNCHES_MEMCPY
                          : c->kind[a] == TP_KIND_MEMSET ? TP_LAUNCHES_MEMSET
                                                         : TP_LAUNCHES_KERNEL;
    if (e->what != want)
        return 0;
    if (want != TP_LAUNCHES_KERNEL)
        return 1;
    return e->kernel == 0 ? exact : e->kernel == c->name[a];
}

/* 1. Every position by its graph node id, or 0. */
static int match_by_node(const node_ix *ix, size_t nix, replay *r)
{
    if (nix == 0)
        return 0;
    for (size_t i = 0; i < r->n; i++) {
        int64_t ev = r->node[i] >= 0 ? find_node(ix, nix, r->node[i]) : -1;
        if (ev < 0)
            return 0;
        r->match[i] = (uint32_t)ev;
    }
    return 1;
}

/* The length of the run of capture calls l[k..] that queue q continues
 * from its head. */
static size_t run_length(const capture *cp, const replay *r, const uint32_t *l, size_t nl,
                         size_t k, size_t q, int exact)
{
    size_t run = 0, h = r->head[q];
    while (run < RUN_MAX && k + run < nl && h + run < r->qstart[q + 1] &&
           same_work(cp, r->c, l[k + run], r->rows[r->perm[h + run]], exact))
        run++;
    return run;
}

/* The queue whose head capture call l[k] takes, or SIZE_MAX. */
static size_t pick_queue(const capture *cp, const replay *r, const uint32_t *l, size_t nl,
                         size_t k, int exact)
{
    size_t best = SIZE_MAX, best_run = 0, ncand = 0;
    for (size_t q = 0; q < r->nq; q++) {
        size_t h = r->head[q];
        if (h == r->qstart[q + 1] || !same_work(cp, r->c, l[k], r->rows[r->perm[h]], exact))
            continue;
        ncand++;
        if (best == SIZE_MAX) {
            best = q;
            continue;
        }
        if (ncand == 2)
            best_run = run_length(cp, r, l, nl, k, best, exact);
        size_t run = run_length(cp, r, l, nl, k, q, exact);
        int64_t ts = r->c->ts[r->rows[r->perm[h]]];
        int64_t best_ts = r->c->ts[r->rows[r->perm[r->head[best]]]];
        if (run > best_run || (run == best_run && ts < best_ts)) {
            best = q;
            best_run = run;
        }
    }
    return best;
}

/* 2. Aligns the replay with capture region g (exact: one to one, else
 * capture calls skipped); fills r->match. */
static int align(const capture *cp, replay *r, const cap_region *g, int exact)
{
    const uint32_t *l = cp->launches + g->first;
    if (exact && g->n != r->n)
        return 0;
    memcpy(r->head, r->qstart, r->nq * sizeof *r->head);
    size_t left = r->n;
    for (size_t k = 0; k < g->n && left > 0; k++) {
        size_t q = pick_queue(cp, r, l, g->n, k, exact);
        if (q == SIZE_MAX) {
            if (exact)
                return 0;
            continue;
        }
        r->match[r->perm[r->head[q]++]] = l[k];
        left--;
    }
    return left == 0;
}

/* ------------------------------------------------------ replay ordering */

typedef struct pos_key {
    int64_t node, ts;
    uint32_t row;
} pos_key;

static int pos_cmp(const void *a, const void *b, void *ctx)
{
    const pos_key *x = a, *y = b;
    (void)ctx;
    if (x->node != y->node)
        return x->node < y->node ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

static int all_nodes(const replay *r)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->node[i] < 0)
            return 0;
    return r->n > 0;
}

/* Orders the positions by graph node id (every activity has one). */
static int order_by_node(replay *r)
{
    pos_key *k = tp_malloc((r->n ? r->n : 1) * sizeof *k);
    if (k == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < r->n; i++)
        k[i] = (pos_key){r->node[i], r->c->ts[r->rows[i]], r->rows[i]};
    int rc = tp_sort(k, r->n, sizeof *k, pos_cmp, NULL);
    for (size_t i = 0; rc == TP_OK && i < r->n; i++) {
        r->rows[i] = k[i].row;
        r->node[i] = k[i].node;
    }
    tp_free(k);
    return rc;
}

/* Queues: one per (device, stream) in start order, or one in node order. */
static int make_queues(replay *r, int by_node)
{
    int64_t *key = tp_malloc((r->n ? r->n : 1) * sizeof *key);
    uint32_t *qof = tp_malloc((r->n ? r->n : 1) * sizeof *qof);
    int rc = key && qof ? TP_OK : TP_ENOMEM;
    r->nq = 0;
    for (size_t i = 0; rc == TP_OK && i < r->n; i++) {
        uint64_t dev = (uint32_t)tp_ev_device(r->c, r->rows[i]); /* -1: none */
        int64_t k = by_node ? 0
                            : (int64_t)((dev << 32) | (uint32_t)tp_ev_stream(r->c, r->rows[i]));
        size_t q = 0;
        while (q < r->nq && key[q] != k)
            q++;
        if (q == r->nq)
            key[r->nq++] = k;
        qof[i] = (uint32_t)q;
    }
    if (rc == TP_OK) {
        memset(r->qstart, 0, (r->nq + 1) * sizeof *r->qstart);
        for (size_t i = 0; i < r->n; i++)
            r->qstart[qof[i] + 1]++;
        for (size_t q = 0; q < r->nq; q++)
            r->qstart[q + 1] += r->qstart[q];
        memcpy(r->head, r->qstart, r->nq * sizeof *r->head);
        for (size_t i = 0; i < r->n; i++)
            r->perm[r->head[qof[i]]++] = (uint32_t)i;
    }
    tp_free(key);
    tp_free(qof);
    return rc;
}

static void replay_free(replay *r)
{
    tp_free(r->rows);
    tp_free(r->node);
    tp_free(r->perm);
    tp_free(r->qstart);
    tp_free(r->head);
    tp_free(r->match);
}

static int replay_init(replay *r, const tp_trace *t, const uint32_t *rows, size_t n)
{
    memset(r, 0, sizeof *r);
    r->c = tp_trace_cols(t);
    r->n = n;
    size_t m = n ? n : 1;
    r->rows = tp_malloc(m * sizeof *r->rows);
    r->node = tp_malloc(m * sizeof *r->node);
    r->perm = tp_malloc(m * sizeof *r->perm);
    r->qstart = tp_malloc((m + 1) * sizeof *r->qstart);
    r->head = tp_malloc((m + 1) * sizeof *r->head);
    r->match = tp_malloc(m * sizeof *r->match);
    if (!r->rows || !r->node || !r->perm || !r->qstart || !r->head || !r->match)
        return TP_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        r->rows[i] = rows[i];
        r->node[i] = kin_row_node_id(t, rows[i]);
    }
    return TP_OK;
}

/* Matches one replay: 1 by node id, 2 aligned, 0 not matched; -1 out of memory. */
static int match_replay(const capture *cp, const node_ix *ix, size_t nix, replay *r)
{
    if (match_by_node(ix, nix, r))
        return 1;
    int by_node = all_nodes(r);
    if ((by_node && order_by_node(r) != TP_OK) || make_queues(r, by_node) != TP_OK)
        return -1;
    for (int exact = 1; exact >= 0; exact--)
        for (size_t g = 0; g < cp->nregions; g++)
            if (align(cp, r, &cp->regions[g], exact))
                return 2;
    return 0;
}

/* --------------------------------------------------------------- labels */

typedef struct cap_out {
    tp_trace *t;
    int col_op, col_inner, col_args, col_call;
} cap_out;

/* An op's args as JSON text, interned once. */
static int op_args_text(capture *cp, const tp_trace *t, cap_ev *op)
{
    if (op->args_text != 0)
        return TP_OK;
    if (op->row >= 0) {
        size_t len = 0;
        const char *args = tp_trace_args(t, (size_t)op->row, &len);
        op->args_text = args && len ? tp_intern(cp->st, args, len) : 0;
    } else if (json_is_object(op->args)) {
        char *text = json_dumps(op->args, 0); /* one line, ", " as PyTorch writes */
        if (text == NULL)
            return TP_ENOMEM;
        op->args_text = tp_intern(cp->st, text, strlen(text));
        free(text);
    }
    return op->args_text == TP_STR_ERROR ? TP_ENOMEM : TP_OK;
}

/* The capturing op's args and call (capture event index + 1) on row. */
static int label_args(capture *cp, cap_out *o, uint32_t row, uint32_t inner_ev)
{
    cap_ev *op = &cp->ev[inner_ev - 1];
    int rc = op_args_text(cp, o->t, op);
    if (rc == TP_OK)
        rc = tp_trace_ext_set_i64(cp->st, o->t, o->col_call, row, (int64_t)inner_ev);
    if (rc == TP_OK && op->args_text)
        rc = tp_trace_ext_set_sid(cp->st, o->t, o->col_args, row, op->args_text);
    return rc;
}

static int add_columns(tp_stage *st, cap_out *o)
{
    if (o->col_op >= 0)
        return TP_OK;
    o->col_op = tp_trace_ext_add(st, o->t, TP_GRAPH_OP_COLUMN, TP_COL_SID);
    o->col_inner = tp_trace_ext_add(st, o->t, TP_GRAPH_INNER_OP_COLUMN, TP_COL_SID);
    o->col_args = tp_trace_ext_add(st, o->t, TP_GRAPH_OP_ARGS_COLUMN, TP_COL_SID);
    o->col_call = tp_trace_ext_add(st, o->t, TP_GRAPH_OP_CALL_COLUMN, TP_COL_I64);
    return o->col_op < 0 || o->col_inner < 0 || o->col_args < 0 || o->col_call < 0 ? TP_ENOMEM
                                                                                    : TP_OK;
}

static int label(capture *cp, const replay *r, cap_out *o)
{
    int rc = add_columns(cp->st, o);
    for (size_t i = 0; i < r->n && rc == TP_OK; i++) {
        const cap_ev *e = &cp->ev[r->match[i]];
        if (e->outer)
            rc = tp_trace_ext_set_sid(cp->st, o->t, o->col_op, r->rows[i], e->outer);
        if (rc == TP_OK && e->inner)
            rc = tp_trace_ext_set_sid(cp->st, o->t, o->col_inner, r->rows[i], e->inner);
        if (rc == TP_OK && e->inner_ev)
            rc = label_args(cp, o, r->rows[i], e->inner_ev);
    }
    return rc;
}

static int label_one(capture *cp, const node_ix *ix, size_t nix, const uint32_t *rows, size_t n,
                     cap_out *o, cap_stats *s)
{
    replay r;
    int rc = replay_init(&r, o->t, rows, n);
    int how = rc == TP_OK ? match_replay(cp, ix, nix, &r) : -1;
    s->replays++;
    if (how > 0) {
        s->matched++;
        s->by_node += how == 1;
        rc = label(cp, &r, o);
    }
    replay_free(&r);
    return how < 0 ? TP_ENOMEM : rc;
}

int kin_capture_label(capture *cp, tp_trace *t, cap_stats *s)
{
    const tp_cols *c = tp_trace_cols(t);
    int32_t *launcher = tp_malloc((c->n ? c->n : 1) * sizeof *launcher);
    uint32_t *rows = NULL;
    size_t *start = NULL, nrep = 0, nix = 0;
    node_ix *ix = NULL;
    tp_vocab v;
    int rc = launcher ? tp_vocab_get(cp->st, &v) : TP_ENOMEM;
    if (rc == TP_OK) {
        rc = tp_link_launches(c, NULL, NULL, launcher, NULL);
        if (rc == TP_OK)
            rc = tp_graph_replays(cp->st, t, &v, launcher, &rows, &start, &nrep);
        tp_vocab_free(&v);
    }
    if (rc == TP_OK)
        rc = build_node_ix(cp, &ix, &nix);
    cap_out o = {t, -1, -1, -1, -1};
    for (size_t i = 0; rc == TP_OK && i < nrep; i++)
        rc = label_one(cp, ix, nix, rows + start[i], start[i + 1] - start[i], &o, s);
    tp_free(launcher);
    tp_free(rows);
    tp_free(start);
    tp_free(ix);
    return rc;
}
