/*
 * predict's FC/GEMM table model on result tables and trace ops (see
 * predict_fc.h; ANALYSES.md 5.5; docs/plugins/predict.md).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <tracepipe/tp_sdk_sort.h>

#include "predict_fc.h"
#include "predict_results.h"

/* ---- the table from an input result */

static const char *const pf_cols[] = {"batch_size", "M", "N", "K", "kernel_name",
                                      "kernel_runtime"};

static int table_cols(tp_stage *st, const tp_result *r, const char *id, int col[6])
{
    for (int k = 0; k < 6; k++) {
        col[k] = tp_result_find_col(r, pf_cols[k]);
        if (col[k] < 0)
            return tp_fail(st, TP_EFORMAT, "fc_table_input '%s': no column '%s' (batch_size,M,N,"
                           "K,kernel_name,kernel_runtime)", id, pf_cols[k]);
        tp_coltype t = tp_result_col_type(r, col[k]);
        int ok = k < 4 ? t == TP_COL_I64 : k == 4 ? t == TP_COL_STR : t != TP_COL_STR;
        if (!ok)
            return tp_fail(st, TP_EFORMAT, "fc_table_input '%s': column '%s' holds %s", id,
                           pf_cols[k], k < 4 ? "other values than whole numbers"
                                       : k == 4 ? "numbers, not kernel names"
                                                : "text, not numbers");
    }
    return TP_OK;
}

int pf_table_from_input(tp_stage *st, const char *id, const char *prefix, pm_fc_row **rows,
                        size_t *n)
{
    const tp_result *r = NULL;
    for (size_t i = 0; i < tp_input_count(st) && r == NULL; i++)
        if (strcmp(tp_result_id(tp_input(st, i)), id) == 0)
            r = tp_input(st, i);
    if (r == NULL)
        return tp_fail(st, TP_EINVAL, "fc_table_input '%s': no such result among this stage's "
                       "input: (list the csv_table stage there too: input: [%s])", id, id);
    int col[6];
    int rc = table_cols(st, r, id, col);
    if (rc != TP_OK)
        return rc;
    size_t nr = tp_result_rows(r), k = 0;
    pm_fc_row *out = tp_malloc((nr ? nr : 1) * sizeof *out);
    if (out == NULL)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    for (size_t i = 0; i < nr; i++) {
        int empty = 0;
        for (int c = 0; c < 6; c++)
            empty |= tp_result_is_null(r, i, col[c]);
        const char *kernel = tp_result_get_str(r, i, col[4]);
        if (empty || kernel == NULL || kernel[0] == '\0' ||
            strncmp(kernel, prefix, strlen(prefix)) != 0)
            continue; /* the seed drops rows with an empty field */
        pm_fc_row *x = &out[k];
        for (int c = 0; c < 4; c++)
            x->v[c] = tp_result_get_i64(r, i, col[c]);
        x->runtime_us = tp_result_col_type(r, col[5]) == TP_COL_I64
                            ? (double)tp_result_get_i64(r, i, col[5])
                            : tp_result_get_f64(r, i, col[5]);
        if (!(x->runtime_us > 0)) {
            double bad = x->runtime_us;
            tp_free(out);
            return tp_fail(st, TP_EFORMAT, "fc_table_input '%s': row %zu: kernel_runtime %g is "
                           "not a positive number", id, i + 1, bad);
        }
        k++;
    }
    *rows = out;
    *n = k;
    return TP_OK;
}

/* ---- the ops of a trace */

_Static_assert(TP_GEMM_MAX_RANK == PM_MAX_RANK, "tp_gemm_shape's dims are pm_fc_query's");

static pf_call *new_call(pf_ops *fc)
{
    if (fc->ncalls == fc->cap) {
        size_t cap = fc->cap ? fc->cap * 2 : 64;
        pf_call *g = tp_realloc(fc->calls, cap * sizeof *g);
        if (g == NULL)
            return NULL;
        fc->calls = g;
        fc->cap = cap;
    }
    pf_call *c = &fc->calls[fc->ncalls++];
    memset(c, 0, sizeof *c);
    return c;
}

int pf_predict_op(tp_stage *st, pf_ops *fc, int32_t row, tp_str name, tp_str dims,
                  const tp_gemm_shape *sh, const tp_preset *p, double *us)
{
    pf_call *c = new_call(fc);
    if (c == NULL)
        return -1;
    c->row = row;
    c->name = name;
    c->dims = dims;
    c->mapped = pm_fc_query(tp_str_text(st, name), sh->n, sh->rank, sh->dim, c->q);
    if (!c->mapped) {
        snprintf(c->why, sizeof c->why, "shapes not mapped to (batch, M, N, K)");
        return 0;
    }
    double ef, eb;
    c->answered = pm_fc_predict(fc->rows, fc->n, c->q, p, us, &ef, &eb, c->why, sizeof c->why) == 0;
    return c->answered;
}

void pf_measured(pf_ops *fc, int32_t row, double measured_us, double predicted_us,
                 const char *model)
{
    while (fc->next < fc->ncalls && fc->calls[fc->next].row < row)
        fc->next++; /* calls are recorded in row order, occurrences come in row order */
    if (fc->next < fc->ncalls && fc->calls[fc->next].row == row) {
        pf_call *c = &fc->calls[fc->next];
        c->measured_us = measured_us;
        c->predicted_us = predicted_us;
        c->model = model;
    }
}

