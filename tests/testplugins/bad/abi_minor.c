/* Test plugin: built against a newer minor than the core has; refused. */
#include <tracepipe/tp_plugin.h>

static int run(tp_stage *st, const void *cfg, void *state)
{
    (void)st, (void)cfg, (void)state;
    return TP_OK;
}
typedef struct { int unused; } cfg_t;
static const tp_stage_desc stages[] = {
    TP_STAGE(TP_STAGE_ANALYSIS, "abi_minor_probe", "refused", NULL, cfg_t, NULL, run, NULL),
    TP_STAGE_END};
TP_HIDDEN const tp_host_api *tp_host;
static void bind(const tp_host_api *api) { tp_host = api; }
TP_EXPORT extern const tp_plugin_desc tp_plugin_descriptor;
const tp_plugin_desc tp_plugin_descriptor = {TP_ABI_MAJOR, TP_ABI_MINOR + 1,
                                             sizeof(tp_plugin_desc), "abi_minor", "0", bind,
                                             stages, {NULL, NULL, NULL, NULL}};
