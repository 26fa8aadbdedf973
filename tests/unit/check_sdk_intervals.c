/* SDK interval unions: hand-computed lengths and overlaps. */
#include "tp_test.h"

#include <tracepipe/tp_sdk_intervals.h>

START_TEST(union_merges_overlapping_and_touching)
{
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

START_TEST(overlap_of_two_unions)
{
    tp_interval a[] = {{0, 10}, {20, 30}, {40, 50}};
    tp_interval b[] = {{5, 25}, {28, 45}};
    /* [5,10)=5 + [20,25)=5 + [28,30)=2 + [40,45)=5 */
    ck_assert_int_eq(tp_intervals_overlap(a, 3, b, 2), 17);
    ck_assert_int_eq(tp_intervals_overlap(b, 2, a, 3), 17);
    ck_assert_int_eq(tp_intervals_overlap(a, 3, b, 0), 0);
    ck_assert_int_eq(tp_intervals_within(a, 3, 8, 42), 2 + 10 + 2);
    ck_assert_int_eq(tp_intervals_within(a, 3, 42, 8), 0);
    ck_assert_uint_eq(tp_intervals_union(a, 0), 0);
}
END_TEST

static Suite *sdk_intervals_suite(void)
{
    Suite *s = suite_create("sdk_intervals");
    TCase *tc = tcase_create("intervals");
    tcase_add_test(tc, union_merges_overlapping_and_touching);
    tcase_add_test(tc, overlap_of_two_unions);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_intervals_suite)
