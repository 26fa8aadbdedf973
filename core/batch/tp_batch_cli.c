/*
 * The batch and merge commands of `pipeline` (docs/batch.md): a run over
 * many traces, a child process each (tp_batch.c), the batch tables
 * (tp_merge.c), shards and their manifests (tp_shards.c), then the
 * pipeline's `batch: true` stages over every trace (tp_batch_pipeline.c).
 * The pipeline file is c->spec, read and parsed once by the command.
 */
#include "tp_batch.h"
#include "tp_cli.h"
#include "tp_pipeline.h"
#include "tp_result.h"
#include "tp_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


typedef struct batch_ctx {
    tp_ctx *ctx;
    const cli *c;
    const char *handoff_dir; /* the traces' hand-offs to the batch stages, or NULL */
} batch_ctx;

/* Trace i's hand-off file in the batch's folder (tp_run_handoff.c). */
static void handoff_path(const char *dir, size_t i, char *buf, size_t size)
{
    snprintf(buf, size, "%s/%zu.trace", dir, i);
}

/* One trace of a batch, in its child process: the pipeline loaded with
 * trace, trace_name and out set for it, then run. */
static int run_one_trace(void *arg, const tp_batch_trace *t, const tp_batch_list *l)
{
    const batch_ctx *b = arg;
    const cli *c = b->c;
    tp_var *sets = calloc(c->n_sets + 4, sizeof *sets);
    char *out = NULL;
    if (sets == NULL)
        return TP_EXIT_FAIL;
    size_t n = 0;
    for (size_t i = 0; i < c->n_sets; i++)
        if (!tp_cli_is_var(&c->sets[i], "trace") && !tp_cli_is_var(&c->sets[i], "trace_name") &&
            !(c->declares_out && tp_cli_is_var(&c->sets[i], "out")) &&
            !(t->capture && tp_cli_is_var(&c->sets[i], "capture")))
            sets[n++] = c->sets[i];
    if (t->capture) /* paired only when the pipeline declares `capture` */
        sets[n++] = (tp_var){"capture", t->capture}; /* its rank's capture trace */
    if (c->declares_trace)
        sets[n++] = (tp_var){"trace", t->path};
    if (c->declares_trace_name)
        sets[n++] = (tp_var){"trace_name", t->label};
    if (c->declares_out) {
        size_t len = strlen(c->out_base ? c->out_base : ".") + strlen(t->label) + 2;
        if ((out = malloc(len)) == NULL)
            return TP_EXIT_FAIL;
        snprintf(out, len, "%s/%s", c->out_base ? c->out_base : ".", t->label);
        sets[n++] = (tp_var){"out", out};
    }
    tp_diags d = {0};
    /* the trace is the first reader's input file, whatever the stage says */
    tp_pipeline *p = tp_cli_load(b->ctx, c, sets, n, t->path, &d);
    tp_diags_print(&d, stderr);
    tp_diags_free(&d);
    int rc = TP_EXIT_USAGE;
    if (p != NULL) {
        tp_run_opts opts = {.verbosity = c->verbosity, .report_outputs = c->verbosity > 0,
                            .skip_batch = 1};
        char handoff[4200];
        if (b->handoff_dir) {
            handoff_path(b->handoff_dir, (size_t)(t - l->v), handoff, sizeof handoff);
            opts.handoff = handoff;
        }
        opts.has_rank_hint = tp_batch_rank_of_label(t->label, &opts.rank_hint);
        tp_run *run = NULL;
        rc = tp_pipeline_run(p, &opts, &run) == TP_OK ? TP_EXIT_OK : TP_EXIT_FAIL;
        rc = tp_cli_gates(c, p, run, rc);
        tp_run_free(run);
        tp_pipeline_free(p);
    }
    free(out);
    free(sets);
    return rc;
}

/* A folder, or a glob that is not a file's name. */
static int is_many(const char *v)
{
    struct stat sb;
    if (stat(v, &sb) == 0)
        return S_ISDIR(sb.st_mode);
    return strpbrk(v, "*?[") != NULL;
}

