/*
 * tracepipe SDK: FLOPs and bytes of a PyTorch matrix product from its
 * "Input Dims" and "Input type" args (ANALYSES.md section 4, TraceLens'
 * convention): the one home gemm_throughput, gemm_kernels and predict
 * count them from.
 */
#ifndef TRACEPIPE_TP_SDK_GEMM_H
#define TRACEPIPE_TP_SDK_GEMM_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TP_GEMM_MAX_IN 8
#define TP_GEMM_MAX_RANK 8

/* The shapes of a call's inputs. */
typedef struct tp_gemm_shape {
    int n; /* inputs */
    int rank[TP_GEMM_MAX_IN];
    double dim[TP_GEMM_MAX_IN][TP_GEMM_MAX_RANK];
} tp_gemm_shape;

/* Parses "Input Dims" ([[64,128],[128,256]], raw JSON text of len bytes);
 * 0 when it is malformed or has more than TP_GEMM_MAX_IN inputs or
 * TP_GEMM_MAX_RANK dims, else 1. */
int tp_gemm_parse_dims(const char *v, size_t len, tp_gemm_shape *s);

/* Bytes per element of the first input's type in "Input type" (raw JSON
 * text, case-insensitive; v may be NULL): 1 float8*, 2 half/bfloat16,
 * 8 double/long int, else 4. */
double tp_gemm_bpe_of(const char *v, size_t len);

/* The product of d[0, n) (1 for n = 0): the elements of a tensor. */
double tp_gemm_prod(const double *d, int n);

/* FLOPs and elements moved of one call of op (aten::mm, addmm, bmm,
 * baddbmm, linear, matmul: mm is 2*M*N*K FLOPs and M*K + K*N + M*N
 * elements); 1, or 0 when the op or its dims are not understood. */
int tp_gemm_counts(const char *op, const tp_gemm_shape *s, double *flops, double *elems);

/* 1 when op is one of the GEMM ops tp_gemm_counts knows. */
int tp_gemm_is_name(const char *op);

#ifdef __cplusplus
}
#endif

#endif
