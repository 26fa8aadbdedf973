/*
 * tracepipe core API (internal: used by main.c and the test suites, never
 * installed, never seen by plugins).
 *
 *   tp_ctx       the plugin registry: search path and loaded plugins.
 *                Filled once, then read-only, so runs in several threads
 *                can share it.
 *   tp_pipeline  a validated pipeline description (stages, typed configs).
 *   tp_run       one execution of a pipeline: string pool, current trace,
 *                results.  All run state lives here; no mutable globals.
 */
#ifndef TRACEPIPE_TP_CORE_H
#define TRACEPIPE_TP_CORE_H

#define TP_CORE_BUILD 1
#include <stdbool.h>
#include <stdio.h>
#include <tracepipe/tp_plugin.h>

typedef struct tp_ctx tp_ctx;
typedef struct tp_pipeline tp_pipeline;
typedef struct tp_run tp_run;

/* Exit codes of `pipeline`. */
enum { TP_EXIT_OK = 0, TP_EXIT_FAIL = 1, TP_EXIT_USAGE = 2, TP_EXIT_SLOWER = 3, TP_EXIT_PIPE = 141 };

/* The worse of two exit statuses (CONVENTIONS: a run's or batch's status is
 * the worst of its traces', 1 > 2 > 3 > 0), so a CI script tells a failure,
 * a misuse and a regression apart.  Any other nonzero status (a child's
 * 128 + signal) is a failure, 1. */
static inline int tp_exit_worst(int a, int b)
{
    a = a == TP_EXIT_OK || a == TP_EXIT_USAGE || a == TP_EXIT_SLOWER ? a : TP_EXIT_FAIL;
    b = b == TP_EXIT_OK || b == TP_EXIT_USAGE || b == TP_EXIT_SLOWER ? b : TP_EXIT_FAIL;
    static const int rank[4] = {0, 3, 2, 1}; /* by status 0..3 */
    return rank[a] >= rank[b] ? a : b;
}

/* ---- diagnostics: every problem found, each as "file:line:col: message" */
typedef struct tp_diags {
    char **lines;   /* new strings, "file:line:col: error: ..." */
    size_t n, cap;
} tp_diags;
void tp_diags_add(tp_diags *d, const char *file, int line, int col, const char *fmt, ...)
    TP_PRINTF(5, 6);
void tp_diags_print(const tp_diags *d, FILE *f);
void tp_diags_free(tp_diags *d);
/* Makes text safe for a terminal, as the text writer does on stdout: \n,
 * \r, \t, \xHH for other control bytes, DEL and invalid UTF-8, \u0080 ..
 * \u009f for C1 controls; valid UTF-8 as is.  Writes at most size - 1
 * bytes and a NUL (never half an escape) and returns the full escaped
 * length, like snprintf. */
size_t tp_escape_text(const char *s, char *out, size_t size);
/* Prints one line on f: the formatted text, escaped, then '\n'.  Every
 * diagnostic on stderr goes through this or tp_diags (event names, paths
 * and ids can hold ESC, BEL, CR). */
void tp_print_line(FILE *f, const char *fmt, ...) TP_PRINTF(2, 3);

/* ---- plugin registry */
tp_ctx *tp_ctx_new(void);
void tp_ctx_free(tp_ctx *ctx);
/* Appends a directory to the search path (later ones win on name clashes
 * only if earlier ones lack the stage). */
int tp_ctx_add_dir(tp_ctx *ctx, const char *dir);
/* Adds the default directories: the build/installed plugin dir next to the
 * executable and $TRACEPIPE_PLUGIN_PATH (colon-separated). */
int tp_ctx_add_default_dirs(tp_ctx *ctx, const char *argv0);
/* Loads one plugin file.  On refusal returns < 0 and sets *err (new string)
 * to a one-line message naming the file and, for ABI mismatches, both
 * versions. */
int tp_ctx_load_file(tp_ctx *ctx, const char *path, char **err);
/* Loads every *.so of every directory in the search path not yet loaded;
 * refusals go to diags. */
int tp_ctx_load_all(tp_ctx *ctx, tp_diags *d);
/* Finds a stage by kind and name (kind 0 = any kind). */
const tp_stage_desc *tp_ctx_find_stage(const tp_ctx *ctx, tp_stage_kind kind, const char *name,
                                       const char **plugin_path);
size_t tp_ctx_stage_count(const tp_ctx *ctx);
/* Whether the plugin_path: a pipeline file names is loaded (default: yes,
 * as `run` does).  `validate` turns it off unless --allow-plugin-path:
 * checking a file must not run code it names (docs/robustness.md). */
