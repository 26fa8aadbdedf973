/*
 * Test plugin built against a deliberately older (smaller) 3.x layout: its
 * descriptor, stage entries and option entries stop where the first 3.0
 * fields end (no produces/flags/option_size/reserved).  The loader must read
 * them with the declared sizes, see the fields they predate as zero, and run
 * the stage: `old_probe` echoes its two options as a one-row result.
 */
#include <stddef.h>
#include <tracepipe/tp_plugin.h>

/* tp_option as far as TP_OPTION_MIN_SIZE */
typedef struct old_option {
    const char *name;
    tp_opt_type type;
    unsigned flags;
    size_t offset;
    const char *def;
    double min, max;
    const char *const *choices;
    const char *help;
} old_option;

/* tp_stage_desc as far as TP_STAGE_DESC_MIN_SIZE */
typedef struct old_stage_desc {
    uint32_t struct_size;
    tp_stage_kind kind;
    const char *name;
    const char *summary;
    const old_option *options;
    size_t config_size;
    const char *requires;
    int (*init)(tp_stage *st, const void *config, void **state);
    int (*run)(tp_stage *st, const void *config, void *state);
    void (*destroy)(tp_stage *st, void *state);
} old_stage_desc;

/* tp_plugin_desc as far as TP_PLUGIN_DESC_MIN_SIZE */
typedef struct old_plugin_desc {
    uint16_t abi_major, abi_minor;
    uint32_t struct_size;
    const char *name, *version;
    void (*bind)(const tp_host_api *api);
    const old_stage_desc *stages;
} old_plugin_desc;

_Static_assert(sizeof(old_option) == TP_OPTION_MIN_SIZE && sizeof(old_option) < sizeof(tp_option),
               "old_option is the 3.0 prefix of tp_option");
_Static_assert(sizeof(old_stage_desc) == TP_STAGE_DESC_MIN_SIZE &&
                   sizeof(old_stage_desc) < sizeof(tp_stage_desc),
               "old_stage_desc is the 3.0 prefix of tp_stage_desc");
_Static_assert(sizeof(old_plugin_desc) == TP_PLUGIN_DESC_MIN_SIZE &&
                   sizeof(old_plugin_desc) < sizeof(tp_plugin_desc),
               "old_plugin_desc is the 3.0 prefix of tp_plugin_desc");

typedef struct old_cfg {
    int64_t count;
    const char *label;
} old_cfg;

static const old_option options[] = {
    {"count", TP_OPT_INT, TP_OPT_RANGE, offsetof(old_cfg, count), "7", 0, 100, NULL, "an integer"},
    {"label", TP_OPT_STRING, 0, offsetof(old_cfg, label), "old", 0, 0, NULL, "a string"},
    {NULL, (tp_opt_type)0, 0, 0, NULL, 0, 0, NULL, NULL}};

static int old_run(tp_stage *st, const void *config, void *state)
{
    const old_cfg *c = config;
    (void)state;
    tp_result *r = tp_result_new(st, NULL);
    size_t row;
    if (r == NULL || tp_result_add_row(st, r, &row) != TP_OK)
        return tp_fail(st, TP_ENOMEM, "no memory");
    int cc = tp_result_add_col(st, r, "count", TP_COL_I64);
    int cl = tp_result_add_col(st, r, "label", TP_COL_STR);
    if (tp_result_set_i64(st, r, row, cc, c->count) != TP_OK ||
        tp_result_set_str(st, r, row, cl, c->label) != TP_OK)
        return tp_fail(st, TP_ENOMEM, "no memory");
    return TP_OK;
}

static int noop_run(tp_stage *st, const void *config, void *state)
{
    (void)st, (void)config, (void)state;
    return TP_OK;
}

static const old_stage_desc stages[] = {
    {sizeof(old_stage_desc), TP_STAGE_ANALYSIS, "old_probe", "built against a smaller layout",
     options, sizeof(old_cfg), NULL, NULL, old_run, NULL},
    {sizeof(old_stage_desc), TP_STAGE_ANALYSIS, "old_probe2", "a second entry (stride check)",
     NULL, sizeof(old_cfg), NULL, NULL, noop_run, NULL},
    {sizeof(old_stage_desc), (tp_stage_kind)0, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL}};

TP_HIDDEN const tp_host_api *tp_host;
static void bind_host(const tp_host_api *api) { tp_host = api; }
TP_EXPORT extern const old_plugin_desc tp_plugin_descriptor;
const old_plugin_desc tp_plugin_descriptor = {TP_ABI_MAJOR, 0, sizeof(old_plugin_desc),
                                              "tp_old_layout", "1.0", bind_host, stages};
