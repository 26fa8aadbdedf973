/*
 * analysis diff (issue 17, item 4; issue 25, item 3): two runs compared,
 * `trace: [base, test]`.
 *
 * Per host op name (cpu_op), per GPU activity name (kernels, copies, sets)
 * and per host call name by kind (annotations, runtime calls, syncs,
 * ranges: <id>.calls): count and total time in each trace, the deltas, and
 * whether the name is in both, one only, or matched to a renamed op.  What
 * the traces are (<id>.facts) and the run time (<id>.summary: the median
 * iteration, else the capture windows, warned) are in diff_facts.c;
 * `slower_percent` noted on the summary is what `pipeline run
 * --fail-if-slower PCT` gates a CI job on (exit 3).
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

#include "diff.h"

static const tp_option df_options[] = {
    TP_OPTION_STRING("step_prefix", df_config, step_prefix, NULL,
                     "override of the pipeline's iterations: marker for this stage: a name "
                     "prefix of the iteration markers (the run time is their median duration)"),
    TP_OPTION_BOOL("match_renamed", df_config, match_renamed, "true",
                   "match ops present in one trace only by their signature (count, parent op, "
                   "kernels launched)"),
    TP_OPTION_END};

/* <id> (ops) and <id>.kernels (GPU activities): one row per name, by
 * |delta_us| descending, then name; the two share their columns. */
#define DF_ROW_COLS(X, P)                                                                          \
    X(P, name, STR, NULL, "the name of an op (cpu_op events), a GPU activity (kernels, copies, "   \
                          "sets) or a host call (<id>.calls)")                                     \
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

/* <id>.calls: the same per (kind, name) of the host calls compared. */
#define DF_CALL_COLS(X, P)                                                                         \
    X(P, kind, STR, NULL, "annotation, gpu_annotation, runtime, sync or range")                     \
    DF_ROW_COLS(X, P)
TP_COLUMNS(df_call, DF_CALL_COLS);

const uint8_t df_call_kinds[DF_CALL_KINDS] = {TP_KIND_ANNOTATION, TP_KIND_GPU_ANNOTATION,
                                              TP_KIND_RUNTIME, TP_KIND_SYNC, TP_KIND_RANGE};

static const tp_result_decl df_results[] = {
    TP_RESULT("", "table", df_row, "one row per op name: count and time in each run"),
    TP_RESULT("kernels", "table", df_row, "one row per GPU activity name: count and time in each "
                                          "run"),
    TP_RESULT("calls", "table", df_call, "one row per host call name and kind (annotations but "
                                         "the iteration markers, GPU annotations, runtime "
                                         "calls, syncs, ranges): count and time in each run"),
    TP_RESULT("facts", "table", df_fact, "what the two traces are: one row per fact, base and "
                                         "test side by side; the note warning says which "
                                         "differ"),
    TP_RESULT("summary", "table", df_sum, "one row per measure of the runs; the note "
                                          "slower_percent is the run time's delta_percent, "
                                          "run_time says which it is"),
    TP_RESULT("counts", "table", df_count, "one row per count of the runs (GPU activities, "
                                           "distinct op and kernel names), as integers"),
    TP_RESULTS_END};

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

/* The host calls of the compared kinds, per kind and name; iteration
 * markers left out (each step has its own name; the summary compares
 * them). */
static int fill_calls(df_side *s, size_t nstr, const tp_iter_view *iv)
{
    const tp_cols *c = s->c;
    for (size_t i = 0; i < c->n; i++) {
        size_t k = 0;
        while (k < DF_CALL_KINDS && df_call_kinds[k] != c->kind[i])
            k++;
        if (k == DF_CALL_KINDS || c->dur[i] < 0 || c->name[i] >= nstr ||
            tp_iter_is_marker(iv, c->name[i]))
            continue;
        if (s->calls[k] == NULL && (s->calls[k] = tp_calloc(nstr, sizeof *s->calls[k])) == NULL)
            return TP_ENOMEM;
        df_name *x = &s->calls[k][c->name[i]];
        x->name = c->name[i];
        x->count++;
        x->sum_ns += c->dur[i];
        x->present = 1;
    }
    return TP_OK;
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
        s->kernel_count++;
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
    tp_iter_override ov = {.prefix = cfg->step_prefix, .option = "step_prefix"};
    tp_iter_view iv;
    int rc = tp_iter_view_get(st, (tp_trace *)s->t, &ov, &iv);
    if (rc != TP_OK)
        return rc;
    rc = fill_calls(s, nstr, &iv);
    rc = rc ? rc : df_side_iterations(s, &iv);
    tp_iter_view_release(&iv);
    return rc;
}

static void side_free(df_side *s)
{
    tp_free(s->ops);
    tp_free(s->acts);
    for (size_t k = 0; k < DF_CALL_KINDS; k++)
        tp_free(s->calls[k]);
}

/* ---- rows */

