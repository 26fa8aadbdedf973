/*
 * The svg writer's charts from result tables: pie, bar, stacked_bar, line,
 * histogram, error_bar.  Every chart lays itself out below what is already
 * drawn (doc->height) and grows the document.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_sdk_tree.h>

#include "svg.h"

#define SWATCH 11.0
#define LEGEND_ROW 18.0
#define MAX_PIES 24
#define MAX_STACKS 24
#define BAR_PLOT_HEIGHT 300.0
#define LINE_PLOT_HEIGHT 320.0

static const char *color_of(const char *name, size_t i)
{
    if (strcmp(name, "Others") == 0)
        return SVG_OTHERS_COLOR;
    if (strcmp(name, "Unaccounted") == 0 || strncmp(name, "idle", 4) == 0)
        return "#DDDDDD";
    return svg_color(i);
}

static void value_text(char *buf, size_t size, double v, const char *unit)
{
    char num[48];
    /* whole numbers as they are; others to about three significant digits */
    svg_fmt_num(num, sizeof num, v, v == floor(v) || fabs(v) >= 100 ? 1 : fabs(v) >= 1 ? 0.1 : 0.001);
    snprintf(buf, size, "%s%s%s", num, unit && *unit ? " " : "", unit ? unit : "");
}

double svg_legend(svg_doc *doc, double x, double y, double w, size_t n, char *const *names,
                  const char *const *colors, const char *const *notes)
{
    double cx = x, cy = y;
    for (size_t i = 0; i < n; i++) {
        char text[512];
        snprintf(text, sizeof text, "%s%s%s", names[i], notes && notes[i] ? "  " : "",
                 notes && notes[i] ? notes[i] : "");
        double max_text = w - SWATCH - 6;
        char *shown = svg_shorten(text, max_text, SVG_FONT);
        if (shown == NULL)
            return 0;
        double entry = SWATCH + 6 + svg_text_width(shown, SVG_FONT) + 18;
        if (cx > x && cx + entry > x + w) {
            cx = x;
            cy += LEGEND_ROW;
        }
        svg_printf(doc, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.0f\" height=\"%.0f\" fill=\"%s\"/>\n",
                   cx, cy, SWATCH, SWATCH, colors[i]);
        svg_text(doc, cx + SWATCH + 6, cy + SWATCH - 1, SVG_FONT, SVG_START, NULL, shown, text);
        free(shown);
        cx += entry;
    }
    return n ? cy - y + LEGEND_ROW : 0;
}

/* ------------------------------------------------------------------- pie */

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
    value_text(tv, sizeof tv, total, d->unit);
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
        colors[i] = color_of(d->cat[i], i);
        value_text(vt, sizeof vt, v, d->unit);
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

typedef struct pie_tree {
    const tp_result *r;
    tp_result_tree t;
    int name_col, value_col;
} pie_tree;

/* A tree result with its name and value columns (columns: [NAME, VALUE],
 * default name, time_us); free p->t with tp_result_tree_free. */
static int tree_open(tp_stage *st, const svg_config *cfg, const tp_result *r, pie_tree *p)
{
    const char *name = cfg->columns.n > 0 ? cfg->columns.items[0] : "name";
    const char *value = cfg->columns.n > 1 ? cfg->columns.items[1] : "time_us";
    memset(p, 0, sizeof *p);
    p->r = r;
    if ((p->name_col = svg_col(st, r, name, 0)) < 0 || (p->value_col = svg_col(st, r, value, 1)) < 0)
        return TP_EINVAL;
    return tp_result_tree_load(st, r, &p->t);
}

static size_t count_children(const pie_tree *p, size_t node)
{
    size_t n = 0;
    for (size_t i = node + 1; i < p->t.nrows && p->t.level[i] > p->t.level[node]; i++)
        n += p->t.parent_row[i] == (int64_t)node;
    return n;
}

static int children_data(const pie_tree *p, size_t node, svg_data *d)
{
    int rc = svg_data_alloc(d, count_children(p, node), 1);
    if (rc != TP_OK)
        return rc;
    d->unit = tp_result_col_unit(p->r, p->value_col);
    size_t k = 0;
    for (size_t i = node + 1; i < p->t.nrows && p->t.level[i] > p->t.level[node]; i++) {
        if (p->t.parent_row[i] != (int64_t)node)
            continue;
        const char *name = tp_result_get_str(p->r, i, p->name_col);
        d->cat[k] = strdup(name ? name : "");
        if (d->cat[k] == NULL)
            return TP_ENOMEM;
        d->v[k++] = svg_cell(p->r, i, p->value_col);
    }
    return TP_OK;
}

/* The node named by `node`: a name, or a path of names joined by " / ". */
static int64_t find_node(const pie_tree *p, const char *node)
{
    if (node == NULL)
        return p->t.nrows ? 0 : -1;
    for (size_t i = 0; i < p->t.nrows; i++) {
        const char *name = tp_result_get_str(p->r, i, p->name_col);
        if (name && strcmp(name, node) == 0)
            return (int64_t)i;
    }
    for (size_t i = 0; i < p->t.nrows; i++) { /* a path: walk it from the end */
        const char *end = node + strlen(node);
        int64_t row = (int64_t)i;
        int ok = 1;
        while (ok && row >= 0) {
            const char *name = tp_result_get_str(p->r, (size_t)row, p->name_col);
            size_t n = name ? strlen(name) : 0;
            if ((size_t)(end - node) < n || memcmp(end - n, name ? name : "", n) != 0) {
                ok = 0;
                break;
            }
            end -= n;
            row = p->t.parent_row[row];
            if (end == node)
                break;
            if ((size_t)(end - node) < 3 || memcmp(end - 3, " / ", 3) != 0)
                ok = 0;
            end -= 3;
        }
        if (ok && end == node)
            return (int64_t)i;
    }
    return -1;
}

