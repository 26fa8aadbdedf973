/* SDK trace semantics (tp_sdk_trace.h) on hand-made tables, hand-computed
 * values: nesting with the clamp, launch links (nested calls, ids shared by
 * several pids, flows), iterations (markers, nested markers, ranges, row
 * index), the trace span. */
#include <string.h>

#include "tp_test.h"

#include <tracepipe/tp_sdk_trace.h>

#include "sdk_table.h"

/* The SDK reaches the host's allocator through the plugin's tp_host; in
 * this test binary it is the core's own table. */
const tp_host_api *tp_host;

#define HOST(pid, tid, ts, dur) {'X', TP_KIND_CPU_OP, pid, tid, ts, dur, -1, -1, 0, 0}

/* Thread (1, 1), clamp 1000 ns:
 *   0 [0, 10000)        root
 *   1 [1000, 10500)     overruns 0 by 500 < clamp: child of 0, clamped
 *   2 [2000, 3000)      inside 1
 *   3 [9800, 14800)     overruns 1 and 0 but starts < clamp before their ends:
 *                       follows both (2 clamped), a root
 *   4 [12000, 13000)    inside 3
 *   5 [13500, 16500)    overruns 3 by 1700, starting 1300 before its end:
 *                       a crossover, a root
 * Thread (1, 2): 6 [0, 100000) spans them all in time but is another thread. */
static const spec nest_rows[] = {
    HOST(1, 1, 0, 10000),    HOST(1, 1, 1000, 9500),  HOST(1, 1, 2000, 1000),
    HOST(1, 1, 9800, 5000),  HOST(1, 1, 12000, 1000), HOST(1, 1, 13500, 3000),
    HOST(1, 2, 0, 100000),
};

static void nest(const table *t, int64_t clamp, int32_t *parent, tp_nest_report *rep)
{
    uint32_t rows[MAXR];
    /* given out of order: tp_nest_rows sorts */
    for (size_t i = 0; i < t->c.n; i++) {
        rows[i] = (uint32_t)(t->c.n - 1 - i);
        parent[i] = -1;
    }
    ck_assert_int_eq(tp_nest_rows(&t->c, NULL, rows, t->c.n, clamp, parent, rep), TP_OK);
}

START_TEST(nesting_with_clamp)
{
    table t;
    sdk_table_fill(&t, nest_rows, 7);
    int32_t parent[MAXR];
    tp_nest_report rep = {0, 0, NULL, NULL};
    nest(&t, 1000, parent, &rep);
    const int32_t want[] = {-1, 0, 1, -1, 3, -1, -1};
    for (size_t i = 0; i < 7; i++)
        ck_assert_int_eq(parent[i], want[i]);
    ck_assert_int_eq(rep.clamped, 3);
    ck_assert_int_eq(rep.crossovers, 1);
}
END_TEST

/* clamp 0: every overrun is a crossover (1 crosses 0, 3 crosses 1, 5
 * crosses 3), nothing is clamped. */
START_TEST(nesting_without_clamp)
{
    table t;
    sdk_table_fill(&t, nest_rows, 7);
    int32_t parent[MAXR];
    tp_nest_report rep = {0, 0, NULL, NULL};
    nest(&t, 0, parent, &rep);
    const int32_t want[] = {-1, -1, 1, -1, 3, -1, -1};
    for (size_t i = 0; i < 7; i++)
        ck_assert_int_eq(parent[i], want[i]);
    ck_assert_int_eq(rep.clamped, 0);
    ck_assert_int_eq(rep.crossovers, 3);
}
END_TEST

/* Touching events: one starting where another ends is its sibling, and a
 * zero-length event has no children. */
START_TEST(nesting_touching_and_zero)
{
    static const spec rows[] = {HOST(1, 1, 0, 100), HOST(1, 1, 100, 50), HOST(1, 1, 120, 0),
                                HOST(1, 1, 120, 0)};
    table t;
    sdk_table_fill(&t, rows, 4);
    int32_t parent[MAXR];
    nest(&t, 0, parent, NULL);
    ck_assert_int_eq(parent[0], -1);
    ck_assert_int_eq(parent[1], -1);
    ck_assert_int_eq(parent[2], 1);
    ck_assert_int_eq(parent[3], 1);
}
END_TEST

