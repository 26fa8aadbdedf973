/*
 * fbgemm's embedding lookups on a trace (predict_embedding.h says how the
 * model inputs are read from the shapes): one walk finds the forward
 * lookups and backward nodes, their measured GPU time and the main
 * kernel's block.y (R, rows per block); each backward is paired with the
 * latest forward of its optimizer and batch before it that no other
 * backward took, which gives the forward its D.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

#include "predict_embedding_index.h"

/* Parses "Input Dims" and "Input type" of an op's args into in[]; the
 * number of inputs, or -1. */
static int parse_inputs(const char *args, size_t alen, pe_input *in, int max)
{
    size_t dlen = 0, tlen = 0;
    const char *dims = tp_json_get(args, alen, "Input Dims", &dlen);
    const char *types = tp_json_get(args, alen, "Input type", &tlen);
    tp_json_iter di, ti;
    if (dims == NULL || types == NULL || tp_json_array(dims, dlen, &di) != TP_OK ||
        tp_json_array(types, tlen, &ti) != TP_OK)
        return -1;
    const char *d, *t;
    size_t dl, tl;
    int n = 0;
    while (tp_json_next(&di, &d, &dl) == 1) {
        if (n == max || tp_json_next(&ti, &t, &tl) != 1)
            return -1;
        pe_input *x = &in[n++];
        memset(x, 0, sizeof *x);
        tp_json_str(t, tl, x->type, sizeof x->type);
        tp_json_iter ei;
        const char *e;
        size_t el;
        if (tp_json_array(d, dl, &ei) != TP_OK)
            return -1;
        x->elems = 1;
        while (tp_json_next(&ei, &e, &el) == 1) {
            int64_t v;
            if (tp_json_i64(e, el, &v) != TP_OK)
                return -1;
            if (x->rank == 0)
                x->d0 = v;
            else if (x->rank == 1)
                x->d1 = v;
            x->rank++;
            x->elems *= v;
        }
    }
    return n;
}

static int role_of(const char *name, const pe_options *o)
{
    if (o->forward[0] && strstr(name, o->forward))
        return PE_FORWARD;
    if (o->backward[0] && strstr(name, o->backward) && !strstr(name, "evaluate_function"))
        return PE_BACKWARD;
    return 0;
}

/* The op's entry from its args, or 0 when they do not have the form. */
static int read_op(const tp_trace *t, size_t row, int role, const char *name, pe_op *op)
{
    size_t alen = 0;
    const char *args = tp_trace_args(t, row, &alen);
    pe_input in[PE_MAX_IN];
    int n = args ? parse_inputs(args, alen, in, PE_MAX_IN) : -1;
    memset(op, 0, sizeof *op);
    op->row = (int32_t)row;
    op->role = role;
    op->pair = -1;
    if (!pe_optimizer_of(name, op->optimizer, sizeof op->optimizer) || n < 0)
        return 0;
    if (role == PE_FORWARD)
        return pe_forward_shape(in, n, &op->shape);
    if (n < 1 || in[0].rank != 2) /* the gradient of the output, [B, total_D] */
        return 0;
    op->shape.B = in[0].d0;
    op->total_d = in[0].d1;
    return 1;
}

/* block.y of a kernel: Nsight's extension column, or Kineto's args "block". */
static int64_t block_y(const tp_trace *t, size_t row, const int64_t *cells)
{
    if (cells) /* NULL: no column: the args then */
        return cells[row];
    size_t alen = 0, blen = 0;
    const char *args = tp_trace_args(t, row, &alen);
    const char *b = args ? tp_json_get(args, alen, "block", &blen) : NULL;
    tp_json_iter it;
    const char *e;
    size_t el;
    int64_t v = 0;
    if (b && tp_json_array(b, blen, &it) == TP_OK && tp_json_next(&it, &e, &el) == 1 &&
        tp_json_next(&it, &e, &el) == 1 && tp_json_i64(e, el, &v) == TP_OK)
        return v;
    return 0;
}

typedef struct by_ts_ctx {
    const pe_index *ix;
    const tp_cols *c;
} by_ts_ctx;

