/*
 * writer `json`: every input result in one JSON document.
 *
 *   { "<result id>": [ {"<column>": value, ...}, ... ], ... }
 *
 * A flat table is an array of row objects keyed by column name (null for
 * null cells).  A tree (I64 columns `id` and `parent_id`, rows in pre-order)
 * is an array of its roots, each row object carrying its other columns, `id`
 * kept and `parent_id` dropped, plus a `children` array (empty for leaves).
 *
 * Numbers are printed here rather than by jansson's dumper, which always
 * uses %.17g (0.1 -> 0.10000000000000001): integers exactly, floats as the
 * shortest %.15g/%.16g/%.17g text that reads back as the same double, with
 * ".0" added when it would otherwise look like an integer; NaN and
 * infinities, which JSON cannot express, become null.  jansson escapes the
 * strings; invalid UTF-8 bytes are replaced by U+FFFD first.
 *
 * `indent` 0 writes one compact line; otherwise each value goes on its own
 * line indented by `indent` spaces per level.  The document ends in "\n".
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_output.h>
#include <tracepipe/tp_sdk_tree.h>

#include <tracepipe/tp_sdk_text.h>

typedef struct json_config {
    const char *path;
    int64_t indent;
    int lossless;
} json_config;

static const tp_option json_options[] = {
    TP_OPTION_OUTPUT_FILE("path", json_config, path, NULL, "output file; stdout when absent"),
    TP_OPTION_INT("indent", json_config, indent, "2", 0, 8,
                  "spaces per nesting level; 0 = one compact line"),
    TP_OPTION_BOOL("lossless", json_config, lossless, "false",
                   "write every result with its kind, notes, column types and units, as the "
                   "results reader reads back"),
    TP_OPTION_END
};

/* The output stream and its layout. */
typedef struct jw {
    FILE *f;
    int indent;
} jw;

/* A node of a tree whose object is still open while its subtree is written. */
typedef struct jw_open {
    int64_t id;
    int level;        /* nesting level of the node's "{" */
    int has_children; /* a child has been written into its "children" array */
} jw_open;

/* Starts a new line at nesting level `level` (nothing in compact mode). */
static void jw_newline(const jw *w, int level)
{
    if (w->indent == 0)
        return;
    fputc('\n', w->f);
    for (int i = 0; i < level * w->indent; i++)
        fputc(' ', w->f);
}

/* A copy of s with every invalid UTF-8 byte replaced by U+FFFD, or NULL. */
static char *jw_utf8_repair(const char *s)
{
    size_t len = strlen(s);
    char *out = malloc(len * 3 + 1), *o = out;
    const unsigned char *p = (const unsigned char *)s;

    if (!out)
        return NULL;
    while (*p) {
        size_t n = tp_utf8_len(p);
        if (n == 0) {
            memcpy(o, "\xEF\xBF\xBD", 3);
            o += 3;
            p++;
        } else {
            memcpy(o, p, n);
            o += n;
            p += n;
        }
    }
    *o = '\0';
    return out;
}

/* Writes s as a JSON string literal.  Returns 0, or -1 on ENOMEM. */
static int jw_string(const jw *w, const char *s)
{
    json_t *j;

    if (s[strcspn(s, "\"\\")] == '\0') { /* common case: nothing to escape */
        const unsigned char *p = (const unsigned char *)s;
        while (*p >= 0x20 && *p < 0x7F)
            p++;
        if (*p == '\0') {
            fprintf(w->f, "\"%s\"", s);
            return 0;
        }
    }
    j = json_string(s);
    if (!j) { /* jansson refuses invalid UTF-8 */
        char *fixed = jw_utf8_repair(s);
        if (fixed)
            j = json_string(fixed);
        free(fixed);
        if (!j)
            return -1;
    }
    json_dumpf(j, w->f, JSON_ENCODE_ANY);
    json_decref(j);
    return 0;
}

