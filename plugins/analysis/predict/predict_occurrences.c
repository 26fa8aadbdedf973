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

static const char *registered_model(const tp_trace *t, size_t row, double *us)
{
    for (size_t k = 0; k < tp_trace_ext_count(t); k++) {
        const char *name = tp_trace_ext_name(t, (int)k);
        if (strncmp(name, PR_MODEL_PREFIX, sizeof PR_MODEL_PREFIX - 1) != 0 ||
            tp_trace_ext_type(t, (int)k) != TP_COL_F64)
            continue;
        double v = ((const double *)tp_trace_ext_data(t, (int)k))[row];
        if (isfinite(v) && v >= 0) {
            *us = v;
            return name + sizeof PR_MODEL_PREFIX - 1;
        }
    }
    return NULL;
}

/* Issue 27's models (the SDK's tp_sdk_opmodel.h: attention, norms,
 * element-wise ops by bytes): the roofline of the op's FLOPs at its type's
 * peak (tensor-core rate for attention, the FP32 rate otherwise) and its
 * bytes at the DRAM bandwidth; NULL when no model takes the op or the
 * preset lacks a figure it needs. */
static const char *today_model(const tp_preset *p, const char *name, const char *args,
                               size_t alen, double *us)
{
    tp_op_cost oc;
    if (args == NULL || !tp_op_cost_of(name, args, alen, &oc))
        return NULL;
    double peak = oc.matrix ? tp_preset_peak(p, oc.bpe, 0, oc.bf16) : p->fp32;
    double t = pm_roofline_at(oc.flops, oc.bytes, peak, p->dram_gbps);
    if (t < 0)
        return NULL;
    *us = t;
    return oc.model;
}

/* The op's model and prediction (per call), or NULL: a model another
 * plugin registered for it, else fbgemm's embedding lookups by 5.2-5.4
 * (predict_embedding.h), GEMMs by the roofline of their FLOPs and bytes
 * (section 4) when they are products (tp_gemm_roles: a wrapper's FLOPs are
 * its inner product's, not those of the bias or copy it launched beside
 * it), element-wise ops by 5.6's table. An embedding op the models cannot
 * take fills e->why. */
static const char *predict_op(tp_stage *st, const tp_trace *t, size_t row, const pr_models *m,
                              uint8_t role, double *us, tp_str *dims_id, pr_emb_row *e)
{
    const tp_preset *p = m->p;
    const tp_cols *c = tp_trace_cols(t);
    const char *name = tp_str_text(st, c->name[row]);
    size_t alen = 0, dlen = 0, tlen = 0;
    const char *args = tp_trace_args(t, row, &alen);
    const char *dims = args ? tp_json_get(args, alen, "Input Dims", &dlen) : NULL;
    const char *types = args ? tp_json_get(args, alen, "Input type", &tlen) : NULL;
    tp_gemm_shape sh;
    int have = dims && tp_gemm_parse_dims(dims, dlen, &sh);
    *dims_id = dims ? tp_intern(st, dims, dlen) : 0;
    const char *theirs = registered_model(t, row, us);
    if (theirs)
        return theirs;
    const char *emb = pe_predict(&m->emb, row, &m->emb_opt, p, &e->x, us, e->why, sizeof e->why);
    if (emb || e->why[0])
        return emb;
    double flops, elems;
    if (role == TP_GEMM_WRAPPER)
        return NULL;
    if (have && tp_gemm_is_name(name) && tp_gemm_counts(name, &sh, &flops, &elems)) {
        if (m->fc && pf_predict_op(st, m->fc, (int32_t)row, c->name[row], *dims_id, &sh, p, us) == 1)
            return PF_MODEL; /* the benchmark table (5.5); else (logged) the roofline */
        double bpe = tp_gemm_bpe_of(types, tlen);
        tp_preset q = *p;
        if (bpe == 2 && p->fp16 > 0)
            q.fp32 = p->fp16; /* half-precision products run at the FP16 peak */
        *us = pm_roofline(flops, elems * bpe, &q);
        return "roofline";
    }
    char base[256];
    model_name(name, base, sizeof base);
    const pm_elementwise *ew = pm_elementwise_find(base);
    if (have && ew && sh.n > 0) {
        *us = pm_elementwise_us(ew, (int64_t)tp_gemm_prod(sh.dim[0], sh.rank[0]), p);
        return "elementwise";
    }
    return today_model(p, name, args, alen, us);
}

