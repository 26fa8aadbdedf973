/*
 * critical_path: the longest path through a trace's dependency graph per
 * iteration (the whole trace without iterations), what bounds it, and a
 * replay of the graph (docs/plugins/critical_path.md).
 */
#include <math.h>
#include <string.h>

#include "cp.h"
#include <tracepipe/tp_sdk_hier.h>
#include <tracepipe/tp_sdk_vocab.h>

typedef struct cp_config {
    tp_maplist what_if;
    int overlay;
} cp_config;

/* The keys of a what-if (tp_option.h, TP_OPT_MAP_LIST). */
static const char *const cp_what_if_keys[] = {
    "name!", "kernels", "class", "ops", "scale:float", "launch_overhead:float",
    "communication:float|overlapped", "host:float", "drop_sync", NULL};

static const tp_option cp_options[] = {
    TP_OPTION_MAP_LIST("what_if", cp_config, what_if, cp_what_if_keys, 0, 1e12,
                       "changes replayed: {name, kernels: REGEX, class: CLASS, ops: REGEX, scale: F, launch_overhead: F, "
                       "communication: overlapped | N (times faster), host: F, drop_sync: REGEX}"),
    TP_OPTION_BOOL("overlay", cp_config, overlay, "false",
                   "also <id>.marks and <id>.flows, the path as Chrome-trace overlays (chrome_trace "
                   "writes them into the trace: an arg on each event, flow arrows between them)"),
    TP_OPTION_END};

#define CP_PATH_COLS(X, P)                                                                     \
    X(P, iteration, I64, NULL, "the iteration's step number (null: the whole trace)")          \
    X(P, step, I64, "count", "the event's place on the path, from 0")                          \
    X(P, name, STR, NULL, "event name")                                                        \
    X(P, kind, STR, NULL, "event kind")                                                        \
    X(P, category, STR, NULL, "bound-by category of the event's own time")                     \
    X(P, edge, STR, NULL, "type of the edge the path enters the event by (null: the first)")   \
    X(P, start_us, F64, "us", "event start, from the trace's t0")                              \
    X(P, dur_us, F64, "us", "event duration")                                                  \
    X(P, on_path_us, F64, "us", "time of the path the event accounts for")                     \
    X(P, rank, I64, NULL, "the event's rank (trace info rank, else the trace's place in a list of "\
                          "traces; null: one trace that does not say)")
TP_COLUMNS(cp_path, CP_PATH_COLS);

#define CP_BOUND_COLS(X, P)                                                                    \
    X(P, iteration, I64, NULL, "the iteration's step number (null: all iterations, or the whole trace)") \
    X(P, category, STR, NULL, "gpu_compute, communication, memcpy, launch_overhead, host_cpu, "  \
                              "sync_wait or idle")                                             \
    X(P, on_path_us, F64, "us", "time of the path in the category")                            \
    X(P, percent, F64, "percent", "share of the path (the categories of a row group sum to 100)")
TP_COLUMNS(cp_bound, CP_BOUND_COLS);

#define CP_OPS_COLS(X, P)                                                                      \
    X(P, op, STR, NULL, "outermost CPU op (a kernel's: its launch's; null: time outside any op)") \
    X(P, on_path_us, F64, "us", "time of the paths the op accounts for")                       \
    X(P, percent, F64, "percent", "share of the paths' time")
TP_COLUMNS(cp_ops, CP_OPS_COLS);

#define CP_REPLAY_COLS(X, P)                                                                   \
    X(P, iteration, I64, NULL, "the iteration's step number (null: the whole trace)")          \
    X(P, measured_us, F64, "us", "iteration start to the last end of its events, as measured") \
    X(P, replayed_us, F64, "us", "the same in the replayed graph")                             \
    X(P, error_percent, F64, "percent", "(replayed - measured) / measured x 100")
TP_COLUMNS(cp_replay, CP_REPLAY_COLS);

#define CP_WHATIF_COLS(X, P)                                                                   \
    X(P, name, STR, NULL, "the what-if's name")                                                \
    X(P, iteration, I64, NULL, "the iteration's step number (null: all counted iterations, or the whole trace)") \
    X(P, measured_us, F64, "us", "iteration start to the last end of its events, as measured") \
    X(P, replayed_us, F64, "us", "the same in the graph replayed with the change")             \
    X(P, speedup, F64, NULL, "measured_us / replayed_us")                                      \
    X(P, gpu_compute_percent, F64, "percent", "the replayed path's share in gpu_compute")      \
    X(P, communication_percent, F64, "percent", "... in communication")                        \
    X(P, memcpy_percent, F64, "percent", "... in memcpy")                                      \
    X(P, launch_overhead_percent, F64, "percent", "... in launch_overhead")                    \
    X(P, host_cpu_percent, F64, "percent", "... in host_cpu")                                  \
    X(P, sync_wait_percent, F64, "percent", "... in sync_wait")                                \
    X(P, idle_percent, F64, "percent", "... in idle (the seven sum to 100)")