static void jw_real(const jw *w, double v)
{
    char buf[40];

    tp_fmt_f64_json(buf, sizeof buf, v);
    fputs(buf, w->f);
}

static int jw_cell(const jw *w, const tp_result *r, size_t row, int col)
{
    if (tp_result_is_null(r, row, col)) {
        fputs("null", w->f);
        return 0;
    }
    switch (tp_result_col_type(r, col)) {
    case TP_COL_STR:
        return jw_string(w, tp_result_get_str(r, row, col));
    case TP_COL_I32: /* trace columns only, never in a result */
    case TP_COL_SID:
    case TP_COL_I64:
        fprintf(w->f, "%" PRId64, tp_result_get_i64(r, row, col));
        break;
    case TP_COL_F64:
        jw_real(w, tp_result_get_f64(r, row, col));
        break;
    }
    return 0;
}

/* Writes `"key": ` (or `"key":` when compact) at the start of a member. */
static int jw_key(const jw *w, const char *key, int level, int first)
{
    if (!first)
        fputc(',', w->f);
    jw_newline(w, level);
    if (jw_string(w, key) != 0)
        return -1;
    fputs(w->indent ? ": " : ":", w->f);
    return 0;
}

/* Opens a row object at `level` and writes every column but `skip` (-1 for
 * none).  The object is left open.  Returns 0 or -1 on ENOMEM. */
static int jw_row_fields(const jw *w, const tp_result *r, size_t row, int level, int skip)
{
    int ncols = (int)tp_result_cols(r), first = 1;

    fputc('{', w->f);
    for (int c = 0; c < ncols; c++) {
        if (c == skip)
            continue;
        if (jw_key(w, tp_result_col_name(r, c), level + 1, first) != 0 ||
            jw_cell(w, r, row, c) != 0)
            return -1;
        first = 0;
    }
    return 0;
}

static int jw_flat(const jw *w, const tp_result *r, int level)
{
    size_t nrows = tp_result_rows(r);

    fputc('[', w->f);
    for (size_t row = 0; row < nrows; row++) {
        if (row > 0)
            fputc(',', w->f);
        jw_newline(w, level + 1);
        if (jw_row_fields(w, r, row, level + 1, -1) != 0)
            return -1;
        jw_newline(w, level + 1);
        fputc('}', w->f);
    }
    if (nrows > 0)
        jw_newline(w, level);
    fputc(']', w->f);
    return 0;
}

/* Closes the children array and the object of an open tree node. */
static void jw_close_node(const jw *w, const jw_open *node)
{
    if (node->has_children)
        jw_newline(w, node->level + 1);
    fputc(']', w->f);
    jw_newline(w, node->level);
    fputc('}', w->f);
}

/* Writes a checked pre-order tree as nested objects; open: rows entries. */
static int jw_tree(const jw *w, const tp_result *r, int id_col, int parent_col, int level,
                   jw_open *open)
{
    size_t depth = 0, nrows = tp_result_rows(r), roots = 0;

    fputc('[', w->f);
    for (size_t row = 0; row < nrows; row++) {
        int is_root = tp_result_is_null(r, row, parent_col);
        int64_t parent = is_root ? 0 : tp_result_get_i64(r, row, parent_col);
        int node_level;

        while (depth > 0 && (is_root || open[depth - 1].id != parent))
            jw_close_node(w, &open[--depth]);
        if (depth == 0) {
            if (roots++ > 0)
                fputc(',', w->f);
            node_level = level + 1;
        } else {
            jw_open *up = &open[depth - 1];
            if (up->has_children)
                fputc(',', w->f);
            up->has_children = 1;
            node_level = up->level + 2;
        }
        jw_newline(w, node_level);
        if (jw_row_fields(w, r, row, node_level, parent_col) != 0 ||
            jw_key(w, "children", node_level + 1, 0) != 0) /* `id` was written before */
            return -1;
        fputc('[', w->f);
        open[depth++] = (jw_open){ tp_result_get_i64(r, row, id_col), node_level, 0 };
    }
    while (depth > 0)
        jw_close_node(w, &open[--depth]);
    if (nrows > 0)
        jw_newline(w, level);
    fputc(']', w->f);
    return 0;
}