static int pie_of_tree(tp_stage *st, svg_doc *doc, const svg_config *cfg, const tp_result *r)
{
    pie_tree p;
    int rc = tree_open(st, cfg, r, &p);
    if (rc != TP_OK)
        return rc;
    int64_t start = find_node(&p, cfg->node);
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
        if ((rc = children_data(&p, queue[q], &d)) != TP_OK) {
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
            if (child >= 0 && count_children(&p, (size_t)child) > 0 && nq < MAX_PIES) {
                queue[nq] = (size_t)child;
                levels[nq++] = levels[q] + 1;
            }
        }
        svg_data_free(&d);
    }
    tp_result_tree_free(&p.t);
    return rc;
}

/* The first text column and the first numeric column after it. */
static int default_columns(const tp_result *r, int *label, int *value)
{
    *label = *value = -1;
    for (size_t c = 0; c < tp_result_cols(r); c++) {
        tp_coltype t = tp_result_col_type(r, (int)c);
        if (*label < 0 && t == TP_COL_STR)
            *label = (int)c;
        else if (*value < 0 && t != TP_COL_STR && strcmp(tp_result_col_name(r, (int)c), "rank") != 0)
            *value = (int)c;
    }
    if (*label < 0 && *value >= 0) /* no text: the first column labels, the next is the value */
        *label = 0, *value = tp_result_cols(r) > 1 ? 1 : -1;
    return *label >= 0 && *value >= 0;
}

static int columns_of(tp_stage *st, const svg_config *cfg, const tp_result *r, int *label,
                      int *value)
{
    if (cfg->columns.n >= 2) {
        *label = svg_col(st, r, cfg->columns.items[0], 0);
        *value = *label < 0 ? -1 : svg_col(st, r, cfg->columns.items[1], 1);
        return *value < 0 ? TP_EINVAL : TP_OK;
    }
    if (!default_columns(r, label, value))
        return tp_fail(st, TP_EINVAL, "result '%s': say which columns to draw (columns: [LABEL, VALUE])",
                       tp_result_id(r));
    return TP_OK;
}

static char *cell_text(const tp_result *r, size_t row, int col)
{
    char buf[64];
    if (tp_result_is_null(r, row, col))
        return strdup("");
    if (tp_result_col_type(r, col) == TP_COL_STR)
        return strdup(tp_result_get_str(r, row, col));
    if (tp_result_col_type(r, col) == TP_COL_F64)
        svg_fmt_num(buf, sizeof buf, tp_result_get_f64(r, row, col), 0.01);
    else
        snprintf(buf, sizeof buf, "%lld", (long long)tp_result_get_i64(r, row, col));
    return strdup(buf);
}

int svg_draw_pie(tp_stage *st, svg_doc *doc, const svg_config *cfg, const tp_result *r)
{
    if (tp_result_is_tree(r))
        return pie_of_tree(st, doc, cfg, r);
    int label, value, rc = columns_of(st, cfg, r, &label, &value);
    if (rc != TP_OK)
        return rc;
    svg_data d;
    if ((rc = svg_data_alloc(&d, tp_result_rows(r), 1)) != TP_OK)
        return tp_fail(st, rc, "out of memory");
    d.unit = tp_result_col_unit(r, value);
    for (size_t i = 0; i < d.ncat && rc == TP_OK; i++) {
        d.cat[i] = cell_text(r, i, label);
        d.v[i] = svg_cell(r, i, value);
        rc = d.cat[i] ? TP_OK : TP_ENOMEM;
    }
    if (rc == TP_OK)
        rc = draw_one_pie(doc, tp_result_col_name(r, value), &d, (size_t)cfg->top);
    svg_data_free(&d);
    return rc;
}

/* ------------------------------------------------------------------ bars */

typedef struct bar_spec {
    int stacked, percent, vertical;
    const double *err;         /* per category, single series: whiskers, or NULL */
    const char *value_label;   /* values' axis title */
    const char *cat_label;     /* categories' axis title, or NULL */
    double plot_height;        /* vertical bars */
} bar_spec;

static double value_at(const svg_data *d, size_t i, size_t s)
{
    double v = d->v[i * d->nser + s];
    return isfinite(v) ? v : 0;
}

/* The value range the axis must show. */
static void bar_range(const svg_data *d, const bar_spec *b, double *lo, double *hi)
{
    *lo = 0;
    *hi = 0;
    for (size_t i = 0; i < d->ncat; i++) {
        double sum = 0;
        for (size_t s = 0; s < d->nser; s++) {
            double v = value_at(d, i, s);
            if (b->stacked) {
                sum += v > 0 ? v : 0;
                continue;
            }
            double e = b->err && isfinite(b->err[i]) ? b->err[i] : 0;
            *lo = fmin(*lo, v - e);
            *hi = fmax(*hi, v + e);
        }
        if (b->stacked)
            *hi = fmax(*hi, sum);
    }
    if (*hi <= *lo)
        *hi = *lo + 1;
}

static void percent_of_category(svg_data *d)
{
    for (size_t i = 0; i < d->ncat; i++) {
        double sum = 0;
        for (size_t s = 0; s < d->nser; s++)
            sum += value_at(d, i, s) > 0 ? value_at(d, i, s) : 0;
        for (size_t s = 0; s < d->nser; s++)
            d->v[i * d->nser + s] = sum > 0 ? fmax(value_at(d, i, s), 0) / sum * 100 : 0;
    }
    d->unit = "percent";
}