/* The batch spec: --input, or a folder or glob as the trace variable
 * (--set trace=, else the pipeline's default) or as the first reader's
 * input file; NULL for one trace. */
const char *tp_cli_batch_spec(const cli *c, const tp_ctx *ctx, const tp_spec *spec)
{
    if (c->input)
        return c->input;
    for (size_t i = c->n_sets; i-- > 0;)
        if (tp_cli_is_var(&c->sets[i], "trace"))
            return is_many(c->sets[i].value) ? c->sets[i].value : NULL;
    const char *def = NULL;
    if (tp_spec_var(spec, "trace", &def) == 1 && def && !strstr(def, "${") && is_many(def))
        return def;
    def = tp_spec_reader_input(spec, ctx); /* a folder or glob written as the reader's */
    if (def && !strstr(def, "${") && is_many(def))
        return def;
    return NULL;
}

static int merge_into(const cli *c, const tp_batch_list *l, const char *out, int rc);

/* The pipeline c->spec loaded for its batch stages: its first reader (and
 * `trace`, when declared) on `first`, `out` the batch's (merge: c->batch_out),
 * the other --set values as given; diagnostics printed.  NULL on failure. */
static tp_pipeline *load_batch_pipeline(tp_ctx *ctx, const cli *c, const char *first)
{
    tp_var *sets = calloc(c->n_sets + 2, sizeof *sets);
    if (sets == NULL)
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < c->n_sets; i++)
        if (!tp_cli_is_var(&c->sets[i], "trace") && !tp_cli_is_var(&c->sets[i], "trace_name") &&
            !(c->batch_out && tp_cli_is_var(&c->sets[i], "out")))
            sets[n++] = c->sets[i];
    if (c->declares_trace)
        sets[n++] = (tp_var){"trace", first};
    if (c->batch_out && c->declares_out)
        sets[n++] = (tp_var){"out", c->batch_out};
    tp_diags d = {0};
    tp_pipeline *p = tp_cli_load(ctx, c, sets, n, first, &d);
    tp_diags_print(&d, stderr);
    tp_diags_free(&d);
    free(sets);
    return p;
}

/* Each deferred reader of the batch pipeline b (the first n stages) gets
 * its trace's hand-off file, trace index[k] of the batch (no file: read). */
static void give_handoffs(tp_pipeline *b, const char *dir, const size_t *index, size_t n)
{
    char path[4200];
    for (size_t k = 0; dir && k < n && k < b->n; k++) {
        handoff_path(dir, index[k], path, sizeof path);
        b->stages[k].handoff = strdup(path); /* NULL (no memory): read */
    }
}

/* The `batch: true` stages, once, over every trace that went through: the
 * pipeline loaded with the first of them as `trace` (and `out` as given),
 * then a reader per trace and the batch stages (tp_pipeline_for_batch).
 * rc is the status so far. */
