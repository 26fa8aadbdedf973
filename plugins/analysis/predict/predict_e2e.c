/*
 * analysis predict, e2e: true: each iteration end to end (section 6)
 * from the ops' predictions and the overheads analysis' T1-T5 means:
 * <id>.e2e and <id>.e2e_ops.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict_internal.h"

#include <tracepipe/tp_sdk_iter.h>

/* Overheads' means, by kind and key, from its main result. */
typedef struct pr_means {
    const tp_result *r;
    int over, key, mean;
    const tp_result *launches; /* key, position, api */
    int l_key, l_pos, l_api;
} pr_means;

static int has_cols(const tp_result *r, const char *a, const char *b, const char *c)
{
    return tp_result_find_col(r, a) >= 0 && tp_result_find_col(r, b) >= 0 &&
           tp_result_find_col(r, c) >= 0;
}

static int find_means(tp_stage *st, pr_means *m)
{
    memset(m, 0, sizeof *m);
    for (size_t i = 0; i < tp_input_count(st); i++) {
        const tp_result *r = tp_input(st, i);
        if (!m->r && has_cols(r, "overhead", "key", "mean_us")) {
            m->r = r;
            m->over = tp_result_find_col(r, "overhead");
            m->key = tp_result_find_col(r, "key");
            m->mean = tp_result_find_col(r, "mean_us");
        } else if (!m->launches && has_cols(r, "key", "position", "api")) {
            m->launches = r;
            m->l_key = tp_result_find_col(r, "key");
            m->l_pos = tp_result_find_col(r, "position");
            m->l_api = tp_result_find_col(r, "api");
        }
    }
    if (!m->r || !m->launches)
        return tp_fail(st, TP_EINVAL, "e2e needs the overheads analysis' results: give predict "
                       "input: OVERHEADS_ID (its main result and .launches)");
    return TP_OK;
}

/* The mean of overhead t (t1..t5) for key (NULL: T1's row without one); 0 when absent. */
static double mean_of(const pr_means *m, const char *t, const char *key)
{
    for (size_t i = 0; i < tp_result_rows(m->r); i++) {
        const char *o = tp_result_get_str(m->r, i, m->over);
        const char *k = tp_result_get_str(m->r, i, m->key);
        if (o && strcmp(o, t) == 0 && (key ? k && strcmp(k, key) == 0 : k == NULL))
            return tp_result_is_null(m->r, i, m->mean) ? 0 : tp_result_get_f64(m->r, i, m->mean);
    }
    return 0;
}

/* launches[name] (the APIs of the first occurrence of name that launched)
 * as their T4 means, in order: a new array (tp_free) of *n, or NULL with
 * *n = 0 when name has none. */
static double *launch_t4s(const pr_means *m, const char *name, size_t *n)
{
    size_t rows = tp_result_rows(m->launches), k = 0;
    *n = 0;
    for (size_t i = 0; i < rows; i++) {
        const char *key = tp_result_get_str(m->launches, i, m->l_key);
        k += key && strcmp(key, name) == 0;
    }
    double *t4 = k ? tp_malloc(k * sizeof *t4) : NULL;
    for (size_t i = 0; t4 && i < rows; i++) {
        const char *key = tp_result_get_str(m->launches, i, m->l_key);
        if (key && strcmp(key, name) == 0)
            t4[(*n)++] = mean_of(m, "t4", tp_result_get_str(m->launches, i, m->l_api));
    }
    return t4;
}

/* An iteration's number (the SDK view's step number) into column 0 of row. */
static int iteration_cell(tp_stage *st, tp_result *r, size_t row, const tp_iter_view *steps,
                          size_t k)
{
    return tp_result_set_i64(st, r, row, 0, steps->step[k]);
}

typedef struct pr_e2e_op {
    int32_t row, index;
    double predicted_us; /* the sum of its calls' */
    int unsupported;
    size_t first, ncalls; /* its calls' predictions: calls[first .. first + ncalls) */
} pr_e2e_op;

