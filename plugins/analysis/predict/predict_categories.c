/*
 * analysis predict, mode trace: coverage and accuracy per category of op
 * (issue 27, <id>.categories): per category (the SDK's tp_op_category_of;
 * communication when the op owns a collective kernel) the GPU time, the
 * share of it a model predicted and their GMAE, then (all) and (without
 * communication).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "predict_internal.h"
#include "predict_results.h"

typedef struct pr_cat {
    const char *name;
    int64_t count, modelled;
    double gpu_us, modelled_us;
    double launch_us;     /* of modelled_us, by an identical launch (pr_model_launch) */
    int pick[TP_OPCAT_N]; /* the categories this row sums */
    double cal_gmae;      /* calibrating: the calibrated GMAE (NaN: none), for the title */
} pr_cat;

/* One row: the occurrences of the row's categories, their GMAE and mean
 * error over those a model predicted. */
/* The calibrated GMAE of the row's occurrences m[0, k) (their indices in
 * at[]), as <id>.calibration's (tp_calib_gmae): *nc of them have a
 * calibrated prediction cal[at[i]].  NaN when none, or out of memory. */
static double calibrated_gmae(const pr_occ *m, const size_t *at, size_t k, const double *cal,
                              size_t *nc)
{
    double *p = tp_malloc(2 * (k ? k : 1) * sizeof *p), *q = p ? p + k : NULL;
    *nc = 0;
    for (size_t i = 0; p && i < k; i++)
        if (!isnan(cal[at[i]])) {
            p[*nc] = cal[at[i]];
            q[(*nc)++] = m[i].measured_us;
        }
    double g = *nc ? tp_calib_gmae(p, q, *nc) : NAN;
    tp_free(p);
    return g;
}

