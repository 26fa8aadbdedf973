/*
 * The embedding API (tp_api.h): sessions, in-memory runs and their
 * results, for programs other than `pipeline` (the Python module).  The
 * same loading, validation and running as the command; messages go to a
 * memory stream instead of stderr.
 */
#include "tp_api.h"
#include "batch/tp_batch.h"
#include "tp_cli.h"
#include "tp_host.h"
#include "tp_run.h"
#include "tp_schema.h"
#include "tp_spec.h"
#include "tp_trace.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct tp_api {
    tp_ctx *ctx;
    char **pipeline_dirs;
    size_t n_pipeline_dirs;
    pthread_mutex_t load_lock; /* plugin_path: adds to ctx while a pipeline loads */
};

struct tp_api_run {
    tp_pipeline *pipeline;
    tp_run *run;
};

/* A memory stream for messages; its text (new string) when closed. */
typedef struct text_sink {
    char *buf;
    size_t len;
    FILE *f;
} text_sink;

static int sink_open(text_sink *t)
{
    t->buf = NULL;
    t->len = 0;
    t->f = open_memstream(&t->buf, &t->len);
    return t->f ? TP_OK : TP_ENOMEM;
}

/* The text written, or NULL when nothing was; *t closed. */
static char *sink_close(text_sink *t)
{
    if (t->f)
        fclose(t->f);
    t->f = NULL;
    if (t->buf && t->len == 0) {
        free(t->buf);
        t->buf = NULL;
    }
    return t->buf;
}

