/*
 * Running a pipeline: one tp_run holds everything a run touches (string
 * pool, current trace, results), so runs share no mutable state and
 * several may proceed in parallel threads over one registry.
 */
#include "tp_pipeline.h"
#include "tp_host.h"
#include "tp_loader.h"
#include "tp_result.h"
#include "tp_spec.h"
#include "tp_trace.h"

#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char *level_name(tp_level level)
{
    switch (level) {
    case TP_LOG_ERROR:
        return "error";
    case TP_LOG_WARN:
        return "warning";
    case TP_LOG_INFO:
        return "info";
    case TP_LOG_DEBUG:
        return "debug";
    }
    return "log";
}

void tp_run_log(tp_run *run, tp_level level, const char *who, const char *msg)
{
    /* verbosity 0 (-q): errors; 1: + warnings; 2 (-v): + info; 3: + debug */
    int shown = run->opts.verbosity;
    if ((int)level > shown && level != TP_LOG_ERROR)
        return;
    FILE *f = run->opts.log ? run->opts.log : stderr;
    tp_progress_done(run);
    tp_print_line(f, "pipeline: %s: [%s] %s", level_name(level), who, msg);
}

tp_result *tp_run_new_result(tp_run *run, const char *id)
{
    /* a result id is unique in a run: a repeated one replaces the old */
    tp_result *r = tp_result_create(id);
    if (r == NULL)
        return NULL;
    for (size_t i = 0; i < run->n_results; i++) {
        if (strcmp(tp_result_get_id(run->results[i]), id) == 0) {
            tp_result_destroy(run->results[i]);
            run->results[i] = r;
            return r;
        }
    }
    if (run->n_results == run->cap_results) {
        size_t cap = run->cap_results ? run->cap_results * 2 : 8;
        tp_result **rs = realloc(run->results, cap * sizeof *rs);
        if (rs == NULL) {
            tp_result_destroy(r);
            return NULL;
        }
        run->results = rs;
        run->cap_results = cap;
    }
    run->results[run->n_results++] = r;
    return r;
}

int tp_run_add_source(tp_run *run, const char *path, const char *what)
{
    struct stat sb;
    if (path == NULL || path[0] == '\0' || stat(path, &sb) != 0)
        return TP_OK; /* not a file: nothing an output could overwrite */
    if (tp_run_find_source(run, sb.st_dev, sb.st_ino) != NULL)
        return TP_OK;
    tp_run_source *all = realloc(run->sources, (run->n_sources + 1) * sizeof *all);
    if (all == NULL)
        return TP_ENOMEM;
    run->sources = all;
    size_t size = strlen(what) + strlen(path) + 2;
    char *text = malloc(size);
    if (text == NULL)
        return TP_ENOMEM;
    snprintf(text, size, "%s %s", what, path);
    run->sources[run->n_sources++] = (tp_run_source){sb.st_dev, sb.st_ino, text};
    return TP_OK;
}

const tp_run_source *tp_run_find_source(const tp_run *run, dev_t dev, ino_t ino)
{
    for (size_t i = 0; run != NULL && i < run->n_sources; i++)
        if (run->sources[i].dev == dev && run->sources[i].ino == ino)
            return &run->sources[i];
    return NULL;
}

void tp_run_free(tp_run *run)
{
    if (run == NULL)
        return;
    for (size_t i = 0; i < run->n_sources; i++)
        free(run->sources[i].what);
    free(run->sources);
    for (size_t i = 0; i < run->n_outputs; i++)
        free(run->outputs[i]);
    free(run->outputs);
    for (size_t i = 0; i < run->n_results; i++)
        tp_result_destroy(run->results[i]);
    free(run->results);
    for (size_t i = 0; i < run->n_traces; i++) {
        tp_trace_free(run->traces[i].trace);
        free(run->traces[i].id);
    }
    free(run->traces);
    tp_run_groups_free(run);
    tp_strpool_free(run->pool);
    free(run);
}

const tp_result *tp_run_result(const tp_run *run, const char *id)
{
    for (size_t i = 0; i < run->n_results; i++)
        if (strcmp(tp_result_get_id(run->results[i]), id) == 0)
            return run->results[i];
    return NULL;
}

size_t tp_run_result_count(const tp_run *run) { return run->n_results; }

