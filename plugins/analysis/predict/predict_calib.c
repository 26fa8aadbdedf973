/*
 * analysis predict: calibrated predictions (issue 27 item 4).  A model's
 * value is a lower bound; per device and category of op the SDK's curve
 * (tp_sdk_calib.h: measured = t0_us * kernels + slope * bound) turns it
 * into a prediction.  calibrate: fit fits it on the modelled occurrences
 * and reports its error out of sample -- leave one trace out when the
 * stage has several traces (trace: [a, b, ...], or batch: true in a
 * batch), else leave one iteration out -- and calibration_out writes it;
 * calibration: reads a fit and applies it (out of sample unless the file
 * was fitted on this very trace).
 */
#include <stdio.h>
#include <string.h>

#include <tracepipe/tp_sdk_iter.h>
#include <tracepipe/tp_sdk_kname.h>

#include "predict_calib_results.h"
#include "predict_internal.h"

/* What a calibration run works with: the occurrences, their held-out
 * group (trace or iteration, -1: none), their calibrated prediction (NaN:
 * none). */
struct cal_run {
    tp_stage *st;
    const pr_occ *o;
    size_t n;
    int32_t *group;
    double *cal;
    size_t *ix; /* the modelled occurrences, by device, category, then cell type */
    size_t nix;
    const char **dtype; /* each occurrence's kernels' type ("": not decoded) */
    const char **cell;  /* its cell's type: dtype when that type has a curve of its own */
    double *bound;      /* each occurrence's bound at its kernels' rate (kernel_bound) */
    pr_calib fit; /* calibrate: fit: the curves fitted on all samples */
    const char *holdout;
};
typedef struct cal_run cal_run;

static int modelled(const pr_occ *x)
{
    return x->model != NULL && x->measured_us > 0 && x->category != TP_OPCAT_COMMUNICATION;
}

static double rel_err(double pred, double meas) { return fabs(pred - meas) / meas; }

/* The group of each occurrence: its trace with several, else its iteration. */
static int groups_of(cal_run *r)
{
    r->group = tp_malloc((r->n ? r->n : 1) * sizeof *r->group);
    if (r->group == NULL)
        return TP_ENOMEM;
    if (tp_stage_trace_count(r->st) > 1) {
        r->holdout = "trace";
        for (size_t i = 0; i < r->n; i++)
            r->group[i] = r->o[i].trace;
        return TP_OK;
    }
    r->holdout = "iteration";
    tp_trace *t = tp_stage_trace(r->st);
    tp_iter_view v;
    int rc = tp_iter_view_get(r->st, t, NULL, &v);
    if (rc != TP_OK)
        return rc;
    rc = tp_iter_view_rows(r->st, t, &v);
    for (size_t i = 0; rc == TP_OK && i < r->n; i++)
        r->group[i] = r->o[i].row >= 0 ? v.row[r->o[i].row] : -1;
    tp_iter_view_release(&v);
    return rc;
}

