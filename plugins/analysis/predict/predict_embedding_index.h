/*
 * The embedding ops of one trace, for predict (predict_embedding.c).
 */
#ifndef TP_PREDICT_EMBEDDING_INDEX_H
#define TP_PREDICT_EMBEDDING_INDEX_H

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

#include "predict_embedding.h"
#include "predict_models.h"

enum { PE_FORWARD = 1, PE_BACKWARD = 2 };

typedef struct pe_options {
    const char *forward;  /* a part of forward lookups' names */
    const char *backward; /* a part of backward nodes' names */
    int64_t embedding_dim, rows_per_block; /* 0: from the trace */
    double l2_gbps;                        /* 0: the preset's */
} pe_options;

typedef struct pe_op {
    int32_t row, pair; /* pair: a backward's forward (index in op[]), or -1 */
    int role, ok;      /* ok: the shapes have fbgemm's form */
    char optimizer[48];
    pe_shape shape;     /* backward: B only */
    int64_t total_d;    /* from the backward's gradient [B, total_D]; 0 unknown */
    int64_t rows_per_block, longest_ns; /* of the op's longest kernel */
} pe_op;

typedef struct pe_index {
    pe_op *op;
    size_t n;
    int32_t *slot; /* per trace row: index in op[], or -1 */
} pe_index;

/* The model inputs an op was predicted with (for the embedding result). */
typedef struct pe_emb_inputs {
    int64_t B, E, T, L, D, R;
    int shmem;
} pe_emb_inputs;

int pe_index_build(tp_stage *st, const tp_trace *t, const tp_hier_view *v, const pe_options *o,
                   pe_index *ix);
void pe_index_free(pe_index *ix);

/* Row's model ("fwd", "sgd", "adagrad") and its prediction per call; NULL
 * when row is not an embedding op, or, with why set, when it is one the
 * models cannot take. */
const char *pe_predict(const pe_index *ix, size_t row, const pe_options *o, const tp_preset *p,
                       pe_emb_inputs *x, double *us, char *why, size_t whysz);

#endif
