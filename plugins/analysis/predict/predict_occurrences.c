/*
 * analysis predict on a trace: the op occurrences that launched GPU work,
 * their measured time and the model that predicts each (another plugin's,
 * the embedding models, the FC table or the roofline, element-wise).
 */
#include <stdio.h>
#include <string.h>

#include <tracepipe/tp_sdk_gemm.h>

#include "predict_internal.h"

/* "aten::relu" -> "relu"; "autograd::engine::evaluate_function: ReluBackward0" and
 * "ReluBackward0" -> "ReluBackward" (the element-wise table's names). */
static void model_name(const char *name, char *out, size_t size)
{
    const char *colon = strrchr(name, ':');
    const char *base = strncmp(name, "aten::", 6) == 0 ? name + 6
                       : colon && strstr(name, "evaluate_function") ? colon + 1
                                                                     : name;
    while (*base == ' ')
        base++;
    snprintf(out, size, "%s", base);
    size_t n = strlen(out);
    while (n > 0 && out[n - 1] >= '0' && out[n - 1] <= '9' && strstr(out, "Backward"))
        out[--n] = '\0';
}

/* Models of other plugins: F64 extension columns named "predict.MODEL"
 * that an analysis before predict filled, per call in µs, on the rows of
 * the ops it models (docs/plugins.md, "A model for predict"). */
#define PR_MODEL_PREFIX "predict."

/* The trace's registered models (pr_registered): TP_OK or TP_ENOMEM (a
 * column that could not be read as an array is reported). */
static int registered_models(tp_stage *st, const tp_trace *t, pr_registered *reg)
{
    size_t n = tp_trace_ext_count(t);
    reg->n = 0;
    reg->model = tp_malloc((n ? n : 1) * sizeof *reg->model);
    reg->cells = tp_malloc((n ? n : 1) * sizeof *reg->cells);
    if (reg->model == NULL || reg->cells == NULL)
        return TP_ENOMEM;
    for (size_t k = 0; k < n; k++) {
        const char *name = tp_trace_ext_name(t, (int)k);
        if (strncmp(name, PR_MODEL_PREFIX, sizeof PR_MODEL_PREFIX - 1) != 0 ||
            tp_trace_ext_type(t, (int)k) != TP_COL_F64)
            continue;
        const void *cells = NULL;
        if (tp_ext_column_at(t, (int)k, &cells) != TP_OK)
            return tp_fail(st, TP_ENOMEM, "out of memory reading column %s", name);
        reg->model[reg->n] = name + sizeof PR_MODEL_PREFIX - 1;
        reg->cells[reg->n++] = cells;
    }
    return TP_OK;
}

static void registered_free(pr_registered *reg)
{
    tp_free(reg->model);
    tp_free(reg->cells);
    memset(reg, 0, sizeof *reg);
}

/* The first registered model predicting row (its name, the prediction in
 * *us), or NULL. */
static const char *registered_model(const pr_registered *reg, size_t row, double *us)
{
    for (size_t k = 0; k < reg->n; k++) {
        double v = reg->cells[k][row];
        if (isfinite(v) && v >= 0) {
            *us = v;
            return reg->model[k];
        }
    }
    return NULL;
}

/* Issue 27's models (the SDK's tp_sdk_opmodel.h: attention, norms,
 * element-wise ops by bytes): the roofline of the op's FLOPs at its type's
 * peak (tensor-core rate for attention, the FP32 rate otherwise) and its
 * bytes at the DRAM bandwidth; NULL when no model takes the op or the
 * preset lacks a figure it needs, and then in *why what the op's args do
 * not say (the SDK model's reason) or NULL. */
