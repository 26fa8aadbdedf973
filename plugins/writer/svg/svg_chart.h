/*
 * writer `svg`: what its chart files (svg_pie.c, svg_bars.c, svg_error_bar.c,
 * svg_histogram.c, svg_line.c) share.  Private to plugins/writer/svg.
 */
#ifndef TP_SVG_CHART_H
#define TP_SVG_CHART_H

#include <tracepipe/tp_sdk_tree.h>

#include "svg.h"

/* ---- colours, texts, ticks, columns (svg_chart_parts.c) */
/* "Others" and idle or unaccounted time grey, else palette colour i. */
const char *svg_color_of(const char *name, size_t i);
/* v with its unit ("12.3 us"). */
void svg_value_text(char *buf, size_t size, double v, const char *unit);
/* How many ticks fit along length with labels label_w wide (2 to 10). */
int svg_max_ticks_for(double length, double label_w);
/* The width of t's widest label. */
double svg_widest_tick(svg_ticks t);
/* Whether a declared unit is a time (us, ns, ms, s). */
int svg_is_time_unit(const char *unit);
/* Whether a declared unit is a count (its axis is integral). */
int svg_is_count_unit(const char *unit);
/* The first text column, and the first numeric column other than it whose
 * unit is a time, else the first numeric one; 0 if none. */
int svg_default_columns(const tp_result *r, int *label, int *value);
/* columns: [LABEL, VALUE], else the default ones, else a failure. */
int svg_columns_of(tp_stage *st, const svg_config *cfg, const tp_result *r, int *label,
                   int *value);
/* A cell as new text (free); NULL when out of memory. */
char *svg_cell_text(const tp_result *r, size_t row, int col);
/* The first numeric column named a... (or b...), or -1. */
int svg_find_prefixed(const tp_result *r, const char *a, const char *b);

/* Nice ticks over [lo, hi]; integral: never a tick between two integers. */
svg_ticks svg_axis_ticks(double lo, double hi, int max_ticks, int integral);
/* An integer column, or an `iteration` one: its axis is integral. */
int svg_col_is_integral(const tp_result *r, int col);
/* A framed "no data" and why, instead of an empty chart. */
void svg_no_data(svg_doc *doc, const char *why);
/* One line of explanation at the current height. */
void svg_note(svg_doc *doc, const char *text);

/* ---- a tree result as chart data (svg_tree.c) */
typedef struct svg_tree {
    const tp_result *r;
    tp_result_tree t;
    int name_col, value_col;
} svg_tree;

/* A tree result with its name and value columns; free p->t with
 * tp_result_tree_free. */
int svg_tree_open(tp_stage *st, const svg_config *cfg, const tp_result *r, svg_tree *p);
size_t svg_tree_count_children(const svg_tree *p, size_t node);
/* The children of node as the categories of one series. */
int svg_tree_children_data(const svg_tree *p, size_t node, svg_data *d);
int64_t svg_tree_find_node(const svg_tree *p, const char *node);

/* ---- bars (svg_bar_layout.c) */
typedef struct svg_bar_spec {
    int stacked, percent, vertical;
    const double *err;         /* per category, single series: whiskers, or NULL */
    const char *value_label;   /* values' axis title */
    const char *cat_label;     /* categories' axis title, or NULL */
    double plot_height;        /* vertical bars */
    int integral;              /* values are counts: integral ticks */
} svg_bar_spec;

void svg_draw_hbars(svg_doc *doc, const svg_data *d, const svg_bar_spec *b);
void svg_draw_vbars(svg_doc *doc, const svg_data *d, const svg_bar_spec *b);
/* As b says: percent of each category, vertical or horizontal. */
void svg_draw_bar_data(svg_doc *doc, svg_data *d, const svg_bar_spec *b);

#endif