TP_COLUMNS(cp_whatif, CP_WHATIF_COLS);

#define CP_MARK_COLS(X, P)                                                                     \
    X(P, rank, I64, NULL, "the event's trace, by rank (null: the result's trace)")             \
    X(P, row, I64, NULL, "the event's row in its trace")                                       \
    X(P, key, STR, NULL, "the arg's key: critical")                                            \
    X(P, value, STR, NULL, "the arg's value, JSON: true")
TP_COLUMNS(cp_mark, CP_MARK_COLS);

#define CP_FLOW_COLS(X, P)                                                                     \
    X(P, id, I64, "count", "the flow's number, from 1")                                        \
    X(P, name, STR, NULL, "the flow's name: the type of the edge the path enters its end by")  \
    X(P, from_rank, I64, NULL, "the start event's trace, by rank (null: the result's trace)")  \
    X(P, from_row, I64, NULL, "the start event's row in its trace")                            \
    X(P, from_us, F64, "us", "the flow's start, from its trace's t0 (in the start event)")      \
    X(P, to_rank, I64, NULL, "the end event's trace, by rank (null: the result's trace)")      \
    X(P, to_row, I64, NULL, "the end event's row in its trace")                                \
    X(P, to_us, F64, "us", "the flow's end, from its trace's t0 (in the end event)")
TP_COLUMNS(cp_flow, CP_FLOW_COLS);

#define CP_RESULTS_OVERLAY                                                                     \
    TP_RESULT("marks", "arg", cp_mark, "the path's events, each marked critical (overlay kind arg)"), \
    TP_RESULT("flows", "flow", cp_flow, "each path event to the next (overlay kind flow)")
#define CP_RESULTS_WHAT_IF                                                                     \
    TP_RESULT("what_if", "table", cp_whatif, "per what-if and iteration: replayed time, speed-up, bound-by")

#define CP_RESULTS_BASE                                                                        \
    TP_RESULT("path", "table", cp_path, "per iteration, the events of the critical path in order"), \
    TP_RESULT("bound_by", "table", cp_bound, "per iteration and in total, the path per category"), \
    TP_RESULT("ops", "table", cp_ops, "per op, the time it contributes to the paths"),          \
    TP_RESULT("replay", "table", cp_replay, "per iteration, measured and replayed time")
static const tp_result_decl cp_results_all[] = {CP_RESULTS_BASE, CP_RESULTS_WHAT_IF,
                                                CP_RESULTS_OVERLAY, TP_RESULTS_END};
static const tp_result_decl cp_results_what_if[] = {CP_RESULTS_BASE, CP_RESULTS_WHAT_IF,
                                                    TP_RESULTS_END};
static const tp_result_decl cp_results_overlay[] = {CP_RESULTS_BASE, CP_RESULTS_OVERLAY,
                                                    TP_RESULTS_END};
static const tp_result_decl cp_results_plain[] = {CP_RESULTS_BASE, TP_RESULTS_END};

static const tp_result_decl *cp_results_for(const void *config)
{
    const cp_config *cfg = config;
    int w = cfg != NULL && cfg->what_if.n > 0, o = cfg != NULL && cfg->overlay;
    return w && o ? cp_results_all : w ? cp_results_what_if : o ? cp_results_overlay : cp_results_plain;
}


typedef struct cp_step {
    int32_t p, src; /* the point reached and its binding edge's source */
    uint8_t b;      /* that edge's byte */
    int64_t amount;
} cp_step;

/* What the run keeps per trace (a rank, with several). */
typedef struct cp_rtrace {
    tp_iter_view iv;
    tp_iterations its; /* iv's, for tp_iteration_of */
    uint8_t *ops_memo; /* names that are no op: modules, iteration markers */
    size_t nmemo;
    const int32_t *parent; /* the wide hierarchy.parent alone (tp_outermost_op_of walks it) */
} cp_rtrace;

typedef struct cp_run {
    tp_stage *st;
    cp_graph g;
    cp_rtrace *rt;    /* per trace of g */
    int has_iv;       /* every trace has iterations */
    size_t nw;        /* windows: iterations (the fewest of a trace), else 1 */
    cp_step *steps;
    size_t nsteps;
    int32_t *slot;    /* node -> its place on the current path, -1 */
    double *acc;      /* place on the current path -> us of its node */
    int8_t *edge_in;  /* place on the current path -> type of the edge into it, -1 */
    double *op_us;    /* op name -> us on the counted paths */
    double op_none_us, counted_us;
    uint32_t *order;
    size_t norder;
    double total[CP_CAT__N];
    int64_t t0;
    tp_result *path, *bound_by, *ops, *replay;
    tp_result *marks, *flows; /* overlay: true */
    int64_t nflows;
} cp_run;

static double us(int64_t ns) { return (double)ns / 1000.0; }

/* --------------------------------------------------------- iterations */

/* The iterations of every trace; windows are iterations when every trace
 * has them (the i-th of each rank together), else the whole trace. */
