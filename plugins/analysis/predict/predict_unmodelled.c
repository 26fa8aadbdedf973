/*
 * analysis predict, mode trace: the GPU time no model predicted, by reason
 * (issue 27, <id>.unmodelled): an op occurrence whose args do not say
 * enough (the SDK model's reason: a tensor list, a variable-length
 * attention of unequal sequences ...), without Input Dims, of no model, an
 * embedding lookup the models refused, communication; a GPU activity no op
 * launched.  Where the op has no shapes or no op launched the kernel, a
 * GEMM kernel's name gives its library, type and tile (tp_sdk_kname.h),
 * never M, N, K: it stays unmodelled, and the reason says what the name
 * gave.
 */
#include <stdio.h>
#include <string.h>

#include <tracepipe/tp_sdk_kname.h>

#include "predict_internal.h"
#include "predict_results.h"

typedef struct pr_why {
    tp_str reason;
    int64_t count;
    double gpu_us;
} pr_why;

typedef struct pr_whys {
    pr_why *w;
    size_t n, cap;
} pr_whys;

static int why_add(tp_stage *st, pr_whys *ws, const char *reason, double us)
{
    tp_str id = tp_intern(st, reason, strlen(reason));
    for (size_t i = 0; i < ws->n; i++)
        if (ws->w[i].reason == id) {
            ws->w[i].count++, ws->w[i].gpu_us += us;
            return TP_OK;
        }
    if (ws->n == ws->cap) {
        size_t cap = ws->cap ? 2 * ws->cap : 16;
        pr_why *w = tp_realloc(ws->w, cap * sizeof *w);
        if (w == NULL)
            return TP_ENOMEM;
        ws->w = w, ws->cap = cap;
    }
    ws->w[ws->n++] = (pr_why){id, 1, us};
    return TP_OK;
}

/* "<what>: GEMM kernel (<library> <type>, tile MxN[xK]; no M, N, K in its
 * name)" when kernel is a GEMM kernel by name, else what alone. */
static void with_kernel(const char *what, const char *kernel, char *buf, size_t size)
{
    tp_gemm_kname k;
    if (kernel == NULL || !tp_gemm_kernel_decode(kernel, &k)) {
        snprintf(buf, size, "%s", what);
        return;
    }
    char tile[48] = "no tile";
    if (k.tile_m > 0 && k.tile_k > 0)
        snprintf(tile, sizeof tile, "tile %dx%dx%d", k.tile_m, k.tile_n, k.tile_k);
    else if (k.tile_m > 0)
        snprintf(tile, sizeof tile, "tile %dx%d", k.tile_m, k.tile_n);
    snprintf(buf, size, "%s: GEMM kernel (%s %s, %s; no M, N, K in its name)", what, k.library,
             k.dtype[0] ? k.dtype : "type not in the name", tile);
}

/* Why occurrence x (no model) was not predicted. */
static void occ_reason(tp_stage *st, const tp_trace *t, const pr_occ *x, const char *kernel,
                       int refused, char *buf, size_t size)
{
    const tp_cols *c = tp_trace_cols(t);
    const char *name = tp_str_text(st, x->name);
    if (x->category == TP_OPCAT_COMMUNICATION) {
        snprintf(buf, size, "communication (a collective: no kernel model)");
        return;
    }
    if (refused) {
        snprintf(buf, size, "embedding lookup the models refused (the embedding result says why)");
        return;
    }
    if (x->dims == 0) {
        with_kernel("op without shapes (no Input Dims)", kernel, buf, size);
        return;
    }
    size_t alen = 0;
    size_t row = (size_t)x->row;
    const char *args = x->name == c->name[row] ? tp_trace_args(t, row, &alen) : NULL;
    tp_op_cost oc;
    if (args && !tp_op_cost_of(name, args, alen, &oc) && oc.why) {
        snprintf(buf, size, "%s", oc.why);
        return;
    }
    char what[96];
    snprintf(what, sizeof what, "no model for the op (%s)",
             tp_op_category_name(x->category));
    with_kernel(what, kernel, buf, size);
}

/* The longest kernel of each occurrence without a model that is not a
 * graph replay's: name[i] (0: none). */
