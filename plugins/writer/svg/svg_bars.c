/*
 * The svg writer's charts `bar` and `stacked_bar`: their data from a flat
 * table, a long table pivoted by `series`, or a tree.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg_chart.h"

#define MAX_STACKS 24

/* Stacked columns must add up: a column the result declares part of
 * another (note part_of.PART = WHOLE: ranks' wait_us is inside comm_us)
 * is drawn as a part of that whole, which keeps only its rest. */
static int split_declared_parts(tp_stage *st, const tp_result *r, const int *cols, svg_data *d)
{
    for (size_t p = 0; p < d->nser; p++) {
        char key[300];
        snprintf(key, sizeof key, "part_of.%s", tp_result_col_name(r, cols[p]));
        const char *whole = tp_result_meta(r, key);
        for (size_t w = 0; whole && w < d->nser; w++) {
            if (w == p || strcmp(tp_result_col_name(r, cols[w]), whole) != 0)
                continue;
            size_t over = 0;
            for (size_t i = 0; i < d->ncat; i++) {
                double *rest = &d->v[i * d->nser + w], part = d->v[i * d->nser + p];
                if (!isfinite(*rest) || !isfinite(part))
                    continue;
                *rest -= part;
                if (*rest < 0)
                    *rest = 0, over++;
            }
            if (over)
                tp_log(st, TP_LOG_WARN, "%s: %zu bar%s with %s above %s (drawn as 0 rest)",
                       tp_result_id(r), over, over == 1 ? "" : "s", d->ser[p], whole);
            size_t len = strlen(d->ser[w]) + strlen(d->ser[p]) + 16;
            char *name = malloc(len);
            if (name == NULL)
                return TP_ENOMEM;
            snprintf(name, len, "%s other than %s", d->ser[w], d->ser[p]);
            free(d->ser[w]);
            d->ser[w] = name;
        }
    }
    return TP_OK;
}

/* Bars from a flat table: columns [LABEL, VALUE...]. */
static int table_bars(tp_stage *st, const svg_config *cfg, const tp_result *r, svg_data *d,
                      int *label_col)
{
    int label, value, rc;
    size_t nval = cfg->columns.n > 1 ? cfg->columns.n - 1 : 1;
    if ((rc = svg_columns_of(st, cfg, r, &label, &value)) != TP_OK)
        return rc;
    *label_col = label;
    int *cols = calloc(nval, sizeof *cols);
    if (cols == NULL || svg_data_alloc(d, tp_result_rows(r), nval) != TP_OK) {
        free(cols);
        return tp_fail(st, TP_ENOMEM, "out of memory");
    }
    cols[0] = value;
    for (size_t s = 1; s < nval && rc == TP_OK; s++)
        if ((cols[s] = svg_col(st, r, cfg->columns.items[s + 1], 1)) < 0)
            rc = TP_EINVAL;
    for (size_t s = 0; s < nval && rc == TP_OK; s++)
        if ((d->ser[s] = strdup(tp_result_col_name(r, cols[s]))) == NULL)
            rc = TP_ENOMEM;
    d->unit = rc == TP_OK ? tp_result_col_unit(r, cols[0]) : NULL;
    for (size_t i = 0; i < d->ncat && rc == TP_OK; i++) {
        if ((d->cat[i] = svg_cell_text(r, i, label)) == NULL)
            rc = TP_ENOMEM;
        for (size_t s = 0; s < nval; s++)
            d->v[i * nval + s] = svg_cell(r, i, cols[s]);
    }
    if (rc == TP_OK && cfg->chart == CHART_STACKED_BAR)
        rc = split_declared_parts(st, r, cols, d);
    free(cols);
    return rc;
}

/* Bars from a long table: a bar per distinct LABEL, a part per distinct
 * value of the `series` column (a kernel mix per op: op, name, sum_us). */