static int iterations(cp_run *r)
{
    const cp_graph *g = &r->g;
    r->rt = tp_calloc(g->nt ? g->nt : 1, sizeof *r->rt);
    if (r->rt == NULL)
        return TP_ENOMEM;
    r->has_iv = g->nt > 0;
    r->nw = SIZE_MAX;
    for (size_t i = 0; i < g->nt; i++) {
        int rc = tp_iter_view_get(r->st, (tp_trace *)g->tr[i].t, NULL, &r->rt[i].iv);
        if (rc != TP_OK)
            return rc;
        r->has_iv = r->has_iv && r->rt[i].iv.n > 0;
        r->nw = r->rt[i].iv.n < r->nw ? r->rt[i].iv.n : r->nw;
    }
    if (!r->has_iv)
        r->nw = g->nn > 0;
    for (size_t i = 0; i < g->nt; i++)
        r->rt[i].its = tp_iter_as_iterations(&r->rt[i].iv);
    return TP_OK;
}

static size_t trace_ix(const cp_run *r, size_t k) { return (size_t)(cp_trace_of(&r->g, k) - r->g.tr); }

/* The row whose time node k's is: a GPU activity's launch call, else its own. */
static uint32_t time_row(const cp_run *r, size_t k, size_t i)
{
    uint32_t row = r->g.row[k];
    int32_t l = tp_hier_launcher(&r->g.tr[i].h, row);
    return l >= 0 ? (uint32_t)l : row;
}

/* The iteration index of node k's time (a GPU activity's: its launch's), or -1. */
static int32_t node_iteration(const cp_run *r, size_t k)
{
    size_t i = trace_ix(r, k);
    int32_t w = tp_iteration_of(&r->rt[i].its, r->g.tr[i].c->ts[time_row(r, k, i)]);
    return w >= 0 && (size_t)w < r->nw ? w : -1;
}

/* The names that are no op in trace i: modules and its iteration markers
 * (an op is found per path node, tp_outermost_op_of). */
static int ops_of_rows(cp_run *r, size_t i)
{
    cp_rtrace *x = &r->rt[i];
    const tp_trace *t = r->g.tr[i].t;
    x->parent = tp_hier_parent_array(t); /* filled lazily */
    if (x->parent == NULL)
        return tp_hier_missing(r->st);
    tp_vocab v;
    int rc = tp_vocab_get(r->st, &v);
    if (rc != TP_OK)
        return rc;
    rc = tp_names_with_prefixes(r->st, v.modules, v.n_modules, &x->ops_memo, &x->nmemo);
    for (size_t s = 0; s < x->nmemo && rc == TP_OK && x->iv.n > 0; s++)
        if (tp_iter_is_marker(&x->iv, (tp_str)s))
            x->ops_memo[s] = 1;
    tp_vocab_free(&v);
    return rc;
}

/* ------------------------------------------------------------ the walk */

/* The node whose time step s's edge is. */
static int32_t step_owner(const cp_graph *g, const cp_step *s) { return cp_owner(g, s->b, s->src, s->p); }

static uint8_t edge_category(const cp_graph *g, const cp_step *s)
{
    uint8_t type = CP_TYPE_OF(s->b);
    if (type == CP_LAUNCH)
        return CP_LAUNCH_OVERHEAD;
    if (type == CP_GAP || type == CP_STREAM || type == CP_EVENT_WAIT)
        return CP_IDLE;
    return g->cat[step_owner(g, s)];
}

/* The op (its name, or -1) of node k's time. */
static int64_t op_name(const cp_run *r, int32_t k)
{
    size_t i = trace_ix(r, (size_t)k);
    const cp_trace *tr = &r->g.tr[i];
    int32_t op = tp_outermost_op_of(tr->c, r->rt[i].parent, r->rt[i].ops_memo, r->rt[i].nmemo,
                                    (int32_t)time_row(r, (size_t)k, i));
    return op >= 0 ? (int64_t)tr->c->name[op] : -1;
}

static void appear(cp_run *r, int32_t k)
{
    if (r->slot[k] >= 0)
        return;
    r->slot[k] = (int32_t)r->norder;
    r->acc[r->norder] = 0;
    r->edge_in[r->norder] = -1;
    r->order[r->norder++] = (uint32_t)k;
}

/* Walks the binding edges back from point pe down to time lo, filling
 * steps; returns the first point. */
static int32_t walk(cp_run *r, int32_t pe, int64_t lo)
{
    const cp_graph *g = &r->g;
    int32_t p = pe;
    r->nsteps = 0;
    while (cp_rt(g, p) > lo && g->bsrc[p] >= 0) {
        int32_t s = g->bsrc[p];
        int64_t from = cp_rt(g, s) > lo ? cp_rt(g, s) : lo;
        r->steps[r->nsteps++] = (cp_step){p, s, g->btype[p], cp_rt(g, p) - from};
        p = s;
    }
    return p;
}

