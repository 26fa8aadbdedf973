/* SDK statistics and kernel semantics against ANALYSES.md's vectors (K1, V1,
 * the seed-001 legend, S1's kernel types) and hand-made forests. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tp_test.h"

#include <tracepipe/tp_sdk_stats.h>
#include <tracepipe/tp_sdk_trace.h>

START_TEST(stats_vector_k1)
{
    tp_host = tp_core_host_api();
    double v[] = {3, 5, 10, 2};
    tp_stats s;
    ck_assert_int_eq(tp_stats_of(v, 4, &s), TP_OK);
    ck_assert_uint_eq(s.count, 4);
    ck_assert(s.sum == 20 && s.mean == 5 && s.min == 2 && s.max == 10);
    ck_assert(s.std == 3.082207001484488);
    ck_assert(s.std_sample == 3.559026084010437);
    ck_assert(s.p50 == 4);
    ck_assert(s.p90 == 8.5);
    ck_assert(s.p99 == 9.849999999999998); /* numpy's lerp from the upper end, to the bit */
    ck_assert(tp_percentile_sorted(v, 4, 25) == 2.75);
    ck_assert(tp_percentile_sorted(v, 4, 75) == 6.25);
    ck_assert_int_eq(tp_stats_of(v, 0, &s), TP_OK);
    ck_assert(s.count == 0 && isnan(s.mean) && isnan(s.p99));
}
END_TEST

/* The convention: below two samples nothing varies (std, std_sample and CV
 * null, never 0), while count, sum, mean, min, max and every percentile are
 * numpy's (one value is its own p50 and p99). */
START_TEST(stats_one_sample_null_spread)
{
    tp_host = tp_core_host_api();
    double one[] = {7};
    tp_stats s;
    ck_assert_int_eq(tp_stats_of(one, 1, &s), TP_OK);
    ck_assert(s.count == 1 && s.sum == 7 && s.mean == 7 && s.min == 7 && s.max == 7);
    ck_assert(isnan(s.std) && isnan(s.std_sample));
    ck_assert(s.p50 == 7 && s.p90 == 7 && s.p99 == 7);
    ck_assert(isnan(tp_cv_percent(one, 1)));
    double two[] = {4, 6}; /* mean 5, population std 1, sample std sqrt(2) */
    ck_assert_int_eq(tp_stats_of(two, 2, &s), TP_OK);
    ck_assert(s.std == 1 && s.std_sample == sqrt(2.0));
    ck_assert(tp_cv_percent(two, 2) == 20);
}
END_TEST

/* numpy's medians: an even count's is the mean of the two middles (never
 * the upper one): [1,2,3,4] -> 2.5, [3,5,10,2] -> 4, [9] -> 9, [] -> NaN. */
START_TEST(median_even_count_numpy)
{
    tp_host = tp_core_host_api();
    double a[] = {4, 1, 3, 2}, b[] = {3, 5, 10, 2}, c[] = {9}, m;
    ck_assert_int_eq(tp_median_of(a, 4, &m), TP_OK);
    ck_assert(m == 2.5);
    ck_assert(a[0] == 1 && a[3] == 4); /* sorted in place */
    ck_assert(tp_percentile_sorted(a, 4, 50) == 2.5);
    ck_assert_int_eq(tp_median_of(b, 4, &m), TP_OK);
    ck_assert(m == 4);
    ck_assert_int_eq(tp_median_of(c, 1, &m), TP_OK);
    ck_assert(m == 9);
    ck_assert_int_eq(tp_median_of(c, 0, &m), TP_OK);
    ck_assert(isnan(m));
    /* 0.1 and 0.2: np.median is (0.1 + 0.2) / 2 = 0.15000000000000002 */
    double d[] = {0.2, 0.1};
    ck_assert_int_eq(tp_median_of(d, 2, &m), TP_OK);
    ck_assert(m == (0.1 + 0.2) / 2);
}
END_TEST

/* Long lists are sorted by radix: the statistics must be those of a plain
 * sorted copy (sum in ascending order), bit for bit, with negatives, both
 * zeros, duplicates and a NaN (which falls back to the comparison sort). */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

START_TEST(stats_long_lists_radix)
{
    tp_host = tp_core_host_api();
    enum { N = 5003 };
    static double v[N], ref[N];
    uint64_t x = 88172645463325252u;
    for (int i = 0; i < N; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double d = (double)(x % 200000) / 7.0 - 9000.0;
        v[i] = i % 97 == 0 ? 0.0 : i % 89 == 0 ? -0.0 : i % 5 == 0 ? 12.5 : d;
        if (i % 1000 == 1)
            v[i] = 1e300 * (i % 2 ? 1 : -1);
    }
    memcpy(ref, v, sizeof v);
    qsort(ref, N, sizeof *ref, cmp_double);
    double sum = 0;
    for (int i = 0; i < N; i++)
        sum += ref[i];
    tp_stats s;
    ck_assert_int_eq(tp_stats_of(v, N, &s), TP_OK);
    ck_assert(s.sum == sum);
    ck_assert(s.min == ref[0] && s.max == ref[N - 1]);
    ck_assert(s.p50 == tp_percentile_sorted(ref, N, 50));
    ck_assert(s.p99 == tp_percentile_sorted(ref, N, 99));
    for (int i = 0; i < N; i++)
        ck_assert(v[i] == ref[i]);
    v[17] = NAN; /* no radix: still sorted, no crash */
    ck_assert_int_eq(tp_stats_of(v, N, &s), TP_OK);
}
END_TEST

