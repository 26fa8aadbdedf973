/*
 * analysis `hierarchy` over hand-made traces (tests/data/hand/hier_*.json,
 * expected values worked out by hand, row numbers = event order in the file)
 * and the real DLRM trace (values checked with an independent Python
 * script: per-thread containment, corr matching).
 */
#include <stdint.h>

#include "breakdown_util.h"

#define HIER_BASIC BU_HAND "hier_basic.json"
#define HIER_OVERLAP BU_HAND "hier_overlap.json"

/* hier_basic.json rows: 0 ProfilerStep#1, 1 forward, 2 aten::linear,
 * 3 aten::addmm, 4 cudaLaunchKernel(100), 5 aten::relu, 6 launch(101),
 * 7 aten::linear, 8 aten::addmm, 9 launch(102), 10 cudaMemcpyAsync(103),
 * 11 backward, 12 optimizer, 13 launch(105, linked by flow), 14 flow s,
 * 15-19 thread 2 (evaluate_function, AddmmBackward0, aten::mm,
 * launch(104), AccumulateGrad), 20-26 GPU activity, 27 flow f. */
enum { BASIC_ROWS = 28 };

START_TEST(test_basic_counts)
{
    tp_run *run = bu_run(HIER_BASIC, "  - analysis: hierarchy\n");
    const tp_result *r = tp_test_result(run, "hierarchy");
    ck_assert_int_eq(bu_count(r, "events"), 28);
    ck_assert_int_eq(bu_count(r, "host_events"), 19);
    ck_assert_int_eq(bu_count(r, "host_events_nested"), 18);
    ck_assert_int_eq(bu_count(r, "roots"), 1);
    ck_assert_int_eq(bu_count(r, "threads"), 2);
    ck_assert_int_eq(bu_count(r, "main_tid"), 1);
    ck_assert_int_eq(bu_count(r, "launches_linked"), 6);
    ck_assert_int_eq(bu_count(r, "gpu_linked"), 6);
    ck_assert_int_eq(bu_count(r, "gpu_unlinked"), 1); /* orphan_k: corr 999 */
    ck_assert_int_eq(bu_count(r, "clamped_overlaps"), 0);
    ck_assert_int_eq(bu_count(r, "crossovers"), 0);
    ck_assert_int_eq(bu_count(r, "cross_thread_attached"), 2);
    tp_run_free(run);
}
END_TEST

START_TEST(test_basic_structure)
{
    tp_run *run = bu_run(HIER_BASIC, "  - analysis: hierarchy\n");
    const int32_t *parent = bu_attached(run, "hierarchy.parent", BASIC_ROWS);
    const int32_t *first = bu_attached(run, "hierarchy.first_child", BASIC_ROWS);
    const int32_t *next = bu_attached(run, "hierarchy.next_sibling", BASIC_ROWS);
    const int32_t *depth = bu_attached(run, "hierarchy.depth", BASIC_ROWS);
    const int32_t *roots = bu_attached(run, "hierarchy.roots", 1);
    const int64_t *main_tid = bu_attached_i64(run, "hierarchy.main_tid", 1);
    ck_assert_int_eq(roots[0], 0);
    ck_assert_int_eq(main_tid[0], 1);
    ck_assert_int_eq(parent[0], -1);
    ck_assert_int_eq(parent[1], 0);
    ck_assert_int_eq(parent[4], 3);
    ck_assert_int_eq(parent[10], 8);
    /* thread 2 lies inside `backward` of the main thread */
    ck_assert_int_eq(parent[15], 11);
    ck_assert_int_eq(parent[19], 11);
    ck_assert_int_eq(parent[16], 15);
    /* siblings by start: forward, backward, optimizer */
    ck_assert_int_eq(first[0], 1);
    ck_assert_int_eq(next[1], 11);
    ck_assert_int_eq(next[11], 12);
    ck_assert_int_eq(next[12], -1);
    ck_assert_int_eq(first[11], 15);
    ck_assert_int_eq(next[15], 19);
    ck_assert_int_eq(first[9], -1);
    ck_assert_int_eq(depth[0], 0);
    ck_assert_int_eq(depth[4], 4);
    ck_assert_int_eq(depth[18], 5);
    ck_assert_int_eq(depth[14], -1); /* flow */
    ck_assert_int_eq(depth[20], -1); /* kernel */
    ck_assert_int_eq(parent[20], -1);
    tp_run_free(run);
}
END_TEST

