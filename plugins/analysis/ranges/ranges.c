/*
 * ranges: time attributed to annotation ranges (issue 13, item 6; seed 002's
 * per-iteration times of annotated regions).  Definitions in
 * docs/plugins/ranges.md.
 *
 * A range is a complete annotation event whose name matches `include`: a
 * host annotation (user_annotation, record_function, NVTX push/pop) or a GPU
 * annotation (gpu_user_annotation).  For a host range, its ops are the
 * outermost CPU ops inside it and its GPU work is what was launched from
 * inside it (the launch's ancestors include the range), so nested ranges
 * each count their work; for a GPU range, the GPU work on its device that
 * starts inside it.
 *   <id>             per range name: count, sum_us (the ranges' own time),
 *                    ops_us, gpu_count, gpu_sum_us, gpu_busy_us (union);
 *   <id>.iterations  per iteration and range name: count, sum_us,
 *                    gpu_sum_us (a series: seed 002's time per iteration).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

#include <tracepipe/tp_sdk_iter.h>
#include <tracepipe/tp_sdk_markers.h>

typedef struct rg_config {
    const char *include;
    const char *marker;
} rg_config;

static const tp_option rg_options[] = {
    TP_OPTION_STRING("include", rg_config, include, ".",
                     "regex naming the ranges (searched, like re.search; default: every one)"),
    TP_OPTION_STRING("marker", rg_config, marker, NULL,
                     "override of the pipeline's iterations: marker for this stage: a regex "
                     "naming the iteration markers of <id>.iterations"),
    TP_OPTION_END};

/* <id>: one row per range name, by sum_us descending. */
#define RG_MAIN_COLS(X, P)                                                                         \
    X(P, name, STR, NULL, "the range's name")                                                      \
    X(P, count, I64, "count", "ranges of that name")                                               \
    X(P, sum_us, F64, "us", "the ranges' own durations, added")                                    \
    X(P, ops_us, F64, "us", "host ranges: durations of the outermost CPU ops inside them")         \
    X(P, gpu_count, I64, "count", "GPU activities launched from inside the ranges (GPU ranges: "   \
                                  "on their device, starting inside them)")                        \
    X(P, gpu_sum_us, F64, "us", "those activities' durations, added")                              \
    X(P, gpu_busy_us, F64, "us", "the union of those activities' intervals")
TP_COLUMNS(rg_main, RG_MAIN_COLS);

/* <id>.iterations: one row per iteration and range name, in step order. */
#define RG_IT_COLS(X, P)                                                                           \
    X(P, iteration, I64, NULL, "the step number: the marker's first capture group if a number, "   \
                               "else the digits after the name's last #, else the ordinal from 0") \
    X(P, name, STR, NULL, "the range's name")                                                      \
    X(P, count, I64, "count", "ranges of that name starting in the iteration")                     \
    X(P, sum_us, F64, "us", "their own durations, added")                                          \
    X(P, gpu_sum_us, F64, "us", "durations of the GPU work launched inside them in the iteration " \
                                "(host ranges only)")
TP_COLUMNS(rg_it, RG_IT_COLS);

static const tp_result_decl rg_results[] = {
    TP_RESULT("", "table", rg_main, "one row per range name: its time, its ops and its GPU work"),
    TP_RESULT("iterations", "series", rg_it, "one row per iteration and range name"),
    TP_RESULTS_END};

typedef struct rg_state {
    tp_markers include;
} rg_state;

static int rg_init(tp_stage *st, const void *config, void **state)
{
    const rg_config *cfg = config;
    rg_state *s = tp_calloc(1, sizeof *s);
    if (s == NULL)
        return TP_ENOMEM;
    *state = s;
    int rc = tp_markers_open(st, &s->include, "include", cfg->include);
    if (rc != TP_OK || cfg->marker == NULL)
        return rc;
    tp_markers check; /* a bad marker regex is a configuration error */
    rc = tp_markers_open(st, &check, "marker", cfg->marker);
    tp_markers_close(&check);
    return rc;
}

static void rg_destroy(tp_stage *st, void *state)
{
    (void)st;
    rg_state *s = state;
    if (s) {
        tp_markers_close(&s->include);
    }
    tp_free(s);
}

/* Per range name (and iteration): sums, and the GPU intervals for the union. */
typedef struct rg_acc {
    tp_str name;
    int32_t iteration;
    int64_t count, sum, ops, gpu_count, gpu_sum;
    tp_interval *iv;
    size_t niv, cap;
} rg_acc;