#define RT(pid, ts, dur, corr) {'X', TP_KIND_RUNTIME, pid, 1, ts, dur, corr, -1, 0, 0}
#define KERNEL(tid, ts, corr) {'X', TP_KIND_KERNEL, 0, tid, ts, 10, corr, -1, 0, 0}
#define FLOW(ph, pid, tid, ts, id, cat) {ph, TP_KIND_FLOW, pid, tid, ts, -1, -1, id, 0, cat}
enum { AC2G = 1, FWDBWD = 2 };

/* Rows:
 *   corr 1, one pid: 0 cudaLaunchKernel [100, 150) around 1 cuLaunchKernel
 *     [110, 120); kernel 2 -> the outermost, 0.
 *   corr 5 in pids 10 and 20, no flow: 3 (pid 10, at 300), 4 (pid 20, at
 *     500); kernel 5 at 400 -> 3 (last at or before), kernel 6 at 600 -> 4.
 *   corr 9 in pids 10 and 20: 7 (pid 10, at 700), 8 (pid 20, at 710); an
 *     ac2g s flow on 7 (row 9), a fwdbwd s flow with the same id on 8 (row
 *     10, another category); kernel 11 at 800 with an ac2g f flow (row 12)
 *     -> the flow's start, 7 (time alone would say 8).
 *   13: a kernel without corr or flow: unlinked.
 *   14: a memset with corr 1 -> 0 too; 15: a GPU annotation with corr 1:
 *     not launched work, never linked. */
static const spec link_rows[] = {
    RT(10, 100, 50, 1),
    RT(10, 110, 10, 1),
    KERNEL(7, 200, 1),
    RT(10, 300, 5, 5),
    RT(20, 500, 5, 5),
    KERNEL(7, 400, 5),
    KERNEL(8, 600, 5),
    RT(10, 700, 5, 9),
    RT(20, 710, 5, 9),
    FLOW('s', 10, 1, 700, 9, AC2G),
    FLOW('s', 20, 1, 710, 9, FWDBWD),
    KERNEL(7, 800, 9),
    FLOW('f', 0, 7, 800, 9, AC2G),
    KERNEL(7, 900, -1),
    {'X', TP_KIND_MEMSET, 0, 7, 950, 5, 1, -1, 0, 0},
    {'X', TP_KIND_GPU_ANNOTATION, 0, 7, 100, 900, 1, -1, 0, 0},
};

START_TEST(links_by_corr_and_flows)
{
    table t;
    sdk_table_fill(&t, link_rows, 16);
    int32_t l[MAXR];
    tp_link_counts n;
    ck_assert_int_eq(tp_link_launches(&t.c, NULL, NULL, l, &n), TP_OK);
    const int32_t want[] = {-1, -1, 0, -1, -1, 3, 4, -1, -1, -1, -1, 7, -1, -1, 0, -1};
    for (size_t i = 0; i < 16; i++)
        ck_assert_int_eq(l[i], want[i]);
    ck_assert_int_eq(n.gpu_linked, 5);
    ck_assert_int_eq(n.gpu_unlinked, 1);
    ck_assert_int_eq(n.launches_linked, 4); /* 0, 3, 4, 7 */
    ck_assert_int_eq(n.ambiguous, 3);       /* 5, 6, 11 */
    ck_assert_int_eq(n.ambiguous_left, 2);  /* 5, 6: no flow */
}
END_TEST

/* Launch links of the rows (no thread ranks, no depths), into l and *n. */
static void link_spec(const spec *rows, size_t nrows, int32_t *l, tp_link_counts *n)
{
    table t;
    sdk_table_fill(&t, rows, nrows);
    ck_assert_int_eq(tp_link_launches(&t.c, NULL, NULL, l, n), TP_OK);
}

/* Repeated flow ids (merged ranks, each restarting ids): corr 9 launched
 * in pid 10 at 700 and pid 20 at 710, each with an ac2g s flow of id 9.
 * Kernel 4 (f at 705) pairs with the latest s at or before it, pid 10's;
 * kernel 6 (f at 800) with pid 20's; kernel 8 (f at 650, before every s)
 * with the earliest after it.  (Taking the first s with the id, the old
 * rule, would give all three pid 10's launch.) */
