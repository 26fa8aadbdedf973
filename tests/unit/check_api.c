/*
 * The embedding API (core/tp_api.h), as the Python module uses it: runs
 * into memory, writers left out unless asked, errors as text with their
 * places, validation only, event columns, describe.  The hand trace
 * tests/data/hand/kernel_steps.json has 15 events, 4 of them kernels
 * lasting 110 us together.
 */
#include "tp_api.h"
#include "tp_internal.h"
#include "tp_test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static tp_api *open_api(void)
{
    char plugins[1024];
    snprintf(plugins, sizeof plugins, "%s/plugins", tp_test_build_dir());
    const char *dirs[] = {plugins};
    char *warnings = NULL;
    tp_api *a = tp_api_open(dirs, 1, NULL, 0, &warnings);
    ck_assert_ptr_nonnull(a);
    free(warnings);
    return a;
}

static const char kernels_yaml[] = "vars:\n"
                                   "  out: /tmp\n"
                                   "stages:\n"
                                   "  - reader: kineto\n"
                                   "    path: tests/data/hand/kernel_steps.json\n"
                                   "  - analysis: kernel_stats\n"
                                   "    id: ks\n"
                                   "  - writer: csv\n"
                                   "    input: ks\n"
                                   "    path: ${out}/{id}.csv\n";

static const tp_result *result_named(const tp_api_run *r, const char *id)
{
    for (size_t i = 0; i < tp_api_result_count(r); i++)
        if (strcmp(tp_result_get_id(tp_api_result_at(r, i)), id) == 0)
            return tp_api_result_at(r, i);
    return NULL;
}

START_TEST(runs_into_memory_without_writers)
{
    tp_api *a = open_api();
    char dir[] = "/tmp/tp_api_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char out[64], csv[96];
    snprintf(out, sizeof out, "%s", dir);
    snprintf(csv, sizeof csv, "%s/ks.csv", dir);
    tp_var vars[] = {{"out", out}};
    tp_api_run *r = NULL;
    char *log = NULL;
    int rc = tp_api_run_pipeline(a, kernels_yaml, vars, 1, NULL, TP_API_TEXT, &r, &log);
    ck_assert_msg(rc == TP_OK, "%s", log ? log : "");
    ck_assert_int_ne(access(csv, F_OK), 0); /* no writer ran */
    const tp_result *ks = result_named(r, "ks");
    ck_assert_ptr_nonnull(ks);
    int64_t count = 0;
    double sum = 0;
    int c_count = tp_result_colfind(ks, "count"), c_sum = tp_result_colfind(ks, "sum_us");
    for (size_t i = 0; i < tp_result_nrows(ks); i++) {
        count += tp_result_i64(ks, i, c_count);
        sum += tp_result_f64(ks, i, c_sum);
    }
    ck_assert_int_eq(count, 4);
    ck_assert_double_eq_tol(sum, 110.0, 1e-9);
    ck_assert_str_eq(tp_api_result_unit(ks, c_sum), "us");
    const tp_cols *ev = tp_api_events(r);
    ck_assert_ptr_nonnull(ev);
    ck_assert_uint_eq(ev->n, 15);
    ck_assert_str_eq(tp_api_text(r, ev->name[0]), tp_api_text(r, ev->name[0])); /* resolvable */
    tp_api_run_free(r);
    free(log);

    ck_assert_int_eq(tp_api_run_pipeline(a, kernels_yaml, vars, 1, NULL, TP_API_TEXT | TP_API_WRITE,
                                         &r, &log), TP_OK);
    ck_assert_int_eq(access(csv, F_OK), 0); /* asked: the writer ran */
    tp_api_run_free(r);
    free(log);
    char rm[128];
    snprintf(rm, sizeof rm, "rm -rf '%s'", dir); /* every result's CSV */
    ck_assert_int_eq(system(rm), 0);
    tp_api_close(a);
}
END_TEST

START_TEST(errors_come_back_as_text_with_places)
{
    tp_api *a = open_api();
    tp_api_run *r = (tp_api_run *)1;
    char *log = NULL;
    const char *bad = "stages:\n  - reader: kineto\n    path: x.json\n  - analysis: kernel_stat\n";
    ck_assert_int_ne(tp_api_run_pipeline(a, bad, NULL, 0, NULL, TP_API_TEXT, &r, &log), TP_OK);
    ck_assert_ptr_null(r);
    ck_assert_ptr_nonnull(log);
    ck_assert_msg(strstr(log, "<string>:4:15: error: unknown analysis 'kernel_stat'") != NULL, "%s", log);
    free(log);
    /* a trace that is not there: the run fails naming it */
    const char *missing = "stages:\n  - reader: kineto\n    path: /nonexistent/t.json\n";
    ck_assert_int_ne(tp_api_run_pipeline(a, missing, NULL, 0, NULL, TP_API_TEXT, &r, &log), TP_OK);
    ck_assert_msg(log && strstr(log, "/nonexistent/t.json") != NULL, "%s", log ? log : "");
    free(log);
    /* no such pipeline by name */
    ck_assert_int_ne(tp_api_run_pipeline(a, "no_such_pipeline", NULL, 0, NULL, 0, &r, &log), TP_OK);
    ck_assert_msg(log && strstr(log, "no bundled pipeline named 'no_such_pipeline'"), "%s", log ? log : "");
    free(log);
    char *why = NULL;
    ck_assert_ptr_null(tp_api_describe_json(a, "kernel_stat", &why));
    ck_assert_msg(why && strstr(why, "did you mean 'kernel_stats'"), "%s", why ? why : "");
    free(why);
    tp_api_close(a);
}
END_TEST

START_TEST(validate_only_and_describe)
{
    tp_api *a = open_api();
    tp_api_run *r = (tp_api_run *)1;
    char *log = NULL;
    tp_var vars[] = {{"out", "/tmp"}};
    ck_assert_int_eq(tp_api_run_pipeline(a, kernels_yaml, vars, 1, NULL, TP_API_TEXT | TP_API_VALIDATE,
                                         &r, &log), TP_OK);
    ck_assert_ptr_null(r);
    free(log);
    char *why = NULL;
    char *json = tp_api_describe_json(a, "kernel_stats", &why);
    ck_assert_ptr_nonnull(json);
    ck_assert_ptr_nonnull(strstr(json, "\"x-unit\": \"us\""));
    free(json);
    int found = 0;
    for (size_t i = 0; i < tp_api_stage_count(a); i++) {
        const char *version = NULL;
        found |= strcmp(tp_api_stage_at(a, i, &version)->name, "kernel_stats") == 0;
    }
    ck_assert(found);
    tp_api_close(a);
}
END_TEST

static Suite *api_suite(void)
{
    Suite *s = suite_create("api");
    TCase *tc = tcase_create("embedding");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, runs_into_memory_without_writers);
    tcase_add_test(tc, errors_come_back_as_text_with_places);
    tcase_add_test(tc, validate_only_and_describe);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(api_suite)