/* Adds amount of category cat on node k (-1: none) to the path's sums. */
static void account(cp_run *r, int32_t k, uint8_t cat, int64_t amount, int counted)
{
    if (k >= 0)
        r->acc[r->slot[k]] += us(amount);
    if (!counted)
        return;
    r->total[cat] += us(amount);
    r->counted_us += us(amount);
    int64_t op = k >= 0 ? op_name(r, k) : -1;
    if (op >= 0)
        r->op_us[op] += us(amount);
    else
        r->op_none_us += us(amount);
}

static int path_row(cp_run *r, int64_t step_no, int64_t it, int32_t k, int edge, double on_path)
{
    const cp_trace *tr = cp_trace_of(&r->g, (size_t)k);
    const tp_cols *c = tr->c;
    uint32_t row = r->g.row[k];
    size_t x;
    int rc = tp_result_add_row(r->st, r->path, &x);
    if (rc == TP_OK && it != INT64_MIN)
        rc = tp_result_set_i64(r->st, r->path, x, cp_path_iteration, it);
    rc = rc ? rc : tp_result_set_i64(r->st, r->path, x, cp_path_step, step_no);
    rc = rc ? rc : tp_result_set_str(r->st, r->path, x, cp_path_name, tp_str_text(r->st, c->name[row]));
    rc = rc ? rc : tp_result_set_str(r->st, r->path, x, cp_path_kind, tp_kind_name(c->kind[row]));
    rc = rc ? rc : tp_result_set_str(r->st, r->path, x, cp_path_category, cp_cat_names[r->g.cat[k]]);
    if (rc == TP_OK && edge >= 0)
        rc = tp_result_set_str(r->st, r->path, x, cp_path_edge, cp_edge_names[edge]);
    rc = rc ? rc : tp_result_set_f64(r->st, r->path, x, cp_path_start_us, us(cp_t(&r->g, 2 * k) - r->t0));
    rc = rc ? rc : tp_result_set_f64(r->st, r->path, x, cp_path_dur_us, us(c->dur[row]));
    rc = rc ? rc : tp_result_set_f64(r->st, r->path, x, cp_path_on_path_us, on_path);
    if (rc == TP_OK && tr->rank >= 0)
        rc = tp_result_set_i64(r->st, r->path, x, cp_path_rank, tr->rank);
    return rc;
}

/* The nodes of the walked path in forward order, each at its first
 * appearance (as a point reached, or as the owner of an edge's time). */
static void path_order(cp_run *r, int32_t first)
{
    const cp_graph *g = &r->g;
    r->norder = 0;
    appear(r, cp_node_of_point(first));
    for (size_t i = r->nsteps; i-- > 0;) {
        appear(r, step_owner(g, &r->steps[i]));
        appear(r, cp_node_of_point(r->steps[i].p));
    }
}

/* The path rows of one window (path_order and the accounting done). */
static int emit_path(cp_run *r, int64_t it)
{
    const cp_graph *g = &r->g;
    int8_t *edge_in = r->edge_in;
    int rc = TP_OK;
    /* the edge into each node: the first step reaching or owned by it */
    size_t j = 1;
    for (size_t i = r->nsteps; i-- > 0 && j < r->norder;) {
        const cp_step *s = &r->steps[i];
        uint32_t owner = (uint32_t)step_owner(g, s);
        while (j < r->norder && (r->order[j] == owner ||
                                 r->order[j] == (uint32_t)cp_node_of_point(s->p)))
            edge_in[j++] = (int8_t)CP_TYPE_OF(s->b);
    }
    for (size_t n = 0; n < r->norder && rc == TP_OK; n++)
        rc = path_row(r, (int64_t)n, it, (int32_t)r->order[n], edge_in[n], r->acc[n]);
    for (size_t n = 0; n < r->norder; n++)
        r->slot[r->order[n]] = -1;
    return rc;
}

static int bound_rows(cp_run *r, const double *cats, int64_t it)
{
    double total = 0;
    int rc = TP_OK;
    for (int k = 0; k < CP_CAT__N; k++)
        total += cats[k];
    for (int k = 0; k < CP_CAT__N && rc == TP_OK; k++) {
        size_t x;
        rc = tp_result_add_row(r->st, r->bound_by, &x);
        if (rc == TP_OK && it != INT64_MIN)
            rc = tp_result_set_i64(r->st, r->bound_by, x, cp_bound_iteration, it);
        rc = rc ? rc : tp_result_set_str(r->st, r->bound_by, x, cp_bound_category, cp_cat_names[k]);
        rc = rc ? rc : tp_result_set_f64(r->st, r->bound_by, x, cp_bound_on_path_us, cats[k]);
        if (rc == TP_OK && total > 0)
            rc = tp_result_set_f64(r->st, r->bound_by, x, cp_bound_percent, 100.0 * cats[k] / total);
    }
    return rc;
}