START_TEST(test_basic_launchers)
{
    tp_run *run = bu_run(HIER_BASIC, "  - analysis: hierarchy\n");
    const int32_t *l = bu_attached(run, "hierarchy.launcher", BASIC_ROWS);
    ck_assert_int_eq(l[20], 4);
    ck_assert_int_eq(l[21], 6);
    ck_assert_int_eq(l[22], 9);
    ck_assert_int_eq(l[23], 10); /* memcpy <- cudaMemcpyAsync */
    ck_assert_int_eq(l[24], 18); /* launched from the backward thread */
    ck_assert_int_eq(l[25], -1); /* no launch with corr 999 */
    ck_assert_int_eq(l[26], 13); /* no corr: linked through the ac2g flow */
    ck_assert_int_eq(l[4], -1);
    ck_assert_int_eq(l[0], -1);
    tp_run_free(run);
}
END_TEST

START_TEST(test_no_cross_thread)
{
    tp_run *run = bu_run(HIER_BASIC, "  - analysis: hierarchy\n"
                                     "    cross_thread: false\n");
    const tp_result *r = tp_test_result(run, "hierarchy");
    ck_assert_int_eq(bu_count(r, "roots"), 3);
    ck_assert_int_eq(bu_count(r, "cross_thread_attached"), 0);
    const int32_t *roots = bu_attached(run, "hierarchy.roots", 3);
    ck_assert_int_eq(roots[0], 0); /* main thread first */
    ck_assert_int_eq(roots[1], 15);
    ck_assert_int_eq(roots[2], 19);
    const int32_t *depth = bu_attached(run, "hierarchy.depth", BASIC_ROWS);
    ck_assert_int_eq(depth[15], 0);
    ck_assert_int_eq(depth[18], 3);
    tp_run_free(run);
}
END_TEST

/* hier_overlap.json rows: 0 outer [0,100), 1 clamped [10,100.5),
 * 2 first [200,300), 3 crossing [250,350), 4 zero [400,400), 5 Trace span */
START_TEST(test_overlap_clamp_and_crossover)
{
    tp_run *run = bu_run(HIER_OVERLAP, "  - analysis: hierarchy\n");
    const tp_result *r = tp_test_result(run, "hierarchy");
    ck_assert_int_eq(bu_count(r, "host_events"), 5); /* the Trace span is not one */
    ck_assert_int_eq(bu_count(r, "clamped_overlaps"), 1);
    ck_assert_int_eq(bu_count(r, "crossovers"), 1);
    ck_assert_int_eq(bu_count(r, "roots"), 4);
    ck_assert_int_eq(bu_count(r, "host_events_nested"), 1);
    const int32_t *parent = bu_attached(run, "hierarchy.parent", 6);
    ck_assert_int_eq(parent[1], 0);  /* 0.5 us past the end: still a child */
    ck_assert_int_eq(parent[3], -1); /* crosses `first` by 50 us: a root */
    const int32_t *roots = bu_attached(run, "hierarchy.roots", 4);
    ck_assert_int_eq(roots[0], 0);
    ck_assert_int_eq(roots[1], 2);
    ck_assert_int_eq(roots[2], 3);
    ck_assert_int_eq(roots[3], 4);
    tp_run_free(run);
}
END_TEST