const tp_result *tp_run_result_at(const tp_run *run, size_t i)
{
    return i < run->n_results ? run->results[i] : NULL;
}

const tp_trace *tp_run_trace(const tp_run *run)
{
    return run->n_traces ? run->traces[run->latest].trace : NULL;
}

const tp_trace *tp_run_trace_named(const tp_run *run, const char *id)
{
    for (size_t i = 0; i < run->n_traces; i++)
        if (strcmp(run->traces[i].id, id) == 0)
            return run->traces[i].trace;
    return NULL;
}

/* The slot of the trace of that id, or of the latest trace (id NULL). */
static tp_run_slot *trace_slot(tp_run *run, const char *id)
{
    if (id == NULL)
        return run->n_traces ? &run->traces[run->latest] : NULL;
    for (size_t i = 0; i < run->n_traces; i++)
        if (strcmp(run->traces[i].id, id) == 0)
            return &run->traces[i];
    return NULL;
}

/* Keeps a reader's new trace under its id; it becomes the latest. */
static int keep_trace(tp_run *run, const char *id, tp_trace *t)
{
    if (tp_trace_set_id(t, id) != TP_OK)
        return TP_ENOMEM;
    tp_run_slot *slot = trace_slot(run, id);
    if (slot == NULL) {
        tp_run_slot *ts = realloc(run->traces, (run->n_traces + 1) * sizeof *ts);
        char *copy = strdup(id);
        if (ts)
            run->traces = ts;
        if (ts == NULL || copy == NULL) {
            free(copy);
            return TP_ENOMEM;
        }
        slot = &run->traces[run->n_traces++];
        *slot = (tp_run_slot){copy, NULL, NULL, false};
    }

    tp_trace_free(slot->trace); /* a reader run again (requirement) replaces its own */
    slot->trace = t;
    run->latest = (size_t)(slot - run->traces);
    return TP_OK;
}
const char *tp_run_str(const tp_run *run, tp_str id) { return tp_strpool_text(run->pool, id); }
const char *tp_run_error(const tp_run *run) { return run->error; }

static bool result_of(const char *result_id, const char *name)
{
    size_t len = strlen(name);
    return strcmp(result_id, name) == 0 ||
           (strncmp(result_id, name, len) == 0 && result_id[len] == '.');
}

/* `input: [host, host.summary]` names host.summary twice: take it once. */
static bool already_input(const tp_stage *st, const tp_result *r)
{
    for (size_t i = 0; i < st->n_inputs; i++)
        if (st->inputs[i] == r)
            return true;
    return false;
}

/* True if some result matching name is already among the inputs. */
static bool names_taken_result(const tp_run *run, const tp_stage *st, const char *name)
{
    for (size_t i = 0; i < run->n_results; i++)
        if (result_of(tp_result_get_id(run->results[i]), name) &&
            already_input(st, run->results[i]))
            return true;
    return false;
}

/* Results of the inputs the stage names, or by default those of the
 * nearest earlier stage that produced any (writers only). */
static int resolve_inputs(tp_run *run, const tp_pipeline *p, size_t index, tp_stage *st)
{
    const pstage *s = &p->stages[index];
    st->inputs = calloc(run->n_results + 1, sizeof *st->inputs);
    if (st->inputs == NULL)
        return TP_ENOMEM;
    if (s->inputs_given) {
        for (size_t k = 0; k < s->n_inputs; k++) {
            size_t before = st->n_inputs;
            for (size_t i = 0; i < run->n_results; i++)
                if (result_of(tp_result_get_id(run->results[i]), s->inputs[k]) &&
                    !already_input(st, run->results[i]))
                    st->inputs[st->n_inputs++] = run->results[i];
            if (st->n_inputs == before && !names_taken_result(run, st, s->inputs[k])) {
                snprintf(st->error, sizeof st->error, "input '%s' produced no results",
                         s->inputs[k]);
                return TP_ENOTFOUND;
            }
        }
        return TP_OK;
    }
    if (s->kind != TP_STAGE_WRITER)
        return TP_OK;
    for (size_t j = index; j-- > 0;) {
        for (size_t i = 0; i < run->n_results; i++)
            if (result_of(tp_result_get_id(run->results[i]), p->stages[j].id))
                st->inputs[st->n_inputs++] = run->results[i];
        if (st->n_inputs > 0)
            break;
    }
    return TP_OK;
}