START_TEST(links_repeated_flow_ids)
{
    static const spec rows[] = {
        RT(10, 700, 5, 9),  RT(20, 710, 5, 9),
        FLOW('s', 10, 1, 700, 9, AC2G), FLOW('s', 20, 1, 710, 9, AC2G),
        KERNEL(7, 705, 9),  FLOW('f', 0, 7, 705, 9, AC2G),
        KERNEL(8, 800, 9),  FLOW('f', 0, 8, 800, 9, AC2G),
        KERNEL(9, 650, 9),  FLOW('f', 0, 9, 650, 9, AC2G),
    };
    int32_t l[MAXR];
    tp_link_counts n;
    link_spec(rows, 10, l, &n);
    ck_assert_int_eq(l[4], 0);
    ck_assert_int_eq(l[6], 1);
    ck_assert_int_eq(l[8], 0);
    ck_assert_int_eq(n.ambiguous, 3);
    ck_assert_int_eq(n.ambiguous_left, 0);
}
END_TEST

/* Correlation ids looked up densely (ids 3 and 5: a table over [3, 5]) and
 * sparsely (3 and 2e9: a binary search) link alike: a kernel finds its
 * call; one with an id in the gap (4), below (1) or above (6) the calls'
 * ids stays unlinked. */
START_TEST(links_dense_and_sparse_corr_ids)
{
    for (int sparse = 0; sparse < 2; sparse++) {
        int32_t hi = sparse ? 2000000000 : 5;
        const spec rows[] = {
            RT(10, 100, 5, 3), RT(10, 200, 5, hi), KERNEL(7, 150, 3), KERNEL(7, 250, hi),
            KERNEL(7, 300, 4), KERNEL(7, 310, 1),  KERNEL(7, 320, 6),
        };
        table t;
        sdk_table_fill(&t, rows, 7);
        int32_t l[MAXR];
        tp_link_counts n;
        ck_assert_int_eq(tp_link_launches(&t.c, NULL, NULL, l, &n), TP_OK);
        const int32_t want[] = {-1, -1, 0, 1, -1, -1, -1};
        for (size_t i = 0; i < 7; i++)
            ck_assert_int_eq(l[i], want[i]);
        ck_assert_int_eq(n.gpu_linked, 2);
        ck_assert_int_eq(n.gpu_unlinked, 3);
    }
}
END_TEST

/* The dense table (issue 31) keeps the outermost call of each id whatever
 * the order the calls come in: corr 1's inner call (row 0, [110, 120))
 * comes before its outer one (row 1, [100, 150)), corr 2's outer (row 3)
 * before its inner (row 4); both kernels go to the outer call.  No
 * ambiguity, so the sorted path never runs. */
START_TEST(links_dense_outermost_any_order)
{
    static const spec rows[] = {
        RT(10, 110, 10, 1), RT(10, 100, 50, 1), KERNEL(7, 200, 1),
        RT(10, 300, 50, 2), RT(10, 310, 10, 2), KERNEL(7, 400, 2),
    };
    int32_t l[MAXR];
    tp_link_counts n;
    link_spec(rows, 6, l, &n);
    ck_assert_int_eq(l[2], 1);
    ck_assert_int_eq(l[5], 3);
    ck_assert_int_eq(n.gpu_linked, 2);
    ck_assert_int_eq(n.launches_linked, 2);
    ck_assert_int_eq(n.ambiguous, 0);
}
END_TEST

/* With the forest's depths the least deep call wins: here the inner one
 * (depth 0) over the outer (depth 1, say it was attached under another
 * event); -1 (outside the forest) comes last. */
START_TEST(links_outermost_by_depth)
{
    table t;
    sdk_table_fill(&t, link_rows, 3);
    int32_t depth[] = {1, 0, -1}, l[MAXR];
    ck_assert_int_eq(tp_link_launches(&t.c, NULL, depth, l, NULL), TP_OK);
    ck_assert_int_eq(l[2], 1);
    depth[1] = -1;
    ck_assert_int_eq(tp_link_launches(&t.c, NULL, depth, l, NULL), TP_OK);
    ck_assert_int_eq(l[2], 0);
}
END_TEST

