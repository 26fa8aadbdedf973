/*
 * Core-internal declarations shared between the core sources.  Never
 * installed, never included by plugins.
 */
#ifndef TRACEPIPE_TP_INTERNAL_H
#define TRACEPIPE_TP_INTERNAL_H

#include "tp_core.h"

#include <stdbool.h>
#include <sys/types.h>
#include <yaml.h>

#include "tp_options.h"
#include "tp_yaml.h"

/* ---- string pool (tp_strpool.c) */
typedef struct tp_strpool tp_strpool;
tp_strpool *tp_strpool_new(void);
void tp_strpool_free(tp_strpool *p);
/* Returns the id of the text, adding it if new; 0 for "", UINT32_MAX on ENOMEM. */
tp_str tp_strpool_intern(tp_strpool *p, const char *s, size_t len);
bool tp_strpool_lookup(const tp_strpool *p, const char *s, size_t len, tp_str *out);
const char *tp_strpool_text(const tp_strpool *p, tp_str id);
size_t tp_strpool_len(const tp_strpool *p, tp_str id);
size_t tp_strpool_count(const tp_strpool *p);
#define TP_STR_NOMEM TP_STR_ERROR

/* ---- traces (tp_trace.c) */
tp_trace *tp_trace_new(tp_strpool *pool);
void tp_trace_free(tp_trace *t);
const tp_cols *tp_trace_columns(const tp_trace *t);
int tp_trace_reserve_rows(tp_trace *t, size_t n);
int tp_trace_push(tp_trace *t, const tp_event *ev);
/* Row `row` gets kind `kind` and the track of its pid and tid with device
 * and stream replaced. */
int tp_trace_refine_row(tp_trace *t, size_t row, uint8_t kind, int32_t device, int32_t stream);
/* Appends an event whose args text stays in the source file at file_off. */
int tp_trace_push_ref(tp_trace *t, const tp_event *ev, uint64_t file_off);
const char *tp_trace_args_text(const tp_trace *t, size_t row, size_t *len);
int tp_trace_meta_set(tp_trace *t, const char *key, const char *json, size_t len);
const char *tp_trace_meta_get(const tp_trace *t, const char *key);
size_t tp_trace_meta_n(const tp_trace *t);
const char *tp_trace_meta_key_at(const tp_trace *t, size_t i);
const char *tp_trace_source_path(const tp_trace *t);
int tp_trace_source_set(tp_trace *t, const char *path);
/* NULL, or a one-line message naming the source file when it changed on
 * disk since it was read (args left in it can no longer be trusted). */
const char *tp_trace_source_problem(const tp_trace *t);
void *tp_trace_attach_array(tp_trace *t, const char *name, tp_coltype type, size_t n);
const void *tp_trace_find_array(const tp_trace *t, const char *name, tp_coltype type, size_t *n);
/* A new trace holding the rows whose keep byte is non-zero, with the same
 * metadata and source; attachments are not carried over (they describe the
 * old rows). */
tp_trace *tp_trace_filtered(const tp_trace *t, const uint8_t *keep);
/* The same, with kept row i cut to clip_ts[i], clip_dur[i] where clipped[i]
 * is non-zero (a clipping filter); the arrays may be NULL. */
tp_trace *tp_trace_filtered_clipped(const tp_trace *t, const uint8_t *keep,
                                    const uint8_t *clipped, const int64_t *clip_ts,
                                    const int64_t *clip_dur);
/* Marks that the named analysis has run on this trace (for `requires`). */
int tp_trace_mark_done(tp_trace *t, const char *analysis);
bool tp_trace_is_done(const tp_trace *t, const char *analysis);
/* Bytes held by the trace (columns, args, metadata). */
size_t tp_trace_memory(const tp_trace *t);

/* ---- trace info and extension columns (tp_traceext.c) */
typedef struct tp_info tp_info;
void tp_info_free(tp_info *info);
/* type TP_COL_I64 (i), TP_COL_F64 (f) or TP_COL_STR (s, copied) */
int tp_info_put(tp_info **info, const char *key, tp_coltype type, int64_t i, double f,
                const char *s);
tp_coltype tp_info_type(const tp_info *info, const char *key); /* 0: absent */
int tp_info_i64(const tp_info *info, const char *key, int64_t *out);
int tp_info_f64(const tp_info *info, const char *key, double *out);
const char *tp_info_str(const tp_info *info, const char *key);
size_t tp_info_count(const tp_info *info);
const char *tp_info_key(const tp_info *info, size_t k);
int tp_info_copy(const tp_info *from, tp_info **to);