static void bar_title(svg_doc *doc, const svg_data *d, size_t i, size_t s)
{
    char vt[64];
    value_text(vt, sizeof vt, d->v[i * d->nser + s], d->unit);
    svg_printf(doc, "<title>");
    svg_escape(doc, d->cat[i]);
    if (d->nser > 1) {
        svg_printf(doc, " / ");
        svg_escape(doc, d->ser[s]);
    }
    svg_printf(doc, ": %s</title>", vt);
}

static void bar_rect(svg_doc *doc, const svg_data *d, size_t i, size_t s, double x, double y,
                     double w, double h, const char *color)
{
    if (w <= 0 || h <= 0)
        return;
    svg_printf(doc, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"%s\">", x, y,
               w, h, color);
    bar_title(doc, d, i, s);
    svg_printf(doc, "</rect>\n");
}

/* Legend of the series, when there is more than one or they are stacked. */
static void series_legend(svg_doc *doc, const svg_data *d, const bar_spec *b, double y)
{
    if (d->nser < 2 && !b->stacked) {
        doc->height = y;
        return;
    }
    const char **colors = calloc(d->nser, sizeof *colors);
    if (colors == NULL) {
        doc->oom = 1;
        return;
    }
    for (size_t s = 0; s < d->nser; s++)
        colors[s] = color_of(d->ser[s], s);
    y += svg_legend(doc, SVG_MARGIN, y, doc->width - 2 * SVG_MARGIN, d->nser, d->ser, colors, NULL);
    free(colors);
    doc->height = y;
}

static int max_ticks_for(double length, double label_w)
{
    int n = (int)(length / (label_w + 24));
    return n < 2 ? 2 : n > 10 ? 10 : n;
}

static double widest_tick(svg_ticks t)
{
    double w = 0;
    char buf[48];
    for (int k = 0; k < t.n; k++) {
        svg_fmt_num(buf, sizeof buf, t.first + k * t.step, t.step);
        w = fmax(w, svg_text_width(buf, SVG_FONT_SMALL));
    }
    return w;
}

static void draw_hbars(svg_doc *doc, const svg_data *d, const bar_spec *b)
{
    double lo, hi, label_w = 0;
    bar_range(d, b, &lo, &hi);
    for (size_t i = 0; i < d->ncat; i++)
        label_w = fmax(label_w, svg_text_width(d->cat[i], SVG_FONT));
    label_w = fmin(label_w, 0.35 * doc->width);
    double x0 = SVG_MARGIN + label_w + 8, x1 = doc->width - SVG_MARGIN - 24;
    svg_ticks t = svg_nice_ticks(lo, hi, max_ticks_for(x1 - x0, widest_tick(svg_nice_ticks(lo, hi, 6))));
    double a_lo = fmin(lo, t.first), a_hi = fmax(hi, t.first + (t.n - 1) * t.step);
    int grouped = !b->stacked && d->nser > 1;
    double row_h = grouped ? (double)d->nser * 12 + 10 : 22, thick = grouped ? 12 : 14;
    double y = doc->height + 6, y_axis = y + (double)d->ncat * row_h + 4;
#define XOF(v) (x0 + ((v) - a_lo) / (a_hi - a_lo) * (x1 - x0))
    for (int k = 0; k < t.n; k++) { /* grid first, under the bars */
        double v = t.first + k * t.step, x = XOF(v);
        char buf[48];
        svg_fmt_num(buf, sizeof buf, v, t.step);
        svg_printf(doc, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\"/>\n", x,
                   y, x, y_axis, v == 0 ? "#888888" : "#E5E5E5");
        svg_text(doc, x, y_axis + 14, SVG_FONT_SMALL, SVG_MIDDLE, NULL, buf, NULL);
    }
    for (size_t i = 0; i < d->ncat; i++) {
        double top = y + (double)i * row_h, base = XOF(0), cum = 0;
        char *shown = svg_shorten(d->cat[i], label_w, SVG_FONT);
        if (shown == NULL) {
            doc->oom = 1;
            return;
        }
        svg_text(doc, x0 - 6, top + row_h / 2 + 4, SVG_FONT, SVG_END, NULL, shown, d->cat[i]);
        free(shown);
        for (size_t s = 0; s < d->nser; s++) {
            double v = value_at(d, i, s);
            const char *color = d->nser > 1 || b->stacked ? color_of(d->ser[s], s) : color_of(d->cat[i], 0);
            if (b->stacked) {
                if (v <= 0)
                    continue;
                bar_rect(doc, d, i, s, XOF(cum), top + (row_h - thick) / 2, XOF(cum + v) - XOF(cum),
                         thick, color);
                cum += v;
                continue;
            }
            double by = grouped ? top + 5 + (double)s * 12 : top + (row_h - thick) / 2;
            bar_rect(doc, d, i, s, fmin(base, XOF(v)), by, fabs(XOF(v) - base), grouped ? 11 : thick,
                     color);
            if (b->err && isfinite(b->err[i]) && b->err[i] > 0) {
                double e0 = XOF(v - b->err[i]), e1 = XOF(v + b->err[i]), cy = by + thick / 2;
                svg_printf(doc,
                           "<path d=\"M%.2f %.2fH%.2fM%.2f %.2fV%.2fM%.2f %.2fV%.2f\" "
                           "stroke=\"#000000\" fill=\"none\"/>\n",
                           e0, cy, e1, e0, cy - 4, cy + 4, e1, cy - 4, cy + 4);
            }
        }
    }
#undef XOF
    svg_printf(doc, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#444444\"/>\n",
               x0, y_axis, x1, y_axis);
    svg_text(doc, (x0 + x1) / 2, y_axis + 32, SVG_FONT, SVG_MIDDLE, NULL, b->value_label, NULL);
    series_legend(doc, d, b, y_axis + 44);
    doc->height += 8;
}

