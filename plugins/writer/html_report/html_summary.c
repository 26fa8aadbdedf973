/*
 * html_report's summary: the answer first (issue 29 item 3).  Every figure
 * is read from the columns an input result declares, never from stage ids
 * (CONVENTIONS, "the report's summary reads declared columns"); a figure no
 * input declares says "not measured" and which columns would give it.
 *
 *   step time      a `step_us` column (ranks: per rank), else the median of
 *                  an iteration series' `dur_us` (`iteration`, `dur_us`,
 *                  `gpu_busy_us`: the iterations analysis)
 *   GPU busy       per device `busy_us` / `window_us` (device_breakdown's
 *                  devices), else `busy_us` / `span_us` of a per-device
 *                  result without `stream` (streams' devices), else the
 *                  iterations' `gpu_busy_us` / `dur_us` summed
 *   exposed comm.  `exposed_comm_us`, else per device `comm_us` not
 *                  overlapped (`comm_comp_overlap_percent`) over `span_us`
 *   top kernel     the largest `sum_us` of a result with `name`, `sum_us`,
 *                  `time_percent` and no `op` (kernel_stats), a row with a
 *                  `mean_us` (Others has none)
 *   findings       the warn and error rows of a findings result, linked to
 *                  their rows in the results
 *   bound by       a critical path's categories (`category`, `on_path_us`,
 *                  `percent`, `iteration`): the rows over all iterations
 *                  with time on the path
 *   straggler      the row of a per-rank result whose `straggler` says yes
 *   compared       a diff's summary (`measure`, `base`, `test`, `change`)
 *   prediction     coverage and GMAE (`coverage_percent`, `gmae_percent`)
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_sdk_stats.h>

#include "html_report.h"

#define MAX_DEVICES_SHOWN 8

static const tp_result *input_with(tp_stage *st, const char *const *names,
                                   const char *const *without)
{
    long i = hr_find_input(st, 0, names, without);
    return i < 0 ? NULL : tp_input(st, (size_t)i);
}

static void fact_open(FILE *f, const char *cls, const char *label)
{
    fprintf(f, "<tr class=\"%s\"><th>%s</th><td>", cls, label);
}

static void not_measured(FILE *f, const char *cls, const char *label, const char *needs)
{
    fact_open(f, cls, label);
    fprintf(f, "<span class=\"nm\">not measured</span> (no input result declares %s)</td></tr>\n",
            needs);
}

static void result_ref(FILE *f, const tp_result *r)
{
    fputs(" <a class=\"src\" href=\"#r-", f);
    hr_text(f, tp_result_id(r));
    fputs("\">", f);
    hr_text(f, tp_result_id(r));
    fputs("</a>", f);
}

/* The non-null values of an f64 column; n set, NULL when none or no memory. */
static double *column_values(const tp_result *r, int col, size_t *n)
{
    size_t rows = tp_result_rows(r);
    double *v = rows ? malloc(rows * sizeof *v) : NULL;
    *n = 0;
    for (size_t row = 0; v && row < rows; row++)
        if (!tp_result_is_null(r, row, col))
            v[(*n)++] = tp_result_get_f64(r, row, col);
    if (*n == 0) {
        free(v);
        return NULL;
    }
    return v;
}

/* The row holding the largest value of col (the first of equal ones), or -1. */
static long max_row(const tp_result *r, int col, int need_col)
{
    long best = -1;
    for (size_t row = 0; row < tp_result_rows(r); row++) {
        if (tp_result_is_null(r, row, col) || (need_col >= 0 && tp_result_is_null(r, row, need_col)))
            continue;
        if (best < 0 || hr_f64(r, row, col) > hr_f64(r, (size_t)best, col))
            best = (long)row;
    }
    return best;
}

/* ------------------------------------------------------------- step time */

/* The median of an f64 column's non-null values: 1 and *med, *n set, or 0. */
static int column_median(const tp_result *r, int col, size_t *n, double *med)
{
    double *v = r && col >= 0 ? column_values(r, col, n) : NULL;
    int ok = v != NULL && tp_median_of(v, *n, med) == TP_OK;
    free(v);
    return ok;
}