/* Gives the finished temporary its final mode and name.  The name must
 * still be the file we created: something swapped in under it is not
 * renamed over the target. */
static int complete_output(tp_stage *st, tp_output *o)
{
    struct stat mine, named;
    if (fstat(o->fd, &mine) != 0 || lstat(o->tmp_path, &named) != 0 ||
        mine.st_dev != named.st_dev || mine.st_ino != named.st_ino) {
        snprintf(st->error, sizeof st->error,
                 "%s: cannot complete the output: its temporary file %s was replaced or removed",
                 o->final_path, o->tmp_path);
        return TP_EIO;
    }
    if (o->replaces) {
        /* the owner can only be kept by root (or a group we are in) */
        if ((mine.st_uid != o->uid || mine.st_gid != o->gid) && fchown(o->fd, o->uid, o->gid)) {
            /* not allowed: the file becomes ours */
        }
        if (fchmod(o->fd, o->mode) != 0) {
            snprintf(st->error, sizeof st->error, "%s: cannot complete the output: %s",
                     o->final_path, strerror(errno));
            return TP_EIO;
        }
    }
    if (rename(o->tmp_path, o->target) != 0) {
        snprintf(st->error, sizeof st->error, "%s: cannot complete the output: %s",
                 o->final_path, strerror(errno));
        return TP_EIO;
    }
    return TP_OK;
}

/* A completed output, for tp_run_output (a report lists the charts). */
static void remember_output(tp_run *run, const char *path)
{
    char **v = realloc(run->outputs, (run->n_outputs + 1) * sizeof *v);
    if (v == NULL)
        return; /* the list is a courtesy; the file itself is complete */
    run->outputs = v;
    if ((v[run->n_outputs] = strdup(path)) != NULL)
        run->n_outputs++;
}

size_t tp_host_run_output_count(tp_stage *st)
{
    return st && st->run ? st->run->n_outputs : 0;
}

const char *tp_host_run_output(tp_stage *st, size_t i)
{
    return st && st->run && i < st->run->n_outputs ? st->run->outputs[i] : NULL;
}

