/*
 * writer `markdown`: results as GitHub-flavoured markdown tables, for pull
 * request comments and chat bots (docs/plugins/markdown.md).
 *
 * One section per result (`### id`, its title note beside it); findings
 * (a result with columns rule, severity and finding: advice and any
 * analysis that judges) come first, their text in full.  Numbers are
 * right-aligned, integers written as integers, doubles with `decimals`
 * places; a column's unit is in its header; long text (kernel names) is
 * cut to `max_name` characters with an ellipsis; markdown's own characters
 * in cells are escaped; a result without rows says so; at most `max_rows`
 * rows per table, the rest counted.  The file is written atomically (a
 * temporary renamed into place), or to stdout without `path`.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_output.h>
#include <tracepipe/tp_sdk_text.h>

typedef struct md_config {
    const char *path;
    const char *title;
    int64_t max_name;
    int64_t max_rows;
    int64_t decimals;
} md_config;

static const tp_option md_options[] = {
    TP_OPTION_OUTPUT_FILE("path", md_config, path, NULL,
                          "output file (one document for every input); stdout when absent"),
    TP_OPTION_STRING("title", md_config, title, NULL,
                     "a level-2 heading at the top of the document; default: the pipeline's "
                     "name (none without one)"),
    TP_OPTION_INT("max_name", md_config, max_name, "60", 4, 100000,
                  "text cells (names) longer than this many characters are cut, ending in "
                  "an ellipsis; findings' finding, evidence and fix are never cut"),
    TP_OPTION_INT("max_rows", md_config, max_rows, "50", 0, 1e9,
                  "rows per table at most (0: all); the rows left out are counted under it"),
    TP_OPTION_INT("decimals", md_config, decimals, "2", 0, 17,
                  "places after the point for double columns (integer columns stay integers)"),
    TP_OPTION_END};

/* Markdown's own characters, escaped with a backslash in a cell; not an
 * underscore inside a word (snake_case_names), which GFM leaves as is. */
static int md_special(const unsigned char *start, const unsigned char *p)
{
    if (*p == '_')
        return !(p > start && isalnum(p[-1]) && isalnum(p[1]));
    return *p && strchr("\\`*[]<>|~#", *p) != NULL;
}

/* Text in a cell: line breaks and tabs as spaces, invalid UTF-8 as U+FFFD,
 * markdown's characters escaped, cut to max characters (0: no limit) with
 * an ellipsis. */
static void md_put_text(FILE *f, const char *s, int64_t max)
{
    const unsigned char *start = (const unsigned char *)s, *p = start;
    size_t chars = 0, total = 0;
    for (const unsigned char *q = p; *q; total++) {
        size_t n = tp_utf8_len(q);
        q += n ? n : 1;
    }
    size_t keep = max > 0 && total > (size_t)max ? (size_t)max - 1 : total;
    while (*p && chars < keep) {
        size_t n = tp_utf8_len(p);
        if (n == 0)
            fputs("\xEF\xBF\xBD", f);
        else if (n == 1 && (*p == '\n' || *p == '\r' || *p == '\t'))
            fputc(' ', f);
        else if (n == 1 && *p < 0x20)
            fputc(' ', f);
        else {
            if (n == 1 && md_special(start, p))
                fputc('\\', f);
            fwrite(p, 1, n, f);
        }
        p += n ? n : 1;
        chars++;
    }
    if (keep < total)
        fputs("\xE2\x80\xA6", f); /* … */
}

/* Cells never cut: a finding's sentences (findings: the SDK's
 * tp_result_is_findings, asked once per result). */
static int md_full_text(const tp_result *r, int col)
{
    const char *name = tp_result_col_name(r, col);
    return strcmp(name, "finding") == 0 || strcmp(name, "evidence") == 0 ||
           strcmp(name, "fix") == 0;
}

