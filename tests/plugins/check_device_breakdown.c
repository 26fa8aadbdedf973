/*
 * analysis `device_breakdown` over tests/data/hand/hier_basic.json (values
 * worked out by hand) and invariants on the real DLRM trace (per-stream
 * unions and the 6851 us of GPU activity checked with Python).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "breakdown_util.h"

#define HIER_BASIC BU_HAND "hier_basic.json"

static void expect_time(const tp_result *r, const char *name, const char *parent, double time_us,
                        int64_t count)
{
    size_t row = bu_row(r, "name", name, parent);
    ck_assert_double_eq_tol(tp_test_f64(r, row, "time_us"), time_us, 1e-9);
    ck_assert_int_eq(tp_test_i64(r, row, "count"), count);
}

static void expect_stream(const tp_result *r, size_t row, int64_t stream, double span,
                          double active)
{
    ck_assert_int_eq(tp_test_i64(r, row, "device"), 0);
    ck_assert_int_eq(tp_test_i64(r, row, "stream"), stream);
    ck_assert_double_eq_tol(tp_test_f64(r, row, "window_us"), span, 1e-9);
    ck_assert_double_eq_tol(tp_test_f64(r, row, "active_us"), active, 1e-9);
    ck_assert_double_eq_tol(tp_test_f64(r, row, "window_idle_us"), span - active, 1e-9);
    ck_assert_double_eq_tol(tp_test_f64(r, row, "active_percent"), 100.0 * active / span, 1e-9);
}

START_TEST(test_streams_active_idle)
{
    tp_run *run = bu_run(HIER_BASIC, "  - {analysis: device_breakdown, id: dev}\n");
    const tp_result *s = tp_test_result(run, "dev.streams");
    ck_assert_uint_eq(bu_rows(s), 2);
    /* span: every complete event, host and device: [0, 1000).
     * stream 7: [60,80) [170,175) [275,300)+[300,310) [930,940) = 70
     * stream 20: [545,585) [700,720) = 60 */
    expect_stream(s, 0, 7, 1000.0, 70.0);
    expect_stream(s, 1, 20, 1000.0, 60.0);
    tp_run_free(run);
}
END_TEST

START_TEST(test_tree_default)
{
    tp_run *run = bu_run(HIER_BASIC, "  - {analysis: device_breakdown, id: dev}\n");
    const tp_result *r = tp_test_result(run, "dev.tree");
    ck_assert_str_eq(tp_core_host_api()->result_meta(r, "kind"), "tree");
    /* top-level nodes in order: stream 7, stream 20, all streams */
    ck_assert_str_eq(tp_test_str(r, 0, "name"), "stream 7");
    size_t s20 = bu_row(r, "name", "stream 20", NULL), all = bu_row(r, "name", "all streams (sum)", NULL);
    ck_assert_uint_lt(s20, all);
    ck_assert_int_eq(tp_test_i64(r, s20, "depth"), 0);
    ck_assert_int_eq(tp_test_i64(r, all, "depth"), 0);
    expect_time(r, "stream 7", NULL, 70.0, 5);
    expect_time(r, "stream 20", NULL, 60.0, 2);
    expect_time(r, "all streams (sum)", NULL, 130.0, 7);
    /* stream 7: two linear ops = sgemm 20 + (sgemm 25 + memcpy 10) */
    expect_time(r, "aten::linear", "forward", 55.0, 2);
    expect_time(r, "aten::relu", "forward", 5.0, 1);
    /* the kernel found through the flow, directly under the op */
    expect_time(r, "flow_k", "optimizer", 10.0, 1);
    /* stream 20: the backward thread's kernel and the orphan */
    expect_time(r, "autograd::engine::evaluate_function: AddmmBackward0", "backward", 40.0, 1);
    expect_time(r, "(unlinked)", "stream 20", 20.0, 1);
    expect_time(r, "orphan_k", "(unlinked)", 20.0, 1);
    size_t step_all = bu_row(r, "name", "ProfilerStep#1", "all streams (sum)");
    ck_assert_double_eq_tol(tp_test_f64(r, step_all, "time_us"), 110.0, 1e-9);
    ck_assert_double_eq_tol(tp_test_f64(r, step_all, "percent_of_parent"), 110.0 / 1.3, 1e-9);
    ck_assert_int_lt(tp_test_find_row(r, "name", "Unaccounted", NULL), 0);
    bu_check_tree(r, 1);
    tp_run_free(run);
}
END_TEST