START_TEST(test_overlap_without_clamp)
{
    tp_run *run = bu_run(HIER_OVERLAP, "  - analysis: hierarchy\n"
                                       "    clamp_ns: 0\n");
    const tp_result *r = tp_test_result(run, "hierarchy");
    ck_assert_int_eq(bu_count(r, "clamped_overlaps"), 0);
    ck_assert_int_eq(bu_count(r, "crossovers"), 2);
    ck_assert_int_eq(bu_count(r, "roots"), 5);
    tp_run_free(run);
}
END_TEST

/* hier_touch.json: a [0,100), b [99.5,200): b starts 0.5 us before a ends */
START_TEST(test_touching_events)
{
    tp_run *run = bu_run(BU_HAND "hier_touch.json", "  - analysis: hierarchy\n");
    const tp_result *r = tp_test_result(run, "hierarchy");
    ck_assert_int_eq(bu_count(r, "clamped_overlaps"), 1);
    ck_assert_int_eq(bu_count(r, "crossovers"), 0);
    ck_assert_int_eq(bu_count(r, "roots"), 2); /* b follows a */
    tp_run_free(run);

    run = bu_run(BU_HAND "hier_touch.json", "  - {analysis: hierarchy, clamp_ns: 0}\n");
    r = tp_test_result(run, "hierarchy");
    ck_assert_int_eq(bu_count(r, "clamped_overlaps"), 0);
    ck_assert_int_eq(bu_count(r, "crossovers"), 1);
    ck_assert_int_eq(bu_count(r, "roots"), 2);
    tp_run_free(run);
}
END_TEST

/* hier_step_prefix.json: tid 1 holds "train" [0, 1000) µs, tid 2 two
 * "Iteration N" annotations of 10 µs.  Without ProfilerStep# names the main
 * thread is the one with the most top-level time (tid 1); with step_prefix
 * naming the iterations it is tid 2. */
START_TEST(test_step_prefix)
{
    tp_run *run = bu_run(BU_HAND "hier_step_prefix.json", "  - analysis: hierarchy\n");
    ck_assert_int_eq(bu_count(tp_test_result(run, "hierarchy"), "main_tid"), 1);
    tp_run_free(run);
    run = bu_run(BU_HAND "hier_step_prefix.json",
                 "  - {analysis: hierarchy, step_prefix: 'Iteration '}\n");
    ck_assert_int_eq(bu_count(tp_test_result(run, "hierarchy"), "main_tid"), 2);
    ck_assert_int_eq(bu_attached_i64(run, "hierarchy.main_tid", 1)[0], 2);
    tp_run_free(run);
}
END_TEST

/* filters/trim_ranks.json: two ranks reuse correlation id 7 (rank 0 once,
 * rank 1 twice), each launch with an ac2g flow of id 7.  Each kernel pairs
 * with the latest 's' at or before its 'f': k_r0 (row 12) -> launch_r0 (5),
 * k_r1_step1 (13) -> launch_r1_step1 (10), k_r1_step3 (14) ->
 * launch_r1_step3 (11).  The old rule took the first 's' with the id for
 * all three (launch_r0). */
START_TEST(test_links_repeated_flow_ids)
{
    tp_run *run = bu_run("tests/data/filters/trim_ranks.json", "  - analysis: hierarchy\n");
    const int32_t *l = bu_attached(run, "hierarchy.launcher", 21);
    ck_assert_int_eq(l[12], 5);
    ck_assert_int_eq(l[13], 10);
    ck_assert_int_eq(l[14], 11);
    const tp_result *r = tp_test_result(run, "hierarchy");
    ck_assert_int_eq(bu_count(r, "ambiguous_corr"), 3);
    ck_assert_int_eq(bu_count(r, "launches_linked"), 3);
    tp_run_free(run);
}
END_TEST

/* hier_links.json rows: 0 fwdbwd s id 7 (same id as an ac2g flow), 1 aten::mm,
 * 2 launch without corr, 3 ac2g s id 7, 4 k1, 5 ac2g f id 7, 6 MmBackward,
 * 7 fwdbwd f, 8/9 launches with corr 5 in pids 10/20, 10 ac2g s id 5 (pid 20),
 * 11 k2 (corr 5), 12 ac2g f id 5, 13/14 launches with corr 9 in pids 10/20
 * (13 nested in aten::mm, 14 a root), 15 k3 (corr 9, no flow). */