static int pivot_bars(tp_stage *st, const svg_config *cfg, const tp_result *r, svg_data *d,
                      int *label_col)
{
    int label, value, split, rc;
    if ((rc = svg_columns_of(st, cfg, r, &label, &value)) != TP_OK)
        return rc;
    if ((split = svg_col(st, r, cfg->series, 0)) < 0)
        return TP_EINVAL;
    *label_col = label;
    size_t n = tp_result_rows(r), ncat = 0, nser = 0;
    char **cats = calloc(n ? n : 1, sizeof *cats), **sers = calloc(n ? n : 1, sizeof *sers);
    size_t *ci = malloc((n ? n : 1) * sizeof *ci), *si = malloc((n ? n : 1) * sizeof *si);
    rc = cats && sers && ci && si ? TP_OK : TP_ENOMEM;
    for (size_t i = 0; i < n && rc == TP_OK; i++) { /* distinct names, first seen first */
        char *c = svg_cell_text(r, i, label), *s = svg_cell_text(r, i, split);
        if (c == NULL || s == NULL) {
            free(c);
            free(s);
            rc = TP_ENOMEM;
            break;
        }
        size_t k = 0;
        while (k < ncat && strcmp(cats[k], c) != 0)
            k++;
        if (k == ncat)
            cats[ncat++] = c;
        else
            free(c);
        ci[i] = k;
        k = 0;
        while (k < nser && strcmp(sers[k], s) != 0)
            k++;
        if (k == nser)
            sers[nser++] = s;
        else
            free(s);
        si[i] = k;
    }
    if (rc == TP_OK && (rc = svg_data_alloc(d, ncat, nser)) == TP_OK) {
        for (size_t k = 0; k < ncat; k++)
            d->cat[k] = cats[k], cats[k] = NULL;
        for (size_t k = 0; k < nser; k++)
            d->ser[k] = sers[k], sers[k] = NULL;
        for (size_t k = 0; k < ncat * nser; k++)
            d->v[k] = 0;
        for (size_t i = 0; i < n; i++) {
            double v = svg_cell(r, i, value);
            d->v[ci[i] * nser + si[i]] += isfinite(v) ? v : 0;
        }
        d->unit = tp_result_col_unit(r, value);
    }
    for (size_t k = 0; k < ncat; k++)
        free(cats[k]);
    for (size_t k = 0; k < nser; k++)
        free(sers[k]);
    free(cats);
    free(sers);
    free(ci);
    free(si);
    return rc == TP_ENOMEM ? tp_fail(st, rc, "out of memory") : rc;
}

/* Stacked bars from a tree: one bar per node at `level`, its children
 * stacked (names matched across bars, so one colour is one name). */
static int tree_stacks(tp_stage *st, const svg_config *cfg, const tp_result *r, svg_data *d)
{
    svg_tree p;
    int rc = svg_tree_open(st, cfg, r, &p);
    if (rc != TP_OK)
        return rc;
    size_t nbars = 0, nnames = 0;
    char **names = NULL;
    for (size_t i = 0; i < p.t.nrows; i++)
        nbars += p.t.level[i] == (uint32_t)cfg->level;
    /* distinct child names, in order of first appearance */
    names = calloc(p.t.nrows ? p.t.nrows : 1, sizeof *names);
    for (size_t i = 0; names && i < p.t.nrows; i++) {
        if (p.t.level[i] != (uint32_t)cfg->level + 1)
            continue;
        const char *n = tp_result_get_str(r, i, p.name_col);
        size_t k = 0;
        while (k < nnames && strcmp(names[k], n ? n : "") != 0)
            k++;
        if (k == nnames)
            names[nnames++] = (char *)(n ? n : "");
    }
    if (names == NULL || svg_data_alloc(d, nbars, nnames) != TP_OK) {
        free(names);
        tp_result_tree_free(&p.t);
        return tp_fail(st, TP_ENOMEM, "out of memory");
    }
    d->unit = tp_result_col_unit(r, p.value_col);
    for (size_t s = 0; s < nnames && rc == TP_OK; s++)
        if ((d->ser[s] = strdup(names[s])) == NULL)
            rc = TP_ENOMEM;
    size_t bar = 0;
    for (size_t i = 0; i < p.t.nrows && rc == TP_OK; i++) {
        if (p.t.level[i] != (uint32_t)cfg->level)
            continue;
        /* a bar's label: its path from the root, so equal names stay apart */
        char label[512] = "";
        size_t n = 0;
        int64_t chain[64];
        size_t depth = 0;
        for (int64_t row = (int64_t)i; row >= 0 && depth < 64; row = p.t.parent_row[row])
            chain[depth++] = row;
        while (depth-- > 0 && n + 1 < sizeof label) {
            const char *s = tp_result_get_str(r, (size_t)chain[depth], p.name_col);
            n += (size_t)snprintf(label + n, sizeof label - n, "%s%s", n ? " / " : "", s ? s : "");
        }
        if ((d->cat[bar] = strdup(label)) == NULL)
            rc = TP_ENOMEM;
        for (size_t s = 0; s < nnames; s++)
            d->v[bar * nnames + s] = 0;
        for (size_t c = i + 1; c < p.t.nrows && p.t.level[c] > p.t.level[i]; c++) {
            if (p.t.parent_row[c] != (int64_t)i)
                continue;
            const char *cn = tp_result_get_str(r, c, p.name_col);
            for (size_t s = 0; s < nnames; s++)
                if (strcmp(names[s], cn ? cn : "") == 0) {
                    double v = svg_cell(r, c, p.value_col);
                    d->v[bar * nnames + s] += isfinite(v) ? v : 0;
                    break;
                }
        }
        bar++;
    }
    free(names);
    tp_result_tree_free(&p.t);
    return rc;
}

