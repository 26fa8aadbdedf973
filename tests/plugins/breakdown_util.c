/* Helpers for the analysis suites; see breakdown_util.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "breakdown_util.h"

tp_run *bu_run(const char *trace, const char *stages)
{
    static char yaml[8192];
    int n = snprintf(yaml, sizeof yaml,
                     "name: analysis_test\n"
                     "stages:\n"
                     "  - reader: kineto\n"
                     "    path: %s\n"
                     "%s",
                     trace, stages);
    ck_assert(n > 0 && (size_t)n < sizeof yaml);
    return tp_test_run_yaml(yaml);
}

size_t bu_row(const tp_result *r, const char *key, const char *value, const char *parent)
{
    long row = tp_test_find_row(r, key, value, parent);
    ck_assert_msg(row >= 0, "no row %s=%s (parent %s)", key, value, parent ? parent : "-");
    return (size_t)row;
}

int64_t bu_count(const tp_result *r, const char *metric)
{
    return tp_test_i64(r, bu_row(r, "metric", metric, NULL), "value");
}

static const void *attached(tp_run *run, const char *name, tp_coltype type, size_t n)
{
    size_t got = 0;
    const void *a = tp_core_host_api()->trace_attached(tp_run_trace(run), name, type, &got);
    ck_assert_msg(a != NULL, "attachment %s missing", name);
    if (n != SIZE_MAX)
        ck_assert_msg(got == n, "attachment %s has %zu elements, want %zu", name, got, n);
    return a;
}

const int32_t *bu_attached(tp_run *run, const char *name, size_t n)
{
    return attached(run, name, TP_COL_I32, n);
}

const int64_t *bu_attached_i64(tp_run *run, const char *name, size_t n)
{
    return attached(run, name, TP_COL_I64, n);
}

size_t bu_rows(const tp_result *r)
{
    return tp_core_host_api()->result_rows(r);
}

size_t bu_check_tree(const tp_result *r, int exact)
{
    const tp_host_api *h = tp_core_host_api();
    size_t n = h->result_rows(r);
    int pc = h->result_find_col(r, "parent_id");
    double *sum = calloc(n ? n : 1, sizeof *sum);
    char *has = calloc(n ? n : 1, 1);
    ck_assert(sum != NULL && has != NULL && pc >= 0);
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(tp_test_i64(r, i, "id"), (int64_t)i);
        double t = tp_test_f64(r, i, "time_us");
        ck_assert_msg(t >= 0.0, "row %zu has negative time %g", i, t);
        if (h->result_is_null(r, i, pc))
            continue;
        int64_t p = h->result_get_i64(r, i, pc);
        ck_assert_msg(p >= 0 && (size_t)p < i, "row %zu: parent %lld not before it", i,
                      (long long)p);
        sum[p] += t;
        has[p] = 1;
    }
    size_t parents = 0;
    for (size_t i = 0; i < n; i++) {
        if (!has[i])
            continue;
        parents++;
        double t = tp_test_f64(r, i, "time_us");
        if (exact)
            ck_assert_msg(fabs(sum[i] - t) < 1e-6, "row %zu (%s): children %.3f != %.3f", i,
                          tp_test_str(r, i, "name"), sum[i], t);
        else
            ck_assert_msg(sum[i] >= t - 1e-6, "row %zu (%s): children %.3f < %.3f", i,
                          tp_test_str(r, i, "name"), sum[i], t);
    }
    free(sum);
    free(has);
    return parents;
}