static int jw_result(tp_stage *st, const jw *w, const tp_result *r, int level)
{
    tp_result_tree shape;
    int rc = tp_result_tree_load(st, r, &shape); /* checks before anything is written */

    if (rc == TP_ENOTFOUND)
        return jw_flat(w, r, level) == 0 ? TP_OK : tp_fail(st, TP_ENOMEM, "out of memory");
    if (rc != TP_OK)
        return rc;
    jw_open *open = malloc((shape.nrows + 1) * sizeof *open);
    if (!open || jw_tree(w, r, shape.id_col, shape.parent_col, level, open) != 0)
        rc = tp_fail(st, TP_ENOMEM, "out of memory");
    free(open);
    tp_result_tree_free(&shape);
    return rc;
}

/* The whole document: an object keyed by result id. */
static int jw_document(tp_stage *st, const jw *w)
{
    size_t n = tp_input_count(st);

    fputc('{', w->f);
    for (size_t i = 0; i < n; i++) {
        const tp_result *r = tp_input(st, i);
        int rc;

        if (jw_key(w, tp_result_id(r), 1, i == 0) != 0)
            return tp_fail(st, TP_ENOMEM, "out of memory");
        rc = jw_result(st, w, r, 1);
        if (rc != TP_OK)
            return rc;
    }
    if (n > 0)
        jw_newline(w, 0);
    fputs("}\n", w->f);
    return TP_OK;
}

/* ---- lossless form: {"format": "tracepipe-results", "version": 1,
 * "results": [{"id", "kind", "meta", "columns": [{"name", "type", "unit"}],
 * "rows": [[cell, ...], ...]}]}; non-finite doubles as "NaN", "Infinity",
 * "-Infinity", null cells as null. */

static const char *jw_type_name(tp_coltype t)
{
    return t == TP_COL_STR ? "text" : t == TP_COL_I64 ? "int64" : "double";
}

static int jw_lossless_cell(const jw *w, const tp_result *r, size_t row, int col)
{
    if (tp_result_is_null(r, row, col) || tp_result_col_type(r, col) != TP_COL_F64)
        return jw_cell(w, r, row, col);
    double v = tp_result_get_f64(r, row, col);
    if (isnan(v))
        fputs("\"NaN\"", w->f);
    else if (isinf(v))
        fputs(v > 0 ? "\"Infinity\"" : "\"-Infinity\"", w->f);
    else
        jw_real(w, v);
    return 0;
}

static int jw_lossless_head(const jw *w, const tp_result *r)
{
    int rc = jw_key(w, "id", 3, 1) || jw_string(w, tp_result_id(r)) || jw_key(w, "kind", 3, 0) ||
             jw_string(w, tp_result_kind(r)) || jw_key(w, "meta", 3, 0);
    fputc('{', w->f);
    size_t nm = tp_result_meta_count(r), written = 0;
    for (size_t k = 0; k < nm && rc == 0; k++) {
        const char *key = tp_result_meta_key(r, k);
        if (strncmp(key, "unit.", 5) == 0)
            continue; /* units go with their columns */
        rc = jw_key(w, key, 4, written++ == 0) || jw_string(w, tp_result_meta(r, key));
    }
    if (written > 0)
        jw_newline(w, 3);
    fputc('}', w->f);
    if (rc == 0)
        rc = jw_key(w, "columns", 3, 0);
    fputc('[', w->f);
    int ncols = (int)tp_result_cols(r);
    for (int c = 0; c < ncols && rc == 0; c++) {
        const char *unit = tp_result_col_unit(r, c);
        if (c > 0)
            fputc(',', w->f);
        jw_newline(w, 4);
        fputc('{', w->f);
        rc = jw_key(w, "name", 5, 1) || jw_string(w, tp_result_col_name(r, c)) ||
             jw_key(w, "type", 5, 0) || jw_string(w, jw_type_name(tp_result_col_type(r, c))) ||
             jw_key(w, "unit", 5, 0) || (unit ? jw_string(w, unit) : (fputs("null", w->f), 0));
        jw_newline(w, 4);
        fputc('}', w->f);
    }
    if (ncols > 0)
        jw_newline(w, 3);
    fputc(']', w->f);
    return rc;
}