typedef struct tp_extcols tp_extcols;
void tp_ext_free(tp_extcols *x);
int tp_ext_reserve(tp_extcols *x, size_t cap);
/* The column's index (an existing one of that name and type), or < 0. */
int tp_ext_add(tp_extcols **x, const char *name, tp_coltype type, size_t cap);
int tp_ext_find(const tp_extcols *x, const char *name);
size_t tp_ext_count(const tp_extcols *x);
const char *tp_ext_name(const tp_extcols *x, int col);
tp_coltype tp_ext_type(const tp_extcols *x, int col);
const void *tp_ext_data(const tp_extcols *x, int col);
/* The cell, if col has that type and row < nrows; else NULL. */
void *tp_ext_cell(tp_extcols *x, int col, size_t row, size_t nrows, tp_coltype type);
/* Adds to *to every column of from, holding the kept rows in order. */
int tp_ext_gather(const tp_extcols *from, const uint8_t *keep, size_t n_from, tp_extcols **to,
                  size_t cap);
size_t tp_ext_memory(const tp_extcols *x);

/* the trace's own (tp_trace.c) */
tp_info **tp_trace_info_slot(tp_trace *t);
const tp_info *tp_trace_info_of(const tp_trace *t);
tp_extcols **tp_trace_ext_slot(tp_trace *t);
const tp_extcols *tp_trace_ext_of(const tp_trace *t);
size_t tp_trace_capacity(const tp_trace *t);
/* The id of the reader that made the trace ("" until kept by a run). */
const char *tp_trace_id(const tp_trace *t);
int tp_trace_set_id(tp_trace *t, const char *id);

/* ---- results (tp_result.c) */
tp_result *tp_result_create(const char *id);
void tp_result_destroy(tp_result *r);
int tp_result_col_add(tp_result *r, const char *name, tp_coltype type);
int tp_result_row_add(tp_result *r, size_t *row);
int tp_result_put_str(tp_result *r, size_t row, int col, const char *s);
int tp_result_put_i64(tp_result *r, size_t row, int col, int64_t v);
int tp_result_put_f64(tp_result *r, size_t row, int col, double v);
int tp_result_meta_put(tp_result *r, const char *key, const char *value);
const char *tp_result_get_id(const tp_result *r);
size_t tp_result_nrows(const tp_result *r);
size_t tp_result_ncols(const tp_result *r);
const char *tp_result_colname(const tp_result *r, int col);
tp_coltype tp_result_coltype(const tp_result *r, int col);
int tp_result_colfind(const tp_result *r, const char *name);
int tp_result_null(const tp_result *r, size_t row, int col);
const char *tp_result_str(const tp_result *r, size_t row, int col);
int64_t tp_result_i64(const tp_result *r, size_t row, int col);
double tp_result_f64(const tp_result *r, size_t row, int col);
const char *tp_result_meta_get(const tp_result *r, const char *key);
size_t tp_result_meta_n(const tp_result *r);
const char *tp_result_meta_key_at(const tp_result *r, size_t i);

/* ---- JSON helper */
#include <tracepipe/tp_sdk_json.h> /* tp_json_get: core/sdk/tp_sdk_json.c, linked into the core too */

const char *tp_stage_kind_name(tp_stage_kind kind);

