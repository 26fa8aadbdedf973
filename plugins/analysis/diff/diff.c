/*
 * analysis diff (issue 17, item 4): two runs compared, `trace: [base, test]`.
 *
 * Per host op name (cpu_op) and per GPU activity name (kernels, copies,
 * sets): count and total time in each trace, the deltas, and whether the
 * name is in both, one only, or matched to a renamed one.  A summary gives
 * the run time (mean iteration if both traces have iterations, else the
 * span), the kernel time and the counts, with `slower_percent` (the run
 * time's change) noted on it so `pipeline run --fail-if-slower PCT` can
 * gate a CI job on it (exit 3).
 *
 * Renamed ops (docs/plugins/diff.md): an op name present in one trace only
 * is matched to one present in the other only when both have the same
 * signature — the same count, the same parent op name (the nearest
 * enclosing cpu_op's, "" at the top) and the same multiset of GPU activity
 * names launched directly under them — and that signature is unique on
 * both sides.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_iter.h>

typedef struct df_config {
    const char *step_prefix;
    int match_renamed;
} df_config;

static const tp_option df_options[] = {
    TP_OPTION_STRING("step_prefix", df_config, step_prefix, NULL,
                     "override of the pipeline's iterations: marker for this stage: a name "
                     "prefix of the iteration markers (the run time is their mean duration)"),
    TP_OPTION_BOOL("match_renamed", df_config, match_renamed, "true",
                   "match ops present in one trace only by their signature (count, parent op, "
                   "kernels launched)"),
    TP_OPTION_END};

/* <id> (ops) and <id>.kernels (GPU activities): one row per name, by
 * |delta_us| descending, then name; the two share their columns. */
#define DF_ROW_COLS(X, P)                                                                          \
    X(P, name, STR, NULL, "the op name (cpu_op events) or GPU activity name (kernels, copies, "    \
                          "sets)")                                                                 \
    X(P, status, STR, NULL, "both, base_only, test_only or renamed")                               \
    X(P, matched, STR, NULL, "a renamed op's name in the test run (null unless renamed)")          \
    X(P, base_count, I64, "count", "events of the name in the base trace")                         \
    X(P, test_count, I64, "count", "events of the name in the test trace")                         \
    X(P, count_delta, I64, NULL, "test_count - base_count")                                        \
    X(P, base_us, F64, "us", "the name's events' inclusive durations in the base trace, added")    \
    X(P, test_us, F64, "us", "the same in the test trace")                                         \
    X(P, delta_us, F64, "us", "test_us - base_us")                                                 \
    X(P, delta_percent, F64, "percent", "delta_us as a percentage of base_us (null when base_us "  \
                                        "is 0)")
TP_COLUMNS(df_row, DF_ROW_COLS);

/* <id>.summary: one row per measure (iteration_us or span_us, kernel_us,
 * op_names, kernel_names), a long table as their units differ. */
#define DF_SUMMARY_COLS(X, P)                                                                      \
    X(P, measure, STR, NULL, "iteration_us (mean iteration, when both traces have iterations) "    \
                             "or span_us (the traces' spans), kernel_us (GPU activity time), "     \
                             "op_names, kernel_names (distinct names)")                            \
    X(P, base, F64, NULL, "the measure in the base trace (us for the measures ending in _us, "     \
                          "else a count)")                                                         \
    X(P, test, F64, NULL, "the measure in the test trace")                                         \
    X(P, delta, F64, NULL, "test - base")                                                          \
    X(P, delta_percent, F64, "percent", "delta as a percentage of base (null when base is 0)")
TP_COLUMNS(df_sum, DF_SUMMARY_COLS);

static const tp_result_decl df_results[] = {
    TP_RESULT("", "table", df_row, "one row per op name: count and time in each run"),
    TP_RESULT("kernels", "table", df_row, "one row per GPU activity name: count and time in each "
                                          "run"),
    TP_RESULT("summary", "table", df_sum, "one row per measure of the runs; the note "
                                          "slower_percent is the run time's delta_percent"),
    TP_RESULTS_END};

/* Per name, in one trace. */
typedef struct df_name {
    tp_str name;
    int64_t count, sum_ns;
    uint64_t signature; /* ops: hash of parent name and launched kernel names */
    int present;
} df_name;

