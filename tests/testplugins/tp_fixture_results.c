/*
 * Test-only analysis `fixture_results`: makes one known result table, with
 * no trace needed, so writer tests need no reader.  Option `shape`:
 *
 *   tree   the host-breakdown tree shape (id, parent_id, depth, name,
 *          time_us, percent_of_parent, percent_of_total, count), one root,
 *          meta kind=tree, title "Fixture tree"
 *   flat   the stream table shape (device, stream, span_us, active_us,
 *          idle_us, active_percent), 2 rows, a null, floats needing 17
 *          digits, an integer above 2^53; meta title "Fixture streams"
 *   odd    a tree without title whose names hold quotes, commas, CR/LF,
 *          UTF-8, an invalid byte, a 100-character name and a null name
 *   empty  columns name (str), value (f64) and no rows
 *   names  a flat table with text: name (str), count (i64), share (f64),
 *          rows ("aten::mm", 3, 0.5), ("\u00b5s \u2713", null, 12.25),
 *          (null, 10, null)
 *   forest two roots, no title: ("stream 7", 30 us) with child ("gemm",
 *          20 us, count 2), then ("all streams", 100 us)
 *   badtree  a tree whose first row names a later row as its parent
 *
 * The values are spelled out in tests/plugins/check_{csv,json,text}.c.
 */
#include <string.h>

#include <tracepipe/tp_plugin.h>

typedef struct fx_config {
    const char *shape;
} fx_config;

static const char *const fx_shapes[] = { "tree", "flat", "odd", "empty", "names", "forest", "badtree", NULL };

static const tp_option fx_options[] = {
    TP_OPTION_CHOICE("shape", fx_config, shape, "tree", fx_shapes, "which table to make"),
    TP_OPTION_END
};

#define FX_NULL_I (INT64_MIN)      /* marks a null integer cell below */
#define FX_NULL_F (-1e308)         /* marks a null float cell below */

/* One row of a tree-shaped table. */
typedef struct fx_node {
    int64_t id, parent, depth;
    const char *name;
    double time, pct_parent, pct_total;
    int64_t count;
} fx_node;

static const char *const fx_tree_cols[] = { "id", "parent_id", "depth", "name", "time_us",
                                            "percent_of_parent", "percent_of_total", "count" };
static const tp_coltype fx_tree_types[] = { TP_COL_I64, TP_COL_I64, TP_COL_I64, TP_COL_STR,
                                            TP_COL_F64, TP_COL_F64, TP_COL_F64, TP_COL_I64 };

static const fx_node fx_tree_rows[] = {
    { 0, FX_NULL_I, 0, "Host runtime", 1000.0, 100.0, 100.0, FX_NULL_I },
    { 1, 0, 1, "forward", 600.0, 60.0, 60.0, 2 },
    { 2, 1, 2, "aten::mm", 45.5, 7.583333333333333, 4.55, 4 },
    { 3, 1, 2, "Unaccounted", 554.5, 92.41666666666667, 55.45, FX_NULL_I },
    { 4, 0, 1, "backward", 300.0, 30.0, 30.0, 1 },
    { 5, 0, 1, "Unaccounted", 100.0, 10.0, 10.0, FX_NULL_I },
};

#define FX_X10 "xxxxxxxxxx"
#define FX_LONG_NAME /* 100 characters */ \
    FX_X10 FX_X10 FX_X10 FX_X10 FX_X10 FX_X10 FX_X10 FX_X10 FX_X10 FX_X10

static const fx_node fx_odd_rows[] = {
    { 10, FX_NULL_I, 0, "say \"hi\", ok", 2.0, FX_NULL_F, FX_NULL_F, FX_NULL_I },
    { 11, 10, 1, "line1\nline2\r", FX_NULL_F, FX_NULL_F, FX_NULL_F, 3 },
    { 12, 11, 2, "\xc2\xb5s na\xc3\xafve \xe2\x9c\x93", 0.5, 25.0, 25.0, FX_NULL_I },
    { 13, 10, 1, FX_LONG_NAME, 1.5, 75.0, 75.0, 1 },
    { 14, 10, 1, NULL, FX_NULL_F, FX_NULL_F, FX_NULL_F, FX_NULL_I },
    { 15, 10, 1, "bad\xff", 0.0, 0.0, 0.0, 0 },
};