static void draw_vbars(svg_doc *doc, const svg_data *d, const bar_spec *b)
{
    double lo, hi;
    bar_range(d, b, &lo, &hi);
    double ph = b->plot_height > 0 ? b->plot_height : BAR_PLOT_HEIGHT;
    svg_ticks t = svg_nice_ticks(lo, hi, max_ticks_for(ph, 8));
    double a_lo = fmin(lo, t.first), a_hi = fmax(hi, t.first + (t.n - 1) * t.step);
    double x0 = SVG_MARGIN + widest_tick(t) + 8, x1 = doc->width - SVG_MARGIN;
    double ytop = doc->height + 24, ybot = ytop + ph;
    svg_text(doc, SVG_MARGIN, ytop - 10, SVG_FONT, SVG_START, NULL, b->value_label, NULL);
#define YOF(v) (ybot - ((v) - a_lo) / (a_hi - a_lo) * ph)
    for (int k = 0; k < t.n; k++) {
        double v = t.first + k * t.step, y = YOF(v);
        char buf[48];
        svg_fmt_num(buf, sizeof buf, v, t.step);
        svg_printf(doc, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"%s\"/>\n", x0,
                   y, x1, y, v == 0 ? "#888888" : "#E5E5E5");
        svg_text(doc, x0 - 4, y + 3.5, SVG_FONT_SMALL, SVG_END, NULL, buf, NULL);
    }
    double slot = (x1 - x0) / (double)(d->ncat ? d->ncat : 1);
    int grouped = !b->stacked && d->nser > 1;
    double bw = slot * 0.7, base = YOF(0);
    for (size_t i = 0; i < d->ncat; i++) {
        double left = x0 + (double)i * slot + (slot - bw) / 2, cum = 0;
        for (size_t s = 0; s < d->nser; s++) {
            double v = value_at(d, i, s);
            const char *color = d->nser > 1 || b->stacked ? color_of(d->ser[s], s) : color_of(d->cat[i], 0);
            if (b->stacked) {
                if (v > 0)
                    bar_rect(doc, d, i, s, left, YOF(cum + v), bw, YOF(cum) - YOF(cum + v), color);
                cum += v > 0 ? v : 0;
                continue;
            }
            double w = grouped ? bw / (double)d->nser : bw, x = left + (grouped ? (double)s * w : 0);
            bar_rect(doc, d, i, s, x, fmin(base, YOF(v)), w, fabs(base - YOF(v)), color);
        }
        /* every label that fits beside the ones before it */
        char *shown = svg_shorten(d->cat[i], fmax(slot - 4, 48), SVG_FONT_SMALL);
        if (shown == NULL) {
            doc->oom = 1;
            return;
        }
        svg_text(doc, x0 + ((double)i + 0.5) * slot, ybot + 14, SVG_FONT_SMALL, SVG_MIDDLE, NULL,
                 shown, d->cat[i]);
        free(shown);
    }
#undef YOF
    svg_printf(doc, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#444444\"/>\n",
               x0, ybot, x1, ybot);
    double y = ybot + 20;
    if (b->cat_label) {
        svg_text(doc, (x0 + x1) / 2, ybot + 34, SVG_FONT, SVG_MIDDLE, NULL, b->cat_label, NULL);
        y = ybot + 44;
    }
    series_legend(doc, d, b, y);
    doc->height += 8;
}

static void draw_bar_data(svg_doc *doc, svg_data *d, const bar_spec *b)
{
    if (b->percent)
        percent_of_category(d);
    if (b->vertical)
        draw_vbars(doc, d, b);
    else
        draw_hbars(doc, d, b);
}

/* Bars from a flat table: columns [LABEL, VALUE...]. */
static int table_bars(tp_stage *st, const svg_config *cfg, const tp_result *r, svg_data *d,
                      int *label_col)
{
    int label, value, rc;
    size_t nval = cfg->columns.n > 1 ? cfg->columns.n - 1 : 1;
    if ((rc = columns_of(st, cfg, r, &label, &value)) != TP_OK)
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
        if ((d->cat[i] = cell_text(r, i, label)) == NULL)
            rc = TP_ENOMEM;
        for (size_t s = 0; s < nval; s++)
            d->v[i * nval + s] = svg_cell(r, i, cols[s]);
    }
    free(cols);
    return rc;
}

/* Bars from a long table: a bar per distinct LABEL, a part per distinct
 * value of the `series` column (a kernel mix per op: op, name, sum_us). */
