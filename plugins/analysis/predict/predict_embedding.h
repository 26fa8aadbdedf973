/*
 * fbgemm's table-batched embedding ops on a trace, mapped onto the
 * embedding models of ANALYSES.md 5.2-5.4 (issue 15).
 *
 * A forward lookup (fbgemm::split_embedding_codegen_lookup_<optimizer>_function,
 * fbgemm::dense_embedding_codegen_lookup_function) records its tensors'
 * shapes and types but no scalars, so the model inputs are read from the
 * shapes by their place in fbgemm's signature, found by type rather than by
 * position (the position moves between fbgemm versions):
 *
 *   D_offsets  the first 1-D int tensor followed by a Scalar (total_D): T + 1
 *   indices, offsets  the first two adjacent 1-D tensors of one integer
 *              type (long int or int): N indices, T*B + 1 offsets
 *   weights    the largest 1-D floating tensor before D_offsets (dev or UVM
 *              weights): the sum over tables of E*D
 *
 * so T = |D_offsets| - 1, B = (|offsets| - 1) / T, L = N / (T*B) rounded to
 * the nearest (at least 1). D is not in the forward's shapes: the backward
 * autograd node (CppNode<SplitLookupFunction_<optimizer>_Op>) receives the
 * output's gradient [B, total_D], so D = total_D / T (the tables' mean,
 * rounded down), else the option embedding_dim. E = weights / (T*D), rounded
 * down (tables of other sizes are averaged).
 *
 * Pure functions on parsed inputs here (tests/plugins/check_predict.c);
 * the trace walk is in predict_embedding.c.
 */
#ifndef TP_PREDICT_EMBEDDING_H
#define TP_PREDICT_EMBEDDING_H

#include <stdint.h>
#include <string.h>

#define PE_MAX_IN 64
#define PE_MAX_TABLES (1 << 20)        /* T */
#define PE_MAX_EXTENT ((int64_t)1 << 40) /* indices, offsets */
#define PE_MAX_BATCH ((int64_t)1 << 24)  /* B: the forward model loops over it */

/* One input of an op: its rank, first two extents, element count and type. */
typedef struct pe_input {
    int rank;
    int64_t d0, d1, elems;
    char type[32];
} pe_input;

/* What a forward lookup's shapes give. */
typedef struct pe_shape {
    int64_t T, B, L, weights;
} pe_shape;

static inline int pe_is_int_type(const char *t)
{
    return strcmp(t, "long int") == 0 || strcmp(t, "long") == 0 || strcmp(t, "int") == 0;
}

static inline int pe_is_float_type(const char *t)
{
    return strcmp(t, "float") == 0 || strcmp(t, "double") == 0 || strcmp(t, "c10::Half") == 0 ||
           strcmp(t, "c10::BFloat16") == 0 || strcmp(t, "unsigned char") == 0;
}

/* The model inputs a forward lookup's shapes give (above); 0 when they do
 * not have fbgemm's form. */
static inline int pe_forward_shape(const pe_input *in, int n, pe_shape *s)
{
    int doff = -1, idx = -1;
    for (int i = 0; i + 1 < n && doff < 0; i++)
        if (in[i].rank == 1 && strcmp(in[i].type, "int") == 0 && in[i + 1].rank == 0 &&
            strcmp(in[i + 1].type, "Scalar") == 0)
            doff = i;
    for (int i = doff + 1; doff >= 0 && i + 1 < n && idx < 0; i++)
        if (in[i].rank == 1 && in[i + 1].rank == 1 && pe_is_int_type(in[i].type) &&
            strcmp(in[i].type, in[i + 1].type) == 0)
            idx = i;
    /* extents a real table batch has (and no int64 overflow below) */
    if (doff < 0 || idx < 0 || in[doff].d0 < 2 || in[doff].d0 > PE_MAX_TABLES + 1 ||
        in[idx + 1].d0 > PE_MAX_EXTENT || in[idx].d0 > PE_MAX_EXTENT || in[idx].d0 < 0)
        return 0;
    s->T = in[doff].d0 - 1;
    s->weights = 0;
    for (int i = 0; i < doff; i++)
        if (in[i].rank == 1 && pe_is_float_type(in[i].type) && in[i].d0 > s->weights)
            s->weights = in[i].d0;
    int64_t offsets = in[idx + 1].d0;
    if (s->weights <= 0 || offsets < 1 + s->T || (offsets - 1) % s->T != 0)
        return 0;
    s->B = (offsets - 1) / s->T;
    s->L = (in[idx].d0 + s->T * s->B / 2) / (s->T * s->B);
    if (s->L < 1)
        s->L = 1;
    return 1;
}

/* The optimizer an op's name names, lower case, to pair a forward lookup
 * with its backward node: "..._lookup_adagrad_function" and
 * "CppNode<SplitLookupFunction_adagrad_Op>" give "adagrad";
 * "dense_embedding_codegen_lookup_function" and "..._Dense_Op>" give
 * "dense". 0 when the name has neither form. */
static inline int pe_optimizer_of(const char *name, char *out, size_t size)
{
    const char *a, *b;
    out[0] = '\0';
    if ((a = strstr(name, "LookupFunction_")) != NULL && (b = strstr(a, "_Op")) != NULL) {
        a += strlen("LookupFunction_");
    } else if ((a = strstr(name, "_lookup_")) != NULL &&
               (b = strstr(a + strlen("_lookup_"), "_function")) != NULL) {
        a += strlen("_lookup_");
    } else if ((b = strstr(name, "_embedding_codegen_lookup_function")) != NULL) {
        a = strrchr(name, ':'); /* "fbgemm::dense_embedding..." -> "dense" */
        a = a && a < b ? a + 1 : name;
    } else {
        return 0;
    }
    size_t n = (size_t)(b - a);
    if (n == 0 || n >= size)
        return 0;
    for (size_t i = 0; i < n; i++)
        out[i] = (char)(a[i] >= 'A' && a[i] <= 'Z' ? a[i] - 'A' + 'a' : a[i]);
    out[n] = '\0';
    return 1;
}

#endif
