/*
 * Runs share no mutable state: one validated pipeline run four times at
 * once in threads gives four identical results, equal to a lone run.
 */
#include "tp_test.h"

#include <pthread.h>
#include <string.h>

static const char *yaml = "stages:\n"
                          "  - reader: kineto\n"
                          "    path: tests/data/dlrm_worker0_step12.pt.trace.json.gz\n"
                          "  - analysis: host_breakdown\n"
                          "    id: host\n"
                          "    depth: 4\n"
                          "  - analysis: device_breakdown\n"
                          "    id: device\n";

typedef struct job {
    tp_pipeline *p;
    tp_run *run;
    int rc;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    tp_run_opts o = {0};
    j->rc = tp_pipeline_run(j->p, &o, &j->run);
    return NULL;
}

/* Every cell of two results, as text, must match. */
static void assert_same(const tp_result *a, const tp_result *b)
{
    const tp_host_api *h = tp_core_host_api();
    ck_assert_uint_eq(h->result_rows(a), h->result_rows(b));
    ck_assert_uint_eq(h->result_cols(a), h->result_cols(b));
    for (size_t r = 0; r < h->result_rows(a); r++) {
        for (int c = 0; c < (int)h->result_cols(a); c++) {
            ck_assert_int_eq(h->result_is_null(a, r, c), h->result_is_null(b, r, c));
            if (h->result_col_type(a, c) == TP_COL_STR) {
                const char *x = h->result_get_str(a, r, c), *y = h->result_get_str(b, r, c);
                ck_assert(x == y || (x && y && strcmp(x, y) == 0));
            } else {
                ck_assert(h->result_get_f64(a, r, c) == h->result_get_f64(b, r, c));
            }
        }
    }
}

START_TEST(parallel_runs_match)
{
    tp_diags d = {0};
    tp_ctx *ctx = tp_test_ctx();
    tp_pipeline *p = tp_pipeline_load_string(ctx, yaml, strlen(yaml), "<par>", NULL, 0, &d);
    ck_assert_ptr_nonnull(p);
    job lone = {p, NULL, 0};
    run_job(&lone);
    ck_assert_int_eq(lone.rc, TP_OK);
    job jobs[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (job){p, NULL, -1};
        ck_assert_int_eq(pthread_create(&th[i], NULL, run_job, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++)
        pthread_join(th[i], NULL);
    const char *ids[] = {"host", "host.summary", "device.streams", "device.tree"};
    for (int i = 0; i < 4; i++) {
        ck_assert_int_eq(jobs[i].rc, TP_OK);
        for (size_t k = 0; k < 4; k++)
            assert_same(tp_test_result(lone.run, ids[k]), tp_test_result(jobs[i].run, ids[k]));
        tp_run_free(jobs[i].run);
    }
    /* and the lone run's numbers are the real ones */
    const tp_result *host = tp_test_result(lone.run, "host");
    ck_assert_double_eq_tol(tp_test_f64(host, 0, "time_us"), 14504.0, 1e-9);
    tp_run_free(lone.run);
    tp_pipeline_free(p);
    tp_ctx_free(ctx);
}
END_TEST

static Suite *parallel_suite(void)
{
    Suite *s = suite_create("parallel");
    TCase *tc = tcase_create("threads");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, parallel_runs_match);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(parallel_suite)