/* One trace's aggregates, indexed by string id (one pool for the run). */
typedef struct df_side {
    const tp_trace *t;
    const tp_cols *c;
    df_name *ops, *acts; /* [nstr] */
    int64_t time_ns, kernel_ns, span_ns;
    int by_iterations;
} df_side;

static uint64_t mix(uint64_t h, uint64_t x)
{
    h ^= x + 0x9E3779B97F4A7C15u + (h << 6) + (h >> 2);
    return h * 0xBF58476D1CE4E5B9u;
}

/* The nearest enclosing cpu_op of row r (not r itself), or -1. */
static int32_t parent_op(const tp_cols *c, const int32_t *parent, int32_t r)
{
    for (int32_t p = parent[r]; p >= 0; p = parent[p])
        if (c->kind[p] == TP_KIND_CPU_OP)
            return p;
    return -1;
}

/* Signature parts per op row: a commutative sum of the launched activity
 * names' hashes (a multiset), then the parent's name; per name, the
 * first occurrence's. */
static int side_fill(tp_stage *st, df_side *s, size_t nstr, const df_config *cfg)
{
    const tp_cols *c = s->c;
    tp_hier_view v;
    if (tp_hier_view_require(st, s->t, &v) != TP_OK)
        return TP_ENOTFOUND;
    s->ops = tp_calloc(nstr ? nstr : 1, sizeof *s->ops);
    s->acts = tp_calloc(nstr ? nstr : 1, sizeof *s->acts);
    uint64_t *launched = tp_calloc(c->n ? c->n : 1, sizeof *launched);
    if (s->ops == NULL || s->acts == NULL || launched == NULL) {
        tp_free(launched);
        return TP_ENOMEM;
    }
    for (size_t i = 0; i < c->n; i++) {
        if (!tp_ev_is_activity(c, i) || c->dur[i] < 0 || c->name[i] >= nstr)
            continue;
        df_name *a = &s->acts[c->name[i]];
        a->name = c->name[i];
        a->count++;
        a->sum_ns += c->dur[i];
        a->present = 1;
        s->kernel_ns += c->dur[i];
        int32_t l = v.launcher[i], op = l >= 0 ? parent_op(c, v.parent, l) : -1;
        if (op >= 0)
            launched[op] += mix(0, (uint64_t)c->name[i] + 1) | 1;
    }
    for (size_t i = 0; i < c->n; i++) {
        if (c->kind[i] != TP_KIND_CPU_OP || c->dur[i] < 0 || c->name[i] >= nstr)
            continue;
        df_name *o = &s->ops[c->name[i]];
        if (o->count == 0) {
            int32_t p = parent_op(c, v.parent, (int32_t)i);
            o->signature = mix(launched[i], p >= 0 ? (uint64_t)c->name[p] + 1 : 0);
        }
        o->name = c->name[i];
        o->count++;
        o->sum_ns += c->dur[i];
        o->present = 1;
    }
    tp_free(launched);
    int64_t lo, hi;
    tp_trace_window(s->t, &lo, &hi);
    s->span_ns = hi - lo;
    tp_iter_override ov = {.prefix = cfg->step_prefix, .option = "step_prefix"};
    tp_iter_view iv;
    int rc = tp_iter_view_get(st, (tp_trace *)s->t, &ov, &iv);
    int64_t sum = 0;
    for (size_t k = iv.first; rc == TP_OK && k < iv.last; k++) /* after skip_first/last */
        sum += iv.it[k].end - iv.it[k].start;
    s->by_iterations = rc == TP_OK && iv.last > iv.first;
    s->time_ns = s->by_iterations ? sum / (int64_t)(iv.last - iv.first) : s->span_ns;
    tp_iter_view_release(&iv);
    return rc;
}

static void side_free(df_side *s)
{
    tp_free(s->ops);
    tp_free(s->acts);
}

/* ---- rows */

typedef struct df_row {
    tp_str name, matched;
    const df_name *base, *test;
    int64_t delta_ns;
} df_row;