static const fx_node fx_forest_rows[] = {
    { 1, FX_NULL_I, 0, "stream 7", 30.0, 100.0, 30.0, FX_NULL_I },
    { 2, 1, 1, "gemm", 20.0, 66.66666666666667, 20.0, 2 },
    { 3, FX_NULL_I, 0, "all streams", 100.0, 100.0, 100.0, FX_NULL_I },
};

static const fx_node fx_bad_rows[] = {
    { 1, 2, 1, "child", 1.0, 50.0, 50.0, 1 },
    { 2, FX_NULL_I, 0, "root", 2.0, 100.0, 100.0, 1 },
};

static int fx_set_i(tp_stage *st, tp_result *r, size_t row, int col, int64_t v)
{
    return v == FX_NULL_I ? TP_OK : tp_result_set_i64(st, r, row, col, v);
}

static int fx_set_f(tp_stage *st, tp_result *r, size_t row, int col, double v)
{
    return v == FX_NULL_F ? TP_OK : tp_result_set_f64(st, r, row, col, v);
}

static int fx_add_cols(tp_stage *st, tp_result *r, const char *const *names,
                       const tp_coltype *types, int n)
{
    for (int c = 0; c < n; c++)
        if (tp_result_add_col(st, r, names[c], types[c]) != c)
            return tp_fail(st, TP_ERR, "cannot add column %s", names[c]);
    return TP_OK;
}

static int fx_tree(tp_stage *st, tp_result *r, const fx_node *rows, size_t n)
{
    int rc = fx_add_cols(st, r, fx_tree_cols, fx_tree_types, 8);

    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        const fx_node *x = &rows[i];
        size_t row;
        rc = tp_result_add_row(st, r, &row);
        if (rc == TP_OK)
            rc = fx_set_i(st, r, row, 0, x->id);
        if (rc == TP_OK)
            rc = fx_set_i(st, r, row, 1, x->parent);
        if (rc == TP_OK)
            rc = fx_set_i(st, r, row, 2, x->depth);
        if (rc == TP_OK && x->name)
            rc = tp_result_set_str(st, r, row, 3, x->name);
        if (rc == TP_OK)
            rc = fx_set_f(st, r, row, 4, x->time);
        if (rc == TP_OK)
            rc = fx_set_f(st, r, row, 5, x->pct_parent);
        if (rc == TP_OK)
            rc = fx_set_f(st, r, row, 6, x->pct_total);
        if (rc == TP_OK)
            rc = fx_set_i(st, r, row, 7, x->count);
    }
    if (rc == TP_OK)
        rc = tp_result_set_meta(st, r, "kind", "tree");
    return rc;
}

static int fx_flat(tp_stage *st, tp_result *r)
{
    static const char *const names[] = { "device", "stream", "span_us",
                                         "active_us", "idle_us", "active_percent" };
    static const tp_coltype types[] = { TP_COL_I64, TP_COL_I64, TP_COL_F64,
                                        TP_COL_F64, TP_COL_F64, TP_COL_F64 };
    size_t row;
    int rc = fx_add_cols(st, r, names, types, 6);

    if (rc == TP_OK)
        rc = tp_result_add_row(st, r, &row);
    if (rc == TP_OK) {
        tp_result_set_i64(st, r, row, 0, 0);
        tp_result_set_i64(st, r, row, 1, 7);
        tp_result_set_f64(st, r, row, 2, 1000.0);
        tp_result_set_f64(st, r, row, 3, 250.5);
        tp_result_set_f64(st, r, row, 4, 749.5);
        rc = tp_result_set_f64(st, r, row, 5, 25.05);
    }
    if (rc == TP_OK)
        rc = tp_result_add_row(st, r, &row);
    if (rc == TP_OK) { /* idle_us stays null */
        tp_result_set_i64(st, r, row, 0, INT64_C(9007199254740993));
        tp_result_set_i64(st, r, row, 1, -1);
        tp_result_set_f64(st, r, row, 2, 0.1 + 0.2);
        tp_result_set_f64(st, r, row, 3, 1e-7);
        rc = tp_result_set_f64(st, r, row, 5, 100.0 / 3.0);
    }
    if (rc == TP_OK)
        rc = tp_result_set_meta(st, r, "title", "Fixture streams");
    return rc;
}

