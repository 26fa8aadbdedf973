/*
 * writer `svg`: charts of results (and of the trace) as SVG 1.1 files.
 *
 *   chart: pie          a tree node's children (depth: N pies down N levels),
 *                       or a table's [LABEL, VALUE]; top slices + Others
 *   chart: bar          a bar per row (or per child of a tree node); several
 *                       value columns are grouped
 *   chart: stacked_bar  a bar per row with its value columns stacked, or per
 *                       tree node at `level` with its children stacked
 *   chart: line         [X, Y...] series, or one Y split by `series`
 *   chart: histogram    a binned result (lo, hi, count) or a column of values
 *                       counted into `bins` (or round automatic buckets)
 *   chart: error_bar    [LABEL, MEAN, STD]: mean bars with ± std whiskers
 *   chart: timeline     the trace itself: lanes per thread and GPU stream
 *
 * The document is drawn in memory, so identical inputs give identical bytes
 * and a failure leaves no file.  Text is measured by a per-character
 * estimate (svg_doc.c) and a label that would overlap another is not drawn.
 * Chart pieces carry <title> tooltips with the full names and values.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_output.h>

#include "svg_chart.h"

static const char *const chart_names[] = {"pie",       "bar",       "stacked_bar", "line",
                                          "histogram", "error_bar", "timeline",    NULL};
static const char *const orientations[] = {"horizontal", "vertical", NULL};

static const tp_option svg_options[] = {
    {"chart", TP_OPT_ENUM, TP_OPT_REQUIRED, offsetof(svg_config, chart), NULL, 0, 0, chart_names,
     "pie, bar, stacked_bar, line, histogram, error_bar or timeline", {NULL, NULL}},
    TP_OPTION_OUTPUT_FILE("path", svg_config, path, NULL,
                     "output file ({id} = result id); stdout when absent"),
    TP_OPTION_LIST("columns", svg_config, columns,
                   "columns to draw: [LABEL, VALUE...] (pie, bar, stacked_bar), [X, Y...] (line), "
                   "[VALUE] or [LO, HI, COUNT] (histogram), [LABEL, MEAN, STD] (error_bar)"),
    TP_OPTION_STRING("title", svg_config, title, NULL,
                     "chart title; default: the result's title, else its id"),
    TP_OPTION_STRING("x_label", svg_config, x_label, NULL,
                     "horizontal axis title; default: the column's name and unit"),
    TP_OPTION_STRING("y_label", svg_config, y_label, NULL,
                     "vertical axis title; default: the column's name and unit"),
    TP_OPTION_INT("width", svg_config, width, "900", 320, 20000, "width in pixels"),
    TP_OPTION_INT("height", svg_config, height, "0", 0, 20000,
                  "plot height in pixels for vertical bars, histograms and lines; 0: 300-320"),
    TP_OPTION_INT("top", svg_config, top, "8", 0, 100000,
                  "the N largest slices, bars (bar, error_bar) or stacked parts; the rest "
                  "folded into Others (0: all)"),
    TP_OPTION_INT("depth", svg_config, depth, "1", 1, 10,
                  "pie of a tree: pies down this many levels (1: the node's children only)"),
    TP_OPTION_STRING("node", svg_config, node, NULL,
                     "pie or bar of a tree: the node whose children are drawn, by name or by "
                     "path 'a / b'; default: the first root"),
    TP_OPTION_INT("level", svg_config, level, "0", 0, 1000,
                  "stacked_bar of a tree: a bar for each node at this depth, its children stacked"),
    TP_OPTION_ENUM("orientation", svg_config, orientation, "horizontal", orientations,
                   "bars along the x axis (horizontal) or standing (vertical)"),
    TP_OPTION_BOOL("percent", svg_config, percent, "false",
                   "stacked_bar: each bar as shares of its total (100 %)"),
    TP_OPTION_FLOAT_LIST("bins", svg_config, bins, -1e300, 1e300,
                         "histogram of values: bucket edges, increasing; [lo, hi) each"),
    TP_OPTION_INT("bin_count", svg_config, bin_count, "20", 1, 1000,
                  "histogram of values without bins: about this many round buckets"),
    TP_OPTION_STRING("series", svg_config, series, NULL,
                     "line: one line per distinct value of this column (rank, say)"),
    TP_OPTION_STRING("start_us", svg_config, start_us, NULL,
                     "timeline: window start, µs after the trace's (or iteration's) start"),
    TP_OPTION_STRING("end_us", svg_config, end_us, NULL,
                     "timeline: window end, µs after the trace's (or iteration's) start"),
    TP_OPTION_INT("iteration", svg_config, iteration, "-1", -1, 1e9,
                  "timeline: draw this iteration (its step number, ProfilerStep#10: 10; a 0-based ordinal for markers without numbers); -1: the whole trace"),
    TP_OPTION_STRING("marker", svg_config, marker, NULL,
                     "timeline: override of the pipeline's iterations: marker for this stage: a "
                     "name prefix of the iteration markers"),
    TP_OPTION_INT("max_depth", svg_config, max_depth, "4", 1, 64,
                  "timeline: nesting rows drawn per host thread"),
    TP_OPTION_INT("max_lanes", svg_config, max_lanes, "64", 1, 100000,
                  "timeline: the busiest lanes drawn; the rest are counted"),
    TP_OPTION_END};

static int check_us(tp_stage *st, const char *name, const char *text)
{
    char *end;
    if (text == NULL)
        return TP_OK;
    double v = strtod(text, &end);
    if (end == text || *end != '\0' || !isfinite(v))
        return tp_fail(st, TP_EINVAL, "%s: '%s' is not a number of µs", name, text);
    return TP_OK;
}

/* Option values that cannot work, before any trace is read. */
static int svg_init(tp_stage *st, const void *config, void **state)
{
    const svg_config *cfg = config;
    *state = NULL;
    for (size_t i = 1; i < cfg->bins.n; i++)
        if (!(cfg->bins.items[i] > cfg->bins.items[i - 1]))
            return tp_fail(st, TP_EINVAL, "bins: edges must increase (%g after %g)",
                           cfg->bins.items[i], cfg->bins.items[i - 1]);
    if (cfg->bins.n == 1)
        return tp_fail(st, TP_EINVAL, "bins: give at least two edges");
    int rc = check_us(st, "start_us", cfg->start_us);
    if (rc == TP_OK)
        rc = check_us(st, "end_us", cfg->end_us);
    if (rc == TP_OK && cfg->start_us && cfg->end_us &&
        strtod(cfg->start_us, NULL) >= strtod(cfg->end_us, NULL))
        rc = tp_fail(st, TP_EINVAL, "start_us %s is not before end_us %s", cfg->start_us,
                     cfg->end_us);
    if (rc == TP_OK && cfg->chart == CHART_ERROR_BAR && cfg->columns.n != 0 && cfg->columns.n != 3)
        rc = tp_fail(st, TP_EINVAL, "columns: error_bar takes [LABEL, MEAN, STD]");
    return rc;
}