static void free_strings(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static char *diags_text(const tp_diags *d)
{
    text_sink t;
    if (sink_open(&t) != TP_OK)
        return NULL;
    tp_diags_print(d, t.f);
    return sink_close(&t);
}
tp_api *tp_api_open(const char *const *plugin_dirs, size_t n_plugin_dirs,
                    const char *const *pipeline_dirs, size_t n_pipeline_dirs, char **warnings)
{
    *warnings = NULL;
    tp_api *a = calloc(1, sizeof *a);
    if (a == NULL || (a->ctx = tp_ctx_new()) == NULL) {
        free(a);
        return NULL;
    }
    pthread_mutex_init(&a->load_lock, NULL);
    a->pipeline_dirs = calloc(n_pipeline_dirs + 1, sizeof *a->pipeline_dirs);
    if (a->pipeline_dirs == NULL) {
        tp_api_close(a);
        return NULL;
    }
    for (size_t i = 0; i < n_pipeline_dirs; i++)
        if ((a->pipeline_dirs[a->n_pipeline_dirs++] = strdup(pipeline_dirs[i])) == NULL) {
            tp_api_close(a);
            return NULL;
        }
    tp_ctx_add_default_dirs(a->ctx, NULL);
    for (size_t i = 0; i < n_plugin_dirs; i++)
        tp_ctx_add_dir(a->ctx, plugin_dirs[i]);
    tp_diags d = {0};
    tp_ctx_load_all(a->ctx, &d);
    *warnings = d.n ? diags_text(&d) : NULL;
    tp_diags_free(&d);
    return a;
}

void tp_api_close(tp_api *a)
{
    if (a == NULL)
        return;
    if (a->ctx) {
        tp_ctx_free(a->ctx);
        pthread_mutex_destroy(&a->load_lock);
    }
    free_strings(a->pipeline_dirs, a->n_pipeline_dirs);
    free(a);
}

/* The pipeline's spec: YAML text, or the file a name or path stands for.
 * NULL with the problem in d. */
static tp_spec *load_spec(tp_api *a, const char *pipeline, unsigned flags, tp_diags *d)
{
    if (flags & TP_API_TEXT)
        return tp_spec_from_string(pipeline, strlen(pipeline), "<string>", d);
    char why[8192];
    char *file = tp_cli_find_pipeline(pipeline, (const char *const *)a->pipeline_dirs,
                                      a->n_pipeline_dirs, why, sizeof why);
    if (file == NULL) {
        tp_diags_add(d, NULL, 0, 0, "error: %s", why[0] ? why : "out of memory");
        return NULL;
    }
    tp_spec *s = tp_spec_read_file(file, d);
    free(file);
    return s;
}

/* The pipeline loaded and validated, or NULL; every diagnostic on log. */
static tp_pipeline *load_pipeline(tp_api *a, const char *pipeline, const tp_var *vars,
                                  size_t n_vars, const char *input, unsigned flags, FILE *log)
{
    tp_diags d = {0};
    pthread_mutex_lock(&a->load_lock);
    /* as the command: a run loads the plugin_path: a pipeline names,
     * checking one (validate) never runs code it names */
    tp_ctx_set_pipeline_plugin_path(a->ctx, !(flags & TP_API_VALIDATE));
    tp_spec *spec = load_spec(a, pipeline, flags, &d);
    tp_pipeline *p = spec ? tp_pipeline_load_spec(a->ctx, spec, vars, n_vars, input, &d) : NULL;
    pthread_mutex_unlock(&a->load_lock);
    tp_spec_free(spec);
    tp_diags_print(&d, log);
    tp_diags_free(&d);
    return p;
}

int tp_api_run_pipeline(tp_api *a, const char *pipeline, const tp_var *vars, size_t n_vars,
                        const char *input, unsigned flags, tp_api_run **out, char **log)
{
    *out = NULL;
    *log = NULL;
    text_sink t;
    if (sink_open(&t) != TP_OK)
        return TP_ENOMEM;
    tp_pipeline *p = load_pipeline(a, pipeline, vars, n_vars, input, flags, t.f);
    int rc = p ? TP_OK : TP_EINVAL;
    tp_api_run *r = NULL;
    if (p && !(flags & TP_API_VALIDATE)) {
        r = calloc(1, sizeof *r);
        rc = r ? TP_OK : TP_ENOMEM;
    }
    if (r) {
        tp_run_opts opts = {.verbosity = 1, .log = t.f, .skip_writers = !(flags & TP_API_WRITE)};
        r->pipeline = p;
        p = NULL;
        rc = tp_pipeline_run(r->pipeline, &opts, &r->run);
    }
    *log = sink_close(&t);
    tp_pipeline_free(p);
    if (rc != TP_OK) {
        tp_api_run_free(r);
        return rc;
    }
    *out = r;
    return TP_OK;
}

void tp_api_run_free(tp_api_run *r)
{
    if (r == NULL)
        return;
    tp_run_free(r->run);
    tp_pipeline_free(r->pipeline);
    free(r);
}

size_t tp_api_result_count(const tp_api_run *r) { return r->run ? r->run->n_results : 0; }

const tp_result *tp_api_result_at(const tp_api_run *r, size_t i)
{
    return i < tp_api_result_count(r) ? r->run->results[i] : NULL;
}

const char *tp_api_result_unit(const tp_result *res, int col)
{
    return tp_host_result_col_unit(res, col);
}

int tp_api_expand(const char *spec, char ***paths, char ***labels, size_t *n, char **why)
{
    tp_batch_list l = {0};
    char err[1024] = "";
    *paths = *labels = NULL;
    *n = 0;
    *why = NULL;
    int rc = tp_batch_expand(spec, &l, err, sizeof err);
    if (rc != TP_OK) {
        *why = strdup(err[0] ? err : "out of memory");
        return rc;
    }
    *paths = calloc(l.n ? l.n : 1, sizeof **paths);
    *labels = calloc(l.n ? l.n : 1, sizeof **labels);
    if (*paths == NULL || *labels == NULL) {
        free(*paths);
        free(*labels);
        *paths = *labels = NULL;
        tp_batch_list_free(&l);
        return TP_ENOMEM;
    }
    for (size_t i = 0; i < l.n; i++) { /* the list's strings change hands */
        (*paths)[i] = l.v[i].path;
        (*labels)[i] = l.v[i].label;
        l.v[i].path = l.v[i].label = NULL;
    }
    *n = l.n;
    tp_batch_list_free(&l);
    return TP_OK;
}

const char *tp_api_result_meaning(const tp_result *res, int col)
{
    return tp_result_colmeaning(res, col);
}

const tp_cols *tp_api_events(const tp_api_run *r)
{
    if (r->run == NULL || r->run->n_traces == 0)
        return NULL;
    return tp_trace_columns(r->run->traces[r->run->latest].trace);
}

const char *tp_api_text(const tp_api_run *r, tp_str id) { return tp_strpool_text(r->run->pool, id); }

size_t tp_api_text_count(const tp_api_run *r) { return tp_strpool_count(r->run->pool); }

/* The plugin list grows while a pipeline naming plugin_path: loads: read
 * it under the same lock. */
size_t tp_api_stage_count(tp_api *a)
{
    pthread_mutex_lock(&a->load_lock);
    size_t n = tp_ctx_stage_count(a->ctx);
    pthread_mutex_unlock(&a->load_lock);
    return n;
}

const tp_stage_desc *tp_api_stage_at(tp_api *a, size_t i, const char **version)
{
    const tp_plugin_desc *pd = NULL;
    pthread_mutex_lock(&a->load_lock);
    const tp_stage_desc *s = tp_ctx_stage_at(a->ctx, i, &pd);
    pthread_mutex_unlock(&a->load_lock);
    *version = pd && pd->version ? pd->version : NULL;
    return s;
}

char *tp_api_describe_json(tp_api *a, const char *stage, char **why)
{
    *why = NULL;
    text_sink t;
    if (sink_open(&t) != TP_OK)
        return NULL;
    char reason[1024];
    pthread_mutex_lock(&a->load_lock);
    int rc = tp_describe_json_to(a->ctx, stage, t.f, reason, sizeof reason);
    pthread_mutex_unlock(&a->load_lock);
    char *text = sink_close(&t);
    if (rc != TP_OK) {
        free(text);
        *why = strdup(reason);
        return NULL;
    }
    return text;
}
