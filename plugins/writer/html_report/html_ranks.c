/*
 * html_report over several traces (a batch of ranks, a diff): every trace
 * in one table with its facts, and per rank a small chart of a per-rank
 * result (a `rank` column and time columns, as the ranks analysis writes),
 * the straggler (a text column `straggler` saying "yes") highlighted in
 * both and in the result's table.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "html_report.h"

#define MAX_FACT_COLS 12
#define MAX_BARS 8
#define MULT_W 240
#define BAR_H 14

int hr_straggler_col(const tp_result *r)
{
    return hr_col(r, "rank", TP_COL_I64) >= 0 ? hr_col(r, "straggler", TP_COL_STR) : -1;
}

int hr_is_straggler_row(const tp_result *r, int col, size_t row)
{
    return col >= 0 && !tp_result_is_null(r, row, col) &&
           strcmp(tp_result_get_str(r, row, col), "yes") == 0;
}

long hr_straggler(tp_stage *st, size_t *row)
{
    for (size_t i = 0; i < tp_input_count(st); i++) {
        const tp_result *r = tp_input(st, i);
        int col = hr_straggler_col(r);
        for (*row = 0; col >= 0 && *row < tp_result_rows(r); (*row)++)
            if (hr_is_straggler_row(r, col, *row))
                return (long)i;
    }
    return -1;
}

/* The straggler's rank; 0 when no input marks one. */
static int straggler_rank(tp_stage *st, int64_t *rank)
{
    size_t row;
    long i = hr_straggler(st, &row);
    if (i < 0)
        return 0;
    const tp_result *r = tp_input(st, (size_t)i);
    *rank = tp_result_get_i64(r, row, hr_col(r, "rank", TP_COL_I64));
    return 1;
}

static int is_device_key(const char *key)
{
    return strncmp(key, "device.", 7) == 0;
}

/* The trace facts shown as columns: every info key of any trace but the
 * per-device ones, in order of first appearance, at most MAX_FACT_COLS. */
static size_t fact_keys(tp_stage *st, const char **keys)
{
    size_t n = 0;
    for (size_t i = 0; i < tp_stage_trace_count(st); i++) {
        const tp_trace *t = tp_stage_trace_at(st, i);
        for (size_t k = 0; k < tp_trace_info_count(t) && n < MAX_FACT_COLS; k++) {
            const char *key = tp_trace_info_key(t, k);
            size_t j = 0;
            while (j < n && strcmp(keys[j], key) != 0)
                j++;
            if (j == n && !is_device_key(key))
                keys[n++] = key;
        }
    }
    return n;
}

static void put_fact(FILE *f, const tp_trace *t, const char *key)
{
    int64_t iv;
    double dv;
    char num[48];
    switch (tp_trace_info_type(t, key)) {
    case TP_COL_STR:
        fputs("<td class=\"t\" title=\"", f);
        hr_text(f, tp_trace_info_str(t, key));
        fputs("\">", f);
        hr_text(f, tp_trace_info_str(t, key));
        fputs("</td>", f);
        return;
    case TP_COL_I64:
        if (tp_trace_info_i64(t, key, &iv) == TP_OK) {
            fprintf(f, "<td class=\"n\" data-v=\"%" PRId64 "\">%" PRId64 "</td>", iv, iv);
            return;
        }
        break;
    case TP_COL_F64:
        if (tp_trace_info_f64(t, key, &dv) == TP_OK) {
            snprintf(num, sizeof num, "%.10g", dv);
            fprintf(f, "<td class=\"n\" data-v=\"%s\">%s</td>", num, num);
            return;
        }
        break;
    default: break;
    }
    fputs("<td></td>", f);
}

static int trace_rank(const tp_trace *t, int64_t *rank)
{
    return tp_trace_info_i64(t, "rank", rank) == TP_OK;
}