static int run_batch_stages(tp_ctx *ctx, const cli *c, const tp_batch_list *l, int rc,
                            const char *handoff_dir)
{
    size_t nok = 0;
    const char **paths = calloc(l->n ? l->n : 1, sizeof *paths);
    const char **labels = calloc(l->n ? l->n : 1, sizeof *labels);
    size_t *index = calloc(l->n ? l->n : 1, sizeof *index);
    if (paths == NULL || labels == NULL || index == NULL) {
        free(paths);
        free(labels);
        free(index);
        return TP_EXIT_FAIL;
    }
    for (size_t i = 0; i < l->n; i++)
        if (tp_batch_went_through(&l->v[i])) {
            labels[nok] = l->v[i].label;
            index[nok] = i;
            paths[nok++] = l->v[i].path;
        }
    tp_pipeline *p = nok > 0 ? load_batch_pipeline(ctx, c, paths[0]) : NULL;
    if (nok > 0 && p == NULL)
        rc = tp_exit_worst(rc, TP_EXIT_USAGE);
    size_t nb = p ? tp_pipeline_batch_stages(p) : 0;
    bool all = false;
    uint64_t need = p ? tp_batch_stages_bytes(p, paths, nok, &all) : 0;
    if (nb > 0 && c->max_memory > 0 && need > c->max_memory) {
        tp_print_line(stderr, "pipeline: error: the %zu batch stage(s) would hold %s%zu "
                      "traces at once, about %.1f MiB (estimated), more than --max-memory "
                      "%.1f MiB: not run", nb, all ? "all " : "the largest of the ", nok,
                      (double)need / (1u << 20), (double)c->max_memory / (1u << 20));
        nb = 0;
        rc = tp_exit_worst(rc, TP_EXIT_FAIL);
    }
    if (nb > 0) {
        char err[4200];
        tp_pipeline *b = tp_pipeline_for_batch(p, paths, labels, nok, err, sizeof err);
        if (b == NULL) {
            tp_print_line(stderr, "pipeline: error: %s", err);
            rc = tp_exit_worst(rc, TP_EXIT_USAGE);
        } else {
            give_handoffs(b, handoff_dir, index, nok);
            if (c->verbosity > 0)
                fprintf(stderr, "pipeline: batch: %zu batch stage(s) over %zu trace(s)\n", nb, nok);
            tp_run_opts opts = {.verbosity = c->verbosity, .report_outputs = c->verbosity > 0};
            tp_run *run = NULL;
            int brc = tp_pipeline_run(b, &opts, &run) == TP_OK ? TP_EXIT_OK : TP_EXIT_FAIL;
            brc = tp_cli_gates(c, p, run, brc);
            tp_run_free(run);
            tp_pipeline_free(b);
            rc = tp_exit_worst(rc, brc);
        }
    }
    tp_pipeline_free(p);
    free(paths);
    free(labels);
    free(index);
    return rc;
}

/* Which of trace, trace_name and out the pipeline c->spec declares, and
 * out's value (--set, else the file's default). */
static void read_declared_vars(cli *c)
{
    const char *unused = NULL, *out = NULL;
    int has_trace = tp_spec_var(c->spec, "trace", &unused);
    c->declares_trace_name = tp_spec_var(c->spec, "trace_name", &unused) == 1;
    c->declares_out = tp_spec_var(c->spec, "out", &out) == 1;
    c->out_base = out ? strdup(out) : NULL;
    for (size_t i = 0; i < c->n_sets; i++)
        if (tp_cli_is_var(&c->sets[i], "out")) {
            free(c->out_base);
            c->out_base = strdup(c->sets[i].value);
        }
    /* the first reader reads each trace (tp_ctx_set_input); `trace` is set too when declared */
    c->declares_trace = has_trace == 1;
    c->declares_capture = tp_spec_var(c->spec, "capture", &unused) == 1;
}

/* Keeps the traces of shard I/N (every N-th of the stable list, from I),
 * their places in the whole list in *positions. */
static int keep_shard(const cli *c, tp_batch_list *l, size_t **positions)
{
    size_t k = 0, total = l->n;
    if ((*positions = calloc(l->n ? l->n : 1, sizeof **positions)) == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < l->n; i++) {
        if ((long)(i % (size_t)c->nshards) == c->shard) {
            (*positions)[k] = i;
            l->v[k++] = l->v[i];
        } else {
            free(l->v[i].path);
            free(l->v[i].label);
            free(l->v[i].capture);
        }
    }
    l->n = k;
    if (c->verbosity > 0)
        fprintf(stderr, "pipeline: shard %ld/%ld: %zu of %zu trace(s)\n", c->shard, c->nshards,
                k, total);
    return TP_OK;
}

/* Of a folder's files, keeps those the pipeline's first reader knows (its
 * probe; any reader's for `reader: auto`): a folder of runs holds notes,
 * logs and licences too.  Files that cannot be read stay, to be reported. */
