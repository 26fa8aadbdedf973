/* SDK collectives and queue (tp_sdk_coll.h, tp_sdk_queue.h): NCCL's bus
 * bandwidth factors, dtype sizes, the matcher across ranks on hand-made
 * calls, the launch queue series, presets' link peaks. */
#include <math.h>
#include <stdlib.h>

#include "tp_internal.h"
#include "tp_test.h"

#include <string.h>

#include <tracepipe/tp_sdk_coll.h>
#include <tracepipe/tp_sdk_cupti.h>
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
    /* the last arrival: rank 1 at set (1,1); at set (1,0) both arrive at 0: the first, rank 0 */
    ck_assert_uint_eq(m.member[m.latest[1]].rank, 1);
    ck_assert_int_eq(m.arrival_hns[m.latest[1]], m.latest_hns[1]);
    ck_assert_uint_eq(m.member[m.latest[0]].rank, 0);
    ck_assert_uint_eq(m.member[m.latest[2]].rank, 0); /* alone */
    tp_coll_match_free(&m);
}
END_TEST

/* The matching key: process group and type (collectives and critical_path share it). */
START_TEST(matching_key)
{
    /* FNV-1a of "1" then the type: (((offset ^ '1') * prime) ^ type) * prime */
    uint64_t h = (1469598103934665603ull ^ (uint64_t)'1') * 1099511628211ull;
    ck_assert(tp_coll_key("1", TP_COLL_ALL_REDUCE) ==
              (h ^ (uint64_t)TP_COLL_ALL_REDUCE) * 1099511628211ull);
    ck_assert(tp_coll_key("0", TP_COLL_ALL_REDUCE) != tp_coll_key("1", TP_COLL_ALL_REDUCE));
    ck_assert(tp_coll_key("0", TP_COLL_ALL_REDUCE) != tp_coll_key("0", TP_COLL_ALL_GATHER));
    ck_assert(tp_coll_key("", TP_COLL_ALL_REDUCE) == tp_coll_key(NULL, TP_COLL_ALL_REDUCE));
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

START_TEST(queue_time_full)
{
    /* S1 stream 7's series: at >= 2 from 3 to 10 (7), >= 1 from -5 to 17 and
     * 20 to 28 and 29 to 36 (37), never >= 3 */
    int64_t in[] = {-5, 3, 20, 29}, out[] = {10, 17, 28, 36};
    tp_queue_point *p;
    tp_host = tp_core_host_api();
    ck_assert_int_eq(tp_queue_series(in, out, 4, TP_QUEUE_LEAVES_FIRST, &p), TP_OK);
    ck_assert_int_eq(tp_queue_time_at_least(p, 8, 2), 7);
    ck_assert_int_eq(tp_queue_time_at_least(p, 8, 1), 22 + 8 + 7);
    ck_assert_int_eq(tp_queue_time_at_least(p, 8, 3), 0);
    ck_assert_int_eq(tp_queue_time_at_least(p, 0, 1), 0);
    free(p);
}
END_TEST

START_TEST(nccl_payloads)
{
    tp_coll_payload p;
    const char *ar = "{\"NCCL communicator ID\": 7001, \"Message size [bytes]\": 1048576, "
                     "\"Reduction operation\": \"Sum\", \"Datatype\": \"ncclFloat32\"}";
    ck_assert_int_eq(tp_coll_payload_read(ar, strlen(ar), &p), 1);
    ck_assert(p.msg_bytes == 1048576 && p.nranks == -1);
    ck_assert_str_eq(p.comm, "7001");
    ck_assert_str_eq(p.dtype, "ncclFloat32");
    const char *init = "{\"NCCL communicator ID\": \"0x1b\", \"No. of ranks\": 8, \"Rank\": 3}";
    ck_assert_int_eq(tp_coll_payload_read(init, strlen(init), &p), 1);
    ck_assert(p.msg_bytes == -1 && p.nranks == 8);
    ck_assert_str_eq(p.comm, "0x1b");
    const char *other = "{\"In msg nelems\": 4, \"Message size [bytes]\": -1}";
    ck_assert_int_eq(tp_coll_payload_read(other, strlen(other), &p), 0);
    ck_assert_int_eq(tp_coll_payload_read(NULL, 0, &p), 0);
    ck_assert(tp_coll_arg_count(other, strlen(other), "In msg nelems") == 4);
    const char *real = "{\"Group size\": 8.0}";
    ck_assert(tp_coll_arg_count(real, strlen(real), "Group size") == 8);
}
END_TEST

START_TEST(cupti_vocabulary)
{
    size_t n;
    const char *const *c = tp_cupti_flop_counters(&n);
    ck_assert_uint_eq(n, 9);
    ck_assert_str_eq(c[0], "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum");
    ck_assert_str_eq(c[8], "smsp__sass_thread_inst_executed_op_dadd_pred_on.sum");
    ck_assert(tp_cupti_is_range_cat("cuda_profiler_range", 19));
    ck_assert(!tp_cupti_is_range_cat("cuda_profiler_rang", 18));
    ck_assert(!tp_cupti_is_range_cat("kernel", 6));
    ck_assert_str_eq(tp_cupti_range_cat(), "cuda_profiler_range");
    const char *const yes[] = {"dram__bytes_read.sum", "sm__cycles_elapsed.avg",
                                      c[0], "l1tex__t_bytes.sum.per_second"};
    static const char *const no[] = {"device", "stream", "grid", "bytes", "__x.sum", "Dram__a.b",
                                     "dram__bytes", "dram__.sum", "dram__a.", "dram_bytes.sum"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++)
        ck_assert_msg(tp_cupti_is_counter_name(yes[i], strlen(yes[i])), "%s", yes[i]);
    for (size_t i = 0; i < sizeof no / sizeof *no; i++)
        ck_assert_msg(!tp_cupti_is_counter_name(no[i], strlen(no[i])), "%s", no[i]);
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
    tcase_add_test(tc, matching_key);
    tcase_add_test(tc, queue_series);
    tcase_add_test(tc, link_peaks);
    tcase_add_test(tc, queue_time_full);
    tcase_add_test(tc, nccl_payloads);
    tcase_add_test(tc, cupti_vocabulary);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_coll_suite)
