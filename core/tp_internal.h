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
#define TP_STR_NOMEM UINT32_MAX

/* ---- traces (tp_trace.c) */
tp_trace *tp_trace_new(tp_strpool *pool);
void tp_trace_free(tp_trace *t);
const tp_cols *tp_trace_columns(const tp_trace *t);
int tp_trace_reserve_rows(tp_trace *t, size_t n);
int tp_trace_push(tp_trace *t, const tp_event *ev);
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
/* Marks that the named analysis has run on this trace (for `requires`). */
int tp_trace_mark_done(tp_trace *t, const char *analysis);
bool tp_trace_is_done(const tp_trace *t, const char *analysis);
/* Bytes held by the trace (columns, args, metadata). */
size_t tp_trace_memory(const tp_trace *t);

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

/* ---- YAML documents with locations (tp_yaml.c) */
typedef enum { TP_YNODE_SCALAR = 1, TP_YNODE_SEQ, TP_YNODE_MAP } tp_ynode_type;
typedef struct tp_ynode tp_ynode;
struct tp_ynode {
    tp_ynode_type type;
    int line, col;          /* 1-based */
    char *text;             /* scalars: the value (after ${var} substitution) */
    bool quoted;            /* scalars written in quotes are never numbers/bools */
    size_t n;               /* children (seq items or map pairs) */
    tp_ynode **keys;        /* maps: key scalars */
    tp_ynode **items;       /* seq items or map values */
};
/* Parses one YAML document; aliases and anchors are refused (a pipeline
 * never needs them, and refusing them rules out alias bombs), duplicate keys
 * are reported.  Returns NULL with diagnostics on error. */
tp_ynode *tp_yaml_parse(const char *text, size_t len, const char *file, tp_diags *d);
void tp_ynode_free(tp_ynode *n);
const tp_ynode *tp_ymap_get(const tp_ynode *map, const char *key);
/* Replaces ${name} in every scalar of the tree; unknown names are errors. */
int tp_yaml_substitute(tp_ynode *root, const tp_var *vars, size_t n_vars, const char *file,
                       tp_diags *d);

/* ---- options (tp_option.c) */
/* Validates the option nodes of one stage (every map pair of `stage` whose
 * key is not in `reserved`) against the schema and fills a new config
 * block.  Every problem goes to d; returns NULL if there were any. */
void *tp_options_build(const tp_option *schema, size_t config_size, const tp_ynode *stage,
                       const char *const *reserved, const char *file, const char *who,
                       tp_diags *d);
void tp_options_free(const tp_option *schema, void *config);
/* Bytes of the config field an option of this type fills (0: unknown type). */
size_t tp_option_field_size(tp_opt_type type);
/* Parses a scalar per type; for use by option building and tests. */
int tp_parse_bool(const char *s, int *out);
int tp_parse_int(const char *s, int64_t *out);
int tp_parse_float(const char *s, double *out);
/* Edit distance, for did-you-mean hints. */
size_t tp_edit_distance(const char *a, const char *b);
/* The closest name in a NULL-terminated list (or NULL if none is close). */
const char *tp_closest(const char *name, const char *const *names, size_t n);

/* ---- JSON helper (tp_jsonfind.c) */
const char *tp_json_find_key(const char *json, size_t len, const char *key, size_t *vlen);

const char *tp_stage_kind_name(tp_stage_kind kind);

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
    tp_trace *trace;          /* readers: the new trace; others: the current one */
    uint8_t *keep;            /* filters */
    const tp_result **inputs;
    size_t n_inputs;
    tp_output *outputs;
    size_t n_outputs;
    char error[1024];         /* set by fail() */
    int error_code;
};

struct tp_run {
    tp_pipeline *pipeline;
    tp_strpool *pool;
    tp_trace *trace;
    tp_result **results;
    size_t n_results, cap_results;
    tp_run_opts opts;
    char error[1200];
    tp_run_source *sources;   /* every input so far: outputs may not name one */
    size_t n_sources;
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
