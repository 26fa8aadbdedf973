/* Core-internal: the validated pipeline, shared by tp_pipeline.c (loading)
 * and tp_run.c (running). */
#ifndef TRACEPIPE_TP_PIPELINE_H
#define TRACEPIPE_TP_PIPELINE_H

#include "tp_core.h"
#include "tp_gate.h"
#include "tp_iterations.h"
#include "tp_vocabulary.h"
#include "tp_options.h"
#include "tp_strmap.h"
#include "tp_yaml.h"

#include <stdbool.h>

#include <errno.h>

/* One analysis a stage requires. */
typedef struct preq {
    const tp_stage_desc *desc;
    void *config; /* its defaults */
    char *id;     /* "<stage id>.<name>" */
} preq;

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
    const tp_ynode *node; /* the stage's mapping while the pipeline loads, else NULL */
    /* the analyses desc requires (`requires`, then `requires_list`), each
     * run first, as "<id>.<name>" with its defaults, where a trace lacks it */
    preq *reqs;
    size_t n_reqs;
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
    /* a batch's reader of one trace (issue 31): read only when a stage
     * asks for its trace (tp_run_stage_trace_ready), not where it stands */
    bool deferred;
    /* a deferred reader's hand-off file (the trace as its batch process
     * read it, tp_run_handoff.c), or NULL */
    char *handoff;
} pstage;

struct tp_pipeline {
    tp_ctx *ctx;
    char *file;
    char *name, *description;
    pstage *stages;
    size_t n;
    tp_iter_config iter; /* top-level `iterations:` (defaults when absent) */
    tp_vocab_config vocab; /* top-level `vocabulary:` (no additions when absent) */
    tp_gate_list gates;    /* top-level `fail_if:`, then --fail-if (tp_gate_pipeline.c) */
};

/* ---- loading (tp_pipeline.c; references between stages: tp_pipeline_refs.c) */
typedef struct loader {
    tp_ctx *ctx;
    tp_pipeline *p;
    const char *file;
    const char *base_dir; /* for relative plugin_path entries, or NULL */
    tp_diags *d;
    const char *input;    /* `--input`: the first reader's input file, or NULL */
    bool reader_seen;     /* the first reader is parsed (it took input) */
    /* hashed, so that ids and inputs cost O(1) per stage, not O(stages) */
    tp_strmap ids;         /* stage id -> index of the first stage with it */
    tp_strmap next_suffix; /* plugin name -> next N to try for a default id_N */
} loader;

/* The explicit id of stage m, or one made from the plugin name (new string). */
char *tp_pl_stage_id(loader *L, const tp_ynode *m, const char *plugin);
/* Remembers the id of stage `index` (the first stage keeps a repeated id). */
bool tp_pl_register_id(loader *L, const char *id, size_t index);
/* `input:` and `trace:` of stage s, the index-th: earlier ids only. */
void tp_pl_parse_inputs(loader *L, pstage *s, const tp_ynode *in, size_t index);
void tp_pl_parse_traces(loader *L, pstage *s, const tp_ynode *tr, size_t index);
/* A writer's output file: its folder writable, {id} when one file per result. */
void tp_pl_check_output_folder(loader *L, const pstage *s, const tp_ynode *m);
void tp_pl_check_path_per_result(loader *L, const pstage *s, const tp_ynode *m);

/* Calls every stage's init and destroy on its configuration, without a
 * trace, so that what init refuses is an error of `validate` and of `run`
 * before anything is read.  TP_EINVAL (diagnostics added) or TP_OK. */
int tp_pipeline_check_configs(const tp_pipeline *p, tp_diags *d);

#endif
