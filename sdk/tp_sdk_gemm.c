/* SDK: GEMM FLOP and byte counts from shapes (tp_sdk_gemm.h). */
#include <tracepipe/tp_sdk_gemm.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_json.h>
#include <tracepipe/tp_sdk_coll.h>

#include <string.h>
#include <tracepipe/tp_sdk_hier.h>

int tp_gemm_parse_dims(const char *v, size_t len, tp_gemm_shape *s)
{
    tp_json_iter outer, inner;
    const char *e, *d;
    size_t elen, dlen;
    memset(s, 0, sizeof *s);
    if (tp_json_array(v, len, &outer) != TP_OK)
        return 0;
    while (tp_json_next(&outer, &e, &elen) == 1) {
        if (s->n == TP_GEMM_MAX_IN || tp_json_array(e, elen, &inner) != TP_OK)
            return 0;
        int r = 0;
        while (tp_json_next(&inner, &d, &dlen) == 1) {
            int64_t x;
            if (r == TP_GEMM_MAX_RANK || tp_json_i64(d, dlen, &x) != TP_OK)
                return 0;
            s->dim[s->n][r++] = (double)x;
        }
        s->rank[s->n++] = r;
    }
    return 1;
}

double tp_gemm_bpe_of(const char *v, size_t len)
{
    tp_json_iter it;
    const char *e;
    size_t elen;
    char t[64] = "";
    if (v && tp_json_array(v, len, &it) == TP_OK && tp_json_next(&it, &e, &elen) == 1)
        tp_json_str(e, elen, t, sizeof t);
    double b = tp_dtype_bpe(t); /* the one table (tp_sdk_coll.h) */
    return b > 0 ? b : 4;       /* a scalar or what is not given: float */
}

double tp_gemm_prod(const double *d, int n)
{
    double p = 1;
    for (int i = 0; i < n; i++)
        p *= d[i];
    return p;
}

/* matmul's rule: 1-D operands promoted, leading dims broadcast. */
static int matmul_counts(const tp_gemm_shape *s, double *flops, double *elems)
{
    int ra = s->rank[0], rb = s->rank[1];
    const double *a = s->dim[0], *b = s->dim[1];
    if (ra == 1 && rb == 1) {
        *flops = 2 * a[0];
        *elems = a[0] + b[0] + 1;
        return 1;
    }
    double M = ra == 1 ? 1 : a[ra - 2], K = a[ra - 1], N = rb == 1 ? 1 : b[rb - 1];
    int la = ra > 2 ? ra - 2 : 0, lb = rb > 2 ? rb - 2 : 0, l = la > lb ? la : lb;
    double nb = 1;
    for (int i = 0; i < l; i++) { /* right-aligned broadcast */
        double x = i < la ? a[la - 1 - i] : 1, y = i < lb ? b[lb - 1 - i] : 1;
        nb *= x > y ? x : y;
    }
    *flops = nb * 2 * M * N * K;
    *elems = tp_gemm_prod(a, ra) + tp_gemm_prod(b, rb) + nb * M * N;
    return 1;
}

int tp_gemm_counts(const char *op, const tp_gemm_shape *s, double *flops, double *elems)
{
    if (strcmp(op, "aten::mm") == 0 && s->n >= 2 && s->rank[0] == 2 && s->rank[1] == 2) {
        double M = s->dim[0][0], K = s->dim[0][1], N = s->dim[1][1];
        *flops = 2 * M * N * K;
        *elems = M * K + K * N + M * N;
        return 1;
    }
    if (strcmp(op, "aten::addmm") == 0 && s->n >= 3 && s->rank[1] == 2 && s->rank[2] == 2) {
        double M = s->dim[1][0], K = s->dim[1][1], N = s->dim[2][1];
        *flops = 2 * M * N * K + M * N;
        *elems = M * K + K * N + M * N + N;
        return 1;
    }
    if (strcmp(op, "aten::bmm") == 0 && s->n >= 2 && s->rank[0] == 3 && s->rank[1] == 3) {
        double b = s->dim[0][0], M = s->dim[0][1], K = s->dim[0][2], N = s->dim[1][2];
        *flops = b * 2 * M * N * K;
        *elems = b * (M * K + K * N + M * N);
        return 1;
    }
    if (strcmp(op, "aten::baddbmm") == 0 && s->n >= 3 && s->rank[1] == 3 && s->rank[2] == 3) {
        double b = s->dim[1][0], M = s->dim[1][1], K = s->dim[1][2], N = s->dim[2][2];
        *flops = b * (2 * M * N * K + M * N);
        *elems = b * (M * K + K * N + M * N + N);
        return 1;
    }
    if (strcmp(op, "aten::linear") == 0 && s->n >= 2 && s->rank[0] >= 1 && s->rank[1] == 2) {
        int r = s->rank[0];
        double M = tp_gemm_prod(s->dim[0], r - 1), K = s->dim[0][r - 1], N = s->dim[1][0];
        int bias = s->n >= 3 && s->rank[2] >= 1;
        *flops = 2 * M * N * K + (bias ? M * N : 0);
        *elems = M * K + N * K + M * N + (bias ? N : 0);
        return 1;
    }
    if (strcmp(op, "aten::matmul") == 0 && s->n >= 2 && s->rank[0] >= 1 && s->rank[1] >= 1)
        return matmul_counts(s, flops, elems);
    return 0;
}