static int pivot_bars(tp_stage *st, const svg_config *cfg, const tp_result *r, svg_data *d,
                      int *label_col)
{
    int label, value, split, rc;
    if ((rc = columns_of(st, cfg, r, &label, &value)) != TP_OK)
        return rc;
    if ((split = svg_col(st, r, cfg->series, 0)) < 0)
        return TP_EINVAL;
    *label_col = label;
    size_t n = tp_result_rows(r), ncat = 0, nser = 0;
    char **cats = calloc(n ? n : 1, sizeof *cats), **sers = calloc(n ? n : 1, sizeof *sers);
    size_t *ci = malloc((n ? n : 1) * sizeof *ci), *si = malloc((n ? n : 1) * sizeof *si);
    rc = cats && sers && ci && si ? TP_OK : TP_ENOMEM;
    for (size_t i = 0; i < n && rc == TP_OK; i++) { /* distinct names, first seen first */
        char *c = cell_text(r, i, label), *s = cell_text(r, i, split);
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
    pie_tree p;
    int rc = tree_open(st, cfg, r, &p);
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
    default_columns(r, &label, &value);
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
        pie_tree p;
        if ((rc = tree_open(st, cfg, r, &p)) != TP_OK)
            return rc;
        int64_t node = find_node(&p, cfg->node);
        rc = node < 0 ? tp_fail(st, TP_ENOTFOUND, "result '%s' has no node '%s'", tp_result_id(r),
                                cfg->node ? cfg->node : "")
                      : children_data(&p, (size_t)node, &d);
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
     * by its first column (the busiest streams of active_us, idle_us) */
    if (rc == TP_OK)
        rc = svg_data_fold_top(&d, stacked || pivoted ? MAX_STACKS : (size_t)cfg->top,
                               stacked && !from_tree && !pivoted ? 0 : -1);
    if (rc == TP_OK) {
        char vlabel[256];
        const char *vname = d.nser == 1 ? d.ser[0]
                            : from_tree || pivoted ? tp_result_col_name(r, pivot_value_col(r, cfg, from_tree))
                                                   : "value";
        svg_axis_label(vlabel, sizeof vlabel, cfg->orientation ? cfg->y_label : cfg->x_label,
                       cfg->percent ? "share" : vname, cfg->percent ? "percent" : d.unit);
        bar_spec b = {stacked, cfg->percent, cfg->orientation, NULL, vlabel,
                      cfg->orientation ? cfg->x_label ? cfg->x_label
                                         : label >= 0 ? tp_result_col_name(r, label) : NULL
                                       : NULL,
                      (double)cfg->height};
        draw_bar_data(doc, &d, &b);
    }
    svg_data_free(&d);
    return rc == TP_OK && doc->oom ? tp_fail(st, TP_ENOMEM, "out of memory") : rc;
}

/* ------------------------------------------------------------- error bar */

static int find_prefixed(const tp_result *r, const char *a, const char *b)
{
    for (size_t c = 0; c < tp_result_cols(r); c++) {
        const char *n = tp_result_col_name(r, (int)c);
        if (tp_result_col_type(r, (int)c) != TP_COL_STR &&
            (strncmp(n, a, strlen(a)) == 0 || (b && strncmp(n, b, strlen(b)) == 0)))
            return (int)c;
    }
    return -1;
}

typedef struct mean_rank {
    size_t row;
    double mean;
} mean_rank;

static int by_mean_desc(const void *a, const void *b)
{
    const mean_rank *x = a, *y = b;
    if (x->mean != y->mean)
        return x->mean > y->mean ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

int svg_draw_error_bar(tp_stage *st, svg_doc *doc, const svg_config *cfg, const tp_result *r)
{
    int label, mean, sd, dummy;
    if (cfg->columns.n >= 3) {
        label = svg_col(st, r, cfg->columns.items[0], 0);
        mean = label < 0 ? -1 : svg_col(st, r, cfg->columns.items[1], 1);
        sd = mean < 0 ? -1 : svg_col(st, r, cfg->columns.items[2], 1);
        if (sd < 0)
            return TP_EINVAL;
    } else {
        default_columns(r, &label, &dummy);
        mean = find_prefixed(r, "mean", NULL);
        sd = find_prefixed(r, "std", "stdev");
        if (label < 0 || mean < 0 || sd < 0)
            return tp_fail(st, TP_EINVAL,
                           "result '%s': say which columns to draw (columns: [LABEL, MEAN, STD])",
                           tp_result_id(r));
    }
    /* the top means (no Others: a fold has no std), largest first */
    size_t n = tp_result_rows(r), keep = n;
    if (cfg->top > 0 && (size_t)cfg->top < keep)
        keep = (size_t)cfg->top;
    mean_rank *rank = malloc((n ? n : 1) * sizeof *rank);
    if (rank == NULL)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        double m = svg_cell(r, i, mean);
        rank[i].row = i;
        rank[i].mean = isfinite(m) ? m : -INFINITY;
    }
    qsort(rank, n, sizeof *rank, by_mean_desc);
    svg_data d;
    double *err = malloc((keep ? keep : 1) * sizeof *err);
    int rc = err ? svg_data_alloc(&d, keep, 1) : TP_ENOMEM;
    if (rc != TP_OK) {
        free(rank);
        free(err);
        return tp_fail(st, rc, "out of memory");
    }
    d.unit = tp_result_col_unit(r, mean);
    rc = (d.ser[0] = strdup(tp_result_col_name(r, mean))) ? TP_OK : TP_ENOMEM;
    for (size_t k = 0; k < keep && rc == TP_OK; k++) {
        size_t i = rank[k].row;
        rc = (d.cat[k] = cell_text(r, i, label)) ? TP_OK : TP_ENOMEM;
        d.v[k] = svg_cell(r, i, mean);
        err[k] = svg_cell(r, i, sd);
    }
    if (rc == TP_OK) {
        char vlabel[256];
        svg_axis_label(vlabel, sizeof vlabel, cfg->x_label, "mean ± standard deviation", d.unit);
        bar_spec b = {0, 0, 0, err, vlabel, NULL, 0};
        draw_hbars(doc, &d, &b);
    }
    free(rank);
    free(err);
    svg_data_free(&d);
    return rc == TP_OK && doc->oom ? tp_fail(st, TP_ENOMEM, "out of memory") : rc;
}

/* ------------------------------------------------------------- histogram */

static int prebinned(const tp_result *r, const svg_config *cfg, int *lo, int *hi, int *val)
{
    if (cfg->columns.n >= 3) {
        *lo = tp_result_find_col(r, cfg->columns.items[0]);
        *hi = tp_result_find_col(r, cfg->columns.items[1]);
        *val = tp_result_find_col(r, cfg->columns.items[2]);
        return 1;
    }
    const char *kind = tp_result_kind(r);
    *lo = find_prefixed(r, "lo", NULL);
    *hi = find_prefixed(r, "hi", NULL);
    *val = tp_result_find_col(r, cfg->columns.n == 1 ? cfg->columns.items[0] : "count");
    return (kind && strcmp(kind, "histogram") == 0) || (*lo >= 0 && *hi >= 0 && *val >= 0);
}

static int edge_label(char *buf, size_t size, double lo, double hi, double step)
{
    char a[48], b[48];
    svg_fmt_num(a, sizeof a, lo, step);
    svg_fmt_num(b, sizeof b, hi, step);
    return snprintf(buf, size, "%s-%s", a, b);
}

/* Bucket edges for raw values: the ones given, or round ones over the range. */
static int histogram_edges(tp_stage *st, const svg_config *cfg, const double *x, size_t n,
                           double **edges, size_t *nedges)
{
    if (cfg->bins.n > 0) {
        if (cfg->bins.n < 2)
            return tp_fail(st, TP_EINVAL, "bins: give at least two edges");
        for (size_t i = 1; i < cfg->bins.n; i++)
            if (!(cfg->bins.items[i] > cfg->bins.items[i - 1]))
                return tp_fail(st, TP_EINVAL, "bins: edges must increase (%g after %g)",
                               cfg->bins.items[i], cfg->bins.items[i - 1]);
        *edges = malloc(cfg->bins.n * sizeof **edges);
        if (*edges == NULL)
            return TP_ENOMEM;
        memcpy(*edges, cfg->bins.items, cfg->bins.n * sizeof **edges);
        *nedges = cfg->bins.n;
        return TP_OK;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]))
            lo = fmin(lo, x[i]), hi = fmax(hi, x[i]);
    if (!(hi >= lo))
        lo = 0, hi = 1;
    svg_ticks t = svg_nice_ticks(lo, hi == lo ? lo + 1 : hi, (int)cfg->bin_count + 1);
    if (t.first + (t.n - 1) * t.step <= hi)
        t.n++; /* the top edge must lie above the largest value */
    *edges = malloc((size_t)t.n * sizeof **edges);
    if (*edges == NULL)
        return TP_ENOMEM;
    for (int k = 0; k < t.n; k++)
        (*edges)[k] = t.first + k * t.step;
    *nedges = (size_t)t.n;
    return TP_OK;
}