static int by_ts(const void *a, const void *b, void *ctx)
{
    const by_ts_ctx *k = ctx;
    int64_t x = k->c->ts[k->ix->op[*(const size_t *)a].row];
    int64_t y = k->c->ts[k->ix->op[*(const size_t *)b].row];
    return (x > y) - (x < y);
}

/* Each backward, in time order, with the latest forward before it of its
 * optimizer and batch not yet taken by another backward (autograd runs
 * the backwards in reverse: forward A, forward B, backward B, backward A);
 * that forward's D from the backward's total_D. */
static int pair_ops(pe_index *ix, const tp_cols *c)
{
    size_t *bws = tp_malloc((ix->n ? ix->n : 1) * sizeof *bws), nb = 0;
    if (bws == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < ix->n; i++)
        if (ix->op[i].role == PE_BACKWARD && ix->op[i].ok)
            bws[nb++] = i;
    by_ts_ctx k = {ix, c};
    int rc = tp_sort(bws, nb, sizeof *bws, by_ts, &k);
    for (size_t i = 0; i < nb && rc == TP_OK; i++) {
        pe_op *bw = &ix->op[bws[i]];
        for (size_t f = 0; f < ix->n; f++) {
            pe_op *fw = &ix->op[f];
            if (fw->role == PE_FORWARD && fw->ok && fw->pair < 0 &&
                c->ts[fw->row] < c->ts[bw->row] && fw->shape.B == bw->shape.B &&
                strcmp(fw->optimizer, bw->optimizer) == 0 &&
                (bw->pair < 0 || c->ts[fw->row] > c->ts[ix->op[bw->pair].row]))
                bw->pair = (int32_t)f;
        }
        if (bw->pair >= 0) {
            pe_op *fw = &ix->op[bw->pair];
            fw->pair = (int32_t)bws[i]; /* taken */
            fw->total_d = bw->total_d;
        }
    }
    tp_free(bws);
    return rc;
}

int pe_index_build(tp_stage *st, const tp_trace *t, const tp_hier_view *v, const pe_options *o,
                   pe_index *ix)
{
    const tp_cols *c = tp_trace_cols(t);
    memset(ix, 0, sizeof *ix);
    ix->slot = tp_malloc((c->n ? c->n : 1) * sizeof *ix->slot);
    if (ix->slot == NULL)
        return TP_ENOMEM;
    /* each name's role once, not each row's (names are interned) */
    size_t nnames = tp_str_count(st);
    uint8_t *role = tp_malloc(nnames ? nnames : 1);
    if (role == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < nnames; i++)
        role[i] = (uint8_t)role_of(tp_str_text(st, (tp_str)i), o);
    size_t cap = 0;
    for (size_t r = 0; r < c->n; r++) {
        ix->slot[r] = -1;
        if (c->kind[r] != TP_KIND_CPU_OP || c->name[r] >= nnames || role[c->name[r]] == 0)
            continue;
        if (ix->n == cap) {
            cap = cap ? 2 * cap : 16;
            pe_op *grown = tp_realloc(ix->op, cap * sizeof *grown);
            if (grown == NULL) {
                tp_free(role);
                return TP_ENOMEM;
            }
            ix->op = grown;
        }
        pe_op *op = &ix->op[ix->n];
        op->ok = read_op(t, r, role[c->name[r]], tp_str_text(st, c->name[r]), op);
        ix->slot[r] = (int32_t)ix->n++;
    }
    tp_free(role);
    const void *block = NULL;
    if (tp_ext_column_cells(t, "kernel.block_y", TP_COL_I64, &block) != TP_OK)
        return tp_fail(st, TP_ENOMEM, "out of memory reading column kernel.block_y");
    for (size_t a = 0; a < c->n && ix->n > 0; a++) {
        if (!tp_ev_is_activity(c, a) || c->dur[a] < 0)
            continue;
        int32_t x = tp_hier_launching_op(c, v, a);
        if (x < 0 || ix->slot[x] < 0)
            continue;
        pe_op *op = &ix->op[ix->slot[x]];
        if (c->kind[a] == TP_KIND_KERNEL && c->dur[a] > op->longest_ns) {
            op->longest_ns = c->dur[a];
            op->rows_per_block = block_y(t, a, block);
        }
    }
    return pair_ops(ix, c);
}

