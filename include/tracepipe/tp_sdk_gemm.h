/*
 * tracepipe SDK: FLOPs and bytes of a PyTorch matrix product from its
 * "Input Dims" and "Input type" args (ANALYSES.md section 4, TraceLens'
 * convention): the one home gemm_throughput, gemm_kernels and predict
 * count them from.
 */
#ifndef TRACEPIPE_TP_SDK_GEMM_H
#define TRACEPIPE_TP_SDK_GEMM_H

#include <stddef.h>
#include <stdint.h>
#include "tp_plugin.h"

struct tp_hier_view; /* tp_sdk_hier.h */

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

/* One call's counts, from its row's args: "Input Dims" (or the older
 * "Input dims") and "Input type". */
typedef struct tp_gemm_call {
    tp_gemm_shape shape;
    double flops, elems, bpe; /* bytes moved = elems * bpe */
    const char *dims;         /* the Input Dims text in the args (dims_len bytes) */
    size_t dims_len;
} tp_gemm_call;

/* 1 when row of t is a product call: a cpu op named as tp_gemm_is_name
 * knows, whose dims tp_gemm_counts understands (fills *k); else 0. */
int tp_gemm_call_read(tp_stage *st, const tp_trace *t, size_t row, tp_gemm_call *k);

/* The same from an op's name and args (JSON text of alen bytes), e.g. the
 * capturing op of a graph replay (tp_graph_op_args): 1 and *k filled when
 * name is a product op with understood dims, else 0. */
int tp_gemm_call_parse(const char *name, const char *args, size_t alen, tp_gemm_call *k);

/* The roles of product calls (CONVENTIONS, "a kernel's op": FLOPs and bytes
 * belong to the GEMM kernels of the innermost product op).  A PRODUCT is a
 * product call holding no other in its subtree (aten::addmm, aten::mm);
 * a WRAPPER holds one (aten::linear -> aten::addmm, aten::matmul ->
 * aten::bmm): it aggregates its products' work, and what it launches beside
 * them (a bias add, a copy) carries no FLOPs. */
enum { TP_GEMM_NONE = 0, TP_GEMM_PRODUCT = 1, TP_GEMM_WRAPPER = 2 };

/* Fills role[0, n) (one byte per row of t) with the roles above, from
 * hierarchy's view v.  TP_OK or TP_ENOMEM. */
int tp_gemm_roles(tp_stage *st, const tp_trace *t, const struct tp_hier_view *v, uint8_t *role);

/* The innermost product call (PRODUCT or WRAPPER) at or above row x, or
 * -1 (also for x = -1). */
int32_t tp_gemm_call_at(const struct tp_hier_view *v, const uint8_t *role, int32_t x);

/* The innermost product call above activity a's launch, or -1. */
int32_t tp_gemm_call_above(const struct tp_hier_view *v, const uint8_t *role, size_t a);

/* The product whose FLOPs and bytes activity a carries: the innermost
 * product call above its launch when that is a PRODUCT; -1 when there is
 * none or it is a WRAPPER (a kernel the wrapper launched beside its
 * products: no FLOPs). */
int32_t tp_gemm_owner(const struct tp_hier_view *v, const uint8_t *role, size_t a);

#ifdef __cplusplus
}
#endif

#endif