/* Flows bind to the runtime call ('s') or the GPU work ('f') at their exact
 * thread and time. */
START_TEST(flows_bind)
{
    table t;
    sdk_table_fill(&t, link_rows, 16);
    int32_t b[MAXR];
    ck_assert_int_eq(tp_flow_bind(&t.c, NULL, b), TP_OK);
    ck_assert_int_eq(b[9], 7);
    ck_assert_int_eq(b[10], 8);
    ck_assert_int_eq(b[12], 11);
    ck_assert_int_eq(b[0], -1);
    ck_assert_int_eq(b[11], -1);
}
END_TEST

enum { STEP = 1, OTHER_NAME = 2 };
#define MARK(pid, tid, ts, dur) {'X', TP_KIND_ANNOTATION, pid, tid, ts, dur, -1, -1, STEP, 0}

/* Thread (1, 1): steps [0, 100), [100, 200), [200, 300) and a marker
 * [10, 50) nested in the first; thread (2, 1): two steps; a kernel named
 * like a step (not a host event).  Marker memo: name 1. */
static const spec iter_rows[] = {
    MARK(1, 1, 0, 100),
    MARK(1, 1, 10, 40),
    MARK(1, 1, 100, 100),
    MARK(1, 1, 200, 100),
    MARK(2, 1, 0, 100),
    MARK(2, 1, 100, 100),
    {'X', TP_KIND_KERNEL, 0, 7, 150, 500, -1, -1, STEP, 0},
    HOST(1, 1, -5, 1),
    HOST(1, 1, 300, 1),
};
static const uint8_t marks[] = {2, 1, 2};

START_TEST(iterations_from_markers)
{
    table t;
    sdk_table_fill(&t, iter_rows, 9);
    tp_iterations it;
    ck_assert_int_eq(tp_iterations_from_markers(NULL, &t.c, marks, 3, 1000, &it), TP_OK);
    ck_assert_uint_eq(it.n, 3);
    ck_assert_int_eq(it.pid, 1);
    ck_assert_int_eq(it.tid, 1);
    ck_assert_uint_eq(it.threads, 2);
    ck_assert_uint_eq(it.nested, 1);
    ck_assert_int_eq(it.it[0].start, 0);
    ck_assert_int_eq(it.it[0].end, 100);
    ck_assert_uint_eq(it.it[1].row, 2);
    ck_assert_int_eq(it.it[2].start, 200);
    ck_assert_int_eq(it.it[2].end, 300);
    int32_t index[MAXR];
    tp_iterations_index(&t.c, &it, index);
    const int32_t want[] = {0, 0, 1, 2, 0, 1, 1, -1, -1};
    for (size_t i = 0; i < 9; i++)
        ck_assert_int_eq(index[i], want[i]);
    tp_iterations_free(&it);
    ck_assert_ptr_null(it.it);
}
END_TEST

/* Equal counts: the lower pid wins, whatever the file order. */
START_TEST(iterations_thread_tie)
{
    static const spec rows[] = {MARK(7, 1, 0, 10), MARK(7, 1, 10, 10), MARK(3, 9, 50, 10),
                                MARK(3, 9, 60, 10)};
    table t;
    sdk_table_fill(&t, rows, 4);
    tp_iterations it;
    ck_assert_int_eq(tp_iterations_from_markers(NULL, &t.c, marks, 3, 1000, &it), TP_OK);
    ck_assert_uint_eq(it.n, 2);
    ck_assert_int_eq(it.pid, 3);
    ck_assert_int_eq(it.it[0].start, 50);
    tp_iterations_free(&it);
    /* no marker at all */
    static const uint8_t none[] = {2, 2, 2};
    ck_assert_int_eq(tp_iterations_from_markers(NULL, &t.c, none, 3, 1000, &it), TP_OK);
    ck_assert_uint_eq(it.n, 0);
    tp_iterations_free(&it);
}
END_TEST

#define RANGE(ph, ts, id, name) {ph, TP_KIND_ANNOTATION, 1, 1, ts, -1, -1, id, name, 5}

/* NVTX-style ranges: b/e pairs by (cat, id); an unpaired b is ignored, an
 * unmarked range too. */
