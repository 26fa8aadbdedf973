/* SDK GEMM counts (tp_sdk_gemm.h): FLOPs and elements of each op from
 * hand-computed shapes, the "Input Dims" and "Input type" parsing. */
#include <string.h>

#include "tp_test.h"

#include <tracepipe/tp_sdk_gemm.h>

static tp_gemm_shape dims(const char *json)
{
    tp_gemm_shape s;
    ck_assert_int_eq(tp_gemm_parse_dims(json, strlen(json), &s), 1);
    return s;
}

static void counts(const char *op, const char *json, double flops, double elems)
{
    tp_gemm_shape s = dims(json);
    double f = -1, e = -1;
    ck_assert_msg(tp_gemm_counts(op, &s, &f, &e) == 1, "%s %s: not understood", op, json);
    ck_assert_msg(f == flops && e == elems, "%s %s: %g flops %g elems, want %g %g", op, json, f, e,
                  flops, elems);
}

START_TEST(parse_dims)
{
    tp_gemm_shape s = dims("[[64, 128], [128, 256], []]");
    ck_assert_int_eq(s.n, 3);
    ck_assert_int_eq(s.rank[0], 2);
    ck_assert_int_eq(s.rank[2], 0);
    ck_assert(s.dim[0][0] == 64 && s.dim[0][1] == 128 && s.dim[1][1] == 256);
    ck_assert_int_eq(tp_gemm_parse_dims("[[1, 2.5]]", 10, &s), 0);        /* not an integer */
    ck_assert_int_eq(tp_gemm_parse_dims("{}", 2, &s), 0);                 /* not an array */
    ck_assert_int_eq(tp_gemm_parse_dims("[[1,2,3,4,5,6,7,8,9]]", 21, &s), 0); /* rank > 8 */
    const double d[] = {2, 3, 7};
    ck_assert(tp_gemm_prod(d, 3) == 42 && tp_gemm_prod(d, 0) == 1);
}
END_TEST

START_TEST(flops_and_elements_per_op)
{
    /* mm: M=64 K=128 N=256: 2*M*N*K = 4194304; M*K + K*N + M*N = 8192 + 32768 + 16384 */
    counts("aten::mm", "[[64, 128], [128, 256]]", 4194304, 57344);
    /* addmm (bias, a, b): + M*N flops and + N elements */
    counts("aten::addmm", "[[256], [64, 128], [128, 256]]", 4194304 + 16384, 57344 + 256);
    /* bmm: b=4 M=2 K=3 N=5: 4*2*2*5*3 = 240; 4*(6 + 15 + 10) = 124 */
    counts("aten::bmm", "[[4, 2, 3], [4, 3, 5]]", 240, 124);
    /* baddbmm: 4*(60 + 10) = 280; 4*(31 + 5) = 144 */
    counts("aten::baddbmm", "[[4, 2, 5], [4, 2, 3], [4, 3, 5]]", 280, 144);
    /* linear x[8,16,32] w[64,32] b[64]: M=128 K=32 N=64: 2*128*64*32 + 128*64 = 532480;
     * 4096 + 2048 + 8192 + 64 */
    counts("aten::linear", "[[8, 16, 32], [64, 32], [64]]", 532480, 14400);
    counts("aten::linear", "[[8, 16, 32], [64, 32]]", 524288, 14336); /* no bias */
    /* matmul [2,1,4,3] x [5,3,6]: batch broadcast 2*5 = 10, M=4 K=3 N=6: 10*2*4*6*3 = 1440;
     * 24 + 90 + 10*24 */
    counts("aten::matmul", "[[2, 1, 4, 3], [5, 3, 6]]", 1440, 354);
    counts("aten::matmul", "[[7], [7]]", 14, 15); /* dot product: 2*K, K + K + 1 */
    /* not understood: another op, or the wrong ranks */
    tp_gemm_shape s = dims("[[64, 128], [128, 256]]");
    double f, e;
    ck_assert_int_eq(tp_gemm_counts("aten::add", &s, &f, &e), 0);
    ck_assert_int_eq(tp_gemm_counts("aten::bmm", &s, &f, &e), 0);
    ck_assert_int_eq(tp_gemm_is_name("aten::baddbmm"), 1);
    ck_assert_int_eq(tp_gemm_is_name("aten::conv2d"), 0);
}
END_TEST

START_TEST(bytes_per_element_of_the_first_type)
{
#define BPE(j) tp_gemm_bpe_of(j, strlen(j))
    ck_assert(BPE("[\"c10::Half\", \"c10::Half\"]") == 2);
    ck_assert(BPE("[\"BFloat16\"]") == 2);
    ck_assert(BPE("[\"c10::Float8_e4m3fn\"]") == 1);
    ck_assert(BPE("[\"double\"]") == 8);
    ck_assert(BPE("[\"bool\"]") == 1); /* was 4: one table now (tp_dtype_bpe) */
    ck_assert(BPE("[\"float\", \"double\"]") == 4); /* the first input's */
    ck_assert(BPE("[]") == 4);
    ck_assert(tp_gemm_bpe_of(NULL, 0) == 4);
#undef BPE
}
END_TEST

static Suite *sdk_gemm_suite(void)
{
    Suite *s = suite_create("sdk_gemm");
    TCase *tc = tcase_create("gemm");
    tcase_add_test(tc, parse_dims);
    tcase_add_test(tc, flops_and_elements_per_op);
    tcase_add_test(tc, bytes_per_element_of_the_first_type);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_gemm_suite)