static int raw_histogram(tp_stage *st, const svg_config *cfg, const tp_result *r, svg_data *d,
                         size_t *outside, int *value_col)
{
    int col;
    if (cfg->columns.n >= 1) {
        if ((col = svg_col(st, r, cfg->columns.items[0], 1)) < 0)
            return TP_EINVAL;
    } else {
        int label;
        if (!default_columns(r, &label, &col))
            return tp_fail(st, TP_EINVAL, "result '%s': say which column to count (columns: [VALUE])",
                           tp_result_id(r));
    }
    size_t n = tp_result_rows(r), nedges = 0;
    double *x = malloc((n ? n : 1) * sizeof *x), *edges = NULL;
    if (x == NULL)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        x[i] = svg_cell(r, i, col);
    int rc = histogram_edges(st, cfg, x, n, &edges, &nedges);
    if (rc == TP_OK)
        rc = svg_data_alloc(d, nedges - 1, 1);
    double minstep = INFINITY;
    for (size_t b = 0; rc == TP_OK && b + 1 < nedges; b++)
        minstep = fmin(minstep, edges[b + 1] - edges[b]);
    for (size_t b = 0; rc == TP_OK && b + 1 < nedges; b++) {
        char label[112];
        edge_label(label, sizeof label, edges[b], edges[b + 1], minstep);
        rc = (d->cat[b] = strdup(label)) ? TP_OK : TP_ENOMEM;
        d->v[b] = 0;
    }
    *outside = 0;
    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        if (!isfinite(x[i]))
            continue;
        /* [lo, hi), the last bucket closed when the edges were chosen here */
        size_t b = 0;
        while (b + 1 < nedges && !(x[i] < edges[b + 1]))
            b++;
        if (x[i] < edges[0] || b + 1 >= nedges)
            (*outside)++;
        else
            d->v[b] += 1;
    }
    if (rc == TP_OK) {
        d->unit = "count";
        rc = (d->ser[0] = strdup("count")) ? TP_OK : TP_ENOMEM;
    }
    *value_col = col;
    free(x);
    free(edges);
    return rc;
}