static int by_delta(const void *a, const void *b, void *ctx)
{
    tp_stage *st = ctx;
    const df_row *x = a, *y = b;
    int64_t ax = x->delta_ns < 0 ? -x->delta_ns : x->delta_ns;
    int64_t ay = y->delta_ns < 0 ? -y->delta_ns : y->delta_ns;
    if (ax != ay)
        return ax > ay ? -1 : 1;
    return strcmp(tp_str_text(st, x->name), tp_str_text(st, y->name));
}

/* The names only one side has, matched by unique signatures. */
static void match_renamed(df_row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        df_row *b = &rows[i];
        if (b->test != NULL || b->base == NULL)
            continue;
        size_t found = n, same_base = 0, same_test = 0;
        for (size_t k = 0; k < n; k++) {
            const df_row *r = &rows[k];
            if (r->test == NULL && r->base && r->base->signature == b->base->signature &&
                r->base->count == b->base->count)
                same_base++;
            if (r->base == NULL && r->test && r->matched == 0 &&
                r->test->signature == b->base->signature && r->test->count == b->base->count) {
                same_test++;
                found = k;
            }
        }
        if (same_base != 1 || same_test != 1)
            continue; /* ambiguous or none */
        df_row *t = &rows[found];
        b->test = t->test;
        b->matched = t->name;
        t->matched = b->name;
        t->test = NULL; /* folded into b */
        t->name = 0;
    }
}

static int rows_of(const df_side *base, const df_side *test, int ops, size_t nstr, int rename,
                   df_row **out, size_t *nout)
{
    df_row *rows = tp_malloc((nstr ? nstr : 1) * sizeof *rows);
    if (rows == NULL)
        return TP_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < nstr; i++) {
        const df_name *b = ops ? &base->ops[i] : &base->acts[i];
        const df_name *t = ops ? &test->ops[i] : &test->acts[i];
        if (!b->present && !t->present)
            continue;
        rows[n++] = (df_row){(tp_str)i, 0, b->present ? b : NULL, t->present ? t : NULL, 0};
    }
    if (rename)
        match_renamed(rows, n);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (rows[i].name == 0)
            continue; /* matched into another row */
        rows[i].delta_ns = (rows[i].test ? rows[i].test->sum_ns : 0) -
                           (rows[i].base ? rows[i].base->sum_ns : 0);
        rows[k++] = rows[i];
    }
    *out = rows;
    *nout = k;
    return TP_OK;
}

static double us(int64_t ns) { return (double)ns / 1000.0; }

static int write_rows(tp_stage *st, const char *name, const char *title, df_row *rows, size_t n)
{
    tp_result *r = tp_result_declared(st, name);
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(st, r, "title", title);
    int rc = tp_sort(rows, n, sizeof *rows, by_delta, st);
    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        const df_row *x = &rows[i];
        int64_t bc = x->base ? x->base->count : 0, tc = x->test ? x->test->count : 0;
        int64_t bs = x->base ? x->base->sum_ns : 0, ts = x->test ? x->test->sum_ns : 0;
        const char *status = x->matched ? "renamed" : x->base && x->test ? "both"
                             : x->base                          ? "base_only"
                                                                : "test_only";
        size_t row;
        rc = tp_result_add_row(st, r, &row);
        rc = rc ? rc : tp_result_set_str(st, r, row, df_row_name, tp_str_text(st, x->name));
        rc = rc ? rc : tp_result_set_str(st, r, row, df_row_status, status);
        if (rc == TP_OK && x->matched)
            rc = tp_result_set_str(st, r, row, df_row_matched, tp_str_text(st, x->matched));
        rc = rc ? rc : tp_result_set_i64(st, r, row, df_row_base_count, bc);
        rc = rc ? rc : tp_result_set_i64(st, r, row, df_row_test_count, tc);
        rc = rc ? rc : tp_result_set_i64(st, r, row, df_row_count_delta, tc - bc);
        rc = rc ? rc : tp_result_set_f64(st, r, row, df_row_base_us, us(bs));
        rc = rc ? rc : tp_result_set_f64(st, r, row, df_row_test_us, us(ts));
        rc = rc ? rc : tp_result_set_f64(st, r, row, df_row_delta_us, us(ts - bs));
        if (rc == TP_OK && bs > 0)
            rc = tp_result_set_f64(st, r, row, df_row_delta_percent,
                                   100.0 * (double)(ts - bs) / (double)bs);
    }
    return rc;
}

