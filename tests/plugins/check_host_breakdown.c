/*
 * analysis `host_breakdown` over the hand-made traces of tests/data/hand/
 * (numbers worked out by hand from the event times written in the files)
 * and invariants on the real DLRM trace (its window, 14504 us, checked with
 * Python: first start to last end of the host events).
 */
#include <math.h>
#include <string.h>

#include "breakdown_util.h"

#define HIER_BASIC BU_HAND "hier_basic.json"

static void expect_node(const tp_result *r, const char *name, const char *parent, double time_us,
                        double pct_parent, long count)
{
    size_t row = bu_row(r, "name", name, parent);
    ck_assert_double_eq_tol(tp_test_f64(r, row, "time_us"), time_us, 1e-9);
    ck_assert_double_eq_tol(tp_test_f64(r, row, "percent_of_parent"), pct_parent, 1e-9);
    const tp_host_api *h = tp_core_host_api();
    int cc = h->result_find_col(r, "count");
    if (count < 0)
        ck_assert(h->result_is_null(r, row, cc));
    else
        ck_assert_int_eq(tp_test_i64(r, row, "count"), count);
}

START_TEST(test_default_tree)
{
    tp_run *run = bu_run(HIER_BASIC, "  - analysis: host_breakdown\n"
                                     "    id: host\n"
                                     "    batch_size: 64\n");
    const tp_result *r = tp_test_result(run, "host");
    static const char *const order[] = {
        "Host runtime", "ProfilerStep#1", "backward",
        "autograd::engine::evaluate_function: AddmmBackward0",
        "torch::autograd::AccumulateGrad", "Unaccounted", "forward", "aten::linear",
        "aten::relu", "Unaccounted", "optimizer", "cudaLaunchKernel", "Unaccounted",
        "Unaccounted", "Unaccounted"};
    static const int64_t depth[] = {0, 1, 2, 3, 3, 3, 2, 3, 3, 3, 2, 3, 3, 2, 1};
    ck_assert_uint_eq(bu_rows(r), 15);
    for (size_t i = 0; i < 15; i++) {
        ck_assert_str_eq(tp_test_str(r, i, "name"), order[i]);
        ck_assert_int_eq(tp_test_i64(r, i, "depth"), depth[i]);
    }
    ck_assert_str_eq(tp_core_host_api()->result_meta(r, "kind"), "tree");
    ck_assert_str_eq(tp_core_host_api()->result_meta(r, "title"), "Host runtime breakdown");
    ck_assert(tp_core_host_api()->result_is_null(r, 0, 1)); /* root has no parent */
    expect_node(r, "Host runtime", NULL, 1000.0, 100.0, -1);
    expect_node(r, "ProfilerStep#1", "Host runtime", 1000.0, 100.0, 1);
    expect_node(r, "backward", "ProfilerStep#1", 400.0, 40.0, 1);
    expect_node(r, "forward", "ProfilerStep#1", 390.0, 39.0, 1);
    expect_node(r, "optimizer", "ProfilerStep#1", 60.0, 6.0, 1);
    expect_node(r, "Unaccounted", "ProfilerStep#1", 150.0, 15.0, -1);
    expect_node(r, "Unaccounted", "Host runtime", 0.0, 0.0, -1);
    /* two aten::linear events aggregated: 100 + 80 */
    expect_node(r, "aten::linear", "forward", 180.0, 180.0 / 390.0 * 100.0, 2);
    expect_node(r, "aten::relu", "forward", 50.0, 50.0 / 390.0 * 100.0, 1);
    expect_node(r, "Unaccounted", "forward", 160.0, 160.0 / 390.0 * 100.0, -1);
    /* the autograd thread's events, attached under `backward` */
    expect_node(r, "torch::autograd::AccumulateGrad", "backward", 50.0, 12.5, 1);
    expect_node(r, "Unaccounted", "backward", 260.0, 65.0, -1);
    expect_node(r, "Unaccounted", "optimizer", 57.0, 95.0, -1);
    size_t lin = bu_row(r, "name", "aten::linear", "forward");
    ck_assert_double_eq_tol(tp_test_f64(r, lin, "percent_of_total"), 18.0, 1e-9);
    bu_check_tree(r, 0);

    const tp_result *s = tp_test_result(run, "host.summary");
    ck_assert_double_eq_tol(tp_test_f64(s, 0, "runtime_us"), 1000.0, 1e-9);
    ck_assert_int_eq(tp_test_i64(s, 0, "iterations"), 1);
    ck_assert_double_eq_tol(tp_test_f64(s, 0, "throughput_samples_per_s"), 64000.0, 1e-6);
    tp_run_free(run);
}
END_TEST