START_TEST(iterations_from_ranges)
{
    static const spec rows[] = {RANGE('b', 0, 1, STEP),   RANGE('e', 90, 1, 0),
                                RANGE('b', 100, 2, STEP), RANGE('b', 120, 4, OTHER_NAME),
                                RANGE('e', 130, 4, 0),    RANGE('e', 180, 2, 0),
                                RANGE('b', 200, 3, STEP)};
    table t;
    sdk_table_fill(&t, rows, 7);
    tp_iterations it;
    ck_assert_int_eq(tp_iterations_from_ranges(NULL, &t.c, marks, 3, &it), TP_OK);
    ck_assert_uint_eq(it.n, 2);
    ck_assert_int_eq(it.it[0].start, 0);
    ck_assert_int_eq(it.it[0].end, 90);
    ck_assert_int_eq(it.it[1].start, 100);
    ck_assert_int_eq(it.it[1].end, 180);
    tp_iterations_free(&it);
}
END_TEST

/* The span: metadata and the profiler's own span never count; extent mode
 * needs a duration, starts mode takes every start. */
START_TEST(trace_span)
{
    static const spec rows[] = {
        {'M', TP_KIND_METADATA, 1, 0, -1000, -1, -1, -1, 0, 0},
        {'X', TP_KIND_TRACE, 1, 0, 0, 1000000, -1, -1, 0, 0},
        HOST(1, 1, 100, 50),
        {'i', TP_KIND_INSTANT, 1, 1, 500, -1, -1, -1, 0, 0},
        HOST(1, 1, 200, 10),
    };
    table t;
    sdk_table_fill(&t, rows, 5);
    int64_t lo, hi;
    ck_assert_int_eq(tp_trace_span(&t.c, TP_SPAN_EXTENT, &lo, &hi), 1);
    ck_assert_int_eq(lo, 100);
    ck_assert_int_eq(hi, 210);
    ck_assert_int_eq(tp_trace_span(&t.c, TP_SPAN_STARTS, &lo, &hi), 1);
    ck_assert_int_eq(lo, 100);
    ck_assert_int_eq(hi, 500);
    sdk_table_fill(&t, rows, 2);
    ck_assert_int_eq(tp_trace_span(&t.c, TP_SPAN_EXTENT, &lo, &hi), 0);
    ck_assert_int_eq(lo, 0);
    ck_assert_int_eq(hi, 0);
}
END_TEST

START_TEST(kinds)
{
    ck_assert(tp_kind_is_activity(TP_KIND_KERNEL));
    ck_assert(tp_kind_is_activity(TP_KIND_MEMSET));
    ck_assert(!tp_kind_is_activity(TP_KIND_GPU_ANNOTATION));
    ck_assert(tp_kind_is_host(TP_KIND_RUNTIME));
    ck_assert(!tp_kind_is_host(TP_KIND_TRACE));
    ck_assert(!tp_kind_is_host(TP_KIND_KERNEL));
}
END_TEST

static Suite *sdk_trace_suite(void)
{
    Suite *s = suite_create("sdk_trace");
    TCase *tc = tcase_create("nesting");
    tcase_add_test(tc, nesting_with_clamp);
    tcase_add_test(tc, nesting_without_clamp);
    tcase_add_test(tc, nesting_touching_and_zero);
    suite_add_tcase(s, tc);
    tc = tcase_create("links");
    tcase_add_test(tc, links_by_corr_and_flows);
    tcase_add_test(tc, links_repeated_flow_ids);
    tcase_add_test(tc, links_dense_and_sparse_corr_ids);
    tcase_add_test(tc, links_dense_outermost_any_order);
    tcase_add_test(tc, links_outermost_by_depth);
    tcase_add_test(tc, flows_bind);
    suite_add_tcase(s, tc);
    tc = tcase_create("iterations");
    tcase_add_test(tc, iterations_from_markers);
    tcase_add_test(tc, iterations_thread_tie);
    tcase_add_test(tc, iterations_from_ranges);
    suite_add_tcase(s, tc);
    tc = tcase_create("span");
    tcase_add_test(tc, trace_span);
    tcase_add_test(tc, kinds);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_trace_suite)