int svg_draw_histogram(tp_stage *st, svg_doc *doc, const svg_config *cfg, const tp_result *r)
{
    int lo, hi, val, rc;
    size_t outside = 0;
    svg_data d = {0};
    const char *xname, *xunit = NULL;
    if (prebinned(r, cfg, &lo, &hi, &val)) {
        if (lo < 0 || hi < 0 || val < 0)
            return tp_fail(st, TP_EINVAL,
                           "result '%s': say which columns hold the buckets (columns: [LO, HI, COUNT])",
                           tp_result_id(r));
        if ((rc = svg_data_alloc(&d, tp_result_rows(r), 1)) != TP_OK)
            return tp_fail(st, rc, "out of memory");
        double minstep = INFINITY;
        for (size_t i = 0; i < d.ncat; i++)
            minstep = fmin(minstep, svg_cell(r, i, hi) - svg_cell(r, i, lo));
        for (size_t i = 0; i < d.ncat && rc == TP_OK; i++) {
            char label[112];
            edge_label(label, sizeof label, svg_cell(r, i, lo), svg_cell(r, i, hi), minstep);
            rc = (d.cat[i] = strdup(label)) ? TP_OK : TP_ENOMEM;
            d.v[i] = svg_cell(r, i, val);
        }
        d.unit = tp_result_col_unit(r, val);
        if (rc == TP_OK)
            rc = (d.ser[0] = strdup(tp_result_col_name(r, val))) ? TP_OK : TP_ENOMEM;
        xname = NULL; /* "bucket (unit of lo)" */
        xunit = tp_result_col_unit(r, lo);
    } else {
        int xc = -1;
        rc = raw_histogram(st, cfg, r, &d, &outside, &xc);
        xname = xc >= 0 ? tp_result_col_name(r, xc) : NULL;
        xunit = xc >= 0 ? tp_result_col_unit(r, xc) : NULL;
    }
    if (rc == TP_OK) {
        char vlabel[256], clabel[256];
        svg_axis_label(vlabel, sizeof vlabel, cfg->y_label, d.ser[0], d.unit);
        svg_axis_label(clabel, sizeof clabel, cfg->x_label, xname ? xname : "bucket", xunit);
        bar_spec b = {0, 0, 1, NULL, vlabel, clabel, (double)cfg->height};
        draw_vbars(doc, &d, &b);
        if (outside) {
            char note[96];
            snprintf(note, sizeof note, "%zu value%s outside the buckets", outside,
                     outside == 1 ? "" : "s");
            svg_text(doc, SVG_MARGIN, doc->height + 4, SVG_FONT, SVG_START, NULL, note, NULL);
            doc->height += 16;
        }
    }
    svg_data_free(&d);
    return rc == TP_OK && doc->oom ? tp_fail(st, TP_ENOMEM, "out of memory") : rc;
}

/* ------------------------------------------------------------------ line */

typedef struct line_series {
    char *name;
    double *x, *y;
    size_t n;
} line_series;

static int by_x(const void *a, const void *b)
{
    const double *p = a, *q = b;
    return (p[0] > q[0]) - (p[0] < q[0]);
}