/* The value column a tree or long table is drawn from, for its axis title. */
static int pivot_value_col(const tp_result *r, const svg_config *cfg, int from_tree)
{
    int label, value;
    if (cfg->columns.n >= 2)
        return tp_result_find_col(r, cfg->columns.items[1]);
    if (from_tree)
        return tp_result_find_col(r, "time_us");
    svg_default_columns(r, &label, &value);
    return value;
}

int svg_draw_bars(tp_stage *st, svg_doc *doc, const svg_config *cfg, const tp_result *r)
{
    svg_data d = {0};
    int stacked = cfg->chart == CHART_STACKED_BAR, label = -1, rc;
    int from_tree = tp_result_is_tree(r);
    if (from_tree && stacked) {
        rc = tree_stacks(st, cfg, r, &d);
    } else if (from_tree) { /* a bar per child of the node, like a pie */
        svg_tree p;
        if ((rc = svg_tree_open(st, cfg, r, &p)) != TP_OK)
            return rc;
        int64_t node = svg_tree_find_node(&p, cfg->node);
        rc = node < 0 ? tp_fail(st, TP_ENOTFOUND, "result '%s' has no node '%s'", tp_result_id(r),
                                cfg->node ? cfg->node : "")
                      : svg_tree_children_data(&p, (size_t)node, &d);
        if (rc == TP_OK && (d.ser[0] = strdup(tp_result_col_name(r, p.value_col))) == NULL)
            rc = TP_ENOMEM;
        tp_result_tree_free(&p.t);
    } else if (cfg->series) {
        rc = pivot_bars(st, cfg, r, &d, &label);
    } else {
        rc = table_bars(st, cfg, r, &d, &label);
    }
    int pivoted = !from_tree && cfg->series;
    /* parts named by the data (tree children, a long table's values) fold
     * to the `top` largest; a table's own columns stay as given */
    if (rc == TP_OK && ((stacked && from_tree) || pivoted))
        rc = svg_data_fold_top_series(&d, (size_t)cfg->top);
    /* bars: the `top` largest; stacks: at most MAX_STACKS bars, a table's
     * by its first column (the busiest streams of active_us, window_idle_us) */
    if (rc == TP_OK)
        rc = svg_data_fold_top(&d, stacked || pivoted ? MAX_STACKS : (size_t)cfg->top,
                               stacked && !from_tree && !pivoted ? 0 : -1);
    if (rc == TP_OK && !svg_data_has_values(&d)) {
        char why[256];
        snprintf(why, sizeof why, "result '%s' has no nonzero value to draw", tp_result_id(r));
        svg_no_data(doc, why);
    } else if (rc == TP_OK) {
        char vlabel[256];
        const char *vname = d.nser == 1 ? d.ser[0]
                            : from_tree || pivoted ? tp_result_col_name(r, pivot_value_col(r, cfg, from_tree))
                                                   : "value";
        svg_axis_label(vlabel, sizeof vlabel, cfg->orientation ? cfg->y_label : cfg->x_label,
                       cfg->percent ? "share" : vname, cfg->percent ? "percent" : d.unit);
        svg_bar_spec b = {stacked, cfg->percent, cfg->orientation, NULL, vlabel,
                      cfg->orientation ? cfg->x_label ? cfg->x_label
                                         : label >= 0 ? tp_result_col_name(r, label) : NULL
                                       : NULL,
                      (double)cfg->height, svg_is_count_unit(d.unit)};
        svg_draw_bar_data(doc, &d, &b);
    }
    svg_data_free(&d);
    return rc == TP_OK && doc->oom ? tp_fail(st, TP_ENOMEM, "out of memory") : rc;
}
