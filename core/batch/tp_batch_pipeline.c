/*
 * The pipeline a batch runs once after every trace's own run (its
 * `batch: true` stages): a copy of the first reader per trace, then the
 * batch stages, those that take several traces given all of them.
 */
#include "tp_batch.h"
#include "tp_loader.h"
#include "tp_pipeline.h"
#include "tp_run.h"
#include "tp_spec.h"

#include <stdlib.h>
#include <string.h>


/* A copy of stage s for another pipeline; the reader's input file replaced
 * by path when given.  TP_OK or TP_ENOMEM. */
static int clone_stage(const pstage *s, pstage *c, const char *id, const char *path)
{
    memset(c, 0, sizeof *c);
    c->kind = s->kind;
    c->desc = s->desc;
    c->plugin_path = s->plugin_path;
    c->line = s->line;
    c->col = s->col;
    c->batch = s->batch;
    c->plugin = strdup(s->plugin);
    c->id = strdup(id);
    const tp_option *in = path ? tp_option_with_role(s->desc, TP_OPT_INPUT_FILE) : NULL;
    c->config = tp_options_clone(s->desc->options, s->desc->config_size, s->config,
                                 in ? in->name : NULL, path);
    if (!c->plugin || !c->id || !c->config)
        return TP_ENOMEM;
    if (s->n_inputs && (c->inputs = calloc(s->n_inputs, sizeof *c->inputs)) == NULL)
        return TP_ENOMEM;
    for (; c->n_inputs < s->n_inputs; c->n_inputs++)
        if ((c->inputs[c->n_inputs] = strdup(s->inputs[c->n_inputs])) == NULL)
            return TP_ENOMEM;
    c->inputs_given = s->inputs_given;
    if (s->n_reqs && (c->reqs = calloc(s->n_reqs, sizeof *c->reqs)) == NULL)
        return TP_ENOMEM;
    for (; c->n_reqs < s->n_reqs; c->n_reqs++) {
        const preq *r = &s->reqs[c->n_reqs];
        preq *q = &c->reqs[c->n_reqs];
        q->desc = r->desc;
        q->config = tp_options_clone(r->desc->options, r->desc->config_size, r->config, NULL,
                                     NULL);
        q->id = strdup(r->id);
        if (!q->config || !q->id) {
            tp_options_free(r->desc->options, q->config);
            free(q->id);
            return TP_ENOMEM;
        }
    }
    return TP_OK;
}

/* The reader of one trace of a batch: a clone of the pipeline's with the
 * trace's path; with `reader: auto`, the reader that knows the trace (with
 * its defaults when it is not the one chosen for the first trace). */
static int clone_reader(tp_ctx *ctx, const pstage *reader, pstage *c, const char *id,
                        const char *path)
{
    const tp_stage_desc *d = reader->auto_reader ? tp_probe_reader(ctx, path) : NULL;
    if (d == NULL || d == reader->desc)
        return clone_stage(reader, c, id, path);
    pstage as = *reader;
    tp_diags diags = {0};
    /* the stage `{INPUT: PATH}`: that reader's defaults and the trace */
    const tp_option *in = tp_option_with_role(d, TP_OPT_INPUT_FILE);
    if (in == NULL)
        return clone_stage(reader, c, id, path);
    tp_ynode key = {.type = TP_YNODE_SCALAR, .text = (char *)in->name};
    tp_ynode value = {.type = TP_YNODE_SCALAR, .text = (char *)path, .quoted = true};
    tp_ynode *keys[] = {&key}, *items[] = {&value};
    tp_ynode stage = {.type = TP_YNODE_MAP, .n = 1, .keys = keys, .items = items};
    void *defaults = tp_options_build(d->options, d->config_size, &stage, NULL, NULL, d->name,
                                      &diags);
    tp_diags_free(&diags);
    if (defaults == NULL)
        return TP_ENOMEM;
    as.desc = tp_ctx_find_stage(ctx, TP_STAGE_READER, d->name, &as.plugin_path);
    as.plugin = (char *)d->name;
    as.config = defaults;
    int rc = clone_stage(&as, c, id, path);
    tp_options_free(d->options, defaults);
    return rc;
}

size_t tp_pipeline_batch_stages(const tp_pipeline *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->n; i++)
        n += p->stages[i].batch;
    return n;
}