static int replay_row(cp_run *r, int64_t it, int64_t measured, int64_t replayed)
{
    size_t x;
    int rc = tp_result_add_row(r->st, r->replay, &x);
    if (rc == TP_OK && it != INT64_MIN)
        rc = tp_result_set_i64(r->st, r->replay, x, cp_replay_iteration, it);
    rc = rc ? rc : tp_result_set_f64(r->st, r->replay, x, cp_replay_measured_us, us(measured));
    rc = rc ? rc : tp_result_set_f64(r->st, r->replay, x, cp_replay_replayed_us, us(replayed));
    if (rc == TP_OK && measured > 0)
        rc = tp_result_set_f64(r->st, r->replay, x, cp_replay_error_percent,
                               100.0 * (double)(replayed - measured) / (double)measured);
    return rc;
}

/* One window of the replayed graph: its iteration, measured and replayed
 * time, and its path walked back (r->steps, from point first) to lo. */
typedef struct cp_window {
    int64_t it, lo, measured, replayed;
    int32_t first;
    int counted; /* in the totals (an iteration not skipped) */
} cp_window;

/* The categories of window w's path into cats (us); on node k's time when
 * nodes is set, counted per op when w counts (the base replay). */
static void categorise(cp_run *r, const cp_window *w, double *cats, int nodes)
{
    const cp_graph *g = &r->g;
    if (cp_rt(g, w->first) > w->lo) { /* a source after the start: nothing explains the wait */
        cats[CP_IDLE] += us(cp_rt(g, w->first) - w->lo);
        if (nodes)
            account(r, -1, CP_IDLE, cp_rt(g, w->first) - w->lo, w->counted);
    }
    for (size_t i = r->nsteps; i-- > 0;) {
        const cp_step *s = &r->steps[i];
        uint8_t cat = edge_category(g, s);
        cats[cat] += us(s->amount);
        if (nodes)
            account(r, step_owner(g, s), cat, s->amount, w->counted);
    }
}

/* The end points (measured and replayed) of each iteration's events. */
static int ends(cp_run *r, size_t nw, int32_t **end_m, int32_t **end_r)
{
    const cp_graph *g = &r->g;
    *end_m = tp_malloc((nw ? nw : 1) * sizeof **end_m);
    *end_r = tp_malloc((nw ? nw : 1) * sizeof **end_r);
    if (!*end_m || !*end_r)
        return TP_ENOMEM;
    for (size_t w = 0; w < nw; w++)
        (*end_m)[w] = (*end_r)[w] = -1;
    for (size_t k = 0; k < g->nn; k++) {
        int32_t w = r->has_iv ? node_iteration(r, k) : 0, p = (int32_t)(2 * k + 1);
        if (w < 0)
            continue;
        int32_t *m = &(*end_m)[w], *x = &(*end_r)[w];
        if (*m < 0 || cp_t(g, p) > cp_t(g, *m))
            *m = p;
        if (*x < 0 || cp_rt(g, p) > cp_rt(g, *x))
            *x = p;
    }
    return TP_OK;
}

/* The start of window w: measured and replayed (the marker's start point). */
static void window_start(const cp_run *r, size_t w, int64_t *lo_m, int64_t *lo_r)
{
    const cp_graph *g = &r->g;
    if (!r->has_iv) {
        *lo_m = *lo_r = INT64_MAX;
        for (size_t p = 0; p < g->np; p++) {
            *lo_m = cp_t(g, (int64_t)p) < *lo_m ? cp_t(g, (int64_t)p) : *lo_m;
            *lo_r = cp_rt(g, (int64_t)p) < *lo_r ? cp_rt(g, (int64_t)p) : *lo_r;
        }
        return;
    }
    *lo_m = *lo_r = INT64_MAX;
    for (size_t i = 0; i < g->nt; i++) { /* the earliest rank's marker */
        const cp_trace *tr = &g->tr[i];
        uint32_t row = r->rt[i].iv.it[w].row;
        int32_t k = row < tr->c->n ? cp_node_of_row(g, tr, row) : -1;
        int64_t m = r->rt[i].iv.it[w].start - tr->offset;
        *lo_m = m < *lo_m ? m : *lo_m;
        m = k >= 0 ? cp_rt(g, 2 * k) : m;
        *lo_r = m < *lo_r ? m : *lo_r;
    }
}

typedef int (*cp_window_fn)(cp_run *r, const cp_window *w, void *ctx);

/* Walks every window of the replayed graph (the one walk, for the base
 * replay and every what-if), calling fn on each. */
static int each_window(cp_run *r, cp_window_fn fn, void *ctx)
{
    size_t nw = r->nw;
    const tp_iter_view *iv = &r->rt[0].iv; /* the first trace's numbers */
    int32_t *end_m = NULL, *end_r = NULL;
    int rc = ends(r, nw, &end_m, &end_r);
    for (size_t w = 0; w < nw && rc == TP_OK; w++) {
        cp_window x = {.it = r->has_iv ? iv->step[w] : INT64_MIN,
                       .counted = !r->has_iv || (w >= iv->first && w < iv->last)};
        int64_t lo_m;
        if (end_r[w] < 0)
            continue;
        window_start(r, w, &lo_m, &x.lo);
        x.measured = cp_t(&r->g, end_m[w]) - lo_m;
        x.replayed = cp_rt(&r->g, end_r[w]) - x.lo;
        x.first = walk(r, end_r[w], x.lo);
        rc = fn(r, &x, ctx);
    }
    tp_free(end_m);
    tp_free(end_r);
    return rc;
}