static int step_from_column(FILE *f, const tp_result *r)
{
    int col = hr_col(r, "step_us", TP_COL_F64), rank = hr_col(r, "rank", TP_COL_I64);
    size_t n;
    double med;
    if (!column_median(r, col, &n, &med))
        return 0;
    fact_open(f, "step", "step time");
    hr_duration(f, med);
    if (n > 1) {
        long slow = max_row(r, col, -1);
        fprintf(f, " (median of %zu rows; slowest", n);
        if (rank >= 0 && !tp_result_is_null(r, (size_t)slow, rank))
            fprintf(f, " rank %lld", (long long)tp_result_get_i64(r, (size_t)slow, rank));
        fputs(": ", f);
        hr_duration(f, hr_f64(r, (size_t)slow, col));
        fputs(")", f);
    }
    result_ref(f, r);
    fputs("</td></tr>\n", f);
    return 1;
}

static const char *const iteration_cols[] = {"iteration", "dur_us", "gpu_busy_us", NULL};

static int step_from_iterations(tp_stage *st, FILE *f)
{
    const tp_result *r = input_with(st, iteration_cols, NULL);
    size_t n;
    double med;
    if (!column_median(r, r ? hr_col(r, "dur_us", TP_COL_F64) : -1, &n, &med))
        return 0;
    fact_open(f, "step", "step time");
    hr_duration(f, med);
    fprintf(f, " (median of %zu iteration%s)", n, n == 1 ? "" : "s");
    result_ref(f, r);
    fputs("</td></tr>\n", f);
    return 1;
}

static void step_fact(tp_stage *st, FILE *f)
{
    static const char *const names[] = {"step_us", NULL};
    const tp_result *r = input_with(st, names, NULL);
    if ((r && step_from_column(f, r)) || step_from_iterations(st, f))
        return;
    not_measured(f, "step", "step time", "<code>step_us</code> or an iteration series");
}

/* -------------------------------------------------------------- GPU busy */

/* "rank R: " (a batch table's per-rank rows), else "device D: " when the
 * result has several rows. */
static void row_label(FILE *f, const tp_result *r, size_t row, int rank, int dev)
{
    if (rank >= 0 && !tp_result_is_null(r, row, rank))
        fprintf(f, "rank %lld", (long long)tp_result_get_i64(r, row, rank));
    if (dev >= 0 && !tp_result_is_null(r, row, dev) && (rank < 0 || tp_result_rows(r) > 1))
        fprintf(f, "%sdevice %lld", rank >= 0 && !tp_result_is_null(r, row, rank) ? " " : "",
                (long long)tp_result_get_i64(r, row, dev));
    fputs(": ", f);
}

/* Per device (per rank in a batch table) busy / denominator, at most
 * MAX_DEVICES_SHOWN of them, then over all rows. */
static void busy_per_device(FILE *f, const tp_result *r, const char *denom)
{
    int dev = hr_col(r, "device", TP_COL_I64), busy = hr_num_col(r, "busy_us");
    int den = hr_num_col(r, denom), rank = hr_col(r, "rank", TP_COL_I64);
    size_t rows = tp_result_rows(r), shown = 0, used = 0;
    double sb = 0, sd = 0;
    fact_open(f, "busy", "GPU busy");
    for (size_t row = 0; row < rows; row++) {
        if (tp_result_is_null(r, row, busy) || tp_result_is_null(r, row, den))
            continue;
        double b = hr_f64(r, row, busy), d = hr_f64(r, row, den);
        sb += b, sd += d, used++;
        if (shown == MAX_DEVICES_SHOWN)
            continue;
        fputs(shown++ ? "; " : "", f);
        if (rows > 1 || rank >= 0)
            row_label(f, r, row, rank, dev);
        if (d > 0)
            fprintf(f, "<b>%.1f %%</b> of ", 100.0 * b / d);
        hr_duration(f, d);
        fprintf(f, " (%s)", denom);
    }
    if (shown == 0)
        fputs("no GPU activity", f);
    else if (used > shown)
        fprintf(f, "; %zu more devices", used - shown);
    if (used > 1 && sd > 0)
        fprintf(f, "; <b>overall %.1f %%</b> (%zu rows)", 100.0 * sb / sd, used);
    result_ref(f, r);
    fputs("</td></tr>\n", f);
}