static int jw_lossless_result(const jw *w, const tp_result *r)
{
    fputc('{', w->f);
    int rc = jw_lossless_head(w, r) || jw_key(w, "rows", 3, 0);
    fputc('[', w->f);
    size_t nrows = tp_result_rows(r);
    int ncols = (int)tp_result_cols(r);
    for (size_t row = 0; row < nrows && rc == 0; row++) {
        if (row > 0)
            fputc(',', w->f);
        jw_newline(w, 4);
        fputc('[', w->f);
        for (int c = 0; c < ncols && rc == 0; c++) {
            if (c > 0)
                fputs(w->indent ? ", " : ",", w->f);
            rc = jw_lossless_cell(w, r, row, c);
        }
        fputc(']', w->f);
    }
    if (nrows > 0)
        jw_newline(w, 3);
    fputc(']', w->f);
    jw_newline(w, 2);
    fputc('}', w->f);
    return rc;
}

static int jw_lossless_document(tp_stage *st, const jw *w)
{
    size_t n = tp_input_count(st);
    fputc('{', w->f);
    int rc = jw_key(w, "format", 1, 1) || jw_string(w, "tracepipe-results") ||
             jw_key(w, "version", 1, 0);
    fputs("1", w->f);
    rc = rc || jw_key(w, "results", 1, 0);
    fputc('[', w->f);
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (i > 0)
            fputc(',', w->f);
        jw_newline(w, 2);
        rc = jw_lossless_result(w, tp_input(st, i));
    }
    if (n > 0)
        jw_newline(w, 1);
    fputc(']', w->f);
    jw_newline(w, 0);
    fputs("}\n", w->f);
    return rc ? tp_fail(st, TP_ENOMEM, "out of memory") : TP_OK;
}

static int json_run(tp_stage *st, const void *config, void *state)
{
    const json_config *cfg = config;
    jw w = { stdout, (int)cfg->indent };
    (void)state;

    size_t n = tp_input_count(st);
    if (n == 0)
        return tp_fail(st, TP_EINVAL, "no input results to write");
    /* one document: {id} names its one result as csv does; with several
     * it would name none of them */
    int has_id = cfg->path && strstr(cfg->path, "{id}") != NULL;
    if (has_id && n > 1)
        return tp_fail(st, TP_EINVAL, "path '%s': {id} names one result, but json writes its %zu "
                       "results into one document (name the file, or one writer per result)",
                       cfg->path, n);
    char *path = has_id ? tp_out_path_for(cfg->path, tp_result_id(tp_input(st, 0))) : NULL;
    if (has_id && path == NULL)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    const char *out = has_id ? path : cfg->path;
    int rc = TP_EIO;
    if ((w.f = tp_out_open(st, out)) != NULL) {
        rc = cfg->lossless ? jw_lossless_document(st, &w) : jw_document(st, &w);
        rc = tp_out_close(st, w.f, out, rc);
    }
    free(path);
    return rc;
}

static const tp_stage_desc json_stages[] = {
    TP_STAGE_FULL(TP_STAGE_WRITER, "json",
                  "write results as one JSON object keyed by result id",
                  json_options, json_config, NULL, TP_PRODUCES_NONE, 0,
                  NULL, json_run, NULL),
    TP_STAGE_END
};

TP_PLUGIN_DEFINE("json", "0.1.0", json_stages);
