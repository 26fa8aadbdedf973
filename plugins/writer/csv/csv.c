/*
 * writer `csv`: result tables as RFC 4180 CSV.
 *
 * One header row of column names (option `header`), then one record per
 * row.  A field is quoted when it holds a comma, a double quote, CR or LF;
 * quotes inside are doubled.  Nulls are empty fields.  Integers are written
 * exactly, floats as the shortest of %.15g/%.16g/%.17g that reads back as
 * the same double.  Records end in LF, or CRLF with `crlf: true`.
 *
 * Without `path` the tables go to stdout, separated by an empty line.  With
 * several input results `path` must contain `{id}`, replaced by each result
 * id, so every table gets its own file.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_output.h>
#include <tracepipe/tp_sdk_tree.h>

typedef struct csv_config {
    const char *path;
    int crlf;
    int header;
    int tree_path;
    int rank;
} csv_config;

static const tp_option csv_options[] = {
    TP_OPTION_OUTPUT_FILE("path", csv_config, path, NULL,
                     "output file ({id} = result id); stdout when absent"),
    TP_OPTION_BOOL("crlf", csv_config, crlf, "false", "end records with CRLF instead of LF"),
    TP_OPTION_BOOL("header", csv_config, header, "true", "write a header row of column names"),
    TP_OPTION_BOOL("tree_path", csv_config, tree_path, "true",
                   "trees get a last column `path`: the names from the root, joined by ' / '"),
    TP_OPTION_BOOL("rank", csv_config, rank, "true",
                   "results of a trace that knows its rank get a last column `rank`"),
    TP_OPTION_END
};

#define CSV_PATH_SEP " / "


static void csv_put_cell(FILE *f, const tp_result *r, size_t row, int col)
{
    char num[64];

    if (tp_result_is_null(r, row, col))
        return;
    switch (tp_result_col_type(r, col)) {
    case TP_COL_STR:
        tp_csv_put_text(f, tp_result_get_str(r, row, col));
        break;
    case TP_COL_I32: /* trace columns only, never in a result */
    case TP_COL_SID:
    case TP_COL_I64:
        fprintf(f, "%" PRId64, tp_result_get_i64(r, row, col));
        break;
    case TP_COL_F64:
        tp_fmt_f64(num, sizeof num, tp_result_get_f64(r, row, col));
        fputs(num, f);
        break;
    }
}

static void csv_end_record(FILE *f, const csv_config *cfg)
{
    fputs(cfg->crlf ? "\r\n" : "\n", f);
}

/* The path of every row of a tree, built in pre-order: the text up to a
 * row's level is its parent's path, so one buffer and a length per level
 * serve every row. */
typedef struct csv_paths {
    tp_result_tree shape;
    int name_col;
    char *buf;
    size_t len, cap;
    size_t *len_at; /* len_at[l]: length of the path of the open row at level l */
} csv_paths;

static int csv_paths_append(csv_paths *p, const char *s, size_t n)
{
    if (p->len + n + 1 > p->cap) {
        size_t cap = (p->len + n + 1) * 2;
        char *b = tp_realloc(p->buf, cap);
        if (b == NULL)
            return TP_ENOMEM;
        p->buf = b;
        p->cap = cap;
    }
    memcpy(p->buf + p->len, s, n);
    p->len += n;
    p->buf[p->len] = '\0';
    return TP_OK;
}

/* Makes p->buf the path of row (rows visited in order). */
static int csv_path_of(csv_paths *p, const tp_result *r, size_t row)
{
    uint32_t level = p->shape.level[row];
    const char *name = tp_result_is_null(r, row, p->name_col) ? ""
                                                             : tp_result_get_str(r, row, p->name_col);
    p->len = level > 0 ? p->len_at[level - 1] : 0;
    int rc = level > 0 ? csv_paths_append(p, CSV_PATH_SEP, strlen(CSV_PATH_SEP)) : TP_OK;
    if (rc == TP_OK)
        rc = csv_paths_append(p, name, strlen(name));
    p->len_at[level] = p->len;
    return rc;
}

/* Prepares the path column of r: TP_ENOTFOUND when r is not a tree with a
 * text `name` column or already has a `path`. */