/* ---- host functions since ABI 3.0 (tp_hostext.c) */
size_t tp_host_stage_trace_count(tp_stage *st);
tp_trace *tp_host_stage_trace_at(tp_stage *st, size_t i);
const char *tp_host_trace_id(const tp_trace *t);
int tp_host_info_set_i64(tp_stage *st, tp_trace *t, const char *key, int64_t v);
int tp_host_info_set_f64(tp_stage *st, tp_trace *t, const char *key, double v);
int tp_host_info_set_str(tp_stage *st, tp_trace *t, const char *key, const char *v);
tp_coltype tp_host_info_type(const tp_trace *t, const char *key);
int tp_host_info_i64(const tp_trace *t, const char *key, int64_t *out);
int tp_host_info_f64(const tp_trace *t, const char *key, double *out);
const char *tp_host_info_str(const tp_trace *t, const char *key);
size_t tp_host_info_count(const tp_trace *t);
const char *tp_host_info_key(const tp_trace *t, size_t i);
int tp_host_ext_add(tp_stage *st, tp_trace *t, const char *name, tp_coltype type);
int tp_host_ext_set_i32(tp_stage *st, tp_trace *t, int col, size_t row, int32_t v);
int tp_host_ext_set_i64(tp_stage *st, tp_trace *t, int col, size_t row, int64_t v);
int tp_host_ext_set_f64(tp_stage *st, tp_trace *t, int col, size_t row, double v);
int tp_host_ext_set_sid(tp_stage *st, tp_trace *t, int col, size_t row, tp_str v);
size_t tp_host_ext_count(const tp_trace *t);
int tp_host_ext_find(const tp_trace *t, const char *name);
const char *tp_host_ext_name(const tp_trace *t, int col);
tp_coltype tp_host_ext_type(const tp_trace *t, int col);
const void *tp_host_ext_data(const tp_trace *t, int col);
int tp_host_clip(tp_stage *st, size_t row, int64_t ts, int64_t dur);
size_t tp_host_run_output_count(tp_stage *st);
const char *tp_host_run_output(tp_stage *st, size_t i);
int tp_host_trace_refine(tp_stage *st, tp_trace *t, size_t row, tp_kind kind, int32_t device,
                         int32_t stream);
int tp_host_result_set_kind(tp_stage *st, tp_result *r, const char *kind);
const char *tp_host_result_kind(const tp_result *r);
int tp_host_result_set_unit(tp_stage *st, tp_result *r, int col, const char *unit);
const char *tp_host_result_col_unit(const tp_result *r, int col);
/* ---- process-wide safety nets that signal handlers reach (tp_guard.c) */
typedef struct tp_temp_slot tp_temp_slot;
/* Remembers a temporary output file until unregistered, so that
 * tp_remove_temp_files() can remove it; NULL on ENOMEM or a path too long. */
tp_temp_slot *tp_temp_register(const char *path);
void tp_temp_unregister(tp_temp_slot *slot);
typedef struct tp_map_slot tp_map_slot;
/* Watches a read-only file mapping: a SIGBUS inside it (the file was
 * truncated) maps zero pages over the rest and sets the faulted flag instead
 * of killing the process.  Unguard before munmap. */
tp_map_slot *tp_map_guard(const void *start, size_t len);
void tp_map_unguard(tp_map_slot *slot);
bool tp_map_faulted(tp_map_slot *slot);

/* ---- runs and running stages (tp_pipeline.c, tp_host.c) */
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

/* ---- batch runs (tp_batch.c): one pipeline over many traces */
typedef struct tp_batch_trace {
    char *path;  /* the trace */
    char *label; /* unique: path below the folder searched, without trace suffixes */
    int exit_code;
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
/* A file, a folder (recursively: files with trace suffixes) or a glob, in a
 * stable order, labelled.  TP_OK, or an error with a message in err. */
int tp_batch_expand(const char *spec, tp_batch_list *l, char *err, size_t errsz);
void tp_batch_list_free(tp_batch_list *l);
/* Runs every trace (run_one in a child each); prints progress and a
 * summary; returns the exit status: 0, 1 (some failed) or 2 (every failure
 * a configuration error). */
int tp_batch_run(const tp_batch_opts *o, tp_batch_list *l);
/* Batch tables (tp_merge.c): every ROOT/LABEL/NAME.csv of the roots' trace
 * folders concatenated into OUT/NAME.csv with a first column `trace`, in
 * label order (so shards merged equal one run).  *nmerged tables written;
 * TP_OK, or an error with a message in err. */
int tp_merge_tables(const char *const *roots, size_t nroots, const char *out, size_t *nmerged,
                    char *err, size_t errsz);
/* Shard manifests (tp_shards.c): OUT/.tracepipe-shard-I-of-N lists the
 * traces shard I ran (positions[i]: trace i's place in the whole batch)
 * and their exit codes.  _read gathers every manifest of the roots into l,
 * in the whole batch's order, with *nshards (0: no manifest); an error when
 * a shard is missing or two folders hold the same one. */
int tp_shard_manifest_write(const char *out, long shard, long nshards, const tp_batch_list *l,
                            const size_t *positions, char *err, size_t errsz);
int tp_shard_manifests_read(const char *const *roots, size_t nroots, tp_batch_list *l,
                            long *nshards, char *err, size_t errsz);

#endif
