/*
 * ABI 3.0 trace parts through real runs: extension columns carried through a
 * clipping filter, trace info, several traces per run, result metadata.
 * Input: tests/data/hand/hier_basic.json (28 events, times in µs).
 */
#include "tp_internal.h"
#include "tp_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BASIC "tests/data/hand/hier_basic.json"

static tp_ctx *ext_ctx(void)
{
    tp_ctx *ctx = tp_test_ctx();
    char path[1024];
    snprintf(path, sizeof path, "%s/testplugins/tp_ext_probe.so", tp_test_build_dir());
    char *err = NULL;
    ck_assert_msg(tp_ctx_load_file(ctx, path, &err) == TP_OK, "%s", err ? err : "");
    return ctx;
}

static tp_run *run_text(tp_ctx *ctx, const char *yaml)
{
    tp_diags d = {0};
    tp_pipeline *p = tp_pipeline_load_string(ctx, yaml, strlen(yaml), "t.yaml", NULL, 0, &d);
    ck_assert_msg(p != NULL, "%s", d.n ? d.lines[0] : "");
    tp_run *run = NULL;
    tp_run_opts o = {0};
    int rc = tp_pipeline_run(p, &o, &run);
    ck_assert_msg(rc == TP_OK, "%s", run ? tp_run_error(run) : "");
    tp_pipeline_free(p);
    return run;
}

START_TEST(extension_columns_follow_a_clipping_filter)
{
    tp_ctx *ctx = ext_ctx();
    tp_run *run = run_text(ctx, "stages:\n"
                                "  - reader: kineto\n"
                                "    path: " BASIC "\n"
                                "  - analysis: ext_probe\n"
                                "  - filter: clip_probe\n");
    const tp_trace *t = tp_run_trace(run);
    const tp_cols *c = tp_trace_columns(t);
    ck_assert_uint_eq(c->n, 14); /* the odd rows of 28 */
    const tp_extcols *x = tp_trace_ext_of(t);
    ck_assert_uint_eq(tp_ext_count(x), 4);
    const int64_t *row10 = tp_ext_data(x, tp_ext_find(x, "probe.row10"));
    const double *half = tp_ext_data(x, tp_ext_find(x, "probe.half"));
    const tp_str *name = tp_ext_data(x, tp_ext_find(x, "probe.name"));
    const int32_t *small = tp_ext_data(x, tp_ext_find(x, "probe.small"));
    for (size_t k = 0; k < c->n; k++) {
        ck_assert_int_eq(row10[k], (int64_t)(2 * k + 1) * 10);
        ck_assert(isnan(half[k])); /* set on even rows only */
        ck_assert_uint_eq(name[k], c->name[k]);
    }
    ck_assert_int_eq(small[0], 1);               /* row 1 */
    ck_assert_int_eq(small[1], TP_EXT_NULL_I32); /* row 3: never set */
    /* kept row 0 is "forward" (ts 10 µs, dur 390 µs), cut by 1 ns per end */
    ck_assert_str_eq(tp_run_str(run, c->name[0]), "forward");
    ck_assert_int_eq(c->ts[0], 10001);
    ck_assert_int_eq(c->dur[0], 389998);
    /* the last kept row is the flow end (ph f): never cut */
    ck_assert_int_eq(c->phase[13], 'f');
    ck_assert_int_eq(c->ts[13], 930000);
    /* trace info survives the filter */
    int64_t rows = 0;
    double ratio = 0;
    ck_assert_int_eq(tp_info_i64(tp_trace_info_of(t), "probe.rows", &rows), TP_OK);
    ck_assert_int_eq(rows, 28);
    ck_assert_int_eq(tp_info_f64(tp_trace_info_of(t), "probe.ratio", &ratio), TP_OK);
    ck_assert_double_eq(ratio, 0.5);
    ck_assert_str_eq(tp_info_str(tp_trace_info_of(t), "format"), "kineto");
    ck_assert_str_eq(tp_info_str(tp_trace_info_of(t), "label"), "hier_basic");
    /* the result's kind, unit and trace notes */
    const tp_result *r = tp_test_result(run, "ext_probe.series");
    ck_assert_str_eq(tp_host_result_kind(r), "series");
    ck_assert_str_eq(tp_host_result_col_unit(r, 0), "us");
    ck_assert_str_eq(tp_result_meta_get(r, "trace"), "kineto");
    tp_run_free(run);
    tp_ctx_free(ctx);
}
END_TEST

START_TEST(several_traces_meet_in_one_stage)
{
    tp_ctx *ctx = ext_ctx();
    tp_run *run = run_text(ctx, "stages:\n"
                                "  - reader: kineto\n"
                                "    id: base\n"
                                "    path: " BASIC "\n"
                                "  - reader: kineto\n"
                                "    id: test\n"
                                "    path: " BASIC "\n"
                                "  - filter: clip_probe\n"
                                "    trace: base\n"
                                "  - analysis: pair_probe\n"
                                "    trace: [base, test]\n"
                                "  - analysis: pair_probe\n"
                                "    id: latest\n");
    const tp_result *r = tp_test_result(run, "pair_probe");
    ck_assert_uint_eq(tp_result_nrows(r), 2);
    ck_assert_str_eq(tp_test_str(r, 0, "trace"), "base");
    ck_assert_int_eq(tp_test_i64(r, 0, "events"), 14);
    ck_assert_str_eq(tp_test_str(r, 1, "trace"), "test");
    ck_assert_int_eq(tp_test_i64(r, 1, "events"), 28);
    r = tp_test_result(run, "latest");
    ck_assert_uint_eq(tp_result_nrows(r), 1);
    ck_assert_str_eq(tp_test_str(r, 0, "trace"), "test");
    ck_assert_uint_eq(tp_trace_columns(tp_run_trace_named(run, "base"))->n, 14);
    tp_run_free(run);
    tp_ctx_free(ctx);
}
END_TEST

START_TEST(trace_info_of_a_distributed_trace)
{
    tp_run *run = tp_test_run_yaml("stages:\n"
                                   "  - reader: kineto\n"
                                   "    path: tests/data/dlrm_worker0_step12.pt.trace.json.gz\n");
    const tp_info *info = tp_trace_info_of(tp_run_trace(run));
    int64_t v = -1;
    ck_assert_int_eq(tp_info_i64(info, "rank", &v), TP_OK);
    ck_assert_int_eq(v, 0);
    ck_assert_int_eq(tp_info_i64(info, "world_size", &v), TP_OK);
    ck_assert_int_eq(v, 8);
    ck_assert_int_eq(tp_info_i64(info, "device.7.sm_count", &v), TP_OK);
    ck_assert_int_eq(v, 80);
    ck_assert_int_eq(tp_info_i64(info, "device.3.memory_bytes", &v), TP_OK);
    ck_assert_int_eq(v, 34079899648);
    ck_assert_str_eq(tp_info_str(info, "device.0.name"), "Tesla V100-SXM2-32GB");
    ck_assert_str_eq(tp_info_str(info, "device.0.compute_capability"), "7.0");
    ck_assert_int_eq(tp_info_i64(info, "t0_ns", &v), TP_ENOTFOUND); /* not in this file */
    tp_run_free(run);
}
END_TEST

static Suite *traces_suite(void)
{
    Suite *s = suite_create("traces");
    TCase *tc = tcase_create("abi3");
    tcase_add_test(tc, extension_columns_follow_a_clipping_filter);
    tcase_add_test(tc, several_traces_meet_in_one_stage);
    tcase_add_test(tc, trace_info_of_a_distributed_trace);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(traces_suite)