void tp_ctx_set_pipeline_plugin_path(tp_ctx *ctx, bool allowed);
bool tp_ctx_pipeline_plugin_path_allowed(const tp_ctx *ctx);
const tp_stage_desc *tp_ctx_stage_at(const tp_ctx *ctx, size_t i, const tp_plugin_desc **plugin);
/* Whether reader (a reader's name, or "auto": any reader) knows the file
 * by its probe: 1 (also when the reader has no probe or is not loaded), 0,
 * or -1 when the file cannot be read. */
int tp_ctx_reader_knows(tp_ctx *ctx, const char *reader, const char *path);

/* ---- pipelines */
typedef struct tp_var {
    const char *name, *value;
} tp_var;
/* Parses and validates; on any problem returns NULL with every diagnostic
 * in d.  `sets` override `vars:` defaults (from --set).  Plugin dirs named
 * by `plugin_path:` are added to ctx and loaded. */
tp_pipeline *tp_pipeline_load_file(tp_ctx *ctx, const char *path, const tp_var *sets,
                                   size_t n_sets, tp_diags *d);
tp_pipeline *tp_pipeline_load_string(tp_ctx *ctx, const char *yaml, size_t len,
                                     const char *name, const tp_var *sets, size_t n_sets,
                                     tp_diags *d);
void tp_pipeline_free(tp_pipeline *p);
const char *tp_pipeline_name(const tp_pipeline *p);
size_t tp_pipeline_stage_count(const tp_pipeline *p);

/* ---- runs */
typedef struct tp_run_opts {
    int verbosity;          /* 0 quiet, 1 normal, 2 verbose */
    int progress;           /* show a progress bar on stderr */
    FILE *log;              /* where messages go; NULL = stderr */
    int report_outputs;     /* say "wrote PATH" for every output file completed */
    int skip_batch;         /* leave out `batch: true` stages (a batch's per-trace runs) */
    int has_rank_hint;      /* a rank for traces that record none (from the file name) */
    int64_t rank_hint;
    int skip_writers;       /* leave out writer stages (the embedding API's in-memory runs) */
    const char *handoff;    /* a batch's trace process: where its first reader's trace
                               goes for the batch stages (tp_run_handoff.c), or NULL */
} tp_run_opts;

/* Runs every stage in order.  Returns TP_OK or the first stage's error
 * (already printed to opts->log with the stage's name).  *out (if not NULL)
 * receives the run for inspection; free it with tp_run_free. */
int tp_pipeline_run(tp_pipeline *p, const tp_run_opts *opts, tp_run **out);

/* How many stages say `batch: true`. */
size_t tp_pipeline_batch_stages(const tp_pipeline *p);
/* The pipeline a batch runs once after every trace's own run: a copy of
 * p's first reader per trace (ids READER_0 ... READER_{n-1}, `path` set to
 * paths[i]), then p's batch stages, those that take several traces given
 * all of them.  NULL with err set when p has no reader, a batch stage takes
 * input from a per-trace stage, or memory runs out. */
tp_pipeline *tp_pipeline_for_batch(const tp_pipeline *p, const char *const *paths,
                                   const char *const *labels, size_t n, char *err, size_t errsz);
/* The rank a trace's label names: the number after "rank" or "worker"
 * (any case, an optional '_', '-' or '.' between), as in rank3.json or
 * worker_12.pt.trace.json.gz.  1 and *rank, or 0. */
int tp_batch_rank_of_label(const char *label, int64_t *rank);
void tp_run_free(tp_run *r);
const tp_result *tp_run_result(const tp_run *r, const char *id);
size_t tp_run_result_count(const tp_run *r);
const tp_result *tp_run_result_at(const tp_run *r, size_t i);
/* The latest trace of the run (the one stages use without `trace:`), or NULL. */
const tp_trace *tp_run_trace(const tp_run *r);
/* The trace read by the reader of that stage id, or NULL. */
const tp_trace *tp_run_trace_named(const tp_run *r, const char *id);
const char *tp_run_str(const tp_run *r, tp_str id);
/* The last error message of the run (empty string if none). */
const char *tp_run_error(const tp_run *r);

/* Removes every temporary output file being written in this process.
 * Async-signal-safe: for a SIGINT/SIGTERM/SIGHUP handler that then ends the
 * process. */
void tp_remove_temp_files(void);

/* The host table the core hands to plugins (tests use it directly). */
const tp_host_api *tp_core_host_api(void);

#endif