static int summary_row(tp_stage *st, tp_result *r, const char *measure, double b, double t)
{
    size_t row;
    int rc = tp_result_add_row(st, r, &row);
    rc = rc ? rc : tp_result_set_str(st, r, row, df_sum_measure, measure);
    rc = rc ? rc : tp_result_set_f64(st, r, row, df_sum_base, b);
    rc = rc ? rc : tp_result_set_f64(st, r, row, df_sum_test, t);
    rc = rc ? rc : tp_result_set_f64(st, r, row, df_sum_delta, t - b);
    if (rc == TP_OK && b != 0)
        rc = tp_result_set_f64(st, r, row, df_sum_delta_percent, 100.0 * (t - b) / b);
    return rc;
}

static int write_summary(tp_stage *st, const df_side *b, const df_side *t, size_t nops[2],
                         size_t nacts[2])
{
    tp_result *r = tp_result_declared(st, "summary");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(st, r, "title", "Base vs test");
    int iters = b->by_iterations && t->by_iterations;
    int64_t bt = iters ? b->time_ns : b->span_ns, tt = iters ? t->time_ns : t->span_ns;
    int rc = summary_row(st, r, iters ? "iteration_us" : "span_us", us(bt), us(tt));
    rc = rc ? rc : summary_row(st, r, "kernel_us", us(b->kernel_ns), us(t->kernel_ns));
    rc = rc ? rc : summary_row(st, r, "op_names", (double)nops[0], (double)nops[1]);
    rc = rc ? rc : summary_row(st, r, "kernel_names", (double)nacts[0], (double)nacts[1]);
    if (rc == TP_OK && bt > 0) {
        char text[64];
        snprintf(text, sizeof text, "%.17g", 100.0 * (double)(tt - bt) / (double)bt);
        rc = tp_result_set_meta(st, r, "slower_percent", text);
    }
    return rc;
}

static size_t count_present(const df_name *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += v[i].present ? 1u : 0u;
    return k;
}

static int df_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const df_config *cfg = config;
    if (tp_stage_trace_count(st) != 2)
        return tp_fail(st, TP_EINVAL, "give two traces: trace: [base, test] (got %zu)",
                       tp_stage_trace_count(st));
    size_t nstr = tp_str_count(st);
    df_side side[2];
    memset(side, 0, sizeof side);
    int rc = TP_OK;
    for (size_t i = 0; i < 2 && rc == TP_OK; i++) {
        side[i].t = tp_stage_trace_at(st, i);
        side[i].c = tp_trace_cols(side[i].t);
        rc = side_fill(st, &side[i], nstr, cfg);
    }
    df_row *ops = NULL, *acts = NULL;
    size_t nops = 0, nacts = 0;
    if (rc == TP_OK)
        rc = rows_of(&side[0], &side[1], 1, nstr, cfg->match_renamed, &ops, &nops);
    if (rc == TP_OK)
        rc = rows_of(&side[0], &side[1], 0, nstr, 0, &acts, &nacts);
    if (rc == TP_OK)
        rc = write_rows(st, NULL, "Ops: base vs test", ops, nops);
    if (rc == TP_OK)
        rc = write_rows(st, "kernels", "GPU activities: base vs test", acts, nacts);
    size_t on[2] = {count_present(side[0].ops, nstr), count_present(side[1].ops, nstr)};
    size_t an[2] = {count_present(side[0].acts, nstr), count_present(side[1].acts, nstr)};
    if (rc == TP_OK)
        rc = write_summary(st, &side[0], &side[1], on, an);
    tp_free(ops);
    tp_free(acts);
    side_free(&side[0]);
    side_free(&side[1]);
    if (rc == TP_ENOTFOUND)
        return rc;
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc df_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "diff",
                  "two runs compared (trace: [base, test]): per op and kernel count and time "
                  "deltas, renamed ops matched, run time change for a CI gate",
                  df_options, df_config, "hierarchy", df_results, NULL, TP_STAGE_F_TRACES, NULL,
                  df_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("diff", "0.1.0", df_stages);