static const char *today_model(const tp_preset *p, const char *name, const char *args,
                               size_t alen, double *us, double *fb, const char **why)
{
    tp_op_cost oc;
    if (args == NULL)
        return NULL;
    if (!tp_op_cost_of(name, args, alen, &oc)) {
        *why = oc.why; /* what its args lack (static text), or NULL */
        return NULL;
    }
    double peak = oc.matrix ? tp_preset_peak(p, oc.bpe, 0, oc.bf16) : p->fp32;
    double t = pm_roofline_at(oc.flops, oc.bytes, peak, p->dram_gbps);
    if (t < 0)
        return NULL;
    *us = t;
    fb[0] = peak == p->fp32 ? oc.flops : 0, fb[1] = oc.bytes; /* FLOPs at the FP32 rate */
    return oc.model;
}

static const char *model_args(const tp_preset *p, const char *name, const char *args, size_t alen,
                              double *us, double *fb, const char **why);

/* A GEMM wrapper has no model of its own (its inner product has): NULL,
 * and in *why what its args lack when the SDK model says so. */
static const char *wrapper_why(const char *name, const char *args, size_t alen,
                               const char **why)
{
    tp_op_cost oc;
    if (args && !tp_op_cost_of(name, args, alen, &oc))
        *why = oc.why;
    return NULL;
}

/* The op's model and prediction (per call), or NULL: a model another
 * plugin registered for it, else fbgemm's embedding lookups by 5.2-5.4
 * (predict_embedding.h), GEMMs by the roofline of their FLOPs and bytes
 * (section 4) when they are products (tp_gemm_roles: a wrapper's FLOPs are
 * its inner product's, not those of the bias or copy it launched beside
 * it), element-wise ops by 5.6's table. An embedding op the models cannot
 * take fills e->why; an op no model takes, *why (the SDK model's reason
 * its args do not say enough, or NULL). */
static const char *predict_op(tp_stage *st, const tp_trace *t, size_t row, const pr_models *m,
                              uint8_t role, double *us, double *fb, tp_str *dims_id,
                              pr_emb_row *e, const char **why)
{
    const tp_preset *p = m->p;
    const tp_cols *c = tp_trace_cols(t);
    const char *name = tp_str_text(st, c->name[row]);
    size_t alen = 0, dlen = 0;
    const char *args = tp_trace_args(t, row, &alen);
    const char *dims = args ? tp_json_get(args, alen, "Input Dims", &dlen) : NULL;
    tp_gemm_shape sh;
    int have = dims && tp_gemm_parse_dims(dims, dlen, &sh);
    *dims_id = dims ? tp_intern(st, dims, dlen) : 0;
    const char *theirs = registered_model(&m->reg, row, us);
    if (theirs)
        return theirs;
    const char *emb = pe_predict(&m->emb, row, &m->emb_opt, p, &e->x, us, e->why, sizeof e->why);
    if (emb || e->why[0])
        return emb;
    double flops, elems;
    if (role == TP_GEMM_WRAPPER)
        return wrapper_why(name, args, alen, why);
    if (m->fc && have && tp_gemm_is_name(name) && tp_gemm_counts(name, &sh, &flops, &elems) &&
        pf_predict_op(st, m->fc, (int32_t)row, c->name[row], *dims_id, &sh, p, us) == 1)
        return PF_MODEL; /* the benchmark table (5.5); else (logged) the roofline */
    return model_args(p, name, args, alen, us, fb, why);
}

/* The models that need only the op's name and args: GEMMs by the roofline
 * of their FLOPs and bytes (section 4), element-wise ops by 5.6's table,
 * issue 27's (today_model); NULL when none takes the op (*why: the SDK
 * model's reason, or NULL). */
static const char *model_args(const tp_preset *p, const char *name, const char *args, size_t alen,
                              double *us, double *fb, const char **why)
{
    size_t dlen = 0;
    const char *dims = args ? tp_json_get(args, alen, "Input Dims", &dlen) : NULL;
    tp_gemm_shape sh;
    int have = dims && tp_gemm_parse_dims(dims, dlen, &sh);
    tp_gemm_call k;
    if (tp_gemm_call_parse(name, args, alen, &k)) {
        tp_preset q = *p;
        if (k.bpe == 2 && p->fp16 > 0)
            q.fp32 = p->fp16; /* half-precision products run at the FP16 peak */
        *us = pm_roofline(k.flops, k.elems * k.bpe, &q);
        fb[0] = k.bpe == 4 ? k.flops : 0, fb[1] = k.elems * k.bpe; /* FP32 inputs' FLOPs */
        return "roofline";
    }
    char base[256];
    model_name(name, base, sizeof base);
    const pm_elementwise *ew = pm_elementwise_find(base);
    if (have && ew && sh.n > 0) {
        *us = pm_elementwise_us(ew, (int64_t)tp_gemm_prod(sh.dim[0], sh.rank[0]), p);
        return "elementwise";
    }
    return today_model(p, name, args, alen, us, fb, why);
}