static void finish_outputs(tp_stage *st, int ok)
{
    for (size_t i = 0; i < st->n_outputs; i++) {
        tp_output *o = &st->outputs[i];
        if (o->in_place)
            continue; /* a device or FIFO: written where it is */
        if (ok && st->error_code == 0) {
            st->error_code = complete_output(st, o);
            if (st->error_code == 0)
                remember_output(st->run, o->final_path);
            if (st->error_code == 0 && st->run->opts.report_outputs)
                tp_print_line(st->run->opts.log ? st->run->opts.log : stderr, "pipeline: wrote %s",
                              o->final_path);
        }
        if (!ok || st->error_code != 0)
            unlink(o->tmp_path); /* never leave a partial file behind */
        tp_temp_unregister(o->slot);
        close(o->fd);
    }
    /* a failed rename of one output leaves earlier ones in place: each is
     * complete on its own */
    for (size_t i = 0; i < st->n_outputs; i++) {
        free(st->outputs[i].tmp_path);
        free(st->outputs[i].target);
        free(st->outputs[i].final_path);
    }
    free(st->outputs);
    st->outputs = NULL;
    st->n_outputs = 0;
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Gives the pages a finished stage freed back to the system: glibc keeps
 * freed heap memory below the top of its arenas (and the reader's worker
 * thread has an arena of its own), so the next stage's peak would stack on
 * memory nothing uses.  Elsewhere a no-op. */
static void tp_run_release_free_memory(void)
{
#ifdef __GLIBC__
    malloc_trim(0);
#endif
}

/* The resident set now and its peak so far, for -v: where memory goes. */
static void rss_mib(double *now, double *peak)
{
    struct rusage ru;
    *peak = getrusage(RUSAGE_SELF, &ru) == 0 ? (double)ru.ru_maxrss / 1024.0 : 0.0;
    *now = 0.0;
    FILE *f = fopen("/proc/self/statm", "r");
    long pages_total, pages_resident;
    if (f != NULL && fscanf(f, "%ld %ld", &pages_total, &pages_resident) == 2)
        *now = (double)pages_resident * (double)sysconf(_SC_PAGESIZE) / 1048576.0;
    if (f != NULL)
        fclose(f);
}

/* Says how big the trace is in memory, per event (-v). */
static void log_trace_size(tp_run *run, const char *id)
{
    const tp_trace *t = tp_run_trace(run);
    size_t n = tp_trace_columns(t)->n, bytes = tp_trace_memory(t);
    char msg[256];
    snprintf(msg, sizeof msg, "%zu events, %.1f MB held (%.0f bytes/event incl. args), %zu names",
             n, (double)bytes / 1e6, n ? (double)bytes / (double)n : 0.0,
             tp_strpool_count(run->pool));
    tp_run_log(run, TP_LOG_INFO, id, msg);
}

/* A filter's kept rows become the trace in the slot its input was in. */
static int replace_filtered(tp_run *run, tp_stage *st, tp_trace *in, const char *id)
{
    tp_trace *out = tp_trace_filtered_clipped(in, st->keep, st->clipped, st->clip_ts, st->clip_dur);
    if (out == NULL)
        return TP_ENOMEM;
    char msg[256];
    snprintf(msg, sizeof msg, "kept %zu of %zu events", tp_trace_columns(out)->n,
             tp_trace_columns(in)->n);
    tp_run_log(run, TP_LOG_INFO, id, msg);
    for (size_t i = 0; i < run->n_traces; i++)
        if (run->traces[i].trace == in)
            run->traces[i].trace = out;
    tp_trace_free(in);
    return TP_OK;
}

/* A stage may have read args from a trace file changed meanwhile: then
 * what it made cannot be trusted, and its outputs are not completed. */
static int check_source(tp_stage *st)
{
    size_t n = st->n_traces ? st->n_traces : 1;
    for (size_t i = 0; i < n; i++) {
        const char *problem = tp_trace_source_problem(st->n_traces ? st->traces[i] : st->trace);
        if (problem != NULL) {
            snprintf(st->error, sizeof st->error, "%s", problem);
            return st->error_code = TP_EIO;
        }
    }
    return TP_OK;
}

/* Runs one stage: init, run, destroy, and the kind-specific plumbing. */
/* Points st at the traces it works on: the `trace:` ids, or the latest. */
static int bind_traces(tp_run *run, tp_stage *st, char *const *ids, size_t n_ids)
{
    size_t n = n_ids ? n_ids : 1;
    if ((st->traces = calloc(n, sizeof *st->traces)) == NULL)
        return TP_ENOMEM;
    if ((st->slots = calloc(n, sizeof *st->slots)) == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        tp_run_slot *slot = trace_slot(run, n_ids ? ids[i] : NULL);
        st->traces[i] = slot ? slot->trace : NULL;
        st->slots[i] = slot && slot->reader ? (size_t)(slot - run->traces) + 1 : 0;
        if (slot == NULL && n_ids) {
            snprintf(st->error, sizeof st->error, "trace '%s' was not read", ids[i]);
            return TP_ENOTFOUND;
        }
    }
    st->n_traces = st->traces[0] ? n : 0;
    st->trace = st->traces[0];
    return TP_OK;
}

/* A reader's input file (its option of role TP_OPT_INPUT_FILE) is an input of the run from the moment it runs, so no
 * later writer may overwrite it, whether or not the reader yields a trace
 * (the trace's own file is registered again once read, which is a no-op). */
static int add_reader_input(tp_run *run, const tp_stage_desc *desc, const void *config)
{
    const tp_option *o = tp_option_with_role(desc, TP_OPT_INPUT_FILE);
    if (o == NULL)
        return TP_OK;
    return tp_run_add_source(run, *(char *const *)((const char *)config + o->offset),
                             desc->flags & TP_STAGE_F_NO_TRACE ? "the input" : "the trace");
}

static int run_stage(tp_run *run, const tp_stage_desc *desc, const char *id, const void *config,
                     tp_stage *st, const char *where, char *const *trace_ids, size_t n_trace_ids)
{
    st->run = run;
    st->desc = desc;
    st->id = id;
    st->config = config;
    tp_trace *fresh = NULL;
    if (desc->kind == TP_STAGE_READER) {
        int rc = add_reader_input(run, desc, config);
        if (rc != TP_OK)
            return rc;
        if (!(desc->flags & TP_STAGE_F_NO_TRACE) && (fresh = tp_trace_new(run->pool)) == NULL)
            return TP_ENOMEM;
        st->trace = fresh;
    } else {
        int rc = bind_traces(run, st, trace_ids, n_trace_ids);
        if (rc != TP_OK)
            return rc;
    }
    tp_trace *before = st->trace; /* a filter's input, replaced by its output */
    if (desc->kind == TP_STAGE_FILTER) {
        if (st->trace == NULL) {
            snprintf(st->error, sizeof st->error, "no trace to filter: put a reader first");
            return TP_EINVAL;
        }
        size_t n = tp_trace_columns(st->trace)->n;
        if ((st->keep = malloc(n ? n : 1)) == NULL)
            return TP_ENOMEM;
        memset(st->keep, 1, n);
    }
    double t0 = now_seconds();
    void *state = NULL;
    int rc = TP_OK;
    tp_host_stage_mark outer = tp_host_enter_stage(st);
    if (desc->init)
        rc = desc->init(st, config, &state);
    if (rc == TP_OK)
        rc = desc->run(st, config, state);
    tp_host_leave_stage(outer);
    if (desc->destroy)
        desc->destroy(st, state);
    tp_run_stage_let_go(st);
    if (st->group != NULL)
        rc = tp_run_group_end(st, rc); /* after the stages it ran beside */
    tp_progress_done(run);
    if (rc != TP_OK && st->error_code == 0)
        st->error_code = rc;
    if (st->error_code != 0)
        rc = st->error_code; /* the recorded failure wins: its code matches its message */
    if (check_source(st) != TP_OK)
        rc = st->error_code; /* also the cause when the stage failed on odd args */
    if (rc == TP_OK && st->group != NULL)
        tp_run_group_hold(st); /* completed at its place in the loop */
    finish_outputs(st, rc == TP_OK);
    rc = rc == TP_OK ? st->error_code : rc;

    if (rc == TP_OK && fresh != NULL) {
        tp_trace_args_settle(fresh); /* its args slots as its rows say (issue 31) */
        rc = tp_run_add_source(run, tp_trace_source_path(fresh), "the trace");
    }
    if (rc == TP_OK && fresh != NULL && run->has_rank_hint &&
        tp_info_type(tp_trace_info_of(fresh), "rank") == 0) {
        /* a batch trace that records no rank: the one its file name gives */
        rc = tp_info_put(tp_trace_info_slot(fresh), "rank", TP_COL_I64, run->rank_hint, 0, NULL);
        char msg[128];
        snprintf(msg, sizeof msg, "rank %lld from the trace's file name", (long long)run->rank_hint);
        tp_run_log(run, TP_LOG_INFO, id, msg);
    }
    if (rc == TP_OK && fresh != NULL) {
        rc = keep_trace(run, id, fresh);
        if (rc == TP_OK) {
            fresh = NULL;
            log_trace_size(run, id);
        }
    } else if (rc == TP_OK && desc->kind == TP_STAGE_FILTER) {
        rc = replace_filtered(run, st, before, id);
    } else if (rc == TP_OK && desc->kind == TP_STAGE_ANALYSIS) {
        for (size_t i = 0; i < st->n_traces && rc == TP_OK; i++)
            rc = tp_trace_mark_done(st->traces[i], desc->name);
    }
    tp_trace_free(fresh);
    free(st->traces);
    st->traces = NULL;
    free(st->slots);
    st->slots = NULL;
    free(st->keep);
    free(st->clipped);
    free(st->clip_ts);
    free(st->clip_dur);
    st->keep = NULL;
    st->clipped = NULL;
    st->clip_ts = st->clip_dur = NULL;
    tp_run_release_free_memory();
    if (rc == TP_OK) {
        char msg[256];
        double rss, peak;
        rss_mib(&rss, &peak);
        snprintf(msg, sizeof msg, "%s done in %.3f s (RSS %.0f MiB, peak so far %.0f MiB)",
                 where, now_seconds() - t0, rss, peak);
        tp_run_log(run, TP_LOG_INFO, id, msg);
    }
    return rc;
}

static void report_failure(tp_run *run, const pstage *s, const char *id, const tp_stage *st,
                           int rc)
{
    const char *msg = st->error[0] ? st->error : rc == TP_ENOMEM ? "out of memory" : "failed";
    snprintf(run->error, sizeof run->error, "%s:%d:%d: %s '%s': %s", run->pipeline->file,
             s->line, s->col, tp_stage_kind_name(s->kind), id, msg);
    FILE *f = run->opts.log ? run->opts.log : stderr;
    tp_print_line(f, "pipeline: error: %s", run->error);
}

/* Runs the analyses s requires, in order, on each of its traces that lacks
 * them. */
static int run_requirement(tp_run *run, const pstage *s)
{
    size_t n = s->n_traces ? s->n_traces : 1;
    /* a batch stage's traces read late get theirs when it asks for them */
    bool late = tp_run_stage_reads_late(s);
    int rc = late ? TP_OK : tp_run_hold_traces(run, s);
    if (rc != TP_OK)
        return rc;
    for (size_t k = 0; k < s->n_reqs; k++) {
        const preq *r = &s->reqs[k];
        for (size_t i = 0; i < n; i++) {
            tp_run_slot *slot = trace_slot(run, s->n_traces ? s->traces[i] : NULL);
            if (slot == NULL || (late && slot->reader != NULL && !slot->loaded) ||
                tp_trace_is_done(slot->trace, r->desc->name))
                continue;
            char *one[1] = {slot->id};
            tp_stage st;
            memset(&st, 0, sizeof st);
            rc = run_stage(run, r->desc, r->id, r->config, &st, "required analysis", one, 1);
            if (rc != TP_OK) {
                report_failure(run, s, r->id, &st, rc);
                return rc;
            }
        }
    }
    return TP_OK;
}

int tp_pipeline_run(tp_pipeline *p, const tp_run_opts *opts, tp_run **out)
{
    if (out)
        *out = NULL;
    tp_run *run = calloc(1, sizeof *run);
    if (run == NULL || (run->pool = tp_strpool_new()) == NULL) {
        free(run);
        return TP_ENOMEM;
    }
    run->pipeline = p;
    if (opts)
        run->opts = *opts;
    else
        run->opts.verbosity = 1;
    int rc = tp_run_add_source(run, p->file, "the pipeline file");
    bool reader_seen = false;
    for (size_t i = 0; i < p->n && rc == TP_OK; i++) {
        const pstage *s = &p->stages[i];
        if (s->batch && run->opts.skip_batch)
            continue; /* the batch runs it once, over every trace */
        if (s->kind == TP_STAGE_WRITER && run->opts.skip_writers)
            continue;
        if (s->deferred) {
            if ((rc = tp_run_defer_reader(run, s)) != TP_OK)
                break;
            continue;
        }
        if (tp_run_group_turn(run, i, &rc))
            continue; /* streamed beside other stages, each trace read once */
        run->has_rank_hint = s->has_rank_hint || run->opts.has_rank_hint;
        run->rank_hint = s->has_rank_hint ? s->rank_hint : run->opts.rank_hint;
        if ((rc = run_requirement(run, s)) != TP_OK)
            break;
        tp_stage st;
        memset(&st, 0, sizeof st);
        st.ps = s;
        bool first_reader = s->kind == TP_STAGE_READER && !reader_seen;
        size_t pool_before = tp_strpool_count(run->pool);
        reader_seen |= s->kind == TP_STAGE_READER;
        rc = resolve_inputs(run, p, i, &st);
        if (rc == TP_OK)
            rc = run_stage(run, s->desc, s->id, s->config, &st, tp_stage_kind_name(s->kind),
                           s->traces, s->n_traces);
        if (rc == TP_OK && first_reader && run->opts.handoff)
            tp_run_handoff_write(run, s, pool_before); /* a batch's trace process */
        if (rc != TP_OK)
            report_failure(run, s, s->id, &st, rc);
        free(st.inputs);
    }
    tp_run_groups_discard(run); /* a group's outputs past a failed stage */
    if (out)
        *out = run;
    else
        tp_run_free(run);
    return rc;
}

/* Where an init error about one option goes: a message that starts with
 * the option's name (`kinds[0]: unknown kind ...`, `start: ...`) or says
 * "option 'NAME'" is placed at that value's line:col (the item's for
 * NAME[i]), else it stays at the stage's line. */
static void value_place(const tp_ynode *stage, const char *msg, int *line, int *col)
{
    const char *opt = strstr(msg, "option '");
    const char *name = opt ? opt + 8 : msg;
    size_t len = strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_");
    char key[64];
    if (stage == NULL || len == 0 || len >= sizeof key)
        return;
    if (!(opt ? name[len] == '\'' : name[len] == ':' || name[len] == '['))
        return;
    snprintf(key, sizeof key, "%.*s", (int)len, name);
    const tp_ynode *v = tp_ymap_get(stage, key);
    if (v == NULL)
        return;
    char *end = NULL;
    long i = name[len] == '[' ? strtol(name + len + 1, &end, 10) : -1;
    if (i >= 0 && end && *end == ']' && v->type == TP_YNODE_SEQ && (size_t)i < v->n)
        v = v->items[i];
    if (v->line > 0) {
        *line = v->line;
        *col = v->col;
    }
}

/* Runs init and destroy of one stage on its configuration, with no trace:
 * what init refuses (a bad regex, an unknown kind, start after end) is
 * reported before any trace is read.  Adds a diagnostic and returns 1 when
 * init failed. */
static int check_one_config(tp_run *run, const tp_pipeline *p, const pstage *s,
                            const tp_stage_desc *desc, const char *id, const void *config,
                            tp_diags *d)
{
    if (desc->init == NULL)
        return 0;
    tp_stage st;
    memset(&st, 0, sizeof st);
    st.run = run;
    st.desc = desc;
    st.id = id;
    st.config = config;
    void *state = NULL;
    int rc = desc->init(&st, config, &state);
    if (desc->destroy)
        desc->destroy(&st, state);
    if (rc == TP_OK)
        return 0;
    const char *msg = st.error[0] ? st.error : rc == TP_ENOMEM ? "out of memory" : "failed";
    int line = s->line, col = s->col;
    if (desc == s->desc)
        value_place(s->node, msg, &line, &col);
    tp_diags_add(d, p->file, line, col, "error: %s '%s': %s", tp_stage_kind_name(s->kind), id,
                 msg);
    return 1;
}

int tp_pipeline_check_configs(const tp_pipeline *p, tp_diags *d)
{
    tp_run *run = calloc(1, sizeof *run);
    if (run == NULL || (run->pool = tp_strpool_new()) == NULL) { /* init may intern */
        free(run);
        return TP_ENOMEM;
    }
    run->pipeline = (tp_pipeline *)p;
    run->opts.verbosity = 0; /* init's warnings come again when it runs */
    int failed = 0;
    for (size_t i = 0; i < p->n; i++) {
        const pstage *s = &p->stages[i];
        for (size_t k = 0; k < s->n_reqs; k++)
            failed |= check_one_config(run, p, s, s->reqs[k].desc, s->reqs[k].id,
                                       s->reqs[k].config, d);
        failed |= check_one_config(run, p, s, s->desc, s->id, s->config, d);
    }
    tp_strpool_free(run->pool);
    free(run);
    return failed ? TP_EINVAL : TP_OK;
}

/* For tp_run_defer.c: the same, for a batch's traces read late. */
int tp_run_exec_stage(tp_run *run, const tp_stage_desc *desc, const char *id, const void *config,
                      tp_stage *st, const char *where, char *const *trace_ids, size_t n_trace_ids)
{
    return run_stage(run, desc, id, config, st, where, trace_ids, n_trace_ids);
}

void tp_run_finish_outputs(tp_stage *st, bool ok) { finish_outputs(st, ok); }

void tp_run_report_failure(tp_run *run, const struct pstage *s, const char *id,
                           const tp_stage *st, int rc)
{
    report_failure(run, s, id, st, rc);
}

int tp_run_resolve_inputs(tp_run *run, const tp_pipeline *p, size_t index, tp_stage *st)
{
    return resolve_inputs(run, p, index, st);
}

int tp_run_keep_trace(tp_run *run, const char *id, tp_trace *t)
{
    return keep_trace(run, id, t);
}

int tp_run_add_reader_input(tp_run *run, const tp_stage_desc *desc, const void *config)
{
    return add_reader_input(run, desc, config);
}

tp_run_slot *tp_run_slot_of(tp_run *run, const char *id) { return trace_slot(run, id); }