START_TEST(test_tree_kernel_leaves)
{
    tp_run *run = bu_run(HIER_BASIC, "  - {analysis: device_breakdown, depth: 10, truncate: 0, merge_ops: false}\n");
    const tp_result *r = tp_test_result(run, "device_breakdown.tree");
    expect_time(r, "sgemm_a", "aten::addmm", 45.0, 2);
    expect_time(r, "Memcpy HtoD (Pinned -> Device)", "aten::addmm", 10.0, 1);
    expect_time(r, "vectorized_elementwise_kernel", "aten::relu", 5.0, 1); /* shortened */
    expect_time(r, "mm_k", "aten::mm", 40.0, 1);
    ck_assert_int_lt(tp_test_find_row(r, "name", "cudaLaunchKernel", NULL), 0);
    bu_check_tree(r, 1);
    tp_run_free(run);

    run = bu_run(HIER_BASIC, "  - {analysis: device_breakdown, depth: 10, truncate: 1, merge_ops: false}\n");
    r = tp_test_result(run, "device_breakdown.tree");
    expect_time(r, "Others", "aten::addmm", 10.0, 1); /* the memcpy, folded */
    expect_time(r, "Others", "forward", 5.0, 1);      /* aten::relu, folded */
    bu_check_tree(r, 1);
    tp_run_free(run);

    run = bu_run(HIER_BASIC,
                 "  - {analysis: device_breakdown, depth: 10, truncate: 0, short_names: false, "
                 "merge_ops: false}\n");
    r = tp_test_result(run, "device_breakdown.tree");
    expect_time(r,
                "void at::native::vectorized_elementwise_kernel<4, relu_functor>(int, relu_functor)",
                "aten::relu", 5.0, 1);
    tp_run_free(run);
}
END_TEST

/* merge_ops (the default): the topmost cpu op below annotations gathers every
 * activity of its subtree, as seed 001 lists kernels per operator. */
START_TEST(test_tree_merged_ops)
{
    tp_run *run = bu_run(HIER_BASIC, "  - {analysis: device_breakdown, depth: 10, truncate: 0}\n");
    const tp_result *r = tp_test_result(run, "device_breakdown.tree");
    /* both aten::linear: sgemm_a 20 + (sgemm_a 25 + memcpy 10) from their addmm */
    expect_time(r, "aten::linear", "forward", 55.0, 2);
    expect_time(r, "sgemm_a", "aten::linear", 45.0, 2);
    expect_time(r, "Memcpy HtoD (Pinned -> Device)", "aten::linear", 10.0, 1);
    expect_time(r, "vectorized_elementwise_kernel", "aten::relu", 5.0, 1);
    expect_time(r, "mm_k", "autograd::engine::evaluate_function: AddmmBackward0", 40.0, 1);
    /* ops below the gathering op are not shown */
    ck_assert_int_lt(tp_test_find_row(r, "name", "aten::addmm", NULL), 0);
    ck_assert_int_lt(tp_test_find_row(r, "name", "aten::mm", NULL), 0);
    /* an annotation is not an op: the flow-linked launch stays under it */
    expect_time(r, "flow_k", "optimizer", 10.0, 1);
    bu_check_tree(r, 1);
    tp_run_free(run);
}
END_TEST

/* Writes LEVELS cpu ops nested one inside the other, each launching one
 * 1 us kernel on stream 7 (tests/tools/gen_stress.py nested-ops). */
static void write_nested_ops(const char *path, int levels)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"traceEvents\": [\n", f);
    long end = 20L * levels + 100;
    for (int i = 0; i < levels; i++) {
        long ts = 10L * i;
        fprintf(f,
                "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::op%d\", \"pid\": 1, "
                "\"tid\": 1, \"ts\": %ld, \"dur\": %ld},\n"
                "{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", "
                "\"pid\": 1, \"tid\": 1, \"ts\": %ld, \"dur\": 2, \"args\": {\"correlation\": %d}},\n"
                "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kernel%d\", \"pid\": 0, "
                "\"tid\": 7, \"ts\": %ld, \"dur\": 1, \"args\": {\"device\": 0, \"stream\": 7, "
                "\"correlation\": %d}}%s\n",
                i % 7, ts, end - 2 * ts, ts + 1, i + 1, i % 5, ts + 3, i + 1,
                i + 1 < levels ? "," : "");
    }
    fputs("]}\n", f);
    ck_assert_int_eq(fclose(f), 0);
}

