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

/* A slice holding at least this share of the pie leaves the others
 * slivers nobody can read: no pie then. */
#define ONE_SLICE_SHARE 0.99

static double positive_total(const svg_data *d)
{
    double total = 0;
    for (size_t i = 0; i < d->ncat; i++)
        if (d->v[i] > 0)
            total += d->v[i];
    return total;
}

/* The slice holding ONE_SLICE_SHARE or more of a positive total, else -1. */
static int64_t one_slice(const svg_data *d)
{
    double total = positive_total(d);
    for (size_t i = 0; i < d->ncat && total > 0; i++)
        if (d->v[i] >= ONE_SLICE_SHARE * total)
            return (int64_t)i;
    return -1;
}

/* "NAME holds 99.7 % of HEADING (14455 of 14504 us)" */
static void one_slice_text(char *buf, size_t size, const char *heading, const svg_data *d, size_t i)
{
    char part[64], whole[64];
    double total = positive_total(d);
    svg_value_text(part, sizeof part, d->v[i], NULL);
    svg_value_text(whole, sizeof whole, total, d->unit);
    snprintf(buf, size, "%s holds %.1f%% of %s (%s of %s)", d->cat[i], d->v[i] / total * 100,
             heading, part, whole);
}

static int draw_heading(svg_doc *doc, const char *heading, const svg_data *d)
{
    char title[512], tv[64];
    svg_value_text(tv, sizeof tv, positive_total(d), d->unit);
    snprintf(title, sizeof title, "%s (%s)", heading, tv);
    char *shown = svg_shorten(title, doc->width - 2 * SVG_MARGIN, 13);
    if (shown == NULL)
        return TP_ENOMEM;
    svg_text(doc, SVG_MARGIN, doc->height + 16, 13, SVG_START, "font-weight=\"bold\"", shown, title);
    free(shown);
    doc->height += 28;
    return TP_OK;
}

/* No pie of one slice: bars of the same values, and why. */
static int draw_slice_bars(svg_doc *doc, const char *heading, svg_data *d, size_t i)
{
    char why[640], vlabel[256];
    int rc = draw_heading(doc, heading, d);
    if (rc != TP_OK)
        return rc;
    one_slice_text(why, sizeof why - 40, heading, d, i);
    strcat(why, ": bars instead of a pie");
    svg_note(doc, why);
    if ((d->ser[0] = strdup(heading)) == NULL)
        return TP_ENOMEM;
    svg_axis_label(vlabel, sizeof vlabel, NULL, heading, d->unit);
    svg_bar_spec b = {0, 0, 0, NULL, vlabel, NULL, 0, svg_is_count_unit(d->unit)};
    svg_draw_bar_data(doc, d, &b);
    return TP_OK;
}

/* One pie: the categories' single series as slices, legend to the right;
 * bars when one slice is (nearly) all of it, "no data" when nothing is
 * positive. */
static int draw_one_pie(svg_doc *doc, const char *heading, svg_data *d, size_t top)
{
    int rc = svg_data_fold_top(d, top, -1);
    if (rc != TP_OK)
        return rc;
    double total = positive_total(d);
    if (!(total > 0)) {
        char why[512];
        snprintf(why, sizeof why, "%s: no positive value to divide", heading);
        svg_no_data(doc, why);
        return TP_OK;
    }
    int64_t one = one_slice(d);
    if (one >= 0)
        return draw_slice_bars(doc, heading, d, (size_t)one);
    if ((rc = draw_heading(doc, heading, d)) != TP_OK)
        return rc;
    double y = doc->height;

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

/* The child of node named name, or -1. */
static int64_t child_named(const svg_tree *p, size_t node, const char *name)
{
    for (size_t i = node + 1; i < p->t.nrows && p->t.level[i] > p->t.level[node]; i++)
        if (p->t.parent_row[i] == (int64_t)node) {
            const char *cn = tp_result_get_str(p->r, i, p->name_col);
            if (cn && strcmp(cn, name) == 0 && strcmp(cn, "Others") != 0)
                return (int64_t)i;
        }
    return -1;
}

/* A node whose children would be a pie of one slice (a single-step trace's
 * host runtime: one ProfilerStep) is replaced by that child, as long as it
 * has children of its own; a line says so. */
static int skip_one_slice(svg_doc *doc, const svg_tree *p, size_t *node, const char **heading,
                          svg_data *d)
{
    int64_t one, child;
    while ((one = one_slice(d)) >= 0 &&
           (child = child_named(p, *node, d->cat[one])) >= 0 &&
           svg_tree_count_children(p, (size_t)child) > 0) {
        char why[640];
        one_slice_text(why, sizeof why - 16, *heading, d, (size_t)one);
        strcat(why, "; its parts:");
        svg_note(doc, why);
        *node = (size_t)child;
        const char *name = tp_result_get_str(p->r, *node, p->name_col);
        *heading = name ? name : "";
        svg_data_free(d);
        int rc = svg_tree_children_data(p, *node, d);
        if (rc != TP_OK)
            return rc;
    }
    return TP_OK;
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
        heading = heading ? heading : "";
        if ((rc = svg_tree_children_data(&p, queue[q], &d)) != TP_OK) {
            svg_data_free(&d);
            break;
        }
        if ((rc = skip_one_slice(doc, &p, &queue[q], &heading, &d)) != TP_OK) {
            svg_data_free(&d);
            break;
        }
        rc = draw_one_pie(doc, heading, &d, (size_t)cfg->top);
        for (size_t k = 0; rc == TP_OK && levels[q] + 1 < (size_t)cfg->depth && k < d.ncat; k++) {
            int64_t child = child_named(&p, queue[q], d.cat[k]);
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
