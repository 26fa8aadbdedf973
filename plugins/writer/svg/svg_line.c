/*
 * The svg writer's chart `line`: series of (x, y) points, one per y column
 * or per distinct value of `series`.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg_chart.h"

#define LINE_PLOT_HEIGHT 320.0

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
            char *key = svg_cell_text(r, i, split);
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
    size_t npoints = 0;
    for (size_t s = 0; s < nser; s++)
        npoints += ls[s].n;
    if (rc == TP_OK && npoints == 0) {
        char why[256];
        snprintf(why, sizeof why, "result '%s' has no row with both %s and %s", tp_result_id(r),
                 tp_result_col_name(r, xcol), tp_result_col_name(r, ycols[0]));
        svg_no_data(doc, why);
    } else if (rc == TP_OK) {
        int xint = svg_col_is_integral(r, xcol), yint = 1;
        for (size_t s = 0; s < ny; s++)
            yint &= svg_col_is_integral(r, ycols[split >= 0 ? 0 : s]);
        if (!(xhi >= xlo))
            xlo = 0, xhi = 1;
        if (xhi == xlo)
            xlo -= 1, xhi += 1;
        if (!(yhi > ylo))
            yhi = ylo + 1;
        double ph = cfg->height > 0 ? (double)cfg->height : LINE_PLOT_HEIGHT;
        svg_ticks ty = svg_axis_ticks(ylo, yhi, svg_max_ticks_for(ph, 8), yint);
        double x0 = SVG_MARGIN + svg_widest_tick(ty) + 8, x1 = doc->width - SVG_MARGIN - 16;
        svg_ticks tx = svg_axis_ticks(xlo, xhi, svg_max_ticks_for(x1 - x0, svg_widest_tick(svg_nice_ticks(xlo, xhi, 6))), xint);
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
                    svg_value_text(xv, sizeof xv, ls[s].x[2 * i], NULL);
                    svg_value_text(yv, sizeof yv, ls[s].x[2 * i + 1], NULL);
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