/* The capture-time call (tp_graph_op_args) of replayed activity a whose
 * capturing op's args a reader gave, else 0. */
static int64_t replay_call(tp_stage *st, const tp_graphs *gr, size_t a)
{
    size_t alen;
    int64_t call = 0;
    return tp_graph_op_args(st, gr, a, &alen, &call) ? call : 0;
}

/* The rows of the ops' GPU work: per trace row, the time of the work it
 * launched as the innermost cpu_op above the launch (0 for most rows), in
 * kernels[row] how many of those activities are kernels (the launch
 * floor's count), in comm[row] whether one is a collective kernel (the
 * vocabulary's); the time no op owns into gpu by category. */
static int64_t *owned_work(tp_stage *st, const tp_trace *t, const tp_hier_view *v,
                           tp_coll_memo *coll, const tp_graphs *gr, pr_gpu_time *gpu,
                           int32_t **kernels, uint8_t **comm, int32_t **longest)
{
    const tp_cols *c = tp_trace_cols(t);
    int64_t *owned = tp_calloc(c->n ? c->n : 1, sizeof *owned);
    *kernels = tp_calloc(c->n ? c->n : 1, sizeof **kernels);
    *comm = tp_calloc(c->n ? c->n : 1, 1);
    *longest = tp_malloc((c->n ? c->n : 1) * sizeof **longest);
    if (owned == NULL || *kernels == NULL || *comm == NULL || *longest == NULL) {
        tp_free(owned);
        tp_free(*kernels);
        tp_free(*comm);
        tp_free(*longest);
        return NULL;
    }
    for (size_t r = 0; r < c->n; r++)
        (*longest)[r] = -1;
    memset(gpu, 0, sizeof *gpu);
    gpu->unowned = tp_malloc((c->n ? c->n : 1) * sizeof *gpu->unowned); /* NULL: not listed */
    for (size_t a = 0; a < c->n; a++) {
        if (!tp_ev_is_activity(c, a) || c->dur[a] < 0)
            continue;
        double us = (double)c->dur[a] / 1000.0;
        gpu->all_us += us;
        if (replay_call(st, gr, a) > 0)
            continue; /* its capturing op's occurrence (replay_occurrences) */
        int comm_kernel = c->kind[a] == TP_KIND_KERNEL &&
                          tp_coll_memo_type(coll, c->name[a]) != TP_COLL_NONE;
        int32_t op = tp_hier_launching_op(c, v, a);
        if (op >= 0) {
            owned[op] += c->dur[a];
            (*kernels)[op] += c->kind[a] == TP_KIND_KERNEL;
            (*comm)[op] |= (uint8_t)comm_kernel;
            int32_t *l = &(*longest)[op];
            if (c->kind[a] == TP_KIND_KERNEL && (*l < 0 || c->dur[a] > c->dur[*l]))
                *l = (int32_t)a;
        } else {
            gpu->unowned_us[comm_kernel ? TP_OPCAT_COMMUNICATION : TP_OPCAT_OTHER] += us;
            if (gpu->unowned)
                gpu->unowned[gpu->n_unowned++] = (uint32_t)a;
        }
    }
    return owned;
}

/* Each op occurrence owning GPU work (the innermost cpu_op above the
 * launch) with its measured time: the sum of that work's durations; the
 * embedding ops among them in *emb. */
