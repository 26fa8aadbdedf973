/*
 * The svg writer: pieces its charts share (svg_chart.h): colours, value
 * texts, legends, axis ticks, and the columns a chart draws by default.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg_chart.h"

#define SWATCH 11.0
#define LEGEND_ROW 18.0

const char *svg_color_of(const char *name, size_t i)
{
    if (strcmp(name, "Others") == 0)
        return SVG_OTHERS_COLOR;
    if (strcmp(name, "Unaccounted") == 0 || strncmp(name, "idle", 4) == 0 ||
        strncmp(name, "window_idle", 11) == 0)
        return "#DDDDDD";
    return svg_color(i);
}

void svg_value_text(char *buf, size_t size, double v, const char *unit)
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

int svg_max_ticks_for(double length, double label_w)
{
    int n = (int)(length / (label_w + 24));
    return n < 2 ? 2 : n > 10 ? 10 : n;
}

double svg_widest_tick(svg_ticks t)
{
    double w = 0;
    char buf[48];
    for (int k = 0; k < t.n; k++) {
        svg_fmt_num(buf, sizeof buf, t.first + k * t.step, t.step);
        w = fmax(w, svg_text_width(buf, SVG_FONT_SMALL));
    }
    return w;
}

static int is_value_col(const tp_result *r, int c)
{
    return tp_result_col_type(r, c) != TP_COL_STR && strcmp(tp_result_col_name(r, c), "rank") != 0;
}

int svg_is_time_unit(const char *unit)
{
    return unit && (strcmp(unit, "us") == 0 || strcmp(unit, "ns") == 0 || strcmp(unit, "ms") == 0 ||
                    strcmp(unit, "s") == 0);
}

int svg_is_count_unit(const char *unit)
{
    return unit && strcmp(unit, "count") == 0;
}

/* The first numeric column other than skip whose declared unit is a time,
 * else the first numeric column other than skip (-1 if none). */
static int first_value_col(const tp_result *r, int skip)
{
    int any = -1;
    for (size_t c = 0; c < tp_result_cols(r); c++) {
        if ((int)c == skip || !is_value_col(r, (int)c))
            continue;
        if (svg_is_time_unit(tp_result_col_unit(r, (int)c)))
            return (int)c;
        if (any < 0)
            any = (int)c;
    }
    return any;
}

/* The first text column labels; the value is the first time column (the
 * question a chart of a breakdown answers is where the time goes, not how
 * often), else the first numeric one. */
int svg_default_columns(const tp_result *r, int *label, int *value)
{
    *label = -1;
    for (size_t c = 0; c < tp_result_cols(r) && *label < 0; c++)
        if (tp_result_col_type(r, (int)c) == TP_COL_STR)
            *label = (int)c;
    if (*label < 0 && tp_result_cols(r) > 0) /* no text: the first column labels */
        *label = 0;
    *value = *label < 0 ? -1 : first_value_col(r, *label);
    return *label >= 0 && *value >= 0;
}

int svg_columns_of(tp_stage *st, const svg_config *cfg, const tp_result *r, int *label,
                   int *value)
{
    if (cfg->columns.n >= 2) {
        *label = svg_col(st, r, cfg->columns.items[0], 0);
        *value = *label < 0 ? -1 : svg_col(st, r, cfg->columns.items[1], 1);
        return *value < 0 ? TP_EINVAL : TP_OK;
    }
    if (!svg_default_columns(r, label, value))
        return tp_fail(st, TP_EINVAL, "result '%s': say which columns to draw (columns: [LABEL, VALUE])",
                       tp_result_id(r));
    return TP_OK;
}

char *svg_cell_text(const tp_result *r, size_t row, int col)
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

int svg_find_prefixed(const tp_result *r, const char *a, const char *b)
{
    for (size_t c = 0; c < tp_result_cols(r); c++) {
        const char *n = tp_result_col_name(r, (int)c);
        if (tp_result_col_type(r, (int)c) != TP_COL_STR &&
            (strncmp(n, a, strlen(a)) == 0 || (b && strncmp(n, b, strlen(b)) == 0)))
            return (int)c;
    }
    return -1;
}

svg_ticks svg_axis_ticks(double lo, double hi, int max_ticks, int integral)
{
    svg_ticks t = svg_nice_ticks(lo, hi, max_ticks);
    if (!integral || t.step >= 1)
        return t;
    /* an integral axis (iterations, counts) has no tick between two integers */
    t.step = 1;
    t.first = floor(lo);
    t.n = (int)(ceil(hi) - t.first) + 1;
    return t;
}

int svg_col_is_integral(const tp_result *r, int col)
{
    if (col < 0)
        return 0;
    tp_coltype t = tp_result_col_type(r, col);
    return t == TP_COL_I64 || t == TP_COL_I32 || strcmp(tp_result_col_name(r, col), "iteration") == 0;
}

void svg_no_data(svg_doc *doc, const char *why)
{
    double y = doc->height + 8;
    svg_printf(doc, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"48\" fill=\"#F4F4F4\" "
                    "stroke=\"#CCCCCC\"/>\n",
               (double)SVG_MARGIN, y, doc->width - 2 * SVG_MARGIN);
    char *shown = svg_shorten(why, doc->width - 2 * SVG_MARGIN - 24, SVG_FONT);
    svg_text(doc, doc->width / 2, y + 20, SVG_FONT_TITLE, SVG_MIDDLE, "fill=\"#666666\"", "no data",
             NULL);
    if (shown)
        svg_text(doc, doc->width / 2, y + 38, SVG_FONT, SVG_MIDDLE, "fill=\"#666666\"", shown, why);
    free(shown);
    doc->height = y + 48 + 16;
}

void svg_note(svg_doc *doc, const char *text)
{
    char *shown = svg_shorten(text, doc->width - 2 * SVG_MARGIN, SVG_FONT);
    if (shown)
        svg_text(doc, SVG_MARGIN, doc->height + 14, SVG_FONT, SVG_START, "fill=\"#555555\"", shown,
                 text);
    free(shown);
    doc->height += 22;
}