START_TEST(cv_vector_v1)
{
    double a[] = {10, 12, 14}, b[] = {95, 95, 0}, z[] = {0, 0};
    ck_assert(tp_cv_percent(a, 3) == 13.608276348795433);
    ck_assert(tp_cv_percent(b, 3) == 70.71067811865476);
    ck_assert(tp_cv_percent(z, 2) == 0);
    ck_assert(isnan(tp_cv_percent(z, 0)));
    ck_assert(isnan(tp_cv_percent(a, 1))); /* one sample: null, not 0 */
}
END_TEST

START_TEST(kernel_legend_and_types)
{
    char buf[9];
    ck_assert_str_eq(tp_kernel_legend_seed("void splitKreduce_kernel", buf), "splitK");
    ck_assert_str_eq(tp_kernel_legend_seed("void gemmk1_kernel", buf), "gemm");
    ck_assert_str_eq(tp_kernel_legend_seed("index_elementwise_kernel", buf), "index_el");
    ck_assert_str_eq(tp_kernel_legend_seed("ab", buf), "ab");
    /* vector S1's types: C, C, COMM, MEMORY, C, COMM */
    ck_assert_int_eq(tp_kernel_class_of("volta_sgemm_128x64_nn"), TP_KCLASS_COMPUTATION);
    ck_assert_int_eq(tp_kernel_class_of("vectorized_elementwise_kernel"), TP_KCLASS_COMPUTATION);
    ck_assert_int_eq(tp_kernel_class_of("ncclKernel_AllReduce_RING_LL_Sum_float"),
                     TP_KCLASS_COMMUNICATION);
    ck_assert_int_eq(tp_kernel_class_of("Memcpy HtoD (Pageable -> Device)"), TP_KCLASS_MEMORY);
    ck_assert_int_eq(tp_kernel_class_of("reduce_kernel"), TP_KCLASS_COMPUTATION);
    /* modern NCCL, HIP copies (memory: HTA's "hip" prefix made them communication), waits
     * and launches (other) */
    ck_assert_int_eq(tp_kernel_class_of("ncclDevKernel_AllGather_RING_LL"), TP_KCLASS_COMMUNICATION);
    ck_assert_int_eq(tp_kernel_class_of("hipMemcpyAsync"), TP_KCLASS_MEMORY);
    ck_assert_int_eq(tp_kernel_class_of("void foo_ncclKernel_bar"), TP_KCLASS_COMMUNICATION);
    ck_assert_int_eq(tp_kernel_class_of("Stream Wait Event"), TP_KCLASS_OTHER);
    ck_assert_int_eq(tp_kernel_class_of("cudaLaunchKernel"), TP_KCLASS_OTHER);
    ck_assert_int_eq(tp_kernel_class_of("dma_copy"), TP_KCLASS_MEMORY);
    ck_assert_int_eq(tp_kernel_class_of("CudaEventSync"), TP_KCLASS_OTHER);
    ck_assert_str_eq(tp_kernel_class_name(TP_KCLASS_MEMORY), "memory");
    size_t from, len = tp_kernel_short_name("void at::native::vectorized_elementwise_kernel<4, "
                                            "at::native::X>(int)", &from);
    ck_assert_uint_eq(len, strlen("vectorized_elementwise_kernel"));
    ck_assert_uint_eq(from, strlen("void at::native::"));
    len = tp_kernel_short_name("void gemmk1_kernel<int>", &from);
    ck_assert(from == 0 && len == strlen("void gemmk1_kernel"));
}
END_TEST

START_TEST(outermost_ops_skip_modules)
{
    /* rows: 0 ProfilerStep#1 (cpu op, a "module" by name), 1 ## fwd ##
     * (annotation), 2 aten::linear, 3 aten::addmm, 4 cudaLaunchKernel,
     * 5 aten::relu (root, no module above), 6 a kernel (outside the forest) */
    tp_host = tp_core_host_api();
    static const uint8_t kind[] = {TP_KIND_CPU_OP, TP_KIND_ANNOTATION, TP_KIND_CPU_OP,
                                   TP_KIND_CPU_OP, TP_KIND_RUNTIME, TP_KIND_CPU_OP,
                                   TP_KIND_KERNEL};
    static const tp_str name[] = {1, 2, 3, 4, 5, 6, 7};
    static const int32_t parent[] = {-1, 0, 1, 2, 3, -1, -1};
    static const uint8_t memo[] = {2, 1, 2, 2, 2, 2, 2, 2}; /* name 1 marked */
    tp_cols c;
    memset(&c, 0, sizeof c);
    c.n = 7;
    c.kind = kind;
    c.name = name;
    int32_t top[7], scratch[7];
    tp_outermost_ops(&c, parent, memo, 8, top, scratch);
    const int32_t want[] = {-1, -1, 2, 2, 2, 5, -1};
    for (int i = 0; i < 7; i++) {
        ck_assert_int_eq(top[i], want[i]);
        /* one row at a time, without memory: the same rule */
        ck_assert_int_eq(tp_outermost_op_of(&c, parent, memo, 8, i), want[i]);
    }
}
END_TEST

static Suite *sdk_stats_suite(void)
{
    Suite *s = suite_create("sdk_stats");
    TCase *tc = tcase_create("stats");
    tcase_add_test(tc, stats_vector_k1);
    tcase_add_test(tc, stats_one_sample_null_spread);
    tcase_add_test(tc, median_even_count_numpy);
    tcase_add_test(tc, stats_long_lists_radix);
    tcase_add_test(tc, cv_vector_v1);
    tcase_add_test(tc, kernel_legend_and_types);
    tcase_add_test(tc, outermost_ops_skip_modules);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_stats_suite)
