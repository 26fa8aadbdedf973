/* SDK interval unions (hand-computed lengths and overlaps) and sorts. */
#include "tp_test.h"

#include <stdlib.h>

#include <tracepipe/tp_sdk_intervals.h>
#include <tracepipe/tp_sdk_sort.h>

/* The SDK allocates through tp_host (set by check_sdk_trace.c's tests). */

START_TEST(union_merges_overlapping_and_touching)
{
    tp_host = tp_core_host_api(); /* the merge sort's scratch comes from the host */
    /* [0,10) [5,12) [12,15) touch/overlap -> [0,15); [20,30) apart;
     * [40,40) empty and [50,45) inverted are dropped. */
    tp_interval iv[] = {{20, 30}, {5, 12}, {40, 40}, {0, 10}, {12, 15}, {50, 45}};
    size_t n = tp_intervals_union(iv, 6);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(iv[0].start, 0);
    ck_assert_int_eq(iv[0].end, 15);
    ck_assert_int_eq(iv[1].start, 20);
    ck_assert_int_eq(iv[1].end, 30);
    ck_assert_int_eq(tp_intervals_length(iv, n), 25);
}
END_TEST

/* The same intervals as rows of ts/dur columns (issue 31): union 25 ns
 * ([0,15) and [20,30)); inside the window [8, 25): [8,15) + [20,25) = 12;
 * an empty window (hi <= lo) holds nothing.  Rows come back sorted by
 * start, ties by row. */
START_TEST(rows_union_matches_the_interval_union)
{
    tp_host = tp_core_host_api();
    const int64_t ts[] = {20, 5, 40, 0, 12, 50}, dur[] = {10, 7, 0, 10, 3, -5};
    uint32_t rows[] = {0, 1, 2, 3, 4, 5};
    int64_t len = -1, in = -1;
    ck_assert_int_eq(tp_intervals_rows_union(rows, 6, ts, dur, 8, 25, &len, &in), TP_OK);
    ck_assert_int_eq(len, 25);
    ck_assert_int_eq(in, 12);
    const uint32_t want[] = {3, 1, 4, 0, 2, 5};
    for (size_t i = 0; i < 6; i++)
        ck_assert_uint_eq(rows[i], want[i]);
    ck_assert_int_eq(tp_intervals_rows_union(rows, 6, ts, dur, 25, 8, &len, &in), TP_OK);
    ck_assert_int_eq(len, 25);
    ck_assert_int_eq(in, 0);
    ck_assert_int_eq(tp_intervals_rows_union(rows, 0, ts, dur, 0, 100, &len, &in), TP_OK);
    ck_assert_int_eq(len, 0);
    ck_assert_int_eq(in, 0);
}
END_TEST

START_TEST(overlap_of_two_unions)
{
    tp_host = tp_core_host_api();
    tp_interval a[] = {{0, 10}, {20, 30}, {40, 50}};
    tp_interval b[] = {{5, 25}, {28, 45}};
    /* [5,10)=5 + [20,25)=5 + [28,30)=2 + [40,45)=5 */
    ck_assert_int_eq(tp_intervals_overlap(a, 3, b, 2), 17);
    ck_assert_int_eq(tp_intervals_overlap(b, 2, a, 3), 17);
    ck_assert_int_eq(tp_intervals_overlap(a, 3, b, 0), 0);
    ck_assert_int_eq(tp_intervals_within(a, 3, 8, 42), 2 + 10 + 2);
    ck_assert_int_eq(tp_intervals_within(a, 3, 42, 8), 0);
    ck_assert_uint_eq(tp_intervals_union(a, 0), 0);
    /* time two or more run at once: [5,10) [20,25) [28,30) [40,45) = 17,
     * the same as the overlap of the two unions; touching does not count */
    tp_interval both[] = {{0, 10}, {20, 30}, {40, 50}, {5, 25}, {28, 45}, {50, 60}};
    ck_assert_int_eq(tp_intervals_at_least(both, 6, 2), 17);
    ck_assert_int_eq(tp_intervals_at_least(both, 6, 1), 60);
    ck_assert_int_eq(tp_intervals_at_least(both, 6, 3), 0);
}
END_TEST

typedef struct pair {
    int key, seq;
} pair;

static int by_key(const void *a, const void *b, void *ctx)
{
    int *calls = ctx;
    ++*calls;
    const pair *x = a, *y = b;
    return (x->key > y->key) - (x->key < y->key);
}

START_TEST(sort_is_stable_and_passes_the_context)
{
    tp_host = tp_core_host_api();
    enum { N = 1000 };
    pair *p = malloc(N * sizeof *p);
    for (int i = 0; i < N; i++)
        p[i] = (pair){(i * 7919) % 13, i}; /* 13 keys, each many times, shuffled */
    int calls = 0;
    ck_assert_int_eq(tp_sort(p, N, sizeof *p, by_key, &calls), TP_OK);
    ck_assert_int_gt(calls, 0);
    for (int i = 1; i < N; i++) {
        ck_assert_int_le(p[i - 1].key, p[i].key);
        if (p[i - 1].key == p[i].key)
            ck_assert_int_lt(p[i - 1].seq, p[i].seq); /* stable */
    }
    /* sorted input costs one pass: n - 1 comparisons */
    calls = 0;
    ck_assert_int_eq(tp_sort(p, N, sizeof *p, by_key, &calls), TP_OK);
    ck_assert_int_eq(calls, N - 1);
    free(p);
}
END_TEST

START_TEST(rows_by_key_ties_by_row)
{
    tp_host = tp_core_host_api();
    const int64_t ts[] = {50, 10, 30, 10, 50, 0};
    uint32_t rows[] = {0, 1, 2, 3, 4, 5};
    ck_assert_int_eq(tp_sort_rows_by_key(rows, 6, ts), TP_OK);
    const uint32_t want[] = {5, 1, 3, 2, 0, 4};
    for (int i = 0; i < 6; i++)
        ck_assert_uint_eq(rows[i], want[i]);
}
END_TEST

static Suite *sdk_intervals_suite(void)
{
    Suite *s = suite_create("sdk_intervals");
    TCase *tc = tcase_create("intervals");
    tcase_add_test(tc, union_merges_overlapping_and_touching);
    tcase_add_test(tc, overlap_of_two_unions);
    tcase_add_test(tc, rows_union_matches_the_interval_union);
    tcase_add_test(tc, sort_is_stable_and_passes_the_context);
    tcase_add_test(tc, rows_by_key_ties_by_row);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_intervals_suite)