void hr_traces_table(tp_stage *st, FILE *f)
{
    const char *keys[MAX_FACT_COLS];
    size_t nk = fact_keys(st, keys);
    int64_t strag = 0, rank;
    int has_strag = straggler_rank(st, &strag);
    fprintf(f, "<p>%zu traces.</p>\n<table class=\"sortable facts\"><thead><tr><th>trace</th>"
               "<th>source</th><th data-num=\"1\">events</th><th>device 0</th>",
            tp_stage_trace_count(st));
    for (size_t k = 0; k < nk; k++) {
        fputs(tp_trace_info_type(tp_stage_trace_at(st, 0), keys[k]) == TP_COL_STR ? "<th>"
                                                                                 : "<th data-num=\"1\">",
              f);
        hr_text(f, keys[k]);
        fputs("</th>", f);
    }
    fputs("</tr></thead>\n<tbody>\n", f);
    for (size_t i = 0; i < tp_stage_trace_count(st); i++) {
        const tp_trace *t = tp_stage_trace_at(st, i);
        int strag_row = has_strag && trace_rank(t, &rank) && rank == strag;
        fputs(strag_row ? "<tr class=\"straggler\"><td class=\"t\">" : "<tr><td class=\"t\">", f);
        hr_text(f, tp_trace_id(t));
        fputs("</td><td class=\"t\" title=\"", f);
        hr_text(f, tp_trace_source(t));
        fputs("\">", f);
        hr_text(f, tp_trace_source(t));
        fprintf(f, "</td><td class=\"n\" data-v=\"%zu\">%zu</td>", tp_trace_cols(t)->n,
                tp_trace_cols(t)->n);
        put_fact(f, t, "device.0.name");
        for (size_t k = 0; k < nk; k++)
            put_fact(f, t, keys[k]);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

/* ------------------------------------------------- per-rank small charts */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Each rank on one row at most (a per-rank table, not a batch table of
 * every rank's kernels or findings, which has many rows per rank). */
static int one_row_per_rank(const tp_result *r, int rank)
{
    size_t rows = tp_result_rows(r), n = 0;
    int64_t *v = malloc(rows * sizeof *v);
    if (v == NULL)
        return 0;
    for (size_t row = 0; row < rows; row++)
        if (!tp_result_is_null(r, row, rank))
            v[n++] = tp_result_get_i64(r, row, rank);
    qsort(v, n, sizeof *v, cmp_i64);
    int unique = 1;
    for (size_t k = 1; k < n && unique; k++)
        unique = v[k] != v[k - 1];
    free(v);
    return unique;
}

/* A per-rank result: a `rank` column, two rows or more, one per rank, and
 * the time columns (F64 in us, never negative: offsets are left out) to
 * draw. */
static size_t rank_bars(const tp_result *r, int *cols)
{
    size_t n = 0;
    int rank = hr_col(r, "rank", TP_COL_I64);
    if (rank < 0 || tp_result_rows(r) < 2 || !one_row_per_rank(r, rank))
        return 0;
    for (size_t c = 0; c < tp_result_cols(r) && n < MAX_BARS; c++) {
        const char *unit = tp_result_col_unit(r, (int)c);
        int ok = tp_result_col_type(r, (int)c) == TP_COL_F64 && unit && strcmp(unit, "us") == 0;
        for (size_t row = 0; ok && row < tp_result_rows(r); row++)
            ok = tp_result_is_null(r, row, (int)c) || tp_result_get_f64(r, row, (int)c) >= 0;
        if (ok)
            cols[n++] = (int)c;
    }
    return n >= 1 ? n : 0;
}

static double bars_max(const tp_result *r, const int *cols, size_t n)
{
    double m = 0;
    for (size_t row = 0; row < tp_result_rows(r); row++)
        for (size_t k = 0; k < n; k++)
            if (!tp_result_is_null(r, row, cols[k]) && tp_result_get_f64(r, row, cols[k]) > m)
                m = tp_result_get_f64(r, row, cols[k]);
    return m;
}

/* One rank's chart: a labelled bar per column, all ranks on one scale. */
static void rank_chart(FILE *f, const tp_result *r, size_t row, const int *cols, size_t n,
                       double max, int strag_col)
{
    static const char *const colours[] = {"#4e79a7", "#f28e2b", "#e15759", "#76b7b2",
                                          "#59a14f", "#edc948", "#b07aa1", "#9c755f"};
    int strag = hr_is_straggler_row(r, strag_col, row);
    int64_t rank = tp_result_get_i64(r, row, hr_col(r, "rank", TP_COL_I64));
    unsigned h = (unsigned)(n * (BAR_H + 4) + 4);
    fprintf(f, "<figure class=\"rank%s\"><figcaption>rank %" PRId64 "%s</figcaption>\n",
            strag ? " straggler" : "", rank, strag ? " &mdash; the straggler" : "");
    fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%u\" "
               "viewBox=\"0 0 %d %u\" role=\"img\">\n",
            MULT_W, h, MULT_W, h);
    for (size_t k = 0; k < n; k++) {
        double v = tp_result_is_null(r, row, cols[k]) ? 0 : tp_result_get_f64(r, row, cols[k]);
        double w = max > 0 ? (MULT_W - 150) * v / max : 0;
        unsigned y = (unsigned)(2 + k * (BAR_H + 4));
        fprintf(f, "<text x=\"0\" y=\"%u\" font-size=\"10\">", y + BAR_H - 3);
        hr_text(f, tp_result_col_name(r, cols[k]));
        fprintf(f, "</text><rect x=\"80\" y=\"%u\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>", y,
                w, BAR_H, colours[k % 8]);
        fprintf(f, "<text x=\"%.1f\" y=\"%u\" font-size=\"10\">%.0f</text>\n", 84 + w,
                y + BAR_H - 3, v);
    }
    fputs("</svg></figure>\n", f);
}

void hr_rank_multiples(tp_stage *st, FILE *f)
{
    int cols[MAX_BARS];
    for (size_t i = 0; i < tp_input_count(st); i++) {
        const tp_result *r = tp_input(st, i);
        size_t n = rank_bars(r, cols);
        if (n == 0)
            continue;
        double max = bars_max(r, cols, n);
        int rank = hr_col(r, "rank", TP_COL_I64), strag = hr_straggler_col(r);
        fputs("<h3>Per rank (", f);
        hr_text(f, tp_result_id(r));
        fputs(", us, one scale)</h3>\n<div class=\"multiples\">\n", f);
        for (size_t row = 0; row < tp_result_rows(r); row++)
            if (!tp_result_is_null(r, row, rank))
                rank_chart(f, r, row, cols, n, max, strag);
        fputs("</div>\n", f);
    }
}
