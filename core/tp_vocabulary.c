/*
 * The vocabulary's additions, set once per pipeline: the top-level
 * `vocabulary:` mapping (launch_apis, collectives, memory, annotations,
 * modules: lists of rules) is validated like a stage's options, each rule
 * parsed by the SDK's own parser to report a bad one at its line, and the
 * result handed to every stage (tp_host_api.vocabulary).
 */
#include "tp_vocabulary.h"
#include "tp_pipeline.h"

#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_sdk_vocab.h>

typedef struct vocab_opts {
    tp_strlist launch_apis, collectives, memory, annotations, modules;
} vocab_opts;

static const tp_option vocab_options[] = {
    TP_OPTION_LIST("launch_apis", vocab_opts, launch_apis,
                   "more launch APIs, WHAT=GLOB each (WHAT: kernel, memcpy, memset, graph, sync, "
                   "host_func)"),
    TP_OPTION_LIST("collectives", vocab_opts, collectives,
                   "more collective kernels, GLOB or TYPE=GLOB each (TYPE: all_reduce, "
                   "all_gather, reduce_scatter, all_to_all, broadcast, reduce, send_recv, other)"),
    TP_OPTION_LIST("memory", vocab_opts, memory,
                   "more memory activities, GLOB or WHAT=GLOB each (WHAT: memcpy, memset)"),
    TP_OPTION_LIST("annotations", vocab_opts, annotations,
                   "more annotation categories, SIDE=GLOB each (SIDE: host, gpu)"),
    TP_OPTION_LIST("modules", vocab_opts, modules,
                   "more name prefixes of modules (containers, never ops)"),
    TP_OPTION_END};

/* The lists in tp_vocab_table order. */
static const tp_strlist *list_of(const vocab_opts *o, int t)
{
    const tp_strlist *lists[TP_VOCAB__COUNT] = {&o->launch_apis, &o->collectives, &o->memory,
                                                &o->annotations, &o->modules};
    return lists[t];
}

/* Each item of each list through the SDK's parser; a refusal is reported
 * at the item's place. */
static int check_rules(const vocab_opts *o, const tp_ynode *node, const char *file, tp_diags *d)
{
    int rc = TP_OK;
    for (int t = 0; t < TP_VOCAB__COUNT; t++) {
        const tp_ynode *list = tp_ymap_get(node, tp_vocab_table_name((tp_vocab_table)t));
        const tp_strlist *items = list_of(o, t);
        for (size_t i = 0; i < items->n; i++) {
            tp_vocab_rule rule;
            const char *why = tp_vocab_parse_rule((tp_vocab_table)t, items->items[i], &rule);
            if (why == NULL)
                continue;
            const tp_ynode *at = list && list->type == TP_YNODE_SEQ && i < list->n ? list->items[i]
                                                                                : list;
            tp_diags_add(d, file, at ? at->line : 0, at ? at->col : 0,
                         "error: vocabulary: %s: '%s': %s", tp_vocab_table_name((tp_vocab_table)t),
                         items->items[i], why);
            rc = TP_EINVAL;
        }
    }
    return rc;
}

static void publish(tp_vocab_config *c, vocab_opts *o, int from_pipeline)
{
    c->opts = o;
    c->pub.struct_size = (uint32_t)sizeof c->pub;
    c->pub.launch_apis = o->launch_apis;
    c->pub.collectives = o->collectives;
    c->pub.memory = o->memory;
    c->pub.annotations = o->annotations;
    c->pub.modules = o->modules;
    c->pub.from_pipeline = (uint32_t)from_pipeline;
}

int tp_vocab_config_load(tp_vocab_config *c, const tp_ynode *node, const char *file, tp_diags *d)
{
    memset(c, 0, sizeof *c);
    if (node == NULL)
        return TP_OK;
    if (node->type != TP_YNODE_MAP) {
        tp_diags_add(d, file, node->line, node->col,
                     "error: vocabulary must be a mapping (launch_apis, collectives, memory, "
                     "annotations, modules)");
        return TP_EINVAL;
    }
    static const char *const none[] = {NULL};
    vocab_opts *o = tp_options_build(vocab_options, sizeof *o, node, none, file, "vocabulary", d);
    if (o == NULL)
        return TP_EINVAL;
    publish(c, o, 1);
    return check_rules(o, node, file, d);
}

void tp_vocab_config_free(tp_vocab_config *c)
{
    if (c->opts)
        tp_options_free(vocab_options, c->opts);
    memset(c, 0, sizeof *c);
}

int tp_vocab_config_clone(tp_vocab_config *dst, const tp_vocab_config *src)
{
    memset(dst, 0, sizeof *dst);
    if (src->opts == NULL)
        return TP_OK;
    vocab_opts *o = tp_options_clone(vocab_options, sizeof *o, src->opts, NULL, NULL);
    if (o == NULL)
        return TP_ENOMEM;
    publish(dst, o, (int)src->pub.from_pipeline);
    return TP_OK;
}

/* host_api.vocabulary: the run's pipeline additions, or none for a stage
 * run without a pipeline (tests). */
const tp_vocab_settings *tp_host_vocabulary(tp_stage *st)
{
    static const tp_vocab_settings none = {sizeof(tp_vocab_settings), {0, NULL}, {0, NULL},
                                           {0, NULL}, {0, NULL}, {0, NULL}, 0};
    if (st && st->run && st->run->pipeline && st->run->pipeline->vocab.opts)
        return &st->run->pipeline->vocab.pub;
    return &none;
}