/* merge_ops on 100 000 nested ops that each launch a kernel: every kernel
 * belongs to the outermost op.  Finding that walked each kernel's whole
 * chain of ancestors (16-20 s here); now one pass over the forest (make
 * bench: "device_breakdown, 100000 nested ops"). */
START_TEST(test_merged_ops_deep_nesting_is_linear)
{
    enum { LEVELS = 100000 };
    char path[] = "/tmp/tp_devb_nestedXXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    write_nested_ops(path, LEVELS);
    /* the time is measured by `make bench` (its scaling row), not asserted here:
     * a timed test fails on a loaded machine or under valgrind */
    tp_run *run = bu_run(path, "  - {analysis: device_breakdown, depth: 10, truncate: 0}\n");
    unlink(path);
    expect_stream(tp_test_result(run, "device_breakdown.streams"), 0, 7, 20.0 * LEVELS + 100,
                  LEVELS);
    const tp_result *r = tp_test_result(run, "device_breakdown.tree");
    expect_time(r, "stream 7", NULL, LEVELS, LEVELS);
    expect_time(r, "aten::op0", "stream 7", LEVELS, 1);
    for (int k = 0; k < 5; k++) {
        char name[16];
        snprintf(name, sizeof name, "kernel%d", k);
        expect_time(r, name, "aten::op0", LEVELS / 5, LEVELS / 5);
    }
    ck_assert_int_lt(tp_test_find_row(r, "name", "aten::op1", NULL), 0);
    bu_check_tree(r, 1);
    tp_run_free(run);
}
END_TEST

START_TEST(test_no_gpu)
{
    tp_run *run = bu_run(BU_HAND "hier_zero.json", "  - analysis: device_breakdown\n");
    ck_assert_uint_eq(bu_rows(tp_test_result(run, "device_breakdown.streams")), 0);
    const tp_result *r = tp_test_result(run, "device_breakdown.tree");
    ck_assert_uint_eq(bu_rows(r), 1);
    expect_time(r, "all streams (sum)", NULL, 0.0, 0);
    ck_assert_double_eq(tp_test_f64(r, 0, "percent_of_total"), 100.0);
    tp_run_free(run);
}
END_TEST

START_TEST(test_real_trace_invariants)
{
    tp_run *run = bu_run(BU_DLRM, "  - {analysis: device_breakdown, depth: 100, truncate: 0}\n");
    const tp_result *s = tp_test_result(run, "device_breakdown.streams");
    ck_assert_uint_eq(bu_rows(s), 4);
    expect_stream(s, 0, 7, 14504.0, 971.0);
    expect_stream(s, 1, 22, 14504.0, 6.0);
    expect_stream(s, 2, 24, 14504.0, 76.0);
    expect_stream(s, 3, 84, 14504.0, 5798.0);
    const tp_result *r = tp_test_result(run, "device_breakdown.tree");
    /* every activity once: the sum of all durations, 261 activities */
    expect_time(r, "all streams (sum)", NULL, 6851.0, 261);
    expect_time(r, "stream 84", NULL, 5798.0, 8);
    ck_assert_int_lt(tp_test_find_row(r, "name", "(unlinked)", NULL), 0);
    /* children sum exactly to their parent down to the kernel leaves */
    ck_assert_uint_gt(bu_check_tree(r, 1), 100);
    tp_run_free(run);
}
END_TEST

static Suite *device_breakdown_suite(void)
{
    Suite *s = suite_create("device_breakdown");
    TCase *tc = tcase_create("device_breakdown");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_streams_active_idle);
    tcase_add_test(tc, test_tree_default);
    tcase_add_test(tc, test_tree_kernel_leaves);
    tcase_add_test(tc, test_tree_merged_ops);
    tcase_add_test(tc, test_merged_ops_deep_nesting_is_linear);
    tcase_add_test(tc, test_no_gpu);
    tcase_add_test(tc, test_real_trace_invariants);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(device_breakdown_suite)