int tp_gemm_is_name(const char *n)
{
    static const char *const ops[] = {"aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm",
                                      "aten::linear", "aten::matmul"};
    for (size_t i = 0; i < 6; i++)
        if (strcmp(n, ops[i]) == 0)
            return 1;
    return 0;
}

int tp_gemm_call_parse(const char *name, const char *args, size_t alen, tp_gemm_call *k)
{
    size_t tlen = 0;
    if (name == NULL || args == NULL || !tp_gemm_is_name(name))
        return 0;
    k->dims = tp_json_get(args, alen, "Input Dims", &k->dims_len);
    if (k->dims == NULL)
        k->dims = tp_json_get(args, alen, "Input dims", &k->dims_len);
    if (k->dims == NULL || !tp_gemm_parse_dims(k->dims, k->dims_len, &k->shape) ||
        !tp_gemm_counts(name, &k->shape, &k->flops, &k->elems))
        return 0;
    const char *types = tp_json_get(args, alen, "Input type", &tlen);
    k->bpe = tp_gemm_bpe_of(types, tlen);
    return 1;
}

int tp_gemm_call_read(tp_stage *st, const tp_trace *t, size_t row, tp_gemm_call *k)
{
    const tp_cols *c = tp_trace_cols(t);
    if (c->kind[row] != TP_KIND_CPU_OP)
        return 0;
    size_t alen = 0;
    const char *args = tp_trace_args(t, row, &alen);
    return tp_gemm_call_parse(tp_str_text(st, c->name[row]), args, alen, k);
}

/* Per name id: 1 a product op's name, 2 not (memo[0, n)). */
static uint8_t *product_names(tp_stage *st, size_t *n)
{
    *n = tp_str_count(st);
    uint8_t *memo = tp_malloc(*n ? *n : 1);
    for (size_t id = 0; memo && id < *n; id++) {
        const char *s = tp_str_text(st, (tp_str)id);
        memo[id] = s && tp_gemm_is_name(s) ? 1 : 2;
    }
    return memo;
}

int tp_gemm_roles(tp_stage *st, const tp_trace *t, const struct tp_hier_view *v, uint8_t *role)
{
    const tp_cols *c = tp_trace_cols(t);
    size_t nmemo;
    uint8_t *memo = product_names(st, &nmemo);
    if (memo == NULL)
        return TP_ENOMEM;
    memset(role, TP_GEMM_NONE, c->n);
    tp_gemm_call k;
    for (size_t i = 0; i < c->n; i++)
        if (c->kind[i] == TP_KIND_CPU_OP && c->name[i] < nmemo && memo[c->name[i]] == 1 &&
            tp_gemm_call_read(st, t, i, &k))
            role[i] = TP_GEMM_PRODUCT;
    tp_free(memo);
    /* every product call above another is a wrapper; a climb stops at a
     * wrapper already found (all above it are found too) */
    for (size_t i = 0; i < c->n; i++) {
        if (role[i] == TP_GEMM_NONE)
            continue;
        for (int32_t x = v->parent[i]; x >= 0 && role[x] != TP_GEMM_WRAPPER; x = v->parent[x])
            if (role[x] == TP_GEMM_PRODUCT)
                role[x] = TP_GEMM_WRAPPER;
    }
    return TP_OK;
}

int32_t tp_gemm_call_at(const struct tp_hier_view *v, const uint8_t *role, int32_t x)
{
    while (x >= 0 && role[x] == TP_GEMM_NONE)
        x = v->parent[x];
    return x;
}

int32_t tp_gemm_call_above(const struct tp_hier_view *v, const uint8_t *role, size_t a)
{
    return tp_gemm_call_at(v, role, v->launcher[a]);
}

int32_t tp_gemm_owner(const struct tp_hier_view *v, const uint8_t *role, size_t a)
{
    int32_t x = tp_gemm_call_above(v, role, a);
    return x >= 0 && role[x] == TP_GEMM_PRODUCT ? x : -1;
}