static int category_row(tp_stage *st, tp_result *r, pr_cat *c, const pr_occ *o, size_t n,
                        double all_us, const double *cal)
{
    pr_occ *m = tp_malloc((n ? n : 1) * sizeof *m);
    size_t *at = tp_malloc((n ? n : 1) * sizeof *at);
    if (m == NULL || at == NULL) {
        tp_free(m);
        tp_free(at);
        return TP_ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (o[i].model && c->pick[o[i].category])
            at[k] = i, m[k++] = o[i];
    size_t row;
    int rc = tp_result_add_row(st, r, &row);
    rc = rc ? rc : tp_result_set_str(st, r, row, pr_category_category, c->name);
    rc = rc ? rc : tp_result_set_i64(st, r, row, pr_category_count, c->count);
    rc = rc ? rc : tp_result_set_i64(st, r, row, pr_category_n_modelled, c->modelled);
    rc = rc ? rc : tp_result_set_f64(st, r, row, pr_category_gpu_us, c->gpu_us);
    if (rc == TP_OK && all_us > 0)
        rc = tp_result_set_f64(st, r, row, pr_category_share_percent, 100 * c->gpu_us / all_us);
    rc = rc ? rc : tp_result_set_f64(st, r, row, pr_category_modelled_us, c->modelled_us);
    if (rc == TP_OK && c->gpu_us > 0)
        rc = tp_result_set_f64(st, r, row, pr_category_coverage_percent,
                               100 * c->modelled_us / c->gpu_us);
    rc = rc ? rc : tp_result_set_f64(st, r, row, pr_category_identical_launch_us, c->launch_us);
    if (rc == TP_OK && k > 0) {
        double g, mean, sd;
        pr_error_stats(m, 0, k, &g, &mean, &sd);
        rc = tp_result_set_f64(st, r, row, pr_category_gmae_percent, 100 * g);
        rc = rc ? rc : tp_result_set_f64(st, r, row, pr_category_mean_error_percent, 100 * mean);
    }
    c->cal_gmae = NAN;
    if (rc == TP_OK && cal) {
        size_t nc;
        c->cal_gmae = calibrated_gmae(m, at, k, cal, &nc);
        rc = tp_result_set_i64(st, r, row, pr_category_n_calibrated, (int64_t)nc);
        if (rc == TP_OK && nc > 0)
            rc = tp_result_set_f64(st, r, row, pr_category_calibrated_gmae_percent,
                                   100 * c->cal_gmae);
    }
    tp_free(m);
    tp_free(at);
    return rc;
}

static int by_gpu_desc(const void *a, const void *b, void *ctx)
{
    const pr_cat *x = a, *y = b;
    (void)ctx;
    if (x->gpu_us != y->gpu_us)
        return x->gpu_us > y->gpu_us ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* The one-line summary in the result's title: each category's coverage. */
static void category_title(tp_stage *st, tp_result *r, const pr_cat *c, size_t nc,
                           const pr_cat *all, const pr_cat *nocomm)
{
    char title[1024];
    size_t len = (size_t)snprintf(title, sizeof title, "Coverage per category: %.2f %% of the "
                                  "GPU time modelled, %.2f %% without communication",
                                  all->gpu_us > 0 ? 100 * all->modelled_us / all->gpu_us : 0,
                                  nocomm->gpu_us > 0 ? 100 * nocomm->modelled_us / nocomm->gpu_us : 0);
    for (size_t i = 0; i < nc && len < sizeof title; i++)
        if (c[i].gpu_us > 0)
            len += (size_t)snprintf(title + len, sizeof title - len, "%s %s %.2f %%",
                                    i ? "," : ";", c[i].name, 100 * c[i].modelled_us / c[i].gpu_us);
    int first = 1;
    for (size_t i = 0; i < nc && len < sizeof title; i++)
        if (!isnan(c[i].cal_gmae)) {
            len += (size_t)snprintf(title + len, sizeof title - len, "%s %s %.2f %%",
                                    first ? "; calibrated GMAE out of sample:" : ",", c[i].name,
                                    100 * c[i].cal_gmae);
            first = 0;
        }
    tp_result_set_meta(st, r, "title", title);
}

int pr_category_results(tp_stage *st, const pr_occ *o, size_t n, const pr_gpu_time *gpu,
                        const double *cal)
{
    tp_result *r = tp_result_declared(st, "categories");
    if (r == NULL)
        return TP_ENOMEM;
    pr_cat c[TP_OPCAT_N], all = {"(all)", 0, 0, 0, 0, 0, {0}, NAN}, nocomm;
    memset(c, 0, sizeof c);
    for (int k = 0; k < TP_OPCAT_N; k++) {
        c[k].name = tp_op_category_name((tp_op_category)k);
        c[k].pick[k] = 1;
        c[k].gpu_us = gpu->unowned_us[k];
        all.pick[k] = 1;
    }
    for (size_t i = 0; i < n; i++) {
        pr_cat *x = &c[o[i].category];
        x->count++;
        x->gpu_us += o[i].measured_us;
        x->modelled += o[i].model != NULL;
        x->modelled_us += o[i].model ? o[i].measured_us : 0;
        x->launch_us += o[i].model == pr_model_launch ? o[i].measured_us : 0;
    }
    for (int k = 0; k < TP_OPCAT_N; k++) {
        all.count += c[k].count, all.modelled += c[k].modelled;
        all.gpu_us += c[k].gpu_us, all.modelled_us += c[k].modelled_us;
        all.launch_us += c[k].launch_us;
    }
    const pr_cat *comm = &c[TP_OPCAT_COMMUNICATION];
    nocomm = all;
    nocomm.name = "(without communication)";
    nocomm.pick[TP_OPCAT_COMMUNICATION] = 0;
    nocomm.count -= comm->count, nocomm.modelled -= comm->modelled;
    nocomm.gpu_us -= comm->gpu_us, nocomm.modelled_us -= comm->modelled_us;
    nocomm.launch_us -= comm->launch_us;
    int rc = tp_sort(c, TP_OPCAT_N, sizeof *c, by_gpu_desc, NULL);
    for (int k = 0; k < TP_OPCAT_N && rc == TP_OK; k++)
        rc = category_row(st, r, &c[k], o, n, gpu->all_us, cal);
    rc = rc ? rc : category_row(st, r, &all, o, n, gpu->all_us, cal);
    rc = rc ? rc : category_row(st, r, &nocomm, o, n, gpu->all_us, cal);
    if (rc == TP_OK)
        category_title(st, r, c, TP_OPCAT_N, &all, &nocomm);
    return rc;
}
