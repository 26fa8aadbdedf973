/* SDK, private to sdk/tp_sdk_opmodel*.c: an op call's args as the models
 * read them (shapes, types, Concrete Inputs) and the helpers they share;
 * the GEMM-family and sparse-feature models of tp_sdk_opmodel_gemm.c. */
#ifndef TP_SDK_OPMODEL_ARGS_H
#define TP_SDK_OPMODEL_ARGS_H

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_coll.h>
#include <tracepipe/tp_sdk_gemm.h>
#include <tracepipe/tp_sdk_json.h>
#include <tracepipe/tp_sdk_opmodel.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define OM_MAX_IN 40
#define OM_MAX_RANK 8

/* A call's args: per input its shape (rank -1: not a list of whole
 * numbers), its type and its concrete value as the trace writes them. */
typedef struct om_args {
    int n, ntypes, nconc;
    int rank[OM_MAX_IN];
    double dim[OM_MAX_IN][OM_MAX_RANK];
    char type[OM_MAX_IN][32];
    char conc[OM_MAX_IN][48];
    /* A tensor list's shapes as newer Kineto writes them ([[32], [32, 4]]):
     * its tensors' count (0: not a list of shapes, or an empty one, which
     * is how older Kineto writes every list) and their elements' sum. */
    int ltensors[OM_MAX_IN];
    double lnumel[OM_MAX_IN];
} om_args;

/* Input i's value v as a list of shapes: a->ltensors[i], a->lnumel[i]
 * (left 0 when an item is not a shape of whole numbers >= 0). */
static inline void om_list_dims(const char *v, size_t len, om_args *a, int i)
{
    tp_json_iter outer, inner;
    const char *e, *d;
    size_t elen, dlen;
    int count = 0;
    double sum = 0;
    if (tp_json_array(v, len, &outer) != TP_OK)
        return;
    while (tp_json_next(&outer, &e, &elen) == 1) {
        if (tp_json_array(e, elen, &inner) != TP_OK)
            return;
        double numel = 1;
        int64_t x;
        while (tp_json_next(&inner, &d, &dlen) == 1) {
            if (tp_json_i64(d, dlen, &x) != TP_OK || x < 0)
                return;
            numel *= (double)x;
        }
        count++, sum += numel;
    }
    a->ltensors[i] = count, a->lnumel[i] = sum;
}

static inline void om_dims(const char *v, size_t len, om_args *a)
{
    tp_json_iter outer, inner;
    const char *e, *d;
    size_t elen, dlen;
    if (v == NULL || tp_json_array(v, len, &outer) != TP_OK)
        return;
    while (a->n < OM_MAX_IN && tp_json_next(&outer, &e, &elen) == 1) {
        int r = 0, ok = tp_json_array(e, elen, &inner) == TP_OK;
        while (ok && tp_json_next(&inner, &d, &dlen) == 1) {
            int64_t x;
            ok = r < OM_MAX_RANK && tp_json_i64(d, dlen, &x) == TP_OK && x >= 0;
            if (ok)
                a->dim[a->n][r++] = (double)x;
        }
        if (!ok)
            om_list_dims(e, elen, a, a->n);
        a->rank[a->n++] = ok ? r : -1;
    }
}

/* The strings of a JSON array into out[i] (size 32 or 48), their count. */
static inline int om_strings(const char *v, size_t len, char *out, size_t size, int max)
{
    tp_json_iter it;
    const char *e;
    size_t elen;
    int n = 0;
    if (v == NULL || tp_json_array(v, len, &it) != TP_OK)
        return 0;
    while (n < max && tp_json_next(&it, &e, &elen) == 1) {
        char *o = out + (size_t)n * size;
        if (tp_json_str(e, elen, o, size) < 0)
            o[0] = '\0';
        n++;
    }
    return n;
}

static inline int om_read(const char *args, size_t len, om_args *a)
{
    size_t vlen;
    memset(a, 0, sizeof *a);
    const char *v = tp_json_get(args, len, "Input Dims", &vlen);
    if (v == NULL)
        v = tp_json_get(args, len, "Input dims", &vlen);
    om_dims(v, vlen, a);
    v = tp_json_get(args, len, "Input type", &vlen);
    a->ntypes = om_strings(v, vlen, &a->type[0][0], sizeof a->type[0], OM_MAX_IN);
    v = tp_json_get(args, len, "Concrete Inputs", &vlen);
    a->nconc = om_strings(v, vlen, &a->conc[0][0], sizeof a->conc[0], OM_MAX_IN);
    return a->n > 0;
}

/* Bytes per element of input i's type (the SDK's one table, tp_dtype_bpe;
 * float when unknown); bf16 set. */
static inline double om_bpe(const om_args *a, int i, int *bf16)
{
    const char *t = i < a->ntypes ? a->type[i] : "";
    double b = tp_dtype_bpe(t);
    if (bf16)
        *bf16 = strstr(t, "BFloat16") != NULL || strstr(t, "bfloat16") != NULL;
    return b > 0 ? b : 4;
}

static inline double om_numel(const om_args *a, int i)
{
    return i < a->n && a->rank[i] >= 0 ? tp_gemm_prod(a->dim[i], a->rank[i]) : 0;
}

/* A tensor input: a known shape of rank >= 1, or a 0-dim tensor (shape []
 * of a dtype: one element; a "Scalar", "" or "TensorList" is none). */
static inline int om_tensor(const om_args *a, int i)
{
    return i < a->n && (a->rank[i] >= 1 || (a->rank[i] == 0 && i < a->ntypes &&
                                             tp_dtype_bpe(a->type[i]) > 0));
}

/* Concrete input i is "True" (1), "False" (0), absent or other (-1). */
static inline int om_bool(const om_args *a, int i)
{
    if (i >= a->nconc)
        return -1;
    if (strcmp(a->conc[i], "True") == 0 || strcmp(a->conc[i], "true") == 0)
        return 1;
    if (strcmp(a->conc[i], "False") == 0 || strcmp(a->conc[i], "false") == 0)
        return 0;
    return -1;
}

/* Concrete input i as a whole number >= 0, or -1. */
static inline double om_count(const om_args *a, int i)
{
    char *end;
    if (i >= a->nconc || a->conc[i][0] == '\0')
        return -1;
    double x = strtod(a->conc[i], &end);
    return *end == '\0' && x >= 0 && x == floor(x) ? x : -1;
}

/* The bytes of input i as stored (0 when it is not a tensor). */
static inline double om_stored(const om_args *a, int i)
{
    return om_tensor(a, i) ? om_numel(a, i) * om_bpe(a, i, NULL) : 0;
}

/* tp_sdk_opmodel_gemm.c: _scaled_mm, _grouped_mm, _scaled_grouped_mm and
 * vLLM's fused experts; fbgemm's sparse-feature ops by bytes.  1 and *c
 * filled, else 0. */
int tp_om_gemm_family_cost(const char *name, const om_args *a, tp_op_cost *c);
int tp_om_sparse_cost(const char *name, const om_args *a, tp_op_cost *c);

#endif
