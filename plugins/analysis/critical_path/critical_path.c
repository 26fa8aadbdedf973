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
} cp_config;

/* The keys of a what-if (tp_option.h, TP_OPT_MAP_LIST). */
static const char *const cp_what_if_keys[] = {
    "name!", "kernels", "scale:float", "launch_overhead:float", "communication:float|overlapped",
    "host:float", "drop_sync", NULL};

static const tp_option cp_options[] = {
    TP_OPTION_MAP_LIST("what_if", cp_config, what_if, cp_what_if_keys, 0, 1e12,
                       "changes replayed: {name, kernels: REGEX, scale: F, launch_overhead: F, "
                       "communication: overlapped | N (times faster), host: F, drop_sync: REGEX}"),
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
    X(P, on_path_us, F64, "us", "time of the path the event accounts for")
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

#define CP_RESULTS_BASE                                                                        \
    TP_RESULT("path", "table", cp_path, "per iteration, the events of the critical path in order"), \
    TP_RESULT("bound_by", "table", cp_bound, "per iteration and in total, the path per category"), \
    TP_RESULT("ops", "table", cp_ops, "per op, the time it contributes to the paths"),          \
    TP_RESULT("replay", "table", cp_replay, "per iteration, measured and replayed time")
static const tp_result_decl cp_results_what_if[] = {
    CP_RESULTS_BASE,
    TP_RESULT("what_if", "table", cp_whatif, "per what-if and iteration: replayed time, speed-up, bound-by"),
    TP_RESULTS_END};
static const tp_result_decl cp_results_plain[] = {CP_RESULTS_BASE, TP_RESULTS_END};

static const tp_result_decl *cp_results_for(const void *config)
{
    const cp_config *cfg = config;
    return cfg != NULL && cfg->what_if.n > 0 ? cp_results_what_if : cp_results_plain;
}


typedef struct cp_step {
    int32_t p, e; /* the point reached and its binding edge */
    int64_t amount;
} cp_step;

typedef struct cp_run {
    tp_stage *st;
    const tp_trace *t;
    const tp_cols *c;
    cp_graph g;
    tp_hier_view h;
    tp_iter_view iv;
    int has_iv;
    int32_t *node_it; /* node -> iteration index, -1 */
    int32_t *top;     /* row -> op row */
    cp_step *steps;
    size_t nsteps;
    double *acc;      /* node -> us on the current path */
    double *op_us;    /* node -> us on the counted paths (op nodes) */
    double op_none_us, counted_us;
    uint8_t *seen;
    uint32_t *order;
    size_t norder;
    double bound[CP_CAT__N], total[CP_CAT__N];
    int64_t t0;
    tp_result *path, *bound_by, *ops, *replay;
} cp_run;

static double us(int64_t ns) { return (double)ns / 1000.0; }

/* --------------------------------------------------------- iterations */

static int iterations(cp_run *r)
{
    cp_graph *g = &r->g;
    int rc = tp_iter_view_get(r->st, NULL, NULL, &r->iv);
    if (rc != TP_OK)
        return rc;
    r->has_iv = r->iv.n > 0;
    r->node_it = tp_malloc((g->nn ? g->nn : 1) * sizeof *r->node_it);
    if (r->node_it == NULL)
        return TP_ENOMEM;
    rc = r->has_iv ? tp_iter_view_rows(r->st, (tp_trace *)r->t, &r->iv) : TP_OK;
    for (size_t k = 0; k < g->nn && rc == TP_OK; k++) {
        uint32_t row = g->row[k];
        int32_t l = r->h.launcher[row];
        r->node_it[k] = !r->has_iv ? -1 : r->iv.row[l >= 0 ? (uint32_t)l : row];
    }
    return rc;
}

/* The ops above every row (modules and iteration markers skipped). */
static int ops_of_rows(cp_run *r)
{
    const tp_cols *c = r->c;
    tp_vocab v;
    uint8_t *memo = NULL;
    size_t nmemo = 0;
    int rc = tp_vocab_get(r->st, &v);
    if (rc != TP_OK)
        return rc;
    rc = tp_names_with_prefixes(r->st, v.modules, v.n_modules, &memo, &nmemo);
    for (size_t s = 0; s < nmemo && rc == TP_OK && r->has_iv; s++)
        if (tp_iter_is_marker(&r->iv, (tp_str)s))
            memo[s] = 1;
    r->top = tp_malloc((c->n ? c->n : 1) * sizeof *r->top);
    int32_t *scratch = tp_malloc((c->n ? c->n : 1) * sizeof *scratch);
    if (rc == TP_OK && (!r->top || !scratch))
        rc = TP_ENOMEM;
    if (rc == TP_OK)
        tp_outermost_ops(c, r->h.parent, memo, nmemo, r->top, scratch);
    tp_free(scratch);
    tp_free(memo);
    tp_vocab_free(&v);
    return rc;
}

/* ------------------------------------------------------------ the walk */

static uint8_t edge_category(const cp_graph *g, const cp_edge *e)
{
    if (e->type == CP_LAUNCH)
        return CP_LAUNCH_OVERHEAD;
    if (e->type == CP_GAP || e->type == CP_STREAM || e->type == CP_EVENT_WAIT)
        return CP_IDLE;
    return g->cat[e->owner];
}

/* The op node (or -1) of node k's time. */
static int32_t op_node(const cp_run *r, int32_t k)
{
    uint32_t row = r->g.row[k];
    int32_t l = r->h.launcher[row];
    int32_t op = r->top[l >= 0 ? (uint32_t)l : row];
    return op >= 0 ? r->g.node_of[op] : -1;
}

static void appear(cp_run *r, int32_t k)
{
    if (r->seen[k])
        return;
    r->seen[k] = 1;
    r->order[r->norder++] = (uint32_t)k;
}

/* Walks the binding edges back from point pe down to time lo, filling
 * steps; returns the first point. */
static int32_t walk(cp_run *r, int32_t pe, int64_t lo)
{
    const cp_graph *g = &r->g;
    int32_t p = pe;
    r->nsteps = 0;
    while (g->rt[p] > lo && g->bind[p] >= 0) {
        const cp_edge *e = &g->e[g->bind[p]];
        int64_t from = g->rt[e->src] > lo ? g->rt[e->src] : lo;
        r->steps[r->nsteps++] = (cp_step){p, g->bind[p], g->rt[p] - from};
        p = e->src;
    }
    return p;
}

/* Adds amount of category cat on node k (-1: none) to the path's sums. */
static void account(cp_run *r, int32_t k, uint8_t cat, int64_t amount, int counted)
{
    r->bound[cat] += us(amount);
    if (k >= 0)
        r->acc[k] += us(amount);
    if (!counted)
        return;
    r->total[cat] += us(amount);
    r->counted_us += us(amount);
    int32_t op = k >= 0 ? op_node(r, k) : -1;
    if (op >= 0)
        r->op_us[op] += us(amount);
    else
        r->op_none_us += us(amount);
}

static int path_row(cp_run *r, int64_t step_no, int64_t it, int32_t k, int edge)
{
    const tp_cols *c = r->c;
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
    rc = rc ? rc : tp_result_set_f64(r->st, r->path, x, cp_path_start_us, us(c->ts[row] - r->t0));
    rc = rc ? rc : tp_result_set_f64(r->st, r->path, x, cp_path_dur_us, us(c->dur[row]));
    rc = rc ? rc : tp_result_set_f64(r->st, r->path, x, cp_path_on_path_us, r->acc[k]);
    return rc;
}

/* The path rows of one window, in forward order: a node at its first
 * appearance (as a point reached, or as the owner of an edge's time). */
static int emit_path(cp_run *r, int32_t first, int64_t it)
{
    const cp_graph *g = &r->g;
    int8_t *edge_in = NULL;
    int rc = TP_OK;
    r->norder = 0;
    appear(r, cp_node_of_point(first));
    for (size_t i = r->nsteps; i-- > 0;) {
        const cp_edge *e = &g->e[r->steps[i].e];
        appear(r, e->owner);
        appear(r, cp_node_of_point(r->steps[i].p));
    }
    /* the edge into each node: the first step reaching or owned by it */
    edge_in = tp_malloc(r->norder ? r->norder : 1);
    if (edge_in == NULL)
        return TP_ENOMEM;
    for (size_t j = 0; j < r->norder; j++)
        edge_in[j] = -1;
    size_t j = 1;
    for (size_t i = r->nsteps; i-- > 0 && j < r->norder;) {
        const cp_edge *e = &g->e[r->steps[i].e];
        while (j < r->norder && (r->order[j] == (uint32_t)e->owner ||
                                 r->order[j] == (uint32_t)cp_node_of_point(r->steps[i].p)))
            edge_in[j++] = (int8_t)e->type;
    }
    for (size_t n = 0; n < r->norder && rc == TP_OK; n++)
        rc = path_row(r, (int64_t)n, it, (int32_t)r->order[n], edge_in[n]);
    for (size_t n = 0; n < r->norder; n++) {
        r->seen[r->order[n]] = 0;
        r->acc[r->order[n]] = 0;
    }
    tp_free(edge_in);
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

/* One window: the path from point pe back to time lo. */
static int window(cp_run *r, int64_t it, int32_t pe, int64_t lo, int counted)
{
    const cp_graph *g = &r->g;
    memset(r->bound, 0, sizeof r->bound);
    int32_t first = walk(r, pe, lo);
    if (g->rt[first] > lo) /* a source after the window's start: nothing explains the wait */
        account(r, -1, CP_IDLE, g->rt[first] - lo, counted);
    for (size_t i = r->nsteps; i-- > 0;) {
        const cp_edge *e = &g->e[r->steps[i].e];
        account(r, e->owner, edge_category(g, e), r->steps[i].amount, counted);
    }
    int rc = emit_path(r, first, it);
    return rc ? rc : bound_rows(r, r->bound, it);
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
        int32_t w = r->has_iv ? r->node_it[k] : 0, p = (int32_t)(2 * k + 1);
        if (w < 0)
            continue;
        int32_t *m = &(*end_m)[w], *x = &(*end_r)[w];
        if (*m < 0 || g->t[p] > g->t[*m])
            *m = p;
        if (*x < 0 || g->rt[p] > g->rt[*x])
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
            *lo_m = g->t[p] < *lo_m ? g->t[p] : *lo_m;
            *lo_r = g->rt[p] < *lo_r ? g->rt[p] : *lo_r;
        }
        return;
    }
    uint32_t row = r->iv.it[w].row;
    int32_t k = row < r->c->n ? g->node_of[row] : -1;
    *lo_m = r->iv.it[w].start;
    *lo_r = k >= 0 ? g->rt[2 * k] : *lo_m;
}