START_TEST(test_truncate_into_others)
{
    tp_run *run = bu_run(HIER_BASIC, "  - analysis: host_breakdown\n"
                                     "    depth: 10\n"
                                     "    truncate: 1\n");
    const tp_result *r = tp_test_result(run, "host_breakdown");
    /* under the step only `backward` (400) stays: forward 390 + optimizer 60 fold */
    expect_node(r, "Others", "ProfilerStep#1", 450.0, 45.0, 2);
    expect_node(r, "Others", "backward", 50.0, 12.5, 1);
    ck_assert_int_lt(tp_test_find_row(r, "name", "forward", NULL), 0);
    expect_node(r, "aten::mm", "AddmmBackward0", 40.0, 50.0, 1);
    expect_node(r, "Unaccounted", "aten::mm", 30.0, 75.0, -1);
    bu_check_tree(r, 0);
    tp_run_free(run);
}
END_TEST

START_TEST(test_depth_limit)
{
    tp_run *run = bu_run(HIER_BASIC, "  - analysis: host_breakdown\n"
                                     "    depth: 5\n"
                                     "    truncate: 0\n");
    const tp_result *r = tp_test_result(run, "host_breakdown");
    expect_node(r, "aten::addmm", "aten::linear", 135.0, 75.0, 2);
    expect_node(r, "Unaccounted", "aten::linear", 45.0, 25.0, -1);
    /* addmm #1 launches one kernel, addmm #2 a kernel and a memcpy */
    expect_node(r, "cudaLaunchKernel", "aten::addmm", 20.0, 20.0 / 135.0 * 100.0, 2);
    expect_node(r, "cudaMemcpyAsync", "aten::addmm", 10.0, 10.0 / 135.0 * 100.0, 1);
    expect_node(r, "Unaccounted", "aten::addmm", 105.0, 105.0 / 135.0 * 100.0, -1);
    /* aten::mm sits at level 5, the limit: shown without children */
    size_t mm = bu_row(r, "name", "aten::mm", NULL);
    ck_assert_int_eq(tp_test_i64(r, mm, "depth"), 5);
    ck_assert_str_eq(tp_test_str(r, mm + 1, "name"), "Unaccounted");
    ck_assert_int_eq(tp_test_i64(r, mm + 1, "depth"), 5);
    bu_check_tree(r, 0);
    tp_run_free(run);

    run = bu_run(HIER_BASIC, "  - {analysis: host_breakdown, depth: 0}\n");
    ck_assert_uint_eq(bu_rows(tp_test_result(run, "host_breakdown")), 1);
    tp_run_free(run);
    run = bu_run(HIER_BASIC, "  - {analysis: host_breakdown, depth: 1}\n");
    r = tp_test_result(run, "host_breakdown");
    ck_assert_uint_eq(bu_rows(r), 3); /* root, ProfilerStep#1, Unaccounted */
    tp_run_free(run);
}
END_TEST

