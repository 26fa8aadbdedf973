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

#define PR_WHY_COMM "communication (a collective: no kernel model)"
#define PR_WHY_COMM_KERNEL "communication kernel no op launched (no kernel model)"

/* The first trace's GPU time by what the trace records of it (us). */
typedef struct pr_shaped {
    double comm_us, shapeless_us, modelled_us;
} pr_shaped;

typedef struct pr_why {
    tp_str reason;
    int64_t count;
    double gpu_us;
} pr_why;

typedef struct pr_whys {
    pr_why *w;
    size_t n, cap;
} pr_whys;

/* Adds us to the reason interned as id. */
static int why_add(pr_whys *ws, tp_str id, double us)
{
    if (id == TP_STR_ERROR)
        return TP_ENOMEM;
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

/* Why occurrence x (no model) was not predicted; 1 when the trace records
 * no shapes for its time (no Input Dims, a tensor list written without
 * its shapes), else 0. */
static int occ_reason(const pr_occ *x, const char *kernel, int refused, char *buf, size_t size)
{
    if (x->category == TP_OPCAT_COMMUNICATION) {
        snprintf(buf, size, "%s", PR_WHY_COMM);
        return 0;
    }
    if (refused) {
        snprintf(buf, size, "embedding lookup the models refused (the embedding result says why)");
        return 0;
    }
    if (x->dims == 0) {
        with_kernel("op without shapes (no Input Dims)", kernel, buf, size);
        return 1;
    }
    if (x->why) { /* what its args lack, as the model found (pr_occ.why) */
        snprintf(buf, size, "%s", x->why);
        return strstr(x->why, "tensor list") != NULL;
    }
    char what[96];
    snprintf(what, sizeof what, "no model for the op (%s)",
             tp_op_category_name(x->category));
    with_kernel(what, kernel, buf, size);
    return 0;
}

static int by_gpu_desc(const void *a, const void *b, void *ctx)
{
    const pr_why *x = a, *y = b;
    tp_stage *st = ctx;
    if (x->gpu_us != y->gpu_us)
        return x->gpu_us > y->gpu_us ? -1 : 1;
    return strcmp(tp_str_text(st, x->reason), tp_str_text(st, y->reason));
}

static int why_rows(tp_stage *st, pr_whys *ws, double all_us, tp_result **out)
{
    tp_result *r = *out = tp_result_declared(st, "unmodelled");
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

/* refused[i]: occurrence i of the first trace is an embedding lookup the
 * models refused (one pass over the embedding rows, by row). */
static int refused_marks(const tp_trace *t, const pr_occ *o, size_t n, const pr_emb_row *emb,
                         size_t nemb, uint8_t *refused)
{
    size_t rows = tp_trace_cols(t)->n;
    uint8_t *by_row = tp_calloc(rows ? rows : 1, 1);
    if (by_row == NULL)
        return TP_ENOMEM;
    for (size_t e = 0; e < nemb; e++)
        if (emb[e].occ.trace == 0 && emb[e].why[0] && (size_t)emb[e].occ.row < rows)
            by_row[emb[e].occ.row] = 1;
    for (size_t i = 0; i < n; i++)
        refused[i] = o[i].trace == 0 && (size_t)o[i].row < rows && by_row[o[i].row];
    tp_free(by_row);
    return TP_OK;
}

/* The reasons of the activities no op launched, one name decoded once
 * (memo[name id]: the reason's id, 0 not yet). */
static int unowned_whys(tp_stage *st, const tp_cols *c, const pr_gpu_time *gpu, pr_whys *ws,
                        pr_shaped *sh)
{
    tp_vocab voc;
    if (tp_vocab_get(st, &voc) != TP_OK)
        return TP_ENOMEM;
    size_t nstr = tp_str_count(st);
    tp_str *memo = tp_calloc(nstr ? nstr : 1, sizeof *memo);
    tp_coll_memo coll = {0};
    int rc = memo && tp_coll_memo_init(&coll, st, &voc) == TP_OK ? TP_OK : TP_ENOMEM;
    char buf[320];
    tp_str comm = tp_intern(st, PR_WHY_COMM_KERNEL, strlen(PR_WHY_COMM_KERNEL));
    for (size_t k = 0; rc == TP_OK && gpu->unowned && k < gpu->n_unowned; k++) {
        size_t a = gpu->unowned[k];
        int kernel = c->kind[a] == TP_KIND_KERNEL;
        tp_str nm = kernel ? c->name[a] : 0; /* copies and sets: one reason */
        tp_str id = (size_t)nm < nstr ? memo[nm] : 0;
        if (id == 0) {
            const char *name = tp_str_text(st, c->name[a]);
            if (kernel && tp_coll_memo_type(&coll, nm) != TP_COLL_NONE)
                id = comm;
            else {
                with_kernel("GPU activity no op launched", kernel ? name : NULL, buf, sizeof buf);
                id = tp_intern(st, buf, strlen(buf));
            }
            if ((size_t)nm < nstr)
                memo[nm] = id;
        }
        double us = (double)c->dur[a] / 1000.0;
        *(id == comm ? &sh->comm_us : &sh->shapeless_us) += us;
        rc = why_add(ws, id, us);
    }
    tp_free(memo);
    tp_coll_memo_free(&coll);
    tp_vocab_free(&voc);
    return rc;
}

/* The unmodelled result's notes and title: the share of the GPU time
 * without communication the trace records shapes for, and the share of
 * that the models cover (issue 27's bar is about traces that record
 * shapes; time without them, a graph replay without its capture, an op
 * without Input Dims, a tensor list written without its shapes, no model
 * can take). */
static void shaped_notes(tp_stage *st, tp_result *r, const pr_shaped *sh, double all_us)
{
    double nocomm = all_us - sh->comm_us, shaped = nocomm - sh->shapeless_us;
    if (r == NULL || nocomm <= 0)
        return;
    if (shaped < 1e-9 * nocomm)
        shaped = 0; /* all of it shapeless: a sum's rounding, not a negative time */
    char v[64], title[256];
    snprintf(v, sizeof v, "%.17g", shaped);
    tp_result_set_meta(st, r, "shaped_us", v);
    snprintf(v, sizeof v, "%.17g", 100 * shaped / nocomm);
    tp_result_set_meta(st, r, "shaped_percent", v);
    if (shaped > 0) {
        snprintf(v, sizeof v, "%.17g", 100 * sh->modelled_us / shaped);
        tp_result_set_meta(st, r, "shaped_coverage_percent", v);
    }
    snprintf(title, sizeof title, "GPU time no model predicted, by reason: the trace records "
             "shapes for %.2f %% of the GPU time without communication (%.2f of %.2f us), "
             "%.2f %% of it modelled", 100 * shaped / nocomm, shaped, nocomm,
             shaped > 0 ? 100 * sh->modelled_us / shaped : 0.0);
    tp_result_set_meta(st, r, "title", title);
}

int pr_unmodelled_results(tp_stage *st, const tp_trace *t, const pr_occ *o, size_t n,
                          const pr_gpu_time *gpu, const pr_emb_row *emb, size_t nemb)
{
    const tp_cols *c = tp_trace_cols(t);
    pr_whys ws = {0};
    pr_shaped sh = {0};
    uint8_t *refused = tp_calloc(n ? n : 1, 1);
    int rc = refused ? refused_marks(t, o, n, emb, nemb, refused) : TP_ENOMEM;
    char buf[320];
    for (size_t i = 0; rc == TP_OK && i < n; i++) {
        if (o[i].trace != 0)
            continue; /* the first trace's: rows index t */
        if (o[i].model) {
            sh.modelled_us += o[i].measured_us;
            continue;
        }
        /* its longest kernel (pr_occ.kernel), not a graph replay's */
        tp_str k = o[i].name == c->name[o[i].row] ? o[i].kernel : 0;
        int shapeless = occ_reason(&o[i], k ? tp_str_text(st, k) : NULL, refused[i], buf,
                                   sizeof buf);
        sh.shapeless_us += shapeless ? o[i].measured_us : 0;
        sh.comm_us += o[i].category == TP_OPCAT_COMMUNICATION ? o[i].measured_us : 0;
        rc = why_add(&ws, tp_intern(st, buf, strlen(buf)), o[i].measured_us);
    }
    rc = rc ? rc : unowned_whys(st, c, gpu, &ws, &sh);
    tp_result *r = NULL;
    if (rc == TP_OK)
        rc = why_rows(st, &ws, gpu->all_us, &r);
    if (rc == TP_OK)
        shaped_notes(st, r, &sh, gpu->all_us);
    tp_free(refused);
    tp_free(ws.w);
    return rc;
}