/* The rows of the ops' GPU work: per trace row, the time of the work it
 * launched as the innermost cpu_op above the launch (0 for most rows), in
 * kernels[row] how many of those activities are kernels (the launch
 * floor's count), in comm[row] whether one is a collective kernel (the
 * vocabulary's); the time no op owns into gpu by category. */
static int64_t *owned_work(tp_stage *st, const tp_trace *t, const tp_hier_view *v,
                           const tp_vocab *voc, pr_gpu_time *gpu, int32_t **kernels,
                           uint8_t **comm)
{
    const tp_cols *c = tp_trace_cols(t);
    int64_t *owned = tp_calloc(c->n ? c->n : 1, sizeof *owned);
    *kernels = tp_calloc(c->n ? c->n : 1, sizeof **kernels);
    *comm = tp_calloc(c->n ? c->n : 1, 1);
    if (owned == NULL || *kernels == NULL || *comm == NULL) {
        tp_free(owned);
        tp_free(*kernels);
        tp_free(*comm);
        return NULL;
    }
    memset(gpu, 0, sizeof *gpu);
    for (size_t a = 0; a < c->n; a++) {
        if (!tp_ev_is_activity(c, a) || c->dur[a] < 0)
            continue;
        double us = (double)c->dur[a] / 1000.0;
        gpu->all_us += us;
        int coll = c->kind[a] == TP_KIND_KERNEL &&
                   tp_vocab_collective(voc, tp_str_text(st, c->name[a])) != TP_COLL_NONE;
        int32_t op = tp_hier_launching_op(c, v, a);
        if (op >= 0) {
            owned[op] += c->dur[a];
            (*kernels)[op] += c->kind[a] == TP_KIND_KERNEL;
            (*comm)[op] |= (uint8_t)coll;
        } else {
            gpu->unowned_us[coll ? TP_OPCAT_COMMUNICATION : TP_OPCAT_OTHER] += us;
        }
    }
    return owned;
}

/* Each op occurrence owning GPU work (the innermost cpu_op above the
 * launch) with its measured time: the sum of that work's durations; the
 * embedding ops among them in *emb. */
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
    int32_t *kernels = NULL;
    uint8_t *comm = NULL;
    int64_t *owned = owned_work(st, t, &v, &voc, gpu, &kernels, &comm);
    tp_vocab_free(&voc);
    uint8_t *role = tp_malloc(c->n ? c->n : 1);
    if (owned == NULL || role == NULL || tp_gemm_roles(st, t, &v, role) != TP_OK ||
        pe_index_build(st, t, &v, &m->emb_opt, &m->emb) != TP_OK) {
        tp_free(owned);
        tp_free(kernels);
        tp_free(comm);
        tp_free(role);
        return TP_ENOMEM;
    }
    size_t n = 0, ne = 0;
    for (size_t r = 0; r < c->n; r++) {
        n += owned[r] > 0;
        ne += owned[r] > 0 && m->emb.slot[r] >= 0;
    }
    pr_occ *o = tp_malloc((n ? n : 1) * sizeof *o);
    pr_emb_row *er = tp_calloc(ne ? ne : 1, sizeof *er);
    if (o == NULL || er == NULL) {
        tp_free(owned);
        tp_free(kernels);
        tp_free(comm);
        tp_free(role);
        tp_free(o);
        tp_free(er);
        return TP_ENOMEM;
    }
    size_t k = 0, ke = 0;
    for (size_t r = 0; r < c->n; r++) {
        if (owned[r] <= 0)
            continue;
        pr_occ *x = &o[k++];
        pr_emb_row e = {.why = ""};
        x->row = (int32_t)r;
        x->name = c->name[r];
        x->measured_us = (double)owned[r] / 1000.0;
        x->predicted_us = 0;
        x->model = predict_op(st, t, r, m, role[r], &x->predicted_us, &x->dims, &e);
        x->category = comm[r] ? TP_OPCAT_COMMUNICATION : tp_op_category_of(tp_str_text(st, x->name));
        if (x->model)
            x->predicted_us = pm_floor(x->predicted_us, kernels[r], m->p);
        if (m->emb.slot[r] >= 0) {
            e.occ = *x;
            er[ke++] = e;
        }
    }
    tp_free(owned);
    tp_free(kernels);
    tp_free(comm);
    tp_free(role);
    *out = o;
    *nout = k;
    *emb = er;
    *nemb = ke;
    return TP_OK;
}