static int busy_from_iterations(tp_stage *st, FILE *f)
{
    const tp_result *r = input_with(st, iteration_cols, NULL);
    if (r == NULL)
        return 0;
    int dur = hr_col(r, "dur_us", TP_COL_F64), busy = hr_col(r, "gpu_busy_us", TP_COL_F64);
    double sd = 0, sb = 0;
    for (size_t row = 0; row < tp_result_rows(r); row++)
        if (!tp_result_is_null(r, row, dur) && !tp_result_is_null(r, row, busy)) {
            sd += tp_result_get_f64(r, row, dur);
            sb += tp_result_get_f64(r, row, busy);
        }
    if (!(sd > 0))
        return 0;
    fact_open(f, "busy", "GPU busy");
    fprintf(f, "<b>%.1f %%</b> of the iterations' ", 100.0 * sb / sd);
    hr_duration(f, sd);
    result_ref(f, r);
    fputs("</td></tr>\n", f);
    return 1;
}

static void busy_fact(tp_stage *st, FILE *f)
{
    static const char *const window[] = {"device", "busy_us", "window_us", NULL};
    static const char *const span[] = {"device", "busy_us", "span_us", NULL};
    static const char *const no_stream[] = {"stream", NULL};
    const tp_result *r = input_with(st, window, no_stream);
    if (r) {
        busy_per_device(f, r, "window_us");
        return;
    }
    if ((r = input_with(st, span, no_stream)) != NULL) {
        busy_per_device(f, r, "span_us");
        return;
    }
    if (!busy_from_iterations(st, f))
        not_measured(f, "busy", "GPU busy", "<code>busy_us</code> per device");
}

/* ------------------------------------------------- exposed communication */

static void exposed_from_column(FILE *f, const tp_result *r)
{
    int col = hr_col(r, "exposed_comm_us", TP_COL_F64), dev = hr_col(r, "device", TP_COL_I64);
    size_t shown = 0;
    fact_open(f, "comm", "exposed communication");
    for (size_t row = 0; row < tp_result_rows(r) && shown < MAX_DEVICES_SHOWN; row++) {
        if (tp_result_is_null(r, row, col))
            continue;
        fputs(shown++ ? "; " : "", f);
        if (dev >= 0 && !tp_result_is_null(r, row, dev))
            fprintf(f, "device %lld: ", (long long)tp_result_get_i64(r, row, dev));
        hr_duration(f, tp_result_get_f64(r, row, col));
    }
    if (shown == 0)
        fputs("none", f);
    result_ref(f, r);
    fputs("</td></tr>\n", f);
}

/* comm_us x (1 - overlap) per device (per rank in a batch table), as a
 * share of its span, then over all rows. */
static void exposed_from_overlap(FILE *f, const tp_result *r)
{
    int dev = hr_col(r, "device", TP_COL_I64), comm = hr_num_col(r, "comm_us");
    int ov = hr_num_col(r, "comm_comp_overlap_percent"), span = hr_num_col(r, "span_us");
    int rank = hr_col(r, "rank", TP_COL_I64);
    size_t shown = 0, used = 0;
    double sum_us = 0, sum_span = 0;
    fact_open(f, "comm", "exposed communication");
    for (size_t row = 0; row < tp_result_rows(r); row++) {
        if (tp_result_is_null(r, row, comm) || tp_result_is_null(r, row, ov))
            continue; /* no communication on the device */
        double us = hr_f64(r, row, comm) * (100.0 - hr_f64(r, row, ov)) / 100.0;
        double sp = span < 0 || tp_result_is_null(r, row, span) ? 0 : hr_f64(r, row, span);
        sum_us += us, sum_span += sp, used++;
        if (shown == MAX_DEVICES_SHOWN)
            continue;
        fputs(shown++ ? "; " : "", f);
        row_label(f, r, row, rank, dev);
        hr_duration(f, us);
        if (sp > 0)
            fprintf(f, " (<b>%.1f %%</b> of its span)", 100.0 * us / sp);
    }
    if (shown == 0)
        fputs("no communication", f);
    else if (used > shown)
        fprintf(f, "; %zu more devices", used - shown);
    if (used > 1 && sum_span > 0) {
        fputs("; <b>overall ", f);
        hr_duration(f, sum_us);
        fprintf(f, " = %.1f %%</b> of the spans", 100.0 * sum_us / sum_span);
    }
    result_ref(f, r);
    fputs("</td></tr>\n", f);
}

