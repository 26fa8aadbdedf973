/* Core-internal: batch orchestration (core/batch/): traces expanded and
 * run a process each (tp_batch.c), batch tables (tp_merge.c), shard
 * manifests (tp_shards.c), the batch stages' pipeline
 * (tp_batch_pipeline.c, declared in tp_core.h), the commands
 * (tp_batch_cli.c, declared in tp_cli.h). */
#ifndef TRACEPIPE_TP_BATCH_H
#define TRACEPIPE_TP_BATCH_H

#include "tp_core.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/stat.h>

/* The most traces at once (-j) and shards (--shard I/N) a batch takes. */
#define TP_BATCH_MAX_JOBS 4096
#define TP_BATCH_MAX_SHARDS 65536

typedef struct tp_batch_trace {
    char *path;  /* the trace */
    char *label; /* unique: path below the folder searched, without trace suffixes */
    int exit_code;
    const char *root; /* not owned: the folder holding OUT/LABEL (NULL: the run's OUT) */
    char *capture;    /* its rank's capture trace (tp_batch_pair_captures), or NULL */
} tp_batch_trace;
typedef struct tp_batch_list {
    tp_batch_trace *v;
    size_t n, cap;
    int from_folder;
} tp_batch_list;
typedef struct tp_batch_opts {
    int jobs;            /* traces at once */
    uint64_t max_memory; /* bytes the running traces may take (estimated); 0: no limit */
    int verbosity;
    void *ctx;
    /* Runs one trace in a child process; returns its exit status. */
    int (*run_one)(void *ctx, const tp_batch_trace *t, const tp_batch_list *l);
} tp_batch_opts;
/* What a trace takes in memory once read, estimated from its file: ~0.35
 * byte per byte of JSON (docs/performance.md), gzip text ~8x its file;
 * a process adds TP_BATCH_PROCESS_BYTES. */
uint64_t tp_batch_trace_bytes(const char *path);
#define TP_BATCH_PROCESS_BYTES ((uint64_t)32 << 20)
/* What the batch stages of p hold at once over those traces, estimated:
 * every trace when a stage takes several without streaming them (*all
 * set), else the largest (streaming stages: one at a time) and the last
 * (a stage given the latest trace), plus the process. */
uint64_t tp_batch_stages_bytes(const tp_pipeline *p, const char *const *paths, size_t n,
                               bool *all);
/* stat(2) for a folder walk's entry, except that a symbolic link to a
 * folder is not followed (a `self -> .` link would run its traces again
 * and again): -1 for it, as for an entry that vanished.  Links to files are
 * followed. */
int tp_batch_walk_stat(const char *path, struct stat *sb);
/* A file, a folder (recursively: files with trace suffixes) or a glob, in a
 * stable order, labelled.  TP_OK, or an error with a message in err. */
int tp_batch_expand(const char *spec, tp_batch_list *l, char *err, size_t errsz);
void tp_batch_list_free(tp_batch_list *l);
/* Capture traces (tp_batch_capture.c): the traces whose file name matches
 * glob (fnmatch) leave l; when used (the pipeline declares `capture`), each
 * trace left gets the one of its rank (tp_batch_rank_of_label; one trace and
 * one capture without ranks pair too) as t->capture.  A trace without its
 * capture, a capture no trace takes, and captures the pipeline cannot use
 * are reported on err.  TP_OK or TP_ENOMEM. */
int tp_batch_pair_captures(tp_batch_list *l, const char *glob, int used, int verbosity,
                           FILE *err);
#define TP_BATCH_CAPTURE_GLOB "*graph_capture*"
/* Runs every trace (run_one in a child each); prints progress and a
 * summary; returns the exit status, the worst of the traces'
 * (tp_exit_worst): 1 if any failed, else 2 if any was misconfigured, else
 * 3 if any tripped a gate, else 0. */
int tp_batch_run(const tp_batch_opts *o, tp_batch_list *l);
/* Did the trace's stages all succeed (exit 0, or 3: a gate tripped after
 * them)?  Its outputs are complete and batch stages read it. */
int tp_batch_went_through(const tp_batch_trace *t);
/* Batch tables (tp_merge.c): ROOT/LABEL/NAME.csv of the list's traces
 * that went through (this run's, not whatever else is under OUT)
 * concatenated into OUT/NAME.csv with a first column `trace`, in label
 * order (so shards merged equal one run); OUT made if need be.  *nmerged
 * tables written; TP_OK, or an error with a message in err. */
int tp_merge_tables(const tp_batch_list *l, const char *out, size_t *nmerged, char *err,
                    size_t errsz);
/* `merge` of folders without manifests: every folder under the roots
 * holding a .csv is a trace (links to folders and the folder OUT left
 * out), exit status 0. */
int tp_merge_scan(const char *const *roots, size_t nroots, const char *out, tp_batch_list *l,
                  char *err, size_t errsz);
/* Adds a trace (path and label copied, root NULL); mkdir -p. */
int tp_batch_list_add(tp_batch_list *l, const char *path, const char *label);
int tp_batch_make_dirs(const char *dir);
/* Shard manifests (tp_shards.c): OUT/.tracepipe-shard-I-of-N lists the
 * traces shard I ran (positions[i]: trace i's place in the whole batch)
 * and their exit codes.  _read gathers every manifest of the roots into l,
 * in the whole batch's order, with *nshards (0: no manifest); an error when
 * a shard is missing or two folders hold the same one. */
/* Manifests belong to (pipeline digest, trace-list digest, N) (CONVENTIONS
 * "Cluster"): FNV-1a 64 of the pipeline file's bytes and of the whole
 * batch's labels, in order; merge refuses manifests that differ. */
typedef struct tp_shard_key {
    uint64_t pipeline, traces;
} tp_shard_key;
tp_shard_key tp_shard_key_of(const char *pipeline_file, const tp_batch_list *whole);
int tp_shard_manifest_write(const char *out, long shard, long nshards, tp_shard_key key,
                            const tp_batch_list *l, const size_t *positions, char *err,
                            size_t errsz);
int tp_shard_manifests_read(const char *const *roots, size_t nroots, tp_batch_list *l,
                            long *nshards, char *err, size_t errsz);

/* tp_handoff_dir.c: the batch's hand-off folder made in TMPDIR (/tmp
 * without it) into buf, its owner (this process) in its name, after the
 * folders of batches provably gone are removed (-v names them).  0, or -1
 * (no folder: every trace is read again). */
int tp_handoff_dir_make(char *buf, size_t size, int verbosity);

#endif