static void md_header(FILE *f, const tp_result *r)
{
    int ncols = (int)tp_result_cols(r);
    fputc('|', f);
    for (int c = 0; c < ncols; c++) {
        const char *unit = tp_result_col_unit(r, c);
        fputc(' ', f);
        md_put_text(f, tp_result_col_name(r, c), 0);
        if (unit && strcmp(unit, "count") != 0) {
            fputs(" (", f);
            md_put_text(f, strcmp(unit, "percent") == 0 ? "%" : unit, 0);
            fputc(')', f);
        }
        fputs(" |", f);
    }
    fputs("\n|", f);
    for (int c = 0; c < ncols; c++)
        fputs(tp_result_col_type(r, c) == TP_COL_STR ? " :--- |" : " ---: |", f);
    fputc('\n', f);
}

static void md_cell(FILE *f, const tp_result *r, size_t row, int col, int64_t max_name,
                    const md_config *cfg)
{
    if (tp_result_is_null(r, row, col))
        return;
    switch (tp_result_col_type(r, col)) {
    case TP_COL_STR:
        md_put_text(f, tp_result_get_str(r, row, col), max_name);
        break;
    case TP_COL_F64: {
        double v = tp_result_get_f64(r, row, col);
        if (v == v)
            fprintf(f, "%.*f", (int)cfg->decimals, v);
        break;
    }
    default:
        fprintf(f, "%" PRId64, tp_result_get_i64(r, row, col));
        break;
    }
}

#define MD_MAX_COLS 256

static void md_table(FILE *f, const tp_result *r, int findings, const md_config *cfg)
{
    const char *title = tp_result_meta(r, "title");
    fputs("### ", f);
    md_put_text(f, tp_result_id(r), 0);
    if (title) {
        fputs(": ", f);
        md_put_text(f, title, 0);
    }
    fputs("\n\n", f);
    size_t nrows = tp_result_rows(r);
    if (nrows == 0 || tp_result_cols(r) == 0) {
        fputs("_No rows: the result is empty._\n\n", f);
        return;
    }
    md_header(f, r);
    int64_t max_name[MD_MAX_COLS]; /* per column, once per result */
    int ncols = (int)tp_result_cols(r) < MD_MAX_COLS ? (int)tp_result_cols(r) : MD_MAX_COLS;
    for (int c = 0; c < ncols; c++)
        max_name[c] = findings && md_full_text(r, c) ? 0 : cfg->max_name;
    size_t shown = cfg->max_rows > 0 && nrows > (size_t)cfg->max_rows ? (size_t)cfg->max_rows
                                                                       : nrows;
    for (size_t row = 0; row < shown; row++) {
        fputc('|', f);
        for (int c = 0; c < (int)tp_result_cols(r); c++) {
            fputc(' ', f);
            md_cell(f, r, row, c, c < ncols ? max_name[c] : cfg->max_name, cfg);
            fputs(" |", f);
        }
        fputc('\n', f);
    }
    if (shown < nrows)
        fprintf(f, "\n_%zu more rows not shown (%zu in all; option max_rows)._\n", nrows - shown,
                nrows);
    fputc('\n', f);
}

static int md_write(tp_stage *st, const md_config *cfg)
{
    FILE *f = tp_out_open(st, cfg->path);
    if (f == NULL)
        return TP_EIO; /* the core has said why */
    size_t n = tp_input_count(st);
    const char *title = cfg->title ? cfg->title : tp_pipeline_name(st);
    if (title) {
        fputs("## ", f);
        md_put_text(f, title, 0);
        fputs("\n\n", f);
    }
    for (int findings = 1; findings >= 0; findings--) /* findings first */
        for (size_t i = 0; i < n; i++)
            if (tp_result_is_findings(tp_input(st, i)) == findings)
                md_table(f, tp_input(st, i), findings, cfg);
    return tp_out_close(st, f, cfg->path, TP_OK);
}

static int md_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    if (tp_input_count(st) == 0)
        return tp_fail(st, TP_EINVAL, "no input results to write");
    return md_write(st, config);
}

static const tp_stage_desc md_stages[] = {
    TP_STAGE_FULL(TP_STAGE_WRITER, "markdown",
                  "write results (findings first) as GitHub-flavoured markdown tables, for pull "
                  "requests and chat",
                  md_options, md_config, NULL, TP_PRODUCES_NONE, 0, NULL, md_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("markdown", "0.1.0", md_stages);