static void comm_fact(tp_stage *st, FILE *f)
{
    static const char *const direct[] = {"exposed_comm_us", NULL};
    static const char *const overlap[] = {"device", "comm_us", "comm_comp_overlap_percent",
                                          "span_us", NULL};
    const tp_result *r = input_with(st, direct, NULL);
    if (r)
        exposed_from_column(f, r);
    else if ((r = input_with(st, overlap, NULL)) != NULL)
        exposed_from_overlap(f, r);
    else
        not_measured(f, "comm", "exposed communication",
                     "<code>exposed_comm_us</code> or <code>comm_us</code> with "
                     "<code>comm_comp_overlap_percent</code>");
}

/* ------------------------------------------------------------ top kernel */

static void kernel_fact(tp_stage *st, FILE *f)
{
    static const char *const names[] = {"name", "sum_us", "time_percent", NULL};
    static const char *const without[] = {"op", "parent_id", NULL};
    const tp_result *r = input_with(st, names, without);
    long row = -1;
    /* hr_num_col: a batch table read back from CSV types whole numbers as int64 */
    if (r)
        row = max_row(r, hr_num_col(r, "sum_us"), hr_num_col(r, "mean_us"));
    if (row < 0) {
        not_measured(f, "kernel", "top kernel", "<code>name</code>, <code>sum_us</code> and "
                                                "<code>time_percent</code>");
        return;
    }
    int name = hr_col(r, "name", TP_COL_STR), pct = hr_num_col(r, "time_percent");
    int rank = hr_col(r, "rank", TP_COL_I64);
    const char *text = tp_result_is_null(r, (size_t)row, name) ? "" : tp_result_get_str(r, (size_t)row, name);
    fact_open(f, "kernel", "top kernel");
    fputs("<span class=\"name\" title=\"", f);
    hr_text(f, text);
    fputs("\">", f);
    hr_text(f, text);
    fputs("</span> ", f);
    hr_duration(f, hr_f64(r, (size_t)row, hr_num_col(r, "sum_us")));
    int has_pct = pct >= 0 && !tp_result_is_null(r, (size_t)row, pct);
    int has_rank = rank >= 0 && !tp_result_is_null(r, (size_t)row, rank);
    if (has_pct || has_rank) {
        fputs(" (", f);
        if (has_pct)
            fprintf(f, "<b>%.1f %%</b> of GPU activity time", hr_f64(r, (size_t)row, pct));
        if (has_rank) /* a batch table of every rank's kernels: the rank it ran on */
            fprintf(f, "%son rank %lld", has_pct ? ", " : "",
                    (long long)tp_result_get_i64(r, (size_t)row, rank));
        fputs(")", f);
    }
    result_ref(f, r);
    fputs("</td></tr>\n", f);
}

/* -------------------------------------------------------------- findings */

static int is_judged(const char *severity)
{
    return severity && (strcmp(severity, "warn") == 0 || strcmp(severity, "error") == 0);
}

/* linked: the row is in the table shown (max_rows), so the rule links to it */
static void finding_item(FILE *f, const tp_result *r, size_t row, int linked)
{
    int rule = hr_col(r, "rule", TP_COL_STR), sev = hr_col(r, "severity", TP_COL_STR);
    int finding = hr_col(r, "finding", TP_COL_STR), where = hr_col(r, "where", TP_COL_STR);
    fputs("<li><span class=\"sev\">", f);
    hr_text(f, tp_result_get_str(r, row, sev));
    fputs("</span> ", f);
    if (linked) {
        fputs("<a href=\"#", f);
        hr_row_anchor(f, r, row);
        fputs("\">", f);
    }
    hr_text(f, tp_result_is_null(r, row, rule) ? "" : tp_result_get_str(r, row, rule));
    fputs(linked ? "</a>: " : ": ", f);
    hr_text(f, tp_result_is_null(r, row, finding) ? "" : tp_result_get_str(r, row, finding));
    /* a batch table of every rank's findings has a rank: say which */
    int rank = hr_col(r, "rank", TP_COL_I64);
    int has_rank = rank >= 0 && !tp_result_is_null(r, row, rank);
    int has_where = !tp_result_is_null(r, row, where) && *tp_result_get_str(r, row, where);
    if (has_rank || has_where) {
        fputs(" <span class=\"where\">(", f);
        if (has_rank)
            fprintf(f, "rank %lld%s", (long long)tp_result_get_i64(r, row, rank), has_where ? ", " : "");
        if (has_where)
            hr_text(f, tp_result_get_str(r, row, where));
        fputs(")</span>", f);
    }
    fputs("</li>\n", f);
}