static int by_cell(const void *a, const void *b, void *ctx)
{
    const cal_run *r = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const pr_occ *x = &r->o[i], *y = &r->o[j];
    int c = strcmp(x->device, y->device);
    if (c)
        return c;
    if (x->category != y->category)
        return x->category < y->category ? -1 : 1;
    c = strcmp(r->cell[i], r->cell[j]);
    if (c)
        return c;
    return (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

static tp_calib_sample sample_of(const cal_run *r, size_t i)
{
    const pr_occ *x = &r->o[i];
    tp_calib_sample s = {r->bound[i], x->measured_us, (double)x->kernels};
    return s;
}

/* The largest group among the cell ix[0, m) (traces or iterations: small
 * numbers; -1: none). */
static int32_t largest_group(const cal_run *r, const size_t *ix, size_t m)
{
    int32_t most = -1;
    for (size_t i = 0; i < m; i++)
        most = r->group[ix[i]] > most ? r->group[ix[i]] : most;
    return most;
}

/* Distinct groups >= 0 among the cell ix[0, m) whose largest group is most
 * (largest_group), by a seen flag per group: one pass.  0 when memory runs
 * out. */
static size_t distinct_groups(const cal_run *r, const size_t *ix, size_t m, int32_t most)
{
    unsigned char *seen = most >= 0 ? tp_calloc((size_t)most + 1, 1) : NULL;
    size_t k = 0;
    for (size_t i = 0; seen && i < m; i++) {
        int32_t g = r->group[ix[i]];
        if (g >= 0 && !seen[g]) {
            seen[g] = 1;
            k++;
        }
    }
    tp_free(seen);
    return k;
}

/* Leave one group out over the cell ix[0, m) (its largest group most): each
 * group's occurrences predicted by the curve fitted on the others. */
static int leave_one_out(cal_run *r, const size_t *ix, size_t m, int32_t most,
                         tp_calib_sample *s, unsigned char *keep)
{
    unsigned char *done = most >= 0 ? tp_calloc((size_t)most + 1, 1) : NULL;
    if (most >= 0 && done == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < m; i++) {
        int32_t g = r->group[ix[i]];
        if (g < 0 || done[g])
            continue; /* outside any group, or its group fitted (or failed) once */
        done[g] = 1;
        for (size_t j = 0; j < m; j++)
            keep[j] = r->group[ix[j]] != g;
        tp_calib_curve c;
        if (!tp_calib_fit(s, m, keep, &c))
            continue;
        for (size_t j = 0; j < m; j++)
            if (!keep[j])
                r->cal[ix[j]] = tp_calib_predict(&c, s[j].bound_us, s[j].kernels);
    }
    tp_free(done);
    return TP_OK;
}

/* calibrate: fit on the cell ix[0, m): the curve on all samples (added to
 * r->fit), the errors out of sample. */
static int fit_cell(cal_run *r, const size_t *ix, size_t m)
{
    tp_calib_sample *s = tp_malloc(m * sizeof *s);
    unsigned char *keep = tp_malloc(m);
    pr_curve *k = tp_realloc(r->fit.curves, (r->fit.n + 1) * sizeof *k);
    int rc = s && keep && k ? TP_OK : TP_ENOMEM;
    if (k)
        r->fit.curves = k;
    for (size_t i = 0; rc == TP_OK && i < m; i++)
        s[i] = sample_of(r, ix[i]);
    if (rc == TP_OK) {
        pr_curve *c = &r->fit.curves[r->fit.n];
        memset(c, 0, sizeof *c);
        snprintf(c->device, sizeof c->device, "%s", r->o[ix[0]].device);
        c->category = r->o[ix[0]].category;
        snprintf(c->dtype, sizeof c->dtype, "%s", r->cell[ix[0]]);
        int32_t most = largest_group(r, ix, m);
        c->n_groups = (int64_t)distinct_groups(r, ix, m, most);
        r->fit.n += tp_calib_fit(s, m, NULL, &c->c) ? 1u : 0u;
        rc = leave_one_out(r, ix, m, most, s, keep);
    }
    tp_free(s);
    tp_free(keep);
    return rc;
}

/* The file's curve of (device, category), else (warned by file_holdout)
 * one of the category on another device; NULL: none. */
static const pr_curve *file_curve(const pr_calib *f, const char *device, tp_op_category cat,
                                  const char *dtype)
{
    const pr_curve *any = NULL, *all_types = NULL;
    for (size_t i = 0; i < f->n; i++) {
        const pr_curve *k = &f->curves[i];
        if (k->category != cat)
            continue;
        if (strcmp(k->device, device) == 0 && strcmp(k->dtype, dtype) == 0)
            return k;
        if (strcmp(k->device, device) == 0 && k->dtype[0] == '\0')
            all_types = all_types ? all_types : k;
        any = any ? any : k;
    }
    return all_types ? all_types : any;
}

static int file_has_device(const pr_calib *f, const char *device)
{
    for (size_t i = 0; i < f->n; i++)
        if (strcmp(f->curves[i].device, device) == 0)
            return 1;
    return 0;
}

static int file_has_trace(const pr_calib *f, const char *label)
{
    for (size_t i = 0; label && i < f->ntraces; i++)
        if (strcmp(f->traces[i], label) == 0)
            return 1;
    return 0;
}

/* calibration: PATH on the cell ix[0, m). */
static void apply_cell(cal_run *r, const pr_calib *f, const size_t *ix, size_t m)
{
    const pr_curve *c = file_curve(f, r->o[ix[0]].device, r->o[ix[0]].category, r->cell[ix[0]]);
    for (size_t i = 0; c && i < m; i++) {
        tp_calib_sample s = sample_of(r, ix[i]);
        r->cal[ix[i]] = tp_calib_predict(&c->c, s.bound_us, s.kernels);
    }
}

/* Error figures of the cell's calibrated predictions. */
typedef struct cell_err {
    double bound_gmae, gmae, mean, median;
    size_t npred;
} cell_err;

static int cell_errors(const cal_run *r, const size_t *ix, size_t m, cell_err *e)
{
    double *p = tp_malloc(2 * m * sizeof *p), *q = p ? p + m : NULL;
    if (p == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < m; i++) {
        p[i] = r->o[ix[i]].predicted_us;
        q[i] = r->o[ix[i]].measured_us;
    }
    e->bound_gmae = tp_calib_gmae(p, q, m);
    e->npred = 0;
    e->mean = 0;
    for (size_t i = 0; i < m; i++)
        if (!isnan(r->cal[ix[i]])) {
            p[e->npred] = r->cal[ix[i]];
            q[e->npred++] = r->o[ix[i]].measured_us;
            e->mean += rel_err(r->cal[ix[i]], r->o[ix[i]].measured_us);
        }
    e->gmae = tp_calib_gmae(p, q, e->npred);
    e->mean = e->npred ? e->mean / (double)e->npred : NAN;
    for (size_t i = 0; i < e->npred; i++)
        p[i] = rel_err(p[i], q[i]);
    e->median = NAN;
    int rc = e->npred ? tp_median_of(p, e->npred, &e->median) : TP_OK;
    tp_free(p);
    return rc;
}

static int set_f64(tp_stage *st, tp_result *t, size_t row, int col, double v)
{
    return isnan(v) ? TP_OK : tp_result_set_f64(st, t, row, col, v);
}

/* The curve of a cell: the fitted one (fit) or the file's. */
static const pr_curve *cell_curve(const cal_run *r, const pr_calib *f, size_t i)
{
    const pr_occ *x = &r->o[i];
    if (f)
        return file_curve(f, x->device, x->category, r->cell[i]);
    for (size_t k = 0; k < r->fit.n; k++)
        if (strcmp(r->fit.curves[k].device, x->device) == 0 &&
            r->fit.curves[k].category == x->category &&
            strcmp(r->fit.curves[k].dtype, r->cell[i]) == 0)
            return &r->fit.curves[k];
    return NULL;
}

/* Why a cell has no out-of-sample figure (NULL: it has one). */
static const char *no_figure(const cal_run *r, const pr_calib *f, const pr_curve *c,
                             const size_t *ix, size_t m, const cell_err *e)
{
    if (e->npred > 0)
        return NULL;
    if (c == NULL)
        return f ? "the calibration file has no curve of this category"
                 : "fewer than 2 samples to fit";
    if (distinct_groups(r, ix, m, largest_group(r, ix, m)) < 2)
        return strcmp(r->holdout, "trace") == 0 ? "one trace: nothing to hold out"
                                                : "one iteration: nothing to hold out; give "
                                                  "several traces (trace: [...] or a batch)";
    return "each held-out fit had fewer than 2 samples";
}

static int calibration_row(cal_run *r, tp_result *t, const pr_calib *f, const char *holdout,
                           const size_t *ix, size_t m)
{
    tp_stage *st = r->st;
    const pr_occ *x = &r->o[ix[0]];
    const pr_curve *c = cell_curve(r, f, ix[0]);
    cell_err e;
    size_t row;
    int rc = cell_errors(r, ix, m, &e);
    const char *why = rc == TP_OK ? no_figure(r, f, c, ix, m, &e) : NULL;
    rc = rc ? rc : tp_result_add_row(st, t, &row);
    rc = rc ? rc : tp_result_set_str(st, t, row, pr_calibration_device, x->device);
    rc = rc ? rc : tp_result_set_str(st, t, row, pr_calibration_category,
                                     tp_op_category_name(x->category));
    if (rc == TP_OK && r->cell[ix[0]][0])
        rc = tp_result_set_str(st, t, row, pr_calibration_dtype, r->cell[ix[0]]);
    if (rc == TP_OK && why == NULL)
        rc = tp_result_set_str(st, t, row, pr_calibration_holdout, holdout);
    rc = rc ? rc : tp_result_set_i64(st, t, row, pr_calibration_count, (int64_t)m);
    if (rc == TP_OK && c) {
        rc = tp_result_set_i64(st, t, row, pr_calibration_n_fit, (int64_t)c->c.n);
        rc = rc ? rc : tp_result_set_i64(st, t, row, pr_calibration_n_groups, c->n_groups);
        rc = rc ? rc : tp_result_set_f64(st, t, row, pr_calibration_t0_us, c->c.t0_us);
        rc = rc ? rc : tp_result_set_f64(st, t, row, pr_calibration_slope, c->c.slope);
        if (rc == TP_OK && c->c.slope > 0)
            rc = tp_result_set_f64(st, t, row, pr_calibration_efficiency, 1 / c->c.slope);
    }
    rc = rc ? rc : set_f64(st, t, row, pr_calibration_bound_gmae_percent, 100 * e.bound_gmae);
    rc = rc ? rc : tp_result_set_i64(st, t, row, pr_calibration_n_predicted, (int64_t)e.npred);
    rc = rc ? rc : set_f64(st, t, row, pr_calibration_gmae_percent, 100 * e.gmae);
    rc = rc ? rc : set_f64(st, t, row, pr_calibration_mean_error_percent, 100 * e.mean);
    rc = rc ? rc : set_f64(st, t, row, pr_calibration_median_error_percent, 100 * e.median);
    if (rc == TP_OK && why)
        rc = tp_result_set_str(st, t, row, pr_calibration_reason, why);
    return rc;
}

/* The end of the cell (device, category, cell type) that starts at
 * r->ix[i]. */
static size_t cell_end(const cal_run *r, size_t i)
{
    size_t j = i;
    while (j < r->nix && r->o[r->ix[j]].category == r->o[r->ix[i]].category &&
           strcmp(r->o[r->ix[j]].device, r->o[r->ix[i]].device) == 0 &&
           strcmp(r->cell[r->ix[j]], r->cell[r->ix[i]]) == 0)
        j++;
    return j;
}

/* ------------------------------------------------- curves per kernel type */

/* A type's own curve needs this many samples in at least 2 groups (traces
 * or iterations); fewer share the category's curve of the other types.
 * Chosen after seeing the corpus (docs/prediction.md). */
#define PR_CAL_TYPE_MIN 20

/* The bound of occurrence x whose kernels are of type dtype: its model's
 * (x->bound_us), except a TF32 kernel's, whose FP32 inputs the model
 * bounds at the FP32 rate: the roofline at the preset's TF32 rate (a
 * built-in preset's: p, tp_preset_find of its device, NULL for none) is its
 * lower bound. */
static double kernel_bound(const pr_occ *x, const tp_preset *p, const char *dtype)
{
    if (strcmp(dtype, "tf32") != 0 || p == NULL || p->tf32 <= 0 || x->fp32_flops <= 0)
        return x->bound_us;
    return pm_roofline_at(x->fp32_flops, x->bytes, p->tf32, p->dram_gbps);
}

/* Each modelled occurrence's kernel type: its longest kernel's name
 * decoded (tp_gemm_kernel_decode: GEMM kernels), once per name; its bound
 * at that type's rate. */
static int kernel_types(cal_run *r)
{
    size_t nstr = tp_str_count(r->st);
    const char **memo = tp_calloc(nstr ? nstr : 1, sizeof *memo);
    r->dtype = tp_malloc((r->n ? r->n : 1) * sizeof *r->dtype);
    r->cell = tp_malloc((r->n ? r->n : 1) * sizeof *r->cell);
    r->bound = tp_malloc((r->n ? r->n : 1) * sizeof *r->bound);
    if (memo == NULL || r->dtype == NULL || r->cell == NULL || r->bound == NULL) {
        tp_free(memo);
        return TP_ENOMEM;
    }
    const char *device = NULL; /* the occurrences' device, resolved once per run of them */
    const tp_preset *p = NULL;
    for (size_t i = 0; i < r->n; i++) {
        tp_str k = r->o[i].kernel;
        if (device == NULL || strcmp(device, r->o[i].device) != 0)
            device = r->o[i].device, p = tp_preset_find(device);
        if (k && (size_t)k < nstr && memo[k] == NULL) {
            tp_gemm_kname d;
            memo[k] = tp_gemm_kernel_decode(tp_str_text(r->st, k), &d) ? d.dtype : "";
        }
        r->dtype[i] = k && (size_t)k < nstr ? memo[k] : "";
        r->cell[i] = r->dtype[i];
        r->bound[i] = kernel_bound(&r->o[i], p, r->dtype[i]);
    }
    tp_free(memo);
    return TP_OK;
}

/* Within each (device, category) of r->ix (sorted by type): a type with
 * PR_CAL_TYPE_MIN samples in 2 groups or more keeps its own cell when the
 * category has several types; the others share one cell ("": other types).
 * Then r->ix sorted by those cells. */
static int type_cells(cal_run *r)
{
    for (size_t i = 0; i < r->nix;) {
        size_t j = cell_end(r, i), end = j;
        while (end < r->nix && r->o[r->ix[end]].category == r->o[r->ix[i]].category &&
               strcmp(r->o[r->ix[end]].device, r->o[r->ix[i]].device) == 0)
            end++; /* the category [i, end), its types [i, j), [j, ...) ... */
        if (j == end) { /* one type: the category's curve, for all types */
            for (size_t k = i; k < end; k++)
                r->cell[r->ix[k]] = "";
            i = end;
            continue;
        }
        for (size_t a = i; a < end;) {
            size_t b = cell_end(r, a);
            int own = b - a >= PR_CAL_TYPE_MIN &&
                      distinct_groups(r, r->ix + a, b - a, largest_group(r, r->ix + a, b - a)) >= 2;
            for (size_t k = a; !own && k < b; k++)
                r->cell[r->ix[k]] = "";
            a = b;
        }
        i = end;
    }
    return tp_sort(r->ix, r->nix, sizeof *r->ix, by_cell, r);
}

/* ----------------------------------------------------- <id>.calibrated */

static const char *text_or_empty(tp_stage *st, tp_str s) { return s ? tp_str_text(st, s) : ""; }

static int by_op(const void *a, const void *b, void *ctx)
{
    const cal_run *r = ctx;
    const pr_occ *x = &r->o[*(const size_t *)a], *y = &r->o[*(const size_t *)b];
    int c = strcmp(x->device, y->device);
    c = c ? c : strcmp(tp_str_text(r->st, x->name), tp_str_text(r->st, y->name));
    c = c ? c : strcmp(text_or_empty(r->st, x->dims), text_or_empty(r->st, y->dims));
    return c ? c : (*(const size_t *)a > *(const size_t *)b) - (*(const size_t *)a < *(const size_t *)b);
}

static int calibrated_row(cal_run *r, tp_result *t, const size_t *ix, size_t m)
{
    tp_stage *st = r->st;
    const pr_occ *x = &r->o[ix[0]];
    double meas = 0, pred = 0, cal = 0, err = 0;
    size_t nc = 0, row;
    for (size_t i = 0; i < m; i++) {
        const pr_occ *y = &r->o[ix[i]];
        meas += y->measured_us;
        pred += y->predicted_us;
        if (!isnan(r->cal[ix[i]])) {
            cal += r->cal[ix[i]];
            err += rel_err(r->cal[ix[i]], y->measured_us);
            nc++;
        }
    }
    int rc = tp_result_add_row(st, t, &row);
    rc = rc ? rc : tp_result_set_str(st, t, row, pr_calibrated_device, x->device);
    rc = rc ? rc : tp_result_set_str(st, t, row, pr_calibrated_name, tp_str_text(st, x->name));
    if (rc == TP_OK && x->dims)
        rc = tp_result_set_str(st, t, row, pr_calibrated_input_dims, tp_str_text(st, x->dims));
    rc = rc ? rc : tp_result_set_str(st, t, row, pr_calibrated_category,
                                     tp_op_category_name(x->category));
    rc = rc ? rc : tp_result_set_i64(st, t, row, pr_calibrated_count, (int64_t)m);
    rc = rc ? rc : tp_result_set_f64(st, t, row, pr_calibrated_measured_us, meas / (double)m);
    rc = rc ? rc : tp_result_set_f64(st, t, row, pr_calibrated_predicted_us, pred / (double)m);
    if (rc == TP_OK && nc > 0) {
        rc = tp_result_set_f64(st, t, row, pr_calibrated_calibrated_us, cal / (double)nc);
        rc = rc ? rc : tp_result_set_f64(st, t, row, pr_calibrated_error_percent,
                                         100 * err / (double)nc);
    }
    return rc;
}

static int calibrated_results(cal_run *r)
{
    tp_result *t = tp_result_declared(r->st, "calibrated");
    if (t == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(r->st, t, "title", "Ops: measured, bound and calibrated GPU time");
    int rc = tp_sort(r->ix, r->nix, sizeof *r->ix, by_op, r);
    for (size_t i = 0; rc == TP_OK && i < r->nix;) {
        size_t j = i + 1;
        const pr_occ *x = &r->o[r->ix[i]];
        while (j < r->nix && r->o[r->ix[j]].name == x->name && r->o[r->ix[j]].dims == x->dims &&
               strcmp(r->o[r->ix[j]].device, x->device) == 0)
            j++;
        rc = calibrated_row(r, t, r->ix + i, j - i);
        i = j;
    }
    return rc;
}

/* ------------------------------------------------------------ the file */

static const char *trace_label(tp_stage *st, size_t k)
{
    const char *l = tp_trace_info_str(tp_stage_trace_at(st, k), "label");
    return l ? l : "";
}

/* The fit's traces (their labels) and holdout, for calibration_out. */
static int fit_traces(cal_run *r)
{
    size_t nt = tp_stage_trace_count(r->st);
    snprintf(r->fit.holdout, sizeof r->fit.holdout, "%s", r->holdout);
    r->fit.traces = tp_calloc(nt + 1, sizeof *r->fit.traces);
    if (r->fit.traces == NULL)
        return TP_ENOMEM;
    for (size_t k = 0; k < nt; k++) {
        const char *l = trace_label(r->st, k);
        size_t len = strlen(l) + 1;
        if ((r->fit.traces[k] = tp_malloc(len)) == NULL)
            return TP_ENOMEM;
        memcpy(r->fit.traces[k], l, len);
        r->fit.ntraces++;
    }
    return TP_OK;
}

/* ---------------------------------------------------------- the stage */

/* calibration: what the file says about these traces: a device it was
 * not fitted on (its curves are applied by category), or traces it was
 * fitted on (errors in sample). */
static const char *file_holdout(tp_stage *st, const pr_config *cfg, const pr_calib *f,
                                const cal_run *r)
{
    int in = 0;
    for (size_t k = 0; k < tp_stage_trace_count(st); k++)
        in |= file_has_trace(f, trace_label(st, k));
    for (size_t i = 0; i < r->nix; i++)
        if (!file_has_device(f, r->o[r->ix[i]].device)) {
            tp_log(st, TP_LOG_WARN, "%s: fitted on %s, not on this trace's preset %s: its "
                   "curves are applied by category, predictions for another device",
                   cfg->calibration, f->curves[0].device, r->o[r->ix[i]].device);
            break;
        }
    if (in)
        tp_log(st, TP_LOG_WARN, "%s was fitted on this trace: its calibrated errors are in "
               "sample", cfg->calibration);
    return in ? "in_sample" : "file";
}

static int calibration_results(cal_run *r, const pr_config *cfg, const pr_calib *f)
{
    tp_stage *st = r->st;
    tp_result *t = tp_result_declared(st, "calibration");
    if (t == NULL)
        return TP_ENOMEM;
    const char *holdout = f ? file_holdout(st, cfg, f, r) : r->holdout;
    char title[160];
    snprintf(title, sizeof title, "Calibrated predictions per device and category (out of "
             "sample: %s)", strcmp(holdout, "trace") == 0       ? "leave one trace out"
                            : strcmp(holdout, "iteration") == 0 ? "leave one iteration out"
                            : strcmp(holdout, "file") == 0      ? "fitted on other traces"
                                                                : "no: in sample");
    tp_result_set_meta(st, t, "title", title);
    tp_result_set_meta(st, t, "holdout", holdout);
    if (f)
        tp_result_set_meta(st, t, "calibration", cfg->calibration);
    int rc = TP_OK;
    for (size_t i = 0; rc == TP_OK && i < r->nix;) {
        size_t j = cell_end(r, i);
        rc = calibration_row(r, t, f, holdout, r->ix + i, j - i);
        i = j;
    }
    return rc;
}

int pr_calib_compute(tp_stage *st, const pr_calib *calib, const pr_occ *o, size_t n,
                     pr_cal_run **out)
{
    cal_run *r = *out = tp_calloc(1, sizeof *r);
    if (r == NULL)
        return TP_ENOMEM;
    r->st = st, r->o = o, r->n = n;
    r->cal = tp_malloc((n ? n : 1) * sizeof *r->cal);
    r->ix = tp_malloc((n ? n : 1) * sizeof *r->ix);
    int rc = r->cal && r->ix ? groups_of(r) : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < n; i++) {
        r->cal[i] = NAN;
        if (modelled(&o[i]))
            r->ix[r->nix++] = i;
    }
    rc = rc ? rc : kernel_types(r);
    rc = rc ? rc : tp_sort(r->ix, r->nix, sizeof *r->ix, by_cell, r);
    rc = rc || calib ? rc : type_cells(r);
    for (size_t i = 0; rc == TP_OK && i < r->nix;) {
        size_t j = cell_end(r, i);
        if (calib)
            apply_cell(r, calib, r->ix + i, j - i);
        else
            rc = fit_cell(r, r->ix + i, j - i);
        i = j;
    }
    return rc;
}

const double *pr_calib_values(const pr_cal_run *r) { return r ? r->cal : NULL; }

int pr_calib_emit(pr_cal_run *r, const pr_config *cfg, const pr_calib *calib)
{
    int rc = calibration_results(r, cfg, calib);
    rc = rc ? rc : calibrated_results(r);
    if (rc == TP_OK && calib == NULL && cfg->calibration_out)
        rc = fit_traces(r) ? TP_ENOMEM : pr_calib_write(r->st, cfg->calibration_out, &r->fit);
    return rc;
}

void pr_calib_done(pr_cal_run *r)
{
    if (r == NULL)
        return;
    pr_calib_free(&r->fit);
    tp_free(r->group);
    tp_free(r->dtype);
    tp_free(r->cell);
    tp_free(r->bound);
    tp_free(r->cal);
    tp_free(r->ix);
    tp_free(r);
}
