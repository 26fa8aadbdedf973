/*
 * step_stats: how steady each name is from step to step (seed 003): per
 * name, a numeric extension column summed per iteration, its mean over the
 * iterations and its coefficient of variation (population std / mean x 100,
 * 0 when the mean is 0, null below two steps: the SDK's convention).  An iteration in which a name is missing counts as
 * 0 for it.  The iteration of a row is its `iteration` extension column
 * (the tfprof reader's step); the iterations are those holding at least one
 * value of the column.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

typedef struct ss_config {
    const char *column;
} ss_config;

static const tp_option ss_options[] = {
    TP_OPTION_STRING("column", ss_config, column, "tfprof.exec_time_ns",
                     "the numeric extension column (int64 or double) to follow over steps"),
    TP_OPTION_END};

/* <id>: one row per name.  A column in ns is reported in us (mean_us), any
 * other as it is (mean); the two declarations differ in that column only. */
#define SS_COLS(X, P, MEAN, MEAN_UNIT, MEAN_DOC)                                                  \
    X(P, name, STR, NULL, "the event name")                                                    \
    X(P, n_steps, I64, "count", "steps holding a value of the column")                         \
    X(P, MEAN, F64, MEAN_UNIT, MEAN_DOC)                                                       \
    X(P, cv_percent, F64, "percent", "coefficient of variation over the steps (population "   \
                                     "std / mean x 100; 0 when the mean is 0; "   \
                                     "null below two steps)")
#define SS_COLS_US(X, P) SS_COLS(X, P, mean_us, "us", "the column summed per step, mean over the steps")
#define SS_COLS_RAW(X, P) SS_COLS(X, P, mean, NULL, "the column summed per step, mean over the steps")
TP_COLUMNS(ss_us, SS_COLS_US);
TP_COLUMNS(ss_raw, SS_COLS_RAW);

static const tp_result_decl ss_results_us[] = {
    TP_RESULT("", "table", ss_us, "per name: mean per step and variation (a column in ns, in us)"),
    TP_RESULTS_END};
static const tp_result_decl ss_results_raw[] = {
    TP_RESULT("", "table", ss_raw, "per name: mean per step and variation (a column not in ns)"),
    TP_RESULTS_END};

/* Is the followed column in ns (then reported in us)? */
static int column_in_ns(const ss_config *cfg)
{
    size_t len = strlen(cfg->column);
    return len > 3 && strcmp(cfg->column + len - 3, "_ns") == 0;
}

static const tp_result_decl *ss_results_for(const void *config)
{
    return column_in_ns(config) ? ss_results_us : ss_results_raw;
}

typedef struct ss_entry {
    uint32_t name, step; /* step: the iteration's index among those present */
    double value;
} ss_entry;

static int by_name_step(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const ss_entry *x = a, *y = b;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return (x->step > y->step) - (x->step < y->step);
}

static int by_int(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* The value column's cells, read once (the first read may make a compact
 * column an array). */
typedef struct ss_values {
    tp_coltype type;
    const void *data;
} ss_values;

static double value_at(const ss_values *vals, size_t row, int *ok)
{
    const void *data = vals->data;
    if (vals->type == TP_COL_I64) {
        int64_t v = ((const int64_t *)data)[row];
        *ok = v != TP_EXT_NULL_I64;
        return (double)v;
    }
    if (vals->type == TP_COL_I32) {
        int32_t v = ((const int32_t *)data)[row];
        *ok = v != TP_EXT_NULL_I32;
        return (double)v;
    }
    double v = ((const double *)data)[row];
    *ok = !isnan(v);
    return v;
}

/* The distinct iterations holding a value, sorted (steps[0..*n)). */
static int distinct_steps(const tp_trace *t, const ss_values *vals, const int32_t *iter,
                          int32_t *steps, size_t *n)
{
    const tp_cols *c = tp_trace_cols(t);
    size_t m = 0;
    for (size_t i = 0; i < c->n; i++) {
        int ok;
        value_at(vals, i, &ok);
        if (ok && iter[i] != TP_EXT_NULL_I32)
            steps[m++] = iter[i];
    }
    if (tp_sort(steps, m, sizeof *steps, by_int, NULL) != TP_OK)
        return TP_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < m; i++)
        if (k == 0 || steps[k - 1] != steps[i])
            steps[k++] = steps[i];
    *n = k;
    return TP_OK;
}