typedef struct df_row {
    tp_str name, matched;
    const df_name *base, *test;
    int64_t delta_ns;
    uint8_t kind; /* <id>.calls: the kind compared; 0 in the others */
} df_row;

static int by_delta(const void *a, const void *b, void *ctx)
{
    tp_stage *st = ctx;
    const df_row *x = a, *y = b;
    int64_t ax = x->delta_ns < 0 ? -x->delta_ns : x->delta_ns;
    int64_t ay = y->delta_ns < 0 ? -y->delta_ns : y->delta_ns;
    if (ax != ay)
        return ax > ay ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return strcmp(tp_str_text(st, x->name), tp_str_text(st, y->name));
}

/* A row with a name on one side only, by its key there: (signature,
 * count), then side (base first), then row. */
typedef struct df_key {
    uint64_t signature;
    int64_t count;
    uint32_t row;
    uint8_t test; /* 1: the name is in test only */
} df_key;

static int by_key(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const df_key *x = a, *y = b;
    if (x->signature != y->signature)
        return x->signature < y->signature ? -1 : 1;
    if (x->count != y->count)
        return x->count < y->count ? -1 : 1;
    if (x->test != y->test)
        return x->test < y->test ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* The names only one side has, matched by unique signatures: a key
 * (signature, count) held by exactly one base-only and one test-only name
 * pairs them; any other key is ambiguous or unmatched.  Sorted by key, so
 * n log n (issue 32: it compared every pair). */
static int match_renamed(df_row *rows, size_t n)
{
    df_key *k = tp_malloc((n ? n : 1) * sizeof *k);
    if (k == NULL)
        return TP_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        const df_name *one = rows[i].test == NULL ? rows[i].base : rows[i].base ? NULL : rows[i].test;
        if (one != NULL)
            k[m++] = (df_key){one->signature, one->count, (uint32_t)i, rows[i].base == NULL};
    }
    int rc = tp_sort(k, m, sizeof *k, by_key, NULL);
    for (size_t i = 0; i < m && rc == TP_OK;) {
        size_t j = i + 1;
        while (j < m && k[j].signature == k[i].signature && k[j].count == k[i].count)
            j++;
        if (j - i == 2 && !k[i].test && k[i + 1].test) { /* one base-only, one test-only */
            df_row *b = &rows[k[i].row], *t = &rows[k[i + 1].row];
            b->test = t->test;
            b->matched = t->name;
            t->matched = b->name;
            t->test = NULL; /* folded into b */
            t->name = 0;
        }
        i = j;
    }
    tp_free(k);
    return rc;
}

/* One row per name present in base or test (arrays of nstr, or NULL:
 * nothing), renamed ops matched when asked; appended to *rows (*n rows,
 * *cap allocated). */
static int rows_of(const df_name *base, const df_name *test, uint8_t kind, size_t nstr,
                   int rename, df_row **rows, size_t *n, size_t *cap)
{
    if (*n + nstr > *cap) {
        size_t want = *n + (nstr ? nstr : 1);
        df_row *grown = tp_realloc(*rows, want * sizeof *grown);
        if (grown == NULL)
            return TP_ENOMEM;
        *rows = grown;
        *cap = want;
    }
    df_row *v = *rows + *n;
    size_t m = 0;
    for (size_t i = 0; i < nstr; i++) {
        const df_name *b = base && base[i].present ? &base[i] : NULL;
        const df_name *t = test && test[i].present ? &test[i] : NULL;
        if (b || t)
            v[m++] = (df_row){(tp_str)i, 0, b, t, 0, kind};
    }
    if (rename && match_renamed(v, m) != TP_OK)
        return TP_ENOMEM;
    for (size_t i = 0; i < m; i++) {
        if (v[i].name == 0)
            continue; /* matched into another row */
        v[i].delta_ns = (v[i].test ? v[i].test->sum_ns : 0) - (v[i].base ? v[i].base->sum_ns : 0);
        (*rows)[(*n)++] = v[i];
    }
    return TP_OK;
}

static double us(int64_t ns) { return (double)ns / 1000.0; }

/* <id>.calls has the columns of the others after its `kind`. */
_Static_assert(df_call_name == df_row_name + 1 && df_call_delta_percent == df_row_delta_percent + 1,
               "<id>.calls: kind, then the row columns");