/* The strongest findings (rows come errors first), at most cfg->findings,
 * each linked to its row in the results when the table shows it. */
static void findings_of(FILE *f, const tp_result *r, const hr_config *cfg)
{
    int sev = hr_col(r, "severity", TP_COL_STR);
    size_t judged = 0, shown = 0, rows = tp_result_rows(r);
    for (size_t row = 0; row < rows; row++)
        judged += !tp_result_is_null(r, row, sev) && is_judged(tp_result_get_str(r, row, sev));
    fact_open(f, "findings", "findings");
    if (judged == 0)
        fprintf(f, "no rule fired (%zu informational row%s)", rows, rows == 1 ? "" : "s");
    else
        fprintf(f, "%zu finding%s", judged, judged == 1 ? "" : "s");
    result_ref(f, r);
    if (judged > 0)
        fputs("<ol class=\"findings\">\n", f);
    for (size_t row = 0; row < rows && shown < judged && shown < (size_t)cfg->findings; row++) {
        if (tp_result_is_null(r, row, sev) || !is_judged(tp_result_get_str(r, row, sev)))
            continue;
        finding_item(f, r, row, row < (size_t)cfg->max_rows);
        shown++;
    }
    if (judged > 0)
        fputs("</ol>", f);
    if (judged > shown)
        fprintf(f, "<p class=\"more\">%zu more in the table</p>", judged - shown);
    fputs("</td></tr>\n", f);
}

static void findings_fact(tp_stage *st, FILE *f, const hr_config *cfg)
{
    int any = 0;
    for (size_t i = 0; i < tp_input_count(st); i++)
        if (tp_result_is_findings(tp_input(st, i))) {
            findings_of(f, tp_input(st, i), cfg);
            any = 1;
        }
    if (!any)
        not_measured(f, "findings", "findings", "findings (<code>rule</code>, <code>severity</code>, "
                                                "<code>finding</code>: the advice analysis)");
}

/* -------------------------------------------------------------- bound by */

/* A critical path's categories over all iterations (the rows whose
 * iteration is null), largest share first; left out without one. */
static void bound_by_fact(tp_stage *st, FILE *f)
{
    static const char *const names[] = {"category", "on_path_us", "percent", "iteration", NULL};
    const tp_result *r = input_with(st, names, NULL);
    if (r == NULL)
        return;
    int cat = hr_col(r, "category", TP_COL_STR), pct = hr_col(r, "percent", TP_COL_F64);
    int it = hr_col(r, "iteration", 0), on = hr_col(r, "on_path_us", TP_COL_F64);
    size_t rows = tp_result_rows(r), n = 0;
    size_t *order = rows ? malloc(rows * sizeof *order) : NULL;
    for (size_t row = 0; order && row < rows; row++)
        if (tp_result_is_null(r, row, it) && !tp_result_is_null(r, row, pct) &&
            tp_result_get_f64(r, row, pct) > 0 &&
            !tp_result_is_null(r, row, cat)) {
            size_t k = n++;
            for (; k > 0 && tp_result_get_f64(r, order[k - 1], pct) < tp_result_get_f64(r, row, pct); k--)
                order[k] = order[k - 1];
            order[k] = row;
        }
    fact_open(f, "bound", "bound by");
    if (n == 0)
        fputs("no time on a critical path over all iterations", f);
    for (size_t k = 0; k < n; k++) {
        fputs(k ? ", " : "", f);
        fputs(k == 0 ? "<b>" : "", f);
        hr_text(f, tp_result_get_str(r, order[k], cat));
        fprintf(f, " %.1f %%", tp_result_get_f64(r, order[k], pct));
        fputs(k == 0 ? "</b>" : "", f);
        if (k == 0 && !tp_result_is_null(r, order[k], on)) {
            fputs(" (", f);
            hr_duration(f, tp_result_get_f64(r, order[k], on));
            fputs(")", f);
        }
    }
    free(order);
    result_ref(f, r);
    fputs("</td></tr>\n", f);
}

/* ------------------------------------------------------------- straggler */

