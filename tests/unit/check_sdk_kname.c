/* SDK kernel names (tp_sdk_kname.h): the library, type and tile real GEMM
 * kernels' names give (names from the corpus's traces: TraceLens's vLLM and
 * SGLang MI300X traces, its H100 BERT trace, its MI210 trace; a V100 one). */
#include <string.h>

#include "tp_internal.h"
#include "tp_test.h"

#include <tracepipe/tp_sdk_kname.h>

static void decoded(const char *name, const char *lib, const char *dtype, int m, int n, int d)
{
    tp_gemm_kname k;
    ck_assert_msg(tp_gemm_kernel_decode(name, &k) == 1, "%s", name);
    ck_assert_str_eq(k.library, lib);
    ck_assert_str_eq(k.dtype, dtype);
    ck_assert_msg(k.tile_m == m && k.tile_n == n && k.tile_k == d, "%s: %dx%dx%d", name,
                  k.tile_m, k.tile_n, k.tile_k);
}

START_TEST(gemm_kernel_names)
{
    decoded("Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT320x224x64_MI16x16x1_SN_LDSB0_AFC1",
            "tensile", "bf16", 320, 224, 64);
    decoded("Cijk_Ailk_Bljk_HHS_BH_MT128x128x32_MI32x32x8x1_SN_1LDSB0", "tensile", "fp16", 128,
            128, 32);
    decoded("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_warpgroupsize1x1x1_"
            "execute_segment_k_off_kernel__5x_cublas",
            "cublas", "bf16", 64, 64, 64);
    decoded("void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2>"
            "(cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align2::Params)",
            "cutlass", "bf16", 256, 128, 0);
    decoded("volta_sgemm_128x64_nn", "cublas", "fp32", 128, 64, 0);
    decoded("nvjet_mxf4_tst_256x128_64x4", "cublas", "fp4", 256, 128, 0);
    decoded("igemm_fwd_gtcx2_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2", "miopen",
            "bf16", 128, 128, 32);
    decoded("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_32x6_tn_align4>", "cutlass",
            "tf32", 64, 64, 0);
    tp_gemm_kname k;
    ck_assert_int_eq(tp_gemm_kernel_decode("void fbgemm_gpu::permute_2D_lengths_kernel<int>", &k),
                     0);
    ck_assert_int_eq(tp_gemm_kernel_decode("void at::native::vectorized_elementwise_kernel<4>", &k),
                     0);
    ck_assert_int_eq(tp_gemm_kernel_decode(NULL, &k), 0);
}
END_TEST

/* Devices that run TF32: NVIDIA from compute capability 8.0; never AMD
 * (an MI210's trace says 9.0). */
START_TEST(tf32_devices)
{
    ck_assert_int_eq(tp_device_runs_tf32("NVIDIA A100-PG509-200", "8.0"), 1);
    ck_assert_int_eq(tp_device_runs_tf32("NVIDIA H100 80GB HBM3", "9.0"), 1);
    ck_assert_int_eq(tp_device_runs_tf32(NULL, "8.6"), 1);
    ck_assert_int_eq(tp_device_runs_tf32("Tesla V100-SXM2-32GB", "7.0"), 0);
    ck_assert_int_eq(tp_device_runs_tf32("AMD Instinct MI210", "9.0"), 0);
    ck_assert_int_eq(tp_device_runs_tf32("NVIDIA A100", NULL), 0);
    ck_assert_int_eq(tp_device_runs_tf32("NVIDIA A100", "unknown"), 0);
    ck_assert_int_eq(tp_device_runs_tf32("NVIDIA A100", "10.0"), 1);
}
END_TEST

static Suite *sdk_kname_suite(void)
{
    Suite *s = suite_create("sdk_kname");
    TCase *tc = tcase_create("kname");
    tcase_add_test(tc, gemm_kernel_names);
    tcase_add_test(tc, tf32_devices);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_kname_suite)