static uint32_t step_index(const int32_t *steps, size_t n, int32_t it)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (steps[mid] < it)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (uint32_t)lo;
}

static int write_rows(tp_stage *st, tp_result *r, const ss_entry *e, size_t n, size_t nsteps)
{
    double *per = tp_malloc((nsteps ? nsteps : 1) * sizeof *per);
    if (per == NULL)
        return TP_ENOMEM;
    int rc = TP_OK;
    for (size_t i = 0; rc == TP_OK && i < n;) {
        memset(per, 0, (nsteps ? nsteps : 1) * sizeof *per);
        size_t j = i;
        double sum = 0;
        for (; j < n && e[j].name == e[i].name; j++) {
            per[e[j].step] += e[j].value;
            sum += e[j].value;
        }
        size_t row;
        rc = tp_result_add_row(st, r, &row);
        rc = rc ? rc : tp_result_set_str(st, r, row, ss_us_name, tp_str_text(st, e[i].name));
        rc = rc ? rc : tp_result_set_i64(st, r, row, ss_us_n_steps, (int64_t)nsteps);
        rc = rc ? rc : tp_result_set_f64(st, r, row, ss_us_mean_us, sum / (double)nsteps);
        double cv = tp_cv_percent(per, nsteps); /* null below two steps */
        if (rc == TP_OK && !isnan(cv))
            rc = tp_result_set_f64(st, r, row, ss_us_cv_percent, cv);
        i = j;
    }
    tp_free(per);
    return rc;
}

static int ss_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const ss_config *cfg = config;
    const tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    int col = tp_trace_ext_find(t, cfg->column), it = tp_trace_ext_find(t, "iteration");
    if (col < 0 || tp_trace_ext_type(t, col) == TP_COL_SID)
        return tp_fail(st, TP_EINVAL, "the trace has no numeric column '%s' (the tfprof reader "
                       "makes tfprof.<column>, see docs/plugins/tfprof.md)", cfg->column);
    if (it < 0 || tp_trace_ext_type(t, it) != TP_COL_I32)
        return tp_fail(st, TP_EINVAL, "the trace has no 'iteration' column (one step per row)");
    const tp_cols *c = tp_trace_cols(t);
    const int32_t *iter = tp_trace_ext_data(t, it);
    ss_values vals = {tp_trace_ext_type(t, col), tp_trace_ext_data(t, col)};
    size_t n = 0, nsteps = 0;
    int to_us = column_in_ns(cfg);
    ss_entry *e = tp_malloc((c->n ? c->n : 1) * sizeof *e);
    int32_t *steps = tp_malloc((c->n ? c->n : 1) * sizeof *steps);
    int rc = e && steps && iter && vals.data ? distinct_steps(t, &vals, iter, steps, &nsteps)
                                             : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < c->n; i++) {
        int ok;
        double v = value_at(&vals, i, &ok);
        if (ok && iter[i] != TP_EXT_NULL_I32)
            e[n++] = (ss_entry){c->name[i], step_index(steps, nsteps, iter[i]), to_us ? v / 1000.0 : v};
    }
    rc = rc ? rc : tp_sort(e, n, sizeof *e, by_name_step, NULL);
    tp_result *r = rc ? NULL : tp_result_declared(st, NULL);
    if (rc == TP_OK && r == NULL)
        rc = TP_ENOMEM;
    if (rc == TP_OK) {
        tp_result_set_meta(st, r, "title", "Per-step mean and variation");
        rc = write_rows(st, r, e, n, nsteps);
    }
    tp_free(e);
    tp_free(steps);
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc ss_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "step_stats",
                  "per name: a column's mean over steps and its coefficient of variation",
                  ss_options, ss_config, NULL, ss_results_us, ss_results_for, 0, NULL, ss_run,
                  NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("step_stats", "0.1.0", ss_stages);