static int longest_kernels(tp_stage *st, const tp_trace *t, const pr_occ *o, size_t n,
                           tp_str *name)
{
    const tp_cols *c = tp_trace_cols(t);
    tp_hier_view v;
    if (tp_hier_view_require(st, t, &v) != TP_OK)
        return TP_ENOTFOUND;
    int32_t *occ = tp_malloc((c->n ? c->n : 1) * sizeof *occ);
    int64_t *best = tp_calloc(n ? n : 1, sizeof *best);
    if (occ == NULL || best == NULL) {
        tp_free(occ);
        tp_free(best);
        return TP_ENOMEM;
    }
    for (size_t r = 0; r < c->n; r++)
        occ[r] = -1;
    for (size_t i = 0; i < n; i++)
        if (o[i].trace == 0 && o[i].model == NULL && o[i].name == c->name[o[i].row])
            occ[(size_t)o[i].row] = (int32_t)i;
    for (size_t a = 0; a < c->n; a++) {
        if (c->kind[a] != TP_KIND_KERNEL || c->dur[a] < 0)
            continue;
        int32_t op = tp_hier_launching_op(c, &v, a);
        int32_t i = op >= 0 ? occ[(size_t)op] : -1;
        if (i >= 0 && (name[i] == 0 || c->dur[a] > best[i]))
            name[i] = c->name[a], best[i] = c->dur[a];
    }
    tp_free(occ);
    tp_free(best);
    return TP_OK;
}

static int by_gpu_desc(const void *a, const void *b, void *ctx)
{
    const pr_why *x = a, *y = b;
    tp_stage *st = ctx;
    if (x->gpu_us != y->gpu_us)
        return x->gpu_us > y->gpu_us ? -1 : 1;
    return strcmp(tp_str_text(st, x->reason), tp_str_text(st, y->reason));
}

static int why_rows(tp_stage *st, pr_whys *ws, double all_us)
{
    tp_result *r = tp_result_declared(st, "unmodelled");
    if (r == NULL)
        return TP_ENOMEM;
    int rc = tp_sort(ws->w, ws->n, sizeof *ws->w, by_gpu_desc, st);
    for (size_t i = 0; rc == TP_OK && i < ws->n; i++) {
        size_t row;
        rc = tp_result_add_row(st, r, &row);
        rc = rc ? rc : tp_result_set_str(st, r, row, pr_unmodelled_reason,
                                         tp_str_text(st, ws->w[i].reason));
        rc = rc ? rc : tp_result_set_i64(st, r, row, pr_unmodelled_count, ws->w[i].count);
        rc = rc ? rc : tp_result_set_f64(st, r, row, pr_unmodelled_gpu_us, ws->w[i].gpu_us);
        if (rc == TP_OK && all_us > 0)
            rc = tp_result_set_f64(st, r, row, pr_unmodelled_share_percent,
                                   100 * ws->w[i].gpu_us / all_us);
    }
    return rc;
}

int pr_unmodelled_results(tp_stage *st, const tp_trace *t, const pr_occ *o, size_t n,
                          const pr_gpu_time *gpu, const pr_emb_row *emb, size_t nemb)
{
    const tp_cols *c = tp_trace_cols(t);
    pr_whys ws = {0};
    tp_str *kernel = tp_calloc(n ? n : 1, sizeof *kernel);
    int rc = kernel ? longest_kernels(st, t, o, n, kernel) : TP_ENOMEM;
    char buf[320];
    for (size_t i = 0; rc == TP_OK && i < n; i++) {
        if (o[i].model || o[i].trace != 0)
            continue; /* the first trace's: rows index t */
        int refused = 0;
        for (size_t e = 0; e < nemb && !refused; e++)
            refused = emb[e].occ.trace == 0 && emb[e].occ.row == o[i].row && emb[e].why[0];
        occ_reason(st, t, &o[i], kernel[i] ? tp_str_text(st, kernel[i]) : NULL, refused, buf,
                   sizeof buf);
        rc = why_add(st, &ws, buf, o[i].measured_us);
    }
    tp_vocab voc;
    int have_voc = rc == TP_OK && tp_vocab_get(st, &voc) == TP_OK;
    if (!have_voc)
        rc = rc ? rc : TP_ENOMEM;
    for (size_t k = 0; rc == TP_OK && gpu->unowned && k < gpu->n_unowned; k++) {
        size_t a = gpu->unowned[k];
        const char *name = tp_str_text(st, c->name[a]);
        if (c->kind[a] == TP_KIND_KERNEL && tp_vocab_collective(&voc, name) != TP_COLL_NONE)
            snprintf(buf, sizeof buf, "communication kernel no op launched (no kernel model)");
        else
            with_kernel("GPU activity no op launched", c->kind[a] == TP_KIND_KERNEL ? name : NULL,
                        buf, sizeof buf);
        rc = why_add(st, &ws, buf, (double)c->dur[a] / 1000.0);
    }
    if (have_voc)
        tp_vocab_free(&voc);
    if (rc == TP_OK)
        rc = why_rows(st, &ws, gpu->all_us);
    tp_free(kernel);
    tp_free(ws.w);
    return rc;
}