typedef struct rg {
    tp_stage *st;
    const tp_cols *c;
    const int32_t *parent, *first_child, *next_sibling, *launcher;
    uint8_t *is_range; /* per row */
    rg_acc *acc;       /* per name: the totals; slot per name id */
    uint32_t *slot;    /* per name id: acc index + 1 */
    size_t nacc, cap;
    rg_acc *it;        /* per (iteration, name), iteration by iteration */
    size_t nit, itcap;
    int32_t *stack;    /* scratch: c->n cells */
} rg;

static rg_acc *acc_of(rg *r, tp_str name)
{
    if (r->slot[name] != 0)
        return &r->acc[r->slot[name] - 1];
    if (r->nacc == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        rg_acc *a = tp_realloc(r->acc, cap * sizeof *a);
        if (a == NULL)
            return NULL;
        r->acc = a;
        r->cap = cap;
    }
    r->acc[r->nacc] = (rg_acc){.name = name, .iteration = -1};
    r->slot[name] = (uint32_t)(r->nacc + 1);
    return &r->acc[r->nacc++];
}

static int add_interval(rg_acc *a, int64_t s, int64_t e)
{
    if (a->niv == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 16;
        tp_interval *iv = tp_realloc(a->iv, cap * sizeof *iv);
        if (iv == NULL)
            return TP_ENOMEM;
        a->iv = iv;
        a->cap = cap;
    }
    a->iv[a->niv++] = (tp_interval){s, e};
    return TP_OK;
}

/* The ranges' own time and their outermost ops. */
static int range_times(rg *r, size_t row)
{
    rg_acc *a = acc_of(r, r->c->name[row]);
    if (a == NULL)
        return TP_ENOMEM;
    a->count++;
    a->sum += r->c->dur[row];
    if (r->c->kind[row] == TP_KIND_GPU_ANNOTATION)
        return TP_OK;
    /* outermost ops: walk the subtree, not below an op (a subtree holds at
     * most c->n rows, the stack's size) */
    size_t sp = 0;
    for (int32_t k = r->first_child[row]; k >= 0; k = r->next_sibling[k])
        r->stack[sp++] = k;
    while (sp > 0) {
        int32_t x = r->stack[--sp];
        if (r->c->kind[x] == TP_KIND_CPU_OP) {
            a->ops += r->c->dur[x];
            continue;
        }
        for (int32_t k = r->first_child[x]; k >= 0; k = r->next_sibling[k])
            r->stack[sp++] = k;
    }
    return TP_OK;
}

/* Adds activity a to the GPU work of the ranges named `name`. */
static int credit(rg *r, tp_str name, size_t a)
{
    rg_acc *acc = acc_of(r, name);
    if (acc == NULL)
        return TP_ENOMEM;
    acc->gpu_count++;
    acc->gpu_sum += r->c->dur[a];
    return add_interval(acc, r->c->ts[a], r->c->ts[a] + r->c->dur[a]);
}

/* GPU work: to every host range above its launch; for GPU ranges, below. */
static int attribute_work(rg *r, size_t a, const uint32_t *gpu_ranges, size_t ngr)
{
    const tp_cols *c = r->c;
    int rc = TP_OK;
    for (int32_t x = r->launcher[a] >= 0 ? r->parent[r->launcher[a]] : -1; x >= 0 && rc == TP_OK;
         x = r->parent[x]) {
        if (!r->is_range[x])
            continue;
        rc = credit(r, c->name[x], a);
    }
    for (size_t g = 0; g < ngr && rc == TP_OK; g++) { /* few GPU annotations in practice */
        uint32_t x = gpu_ranges[g];
        if (tp_ev_pid(c, x) != tp_ev_pid(c, a) || c->ts[a] < c->ts[x] ||
            c->ts[a] >= c->ts[x] + c->dur[x])
            continue;
        rc = credit(r, c->name[x], a);
    }
    return rc;
}

static double us(int64_t ns) { return (double)ns / 1000.0; }

static int by_name(const void *x, const void *y, void *ctx)
{
    rg *r = ctx;
    const rg_acc *a = x, *b = y;
    if (a->iteration != b->iteration)
        return a->iteration < b->iteration ? -1 : 1;
    if (a->sum != b->sum)
        return a->sum > b->sum ? -1 : 1;
    return strcmp(tp_str_text(r->st, a->name), tp_str_text(r->st, b->name));
}