static void keep_known_formats(tp_ctx *ctx, const cli *c, tp_batch_list *l, const char *spec)
{
    const char *reader = tp_spec_reader(c->spec);
    if (reader == NULL)
        return;
    size_t k = 0, skipped = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (tp_ctx_reader_knows(ctx, reader, l->v[i].path) != 0) {
            l->v[k++] = l->v[i];
            continue;
        }
        if (c->verbosity > 1)
            tp_print_line(stderr, "pipeline: batch: skipped %s: no %s trace", l->v[i].path,
                    strcmp(reader, "auto") == 0 ? "known" : reader);
        free(l->v[i].path);
        free(l->v[i].label);
        skipped++;
    }
    l->n = k;
    if (skipped > 0 && c->verbosity > 0)
        tp_print_line(stderr, "pipeline: batch: %zu file(s) of %s skipped: not %s traces (-v "
                      "names them)", skipped, spec,
                strcmp(reader, "auto") == 0 ? "known" : reader);
}

/* Gates (--fail-if, --fail-if-slower, fail_if:) are checked once, with the
 * pipeline as the first trace gets it, before any trace runs: a gate that
 * does not compile is a misuse of the whole batch, not of each trace. */
static int gates_refused(tp_ctx *ctx, const cli *c, const char *first)
{
    const tp_ynode *root = tp_spec_root(c->spec);
    if (c->n_fail_if == 0 && isnan(c->fail_if_slower) &&
        (root == NULL || root->type != TP_YNODE_MAP || tp_ymap_get(root, "fail_if") == NULL))
        return 0;
    tp_pipeline *p = load_batch_pipeline(ctx, c, first);
    int refused = p == NULL;
    tp_pipeline_free(p);
    return refused;
}

/* The batch's hand-off folder (issue 31): the traces' processes write
 * their traces there for the batch stages, which load and remove them; the
 * folder and every file in it are removed at the end, or on SIGINT,
 * SIGTERM or SIGHUP (tp_temp_register_numbered). */
typedef struct handoffs {
    char *dir;
    char buf[4200];
} handoffs;

static void handoffs_begin(handoffs *h, size_t n, int verbosity)
{
    if (tp_handoff_dir_make(h->buf, sizeof h->buf, verbosity) != 0 ||
        (h->dir = strdup(h->buf)) == NULL)
        return;
    strcat(h->buf, "/");
    if (tp_temp_register_numbered(h->buf, n, ".trace") != 0) {
        rmdir(h->dir);
        free(h->dir);
        h->dir = NULL; /* every trace is read again */
    }
}

static void handoffs_end(handoffs *h, size_t n)
{
    if (h->dir == NULL)
        return;
    for (size_t i = 0; i < n; i++) {
        handoff_path(h->dir, i, h->buf, sizeof h->buf);
        unlink(h->buf);
        strcat(h->buf, ".tmp");
        unlink(h->buf);
    }
    rmdir(h->dir);
    tp_temp_unregister_numbered();
    free(h->dir);
}