static int fx_names(tp_stage *st, tp_result *r)
{
    static const char *const names[] = { "name", "count", "share" };
    static const tp_coltype types[] = { TP_COL_STR, TP_COL_I64, TP_COL_F64 };
    size_t row;
    int rc = fx_add_cols(st, r, names, types, 3);

    if (rc == TP_OK)
        rc = tp_result_add_row(st, r, &row);
    if (rc == TP_OK) {
        tp_result_set_str(st, r, row, 0, "aten::mm");
        tp_result_set_i64(st, r, row, 1, 3);
        rc = tp_result_set_f64(st, r, row, 2, 0.5);
    }
    if (rc == TP_OK)
        rc = tp_result_add_row(st, r, &row);
    if (rc == TP_OK) {
        tp_result_set_str(st, r, row, 0, "\xc2\xb5s \xe2\x9c\x93");
        rc = tp_result_set_f64(st, r, row, 2, 12.25);
    }
    if (rc == TP_OK)
        rc = tp_result_add_row(st, r, &row);
    if (rc == TP_OK)
        rc = tp_result_set_i64(st, r, row, 1, 10);
    return rc;
}

static int fx_run(tp_stage *st, const void *config, void *state)
{
    const fx_config *cfg = config;
    tp_result *r = tp_result_new(st, NULL);
    (void)state;

    if (!r)
        return tp_fail(st, TP_ENOMEM, "cannot make a result");
    if (strcmp(cfg->shape, "tree") == 0) {
        int rc = fx_tree(st, r, fx_tree_rows, sizeof fx_tree_rows / sizeof fx_tree_rows[0]);
        return rc == TP_OK ? tp_result_set_meta(st, r, "title", "Fixture tree") : rc;
    }
    if (strcmp(cfg->shape, "odd") == 0)
        return fx_tree(st, r, fx_odd_rows, sizeof fx_odd_rows / sizeof fx_odd_rows[0]);
    if (strcmp(cfg->shape, "forest") == 0)
        return fx_tree(st, r, fx_forest_rows, sizeof fx_forest_rows / sizeof fx_forest_rows[0]);
    if (strcmp(cfg->shape, "badtree") == 0)
        return fx_tree(st, r, fx_bad_rows, sizeof fx_bad_rows / sizeof fx_bad_rows[0]);
    if (strcmp(cfg->shape, "flat") == 0)
        return fx_flat(st, r);
    if (strcmp(cfg->shape, "names") == 0)
        return fx_names(st, r);
    if (tp_result_add_col(st, r, "name", TP_COL_STR) < 0 ||
        tp_result_add_col(st, r, "value", TP_COL_F64) < 0)
        return tp_fail(st, TP_ERR, "cannot add columns");
    return TP_OK;
}

static const tp_stage_desc fx_stages[] = {
    TP_STAGE(TP_STAGE_ANALYSIS, "fixture_results", "test-only: known result tables", fx_options,
             fx_config, NULL, fx_run, NULL),
    TP_STAGE_END
};

TP_PLUGIN_DEFINE("tp_fixture_results", "0.1.0", fx_stages);