static int write_totals(rg *r)
{
    tp_result *res = tp_result_declared(r->st, NULL);
    if (res == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(r->st, res, "title", "Annotation ranges");
    int rc = tp_sort(r->acc, r->nacc, sizeof *r->acc, by_name, r);
    for (size_t i = 0; i < r->nacc && rc == TP_OK; i++) {
        rg_acc *a = &r->acc[i];
        int64_t busy = tp_intervals_length(a->iv, tp_intervals_union(a->iv, a->niv));
        size_t row;
        rc = tp_result_add_row(r->st, res, &row);
        rc = rc ? rc
                : tp_result_set_str(r->st, res, row, rg_main_name, tp_str_text(r->st, a->name));
        rc = rc ? rc : tp_result_set_i64(r->st, res, row, rg_main_count, a->count);
        rc = rc ? rc : tp_result_set_f64(r->st, res, row, rg_main_sum_us, us(a->sum));
        rc = rc ? rc : tp_result_set_f64(r->st, res, row, rg_main_ops_us, us(a->ops));
        rc = rc ? rc : tp_result_set_i64(r->st, res, row, rg_main_gpu_count, a->gpu_count);
        rc = rc ? rc : tp_result_set_f64(r->st, res, row, rg_main_gpu_sum_us, us(a->gpu_sum));
        rc = rc ? rc : tp_result_set_f64(r->st, res, row, rg_main_gpu_busy_us, us(busy));
    }
    return rc;
}

/* ------------------------------------------------------ per iteration */

static rg_acc *it_acc(rg *r, int32_t k, tp_str name)
{
    for (size_t i = r->nit; i-- > 0;) /* rows arrive iteration by iteration */
        if (r->it[i].iteration != k)
            break;
        else if (r->it[i].name == name)
            return &r->it[i];
    if (r->nit == r->itcap) {
        size_t cap = r->itcap ? r->itcap * 2 : 16;
        rg_acc *a = tp_realloc(r->it, cap * sizeof *a);
        if (a == NULL)
            return NULL;
        r->it = a;
        r->itcap = cap;
    }
    r->it[r->nit] = (rg_acc){.name = name, .iteration = k};
    return &r->it[r->nit++];
}

static int per_iteration(rg *r, const tp_iterations *it, const int64_t *steps,
                         const uint32_t *ranges, size_t n)
{
    tp_result *res = tp_result_declared(r->st, "iterations");
    if (res == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(r->st, res, "title", "Annotation ranges per iteration");
    /* ranges in start order, so each iteration's rows come together */
    int rc = TP_OK;
    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        uint32_t x = ranges[i];
        int32_t k = tp_iteration_of(it, r->c->ts[x]);
        if (k < 0)
            continue;
        rg_acc *a = it_acc(r, k, r->c->name[x]);
        if (a == NULL)
            return TP_ENOMEM;
        a->count++;
        a->sum += r->c->dur[x];
    }
    /* where each iteration's entries begin (they come iteration by iteration);
     * SIZE_MAX for an iteration without ranges */
    size_t *begin = tp_malloc((it->n + 1) * sizeof *begin);
    if (begin == NULL)
        return TP_ENOMEM;
    for (size_t k = 0; k <= it->n; k++)
        begin[k] = SIZE_MAX;
    for (size_t i = r->nit; i-- > 0;)
        begin[r->it[i].iteration] = i;
    /* GPU work per (iteration, host range): launched inside the range */
    for (size_t a = 0; a < r->c->n; a++) {
        if (!tp_ev_is_activity(r->c, a) || r->launcher[a] < 0)
            continue;
        int32_t k = tp_iteration_of(it, r->c->ts[r->launcher[a]]);
        for (int32_t x = r->parent[r->launcher[a]]; k >= 0 && x >= 0; x = r->parent[x]) {
            if (!r->is_range[x] || begin[k] == SIZE_MAX)
                continue;
            for (size_t i = begin[k]; i < r->nit && r->it[i].iteration == k; i++)
                if (r->it[i].name == r->c->name[x])
                    r->it[i].gpu_sum += r->c->dur[a];
        }
    }
    tp_free(begin);
    rc = tp_sort(r->it, r->nit, sizeof *r->it, by_name, r);
    for (size_t i = 0; i < r->nit && rc == TP_OK; i++) {
        const rg_acc *a = &r->it[i];
        int64_t step = steps[a->iteration];
        size_t row;
        rc = tp_result_add_row(r->st, res, &row);
        rc = rc ? rc : tp_result_set_i64(r->st, res, row, rg_it_iteration, step);
        rc = rc ? rc : tp_result_set_str(r->st, res, row, rg_it_name, tp_str_text(r->st, a->name));
        rc = rc ? rc : tp_result_set_i64(r->st, res, row, rg_it_count, a->count);
        rc = rc ? rc : tp_result_set_f64(r->st, res, row, rg_it_sum_us, us(a->sum));
        rc = rc ? rc : tp_result_set_f64(r->st, res, row, rg_it_gpu_sum_us, us(a->gpu_sum));
    }
    return rc;
}

/* ------------------------------------------------------------- stage */

static int is_range_row(const tp_cols *c, size_t i)
{
    return tp_ev_is_complete(c, i) &&
           (c->kind[i] == TP_KIND_ANNOTATION || c->kind[i] == TP_KIND_GPU_ANNOTATION);
}

static int find_ranges(rg *r, rg_state *s, uint32_t *ranges, size_t *n, uint32_t *gpu, size_t *ng)
{
    const tp_cols *c = r->c;
    size_t nstr = tp_str_count(r->st);
    uint8_t *memo = tp_calloc(nstr ? nstr : 1, 1);
    if (memo == NULL)
        return TP_ENOMEM;
    int rc = TP_OK;
    for (size_t i = 0; i < c->n && rc == TP_OK; i++) {
        if (!is_range_row(c, i) || c->name[i] >= nstr)
            continue;
        if (memo[c->name[i]] == 0) {
            int m = tp_pyre_search(s->include.re, tp_str_text(r->st, c->name[i]),
                                   tp_str_len(r->st, c->name[i]), s->include.md);
            if (m < 0)
                rc = tp_markers_error(r->st, &s->include, c, i, m);
            memo[c->name[i]] = m > 0 ? 1 : 2;
        }
        if (memo[c->name[i]] != 1)
            continue;
        r->is_range[i] = 1;
        ranges[(*n)++] = (uint32_t)i;
        if (c->kind[i] == TP_KIND_GPU_ANNOTATION)
            gpu[(*ng)++] = (uint32_t)i;
    }
    tp_free(memo);
    return rc;
}

static int by_start(const void *a, const void *b, void *ctx)
{
    const tp_cols *c = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (c->ts[x] != c->ts[y])
        return c->ts[x] < c->ts[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static int rg_run(tp_stage *st, const void *config, void *state)
{
    const rg_config *cfg = config;
    rg_state *s = state;
    const tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    rg r = {.st = st, .c = tp_trace_cols(t)};
    tp_hier_view v;
    if (tp_hier_view_require(st, t, &v) != TP_OK)
        return TP_ENOTFOUND;
    r.parent = v.parent;
    r.first_child = v.first_child;
    r.next_sibling = v.next_sibling;
    r.launcher = v.launcher;
    size_t n = r.c->n ? r.c->n : 1, nr = 0, ng = 0;
    r.is_range = tp_calloc(n, 1);
    r.stack = tp_malloc(n * sizeof *r.stack);
    r.slot = tp_calloc(tp_str_count(st) + 1, sizeof *r.slot);
    uint32_t *ranges = tp_malloc(n * sizeof *ranges), *gpu = tp_malloc(n * sizeof *gpu);
    tp_iter_view steps = {0};
    tp_iterations it = {0};
    int rc = r.is_range && r.stack && r.slot && ranges && gpu ? find_ranges(&r, s, ranges, &nr, gpu, &ng)
                                                   : TP_ENOMEM;
    for (size_t i = 0; i < nr && rc == TP_OK; i++)
        rc = range_times(&r, ranges[i]);
    for (size_t a = 0; a < r.c->n && rc == TP_OK; a++)
        if (tp_ev_is_activity(r.c, a))
            rc = attribute_work(&r, a, gpu, ng);
    tp_iter_override ov = {.marker = cfg->marker, .option = "marker"};
    if (rc == TP_OK && (rc = tp_iter_view_get(st, NULL, &ov, &steps)) == TP_OK)
        it = tp_iter_as_iterations(&steps);
    if (rc == TP_OK)
        rc = tp_sort(ranges, nr, sizeof *ranges, by_start, (void *)r.c);
    if (rc == TP_OK)
        rc = write_totals(&r);
    if (rc == TP_OK)
        rc = per_iteration(&r, &it, steps.step, ranges, nr);
    for (size_t i = 0; i < r.nacc; i++)
        tp_free(r.acc[i].iv);
    tp_free(r.acc);
    tp_free(r.it);
    tp_free(r.slot);
    tp_free(r.is_range);
    tp_free(r.stack);
    tp_free(ranges);
    tp_free(gpu);
    tp_iter_view_release(&steps);
    if (rc == TP_EINVAL || rc == TP_EFORMAT)
        return rc; /* reported */
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc rg_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "ranges",
                  "time, ops and GPU work of annotation / NVTX ranges, per name and per "
                  "iteration",
                  rg_options, rg_config, "hierarchy", rg_results, NULL, 0, rg_init, rg_run,
                  rg_destroy),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("ranges", "0.1.0", rg_stages);