/* The occurrence of one call of a capturing op in one graph replay
 * (tp_graph_op_calls: rows[0, n)): shown on the graph launch call (its
 * row, for the ops above it and time order) under the capturing op's
 * name, modelled from that op's args (model_args). */
static void replay_occurrence(tp_stage *st, const tp_trace *t, const tp_graphs *gr,
                              const int32_t *launcher, tp_coll_memo *coll, const pr_models *m,
                              const uint32_t *rows, size_t n, pr_occ *x)
{
    const tp_cols *c = tp_trace_cols(t);
    size_t alen = 0, dlen = 0;
    int64_t call = 0, dur = 0;
    int32_t kernels = 0;
    int comm = 0;
    x->kernel = 0;
    for (size_t i = 0, best = 0; i < n; i++) {
        size_t a = rows[i];
        if (c->kind[a] == TP_KIND_KERNEL && (x->kernel == 0 || c->dur[a] > c->dur[best]))
            x->kernel = c->name[a], best = a;
        dur += c->dur[a] > 0 ? c->dur[a] : 0;
        kernels += c->kind[a] == TP_KIND_KERNEL;
        comm |= c->kind[a] == TP_KIND_KERNEL && tp_coll_memo_type(coll, c->name[a]) != TP_COLL_NONE;
    }
    const char *args = tp_graph_op_args(st, gr, rows[0], &alen, &call);
    const char *dims = args ? tp_json_get(args, alen, "Input Dims", &dlen) : NULL;
    x->row = launcher[rows[0]];
    x->name = tp_graph_op_of(gr, rows[0], 1);
    x->dims = dims ? tp_intern(st, dims, dlen) : 0;
    x->measured_us = (double)dur / 1000.0;
    x->predicted_us = 0;
    double fb[2] = {0, 0};
    const char *why = NULL; /* not kept: the reason looks at a replay's kernel only */
    x->model = model_args(m->p, tp_str_text(st, x->name), args, alen, &x->predicted_us, fb, &why);
    x->why = NULL;
    x->fp32_flops = fb[0], x->bytes = fb[1];
    x->category =
        comm ? TP_OPCAT_COMMUNICATION : tp_op_category_in(coll->vocab, tp_str_text(st, x->name));
    x->bound_us = x->predicted_us;
    x->kernels = kernels;
    x->device = m->p->name;
    if (x->model)
        x->predicted_us = pm_floor(x->predicted_us, kernels, m->p);
}

/* The graph replays' calls of their capturing ops, appended to o[*k ..):
 * o has room for ncalls more. */
static void replay_occurrences(tp_stage *st, const tp_trace *t, const tp_graphs *gr,
                               const int32_t *launcher, tp_coll_memo *coll, const pr_models *m,
                               const uint32_t *rows, const size_t *start, size_t ncalls,
                               pr_occ *o, size_t *k)
{
    for (size_t i = 0; i < ncalls; i++)
        if (launcher[rows[start[i]]] >= 0)
            replay_occurrence(st, t, gr, launcher, coll, m, rows + start[i],
                              start[i + 1] - start[i], &o[(*k)++]);
}

