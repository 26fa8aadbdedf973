/* Core-internal: runs and running stages (tp_run.c; the host functions
 * reach them through tp_stage*), progress display (tp_progress.c). */
#ifndef TRACEPIPE_TP_RUN_H
#define TRACEPIPE_TP_RUN_H

#include "tp_core.h"
#include "tp_guard.h"
#include "tp_strpool.h"

#include <stdbool.h>
#include <sys/types.h>

typedef struct tp_output {
    char *final_path;       /* as the pipeline names it, for messages */
    char *target;           /* the file written: symlinks followed */
    char *tmp_path;         /* what the writer opens; the target when in place */
    int fd;                 /* our descriptor of the temporary; -1 in place */
    bool in_place;          /* not a regular file (device, FIFO): no rename */
    bool replaces;          /* a regular file exists: give its mode and owner */
    mode_t mode;
    uid_t uid;
    gid_t gid;
    tp_temp_slot *slot;     /* removal on SIGINT/SIGTERM/SIGHUP */
} tp_output;

/* A file the run reads (a trace, the pipeline file): never an output. */
typedef struct tp_run_source {
    dev_t dev;
    ino_t ino;
    char *what;             /* "the trace x.json", "the pipeline file p.yaml" */
} tp_run_source;

/* One stage while it runs: what the host functions reach through tp_stage*. */
struct tp_stage {
    tp_run *run;
    const tp_stage_desc *desc;
    const char *id;
    const void *config;
    tp_trace *trace;          /* readers: the new trace; others: their (first) trace */
    tp_trace **traces;        /* every trace the stage works on (`trace: [a, b]`) */
    size_t n_traces;
    uint8_t *keep;            /* filters */
    uint8_t *clipped;         /* clipping filters: rows cut to clip_ts/clip_dur */
    int64_t *clip_ts, *clip_dur;
    const tp_result **inputs;
    size_t n_inputs;
    tp_output *outputs;
    size_t n_outputs;
    char error[1024];         /* set by fail() */
    int error_code;
};

/* A trace of the run, kept under the id of the reader that made it. */
typedef struct tp_run_slot {
    char *id;
    tp_trace *trace;
} tp_run_slot;

struct tp_run {
    tp_pipeline *pipeline;
    tp_strpool *pool;
    tp_run_slot *traces;      /* in the order their readers ran */
    size_t n_traces;
    size_t latest;            /* the trace stages use without `trace:` */
    tp_result **results;
    size_t n_results, cap_results;
    tp_run_opts opts;
    char error[1200];
    tp_run_source *sources;   /* every input so far: outputs may not name one */
    size_t n_sources;
    char **outputs;           /* files completed so far (tp_run_output) */
    size_t n_outputs;
    int has_rank_hint;        /* the reader running now: rank for a trace without one */
    int64_t rank_hint;
    /* progress display */
    double progress_last;
    double progress_start;
    const char *progress_label;
};

/* Adds a result owned by the run. */
tp_result *tp_run_new_result(tp_run *run, const char *id);
/* Progress display (tp_progress.c). */
void tp_progress_update(tp_run *run, const char *label, uint64_t done, uint64_t total);
void tp_progress_done(tp_run *run);
/* Remembers a file the run reads (stat of path); what names it in messages. */
int tp_run_add_source(tp_run *run, const char *path, const char *what);
/* The input of the run that is this file, or NULL. */
const tp_run_source *tp_run_find_source(const tp_run *run, dev_t dev, ino_t ino);
/* Log output of a run. */
void tp_run_log(tp_run *run, tp_level level, const char *who, const char *msg);

#endif
