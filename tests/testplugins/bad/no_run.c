/* Test plugin: a stage without a run callback; refused. */
#include <tracepipe/tp_plugin.h>

typedef struct { int unused; } cfg_t;
static const tp_stage_desc stages[] = {
    TP_STAGE(TP_STAGE_ANALYSIS, "no_run_probe", "refused", NULL, cfg_t, NULL, NULL, NULL),
    TP_STAGE_END};
TP_PLUGIN_DEFINE("no_run", "0", stages);