/* Node k's event: its trace's rank (null: one trace that does not say it) and row. */
static int set_event(cp_run *r, tp_result *res, size_t x, int rank_col, int row_col, size_t k)
{
    const cp_trace *tr = cp_trace_of(&r->g, k);
    int rc = tr->rank >= 0 ? tp_result_set_i64(r->st, res, x, rank_col, tr->rank) : TP_OK;
    return rc ? rc : tp_result_set_i64(r->st, res, x, row_col, r->g.row[k]);
}

/* Node k's time t (ns, on the first trace's clock) from its own trace's t0, us. */
static double event_us(const cp_run *r, size_t k, int64_t t)
{
    const cp_trace *tr = cp_trace_of(&r->g, k);
    return us(t + tr->offset - tr->t0);
}

/* A flow from path node a to the next, b (cp_flow_to says where it ends). */
static int flow_row(cp_run *r, size_t a, size_t b, int8_t edge)
{
    const cp_graph *g = &r->g;
    int64_t from = cp_t(g, 2 * (int64_t)a), to = cp_flow_to(g, a, b, from);
    if (to == INT64_MIN || to < from)
        return TP_OK;
    size_t x;
    int rc = tp_result_add_row(r->st, r->flows, &x);
    rc = rc ? rc : tp_result_set_i64(r->st, r->flows, x, cp_flow_id, ++r->nflows);
    rc = rc ? rc : tp_result_set_str(r->st, r->flows, x, cp_flow_name,
                                     edge >= 0 ? cp_edge_names[edge] : "path");
    rc = rc ? rc : set_event(r, r->flows, x, cp_flow_from_rank, cp_flow_from_row, a);
    rc = rc ? rc : tp_result_set_f64(r->st, r->flows, x, cp_flow_from_us, event_us(r, a, from));
    rc = rc ? rc : set_event(r, r->flows, x, cp_flow_to_rank, cp_flow_to_row, b);
    return rc ? rc : tp_result_set_f64(r->st, r->flows, x, cp_flow_to_us, event_us(r, b, to));
}

/* The window's path as overlays: each event marked, a flow to the next. */
static int overlay_rows(cp_run *r)
{
    int rc = TP_OK;
    for (size_t n = 0; n < r->norder && rc == TP_OK; n++) {
        size_t x;
        rc = tp_result_add_row(r->st, r->marks, &x);
        rc = rc ? rc : set_event(r, r->marks, x, cp_mark_rank, cp_mark_row, r->order[n]);
        rc = rc ? rc : tp_result_set_str(r->st, r->marks, x, cp_mark_key, "critical");
        rc = rc ? rc : tp_result_set_str(r->st, r->marks, x, cp_mark_value, "true");
        if (rc == TP_OK && n > 0)
            rc = flow_row(r, r->order[n - 1], r->order[n], r->edge_in[n]);
    }
    return rc;
}

/* The base replay's window: path rows, bound-by rows, replay row. */
static int base_window(cp_run *r, const cp_window *w, void *ctx)
{
    double cats[CP_CAT__N] = {0};
    (void)ctx;
    path_order(r, w->first);
    categorise(r, w, cats, 1);
    int rc = emit_path(r, w->it);
    rc = rc || r->marks == NULL ? rc : overlay_rows(r);
    rc = rc ? rc : bound_rows(r, cats, w->it);
    return rc ? rc : replay_row(r, w->it, w->measured, w->replayed);
}

static int windows(cp_run *r)
{
    int rc = each_window(r, base_window, NULL);
    if (rc == TP_OK && r->has_iv)
        rc = bound_rows(r, r->total, INT64_MIN);
    return rc;
}

/* ---------------------------------------------------------------- ops */

static int op_order(const void *x, const void *y, void *ctx)
{
    const cp_run *r = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    if (r->op_us[a] != r->op_us[b])
        return r->op_us[a] > r->op_us[b] ? -1 : 1;
    return strcmp(tp_str_text(r->st, a), tp_str_text(r->st, b));
}

static int op_row(cp_run *r, const char *name, double v)
{
    size_t x;
    int rc = tp_result_add_row(r->st, r->ops, &x);
    if (rc == TP_OK && name != NULL)
        rc = tp_result_set_str(r->st, r->ops, x, cp_ops_op, name);
    rc = rc ? rc : tp_result_set_f64(r->st, r->ops, x, cp_ops_on_path_us, v);
    if (rc == TP_OK && r->counted_us > 0)
        rc = tp_result_set_f64(r->st, r->ops, x, cp_ops_percent, 100.0 * v / r->counted_us);
    return rc;
}