int tp_cli_batch(tp_ctx *ctx, cli *c, const char *spec)
{
    read_declared_vars(c);
    tp_batch_list l;
    char err[4200];
    if (tp_batch_expand(spec, &l, err, sizeof err) != TP_OK) {
        tp_print_line(stderr, "pipeline: error: %s", err);
        return TP_EXIT_USAGE;
    }
    if (l.from_folder) {
        keep_known_formats(ctx, c, &l, spec);
        if (l.n == 0) {
            tp_print_line(stderr, "pipeline: error: %s: no traces there that the pipeline's "
                          "reader knows (-v names the files skipped)", spec);
            tp_batch_list_free(&l);
            return TP_EXIT_USAGE;
        }
    }
    if (tp_batch_pair_captures(&l, c->capture_glob ? c->capture_glob : TP_BATCH_CAPTURE_GLOB,
                               c->declares_capture, c->verbosity, stderr) != TP_OK) {
        tp_print_line(stderr, "pipeline: error: out of memory");
        tp_batch_list_free(&l);
        return TP_EXIT_FAIL;
    }
    if (l.n > 1 && !c->declares_out && !c->declares_trace_name) {
        tp_print_line(stderr, "pipeline: error: %s: %zu traces would write the same outputs: "
                      "declare `out:` (each trace gets OUT/LABEL) or `trace_name:` under vars: "
                      "and use ${trace_name} in the output paths", tp_spec_file(c->spec), l.n);
        tp_batch_list_free(&l);
        return TP_EXIT_USAGE;
    }
    if (l.n > 0 && gates_refused(ctx, c, l.v[0].path)) {
        tp_batch_list_free(&l);
        return TP_EXIT_USAGE;
    }
    size_t *positions = NULL;
    tp_shard_key key = tp_shard_key_of(tp_spec_file(c->spec), &l); /* the whole list's */
    if (c->nshards > 0 && keep_shard(c, &l, &positions) != TP_OK) {
        tp_batch_list_free(&l);
        return TP_EXIT_FAIL;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    handoffs hand;
    memset(&hand, 0, sizeof hand);
    if (c->nshards == 0)
        handoffs_begin(&hand, l.n, c->verbosity); /* none: every trace is read again */
    batch_ctx b = {ctx, c, hand.dir};
    tp_batch_opts o = {.jobs = c->jobs ? c->jobs : (int)(cores > 0 ? cores : 1),
                       .max_memory = c->max_memory,
                       .verbosity = c->verbosity,
                       .ctx = &b,
                       .run_one = run_one_trace};
    if (c->verbosity > 0)
        tp_print_line(stderr, "pipeline: batch: %zu trace(s) from %s, %d at once%s", l.n, spec,
                o.jobs, c->declares_out ? ", each writing to OUT/LABEL" : "");
    int rc = l.n > 0 ? tp_batch_run(&o, &l) : TP_EXIT_OK;
    if (c->nshards > 0) {
        /* a shard sees some traces only: the batch tables and stages wait
         * for `pipeline merge`, which the manifest tells every shard is done */
        if (c->declares_out) {
            const char *out = c->out_base ? c->out_base : ".";
            if (tp_shard_manifest_write(out, c->shard, c->nshards, key, &l, positions, err,
                                        sizeof err) != TP_OK) {
                tp_print_line(stderr, "pipeline: error: shard manifest: %s", err);
                rc = tp_exit_worst(rc, TP_EXIT_FAIL);
            } else if (c->verbosity > 0) {
                tp_print_line(stderr, "pipeline: shard done; when every shard is: pipeline merge "
                              "%s [--pipeline %s]", out, c->arg);
            }
        }
    } else {
        /* the tables first, so batch stages can read them (OUT/NAME.csv) */
        for (size_t i = 0; i < l.n; i++)
            l.v[i].root = c->out_base ? c->out_base : ".";
        if (c->declares_out)
            rc = merge_into(c, &l, c->out_base, rc);
        rc = run_batch_stages(ctx, c, &l, rc, hand.dir);
    }
    handoffs_end(&hand, l.n);
    free(positions);
    tp_batch_list_free(&l);
    return rc;
}

/* The batch tables of l's traces into out; rc is the status so far. */
static int merge_into(const cli *c, const tp_batch_list *l, const char *out, int rc)
{
    char err[4200] = "";
    size_t merged = 0;
    if (tp_merge_tables(l, out ? out : ".", &merged, err, sizeof err) != TP_OK) {
        tp_print_line(stderr, "pipeline: error: merging the batch tables: %s", err);
        return tp_exit_worst(rc, TP_EXIT_FAIL);
    }
    if (c->verbosity > 0)
        tp_print_line(stderr, "pipeline: batch: %zu table(s) merged into %s (a row per trace "
                      "row, first column trace)", merged, out ? out : ".");
    return rc;
}

/* The traces the shards' manifests list that failed or tripped a gate, one
 * line each; the worst of their exit statuses (0 if none). */
static int report_shard_failures(const tp_batch_list *l)
{
    size_t failed = 0;
    int rc = TP_EXIT_OK;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].exit_code != 0) {
            tp_print_line(stderr, "pipeline: merge: %s %s in its shard (exit %d): %s",
                          l->v[i].label, l->v[i].exit_code == TP_EXIT_SLOWER ? "tripped a gate"
                                                                            : "failed",
                          l->v[i].exit_code, l->v[i].path);
            failed++;
            rc = tp_exit_worst(rc, l->v[i].exit_code);
        }
    if (failed > 0)
        fprintf(stderr, "pipeline: merge: %zu of %zu trace(s) failed or tripped a gate in the "
                "shards\n", failed, l->n);
    return rc;
}

