/*
 * The svg writer's chart `pie`: a table's label and value columns as one
 * pie, or a tree's node and (to `depth`) its children's children as pies.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg_chart.h"

#define MAX_PIES 24

/* One pie: the categories' single series as slices, legend to the right. */
static int draw_one_pie(svg_doc *doc, const char *heading, svg_data *d, size_t top)
{
    int rc = svg_data_fold_top(d, top, -1);
    if (rc != TP_OK)
        return rc;
    double total = 0;
    for (size_t i = 0; i < d->ncat; i++)
        if (d->v[i] > 0)
            total += d->v[i];
    double y = doc->height;
    char title[512], tv[64];
    svg_value_text(tv, sizeof tv, total, d->unit);
    snprintf(title, sizeof title, "%s (%s)", heading, tv);
    char *shown = svg_shorten(title, doc->width - 2 * SVG_MARGIN, 13);
    if (shown == NULL)
        return TP_ENOMEM;
    svg_text(doc, SVG_MARGIN, y + 16, 13, SVG_START, "font-weight=\"bold\"", shown, title);
    free(shown);
    y += 28;

    double r = fmin(140, (doc->width - 2 * SVG_MARGIN) / 5);
    double cx = SVG_MARGIN + r, cy = y + r, angle = 0;
    const char **colors = calloc(d->ncat ? d->ncat : 1, sizeof *colors);
    char **notes = calloc(d->ncat ? d->ncat : 1, sizeof *notes);
    if (colors == NULL || notes == NULL) {
        free(colors);
        free(notes);
        return TP_ENOMEM;
    }
    for (size_t i = 0; i < d->ncat; i++) {
        double v = d->v[i] > 0 ? d->v[i] : 0, share = total > 0 ? v / total : 0;
        char vt[64];
        colors[i] = svg_color_of(d->cat[i], i);
        svg_value_text(vt, sizeof vt, v, d->unit);
        notes[i] = malloc(96);
        if (notes[i] == NULL) {
            rc = TP_ENOMEM;
            break;
        }
        snprintf(notes[i], 96, "%.1f%% (%s)", share * 100, vt);
        if (share <= 0)
            continue;
        svg_printf(doc, "<g><title>");
        svg_escape(doc, d->cat[i]);
        svg_printf(doc, ": %s</title>", notes[i]);
        if (share >= 0.999999) {
            svg_printf(doc, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"%.2f\" fill=\"%s\"/>", cx, cy, r,
                       colors[i]);
        } else {
            double a0 = angle * 2 * M_PI, a1 = (angle + share) * 2 * M_PI;
            svg_printf(doc,
                       "<path d=\"M%.2f %.2fL%.2f %.2fA%.2f %.2f 0 %d 1 %.2f %.2fZ\" fill=\"%s\" "
                       "stroke=\"#FFFFFF\" stroke-width=\"1\"/>",
                       cx, cy, cx + r * sin(a0), cy - r * cos(a0), r, r, share > 0.5 ? 1 : 0,
                       cx + r * sin(a1), cy - r * cos(a1), colors[i]);
        }
        svg_printf(doc, "</g>\n");
        angle += share;
    }
    double lx = cx + r + 28, lw = doc->width - SVG_MARGIN - lx;
    double lh = 0;
    for (size_t i = 0; i < d->ncat && rc == TP_OK; i++) /* one entry a row */
        lh += svg_legend(doc, lx, y + lh, lw, 1, &d->cat[i], &colors[i],
                         (const char *const *)&notes[i]);
    for (size_t i = 0; i < d->ncat; i++)
        free(notes[i]);
    free(notes);
    free(colors);
    doc->height = y + fmax(2 * r, lh) + 20;
    return rc;
}

static int pie_of_tree(tp_stage *st, svg_doc *doc, const svg_config *cfg, const tp_result *r)
{
    svg_tree p;
    int rc = svg_tree_open(st, cfg, r, &p);
    if (rc != TP_OK)
        return rc;
    int64_t start = svg_tree_find_node(&p, cfg->node);
    if (start < 0) {
        tp_result_tree_free(&p.t);
        return tp_fail(st, TP_ENOTFOUND, "result '%s' has no node '%s'", tp_result_id(r),
                       cfg->node ? cfg->node : "");
    }
    /* breadth first: the node, then its shown children that have children */
    size_t queue[MAX_PIES], nq = 0, levels[MAX_PIES];
    queue[nq] = (size_t)start;
    levels[nq++] = 0;
    for (size_t q = 0; q < nq && rc == TP_OK; q++) {
        svg_data d;
        const char *heading = tp_result_get_str(r, queue[q], p.name_col);
        if ((rc = svg_tree_children_data(&p, queue[q], &d)) != TP_OK) {
            svg_data_free(&d);
            break;
        }
        rc = draw_one_pie(doc, heading ? heading : "", &d, (size_t)cfg->top);
        for (size_t k = 0; rc == TP_OK && levels[q] + 1 < (size_t)cfg->depth && k < d.ncat; k++) {
            int64_t child = -1;
            for (size_t i = queue[q] + 1; i < p.t.nrows && p.t.level[i] > p.t.level[queue[q]]; i++)
                if (p.t.parent_row[i] == (int64_t)queue[q]) {
                    const char *cn = tp_result_get_str(r, i, p.name_col);
                    if (cn && strcmp(cn, d.cat[k]) == 0 && strcmp(cn, "Others") != 0) {
                        child = (int64_t)i;
                        break;
                    }
                }
            if (child >= 0 && svg_tree_count_children(&p, (size_t)child) > 0 && nq < MAX_PIES) {
                queue[nq] = (size_t)child;
                levels[nq++] = levels[q] + 1;
            }
        }
        svg_data_free(&d);
    }
    tp_result_tree_free(&p.t);
    return rc;
}

int svg_draw_pie(tp_stage *st, svg_doc *doc, const svg_config *cfg, const tp_result *r)
{
    if (tp_result_is_tree(r))
        return pie_of_tree(st, doc, cfg, r);
    int label, value, rc = svg_columns_of(st, cfg, r, &label, &value);
    if (rc != TP_OK)
        return rc;
    svg_data d;
    if ((rc = svg_data_alloc(&d, tp_result_rows(r), 1)) != TP_OK)
        return tp_fail(st, rc, "out of memory");
    d.unit = tp_result_col_unit(r, value);
    for (size_t i = 0; i < d.ncat && rc == TP_OK; i++) {
        d.cat[i] = svg_cell_text(r, i, label);
        d.v[i] = svg_cell(r, i, value);
        rc = d.cat[i] ? TP_OK : TP_ENOMEM;
    }
    if (rc == TP_OK)
        rc = draw_one_pie(doc, tp_result_col_name(r, value), &d, (size_t)cfg->top);
    svg_data_free(&d);
    return rc;
}
