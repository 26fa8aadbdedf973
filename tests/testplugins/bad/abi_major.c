/* Test plugin: claims ABI major TP_ABI_MAJOR + 1; the loader must refuse it. */
#include <tracepipe/tp_plugin.h>

static int run(tp_stage *st, const void *cfg, void *state)
{
    (void)st, (void)cfg, (void)state;
    return TP_OK;
}
typedef struct { int unused; } cfg_t;
static const tp_stage_desc stages[] = {
    TP_STAGE(TP_STAGE_ANALYSIS, "abi_major_probe", "refused", NULL, cfg_t, NULL, run, NULL),
    TP_STAGE_END};
TP_HIDDEN const tp_host_api *tp_host;
static void bind(const tp_host_api *api) { tp_host = api; }
TP_EXPORT extern const tp_plugin_desc tp_plugin_descriptor;
const tp_plugin_desc tp_plugin_descriptor = {TP_ABI_MAJOR + 1, 0, sizeof(tp_plugin_desc),
                                             "abi_major", "0", bind, stages, {NULL, NULL, NULL, NULL}};