/* Per op name, most time first; then the time outside any op. */
static int ops_table(cp_run *r)
{
    size_t n = 0, ns = tp_str_count(r->st);
    uint32_t *idx = tp_malloc((ns ? ns : 1) * sizeof *idx);
    int rc = idx ? TP_OK : TP_ENOMEM;
    for (size_t s = 0; s < ns && rc == TP_OK; s++)
        if (r->op_us[s] > 0)
            idx[n++] = (uint32_t)s;
    rc = rc ? rc : tp_sort(idx, n, sizeof *idx, op_order, r);
    for (size_t i = 0; i < n && rc == TP_OK; i++)
        rc = op_row(r, tp_str_text(r->st, idx[i]), r->op_us[idx[i]]);
    if (rc == TP_OK && r->op_none_us > 0)
        rc = op_row(r, NULL, r->op_none_us);
    tp_free(idx);
    return rc;
}

/* ------------------------------------------------------------ what-if */

static int whatif_row(cp_run *r, tp_result *res, const char *name, int64_t it, double measured,
                      double replayed, const double *cats)
{
    size_t x;
    double total = 0;
    for (int k = 0; k < CP_CAT__N; k++)
        total += cats[k];
    int rc = tp_result_add_row(r->st, res, &x);
    rc = rc ? rc : tp_result_set_str(r->st, res, x, cp_whatif_name, name);
    if (rc == TP_OK && it != INT64_MIN)
        rc = tp_result_set_i64(r->st, res, x, cp_whatif_iteration, it);
    rc = rc ? rc : tp_result_set_f64(r->st, res, x, cp_whatif_measured_us, measured);
    rc = rc ? rc : tp_result_set_f64(r->st, res, x, cp_whatif_replayed_us, replayed);
    if (rc == TP_OK && replayed > 0)
        rc = tp_result_set_f64(r->st, res, x, cp_whatif_speedup, measured / replayed);
    /* each bound-by category's column, by its declared name */
    static const int pct_col[CP_CAT__N] = {
        [CP_GPU_COMPUTE] = cp_whatif_gpu_compute_percent,
        [CP_COMMUNICATION] = cp_whatif_communication_percent,
        [CP_MEMCPY_CAT] = cp_whatif_memcpy_percent,
        [CP_LAUNCH_OVERHEAD] = cp_whatif_launch_overhead_percent,
        [CP_HOST_CPU] = cp_whatif_host_cpu_percent,
        [CP_SYNC_WAIT] = cp_whatif_sync_wait_percent,
        [CP_IDLE] = cp_whatif_idle_percent};
    for (int k = 0; k < CP_CAT__N && rc == TP_OK && total > 0; k++)
        rc = tp_result_set_f64(r->st, res, x, pct_col[k], 100.0 * cats[k] / total);
    return rc;
}

/* A what-if's sums over the counted windows. */
typedef struct cp_whatif_sum {
    tp_result *res;
    const char *name;
    double cats[CP_CAT__N], measured, replayed;
} cp_whatif_sum;

static int whatif_window(cp_run *r, const cp_window *w, void *ctx)
{
    cp_whatif_sum *sum = ctx;
    double cats[CP_CAT__N] = {0}, m = us(w->measured), x = us(w->replayed);
    categorise(r, w, cats, 0);
    if (r->has_iv && w->counted) {
        for (int k = 0; k < CP_CAT__N; k++)
            sum->cats[k] += cats[k];
        sum->measured += m;
        sum->replayed += x;
    }
    return whatif_row(r, sum->res, sum->name, w->it, m, x, cats);
}

/* The rows of one what-if, replayed already: per window, then the total. */
static int whatif_rows(cp_run *r, tp_result *res, const char *name)
{
    cp_whatif_sum sum = {.res = res, .name = name};
    int rc = each_window(r, whatif_window, &sum);
    if (rc == TP_OK && r->has_iv)
        rc = whatif_row(r, res, name, INT64_MIN, sum.measured, sum.replayed, sum.cats);
    return rc;
}

static int what_ifs(cp_run *r, const tp_maplist *wi)
{
    if (wi->n == 0)
        return TP_OK;
    size_t nn = r->g.nn ? r->g.nn : 1;
    tp_result *res = tp_result_declared(r->st, "what_if");
    cp_change ch = {tp_malloc(nn * sizeof(double)), tp_malloc(nn * sizeof(double)),
                    tp_malloc(nn), 1};
    int rc = res && ch.self_scale && ch.piece_scale && ch.drop ? TP_OK : TP_ENOMEM;
    if (rc == TP_OK)
        tp_result_set_meta(r->st, res, "title", "Critical path: what-if");
    for (size_t i = 0; i < wi->n && rc == TP_OK; i++) {
        rc = cp_change_of(&r->g, &wi->items[i], i, &ch);
        rc = rc ? rc : cp_replay(&r->g, &ch);
        rc = rc ? rc : whatif_rows(r, res, tp_optmap_get(&wi->items[i], "name"));
    }
    tp_free(ch.self_scale);
    tp_free(ch.piece_scale);
    tp_free(ch.drop);
    return rc;
}