int pr_occurrences(tp_stage *st, const tp_trace *t, pr_models *m, pr_occ **out,
                   size_t *nout, pr_gpu_time *gpu, pr_emb_row **emb, size_t *nemb)
{
    const tp_cols *c = tp_trace_cols(t);
    tp_hier_view v;
    if (tp_hier_view_require(st, t, &v) != TP_OK)
        return TP_ENOTFOUND;
    tp_vocab voc;
    if (tp_vocab_get(st, &voc) != TP_OK)
        return TP_ENOMEM;
    tp_graphs gr;
    tp_coll_memo coll = {0};
    if (tp_graphs_find(st, t, &voc, v.launcher, &gr) != TP_OK) {
        tp_vocab_free(&voc);
        return TP_ENOMEM;
    }
    uint32_t *rrows = NULL;
    size_t *rstart = NULL, nrep = 0;
    int32_t *kernels = NULL, *longest = NULL;
    uint8_t *comm = NULL;
    int64_t *owned = tp_coll_memo_init(&coll, st, &voc) == TP_OK &&
                             registered_models(st, t, &m->reg) == TP_OK &&
                             tp_graph_op_calls(st, &gr, v.launcher, &rrows, &rstart, &nrep) == TP_OK
                         ? owned_work(st, t, &v, &coll, &gr, gpu, &kernels, &comm, &longest)
                         : NULL;
    uint8_t *role = tp_malloc(c->n ? c->n : 1);
    size_t n = nrep, ne = 0;
    pr_occ *o = NULL;
    pr_emb_row *er = NULL;
    int rc = owned && role && tp_gemm_roles(st, t, &v, role) == TP_OK &&
                     pe_index_build(st, t, &v, &m->emb_opt, &m->emb) == TP_OK
                 ? TP_OK
                 : TP_ENOMEM;
    for (size_t r = 0; rc == TP_OK && r < c->n; r++) {
        n += owned[r] > 0;
        ne += owned[r] > 0 && m->emb.slot[r] >= 0;
    }
    if (rc == TP_OK) {
        o = tp_malloc((n ? n : 1) * sizeof *o);
        er = tp_calloc(ne ? ne : 1, sizeof *er);
        rc = o && er ? TP_OK : TP_ENOMEM;
    }
    size_t k = 0, ke = 0;
    for (size_t r = 0; rc == TP_OK && r < c->n; r++) {
        if (owned[r] <= 0)
            continue;
        pr_occ *x = &o[k++];
        pr_emb_row e = {.why = ""};
        x->row = (int32_t)r;
        x->name = c->name[r];
        x->measured_us = (double)owned[r] / 1000.0;
        x->predicted_us = 0;
        double fb[2] = {0, 0};
        x->why = NULL;
        x->model = predict_op(st, t, r, m, role[r], &x->predicted_us, fb, &x->dims, &e, &x->why);
        x->fp32_flops = fb[0], x->bytes = fb[1];
        x->category =
            comm[r] ? TP_OPCAT_COMMUNICATION : tp_op_category_in(&voc, tp_str_text(st, x->name));
        x->bound_us = x->predicted_us;
        x->kernels = kernels[r];
        x->kernel = longest[r] >= 0 ? c->name[longest[r]] : 0;
        x->device = m->p->name;
        if (x->model)
            x->predicted_us = pm_floor(x->predicted_us, kernels[r], m->p);
        if (m->emb.slot[r] >= 0) {
            e.occ = *x;
            er[ke++] = e;
        }
    }
    size_t nrow = k; /* the ops' own occurrences: identical launches' donors */
    if (rc == TP_OK)
        replay_occurrences(st, t, &gr, v.launcher, &coll, m, rrows, rstart, nrep, o, &k);
    int32_t *kr = rc == TP_OK ? tp_malloc((nrow ? nrow : 1) * sizeof *kr) : NULL;
    rc = rc == TP_OK && kr == NULL ? TP_ENOMEM : rc;
    for (size_t i = 0; rc == TP_OK && i < nrow; i++) { /* one kernel and no other activity */
        int32_t r = o[i].row, l = longest[r];
        kr[i] = kernels[r] == 1 && l >= 0 && owned[r] == c->dur[l] ? l : -1;
    }
    if (rc == TP_OK)
        rc = pr_identical_launches(st, t, m->p, &coll, kr, &o, &k, nrow, gpu);
    tp_free(kr);
    tp_coll_memo_free(&coll);
    registered_free(&m->reg);
    tp_vocab_free(&voc);
    tp_graphs_free(&gr);
    tp_free(rrows);
    tp_free(rstart);
    tp_free(owned);
    tp_free(kernels);
    tp_free(longest);
    tp_free(comm);
    tp_free(role);
    if (rc != TP_OK) {
        tp_free(o);
        tp_free(er);
        return rc;
    }
    *out = o;
    *nout = k;
    *emb = er;
    *nemb = ke;
    return TP_OK;
}
