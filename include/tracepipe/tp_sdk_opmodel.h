/*
 * tracepipe SDK: FLOP and byte counts of the ops beyond matrix products
 * (issue 27): scaled-dot-product / flash attention forward and backward
 * (causal, GQA/MQA), convolution forward and backward, layer / group /
 * batch / RMS norm forward and backward, element-wise ops and reductions by
 * the bytes of their tensors, embedding bags and index_select; and the
 * category of an op (GEMM, attention, MoE, norm, conv, element-wise,
 * communication, other).  The formulas are docs/plugins/predict.md's
 * ("Models of today's ops"), TraceLens's where it has one
 * (TraceLens/PerfModel/perf_model.py); tests/tools/check_models.py is an
 * independent Python version of each.
 */
#ifndef TRACEPIPE_TP_SDK_OPMODEL_H
#define TRACEPIPE_TP_SDK_OPMODEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Categories of ops, for coverage and accuracy per category. */
typedef enum tp_op_category {
    TP_OPCAT_GEMM = 0,
    TP_OPCAT_ATTENTION,
    TP_OPCAT_MOE,
    TP_OPCAT_NORM,
    TP_OPCAT_CONV,
    TP_OPCAT_ELEMENTWISE,
    TP_OPCAT_COMMUNICATION,
    TP_OPCAT_OTHER,
    TP_OPCAT_N
} tp_op_category;

/* "gemm", "attention", "moe", "norm", "conv", "elementwise",
 * "communication", "other". */
const char *tp_op_category_name(tp_op_category c);

/* The category of an op by its name (aten::, autograd nodes, custom ops):
 * communication when the collectives' vocabulary v matches the name
 * (nccl:all_reduce; a pipeline's `vocabulary: collectives` additions
 * reach it through tp_vocab_get); the caller also makes an op
 * communication when it owns a collective kernel (record_param_comms,
 * c10d::allreduce_).  tp_op_category_of uses the built-in vocabulary. */
struct tp_vocab;
tp_op_category tp_op_category_in(const struct tp_vocab *v, const char *name);
tp_op_category tp_op_category_of(const char *name);

/* One call's counts. */
typedef struct tp_op_cost {
    const char *model;  /* attention_fwd, attention_bwd, conv_fwd, conv_bwd, norm_fwd, norm_bwd,
                         * elementwise_bytes, embedding_bag, gather_bytes, tensor_list_bytes */
    tp_op_category category;
    double flops, bytes;
    double bpe;         /* bytes per element of the op's compute type */
    int bf16;           /* its compute type is bfloat16 */
    int matrix;         /* runs at the tensor-core rate of its type (else the FP32 rate) */
    const char *why;    /* when tp_op_cost_of returns 0 for an op a model knows: why its args
                         * do not say enough (static text), else NULL */
} tp_op_cost;

/* The counts of a call of op `name` from its row's args (raw JSON object
 * text: "Input Dims", "Input type", "Concrete Inputs"): 1 and *c filled,
 * or 0 when no model here takes the op or its args do not say enough
 * (a causal attention with N_Q != N_KV, a variable-length attention, a
 * tensor list without shapes ...). */
int tp_op_cost_of(const char *name, const char *args, size_t len, tp_op_cost *c);

#ifdef __cplusplus
}
#endif

#endif