void pe_index_free(pe_index *ix)
{
    tp_free(ix->slot);
    tp_free(ix->op);
    memset(ix, 0, sizeof *ix);
}

/* The model inputs of forward f: D from the option, else total_d (its
 * backward's gradient, or the backward's own). */
static int forward_inputs(const pe_op *f, int64_t total_d, const pe_options *o,
                          pe_emb_inputs *x, char *why, size_t whysz)
{
    x->T = f->shape.T;
    x->B = f->shape.B;
    x->L = f->shape.L;
    x->D = o->embedding_dim > 0 ? o->embedding_dim : total_d / f->shape.T;
    if (x->D <= 0) {
        snprintf(why, whysz, "embedding dim unknown (no backward node to read it from): give "
                 "embedding_dim");
        return -1;
    }
    int64_t td;
    if (__builtin_mul_overflow(x->T, x->D, &td) || td <= 0) {
        snprintf(why, whysz, "tables x dim out of range (T %lld, D %lld)", (long long)x->T,
                 (long long)x->D);
        return -1;
    }
    x->E = f->shape.weights / td;
    /* the models count bytes in int64 (B*T*L*D and the like) and loop B
     * times: refuse what no real lookup has rather than overflow */
    int64_t work;
    if (x->B > PE_MAX_BATCH || __builtin_mul_overflow(td, x->B, &work) ||
        __builtin_mul_overflow(work, x->L, &work) || work > ((int64_t)1 << 50)) {
        snprintf(why, whysz, "shapes out of range (B %lld, T %lld, L %lld, D %lld)",
                 (long long)x->B, (long long)x->T, (long long)x->L, (long long)x->D);
        return -1;
    }
    x->R = o->rows_per_block > 0 ? o->rows_per_block : f->rows_per_block;
    x->shmem = 0;
    return 0;
}

const char *pe_predict(const pe_index *ix, size_t row, const pe_options *o, const tp_preset *p,
                       pe_emb_inputs *x, double *us, char *why, size_t whysz)
{
    why[0] = '\0';
    if (ix->slot == NULL || ix->slot[row] < 0)
        return NULL;
    const pe_op *op = &ix->op[ix->slot[row]];
    const char *model = op->role == PE_FORWARD       ? "fwd"
                        : strstr(op->optimizer, "sgd") ? "sgd"
                                                       : "adagrad";
    memset(x, 0, sizeof *x);
    if (!op->ok) {
        snprintf(why, whysz, "Input Dims without fbgemm's form");
        return NULL;
    }
    const pe_op *f = op->role == PE_FORWARD ? op : op->pair >= 0 ? &ix->op[op->pair] : NULL;
    if (f == NULL) {
        snprintf(why, whysz, "no forward lookup of optimizer %s and batch %lld before it",
                 op->optimizer, (long long)op->shape.B);
        return NULL;
    }
    /* a backward's D from its own gradient; R is the forward's only */
    if (forward_inputs(f, op->role == PE_BACKWARD ? op->total_d : f->total_d, o, x, why,
                       whysz) != 0)
        return NULL;
    if (op->role == PE_BACKWARD)
        x->R = 0;
    pm_emb m = {x->B, x->E, x->T, x->L, x->D, x->R, x->shmem};
    int rc = 0;
    if (strcmp(model, "fwd") == 0)
        rc = pm_emb_forward(&m, p, o->l2_gbps > 0 ? o->l2_gbps : p->l2_gbps, us, why, whysz);
    else if (strcmp(model, "sgd") == 0)
        rc = pm_emb_sgd(&m, p, us);
    else
        rc = pm_emb_adagrad(&m, p, us);
    if (rc == 0 && !(p->dram_gbps > 0)) {
        snprintf(why, whysz, "preset %s lacks a DRAM bandwidth", p->name);
        rc = -1;
    }
    return rc == 0 ? model : NULL;
}