/* The rank a per-rank result marks as the straggler, with its step time. */
static void straggler_fact(tp_stage *st, FILE *f)
{
    size_t row;
    long i = hr_straggler(st, &row);
    if (i < 0)
        return;
    const tp_result *r = tp_input(st, (size_t)i);
    int step = hr_col(r, "step_us", TP_COL_F64);
    fact_open(f, "straggler", "straggler");
    fprintf(f, "<b>rank %lld</b>", (long long)tp_result_get_i64(r, row, hr_col(r, "rank", TP_COL_I64)));
    if (step >= 0 && !tp_result_is_null(r, row, step)) {
        fputs(" (step ", f);
        hr_duration(f, tp_result_get_f64(r, row, step));
        fputs(")", f);
    }
    fputs(" <a class=\"src\" href=\"#traces\">per rank</a>", f);
    result_ref(f, r);
    fputs("</td></tr>\n", f);
}

/* ------------------------------------------------------ diff, prediction */

/* A diff's summary: each measure, base -> test, and its change. */
static void compared_facts(tp_stage *st, FILE *f)
{
    static const char *const names[] = {"measure", "base", "test", "change", NULL};
    for (long i = hr_find_input(st, 0, names, NULL); i >= 0;
         i = hr_find_input(st, (size_t)i + 1, names, NULL)) {
        const tp_result *r = tp_input(st, (size_t)i);
        int m = hr_col(r, "measure", TP_COL_STR), b = hr_col(r, "base", 0);
        int t = hr_col(r, "test", 0), ch = hr_col(r, "change", TP_COL_STR);
        for (size_t row = 0; row < tp_result_rows(r) && row < MAX_DEVICES_SHOWN; row++) {
            char vb[48], vt[48];
            hr_number(vb, sizeof vb, r, row, b);
            hr_number(vt, sizeof vt, r, row, t);
            fputs("<tr class=\"delta\"><th>", f);
            hr_text(f, tp_result_is_null(r, row, m) ? "" : tp_result_get_str(r, row, m));
            fputs("</th><td>base ", f);
            hr_text(f, vb);
            fputs(" &rarr; test ", f);
            hr_text(f, vt);
            if (!tp_result_is_null(r, row, ch)) {
                fputs(": <b>", f);
                hr_text(f, tp_result_get_str(r, row, ch));
                fputs("</b>", f);
            }
            result_ref(f, r);
            fputs("</td></tr>\n", f);
        }
    }
}

/* A prediction's coverage and GMAE (issue 25 item 6), from its row
 * covering the most GPU time. */
static void prediction_facts(tp_stage *st, FILE *f)
{
    static const char *const names[] = {"coverage_percent", "gmae_percent", NULL};
    for (long i = hr_find_input(st, 0, names, NULL); i >= 0;
         i = hr_find_input(st, (size_t)i + 1, names, NULL)) {
        const tp_result *r = tp_input(st, (size_t)i);
        int cov = hr_col(r, "coverage_percent", TP_COL_F64), gmae = hr_col(r, "gmae_percent", TP_COL_F64);
        long row = cov >= 0 && gmae >= 0 ? max_row(r, cov, -1) : -1;
        if (row < 0)
            continue;
        fputs("<tr><th>prediction (", f);
        hr_text(f, tp_result_id(r));
        fprintf(f, ")</th><td>the models cover <span class=\"coverage\">%.2f</span> %% of the GPU "
                   "time",
                tp_result_get_f64(r, (size_t)row, cov));
        if (!tp_result_is_null(r, (size_t)row, gmae))
            fprintf(f, "; GMAE <span class=\"gmae\">%.2f</span> %%",
                    tp_result_get_f64(r, (size_t)row, gmae));
        fputs("</td></tr>\n", f);
    }
}

void hr_summary_section(tp_stage *st, FILE *f, const hr_config *cfg)
{
    fputs("<section id=\"summary\"><h2>Summary</h2>\n<table class=\"info summary\"><tbody>\n", f);
    step_fact(st, f);
    busy_fact(st, f);
    comm_fact(st, f);
    kernel_fact(st, f);
    findings_fact(st, f, cfg);
    bound_by_fact(st, f);
    straggler_fact(st, f);
    compared_facts(st, f);
    prediction_facts(st, f);
    fputs("</tbody></table>\n</section>\n", f);
}