/* --------------------------------------------------------------- stage */

static int results(cp_run *r)
{
    r->path = tp_result_declared(r->st, "path");
    r->bound_by = tp_result_declared(r->st, "bound_by");
    r->ops = tp_result_declared(r->st, "ops");
    r->replay = tp_result_declared(r->st, "replay");
    if (!r->path || !r->bound_by || !r->ops || !r->replay)
        return TP_ENOMEM;
    tp_result_set_meta(r->st, r->path, "title", "Critical path");
    tp_result_set_meta(r->st, r->bound_by, "title", "Critical path: bound by");
    tp_result_set_meta(r->st, r->ops, "title", "Critical path per op");
    tp_result_set_meta(r->st, r->replay, "title", "Critical path: replay");
    return TP_OK;
}

static int overlay_results(cp_run *r)
{
    r->marks = tp_result_declared(r->st, "marks");
    r->flows = tp_result_declared(r->st, "flows");
    return r->marks && r->flows ? TP_OK : TP_ENOMEM;
}

static int scratch(cp_run *r)
{
    size_t nn = r->g.nn ? r->g.nn : 1, np = r->g.np ? r->g.np : 1;
    r->steps = tp_malloc(np * sizeof *r->steps);
    r->slot = tp_malloc(nn * sizeof *r->slot);
    r->acc = tp_malloc(nn * sizeof *r->acc);
    r->edge_in = tp_malloc(nn);
    r->op_us = tp_calloc(tp_str_count(r->st) + 1, sizeof *r->op_us);
    r->order = tp_malloc(nn * sizeof *r->order);
    if (!r->steps || !r->slot || !r->acc || !r->edge_in || !r->op_us || !r->order)
        return TP_ENOMEM;
    for (size_t k = 0; k < r->g.nn; k++)
        r->slot[k] = -1;
    return TP_OK;
}

static void run_free(cp_run *r)
{
    for (size_t i = 0; r->rt != NULL && i < r->g.nt; i++) { /* before the graph: its nt */
        tp_iter_view_release(&r->rt[i].iv);
        tp_free(r->rt[i].ops_memo);
    }
    tp_free(r->rt);
    cp_graph_free(&r->g);
    tp_free(r->steps);
    tp_free(r->slot);
    tp_free(r->acc);
    tp_free(r->edge_in);
    tp_free(r->op_us);
    tp_free(r->order);
}

static int cp_run_stage(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const tp_trace *t = tp_stage_trace_count(st) > 0 ? tp_stage_trace_at(st, 0) : NULL;
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    cp_run r = {.st = st};
    const cp_config *cfg = config;
    int rc = cp_build(&r.g, st);
    r.t0 = r.g.tr ? r.g.tr[0].t0 : 0;
    if (rc != TP_OK) {
        cp_graph_free(&r.g);
        return rc; /* reported */
    }
    rc = cp_order(&r.g);
    rc = rc ? rc : cp_replay(&r.g, NULL);
    if (rc == TP_OK && cfg->what_if.n == 0)
        cp_graph_drop_edges(&r.g); /* no other replay */
    rc = rc ? rc : iterations(&r);
    if (rc != TP_OK && rc != TP_ENOMEM) {
        run_free(&r);
        return rc; /* reported by the iteration view */
    }
    for (size_t i = 0; i < r.g.nt && rc == TP_OK; i++)
        rc = ops_of_rows(&r, i);
    rc = rc ? rc : scratch(&r);
    rc = rc ? rc : results(&r);
    if (rc == TP_OK && cfg->overlay)
        rc = overlay_results(&r);
    rc = rc ? rc : windows(&r);
    rc = rc ? rc : ops_table(&r);
    rc = rc ? rc : what_ifs(&r, &cfg->what_if);
    if (rc != TP_OK && rc != TP_ENOMEM) {
        run_free(&r);
        return rc; /* reported (a what-if's regex or factor) */
    }
    if (rc == TP_OK && (r.g.n_dropped > 0 || r.g.n_cyclic > 0))
        tp_log(st, TP_LOG_INFO, "%s: %lld edges left out (their measured times contradict them), "
               "%lld points on cycles of ties kept at their measured times",
               tp_trace_source(t), (long long)r.g.n_dropped, (long long)r.g.n_cyclic);
    run_free(&r);
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc cp_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "critical_path",
                  "the longest path through the trace's dependency graph per iteration, what "
                  "bounds it, and a replay of the graph",
                  cp_options, cp_config, "hierarchy", cp_results_all, cp_results_for,
                  TP_STAGE_F_TRACES, NULL, cp_run_stage,
                  NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("critical_path", "0.1.0", cp_stages);
