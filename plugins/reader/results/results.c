/*
 * reader `results`: reads back what the json writer wrote with
 * `lossless: true` (docs/plugins/results.md) and yields those result tables,
 * no event trace.  Result "X" of the file becomes "<stage id>.X" with its
 * kind, notes (units, trace, title ...) and typed cells as they were, so a
 * later stage (a batch merge, a writer) sees the same tables.  Result files
 * are small (tables, not traces): jansson's tree is the simple way.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_plugin.h>

typedef struct res_config {
    const char *path;
} res_config;

static const tp_option res_options[] = {
    TP_OPTION_REQUIRED_INPUT_FILE("path", res_config, path,
                              "a result file written by `writer: json` with lossless: true"),
    TP_OPTION_END};

/* Reports a problem at the result (index) and returns the code. */
static int bad(tp_stage *st, const char *path, size_t ri, const char *what)
{
    return tp_fail(st, TP_EFORMAT, "%s: results[%zu]: %s", path, ri, what);
}

static tp_coltype type_of(const char *name)
{
    if (strcmp(name, "text") == 0)
        return TP_COL_STR;
    if (strcmp(name, "int64") == 0)
        return TP_COL_I64;
    if (strcmp(name, "double") == 0)
        return TP_COL_F64;
    return (tp_coltype)0;
}

static int read_double(json_t *v, double *out)
{
    if (json_is_number(v)) {
        *out = json_number_value(v);
        return 1;
    }
    const char *s = json_string_value(v);
    if (s && strcmp(s, "NaN") == 0)
        *out = NAN;
    else if (s && strcmp(s, "Infinity") == 0)
        *out = INFINITY;
    else if (s && strcmp(s, "-Infinity") == 0)
        *out = -INFINITY;
    else
        return 0;
    return 1;
}

static int put_cell(tp_stage *st, tp_result *r, size_t row, int col, tp_coltype type, json_t *v)
{
    if (json_is_null(v))
        return TP_OK; /* a new row's cells are null */
    double d;
    if (type == TP_COL_STR && json_is_string(v))
        return tp_result_set_str(st, r, row, col, json_string_value(v));
    if (type == TP_COL_I64 && json_is_integer(v))
        return tp_result_set_i64(st, r, row, col, (int64_t)json_integer_value(v));
    if (type == TP_COL_F64 && read_double(v, &d))
        return tp_result_set_f64(st, r, row, col, d);
    return TP_EFORMAT;
}

static int read_columns(tp_stage *st, const char *path, size_t ri, json_t *cols, tp_result *r,
                        tp_coltype *types)
{
    size_t c;
    json_t *col;
    json_array_foreach(cols, c, col)
    {
        const char *name = json_string_value(json_object_get(col, "name"));
        const char *tname = json_string_value(json_object_get(col, "type"));
        tp_coltype type = tname ? type_of(tname) : (tp_coltype)0;
        if (name == NULL || type == 0)
            return bad(st, path, ri, "a column lacks a name or a type (text, int64, double)");
        if (tp_result_add_col(st, r, name, type) != (int)c)
            return bad(st, path, ri, "a column name is empty or repeated");
        types[c] = type;
        const char *unit = json_string_value(json_object_get(col, "unit"));
        if (unit && tp_result_set_unit(st, r, (int)c, unit) != TP_OK)
            return TP_ENOMEM;
    }
    return TP_OK;
}

static int read_rows(tp_stage *st, const char *path, size_t ri, json_t *rows, tp_result *r,
                     const tp_coltype *types, size_t ncols)
{
    size_t k;
    json_t *cells;
    json_array_foreach(rows, k, cells)
    {
        size_t row;
        if (!json_is_array(cells) || json_array_size(cells) != ncols)
            return bad(st, path, ri, "a row does not have one cell per column");
        int rc = tp_result_add_row(st, r, &row);
        for (size_t c = 0; c < ncols && rc == TP_OK; c++)
            rc = put_cell(st, r, row, (int)c, types[c], json_array_get(cells, c));
        if (rc == TP_EFORMAT)
            return bad(st, path, ri, "a cell does not match its column's type");
        if (rc != TP_OK)
            return rc;
    }
    return TP_OK;
}