static int draw(tp_stage *st, svg_doc *doc, const svg_config *cfg, const tp_result *r)
{
    if (r && tp_result_rows(r) == 0) { /* "no data", never empty axes */
        char why[256];
        snprintf(why, sizeof why, "result '%s' has no rows", tp_result_id(r));
        svg_no_data(doc, why);
        return TP_OK;
    }
    switch (cfg->chart) {
    case CHART_PIE: return svg_draw_pie(st, doc, cfg, r);
    case CHART_BAR:
    case CHART_STACKED_BAR: return svg_draw_bars(st, doc, cfg, r);
    case CHART_LINE: return svg_draw_line(st, doc, cfg, r);
    case CHART_HISTOGRAM: return svg_draw_histogram(st, doc, cfg, r);
    case CHART_ERROR_BAR: return svg_draw_error_bar(st, doc, cfg, r);
    default: return svg_draw_timeline(st, doc, cfg);
    }
}

/* The chart's title: the option, else the result's title note and id. */
static void chart_title(char *buf, size_t size, const svg_config *cfg, const tp_result *r)
{
    const char *note = r ? tp_result_meta(r, "title") : NULL;
    if (cfg->title)
        snprintf(buf, size, "%s", cfg->title);
    else if (r && note)
        snprintf(buf, size, "%s (%s)", note, tp_result_id(r));
    else if (r)
        snprintf(buf, size, "%s", tp_result_id(r));
    else if (cfg->iteration >= 0)
        snprintf(buf, size, "Timeline of iteration %lld", (long long)cfg->iteration);
    else
        snprintf(buf, size, "Timeline");
}

static int write_chart(tp_stage *st, const svg_config *cfg, const tp_result *r, const char *path)
{
    svg_doc doc;
    char title[512];
    svg_doc_init(&doc, (double)cfg->width);
    chart_title(title, sizeof title, cfg, r);
    char *shown = svg_shorten(title, doc.width - 2 * SVG_MARGIN, SVG_FONT_TITLE);
    if (shown == NULL)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    svg_text(&doc, SVG_MARGIN, 26, SVG_FONT_TITLE, SVG_START, "font-weight=\"bold\"", shown, title);
    free(shown);
    doc.height = 40;
    int rc = draw(st, &doc, cfg, r);
    size_t len = 0;
    char *text = rc == TP_OK ? svg_doc_finish(&doc, title, &len) : NULL;
    svg_doc_free(&doc);
    if (rc != TP_OK)
        return rc;
    if (text == NULL)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    FILE *f = tp_out_open(st, path);
    if (f == NULL) {
        free(text);
        return TP_EIO;
    }
    fwrite(text, 1, len, f);
    free(text);
    return tp_out_close(st, f, path, TP_OK);
}


static int svg_run(tp_stage *st, const void *config, void *state)
{
    const svg_config *cfg = config;
    size_t n = tp_input_count(st);
    (void)state;

    if (cfg->chart == CHART_TIMELINE)
        return write_chart(st, cfg, NULL, cfg->path);
    if (n == 0)
        return tp_fail(st, TP_EINVAL, "no input results to draw");
    /* `input: host` holds host and host.summary: without {id} the chart is
     * of the first (a stage's main result comes first) */
    if (n > 1 && (!cfg->path || !strstr(cfg->path, "{id}"))) {
        tp_log(st, TP_LOG_DEBUG, "drawing '%s' only (of %zu input results; {id} in path draws each)",
               tp_result_id(tp_input(st, 0)), n);
        n = 1;
    }
    for (size_t i = 0; i < n; i++) {
        const tp_result *r = tp_input(st, i);
        char *path = cfg->path ? tp_out_path_for(cfg->path, tp_result_id(r)) : NULL;
        if (cfg->path && path == NULL)
            return tp_fail(st, TP_ENOMEM, "out of memory");
        int rc = write_chart(st, cfg, r, path);
        free(path);
        if (rc != TP_OK)
            return rc;
    }
    return TP_OK;
}

static const tp_stage_desc svg_stages[] = {
    TP_STAGE_FULL(TP_STAGE_WRITER, "svg",
                  "charts as SVG: pie, bar, stacked_bar, line, histogram, error_bar, timeline",
                  svg_options, svg_config, NULL, TP_PRODUCES_NONE, 0,
                  svg_init, svg_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("svg", "0.1.0", svg_stages);
