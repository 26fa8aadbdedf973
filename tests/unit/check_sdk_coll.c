/* SDK collectives and queue (tp_sdk_coll.h, tp_sdk_queue.h): NCCL's bus
 * bandwidth factors, dtype sizes, the matcher across ranks on hand-made
 * calls, the launch queue series, presets' link peaks. */
#include <math.h>
#include <stdlib.h>

#include "tp_internal.h"
#include "tp_test.h"

#include <tracepipe/tp_sdk_coll.h>
#include <tracepipe/tp_sdk_presets.h>
#include <tracepipe/tp_sdk_queue.h>

START_TEST(busbw_factors)
{
    /* nccl-tests doc/PERFORMANCE.md */
    ck_assert(tp_coll_busbw_factor(TP_COLL_ALL_REDUCE, 8) == 2.0 * 7 / 8);
    ck_assert(tp_coll_busbw_factor(TP_COLL_ALL_GATHER, 4) == 0.75);
    ck_assert(tp_coll_busbw_factor(TP_COLL_REDUCE_SCATTER, 2) == 0.5);
    ck_assert(tp_coll_busbw_factor(TP_COLL_ALL_TO_ALL, 8) == 7.0 / 8);
    ck_assert(tp_coll_busbw_factor(TP_COLL_BROADCAST, 8) == 1);
    ck_assert(tp_coll_busbw_factor(TP_COLL_REDUCE, 3) == 1);
    ck_assert(tp_coll_busbw_factor(TP_COLL_SEND_RECV, 2) == 1);
    ck_assert(isnan(tp_coll_busbw_factor(TP_COLL_OTHER, 8)));
    ck_assert(isnan(tp_coll_busbw_factor(TP_COLL_ALL_REDUCE, 0)));
    ck_assert(tp_coll_busbw_factor(TP_COLL_ALL_REDUCE, 1) == 0);
}
END_TEST

START_TEST(dtype_sizes)
{
    ck_assert_int_eq(tp_dtype_bytes("Float"), 4);
    ck_assert_int_eq(tp_dtype_bytes("c10::BFloat16"), 2);
    ck_assert_int_eq(tp_dtype_bytes("Half"), 2);
    ck_assert_int_eq(tp_dtype_bytes("long int"), 8);
    ck_assert_int_eq(tp_dtype_bytes("Char"), 1);
    ck_assert_int_eq(tp_dtype_bytes("Float8_e4m3fn"), 1);
    ck_assert_int_eq(tp_dtype_bytes("Scalar"), 0);
    ck_assert_int_eq(tp_dtype_bytes(NULL), 0);
    /* the one table: PyTorch's element_size() */
    ck_assert(tp_dtype_bpe("bool") == 1);
    ck_assert(tp_dtype_bpe("unsigned char") == 1);
    ck_assert(tp_dtype_bpe("short int") == 2);
    ck_assert(tp_dtype_bpe("c10::complex<float>") == 8);
    ck_assert(tp_dtype_bpe("c10::Float4_e2m1fn_x2") == 1); /* a packed pair per element */
    ck_assert(tp_dtype_bpe("c10::Float8_e8m0fnu") == 1);
    ck_assert(tp_dtype_bpe("TensorList") == 0);
    ck_assert_int_eq(tp_coll_type_of_name("allreduce"), TP_COLL_ALL_REDUCE);
    ck_assert_int_eq(tp_coll_type_of_name("reduce_scatter_tensor_coalesced"),
                     TP_COLL_REDUCE_SCATTER);
    ck_assert_int_eq(tp_coll_type_of_name(""), TP_COLL_NONE);
}
END_TEST

/* Two ranks, keys 1 (three calls) and 2 (one call); rank 1's clock 100 ns
 * ahead, its second key-1 call arriving 40 ns late; rank 1 lacks the third
 * key-1 call. */
