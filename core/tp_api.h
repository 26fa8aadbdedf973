/*
 * The embedding API (tp_api.c): what a program that is not `pipeline`
 * needs to run pipelines in its own process and keep the results in memory
 * — the Python module (python/_tracepipe.c) is its user.  It is linked
 * statically with the core's objects, so nothing here is exported from
 * libtracepipe.so.1.  Versioned by TP_API_VERSION: a change that breaks a
 * caller bumps it.
 *
 * A session loads the plugins once; runs may then go on in several threads
 * at once (loading a pipeline is serialised: a pipeline's plugin_path: adds
 * plugins to the session).  Every error comes back as text, the same
 * "file:line:col: error: ..." lines `pipeline` prints; nothing is printed.
 */
#ifndef TRACEPIPE_TP_API_H
#define TRACEPIPE_TP_API_H

#include "tp_core.h"
#include "tp_result.h"

#define TP_API_VERSION 1

typedef struct tp_api tp_api;
typedef struct tp_api_run tp_api_run;

/* A session with the default plugin folders (as `pipeline`'s, plus
 * $TRACEPIPE_PLUGIN_PATH), then plugin_dirs; bundled pipelines are looked
 * for in pipeline_dirs first.  NULL when memory runs out.  *warnings (new
 * string or NULL) gets the plugins refused, one line each. */
tp_api *tp_api_open(const char *const *plugin_dirs, size_t n_plugin_dirs,
                    const char *const *pipeline_dirs, size_t n_pipeline_dirs, char **warnings);
void tp_api_close(tp_api *a);

enum {
    TP_API_WRITE = 1,    /* run the writer stages (else they are left out) */
    TP_API_VALIDATE = 2, /* load and validate only: *out stays NULL */
    TP_API_TEXT = 4,     /* pipeline is YAML text, not a file or a bundled name */
};

/* Loads pipeline (a file, a bundled pipeline's name, or YAML text with
 * TP_API_TEXT) with vars overriding its `vars:`, input (or NULL) as the
 * first reader's input file, and runs it.  TP_OK with the run in *out; or
 * an error code with *out NULL.  *log (new string or NULL) gets what the
 * run said — warnings, and on failure the errors with their places. */
int tp_api_run_pipeline(tp_api *a, const char *pipeline, const tp_var *vars, size_t n_vars,
                        const char *input, unsigned flags, tp_api_run **out, char **log);
void tp_api_run_free(tp_api_run *r);

/* The run's results, in the order they were made (required analyses too). */
size_t tp_api_result_count(const tp_api_run *r);
const tp_result *tp_api_result_at(const tp_api_run *r, size_t i);
/* A column's unit ("us", "bytes", ... from its declaration, else from its
 * name's suffix) or NULL. */
const char *tp_api_result_unit(const tp_result *res, int col);
/* The traces a batch spec names (a file, a folder searched recursively, a
 * glob), as `pipeline run --input SPEC` lists them before probing: their
 * paths and labels (malloc'd, n each; free each and the arrays).  TP_OK, or
 * an error with its message in *why (malloc'd). */
int tp_api_expand(const char *spec, char ***paths, char ***labels, size_t *n, char **why);

/* A column's declared meaning (tp_col_decl.doc) or NULL. */
const char *tp_api_result_meaning(const tp_result *res, int col);

/* The event columns of the run's latest trace, or NULL when it read none;
 * tp_api_text gives the text of its string ids. */
const tp_cols *tp_api_events(const tp_api_run *r);
const char *tp_api_text(const tp_api_run *r, tp_str id);
size_t tp_api_text_count(const tp_api_run *r);

/* The loaded stages, one at a time (kind, name, plugin version, summary). */
size_t tp_api_stage_count(tp_api *a);
const tp_stage_desc *tp_api_stage_at(tp_api *a, size_t i, const char **version);
/* A stage's declared results as `pipeline describe --json` prints them
 * (new string), or NULL with the reason in *why (new string). */
char *tp_api_describe_json(tp_api *a, const char *stage, char **why);

#endif
