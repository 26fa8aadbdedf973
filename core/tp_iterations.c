/*
 * Iterations, set once per pipeline: the top-level `iterations:` mapping
 * (marker, source, skip_first, skip_last, preset: an engine's serving steps
 * from the SDK's table, tp_sdk_serving.h) is validated like a stage's
 * options, its marker compiled once to report a bad regex at its line, and
 * the result handed to every stage (tp_host_api.iterations).  The SDK's
 * iteration view computes the iterations themselves, once per trace.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "tp_iterations.h"
#include "tp_pipeline.h"

#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_sdk_serving.h>

typedef struct iter_opts {
    const char *marker;
    int source; /* index in source_names = tp_iter_source */
    int64_t skip_first, skip_last;
    int preset; /* index in preset_names: 0 none, else an SDK serving preset */
} iter_opts;

static const char *const source_names[] = {"host", "gpu_annotation", "range", NULL};
/* the SDK's serving presets (tp_sdk_serving.h), by name */
static const char *const preset_names[] = {"none", "vllm", "sglang", "phases", NULL};

static const tp_option iter_options[] = {
    TP_OPTION_STRING("marker", iter_opts, marker, TP_ITER_DEFAULT_MARKER,
                     "regex (Python syntax, searched) naming the events that mark iterations"),
    TP_OPTION_ENUM("source", iter_opts, source, "host", source_names,
                   "where markers are: host events, GPU annotations, or async ranges (b/e)"),
    TP_OPTION_INT("skip_first", iter_opts, skip_first, "0", 0, 1e6,
                  "iterations left out of per-iteration statistics at the start (warm-up)"),
    TP_OPTION_INT("skip_last", iter_opts, skip_last, "0", 0, 1e6,
                  "iterations left out of per-iteration statistics at the end"),
    TP_OPTION_ENUM("preset", iter_opts, preset, "none", preset_names,
                   "an engine's serving steps are the iterations (vllm, sglang, phases: the "
                   "step annotations of docs/plugins/inference_steps.md); instead of marker"),
    TP_OPTION_END};

/* The marker in force: the preset's step annotations, else marker. */
static const char *marker_of(const iter_opts *o)
{
    const tp_serving_preset *p = o->preset ? tp_serving_preset_find(preset_names[o->preset]) : NULL;
    return p ? p->marker : o->marker;
}

const tp_option *tp_iter_config_options(void) { return iter_options; }

/* The marker as PCRE2 will see it: a pattern that does not compile is
 * refused here, at its line, before any trace is read. */
static int check_marker(const char *marker, const tp_ynode *node, const char *file, tp_diags *d)
{
    int err;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)marker, PCRE2_ZERO_TERMINATED,
                                   PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &err, &off,
                                   NULL);
    if (re != NULL) {
        pcre2_code_free(re);
        return TP_OK;
    }
    PCRE2_UCHAR text[256];
    pcre2_get_error_message(err, text, sizeof text);
    const tp_ynode *at = node ? tp_ymap_get(node, "marker") : NULL;
    tp_diags_add(d, file, at ? at->line : 0, at ? at->col : 0,
                 "error: iterations: marker: bad regex '%s': %s at offset %zu", marker,
                 (const char *)text, (size_t)off);
    return TP_EINVAL;
}

int tp_iter_config_load(tp_iter_config *c, const tp_ynode *node, const char *file, tp_diags *d)
{
    memset(c, 0, sizeof *c);
    static const tp_ynode empty = {.type = TP_YNODE_MAP};
    if (node != NULL && node->type != TP_YNODE_MAP) {
        tp_diags_add(d, file, node->line, node->col,
                     "error: iterations must be a mapping (marker, source, skip_first, "
                     "skip_last)");
        return TP_EINVAL;
    }
    static const char *const none[] = {NULL};
    iter_opts *o = tp_options_build(iter_options, sizeof *o, node ? node : &empty, none, file,
                                    "iterations", d);
    if (o == NULL)
        return TP_EINVAL;
    c->opts = o;
    if (o->preset && (tp_ymap_get(node, "marker") != NULL ||
                      !tp_serving_preset_find(preset_names[o->preset]))) {
        const tp_ynode *at = tp_ymap_get(node, "preset");
        tp_diags_add(d, file, at->line, at->col,
                     tp_ymap_get(node, "marker")
                         ? "error: iterations: preset: give a preset or a marker, not both"
                         : "error: iterations: preset: not a preset of the SDK");
        return TP_EINVAL;
    }
    c->pub.struct_size = (uint32_t)sizeof c->pub;
    c->pub.marker = marker_of(o);
    c->pub.source = (tp_iter_source)o->source;
    c->pub.skip_first = (uint32_t)o->skip_first;
    c->pub.skip_last = (uint32_t)o->skip_last;
    c->pub.from_pipeline = node != NULL;
    return check_marker(c->pub.marker, node, file, d);
}

void tp_iter_config_free(tp_iter_config *c)
{
    if (c->opts)
        tp_options_free(iter_options, c->opts);
    memset(c, 0, sizeof *c);
}

int tp_iter_config_clone(tp_iter_config *dst, const tp_iter_config *src)
{
    *dst = *src;
    if (src->opts == NULL)
        return TP_OK;
    iter_opts *o = tp_options_clone(iter_options, sizeof *o, src->opts, NULL, NULL);
    if (o == NULL) {
        memset(dst, 0, sizeof *dst);
        return TP_ENOMEM;
    }
    dst->opts = o;
    dst->pub.marker = marker_of(o);
    return TP_OK;
}

/* host_api.iterations: the run's pipeline settings, or the defaults for a
 * stage run without a pipeline (tests). */
const tp_iter_settings *tp_host_iterations(tp_stage *st)
{
    static const tp_iter_settings defaults = {sizeof(tp_iter_settings), TP_ITER_DEFAULT_MARKER,
                                              TP_ITER_SOURCE_HOST, 0, 0, 0};
    if (st && st->run && st->run->pipeline && st->run->pipeline->iter.opts)
        return &st->run->pipeline->iter.pub;
    return &defaults;
}