START_TEST(matcher)
{
    int64_t s0[] = {0, 200, 300, 500}, e0[] = {50, 260, 350, 600};
    uint64_t k0[] = {1, 1, 2, 1};
    int64_t s1[] = {100, 340, 400}, e1[] = {150, 360, 450};
    uint64_t k1[] = {1, 1, 2};
    tp_coll_rank r[] = {{s0, e0, k0, 4}, {s1, e1, k1, 3}};
    tp_coll_match m;
    tp_host = tp_core_host_api(); /* tp_sort allocates through the host */
    ck_assert_int_eq(tp_coll_match_ranks(r, 2, &m), TP_OK);
    ck_assert_uint_eq(m.nsets, 4); /* (1,0) (1,1) (1,2) (2,0) */
    ck_assert(m.key[0] == 1 && m.seq[0] == 0 && m.key[2] == 1 && m.seq[2] == 2 && m.key[3] == 2);
    ck_assert_uint_eq(tp_coll_set_size(&m, 1), 2);
    ck_assert_uint_eq(tp_coll_set_size(&m, 2), 1); /* rank 0 alone */
    /* end differences 100, 100, 100: offset 100 ns = 200 half ns */
    ck_assert_int_eq(m.offset_hns[0], 0);
    ck_assert_int_eq(m.offset_hns[1], 200);
    /* set (1,1): rank 0 arrives at 200, rank 1 at 340 - 100 = 240 */
    ck_assert_int_eq(m.arrival_hns[m.first[1]], 400);
    ck_assert_int_eq(m.arrival_hns[m.first[1] + 1], 480);
    ck_assert_int_eq(m.latest_hns[1] - m.earliest_hns[1], 80);
    tp_coll_match_free(&m);
}
END_TEST

START_TEST(queue_series)
{
    /* launch_stats' S1 stream 7: calls -5, 3, 20, 29; ends 10, 17, 28, 36 */
    int64_t in[] = {-5, 3, 20, 29}, out[] = {10, 17, 28, 36};
    int64_t want_t[] = {-5, 3, 10, 17, 20, 28, 29, 36}, want_d[] = {1, 2, 1, 0, 1, 0, 1, 0};
    tp_queue_point *p;
    tp_host = tp_core_host_api();
    ck_assert_int_eq(tp_queue_series(in, out, 4, TP_QUEUE_LEAVES_FIRST, &p), TP_OK);
    for (int i = 0; i < 8; i++)
        ck_assert(p[i].t == want_t[i] && p[i].depth == want_d[i]);
    free(p);
    /* at equal times: leaves first (0 then 1) or entries first (2 then 1) */
    int64_t in2[] = {0, 10}, out2[] = {10, 20};
    ck_assert_int_eq(tp_queue_series(in2, out2, 2, TP_QUEUE_LEAVES_FIRST, &p), TP_OK);
    ck_assert(p[1].t == 10 && p[1].depth == 0 && p[2].depth == 1);
    free(p);
    ck_assert_int_eq(tp_queue_series(in2, out2, 2, TP_QUEUE_ENTRIES_FIRST, &p), TP_OK);
    ck_assert(p[1].t == 10 && p[1].depth == 2 && p[2].depth == 1);
    free(p);
    ck_assert_int_eq(tp_queue_series(in, out, 0, TP_QUEUE_LEAVES_FIRST, &p), TP_OK);
    ck_assert_ptr_null(p);
}
END_TEST

START_TEST(link_peaks)
{
    ck_assert(tp_preset_find("v100_sxm2")->link_gbps == 150);
    ck_assert(tp_preset_find("a100_sxm4_80gb")->link_gbps == 300);
    ck_assert(tp_preset_find("h100_sxm5_80gb")->link_gbps == 450);
    ck_assert(tp_preset_find("mi300x")->link_gbps == 448);
}
END_TEST

static Suite *sdk_coll_suite(void)
{
    Suite *s = suite_create("sdk_coll");
    TCase *tc = tcase_create("coll");
    tcase_add_test(tc, busbw_factors);
    tcase_add_test(tc, dtype_sizes);
    tcase_add_test(tc, matcher);
    tcase_add_test(tc, queue_series);
    tcase_add_test(tc, link_peaks);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_coll_suite)