/* Occurrences in time order (then row), for each op's calls in order. */
static int by_time(const void *a, const void *b, void *ctx)
{
    const tp_cols *c = ctx;
    int32_t x = ((const pr_occ *)a)->row, y = ((const pr_occ *)b)->row;
    if (c->ts[x] != c->ts[y])
        return c->ts[x] < c->ts[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static int by_index(const void *a, const void *b)
{
    const pr_e2e_op *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

static int skipped(const pr_config *cfg, const char *name)
{
    static const char *const defaults[] = {"SliceBackward", "FusedDropoutBackward"};
    if (cfg->skip.n == 0) {
        for (size_t i = 0; i < 2; i++)
            if (strstr(name, defaults[i]))
                return 1;
        return 0;
    }
    for (size_t i = 0; i < cfg->skip.n; i++)
        if (cfg->skip.items[i][0] && strstr(name, cfg->skip.items[i]))
            return 1;
    return 0;
}

/* Attributes each occurrence to the e2e op above it, in time order: an
 * op's calls that own GPU work are its kernel times t_1..t_m of section 6
 * (each call's work predicted as one kernel), in *calls. */
static int attribute_calls(const tp_cols *c, const tp_hier_view *v, const int32_t *slot,
                           pr_occ *o, size_t n, pr_e2e_op *ops, size_t nops, double **calls)
{
    int rc = tp_sort(o, n, sizeof *o, by_time, (void *)c);
    double *t = rc == TP_OK ? tp_calloc(n ? n : 1, sizeof *t) : NULL;
    int32_t *owner = t ? tp_malloc((n ? n : 1) * sizeof *owner) : NULL;
    if (owner == NULL) {
        tp_free(t);
        return rc == TP_OK ? TP_ENOMEM : rc;
    }
    for (size_t i = 0; i < n; i++) { /* each owner of GPU work to the op above it */
        int32_t x = o[i].row;
        while (x >= 0 && slot[x] < 0)
            x = v->parent[x];
        owner[i] = x < 0 ? -1 : slot[x];
        if (x < 0)
            continue;
        pr_e2e_op *e = &ops[slot[x]];
        if (o[i].model) {
            e->predicted_us += o[i].predicted_us; /* an occurrence is one call */
            e->ncalls++;
        } else {
            e->unsupported = 1;
        }
    }
    size_t at = 0;
    for (size_t k = 0; k < nops; k++) {
        ops[k].first = at;
        at += ops[k].ncalls;
        ops[k].ncalls = 0;
    }
    for (size_t i = 0; i < n; i++)
        if (owner[i] >= 0 && o[i].model) {
            pr_e2e_op *e = &ops[owner[i]];
            t[e->first + e->ncalls++] = o[i].predicted_us;
        }
    tp_free(owner);
    *calls = t;
    return TP_OK;
}

/* The ops of overheads (attachment overheads.op) with the predictions of
 * the GPU work under each (attribute_calls), unsupported when any part has
 * no model.  *nops ops, in walk order. */
static int e2e_ops(tp_stage *st, const tp_trace *t, pr_occ *o, size_t n, pr_e2e_op **out,
                   size_t *nops, double **calls)
{
    const tp_cols *c = tp_trace_cols(t);
    size_t got = 0;
    const int32_t *op = tp_trace_attached(t, "overheads.op", TP_COL_I32, &got);
    tp_hier_view v;
    if (op == NULL || got != c->n)
        return tp_fail(st, TP_EINVAL, "e2e needs the overheads analysis run before predict "
                       "on the same trace (its attachment overheads.op)");
    if (tp_hier_view_require(st, t, &v) != TP_OK)
        return TP_ENOTFOUND;
    size_t k = 0;
    for (size_t r = 0; r < c->n; r++)
        k += op[r] >= 0;
    pr_e2e_op *ops = tp_calloc(k ? k : 1, sizeof *ops);
    int32_t *slot = tp_malloc((c->n ? c->n : 1) * sizeof *slot);
    if (ops == NULL || slot == NULL) {
        tp_free(ops);
        tp_free(slot);
        return TP_ENOMEM;
    }
    k = 0;
    for (size_t r = 0; r < c->n; r++) {
        slot[r] = -1;
        if (op[r] >= 0) {
            ops[k] = (pr_e2e_op){.row = (int32_t)r, .index = op[r]};
            slot[r] = (int32_t)k++;
        }
    }
    int rc = attribute_calls(c, &v, slot, o, n, ops, k, calls);
    tp_free(slot);
    if (rc != TP_OK) {
        tp_free(ops);
        return rc;
    }
    qsort(ops, k, sizeof *ops, by_index);
    *out = ops;
    *nops = k;
    return TP_OK;
}

/* A cell "t1;t2;..." of an op's call predictions (%.17g: exact). */
static int set_call_list(tp_stage *st, tp_result *r, size_t row, int col, const double *t,
                         size_t m)
{
    if (m == 0)
        return TP_OK;
    char *buf = tp_malloc(m * 26 + 1);
    if (buf == NULL)
        return TP_ENOMEM;
    size_t used = 0;
    for (size_t j = 0; j < m; j++)
        used += (size_t)snprintf(buf + used, m * 26 + 1 - used, "%s%.17g", j ? ";" : "", t[j]);
    int rc = tp_result_set_str(st, r, row, col, buf);
    tp_free(buf);
    return rc;
}

/* Section 6 for each iteration: <id>.e2e, and the ops it used as <id>.e2e_ops. */
int pr_e2e_results(tp_stage *st, const pr_config *cfg, const tp_trace *t, pr_occ *o,
                   size_t n)
{
    pr_means m;
    int rc = find_means(st, &m);
    if (rc != TP_OK)
        return rc;
    const tp_cols *c = tp_trace_cols(t);
    pr_e2e_op *ops = NULL;
    double *calls = NULL;
    size_t nops = 0;
    tp_hier_view v;
    if (tp_hier_view_require(st, t, &v) != TP_OK)
        return TP_ENOTFOUND;
    if ((rc = e2e_ops(st, t, o, n, &ops, &nops, &calls)) != TP_OK)
        return rc;
    tp_iter_override ov = {.prefix = cfg->step_prefix, .option = "step_prefix"};
    tp_iter_view steps;
    rc = tp_iter_view_get(st, (tp_trace *)t, &ov, &steps);
    tp_iterations it = tp_iter_as_iterations(&steps);
    if (rc == TP_OK && it.n == 0)
        rc = tp_fail(st, TP_EINVAL, "e2e: no iteration markers (regex '%s') in the trace",
                     steps.marker);
    tp_result *r = rc == TP_OK ? tp_result_new(st, "e2e") : NULL;
    tp_result *ro = r ? tp_result_new(st, "e2e_ops") : NULL;
    static const char *const cols[] = {"iteration", "measured_us", "predicted_us", "cpu_us",
                                       "gpu_us", "gpu_active_us", "ops", "unsupported_ops",
                                       "error_percent"};
    static const char *const ocols[] = {"iteration", "position", "name", "launches", "supported",
                                        "predicted_us", "t2_us", "t3_us", "t5_us", "leaf"};
    for (int i = 0; r && ro && i < 9; i++)
        if (tp_result_add_col(st, r, cols[i], i == 0 || i == 6 || i == 7 ? TP_COL_I64 : TP_COL_F64) != i ||
            tp_result_add_col(st, ro, ocols[i], i == 2 ? TP_COL_STR : i <= 4 ? TP_COL_I64 : TP_COL_F64) != i)
            r = NULL;
    if (ro && tp_result_add_col(st, ro, ocols[9], TP_COL_I64) != 9) /* no children: aten::to's rule */
        r = NULL;
    if (ro && tp_result_add_col(st, ro, "call_us_list", TP_COL_STR) != 10) /* t_1..t_m, ';' */
        r = NULL;
    if (rc == TP_OK && (r == NULL || ro == NULL))
        rc = TP_ENOMEM;
    if (rc == TP_OK) {
        tp_result_set_kind(st, r, "series");
        tp_result_set_meta(st, r, "title", "End-to-end iteration time, predicted and measured");
        tp_result_set_meta(st, ro, "title", "The ops of each iteration the prediction ran over");
    }
    double t1 = rc == TP_OK ? mean_of(&m, "t1", NULL) : 0;
    double *pred = tp_calloc(it.n ? it.n : 1, sizeof *pred), *meas = tp_calloc(it.n ? it.n : 1, sizeof *meas);
    pm_e2e_op *sim = tp_calloc(nops ? nops : 1, sizeof *sim);
    if (rc == TP_OK && (!pred || !meas || !sim))
        rc = TP_ENOMEM;
    size_t done = 0;
    for (size_t k = 0; k < it.n && rc == TP_OK; k++) {
        size_t ns = 0, unsupported = 0;
        for (size_t i = 0; i < nops && rc == TP_OK; i++) {
            int32_t row = ops[i].row;
            if (tp_iteration_of(&it, c->ts[row]) != (int32_t)k)
                continue;
            const char *name = tp_str_text(st, c->name[row]);
            if (skipped(cfg, name))
                continue;
            size_t nl = 0;
            double *t4 = launch_t4s(&m, name, &nl);
            pm_e2e_op *e = &sim[ns];
            *e = (pm_e2e_op){0};
            e->has_launches = nl > 0;
            e->n_launches = nl;
            e->t4 = t4;
            e->supported = !ops[i].unsupported;
            e->m = ops[i].ncalls; /* its calls' predictions, in time order */
            e->t = calls + ops[i].first;
            e->t2 = mean_of(&m, "t2", name);
            e->t3 = mean_of(&m, "t3", name);
            e->t5 = mean_of(&m, "t5", name);
            e->to_without_children = strcmp(name, "aten::to") == 0 && v.first_child[row] < 0;
            unsupported += nl > 0 && ops[i].unsupported;
            size_t orow;
            rc = tp_result_add_row(st, ro, &orow);
            const int64_t iv[] = {0, (int64_t)ns, 0, (int64_t)nl, e->supported};
            rc = rc ? rc : tp_result_set_i64(st, ro, orow, 1, iv[1]);
            rc = rc ? rc : tp_result_set_str(st, ro, orow, 2, name);
            rc = rc ? rc : tp_result_set_i64(st, ro, orow, 3, iv[3]);
            rc = rc ? rc : tp_result_set_i64(st, ro, orow, 4, iv[4]);
            rc = rc ? rc : tp_result_set_f64(st, ro, orow, 5, ops[i].predicted_us);
            rc = rc ? rc : tp_result_set_f64(st, ro, orow, 6, e->t2);
            rc = rc ? rc : tp_result_set_f64(st, ro, orow, 7, e->t3);
            rc = rc ? rc : tp_result_set_f64(st, ro, orow, 8, e->t5);
            rc = rc ? rc : tp_result_set_i64(st, ro, orow, 9, v.first_child[row] < 0);
            rc = rc ? rc : set_call_list(st, ro, orow, 10, e->t, e->m);
            rc = rc ? rc : iteration_cell(st, ro, orow, &steps, k);
            ns++;
        }
        if (rc != TP_OK) {
            for (size_t i = 0; i < ns + (ns < nops); i++)
                tp_free((void *)sim[i].t4);
            break;
        }
        pm_e2e_result res;
        pm_e2e(sim, ns, t1, cfg->kernel_overhead_us, &res);
        for (size_t i = 0; i < ns; i++)
            tp_free((void *)sim[i].t4);
        double measured = (double)(it.it[k].end - it.it[k].start) / 1000.0;
        pred[done] = res.e2e;
        meas[done++] = measured;
        size_t row;
        rc = tp_result_add_row(st, r, &row);
        const double dv[] = {0, measured, res.e2e, res.cpu, res.gpu, res.gpu_active};
        for (int i = 1; i < 6 && rc == TP_OK; i++)
            rc = tp_result_set_f64(st, r, row, i, dv[i]);
        rc = rc ? rc : tp_result_set_i64(st, r, row, 6, (int64_t)ns);
        rc = rc ? rc : tp_result_set_i64(st, r, row, 7, (int64_t)unsupported);
        if (rc == TP_OK && measured > 0)
            rc = tp_result_set_f64(st, r, row, 8, fabs(res.e2e - measured) / measured * 100);
        rc = rc ? rc : iteration_cell(st, r, row, &steps, k);
    }
    if (rc == TP_OK && done > 0) {
        double mean, gmae = pm_gmae(pred, meas, done, 0, &mean);
        char buf[64];
        snprintf(buf, sizeof buf, "%.17g", gmae * 100);
        tp_result_set_meta(st, r, "gmae_percent", buf);
        snprintf(buf, sizeof buf, "%.17g", mean * 100);
        tp_result_set_meta(st, r, "mean_error_percent", buf);
    }
    tp_free(pred);
    tp_free(meas);
    tp_free(sim);
    tp_free(ops);
    tp_free(calls);
    tp_iter_view_release(&steps);
    return rc;
}
