/* Core-internal: the validated pipeline, shared by tp_pipeline.c (loading)
 * and tp_run.c (running). */
#ifndef TRACEPIPE_TP_PIPELINE_H
#define TRACEPIPE_TP_PIPELINE_H

#include "tp_internal.h"
#include "tp_iterations.h"

#include <errno.h>

typedef struct pstage {
    tp_stage_kind kind;
    char *plugin;            /* the name written in YAML */
    char *id;
    const tp_stage_desc *desc;
    const char *plugin_path; /* borrowed from the registry */
    char **inputs;
    size_t n_inputs;
    bool inputs_given;
    char **traces;           /* `trace:` reader ids; none = the latest trace */
    size_t n_traces;
    void *config;
    int line, col;
    /* the analysis named by desc->requires, run first when needed */
    const tp_stage_desc *req_desc;
    void *req_config;
    char *req_id;
    /* `batch: true`: in a batch, run once after every trace's own stages,
     * over all the traces (tp_pipeline_for_batch); in a single run, as any
     * stage */
    bool batch;
    /* `reader: auto`: the plugin was chosen by probing the path; a batch
     * probes each trace again (tp_pipeline_for_batch) */
    bool auto_reader;
    /* a batch reader's rank from its trace's file name, for a trace that
     * does not record one (tp_batch_rank_of_label) */
    bool has_rank_hint;
    int64_t rank_hint;
} pstage;

struct tp_pipeline {
    tp_ctx *ctx;
    char *file;
    char *name, *description;
    pstage *stages;
    size_t n;
    tp_iter_config iter; /* top-level `iterations:` (defaults when absent) */
};

/* Calls every stage's init and destroy on its configuration, without a
 * trace, so that what init refuses is an error of `validate` and of `run`
 * before anything is read.  TP_EINVAL (diagnostics added) or TP_OK. */
int tp_pipeline_check_configs(const tp_pipeline *p, tp_diags *d);

#endif