START_TEST(test_links_shared_ids)
{
    tp_run *run = bu_run(BU_HAND "hier_links.json", "  - analysis: hierarchy\n");
    const int32_t *l = bu_attached(run, "hierarchy.launcher", 16);
    ck_assert_int_eq(l[4], 2);   /* the ac2g start, not the fwdbwd one listed first */
    ck_assert_int_eq(l[11], 9);  /* corr 5 is in two pids: the flow picks pid 20's */
    ck_assert_int_eq(l[15], 14); /* corr 9 in two pids, no flow: the nearest launch before, outermost on the tie */
    const tp_result *r = tp_test_result(run, "hierarchy");
    ck_assert_int_eq(bu_count(r, "gpu_linked"), 3);
    ck_assert_int_eq(bu_count(r, "gpu_unlinked"), 0);
    ck_assert_int_eq(bu_count(r, "ambiguous_corr"), 2);
    tp_run_free(run);
}
END_TEST

/* hier_wide_ids.json: ids past 32 bits, kept in the trace's wide table.
 * Rows: 0 aten::mm on tid 140000000000001, 1 launch corr 2^32 + 5, 2 launch
 * corr 5, 3 launch with an ac2g flow of id 2^40 (row 4), 5 k_wide (corr
 * 2^32 + 5), 6 k_small (corr 5), 7 k_flow (flow f, row 8).  Cut to 32 bits,
 * k_wide would share corr 5 with k_small. */
START_TEST(test_links_wide_ids)
{
    tp_run *run = bu_run(BU_HAND "hier_wide_ids.json", "  - analysis: hierarchy\n");
    const int32_t *l = bu_attached(run, "hierarchy.launcher", 9);
    const int32_t *parent = bu_attached(run, "hierarchy.parent", 9);
    ck_assert_int_eq(l[5], 1);
    ck_assert_int_eq(l[6], 2);
    ck_assert_int_eq(l[7], 3);
    ck_assert_int_eq(parent[1], 0);
    ck_assert_int_eq(parent[3], 0);
    const tp_result *r = tp_test_result(run, "hierarchy");
    ck_assert_int_eq(bu_count(r, "gpu_linked"), 3);
    ck_assert_int_eq(bu_count(r, "ambiguous_corr"), 0);
    ck_assert_int_eq(bu_count(r, "main_tid"), INT64_C(140000000000001));
    tp_run_free(run);
}
END_TEST

/* B ends 0.5 µs past its parent ProfilerStep#1 (clamped); Q on another
 * thread lies inside B but ends past the step: it belongs under B. */
START_TEST(test_attach_inside_clamped_child)
{
    tp_run *run = bu_run(BU_HAND "hier_clamp_attach.json", "  - analysis: hierarchy\n");
    const int32_t *parent = bu_attached(run, "hierarchy.parent", 3);
    ck_assert_int_eq(parent[1], 0);
    ck_assert_int_eq(parent[2], 1);
    ck_assert_int_eq(bu_count(tp_test_result(run, "hierarchy"), "cross_thread_attached"), 1);
    tp_run_free(run);
}
END_TEST