START_TEST(test_clamp_crossover_and_zero)
{
    tp_run *run = bu_run(BU_HAND "hier_overlap.json", "  - analysis: host_breakdown\n");
    const tp_result *r = tp_test_result(run, "host_breakdown");
    /* window [0, 400): the Trace span does not count */
    expect_node(r, "Host runtime", NULL, 400.0, 100.0, -1);
    /* three 100 us roots, ties by name; the zero-length one is folded */
    ck_assert_str_eq(tp_test_str(r, 1, "name"), "crossing");
    ck_assert_str_eq(tp_test_str(r, 2, "name"), "first");
    ck_assert_str_eq(tp_test_str(r, 3, "name"), "outer");
    expect_node(r, "Others", "Host runtime", 0.0, 0.0, 1);
    /* union [0,100) + [200,350) = 250 */
    expect_node(r, "Unaccounted", "Host runtime", 150.0, 37.5, -1);
    expect_node(r, "clamped", "outer", 90.5, 90.5, 1);
    expect_node(r, "Unaccounted", "outer", 10.0, 10.0, -1);
    bu_check_tree(r, 0);
    tp_run_free(run);

    run = bu_run(BU_HAND "hier_zero.json", "  - analysis: host_breakdown\n");
    r = tp_test_result(run, "host_breakdown");
    expect_node(r, "Host runtime", NULL, 0.0, 100.0, -1);
    expect_node(r, "p0", "Host runtime", 0.0, 0.0, 1);
    size_t p0 = bu_row(r, "name", "p0", NULL);
    ck_assert_double_eq(tp_test_f64(r, p0, "percent_of_total"), 0.0);
    expect_node(r, "Unaccounted", "Host runtime", 0.0, 0.0, -1);
    tp_run_free(run);
}
END_TEST

START_TEST(test_module_marker)
{
    tp_run *run = bu_run(BU_HAND "hier_modules.json", "  - analysis: host_breakdown\n"
                                                      "    module_marker: 'DLRM '\n");
    const tp_result *r = tp_test_result(run, "host_breakdown");
    /* the window starts at the first module: [100, 600) */
    expect_node(r, "Host runtime", NULL, 500.0, 100.0, -1);
    expect_node(r, "DLRM backward", "Host runtime", 200.0, 40.0, 1);
    expect_node(r, "DLRM forward", "Host runtime", 200.0, 40.0, 1);
    expect_node(r, "DataLoader", "Host runtime", 50.0, 10.0, 1);
    expect_node(r, "Unaccounted", "Host runtime", 50.0, 10.0, -1);
    tp_run_free(run);

    run = bu_run(BU_HAND "hier_modules.json", "  - analysis: host_breakdown\n"
                                              "    id: host\n"
                                              "    module_marker: 'DLRM '\n"
                                              "    skip_module: true\n"
                                              "    batch_size: 100\n");
    r = tp_test_result(run, "host");
    /* only module time counts: [100,300) + [400,600); modules are transparent */
    ck_assert_uint_eq(bu_rows(r), 4);
    expect_node(r, "Host runtime", NULL, 400.0, 100.0, -1);
    expect_node(r, "aten::mm", "Host runtime", 100.0, 25.0, 1);
    expect_node(r, "aten::linear", "Host runtime", 90.0, 22.5, 1);
    expect_node(r, "Unaccounted", "Host runtime", 210.0, 52.5, -1);
    ck_assert_int_lt(tp_test_find_row(r, "name", "DataLoader", NULL), 0);
    const tp_result *s = tp_test_result(run, "host.summary");
    ck_assert_double_eq_tol(tp_test_f64(s, 0, "throughput_samples_per_s"), 250000.0, 1e-6);
    tp_run_free(run);
}
END_TEST

/* step_prefix names the iteration markers: hier_step_prefix.json has two
 * "Iteration N" annotations in the 1000 µs window and no ProfilerStep#. */
