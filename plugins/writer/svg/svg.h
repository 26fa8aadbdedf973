/*
 * writer `svg`: the chart kinds and the data they draw.  Private to
 * plugins/writer/svg.
 */
#ifndef TP_SVG_H
#define TP_SVG_H

#include <stddef.h>
#include <stdint.h>

#include <tracepipe/tp_plugin.h>

#include "svg_doc.h"

enum svg_chart {
    CHART_PIE,
    CHART_BAR,
    CHART_STACKED_BAR,
    CHART_LINE,
    CHART_HISTOGRAM,
    CHART_ERROR_BAR,
    CHART_TIMELINE
};

typedef struct svg_config {
    const char *path;
    int chart;
    tp_strlist columns;
    const char *title;
    const char *x_label, *y_label;
    int64_t width, height;
    int64_t top;
    int64_t depth;
    const char *node;
    int64_t level;
    int orientation; /* 0 horizontal, 1 vertical */
    int percent;
    tp_floatlist bins;
    int64_t bin_count;
    const char *series;
    const char *start_us, *end_us;
    int64_t iteration;
    const char *marker;
    int64_t max_depth;
    int64_t max_lanes;
} svg_config;

/* Categories by series of values: bars, stacks, slices. */
typedef struct svg_data {
    size_t ncat, nser;
    char **cat;     /* category names (owned) */
    char **ser;     /* series names (owned) */
    double *v;      /* ncat * nser, row-major by category; NaN = no value */
    const char *unit; /* of the values, or NULL; borrowed from the result */
} svg_data;

int svg_data_alloc(svg_data *d, size_t ncat, size_t nser);
void svg_data_free(svg_data *d);
/* Whether any value is finite and nonzero (something to draw). */
int svg_data_has_values(const svg_data *d);
/* Keeps the top categories by their sum over series (key < 0) or by the
 * value of series `key`, in descending order, and folds the others into
 * one category "Others" at the end (not when top is 0 or there are no more
 * than top). */
int svg_data_fold_top(svg_data *d, size_t top, int key);
/* The same for series: the top series by their sum over categories, the
 * rest folded into "Others" (kept last). */
int svg_data_fold_top_series(svg_data *d, size_t top);

/* Each chart draws into doc at the current doc->height and grows it. */
int svg_draw_pie(tp_stage *st, svg_doc *doc, const svg_config *cfg, const tp_result *r);
int svg_draw_bars(tp_stage *st, svg_doc *doc, const svg_config *cfg, const tp_result *r);
int svg_draw_line(tp_stage *st, svg_doc *doc, const svg_config *cfg, const tp_result *r);
int svg_draw_histogram(tp_stage *st, svg_doc *doc, const svg_config *cfg, const tp_result *r);
int svg_draw_error_bar(tp_stage *st, svg_doc *doc, const svg_config *cfg, const tp_result *r);
int svg_draw_timeline(tp_stage *st, svg_doc *doc, const svg_config *cfg);

/* Shared pieces (svg_chart_parts.c, svg_data.c). */
/* A legend of swatches in rows that wrap at width w starting at (x, y);
 * returns its height.  full[i] (or NULL) is the tooltip of a shortened name. */
double svg_legend(svg_doc *doc, double x, double y, double w, size_t n, char *const *names,
                  const char *const *colors, const char *const *notes);
/* Column named name in r, as a failure naming the result when absent. */
int svg_col(tp_stage *st, const tp_result *r, const char *name, int numeric);
/* "name (unit)" for an axis, or the label given. */
void svg_axis_label(char *buf, size_t size, const char *given, const char *name,
                    const char *unit);
double svg_cell(const tp_result *r, size_t row, int col);

#endif
