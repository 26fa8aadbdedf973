/* Analysis gemm_kernels (gemm_kernels.c), a second stage of the
 * gemm_throughput plugin: matrix-product kernels sized by their arguments. */
#ifndef GEMM_KERNELS_H
#define GEMM_KERNELS_H
#include <tracepipe/tp_plugin.h>

typedef struct gk_config {
    tp_intlist kernel_args;
    const char *kernel_match;
} gk_config;

extern const tp_option gk_options[];
int gk_init(tp_stage *st, const void *config, void **state);
int gk_run(tp_stage *st, const void *config, void *state);

#define GT_KERNELS_STAGE                                                                         \
    TP_STAGE_FULL(TP_STAGE_ANALYSIS, "gemm_kernels",                                             \
                  "matrix-product kernels sized by their arguments (OpenCL CLBlast Xgemm*): "    \
                  "M, N, K, FLOPs, achieved TFLOP/s",                                            \
                  gk_options, gk_config, NULL, TP_PRODUCES(""), 0, gk_init, gk_run, NULL)
#endif