static int read_result(tp_stage *st, const char *path, size_t ri, json_t *res)
{
    const char *id = json_string_value(json_object_get(res, "id"));
    json_t *cols = json_object_get(res, "columns"), *rows = json_object_get(res, "rows");
    json_t *meta = json_object_get(res, "meta");
    if (id == NULL || id[0] == '\0' || !json_is_array(cols) || !json_is_array(rows) ||
        (meta && !json_is_object(meta)))
        return bad(st, path, ri, "needs \"id\", \"columns\" and \"rows\"");
    tp_result *r = tp_result_new(st, id);
    tp_coltype *types = tp_calloc(json_array_size(cols) + 1, sizeof *types);
    if (r == NULL || types == NULL) {
        tp_free(types);
        return tp_fail(st, TP_ENOMEM, "%s: out of memory", path);
    }
    int rc = read_columns(st, path, ri, cols, r, types);
    const char *key;
    json_t *v;
    json_object_foreach(meta, key, v)
    {
        if (rc == TP_OK && json_is_string(v))
            rc = tp_result_set_meta(st, r, key, json_string_value(v));
    }
    if (rc == TP_OK)
        rc = read_rows(st, path, ri, rows, r, types, json_array_size(cols));
    tp_free(types);
    return rc;
}

typedef struct res_id {
    const char *id;
    size_t index;
} res_id;

static int by_id(const void *a, const void *b)
{
    const res_id *x = a, *y = b;
    int c = strcmp(x->id, y->id);
    return c ? c : (x->index > y->index) - (x->index < y->index);
}

/* Two results with one id would make one of them unreachable: refused,
 * naming both places (sorted, so a large file stays O(n log n)). */
static int check_unique_ids(tp_stage *st, const char *path, json_t *results)
{
    size_t n = json_array_size(results), m = 0;
    res_id *ids = tp_malloc((n ? n : 1) * sizeof *ids);
    if (ids == NULL)
        return tp_fail(st, TP_ENOMEM, "%s: out of memory", path);
    for (size_t i = 0; i < n; i++) {
        const char *id = json_string_value(json_object_get(json_array_get(results, i), "id"));
        if (id)
            ids[m++] = (res_id){id, i};
    }
    qsort(ids, m, sizeof *ids, by_id);
    int rc = TP_OK;
    for (size_t i = 1; i < m && rc == TP_OK; i++)
        if (strcmp(ids[i - 1].id, ids[i].id) == 0)
            rc = tp_fail(st, TP_EFORMAT, "%s: results[%zu]: id '%s' is also results[%zu]'s "
                         "(ids are unique)", path, ids[i].index, ids[i].id, ids[i - 1].index);
    tp_free(ids);
    return rc;
}

static int res_run(tp_stage *st, const void *config, void *state)
{
    const res_config *cfg = config;
    (void)state;
    json_error_t err;
    json_t *doc = json_load_file(cfg->path, JSON_REJECT_DUPLICATES, &err);
    if (doc == NULL)
        return tp_fail(st, TP_EFORMAT, "%s:%d:%d: %s", cfg->path, err.line, err.column, err.text);
    const char *format = json_string_value(json_object_get(doc, "format"));
    json_t *version = json_object_get(doc, "version"), *results = json_object_get(doc, "results");
    int rc = TP_OK;
    if (format == NULL || strcmp(format, "tracepipe-results") != 0 || !json_is_array(results))
        rc = tp_fail(st, TP_EFORMAT,
                     "%s: not a lossless result file (write it with `writer: json` and "
                     "lossless: true)", cfg->path);
    else if (json_integer_value(version) != 1)
        rc = tp_fail(st, TP_EFORMAT, "%s: result file version %lld; this reader reads 1",
                     cfg->path, (long long)json_integer_value(version));
    if (rc == TP_OK)
        rc = check_unique_ids(st, cfg->path, results);
    size_t i;
    json_t *res;
    json_array_foreach(results, i, res)
    {
        if (rc != TP_OK)
            break;
        rc = json_is_object(res) ? read_result(st, cfg->path, i, res)
                                 : bad(st, cfg->path, i, "not an object");
    }
    json_decref(doc);
    return rc;
}

static const tp_stage_desc res_stages[] = {
    TP_STAGE_FULL(TP_STAGE_READER, "results",
                  "result tables written by `writer: json` with lossless: true (no event trace)",
                  res_options, res_config, NULL, TP_PRODUCES("*"), TP_STAGE_F_NO_TRACE,
                  NULL, res_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("results", "0.1.0", res_stages);