static int by_name_dims(const void *a, const void *b, void *ctx)
{
    tp_stage *st = ctx;
    const pf_call *x = a, *y = b;
    int c = strcmp(tp_str_text(st, x->name), tp_str_text(st, y->name));
    if (c == 0)
        c = strcmp(tp_str_text(st, x->dims), tp_str_text(st, y->dims));
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

/* GMAE in percent of the calls [0, n) selected by `answered` (-1: all), as
 * predict's summary computes it (eps 4e-4 inside the log when an error is
 * 0); NAN when none. */
static double gmae_of(const pf_call *c, size_t n, int answered, size_t *count)
{
    double *pred = tp_malloc((n ? n : 1) * sizeof *pred), *meas = tp_malloc((n ? n : 1) * sizeof *meas);
    size_t k = 0;
    int zero = 0;
    for (size_t i = 0; pred && meas && i < n; i++)
        if (c[i].model && c[i].measured_us > 0 && (answered < 0 || c[i].answered == answered)) {
            pred[k] = c[i].predicted_us;
            meas[k] = c[i].measured_us;
            zero |= pred[k] == meas[k];
            k++;
        }
    double mean, g = k ? 100 * pm_gmae(pred, meas, k, zero ? 4e-4 : 0, &mean) : NAN;
    tp_free(pred);
    tp_free(meas);
    *count = k;
    return g;
}

static int note(tp_stage *st, tp_result *r, const char *key, double v, int whole)
{
    char buf[64];
    if (whole)
        snprintf(buf, sizeof buf, "%.0f", v);
    else
        snprintf(buf, sizeof buf, "%.17g", v);
    return isfinite(v) ? tp_result_set_meta(st, r, key, buf) : TP_OK;
}

static int add_group(tp_stage *st, tp_result *r, const pf_call *c, size_t count)
{
    double meas = 0, err = 0;
    for (size_t i = 0; i < count; i++) {
        meas += c[i].measured_us;
        err += fabs(c[i].predicted_us - c[i].measured_us) / c[i].measured_us;
    }
    size_t row;
    int rc = tp_result_add_row(st, r, &row);
    static const int q_col[] = {pr_fc_batch_size, pr_fc_M, pr_fc_N, pr_fc_K}; /* c->q's order */
    rc = rc ? rc : tp_result_set_str(st, r, row, pr_fc_name, tp_str_text(st, c->name));
    if (rc == TP_OK && c->dims)
        rc = tp_result_set_str(st, r, row, pr_fc_input_dims, tp_str_text(st, c->dims));
    for (int d = 0; d < 4 && rc == TP_OK && c->mapped; d++)
        rc = tp_result_set_i64(st, r, row, q_col[d], c->q[d]);
    rc = rc ? rc : tp_result_set_i64(st, r, row, pr_fc_count, (int64_t)count);
    rc = rc ? rc : tp_result_set_str(st, r, row, pr_fc_model, c->model ? c->model : "none");
    rc = rc ? rc : tp_result_set_f64(st, r, row, pr_fc_measured_us, meas / (double)count);
    if (rc == TP_OK && c->model)
        rc = tp_result_set_f64(st, r, row, pr_fc_predicted_us, c->predicted_us);
    if (rc == TP_OK && c->model)
        rc = tp_result_set_f64(st, r, row, pr_fc_error_percent, 100 * err / (double)count);
    if (rc == TP_OK && !c->answered)
        rc = tp_result_set_str(st, r, row, pr_fc_fallback_reason, c->why);
    return rc;
}

int pf_results(tp_stage *st, pf_ops *fc)
{
    tp_result *r = tp_result_declared(st, "fc_table");
    if (r == NULL)
        return TP_ENOMEM;
    int rc = tp_sort(fc->calls, fc->ncalls, sizeof *fc->calls, by_name_dims, st);
    size_t answered = 0, unmapped = 0;
    for (size_t i = 0; i < fc->ncalls && rc == TP_OK;) {
        size_t j = i;
        while (j < fc->ncalls && fc->calls[j].name == fc->calls[i].name &&
               fc->calls[j].dims == fc->calls[i].dims)
            j++; /* same op, same dims: same query, same answer */
        rc = add_group(st, r, &fc->calls[i], j - i);
        for (size_t k = i; k < j; k++) {
            answered += fc->calls[k].answered != 0;
            unmapped += fc->calls[k].mapped == 0;
        }
        i = j;
    }
    size_t n_table, n_all;
    double g_table = gmae_of(fc->calls, fc->ncalls, 1, &n_table);
    double g_all = gmae_of(fc->calls, fc->ncalls, -1, &n_all);
    size_t fallback = fc->ncalls - answered - unmapped;
    rc = rc ? rc : tp_result_set_meta(st, r, "title", "GEMM ops and the FC table model (5.5)");
    rc = rc ? rc : note(st, r, "table_rows", (double)fc->n, 1);
    rc = rc ? rc : note(st, r, "gemm_ops", (double)fc->ncalls, 1);
    rc = rc ? rc : note(st, r, "table_ops", (double)answered, 1);
    rc = rc ? rc : note(st, r, "fallback_ops", (double)fallback, 1);
    rc = rc ? rc : note(st, r, "unmapped_ops", (double)unmapped, 1);
    rc = rc ? rc : note(st, r, "gmae_percent", g_table, 0);
    rc = rc ? rc : note(st, r, "gmae_gemm_percent", g_all, 0);
    if (rc == TP_OK && fallback + unmapped > 0)
        tp_log(st, TP_LOG_WARN, "fc table: %zu of %zu GEMM op calls predicted by the roofline "
               "instead (%zu the table cannot answer, %zu shapes not mapped); see %s.fc_table",
               fallback + unmapped, fc->ncalls, fallback, unmapped, tp_stage_id(st));
    return rc;
}

void pf_free(pf_ops *fc)
{
    tp_free(fc->calls);
    fc->calls = NULL;
    fc->ncalls = fc->cap = 0;
}