START_TEST(test_step_prefix)
{
    tp_run *run = bu_run(BU_HAND "hier_step_prefix.json", "  - analysis: host_breakdown\n"
                                                          "    id: host\n"
                                                          "    batch_size: 10\n");
    ck_assert_int_eq(tp_test_i64(tp_test_result(run, "host.summary"), 0, "iterations"), 1);
    tp_run_free(run);
    run = bu_run(BU_HAND "hier_step_prefix.json", "  - analysis: host_breakdown\n"
                                                  "    id: host\n"
                                                  "    batch_size: 10\n"
                                                  "    step_prefix: 'Iteration '\n");
    const tp_result *s = tp_test_result(run, "host.summary");
    ck_assert_int_eq(tp_test_i64(s, 0, "iterations"), 2);
    ck_assert_double_eq_tol(tp_test_f64(s, 0, "runtime_us"), 1000.0, 1e-9);
    ck_assert_double_eq_tol(tp_test_f64(s, 0, "throughput_samples_per_s"), 20.0 / 1000e-6, 1e-6);
    tp_run_free(run);
}
END_TEST

/* Three ProfilerSteps of 100 µs, each holding DataLoader (19), "## forward ##"
 * (30) and "## backward ##" (40).  Every step starts before its modules, yet
 * all three are iterations of the window. */
START_TEST(test_iterations_with_modules)
{
    tp_run *run = bu_run(BU_HAND "hier_steps.json", "  - analysis: host_breakdown\n"
                                                    "    id: host\n"
                                                    "    module_marker: '## '\n"
                                                    "    batch_size: 100\n");
    const tp_result *s = tp_test_result(run, "host.summary");
    /* window: first module start 1000020 to last end 1000300 = 280 µs */
    ck_assert_double_eq_tol(tp_test_f64(s, 0, "runtime_us"), 280.0, 1e-9);
    ck_assert_int_eq(tp_test_i64(s, 0, "iterations"), 3);
    ck_assert_double_eq_tol(tp_test_f64(s, 0, "throughput_samples_per_s"), 300.0 / 280e-6, 1e-6);
    tp_run_free(run);

    run = bu_run(BU_HAND "hier_steps.json", "  - analysis: host_breakdown\n"
                                            "    id: host\n"
                                            "    module_marker: '## '\n"
                                            "    skip_module: true\n"
                                            "    batch_size: 100\n");
    s = tp_test_result(run, "host.summary");
    /* only module time: 3 x (30 + 40) = 210 µs */
    ck_assert_double_eq_tol(tp_test_f64(s, 0, "runtime_us"), 210.0, 1e-9);
    ck_assert_int_eq(tp_test_i64(s, 0, "iterations"), 3);
    ck_assert_double_eq_tol(tp_test_f64(s, 0, "throughput_samples_per_s"), 300.0 / 210e-6, 1e-6);
    tp_run_free(run);
}
END_TEST

START_TEST(test_real_trace_invariants)
{
    tp_run *run = bu_run(BU_DLRM, "  - analysis: host_breakdown\n"
                                  "    depth: 100\n"
                                  "    truncate: 0\n");
    const tp_result *r = tp_test_result(run, "host_breakdown");
    expect_node(r, "Host runtime", NULL, 14504.0, 100.0, -1);
    expect_node(r, "ProfilerStep#10", "Host runtime", 14455.0, 14455.0 / 14504.0 * 100.0, 1);
    ck_assert_uint_gt(bu_check_tree(r, 0), 100);
    tp_run_free(run);
}
END_TEST

static Suite *host_breakdown_suite(void)
{
    Suite *s = suite_create("host_breakdown");
    TCase *tc = tcase_create("host_breakdown");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_default_tree);
    tcase_add_test(tc, test_truncate_into_others);
    tcase_add_test(tc, test_depth_limit);
    tcase_add_test(tc, test_clamp_crossover_and_zero);
    tcase_add_test(tc, test_module_marker);
    tcase_add_test(tc, test_iterations_with_modules);
    tcase_add_test(tc, test_step_prefix);
    tcase_add_test(tc, test_real_trace_invariants);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(host_breakdown_suite)