START_TEST(test_real_dlrm_trace)
{
    tp_run *run = bu_run(BU_DLRM, "  - analysis: hierarchy\n");
    const tp_result *r = tp_test_result(run, "hierarchy");
    ck_assert_int_eq(bu_count(r, "events"), 3290);
    ck_assert_int_eq(bu_count(r, "host_events"), 2198);
    ck_assert_int_eq(bu_count(r, "roots"), 2);
    ck_assert_int_eq(bu_count(r, "host_events_nested"), 2196);
    ck_assert_int_eq(bu_count(r, "main_tid"), 59811);
    ck_assert_int_eq(bu_count(r, "cross_thread_attached"), 111); /* autograd thread roots */
    ck_assert_int_eq(bu_count(r, "gpu_linked"), 261);
    ck_assert_int_eq(bu_count(r, "gpu_unlinked"), 0);
    ck_assert_int_eq(bu_count(r, "launches_linked"), 261);
    ck_assert_int_eq(bu_count(r, "crossovers"), 0);
    /* every linked activity's launcher is a runtime call in the forest */
    const int32_t *l = bu_attached(run, "hierarchy.launcher", 3290);
    const int32_t *depth = bu_attached(run, "hierarchy.depth", 3290);
    for (size_t i = 0; i < 3290; i++)
        if (l[i] >= 0)
            ck_assert_int_ge(depth[l[i]], 0);
    tp_run_free(run);
}
END_TEST

/* hier_python.json rows: 0 threading.py _bootstrap [0,1000], 1 <module>
 * [10,990], 2 _record_function_enter_new [95,105] (crosses the step's
 * start), 3 ProfilerStep#1 [100,500], 4 model.py forward [110,410],
 * 5 aten::mm [120,170], 6 aten::relu [200,220]; all Python frames but
 * rows 3, 5, 6. */
START_TEST(test_python_frames_left_out_by_default)
{
    tp_run *run = bu_run(BU_HAND "hier_python.json", "  - analysis: hierarchy\n");
    const tp_result *r = tp_test_result(run, "hierarchy");
    ck_assert_int_eq(bu_count(r, "host_events"), 3);
    ck_assert_int_eq(bu_count(r, "roots"), 1);
    ck_assert_int_eq(bu_count(r, "crossovers"), 0);
    const int32_t *parent = bu_attached(run, "hierarchy.parent", 7);
    const int32_t *depth = bu_attached(run, "hierarchy.depth", 7);
    const int32_t *roots = bu_attached(run, "hierarchy.roots", 1);
    ck_assert_int_eq(roots[0], 3);
    ck_assert_int_eq(parent[5], 3); /* not under model.py forward */
    ck_assert_int_eq(parent[6], 3);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(depth[i], -1);
    ck_assert_int_eq(depth[4], -1);
    tp_run_free(run);

    run = bu_run(BU_HAND "hier_python.json", "  - analysis: hierarchy\n    python_frames: true\n");
    r = tp_test_result(run, "hierarchy");
    ck_assert_int_eq(bu_count(r, "host_events"), 7);
    ck_assert_int_eq(bu_count(r, "roots"), 1);
    ck_assert_int_eq(bu_count(r, "crossovers"), 1); /* _record_function_enter_new */
    parent = bu_attached(run, "hierarchy.parent", 7);
    roots = bu_attached(run, "hierarchy.roots", 1);
    ck_assert_int_eq(roots[0], 0);
    ck_assert_int_eq(parent[3], 1);
    ck_assert_int_eq(parent[4], 3);
    ck_assert_int_eq(parent[5], 4);
    tp_run_free(run);
}
END_TEST

static Suite *hierarchy_suite(void)
{
    Suite *s = suite_create("hierarchy");
    TCase *tc = tcase_create("hierarchy");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_basic_counts);
    tcase_add_test(tc, test_basic_structure);
    tcase_add_test(tc, test_basic_launchers);
    tcase_add_test(tc, test_no_cross_thread);
    tcase_add_test(tc, test_overlap_clamp_and_crossover);
    tcase_add_test(tc, test_python_frames_left_out_by_default);
    tcase_add_test(tc, test_overlap_without_clamp);
    tcase_add_test(tc, test_touching_events);
    tcase_add_test(tc, test_links_shared_ids);
    tcase_add_test(tc, test_step_prefix);
    tcase_add_test(tc, test_links_repeated_flow_ids);
    tcase_add_test(tc, test_links_wide_ids);
    tcase_add_test(tc, test_attach_inside_clamped_child);
    tcase_add_test(tc, test_real_dlrm_trace);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(hierarchy_suite)