static int windows(cp_run *r)
{
    size_t nw = r->has_iv ? r->iv.n : (r->g.nn > 0);
    int32_t *end_m = NULL, *end_r = NULL;
    int rc = ends(r, nw, &end_m, &end_r);
    for (size_t w = 0; w < nw && rc == TP_OK; w++) {
        int64_t lo_m, lo_r, it = r->has_iv ? r->iv.step[w] : INT64_MIN;
        if (end_r[w] < 0)
            continue;
        window_start(r, w, &lo_m, &lo_r);
        int counted = !r->has_iv || (w >= r->iv.first && w < r->iv.last);
        rc = window(r, it, end_r[w], lo_r, counted);
        rc = rc ? rc : replay_row(r, it, r->g.t[end_m[w]] - lo_m, r->g.rt[end_r[w]] - lo_r);
    }
    if (rc == TP_OK && r->has_iv)
        rc = bound_rows(r, r->total, INT64_MIN);
    tp_free(end_m);
    tp_free(end_r);
    return rc;
}

/* ---------------------------------------------------------------- ops */

static int op_order(const void *x, const void *y, void *ctx)
{
    const cp_run *r = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    if (r->op_us[a] != r->op_us[b])
        return r->op_us[a] > r->op_us[b] ? -1 : 1;
    int s = strcmp(tp_str_text(r->st, r->c->name[r->g.row[a]]), tp_str_text(r->st, r->c->name[r->g.row[b]]));
    return s ? s : (a > b) - (a < b);
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

/* Per op name (ops of one name summed), most time first; then the time
 * outside any op. */
static int ops_table(cp_run *r)
{
    const cp_graph *g = &r->g;
    size_t n = 0, nn = g->nn ? g->nn : 1;
    uint32_t *idx = tp_malloc(nn * sizeof *idx);
    int32_t *first = tp_malloc((tp_str_count(r->st) + 1) * sizeof *first);
    int rc = idx && first ? TP_OK : TP_ENOMEM;
    for (size_t s = 0; rc == TP_OK && s <= tp_str_count(r->st); s++)
        first[s] = -1;
    for (size_t k = 0; k < g->nn && rc == TP_OK; k++) { /* fold ops by name */
        if (r->op_us[k] <= 0)
            continue;
        tp_str name = r->c->name[g->row[k]];
        if (first[name] < 0) {
            first[name] = (int32_t)k;
            idx[n++] = (uint32_t)k;
        } else {
            r->op_us[first[name]] += r->op_us[k];
        }
    }
    rc = rc ? rc : tp_sort(idx, n, sizeof *idx, op_order, r);
    for (size_t i = 0; i < n && rc == TP_OK; i++)
        rc = op_row(r, tp_str_text(r->st, r->c->name[g->row[idx[i]]]), r->op_us[idx[i]]);
    if (rc == TP_OK && r->op_none_us > 0)
        rc = op_row(r, NULL, r->op_none_us);
    tp_free(idx);
    tp_free(first);
    return rc;
}

/* ------------------------------------------------------------ what-if */

/* The categories of the path walked (steps, from point first) down to lo. */
static void categorise(const cp_run *r, int32_t first, int64_t lo, double *cats)
{
    const cp_graph *g = &r->g;
    if (g->rt[first] > lo)
        cats[CP_IDLE] += us(g->rt[first] - lo);
    for (size_t i = 0; i < r->nsteps; i++)
        cats[edge_category(g, &g->e[r->steps[i].e])] += us(r->steps[i].amount);
}

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

/* The rows of one what-if, replayed already: per window, then the total. */
static int whatif_rows(cp_run *r, tp_result *res, const char *name)
{
    size_t nw = r->has_iv ? r->iv.n : (r->g.nn > 0);
    int32_t *end_m = NULL, *end_r = NULL;
    double total[CP_CAT__N] = {0}, measured = 0, replayed = 0;
    int rc = ends(r, nw, &end_m, &end_r);
    for (size_t w = 0; w < nw && rc == TP_OK; w++) {
        int64_t lo_m, lo_r, it = r->has_iv ? r->iv.step[w] : INT64_MIN;
        double cats[CP_CAT__N] = {0};
        if (end_r[w] < 0)
            continue;
        window_start(r, w, &lo_m, &lo_r);
        categorise(r, walk(r, end_r[w], lo_r), lo_r, cats);
        double m = us(r->g.t[end_m[w]] - lo_m), x = us(r->g.rt[end_r[w]] - lo_r);
        rc = whatif_row(r, res, name, it, m, x, cats);
        if (r->has_iv && w >= r->iv.first && w < r->iv.last) {
            for (int k = 0; k < CP_CAT__N; k++)
                total[k] += cats[k];
            measured += m;
            replayed += x;
        }
    }
    if (rc == TP_OK && r->has_iv)
        rc = whatif_row(r, res, name, INT64_MIN, measured, replayed, total);
    tp_free(end_m);
    tp_free(end_r);
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

static int scratch(cp_run *r)
{
    size_t nn = r->g.nn ? r->g.nn : 1, np = r->g.np ? r->g.np : 1;
    r->steps = tp_malloc(np * sizeof *r->steps);
    r->acc = tp_calloc(nn, sizeof *r->acc);
    r->op_us = tp_calloc(nn, sizeof *r->op_us);
    r->seen = tp_calloc(nn, 1);
    r->order = tp_malloc(nn * sizeof *r->order);
    return r->steps && r->acc && r->op_us && r->seen && r->order ? TP_OK : TP_ENOMEM;
}

static void run_free(cp_run *r)
{
    cp_graph_free(&r->g);
    tp_iter_view_release(&r->iv);
    tp_free(r->node_it);
    tp_free(r->top);
    tp_free(r->steps);
    tp_free(r->acc);
    tp_free(r->op_us);
    tp_free(r->seen);
    tp_free(r->order);
}

static int cp_run_stage(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    cp_run r = {.st = st, .t = t, .c = tp_trace_cols(t)};
    if (tp_hier_view_require(st, t, &r.h) != TP_OK)
        return TP_ENOTFOUND;
    int64_t hi;
    tp_trace_window(t, &r.t0, &hi);
    int rc = cp_build(&r.g, st, t);
    const cp_config *cfg = config;
    if (rc != TP_OK) {
        cp_graph_free(&r.g);
        return rc; /* reported */
    }
    rc = cp_replay(&r.g, NULL);
    rc = rc ? rc : iterations(&r);
    if (rc != TP_OK && rc != TP_ENOMEM) {
        run_free(&r);
        return rc; /* reported by the iteration view */
    }
    rc = rc ? rc : ops_of_rows(&r);
    rc = rc ? rc : scratch(&r);
    rc = rc ? rc : results(&r);
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
                  cp_options, cp_config, "hierarchy", cp_results_what_if, cp_results_for, 0, NULL, cp_run_stage,
                  NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("critical_path", "0.1.0", cp_stages);
