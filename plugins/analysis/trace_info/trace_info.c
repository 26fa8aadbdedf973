/*
 * analysis `trace_info`: what a trace says about itself, as a table of
 * key, value: the trace info its reader filled (format, label, rank,
 * world_size, device.<n>.*), then `events` (the row count), `tracks`, and
 * one `column.<name>` row per extension column (its type).  Run it with
 * `trace: ID` to describe one of several traces.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <tracepipe/tp_plugin.h>

typedef struct ti_config {
    int unused;
} ti_config;

/* <id>: one row per fact, both cells text (numbers printed). */
#define TI_COLS(X, P)                                                                          \
    X(P, key, STR, NULL,                                                                       \
      "trace (the reader stage's id), each trace-info key its reader set (format, rank, "      \
      "device.N.name ...), events, tracks, column.NAME")                                   \
    X(P, value, STR, NULL,                                                                     \
      "the value as text: integers in decimal, doubles to 17 significant digits, a "          \
      "column's type (int32, int64, double, string)")
TP_COLUMNS(ti_main, TI_COLS);

static const tp_result_decl ti_results[] = {
    TP_RESULT("", "table", ti_main, "one row per fact the trace states about itself, in order"),
    TP_RESULTS_END};

static const char *type_text(tp_coltype type)
{
    switch (type) {
    case TP_COL_STR:
        return "text";
    case TP_COL_I64:
        return "int64";
    case TP_COL_F64:
        return "double";
    case TP_COL_I32:
        return "int32";
    case TP_COL_SID:
        return "string";
    }
    return "?";
}

static int add_row(tp_stage *st, tp_result *r, const char *key, const char *value)
{
    size_t row;
    int rc = tp_result_add_row(st, r, &row);
    if (rc == TP_OK)
        rc = tp_result_set_str(st, r, row, ti_main_key, key);
    if (rc == TP_OK)
        rc = tp_result_set_str(st, r, row, ti_main_value, value);
    return rc;
}

static int info_row(tp_stage *st, tp_result *r, const tp_trace *t, const char *key)
{
    char buf[64];
    int64_t i;
    double f;
    switch (tp_trace_info_type(t, key)) {
    case TP_COL_STR:
        return add_row(st, r, key, tp_trace_info_str(t, key));
    case TP_COL_I64:
        tp_trace_info_i64(t, key, &i);
        snprintf(buf, sizeof buf, "%" PRId64, i);
        return add_row(st, r, key, buf);
    case TP_COL_F64:
        tp_trace_info_f64(t, key, &f);
        snprintf(buf, sizeof buf, "%.17g", f);
        return add_row(st, r, key, buf);
    case TP_COL_I32:
    case TP_COL_SID:
        break;
    }
    return TP_OK;
}

static int ti_run(tp_stage *st, const void *config, void *state)
{
    (void)config, (void)state;
    const tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    tp_result *r = tp_result_declared(st, NULL);
    if (r == NULL)
        return TP_ENOMEM;
    int rc = add_row(st, r, "trace", tp_trace_id(t));
    for (size_t k = 0; rc == TP_OK && k < tp_trace_info_count(t); k++)
        rc = info_row(st, r, t, tp_trace_info_key(t, k));
    const tp_cols *c = tp_trace_cols(t);
    char buf[64];
    snprintf(buf, sizeof buf, "%zu", c->n);
    if (rc == TP_OK)
        rc = add_row(st, r, "events", buf);
    snprintf(buf, sizeof buf, "%zu", c->n_tracks);
    if (rc == TP_OK)
        rc = add_row(st, r, "tracks", buf);
    for (size_t k = 0; rc == TP_OK && k < tp_trace_ext_count(t); k++) {
        char key[300];
        snprintf(key, sizeof key, "column.%s", tp_trace_ext_name(t, (int)k));
        rc = add_row(st, r, key, type_text(tp_trace_ext_type(t, (int)k)));
    }
    return rc;
}

static const tp_stage_desc ti_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "trace_info",
                  "what a trace says about itself: format, rank, devices, events, columns",
                  NULL, ti_config, NULL, ti_results, NULL, 0, NULL, ti_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("trace_info", "0.1.0", ti_stages);