static int write_row(tp_stage *st, tp_result *r, const df_row *x, int off)
{
    int64_t bc = x->base ? x->base->count : 0, tc = x->test ? x->test->count : 0;
    int64_t bs = x->base ? x->base->sum_ns : 0, ts = x->test ? x->test->sum_ns : 0;
    const char *status = x->matched ? "renamed" : x->base && x->test ? "both"
                         : x->base                          ? "base_only"
                                                            : "test_only";
    size_t row;
    int rc = tp_result_add_row(st, r, &row);
    if (rc == TP_OK && off > 0)
        rc = tp_result_set_str(st, r, row, df_call_kind, tp_kind_name(x->kind));
    rc = rc ? rc : tp_result_set_str(st, r, row, off + df_row_name, tp_str_text(st, x->name));
    rc = rc ? rc : tp_result_set_str(st, r, row, off + df_row_status, status);
    if (rc == TP_OK && x->matched)
        rc = tp_result_set_str(st, r, row, off + df_row_matched, tp_str_text(st, x->matched));
    rc = rc ? rc : tp_result_set_i64(st, r, row, off + df_row_base_count, bc);
    rc = rc ? rc : tp_result_set_i64(st, r, row, off + df_row_test_count, tc);
    rc = rc ? rc : tp_result_set_i64(st, r, row, off + df_row_count_delta, tc - bc);
    rc = rc ? rc : tp_result_set_f64(st, r, row, off + df_row_base_us, us(bs));
    rc = rc ? rc : tp_result_set_f64(st, r, row, off + df_row_test_us, us(ts));
    rc = rc ? rc : tp_result_set_f64(st, r, row, off + df_row_delta_us, us(ts - bs));
    if (rc == TP_OK && bs > 0)
        rc = tp_result_set_f64(st, r, row, off + df_row_delta_percent,
                               100.0 * (double)(ts - bs) / (double)bs);
    return rc;
}

/* Rows present in both traces (renamed ones too). */
static size_t in_common(const df_row *rows, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += rows[i].base && rows[i].test ? 1u : 0u;
    return k;
}

static int write_rows(tp_stage *st, const char *name, const char *title, df_row *rows, size_t n)
{
    tp_result *r = tp_result_declared(st, name);
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(st, r, "title", title);
    int off = name && strcmp(name, "calls") == 0 ? 1 : 0;
    int rc = tp_sort(rows, n, sizeof *rows, by_delta, st);
    for (size_t i = 0; i < n && rc == TP_OK; i++)
        rc = write_row(st, r, &rows[i], off);
    return rc;
}

static size_t count_present(const df_name *v, size_t n)
{
    size_t k = 0;
    for (size_t i = 0; v && i < n; i++)
        k += v[i].present ? 1u : 0u;
    return k;
}

/* The three row results: ops (renamed ones matched), GPU activities, host
 * calls by kind; *common: the names found in both traces. */
static int write_all_rows(tp_stage *st, const df_side side[2], size_t nstr, int rename,
                          size_t *common)
{
    df_row *rows = NULL;
    size_t n = 0, cap = 0;
    int rc = rows_of(side[0].ops, side[1].ops, 0, nstr, rename, &rows, &n, &cap);
    *common = rc == TP_OK ? in_common(rows, n) : 0;
    rc = rc ? rc : write_rows(st, NULL, "Ops: base vs test", rows, n);
    n = 0;
    rc = rc ? rc : rows_of(side[0].acts, side[1].acts, 0, nstr, 0, &rows, &n, &cap);
    *common += rc == TP_OK ? in_common(rows, n) : 0;
    rc = rc ? rc : write_rows(st, "kernels", "GPU activities: base vs test", rows, n);
    n = 0;
    for (size_t k = 0; k < DF_CALL_KINDS && rc == TP_OK; k++)
        rc = rows_of(side[0].calls[k], side[1].calls[k], df_call_kinds[k], nstr, 0, &rows, &n,
                     &cap);
    *common += rc == TP_OK ? in_common(rows, n) : 0;
    rc = rc ? rc : write_rows(st, "calls", "Host calls by kind: base vs test", rows, n);
    tp_free(rows);
    return rc;
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
    size_t common = 0;
    rc = rc ? rc : write_all_rows(st, side, nstr, cfg->match_renamed, &common);
    if (rc == TP_OK && common == 0) /* CONVENTIONS: a diff that cannot compare fails */
        rc = tp_fail(st, TP_EINVAL, "the traces have no op, GPU activity or host call name in "
                     "common: nothing to compare (runs of different programs?)");
    rc = rc ? rc : df_write_facts(st, side);
    size_t on[2] = {count_present(side[0].ops, nstr), count_present(side[1].ops, nstr)};
    size_t an[2] = {count_present(side[0].acts, nstr), count_present(side[1].acts, nstr)};
    rc = rc ? rc : df_write_summary(st, side, on, an, cfg->step_prefix);
    side_free(&side[0]);
    side_free(&side[1]);
    return rc == TP_ENOMEM ? tp_fail(st, rc, "out of memory") : rc; /* else failed already */
}

static const tp_stage_desc df_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "diff",
                  "two runs compared (trace: [base, test]): per op, kernel and host call count "
                  "and time deltas, renamed ops matched, the traces' facts, the run time's "
                  "change (median iteration) for a CI gate",
                  df_options, df_config, "hierarchy", df_results, NULL, TP_STAGE_F_TRACES, NULL,
                  df_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("diff", "0.1.0", df_stages);