static int csv_paths_init(tp_stage *st, const tp_result *r, csv_paths *p)
{
    memset(p, 0, sizeof *p);
    p->name_col = tp_result_find_col(r, "name");
    if (p->name_col < 0 || tp_result_col_type(r, p->name_col) != TP_COL_STR ||
        tp_result_find_col(r, "path") >= 0 || !tp_result_is_tree(r))
        return TP_ENOTFOUND;
    int rc = tp_result_tree_load(st, r, &p->shape);
    if (rc != TP_OK)
        return rc;
    p->len_at = tp_malloc((p->shape.nrows + 1) * sizeof *p->len_at);
    if (p->len_at == NULL || csv_paths_append(p, "", 0) != TP_OK) {
        tp_result_tree_free(&p->shape);
        tp_free(p->len_at);
        tp_free(p->buf);
        return tp_fail(st, TP_ENOMEM, "out of memory");
    }
    return TP_OK;
}

static void csv_paths_free(csv_paths *p)
{
    tp_result_tree_free(&p->shape);
    tp_free(p->len_at);
    tp_free(p->buf);
}

/* The rank note of r, when the rank column is wanted and r has none. */
static const char *csv_rank(const tp_result *r, const csv_config *cfg)
{
    return cfg->rank && tp_result_find_col(r, "rank") < 0 ? tp_result_meta(r, "rank") : NULL;
}

static int csv_write_table(tp_stage *st, FILE *f, const tp_result *r, const csv_config *cfg)
{
    int ncols = (int)tp_result_cols(r);
    size_t nrows = tp_result_rows(r);
    csv_paths paths;
    int rc = cfg->tree_path ? csv_paths_init(st, r, &paths) : TP_ENOTFOUND;
    if (rc != TP_OK && rc != TP_ENOTFOUND)
        return rc;
    int with_path = rc == TP_OK;
    const char *rank = csv_rank(r, cfg);

    if (cfg->header && ncols > 0) {
        for (int c = 0; c < ncols; c++) {
            if (c > 0)
                fputc(',', f);
            tp_csv_put_text(f, tp_result_col_name(r, c));
        }
        fputs(with_path ? ",path" : "", f);
        fputs(rank ? ",rank" : "", f);
        csv_end_record(f, cfg);
    }
    rc = TP_OK;
    for (size_t row = 0; row < nrows && rc == TP_OK; row++) {
        for (int c = 0; c < ncols; c++) {
            if (c > 0)
                fputc(',', f);
            csv_put_cell(f, r, row, c);
        }
        if (with_path && (rc = csv_path_of(&paths, r, row)) == TP_OK) {
            fputc(',', f);
            tp_csv_put_text(f, paths.buf);
        }
        if (rank) {
            fputc(',', f);
            tp_csv_put_field(f, rank);
        }
        csv_end_record(f, cfg);
    }
    if (with_path)
        csv_paths_free(&paths);
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static int csv_write_file(tp_stage *st, const char *path, const tp_result *r,
                          const csv_config *cfg)
{
    FILE *f = tp_out_open(st, path);

    if (!f) /* the core has said why */
        return TP_EIO;
    return tp_out_close(st, f, path, csv_write_table(st, f, r, cfg));
}


static int csv_write_stdout(tp_stage *st, const csv_config *cfg)
{
    size_t n = tp_input_count(st);

    int rc = TP_OK;
    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        if (i > 0)
            csv_end_record(stdout, cfg);
        rc = csv_write_table(st, stdout, tp_input(st, i), cfg);
    }
    return tp_out_close(st, stdout, NULL, rc);
}

static int csv_run(tp_stage *st, const void *config, void *state)
{
    const csv_config *cfg = config;
    size_t n = tp_input_count(st);
    (void)state;

    if (n == 0)
        return tp_fail(st, TP_EINVAL, "no input results to write");
    if (!cfg->path)
        return csv_write_stdout(st, cfg);
    if (n > 1 && !strstr(cfg->path, "{id}"))
        return tp_fail(st, TP_EINVAL,
                       "path '%s' must contain {id} to write %zu results (one file each)",
                       cfg->path, n);
    for (size_t i = 0; i < n; i++) {
        const tp_result *r = tp_input(st, i);
        char *path = tp_out_path_for(cfg->path, tp_result_id(r));
        int rc;

        if (!path)
            return tp_fail(st, TP_ENOMEM, "out of memory");
        rc = csv_write_file(st, path, r, cfg);
        free(path);
        if (rc != TP_OK)
            return rc;
    }
    return TP_OK;
}

static const tp_stage_desc csv_stages[] = {
    TP_STAGE_FULL(TP_STAGE_WRITER, "csv",
                  "write result tables as CSV (RFC 4180)",
                  csv_options, csv_config, NULL, TP_PRODUCES_NONE, TP_STAGE_F_PATH_PER_RESULT,
                  NULL, csv_run, NULL),
    TP_STAGE_END
};

TP_PLUGIN_DEFINE("csv", "0.1.0", csv_stages);
