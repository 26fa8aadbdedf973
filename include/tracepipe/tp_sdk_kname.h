/*
 * tracepipe SDK: what a GEMM kernel's name says (issue 27, kernels without
 * shapes).  GEMM libraries encode the element type and the tile a kernel
 * computes, never the problem's M, N, K:
 *
 *   Tensile / hipBLASLt  Cijk_Alik_Bljk_BBS_BH_..._MT256x192x64_MI16x16x1_...
 *                        (types: A/B then compute: B bf16, H fp16, S fp32,
 *                        D fp64, F8 fp8, I8 int8; MT macro tile M x N x depth)
 *   cuBLAS (xmma, nvjet) sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_...
 *   CUTLASS              cutlass_80_tensorop_bf16_s16816gemm_bf16_256x128_64x3_tn_align8
 *   cuBLAS (older)       volta_sgemm_128x64_nn, ampere_fp16_s16816gemm_fp16_128x128_...
 *   Composable Kernel    ...gemm...<ck::half_t, ...> (type only)
 *   MIOpen igemm         igemm_fwd_gtcx2_nhwc_bf16_..._bt128x128x32_... (a convolution)
 *
 * so a kernel without its op's shapes is never modelled from its name: the
 * decoded type and tile go into the reason it is not.
 */
#ifndef TRACEPIPE_TP_SDK_KNAME_H
#define TRACEPIPE_TP_SDK_KNAME_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_gemm_kname {
    const char *library; /* "tensile", "cublas", "cutlass", "ck", "miopen" (static) */
    const char *dtype;   /* "fp64", "fp32", "tf32", "fp16", "bf16", "fp8", "fp4", "int8"; "" */
    int tile_m, tile_n, tile_k; /* the tile the name gives (0: not given) */
} tp_gemm_kname;

/* 1 and *k filled when `name` is a GEMM (or implicit-GEMM convolution)
 * kernel of a library above, else 0. */
int tp_gemm_kernel_decode(const char *name, tp_gemm_kname *k);

/* 1 when a device runs TF32 products: an NVIDIA GPU of compute capability
 * 8.0 or later (Ampere on; `compute_capability` as "MAJOR.MINOR", a
 * reader's device.<N>.compute_capability), else 0.  An AMD device is never
 * one (its traces give the gfx major there, 9 on an MI210; PyTorch's
 * FP32MatMulPattern skips ROCm too): told by `device_name` (NULL: unknown,
 * taken as NVIDIA). */
int tp_device_runs_tf32(const char *device_name, const char *compute_capability);

#ifdef __cplusplus
}
#endif

#endif
