/*
 * linear_model — an example third-party model for the analysis `predict`.
 *
 * A model registers itself for the ops it knows by filling the extension
 * column "predict.<model>" (F64, µs per call) on their rows; `predict`,
 * run after it, takes that prediction for those ops before its own models
 * and reports it under the model's name (docs/plugins.md, "A model for
 * predict").  This one predicts ops whose name starts with `prefix` as
 *
 *     base_us + us_per_melem * (elements of the first input) / 1e6
 *
 * (a fit of, say, a memory-bound op's time against its size).  It builds
 * against the installed headers and SDK alone:
 *
 *   cc -shared -fPIC -fvisibility=hidden $(pkg-config --cflags tracepipe) \
 *      -o linear_model.so linear_model.c $(pkg-config --libs tracepipe)
 *   pipeline run linear_model.yaml --plugin-dir .
 */
#include <string.h>

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_json.h>

typedef struct lm_config {
    const char *prefix;
    double base_us, us_per_melem;
} lm_config;

static const tp_option lm_options[] = {
    TP_OPTION_REQUIRED_STRING("prefix", lm_config, prefix, "op names this model predicts"),
    TP_OPTION_FLOAT("base_us", lm_config, base_us, "0", 0, 1e12, "time of an empty call (µs)"),
    TP_OPTION_FLOAT("us_per_melem", lm_config, us_per_melem, "1", 0, 1e12,
                    "µs per million elements of the first input"),
    TP_OPTION_END};

/* Elements of the first input in "Input Dims" ([[2048, 512], [512]]: 2048 * 512). */
static int first_input_elements(const char *args, size_t len, double *elems)
{
    size_t dlen, elen, xlen;
    const char *dims = tp_json_get(args, len, "Input Dims", &dlen), *first, *x;
    tp_json_iter outer, inner;
    if (dims == NULL || tp_json_array(dims, dlen, &outer) != TP_OK ||
        tp_json_next(&outer, &first, &elen) != 1 || tp_json_array(first, elen, &inner) != TP_OK)
        return 0;
    *elems = 1;
    int any = 0;
    while (tp_json_next(&inner, &x, &xlen) == 1) {
        int64_t d;
        if (tp_json_i64(x, xlen, &d) != TP_OK || d < 0)
            return 0;
        *elems *= (double)d;
        any = 1;
    }
    return any;
}

static int lm_run(tp_stage *st, const void *config, void *state)
{
    const lm_config *cfg = config;
    (void)state;
    tp_trace *t = tp_stage_trace(st);
    const tp_cols *c = tp_trace_cols(t);
    int col = tp_trace_ext_add(st, t, "predict.linear", TP_COL_F64);
    if (col < 0)
        return tp_fail(st, col, "cannot add the column predict.linear");
    size_t plen = strlen(cfg->prefix), n = 0;
    for (size_t row = 0; row < c->n; row++) {
        const char *name = tp_str_text(st, c->name[row]);
        size_t alen;
        const char *args;
        double elems;
        if (c->kind[row] != TP_KIND_CPU_OP || strncmp(name, cfg->prefix, plen) != 0 ||
            (args = tp_trace_args(t, row, &alen)) == NULL ||
            !first_input_elements(args, alen, &elems))
            continue;
        int rc = tp_trace_ext_set_f64(st, t, col, row,
                                      cfg->base_us + cfg->us_per_melem * elems / 1e6);
        if (rc != TP_OK)
            return rc;
        n++;
    }
    tp_log(st, TP_LOG_INFO, "predicts %zu calls of ops named %s*", n, cfg->prefix);
    return TP_OK;
}

static const tp_stage_desc lm_stages[] = {
    TP_STAGE(TP_STAGE_ANALYSIS, "linear_model", "example model for predict: base + size term",
             lm_options, lm_config, NULL, lm_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("linear_model", "0.1.0", lm_stages);
