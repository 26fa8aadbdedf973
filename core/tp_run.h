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
/* A stage's progress clock: it starts at the stage's first report and
 * restarts only when its count goes back (a reader's next file), not when
 * another stage reports in between (a streamed batch's reader between a
 * writer's traces). */
typedef struct tp_progress_clock {
    double start; /* 0: not started */
    uint64_t done;
} tp_progress_clock;

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
    /* batch (issue 31): the slot of each trace (NULL for an ordinary one),
     * the stage's own pipeline entry, and for a TP_STAGE_F_STREAM stage the
     * slot it read last (freed when it asks for another) */
    size_t *slots;            /* index + 1 into run->traces; 0: none */
    const struct pstage *ps;
    size_t current;           /* index + 1; 0: none */
    tp_progress_clock progress; /* the stage's own progress clock */
    /* a streaming stage run beside others over one read of each trace
     * (tp_run_group.c), and its place in that group; NULL: alone */
    struct tp_run_group *group;
    size_t member;
};

/* A trace of the run, kept under the id of the reader that made it. */
typedef struct tp_run_slot {
    char *id;
    tp_trace *trace;
    /* a batch's reader of this trace (pstage.deferred): the trace is read
     * when a stage first asks for it (until then, and after a streaming
     * stage let it go, `trace` is a husk without rows); NULL: read */
    const struct pstage *reader;
    bool loaded; /* reader: the rows are in memory */
} tp_run_slot;

/* Makes trace i of a running stage readable (a batch's deferred trace is
 * read, and its stage's required analyses run on it); a streaming stage's
 * previous one is let go.  TP_OK, or the error recorded on the stage (its
 * trace then stays a husk without rows). */
int tp_run_stage_trace_ready(tp_stage *st, size_t i);
/* tp_run_defer.c, the rest of it: a deferred reader's slot made (a husk,
 * the trace's path registered as an input); whether stage s reads its
 * deferred traces only when it asks (a streaming stage; a writer of one
 * trace without required analyses; a reader) rather than before it runs; the
 * deferred traces of s read and held before it runs; a streaming stage's
 * last trace let go when it ends. */
int tp_run_defer_reader(tp_run *run, const struct pstage *s);
bool tp_run_stage_reads_late(const struct pstage *s);
int tp_run_hold_traces(tp_run *run, const struct pstage *s);
void tp_run_stage_let_go(tp_stage *st);
/* For tp_run_group.c: slot k's trace read (no analyses), the analyses
 * streaming stage ps requires run on it, its rows freed (what changed in
 * its file meanwhile into why, "" if nothing), a stage's trace pointers
 * after a slot changed. */
int tp_run_slot_read(tp_run *run, size_t k);
int tp_run_slot_reqs(tp_run *run, size_t k, const struct pstage *ps);
void tp_run_slot_husk(tp_run *run, size_t k, char *why, size_t why_size);
void tp_run_stage_rebind(tp_stage *st);
/* tp_run_group.c: consecutive streaming stages of a batch that do not use
 * each other's results run side by side, each trace read once for all of
 * them (issue 31).  tp_run_group_turn: true when pipeline stage i was run
 * by a group (now, as its first member, or earlier), *rc its status (a
 * failure reported); false: run it alone.  tp_run_group_trace: slot k for
 * a member (it waits for its turn). */
bool tp_run_group_turn(tp_run *run, size_t i, int *rc);
int tp_run_group_trace(tp_stage *st, size_t k);
/* A member's run ended with rc: it waits for the members before it, and
 * fails if one of them did (its outputs are then not completed). */
int tp_run_group_end(tp_stage *st, int rc);
/* A member that succeeded keeps its outputs under their temporary names
 * until the loop reaches its place (after the stages it overtook);
 * tp_run_groups_discard removes those the loop never reached. */
void tp_run_group_hold(tp_stage *st);
void tp_run_groups_discard(tp_run *run);
void tp_run_groups_free(tp_run *run);
/* tp_run_handoff.c (issue 31): a batch's trace process writes the trace
 * of its first reader s (the pool held pool_before texts when s began)
 * to opts.handoff when batch stages will read traces; the batch's read of
 * slot k loads it instead (TP_OK), or says why not and the caller reads. */
void tp_run_handoff_write(tp_run *run, const struct pstage *s, size_t pool_before);
int tp_run_handoff_load(tp_run *run, size_t k);
/* tp_run.c: a stage's outputs completed (ok) or removed, and freed. */
void tp_run_finish_outputs(tp_stage *st, bool ok);
int tp_run_resolve_inputs(tp_run *run, const tp_pipeline *p, size_t index, tp_stage *st);
/* tp_run.c's own, for tp_run_defer.c. */
int tp_run_exec_stage(tp_run *run, const tp_stage_desc *desc, const char *id, const void *config,
                      tp_stage *st, const char *where, char *const *trace_ids, size_t n_trace_ids);
void tp_run_report_failure(tp_run *run, const struct pstage *s, const char *id,
                           const tp_stage *st, int rc);
int tp_run_keep_trace(tp_run *run, const char *id, tp_trace *t);
int tp_run_add_reader_input(tp_run *run, const tp_stage_desc *desc, const void *config);
/* The slot of the trace of that id, or of the latest trace (id NULL). */
tp_run_slot *tp_run_slot_of(tp_run *run, const char *id);

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
    /* stages a group ran ahead of their place (tp_run_group.c): per
     * pipeline stage, run or not, its status and message */
    struct tp_run_ran *ran;
};

/* Adds a result owned by the run. */
tp_result *tp_run_new_result(tp_run *run, const char *id);
/* Progress display (tp_progress.c). */
/* clock: the reporting stage's (NULL: the label's, restarted when it changes). */
void tp_progress_update(tp_run *run, const char *label, tp_progress_clock *clock, uint64_t done,
                        uint64_t total);
void tp_progress_done(tp_run *run);
/* Remembers a file the run reads (stat of path); what names it in messages. */
int tp_run_add_source(tp_run *run, const char *path, const char *what);
/* The input of the run that is this file, or NULL. */
const tp_run_source *tp_run_find_source(const tp_run *run, dev_t dev, ino_t ino);
/* Log output of a run. */
void tp_run_log(tp_run *run, tp_level level, const char *who, const char *msg);

#endif
