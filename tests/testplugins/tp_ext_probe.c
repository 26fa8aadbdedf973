/*
 * Test plugin for the ABI 3.0 trace parts (tests/unit/check_traces.c):
 *   ext_probe    adds extension columns and trace info, and a "series"
 *                result with a unit
 *   clip_probe   a filter keeping odd rows and cutting each complete event
 *                of 2 ns or more by 1 ns at both ends
 *   pair_probe   takes several traces (`trace: [a, b]`): one row per trace
 */
#include <tracepipe/tp_plugin.h>

typedef struct no_cfg {
    int unused;
} no_cfg;

static int ext_run(tp_stage *st, const void *config, void *state)
{
    (void)config, (void)state;
    tp_trace *t = tp_stage_trace(st);
    size_t n = tp_trace_cols(t)->n;
    int c_row = tp_trace_ext_add(st, t, "probe.row10", TP_COL_I64);
    int c_half = tp_trace_ext_add(st, t, "probe.half", TP_COL_F64);
    int c_name = tp_trace_ext_add(st, t, "probe.name", TP_COL_SID);
    int c_small = tp_trace_ext_add(st, t, "probe.small", TP_COL_I32);
    if (c_row < 0 || c_half < 0 || c_name < 0 || c_small < 0)
        return TP_EINVAL;
    const tp_cols *c = tp_trace_cols(t);
    for (size_t i = 0; i < n; i++) {
        int rc = tp_trace_ext_set_i64(st, t, c_row, i, (int64_t)i * 10);
        if (rc == TP_OK && i % 2 == 0)
            rc = tp_trace_ext_set_f64(st, t, c_half, i, (double)i / 2.0);
        if (rc == TP_OK)
            rc = tp_trace_ext_set_sid(st, t, c_name, i, c->name[i]);
        if (rc == TP_OK && i < 3)
            rc = tp_trace_ext_set_i32(st, t, c_small, i, (int32_t)i);
        if (rc != TP_OK)
            return rc;
    }
    if (tp_trace_info_set_i64(st, t, "probe.rows", (int64_t)n) != TP_OK ||
        tp_trace_info_set_f64(st, t, "probe.ratio", 0.5) != TP_OK)
        return TP_ENOMEM;
    tp_result *r = tp_result_new(st, "series");
    size_t row;
    if (r == NULL || tp_result_add_col(st, r, "value", TP_COL_I64) != 0 ||
        tp_result_add_row(st, r, &row) != TP_OK || tp_result_set_i64(st, r, row, 0, 7) != TP_OK ||
        tp_result_set_kind(st, r, "series") != TP_OK ||
        tp_result_set_unit(st, r, 0, "us") != TP_OK)
        return TP_EINVAL;
    return TP_OK;
}

static int clip_run(tp_stage *st, const void *config, void *state)
{
    (void)config, (void)state;
    const tp_cols *c = tp_trace_cols(tp_stage_trace(st));
    uint8_t *keep = tp_keep_mask(st);
    for (size_t i = 0; i < c->n; i++) {
        keep[i] = i % 2 == 1;
        if (keep[i] && c->phase[i] == 'X' && c->dur[i] >= 2) {
            int rc = tp_clip(st, i, c->ts[i] + 1, c->dur[i] - 2);
            if (rc != TP_OK)
                return rc;
        }
    }
    return TP_OK;
}

static int pair_run(tp_stage *st, const void *config, void *state)
{
    (void)config, (void)state;
    tp_result *r = tp_result_new(st, NULL);
    if (r == NULL || tp_result_add_col(st, r, "trace", TP_COL_STR) != 0 ||
        tp_result_add_col(st, r, "events", TP_COL_I64) != 1)
        return TP_ENOMEM;
    for (size_t i = 0; i < tp_stage_trace_count(st); i++) {
        const tp_trace *t = tp_stage_trace_at(st, i);
        size_t row;
        if (tp_result_add_row(st, r, &row) != TP_OK ||
            tp_result_set_str(st, r, row, 0, tp_trace_id(t)) != TP_OK ||
            tp_result_set_i64(st, r, row, 1, (int64_t)tp_trace_cols(t)->n) != TP_OK)
            return TP_ENOMEM;
    }
    return TP_OK;
}

static const tp_stage_desc stages[] = {
    TP_STAGE_FULL(TP_STAGE_ANALYSIS, "ext_probe", "adds extension columns and trace info", NULL,
                  no_cfg, NULL, TP_PRODUCES("series"), 0, NULL, ext_run, NULL),
    TP_STAGE_FULL(TP_STAGE_FILTER, "clip_probe", "keeps odd rows, cut by 1 ns at both ends",
                  NULL, no_cfg, NULL, TP_PRODUCES_NONE, 0, NULL, clip_run, NULL),
    TP_STAGE_FULL(TP_STAGE_ANALYSIS, "pair_probe", "one row per trace it is given", NULL, no_cfg,
                  NULL, TP_PRODUCES(""), TP_STAGE_F_TRACES, NULL, pair_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("tp_ext_probe", "1.0", stages);
