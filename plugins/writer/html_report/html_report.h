/*
 * writer `html_report`: what its files share.  html_report.c writes the
 * page (traces, charts, tables); html_summary.c the summary at its top (the
 * answer read from the input results' declared columns); html_ranks.c what
 * a page over several traces adds (the traces as one table, per-rank small
 * charts, the straggler).
 */
#ifndef HTML_REPORT_H
#define HTML_REPORT_H

#include <stdio.h>

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_output.h>

typedef struct hr_config {
    const char *path;
    const char *title;
    int64_t max_rows;
    int charts;
    tp_strlist svg_files;
    int64_t findings;
} hr_config;

/* Text as HTML character data or attribute value (& < > " ' escaped,
 * invalid UTF-8 and control characters as U+FFFD). */
void hr_text(FILE *f, const char *s);

/* Column `name` of r if it has type `type` (0: any type), else -1. */
int hr_col(const tp_result *r, const char *name, tp_coltype type);
/* A number column, int64 or double (a batch table read back from CSV types
 * whole numbers as int64), or -1; its cell as a double. */
int hr_num_col(const tp_result *r, const char *name);
double hr_f64(const tp_result *r, size_t row, int col);

/* The first input result declaring every column of `names` (NULL-ended)
 * and none of `without` (NULL-ended, or NULL), from input `from` on; its
 * index, or -1. */
long hr_find_input(tp_stage *st, size_t from, const char *const *names,
                   const char *const *without);

/* A duration in microseconds as people read it: "850 us", "12.3 ms", "4.56 s". */
void hr_duration(FILE *f, double us);

/* A value of a result cell as a table shows it (integers exact, two
 * decimals, three significant digits below 0.01): into buf. */
void hr_number(char *buf, size_t size, const tp_result *r, size_t row, int col);


/* A row's anchor in the results: "r-<id>-<row>" (escaped), the id
 * attribute's value and a link's target. */
void hr_row_anchor(FILE *f, const tp_result *r, size_t row);

/* The summary at the top of the page; html_summary.c. */
void hr_summary_section(tp_stage *st, FILE *f, const hr_config *cfg);

/* Several traces (a batch, a diff): one table of the traces and their facts,
 * then per rank a small chart; html_ranks.c. */
void hr_traces_table(tp_stage *st, FILE *f);
void hr_rank_multiples(tp_stage *st, FILE *f);
/* A per-rank result's `straggler` column (text, beside an int64 `rank`),
 * or -1: looked up once per result; then is the row marked the straggler
 * ("yes"), for the tables' highlighting? */
int hr_straggler_col(const tp_result *r);
int hr_is_straggler_row(const tp_result *r, int col, size_t row);
/* The input holding the straggler's row (*row set), or -1. */
long hr_straggler(tp_stage *st, size_t *row);

#endif