/* merge --pipeline, before anything is written: the shards' manifests
 * exist, and the pipeline loads (for the first trace) and has batch
 * stages.  Sets c->spec and what it declares; an exit status. */
static int check_merge_pipeline(tp_ctx *ctx, cli *c, const tp_batch_list *l, long nshards,
                                const char *out)
{
    if (nshards == 0) {
        tp_print_line(stderr, "pipeline: error: %s: no shard manifests (.tracepipe-shard-I-of-N, "
                      "written by `run --shard I/N` with `out:`): --pipeline needs the shards' "
                      "list of traces", c->args[0]);
        return TP_EXIT_USAGE;
    }
    char *file = tp_cli_resolve_pipeline(c->batch_pipeline);
    if (file == NULL)
        return TP_EXIT_USAGE;
    tp_diags d = {0};
    c->spec = tp_spec_read_file(file, &d);
    free(file);
    tp_diags_print(&d, stderr);
    tp_diags_free(&d);
    if (c->spec == NULL)
        return TP_EXIT_USAGE;
    read_declared_vars(c);
    c->batch_out = out;
    size_t first = 0;
    while (first < l->n && !tp_batch_went_through(&l->v[first]))
        first++;
    if (first == l->n)
        return TP_EXIT_OK; /* no trace went through: nothing to run, failures reported */
    tp_pipeline *p = load_batch_pipeline(ctx, c, l->v[first].path);
    int rc = p ? TP_EXIT_OK : TP_EXIT_USAGE;
    if (p && tp_pipeline_batch_stages(p) == 0) {
        tp_print_line(stderr, "pipeline: error: %s has no `batch: true` stages for merge "
                      "--pipeline to run", tp_spec_file(c->spec));
        rc = TP_EXIT_USAGE;
    }
    tp_pipeline_free(p);
    return rc;
}

int tp_cli_merge(tp_ctx *ctx, cli *c)
{
    if (c->n_args == 0)
        return tp_cli_usage_error("merge needs the batch output folders", NULL);
    const char *out = c->out ? c->out : c->args[0];
    tp_batch_list l;
    long nshards = 0;
    char err[4200] = "";
    if (tp_shard_manifests_read(c->args, c->n_args, &l, &nshards, err, sizeof err) != TP_OK) {
        tp_print_line(stderr, "pipeline: error: %s", err[0] ? err : "out of memory");
        return TP_EXIT_FAIL;
    }
    int rc = c->batch_pipeline ? check_merge_pipeline(ctx, c, &l, nshards, out) : TP_EXIT_OK;
    tp_batch_list found = {0}; /* folders without manifests: what is there */
    if (rc == TP_EXIT_OK && nshards == 0 &&
        tp_merge_scan(c->args, c->n_args, out, &found, err, sizeof err) != TP_OK) {
        tp_print_line(stderr, "pipeline: error: merging the batch tables: %s", err);
        rc = TP_EXIT_FAIL;
    }
    if (rc == TP_EXIT_OK)
        rc = merge_into(c, nshards > 0 ? &l : &found, out, TP_EXIT_OK);
    tp_batch_list_free(&found);
    if (rc == TP_EXIT_OK && c->batch_pipeline)
        rc = run_batch_stages(ctx, c, &l, rc, NULL);
    rc = tp_exit_worst(rc, report_shard_failures(&l));
    free(c->out_base);
    c->out_base = NULL;
    tp_spec_free(c->spec);
    c->spec = NULL;
    tp_batch_list_free(&l);
    return rc;
}
