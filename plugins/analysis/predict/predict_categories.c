/*
 * analysis predict, mode trace: coverage and accuracy per category of op
 * (issue 27, <id>.categories): per category (the SDK's tp_op_category_of;
 * communication when the op owns a collective kernel) the GPU time, the
 * share of it a model predicted and their GMAE, then (all) and (without
 * communication).
 */
#include <stdio.h>
#include <string.h>

#include "predict_internal.h"
#include "predict_results.h"

typedef struct pr_cat {
    const char *name;
    int64_t count, modelled;
    double gpu_us, modelled_us;
    int pick[TP_OPCAT_N]; /* the categories this row sums */
} pr_cat;

/* One row: the occurrences of the row's categories, their GMAE and mean
 * error over those a model predicted. */
static int category_row(tp_stage *st, tp_result *r, const pr_cat *c, const pr_occ *o, size_t n,
                        double all_us)
{
    pr_occ *m = tp_malloc((n ? n : 1) * sizeof *m);
    if (m == NULL)
        return TP_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (o[i].model && c->pick[o[i].category])
            m[k++] = o[i];
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
    if (rc == TP_OK && k > 0) {
        double g, mean, sd;
        pr_error_stats(m, 0, k, &g, &mean, &sd);
        rc = tp_result_set_f64(st, r, row, pr_category_gmae_percent, 100 * g);
        rc = rc ? rc : tp_result_set_f64(st, r, row, pr_category_mean_error_percent, 100 * mean);
    }
    tp_free(m);
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
    tp_result_set_meta(st, r, "title", title);
}

int pr_category_results(tp_stage *st, const pr_occ *o, size_t n, const pr_gpu_time *gpu)
{
    tp_result *r = tp_result_declared(st, "categories");
    if (r == NULL)
        return TP_ENOMEM;
    pr_cat c[TP_OPCAT_N], all = {"(all)", 0, 0, 0, 0, {0}}, nocomm;
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
    }
    for (int k = 0; k < TP_OPCAT_N; k++) {
        all.count += c[k].count, all.modelled += c[k].modelled;
        all.gpu_us += c[k].gpu_us, all.modelled_us += c[k].modelled_us;
    }
    const pr_cat *comm = &c[TP_OPCAT_COMMUNICATION];
    nocomm = all;
    nocomm.name = "(without communication)";
    nocomm.pick[TP_OPCAT_COMMUNICATION] = 0;
    nocomm.count -= comm->count, nocomm.modelled -= comm->modelled;
    nocomm.gpu_us -= comm->gpu_us, nocomm.modelled_us -= comm->modelled_us;
    int rc = tp_sort(c, TP_OPCAT_N, sizeof *c, by_gpu_desc, NULL);
    for (int k = 0; k < TP_OPCAT_N && rc == TP_OK; k++)
        rc = category_row(st, r, &c[k], o, n, gpu->all_us);
    rc = rc ? rc : category_row(st, r, &all, o, n, gpu->all_us);
    rc = rc ? rc : category_row(st, r, &nocomm, o, n, gpu->all_us);
    if (rc == TP_OK)
        category_title(st, r, c, TP_OPCAT_N, &all, &nocomm);
    return rc;
}
