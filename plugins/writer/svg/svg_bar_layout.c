/*
 * The svg writer: bars drawn from chart data, horizontal or vertical,
 * grouped or stacked, with whiskers (error_bar); bar, stacked_bar,
 * histogram and error_bar charts lay out through these.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg_chart.h"

#define BAR_PLOT_HEIGHT 300.0

static double value_at(const svg_data *d, size_t i, size_t s)
{
    double v = d->v[i * d->nser + s];
    return isfinite(v) ? v : 0;
}

/* The value range the axis must show. */
static void bar_range(const svg_data *d, const svg_bar_spec *b, double *lo, double *hi)
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
    svg_value_text(vt, sizeof vt, d->v[i * d->nser + s], d->unit);
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
static void series_legend(svg_doc *doc, const svg_data *d, const svg_bar_spec *b, double y)
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
        colors[s] = svg_color_of(d->ser[s], s);
    y += svg_legend(doc, SVG_MARGIN, y, doc->width - 2 * SVG_MARGIN, d->nser, d->ser, colors, NULL);
    free(colors);
    doc->height = y;
}

void svg_draw_hbars(svg_doc *doc, const svg_data *d, const svg_bar_spec *b)
{
    double lo, hi, label_w = 0;
    bar_range(d, b, &lo, &hi);
    for (size_t i = 0; i < d->ncat; i++)
        label_w = fmax(label_w, svg_text_width(d->cat[i], SVG_FONT));
    label_w = fmin(label_w, 0.35 * doc->width);
    double x0 = SVG_MARGIN + label_w + 8, x1 = doc->width - SVG_MARGIN - 24;
    svg_ticks t = svg_axis_ticks(lo, hi, svg_max_ticks_for(x1 - x0, svg_widest_tick(svg_nice_ticks(lo, hi, 6))),
                                 b->integral && !b->percent);
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
            const char *color = d->nser > 1 || b->stacked ? svg_color_of(d->ser[s], s) : svg_color_of(d->cat[i], 0);
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

void svg_draw_vbars(svg_doc *doc, const svg_data *d, const svg_bar_spec *b)
{
    double lo, hi;
    bar_range(d, b, &lo, &hi);
    double ph = b->plot_height > 0 ? b->plot_height : BAR_PLOT_HEIGHT;
    svg_ticks t = svg_axis_ticks(lo, hi, svg_max_ticks_for(ph, 8), b->integral && !b->percent);
    double a_lo = fmin(lo, t.first), a_hi = fmax(hi, t.first + (t.n - 1) * t.step);
    double x0 = SVG_MARGIN + svg_widest_tick(t) + 8, x1 = doc->width - SVG_MARGIN;
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
            const char *color = d->nser > 1 || b->stacked ? svg_color_of(d->ser[s], s) : svg_color_of(d->cat[i], 0);
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

void svg_draw_bar_data(svg_doc *doc, svg_data *d, const svg_bar_spec *b)
{
    if (b->percent)
        percent_of_category(d);
    if (b->vertical)
        svg_draw_vbars(doc, d, b);
    else
        svg_draw_hbars(doc, d, b);
}