tp_pipeline *tp_pipeline_for_batch(const tp_pipeline *p, const char *const *paths,
                                   const char *const *labels, size_t n, char *err, size_t errsz)
{
    const pstage *reader = NULL;
    for (size_t i = 0; i < p->n && reader == NULL; i++)
        if (p->stages[i].kind == TP_STAGE_READER)
            reader = &p->stages[i];
    if (reader == NULL) {
        snprintf(err, errsz, "%s: the pipeline has no reader to read the batch's traces", p->file);
        return NULL;
    }
    /* a batch stage takes results of batch stages only: the per-trace
     * stages ran in their own processes */
    for (size_t i = 0; i < p->n; i++) {
        const pstage *s = &p->stages[i];
        for (size_t k = 0; s->batch && k < s->n_inputs; k++) {
            size_t len = strcspn(s->inputs[k], ".");
            for (size_t j = 0; j < i; j++)
                if (!p->stages[j].batch && strlen(p->stages[j].id) == len &&
                    strncmp(p->stages[j].id, s->inputs[k], len) == 0) {
                    snprintf(err, errsz, "%s:%d:%d: batch stage '%s' takes input '%s' of the "
                             "per-trace stage '%s'; a batch stage takes results of batch stages "
                             "(mark it batch: true too, or use the batch tables OUT/NAME.csv)",
                             p->file, s->line, s->col, s->id, s->inputs[k], p->stages[j].id);
                    return NULL;
                }
        }
    }
    tp_pipeline *b = calloc(1, sizeof *b);
    size_t nb = tp_pipeline_batch_stages(p);
    if (b == NULL || (b->stages = calloc(n + nb, sizeof *b->stages)) == NULL) {
        free(b);
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    b->ctx = p->ctx;
    b->file = strdup(p->file);
    b->name = p->name ? strdup(p->name) : NULL;
    int rc = b->file ? tp_iter_config_clone(&b->iter, &p->iter) : TP_ENOMEM;
    rc = rc ? rc : tp_vocab_config_clone(&b->vocab, &p->vocab);
    char id[64];
    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        snprintf(id, sizeof id, "%s_%zu", reader->id, i);
        rc = clone_reader(p->ctx, reader, &b->stages[b->n], id, paths[i]);
        pstage *c = &b->stages[b->n++];
        c->has_rank_hint = labels && tp_batch_rank_of_label(labels[i], &c->rank_hint);
        c->deferred = true; /* read when a batch stage asks (tp_run_defer.c) */
    }
    for (size_t i = 0; i < p->n && rc == TP_OK; i++) {
        const pstage *s = &p->stages[i];
        if (!s->batch)
            continue;
        pstage *c = &b->stages[b->n++];
        rc = clone_stage(s, c, s->id, NULL);
        /* every trace for a stage that takes several; else the latest */
        if (rc == TP_OK && (s->desc->flags & TP_STAGE_F_TRACES)) {
            if ((c->traces = calloc(n ? n : 1, sizeof *c->traces)) == NULL)
                rc = TP_ENOMEM;
            for (size_t t = 0; t < n && rc == TP_OK; t++) {
                snprintf(id, sizeof id, "%s_%zu", reader->id, t);
                if ((c->traces[t] = strdup(id)) == NULL)
                    rc = TP_ENOMEM;
                c->n_traces = t + 1;
            }
        }
    }
    if (rc != TP_OK) {
        tp_pipeline_free(b);
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    return b;
}

/* Whether a batch stage holds every trace at once: it takes several and
 * does not stream them (TP_STAGE_F_STREAM). */
static bool holds_all(const pstage *s)
{
    return (s->desc->flags & TP_STAGE_F_TRACES) && !(s->desc->flags & TP_STAGE_F_STREAM);
}

/* Whether it holds the latest trace for the rest of the run: one trace
 * read before it runs (tp_run_stage_reads_late says which are not: readers
 * among them). */
static bool holds_latest(const pstage *s)
{
    return !(s->desc->flags & TP_STAGE_F_TRACES) && !tp_run_stage_reads_late(s);
}

uint64_t tp_batch_stages_bytes(const tp_pipeline *p, const char *const *paths, size_t n,
                               bool *all)
{
    uint64_t sum = 0, largest = 0, latest = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t b = tp_batch_trace_bytes(paths[i]);
        sum += b;
        largest = b > largest ? b : largest;
        latest = b; /* the last one's, when the loop ends */
    }
    bool one = false, last = false;
    *all = false;
    for (size_t i = 0; i < p->n; i++) {
        const pstage *s = &p->stages[i];
        if (!s->batch)
            continue;
        *all = *all || holds_all(s);
        one = one || (s->desc->flags & TP_STAGE_F_TRACES);
        last = last || holds_latest(s);
    }
    if (*all)
        return TP_BATCH_PROCESS_BYTES + sum;
    return TP_BATCH_PROCESS_BYTES + (one ? largest : 0) + (last ? latest : 0);
}
