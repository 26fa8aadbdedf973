/* Analysis gemm_kernels (gemm_kernels.c), a second stage of the
 * gemm_throughput plugin: matrix-product kernels sized by their arguments. */
#ifndef GEMM_KERNELS_H
#define GEMM_KERNELS_H
#include <tracepipe/tp_plugin.h>

typedef struct gk_config {
    tp_intlist kernel_args;
    const char *kernel_match;
} gk_config;

/* PyTorch traces: per kernel name, the FLOPs and bytes of the GEMM calls
 * that launched its kernels, each call's spread over its kernels in
 * proportion to their durations (gemm_throughput.c). */
typedef struct gt_kernel_sum {
    tp_str name;
    int64_t count, sum_ns;
    double flop, bytes;
} gt_kernel_sum;
int gt_kernel_shares(tp_stage *st, const tp_trace *t, gt_kernel_sum **out, size_t *nout);

extern const tp_option gk_options[];
/* The declared result: gk_results without kernel_args, as gk_results_for
 * gives it for a config. */
extern const tp_result_decl gk_results[];
const tp_result_decl *gk_results_for(const void *config);
int gk_init(tp_stage *st, const void *config, void **state);
int gk_run(tp_stage *st, const void *config, void *state);

#define GT_KERNELS_STAGE                                                                         \
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "gemm_kernels",                                             \
                  "matrix-product kernels: FLOPs, bytes and achieved TFLOP/s per kernel, from "  \
                  "their GEMM ops (PyTorch) or their arguments (OpenCL CLBlast Xgemm*)",        \
                  gk_options, gk_config, "hierarchy", gk_results, gk_results_for, 0, gk_init,   \
                  gk_run, NULL)
#endif