int svg_draw_line(tp_stage *st, svg_doc *doc, const svg_config *cfg, const tp_result *r)
{
    int xcol, rc = TP_OK, split = -1;
    size_t ny = cfg->columns.n > 1 ? cfg->columns.n - 1 : 1, nrows = tp_result_rows(r);
    int ycols[16];
    if (ny > 16)
        return tp_fail(st, TP_EINVAL, "columns: at most 16 series");
    if (cfg->columns.n >= 2) {
        if ((xcol = svg_col(st, r, cfg->columns.items[0], 1)) < 0)
            return TP_EINVAL;
        for (size_t s = 0; s < ny; s++)
            if ((ycols[s] = svg_col(st, r, cfg->columns.items[s + 1], 1)) < 0)
                return TP_EINVAL;
    } else {
        xcol = ycols[0] = -1;
        for (size_t c = 0; c < tp_result_cols(r); c++)
            if (tp_result_col_type(r, (int)c) != TP_COL_STR &&
                strcmp(tp_result_col_name(r, (int)c), "rank") != 0) {
                if (xcol < 0)
                    xcol = (int)c;
                else if (ycols[0] < 0)
                    ycols[0] = (int)c;
            }
        if (ycols[0] < 0)
            return tp_fail(st, TP_EINVAL, "result '%s': say which columns to draw (columns: [X, Y...])",
                           tp_result_id(r));
    }
    if (cfg->series && (split = svg_col(st, r, cfg->series, 0)) < 0)
        return TP_EINVAL;
    /* series: each y column, or each distinct value of `series` (one y column) */
    size_t nser = 0, cap = split >= 0 ? nrows + 1 : ny;
    line_series *ls = calloc(cap ? cap : 1, sizeof *ls);
    size_t *of_row = malloc((nrows ? nrows : 1) * sizeof *of_row);
    if (ls == NULL || of_row == NULL) {
        free(ls);
        free(of_row);
        return tp_fail(st, TP_ENOMEM, "out of memory");
    }
    if (split < 0) {
        for (size_t s = 0; s < ny && rc == TP_OK; s++)
            rc = (ls[nser++].name = strdup(tp_result_col_name(r, ycols[s]))) ? TP_OK : TP_ENOMEM;
    } else {
        for (size_t i = 0; i < nrows && rc == TP_OK; i++) {
            char *key = cell_text(r, i, split);
            size_t s = 0;
            if (key == NULL) {
                rc = TP_ENOMEM;
                break;
            }
            while (s < nser && strcmp(ls[s].name, key) != 0)
                s++;
            if (s == nser)
                ls[nser++].name = key;
            else
                free(key);
            of_row[i] = s;
        }
    }
    double xlo = INFINITY, xhi = -INFINITY, ylo = 0, yhi = -INFINITY;
    for (size_t s = 0; s < nser && rc == TP_OK; s++) {
        double *xy = malloc((nrows ? nrows : 1) * 2 * sizeof *xy);
        size_t n = 0;
        if (xy == NULL) {
            rc = TP_ENOMEM;
            break;
        }
        for (size_t i = 0; i < nrows; i++) {
            if (split >= 0 && of_row[i] != s)
                continue;
            double x = svg_cell(r, i, xcol), y = svg_cell(r, i, ycols[split >= 0 ? 0 : s]);
            if (!isfinite(x) || !isfinite(y))
                continue;
            xy[2 * n] = x;
            xy[2 * n + 1] = y;
            n++;
            xlo = fmin(xlo, x), xhi = fmax(xhi, x), ylo = fmin(ylo, y), yhi = fmax(yhi, y);
        }
        qsort(xy, n, 2 * sizeof *xy, by_x);
        ls[s].x = xy;
        ls[s].n = n;
    }
    if (rc == TP_OK) {
        if (!(xhi >= xlo))
            xlo = 0, xhi = 1;
        if (xhi == xlo)
            xlo -= 1, xhi += 1;
        if (!(yhi > ylo))
            yhi = ylo + 1;
        double ph = cfg->height > 0 ? (double)cfg->height : LINE_PLOT_HEIGHT;
        svg_ticks ty = svg_nice_ticks(ylo, yhi, max_ticks_for(ph, 8));
        double x0 = SVG_MARGIN + widest_tick(ty) + 8, x1 = doc->width - SVG_MARGIN - 16;
        svg_ticks tx = svg_nice_ticks(xlo, xhi, max_ticks_for(x1 - x0, widest_tick(svg_nice_ticks(xlo, xhi, 6))));
        double ax0 = fmin(xlo, tx.first), ax1 = fmax(xhi, tx.first + (tx.n - 1) * tx.step);
        double ay0 = fmin(ylo, ty.first), ay1 = fmax(yhi, ty.first + (ty.n - 1) * ty.step);
        double ytop = doc->height + 24, ybot = ytop + ph;
        char ylabel[256], xlabel[256];
        const char *yname = split >= 0 || nser == 1 ? tp_result_col_name(r, ycols[0]) : "value";
        svg_axis_label(ylabel, sizeof ylabel, cfg->y_label, yname, tp_result_col_unit(r, ycols[0]));
        svg_axis_label(xlabel, sizeof xlabel, cfg->x_label, tp_result_col_name(r, xcol),
                       tp_result_col_unit(r, xcol));
        svg_text(doc, SVG_MARGIN, ytop - 10, SVG_FONT, SVG_START, NULL, ylabel, NULL);
#define XOF(v) (x0 + ((v) - ax0) / (ax1 - ax0) * (x1 - x0))
#define YOF(v) (ybot - ((v) - ay0) / (ay1 - ay0) * ph)
        for (int k = 0; k < ty.n; k++) {
            double v = ty.first + k * ty.step;
            char buf[48];
            svg_fmt_num(buf, sizeof buf, v, ty.step);
            svg_printf(doc, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#E5E5E5\"/>\n",
                       x0, YOF(v), x1, YOF(v));
            svg_text(doc, x0 - 4, YOF(v) + 3.5, SVG_FONT_SMALL, SVG_END, NULL, buf, NULL);
        }
        for (int k = 0; k < tx.n; k++) {
            double v = tx.first + k * tx.step;
            char buf[48];
            svg_fmt_num(buf, sizeof buf, v, tx.step);
            svg_printf(doc, "<line x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" y2=\"%.2f\" stroke=\"#E5E5E5\"/>\n",
                       XOF(v), ytop, XOF(v), ybot);
            svg_text(doc, XOF(v), ybot + 14, SVG_FONT_SMALL, SVG_MIDDLE, NULL, buf, NULL);
        }
        svg_printf(doc, "<path d=\"M%.2f %.2fV%.2fH%.2f\" stroke=\"#444444\" fill=\"none\"/>\n", x0,
                   ytop, ybot, x1);
        const char **colors = calloc(nser ? nser : 1, sizeof *colors);
        if (colors == NULL)
            rc = TP_ENOMEM;
        for (size_t s = 0; s < nser && rc == TP_OK; s++) {
            colors[s] = svg_color(s);
            svg_printf(doc, "<g><title>");
            svg_escape(doc, ls[s].name);
            svg_printf(doc, "</title><polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
                       colors[s]);
            for (size_t i = 0; i < ls[s].n; i++)
                svg_printf(doc, "%s%.2f,%.2f", i ? " " : "", XOF(ls[s].x[2 * i]), YOF(ls[s].x[2 * i + 1]));
            svg_printf(doc, "\"/>\n");
            if (ls[s].n <= 200) /* points a person can hover */
                for (size_t i = 0; i < ls[s].n; i++) {
                    char xv[48], yv[48];
                    value_text(xv, sizeof xv, ls[s].x[2 * i], NULL);
                    value_text(yv, sizeof yv, ls[s].x[2 * i + 1], NULL);
                    svg_printf(doc, "<circle cx=\"%.2f\" cy=\"%.2f\" r=\"3\" fill=\"#FFFFFF\" stroke=\"%s\">"
                                    "<title>%s, %s</title></circle>\n",
                               XOF(ls[s].x[2 * i]), YOF(ls[s].x[2 * i + 1]), colors[s], xv, yv);
                }
            svg_printf(doc, "</g>\n");
        }
#undef XOF
#undef YOF
        svg_text(doc, (x0 + x1) / 2, ybot + 32, SVG_FONT, SVG_MIDDLE, NULL, xlabel, NULL);
        double y = ybot + 44;
        if (rc == TP_OK && nser > 1) {
            char **names = calloc(nser, sizeof *names);
            if (names) {
                for (size_t s = 0; s < nser; s++)
                    names[s] = ls[s].name;
                y += svg_legend(doc, SVG_MARGIN, y, doc->width - 2 * SVG_MARGIN, nser, names, colors, NULL);
            }
            free(names);
        }
        doc->height = y + 8;
        free(colors);
    }
    for (size_t s = 0; s < nser; s++) {
        free(ls[s].name);
        free(ls[s].x);
    }
    free(ls);
    free(of_row);
    if (rc == TP_OK && doc->oom)
        rc = TP_ENOMEM;
    return rc == TP_ENOMEM ? tp_fail(st, rc, "out of memory") : rc;
}
