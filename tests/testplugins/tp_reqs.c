/*
 * Test plugin: a stage that requires two analyses (a requires list, ABI 3.4)
 * and declares its result; tests/unit/check_pipeline.c runs it.
 */
#include <tracepipe/tp_plugin.h>

typedef struct reqs_cfg {
    int unused;
} reqs_cfg;

/* Whether the first requirement's output is on the trace. */
#define REQS_COLS(X, P) X(P, hierarchy_ran, I64, NULL, "1 when hierarchy.main_tid is attached")
TP_COLUMNS(reqs, REQS_COLS);
static const tp_result_decl reqs_results[] = {
    TP_RESULT("", "table", reqs, "one row: what ran before this stage"), TP_RESULTS_END};

static int reqs_run(tp_stage *st, const void *config, void *state)
{
    (void)config;
    (void)state;
    size_t n = 0;
    const void *main_tid = tp_trace_attached(tp_stage_trace(st), "hierarchy.main_tid",
                                             TP_COL_I64, &n);
    tp_result *r = tp_result_declared(st, NULL);
    size_t row;
    if (r == NULL || tp_result_add_row(st, r, &row) != TP_OK)
        return TP_ENOMEM;
    return tp_result_set_i64(st, r, row, reqs_hierarchy_ran, main_tid != NULL && n == 1);
}

static const tp_stage_desc stages[] = {
    TP_STAGE_DECL_REQS(TP_STAGE_ANALYSIS, "reqs_probe", "requires hierarchy and trace_info",
                       NULL, reqs_cfg, TP_REQUIRES("hierarchy", "trace_info"), reqs_results,
                       NULL, 0, NULL, reqs_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("tp_reqs", "1.0", stages);
