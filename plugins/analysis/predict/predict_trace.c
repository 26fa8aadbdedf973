/*
 * analysis predict, mode trace: the results of the ops' predictions
 * (<id>, <id>.summary, <id>.unsupported, <id>.embedding) and the mode
 * itself, which also runs the FC table model and end to end.
 */
#include <stdio.h>
#include <string.h>

#include "predict_internal.h"
#include "predict_results.h"

/* By name, the modelled occurrences of a name before the others (one name
 * can have both: a causal attention of unequal lengths beside equal ones,
 * a wrapper GEMM beside a product), then by dims, then by row. */
static int by_name_dims(const void *a, const void *b, void *ctx)
{
    tp_stage *st = ctx;
    const pr_occ *x = a, *y = b;
    int c = strcmp(tp_str_text(st, x->name), tp_str_text(st, y->name));
    if (c)
        return c;
    if ((x->model == NULL) != (y->model == NULL))
        return x->model == NULL ? 1 : -1;
    c = strcmp(x->dims ? tp_str_text(st, x->dims) : "", y->dims ? tp_str_text(st, y->dims) : "");
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

static double rel_error(const pr_occ *x) { return fabs(x->predicted_us - x->measured_us) / x->measured_us; }

/* Error statistics of pr_occurrences [from, to): GMAE (eps 0 unless an error
 * is 0, then the later code's 4e-4), mean, population std (NaN below two
 * occurrences: the SDK's statistics convention). */
void pr_error_stats(const pr_occ *o, size_t from, size_t to, double *gmae, double *mean,
                    double *sd)
{
    double sl = 0, se = 0, ss = 0;
    size_t n = to - from;
    int zero = 0;
    for (size_t i = from; i < to; i++)
        zero |= rel_error(&o[i]) == 0;
    for (size_t i = from; i < to; i++) {
        double e = rel_error(&o[i]);
        se += e;
        sl += log(e + (zero ? 4e-4 : 0));
    }
    *mean = se / (double)n;
    for (size_t i = from; i < to; i++)
        ss += (rel_error(&o[i]) - *mean) * (rel_error(&o[i]) - *mean);
    *sd = n > 1 ? sqrt(ss / (double)n) : NAN;
    *gmae = exp(sl / (double)n);
}

/* The declared result `name` with its title. */
static tp_result *table(tp_stage *st, const char *name, const char *title)
{
    tp_result *r = tp_result_declared(st, name);
    if (r)
        tp_result_set_meta(st, r, "title", title);
    return r;
}

/* A row of <id>.summary: op over the occurrences o[from, to), which measured
 * meas in all (of all_us, the trace's GPU activity time). */
static int summary_row(tp_stage *st, tp_result *sum, const char *op, const pr_occ *o,
                       size_t from, size_t to, double meas, double all_us)
{
    double g, mean, sd;
    pr_error_stats(o, from, to, &g, &mean, &sd);
    size_t row;
    int rc = tp_result_add_row(st, sum, &row);
    rc = rc ? rc : tp_result_set_str(st, sum, row, pr_summary_op, op);
    rc = rc ? rc : tp_result_set_i64(st, sum, row, pr_summary_count, (int64_t)(to - from));
    rc = rc ? rc : tp_result_set_f64(st, sum, row, pr_summary_measured_us, meas);
    rc = rc ? rc : tp_result_set_f64(st, sum, row, pr_summary_gmae_percent, 100 * g);
    rc = rc ? rc : tp_result_set_f64(st, sum, row, pr_summary_mean_error_percent, 100 * mean);
    if (rc == TP_OK && !isnan(sd))
        rc = tp_result_set_f64(st, sum, row, pr_summary_std_error_percent, 100 * sd);
    if (rc == TP_OK && all_us > 0)
        rc = tp_result_set_f64(st, sum, row, pr_summary_coverage_percent, 100 * meas / all_us);
    return rc;
}

/* Coverage on <id>.summary: notes coverage_percent (the modelled ops'
 * measured time / all GPU activity time x 100, as the (all) row's column;
 * absent when the trace has no GPU time), modelled_us, gpu_us, preset; and
 * in the title, so that the printed table says it. */
static void coverage_notes(tp_stage *st, tp_result *sum, double covered, double all_us,
                           const tp_preset *p)
{
    char v[64], title[256];
    snprintf(v, sizeof v, "%.17g", covered);
    tp_result_set_meta(st, sum, "modelled_us", v);
    snprintf(v, sizeof v, "%.17g", all_us);
    tp_result_set_meta(st, sum, "gpu_us", v);
    tp_result_set_meta(st, sum, "preset", p->name);
    if (all_us <= 0)
        return;
    snprintf(v, sizeof v, "%.17g", 100 * covered / all_us);
    tp_result_set_meta(st, sum, "coverage_percent", v);
    snprintf(title, sizeof title, "Prediction error per op type (preset %s): the models cover "
             "%.2f %% of the GPU time (%.2f of %.2f us)", p->name, 100 * covered / all_us,
             covered, all_us);
    tp_result_set_meta(st, sum, "title", title);
}

static int trace_results(tp_stage *st, pr_occ *o, size_t n, double all_us, const tp_preset *p)
{
    tp_result *ops = table(st, NULL, "Ops: measured vs predicted GPU time");
    tp_result *sum = table(st, "summary", "Prediction error per op type");
    tp_result *uns = table(st, "unsupported", "Ops with GPU work and no model");
    if (ops == NULL || sum == NULL || uns == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(st, ops, "preset", p->name);
    int rc = tp_sort(o, n, sizeof *o, by_name_dims, st);
    double covered = 0;
    size_t nsup = 0;
    for (size_t i = 0; i < n && rc == TP_OK;) {
        size_t j = i, k = i, u;
        while (j < n && o[j].name == o[i].name)
            j++; /* one op name: [i, j), its modelled occurrences [i, u) */
        for (u = i; u < j && o[u].model; u++)
            ;
        double meas = 0, unmodelled = 0;
        for (size_t x = i; x < j; x++)
            *(x < u ? &meas : &unmodelled) += o[x].measured_us;
        size_t row;
        if (u < j) {
            rc = tp_result_add_row(st, uns, &row);
            rc = rc ? rc : tp_result_set_str(st, uns, row, pr_unsupported_name,
                                             tp_str_text(st, o[i].name));
            rc = rc ? rc : tp_result_set_i64(st, uns, row, pr_unsupported_count, (int64_t)(j - u));
            rc = rc ? rc : tp_result_set_f64(st, uns, row, pr_unsupported_measured_us, unmodelled);
        }
        for (; k < u && rc == TP_OK;) { /* per input dims */
            size_t m = k;
            double km = 0, ke = 0;
            while (m < u && o[m].dims == o[k].dims) {
                km += o[m].measured_us;
                ke += rel_error(&o[m]);
                m++;
            }
            rc = tp_result_add_row(st, ops, &row);
            rc = rc ? rc : tp_result_set_str(st, ops, row, pr_ops_name, tp_str_text(st, o[k].name));
            if (rc == TP_OK && o[k].dims)
                rc = tp_result_set_str(st, ops, row, pr_ops_input_dims, tp_str_text(st, o[k].dims));
            rc = rc ? rc : tp_result_set_str(st, ops, row, pr_ops_model, o[k].model);
            rc = rc ? rc : tp_result_set_i64(st, ops, row, pr_ops_count, (int64_t)(m - k));
            rc = rc ? rc : tp_result_set_f64(st, ops, row, pr_ops_measured_us, km / (double)(m - k));
            rc = rc ? rc : tp_result_set_f64(st, ops, row, pr_ops_predicted_us, o[k].predicted_us);
            rc = rc ? rc : tp_result_set_f64(st, ops, row, pr_ops_error_percent,
                                             100 * ke / (double)(m - k));
            k = m;
        }
        if (u > i) {
            rc = rc ? rc : summary_row(st, sum, tp_str_text(st, o[i].name), o, i, u, meas, all_us);
            covered += meas;
            nsup += u - i;
        }
        i = j;
    }
    /* overall: every supported occurrence */
    if (rc == TP_OK && nsup > 0) {
        pr_occ *sup = tp_malloc(nsup * sizeof *sup);
        if (sup == NULL)
            return TP_ENOMEM;
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (o[i].model)
                sup[k++] = o[i];
        rc = summary_row(st, sum, "(all)", sup, 0, k, covered, all_us);
        tp_free(sup);
    }
    if (rc == TP_OK)
        coverage_notes(st, sum, covered, all_us, p);
    return rc;
}

/* <id>.embedding: each embedding op occurrence with the inputs read from
 * the trace, its prediction, or why there is none. */
static int by_measured_desc(const void *a, const void *b, void *ctx)
{
    const pr_occ *x = &((const pr_emb_row *)a)->occ, *y = &((const pr_emb_row *)b)->occ;
    (void)ctx;
    if (x->measured_us != y->measured_us)
        return x->measured_us > y->measured_us ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

static int embedding_results(tp_stage *st, pr_emb_row *e, size_t n)
{
    static const int in_col[] = {pr_embedding_B, pr_embedding_E, pr_embedding_T,
                                 pr_embedding_L, pr_embedding_D, pr_embedding_R};
    tp_result *r = table(st, "embedding", "Embedding lookups: model inputs from the trace");
    if (r == NULL)
        return TP_ENOMEM;
    int rc = tp_sort(e, n, sizeof *e, by_measured_desc, NULL);
    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        const pr_occ *x = &e[i].occ;
        const int64_t in[] = {e[i].x.B, e[i].x.E, e[i].x.T, e[i].x.L, e[i].x.D, e[i].x.R};
        size_t row;
        rc = tp_result_add_row(st, r, &row);
        rc = rc ? rc : tp_result_set_str(st, r, row, pr_embedding_name, tp_str_text(st, x->name));
        if (rc == TP_OK && x->model)
            rc = tp_result_set_str(st, r, row, pr_embedding_model, x->model);
        for (int k = 0; k < 6 && rc == TP_OK; k++)
            if (in[k] > 0)
                rc = tp_result_set_i64(st, r, row, in_col[k], in[k]);
        rc = rc ? rc : tp_result_set_f64(st, r, row, pr_embedding_measured_us, x->measured_us);
        if (rc == TP_OK && x->model) {
            rc = tp_result_set_f64(st, r, row, pr_embedding_predicted_us, x->predicted_us);
            rc = rc ? rc : tp_result_set_f64(st, r, row, pr_embedding_error_percent,
                                             100 * rel_error(x));
        }
        if (rc == TP_OK && !x->model && e[i].why[0])
            rc = tp_result_set_str(st, r, row, pr_embedding_reason, e[i].why);
    }
    return rc;
}

/* Appends b[0, nb) to *a (*na of them); frees b. */
static int append(void **a, size_t *na, void *b, size_t nb, size_t size)
{
    if (nb == 0) {
        tp_free(b);
        return TP_OK;
    }
    void *r = tp_realloc(*a, (*na + nb) * size);
    if (r == NULL) {
        tp_free(b);
        return TP_ENOMEM;
    }
    memcpy((char *)r + *na * size, b, nb * size);
    *a = r;
    *na += nb;
    tp_free(b);
    return TP_OK;
}

/* The occurrences of trace k of the stage (its own preset unless the
 * stage names one), appended to *o and *emb, its GPU time added to gpu;
 * trace 0's own GPU time (and its unowned activities) kept in *first. */
static int trace_occurrences(tp_stage *st, size_t k, const pr_config *cfg, pr_models *m,
                             pr_occ **o, size_t *n, pr_gpu_time *gpu, pr_gpu_time *first,
                             pr_emb_row **emb, size_t *nemb)
{
    const tp_trace *t = tp_stage_trace_at(st, k);
    const tp_preset *p0 = m->p;
    if (k > 0 && cfg->preset == NULL && cfg->preset_file == NULL)
        m->p = tp_preset_resolve_trace(st, NULL, t, 1);
    if (m->p == NULL)
        return TP_EINVAL;
    pr_occ *to = NULL;
    pr_emb_row *te = NULL;
    size_t tn = 0, ten = 0;
    pr_gpu_time tg = {0};
    int rc = pr_occurrences(st, t, m, &to, &tn, &tg, &te, &ten);
    pe_index_free(&m->emb);
    m->p = p0;
    for (size_t i = 0; rc == TP_OK && i < tn; i++)
        to[i].trace = (int32_t)k;
    for (size_t i = 0; rc == TP_OK && i < ten; i++)
        te[i].occ.trace = (int32_t)k;
    gpu->all_us += tg.all_us;
    for (int c = 0; c < TP_OPCAT_N; c++)
        gpu->unowned_us[c] += tg.unowned_us[c];
    if (k == 0)
        *first = tg; /* its unowned rows index trace 0 */
    else
        tp_free(tg.unowned);
    if (rc != TP_OK) {
        tp_free(to);
        tp_free(te);
        return rc;
    }
    rc = append((void **)o, n, to, tn, sizeof *to);
    return rc ? rc : append((void **)emb, nemb, te, ten, sizeof *te);
}

int pr_trace_mode(tp_stage *st, const tp_preset *p, const pr_config *cfg, const pr_calib *calib)
{
    const tp_trace *t = tp_stage_trace(st);
    size_t ntr = tp_stage_trace_count(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace and no cases: put a reader first, or give cases");
    int with_table = cfg->fc_table || cfg->fc_table_input;
    if (ntr > 1 && (with_table || cfg->e2e))
        return tp_fail(st, TP_EINVAL, "%s works on one trace: give one trace, or calibrate "
                       "over several without it", with_table ? "a benchmark table" : "e2e");
    pr_models m = {.p = p,
                   .emb_opt = {cfg->embedding_forward ? cfg->embedding_forward : "",
                               cfg->embedding_backward ? cfg->embedding_backward : "",
                               cfg->embedding_dim, cfg->rows_per_block, cfg->l2_gbps}};
    pr_occ *o = NULL;
    pr_emb_row *emb = NULL;
    size_t n = 0, nemb = 0;
    pr_gpu_time gpu = {0};
    pr_table table = {0};
    int rc = pr_load_table(st, cfg, &table);
    if (rc != TP_OK) {
        tp_free(table.rows);
        return rc;
    }
    pf_ops fc = {.rows = table.rows, .n = table.n};
    m.fc = with_table ? &fc : NULL;
    pr_gpu_time first = {0}; /* trace 0's: <id>.unmodelled describes the first trace */
    for (size_t k = 0; rc == TP_OK && k < ntr; k++)
        rc = trace_occurrences(st, k, cfg, &m, &o, &n, &gpu, &first, &emb, &nemb);
    for (size_t i = 0; rc == TP_OK && with_table && i < n; i++)
        if (o[i].model != pr_model_launch) /* a kernel's row, not an op's: not in row order */
            pf_measured(&fc, o[i].row, o[i].measured_us, o[i].predicted_us, o[i].model);
    if (rc == TP_OK)
        rc = trace_results(st, o, n, gpu.all_us, p);
    if (rc == TP_OK)
        rc = embedding_results(st, emb, nemb);
    pr_cal_run *cal = NULL;
    if (rc == TP_OK && pr_calibrating(cfg))
        rc = pr_calib_compute(st, calib, o, n, &cal);
    if (rc == TP_OK) /* after the others: results come out in the order declared */
        rc = pr_category_results(st, o, n, &gpu, pr_calib_values(cal));
    if (rc == TP_OK)
        rc = pr_unmodelled_results(st, t, o, n, &first, emb, nemb); /* trace 0's rows only */
    if (rc == TP_OK && with_table)
        rc = pf_results(st, &fc);
    if (rc == TP_OK && cfg->e2e)
        rc = pr_e2e_results(st, cfg, t, o, n);
    if (rc == TP_OK && cal)
        rc = pr_calib_emit(cal, cfg, calib);
    pr_calib_done(cal);
    tp_free(o);
    tp_free(emb);
    tp_free(first.unowned);
    pf_free(&fc);
    tp_free(table.rows);
    if (rc == TP_EINVAL || rc == TP_ENOTFOUND || rc == TP_EIO)
        return rc;
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}
