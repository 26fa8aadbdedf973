/*
 * pipeline — the tracepipe command line.
 *
 *   pipeline run PIPELINE [--set k=v]... [-q|-v] [--plugin-dir DIR]...
 *                [--input FILE|DIR|GLOB [-j N] [--max-memory SIZE] [--shard I/N]]
 *   pipeline merge DIR... [--out OUT] [--pipeline PIPELINE [--set k=v]...]
 *   pipeline validate PIPELINE [--set k=v]... [--allow-plugin-path]
 *
 * PIPELINE is a file, or the name of a bundled pipeline.
 *   pipeline plugins
 *   pipeline describe NAME
 *
 * Exit codes: 0 ok, 1 failure while running, 2 usage or configuration error,
 * 3 a diff found the test run slower than --fail-if-slower allows.
 */
#include "tp_internal.h"
#include "tp_schema.h"
#include "tp_spec.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char usage_text[] =
    "Usage: pipeline COMMAND [OPTIONS]\n"
    "\n"
    "Run tracepipe pipelines over profiler traces.\n"
    "\n"
    "Commands:\n"
    "  run PIPELINE         validate, then run the pipeline (a file, or the name of a\n"
    "                       bundled one: pipeline run dlrm_breakdown --set trace=T.json.gz)\n"
    "  validate PIPELINE    check the pipeline and report every problem; run nothing\n"
    "  merge DIR...         concatenate the per-trace CSV tables of batch outputs (shards)\n"
    "                       into the batch tables (into the first DIR, or --out OUT), once\n"
    "                       every shard is done; --pipeline P also runs P's batch: true\n"
    "                       stages over the shards' traces\n"
    "  plugins              list the available stages (kind, version, summary)\n"
    "  describe NAME        show a stage's options (type, default, range, help) and the\n"
    "                       results it makes, with their columns (type, unit, meaning);\n"
    "                       --json: a JSON Schema of each result; --markdown: the\n"
    "                       columns tables of the plugin's page\n"
    "\n"
    "Options:\n"
    "  --set NAME=VALUE     override a variable declared under vars: (repeatable)\n"
    "  --input SPEC         run over many traces: a file, a folder (searched recursively\n"
    "                       for .json .json.gz .jsonl .sqlite .log .txt) or a glob; each\n"
    "                       trace is one run, read by the first reader whatever its path:\n"
    "                       says, with trace=PATH, trace_name=LABEL and out=OUT/LABEL when\n"
    "                       declared (a folder or glob as --set trace= or as the first\n"
    "                       reader's path: does the same)\n"
    "  -j, --jobs N         traces at once in a batch (default: the number of cores)\n"
    "  --max-memory SIZE    start no more traces than fit (estimated; 8G, 512M); batch\n"
    "                       stages, which hold every trace, only if all fit\n"
    "  --fail-if-slower PCT exit 3 when a diff analysis finds the test run more than\n"
    "                       PCT %% slower than the base (a CI regression gate)\n"
    "  --shard I/N          run only the I-th (from 0) of N deterministic shards of the\n"
    "                       traces (Slurm arrays, Kubernetes indexed jobs); then merge\n"
    "  --plugin-dir DIR     also load plugins from DIR (repeatable; wins over others)\n"
    "  --allow-plugin-path  let validate load the plugin_path: of the pipeline file\n"
    "  -q, --quiet          print errors only; no progress bar\n"
    "  -v, --verbose        also print what each stage did and how long it took\n"
    "  --no-progress        no progress bar even on a terminal\n"
    "  -h, --help           this help\n"
    "  --version            print the version\n"
    "\n"
    "A pipeline named without a path is looked for as pipelines/NAME.yaml here, then in\n"
    "$TRACEPIPE_PIPELINE_PATH (':'-separated), beside the program (../pipelines,\n"
    "../share/tracepipe/pipelines) and in the installed pipelines folder.\n"
    "A successful run says where each output went on standard error (not with -q).\n"
    "Plugins are searched in the build/installed plugin directory, $TRACEPIPE_PLUGIN_PATH,\n"
    "plugin_path: in the YAML (run only, unless --allow-plugin-path), and --plugin-dir,\n"
    "later ones winning. A plugin is code: files or directories writable by group or\n"
    "others, or owned by another user than you or root, are refused.\n"
    "Exit status: 0 success, 1 failure while running, 2 usage or configuration error,\n"
    "3 slower than --fail-if-slower allows.\n";

typedef struct cli {
    const char *command;
    const char *arg;
    tp_var *sets;
    size_t n_sets;
    const char **dirs;
    size_t n_dirs;
    int verbosity;
    int no_progress;
    int allow_plugin_path;
    const char *input; /* --input */
    long shard, nshards; /* --shard I/N; nshards 0: none */
    double fail_if_slower; /* percent; NaN: no gate */
    const char **args; /* merge: its folders */
    size_t n_args;
    const char *out;   /* merge --out */
    const char *batch_pipeline; /* merge --pipeline: its batch stages after merging */
    const char *batch_out;      /* merge: `out` for those batch stages */
    int jobs;          /* -j; 0: the number of cores */
    uint64_t max_memory;
    tp_spec *spec;     /* the pipeline file being run, read and parsed once */
    int declares_out, declares_trace_name, declares_trace;
    char *out_base;    /* out's value: --set, else the file's default */
    int describe_format; /* describe --json / --markdown (TP_DESCRIBE_*) */
} cli;

/* SIGINT, SIGTERM, SIGHUP: remove the temporary outputs being written,
 * then die of the signal (exit status 130, 143, 129 in a shell). */
static void on_terminating_signal(int sig)
{
    tp_remove_temp_files();
    signal(sig, SIG_DFL);
    raise(sig); /* blocked until the handler returns, then fatal */
}

static void handle_terminating_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* an ignored signal (nohup, a shell's background job) stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_terminating_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
}

/* What a command printed must have reached stdout (a full disk,
 * /dev/full, a closed pipe): otherwise the command failed.  A command that
 * failed already said why (a writer to stdout names the write error). */
static int finish_stdout(int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    if (rc != TP_EXIT_OK)
        return rc;
    fprintf(stderr, "pipeline: error: cannot write to standard output: %s\n",
            strerror(errno ? errno : EIO));
    return TP_EXIT_FAIL;
}

static int usage_error(const char *what, const char *arg)
{
    tp_print_line(stderr, "pipeline: %s%s%s", what, arg ? " " : "", arg ? arg : "");
    fputs("Try 'pipeline --help'.\n", stderr);
    return TP_EXIT_USAGE;
}

static int unknown_command(const char *cmd)
{
    static const char *const commands[] = {"run", "validate", "plugins", "describe", "merge"};
    const char *near = tp_closest(cmd, commands, 5);
    tp_print_line(stderr, "pipeline: unknown command '%s'%s%s%s", cmd,
                  near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
    fputs("Try 'pipeline --help'.\n", stderr);
    return TP_EXIT_USAGE;
}

static int add_set(cli *c, char *kv)
{
    char *eq = strchr(kv, '=');
    if (eq == NULL || eq == kv)
        return usage_error("--set needs NAME=VALUE, got", kv);
    *eq = '\0';
    c->sets[c->n_sets++] = (tp_var){kv, eq + 1};
    return 0;
}

/* "8G", "512M", "100K", "123" (bytes); 0 or -1. */
static int parse_size(const char *v, uint64_t *out)
{
    char *end;
    double x = strtod(v, &end);
    if (end == v || x <= 0)
        return -1;
    double unit = *end == 'K' || *end == 'k' ? 1024.0
                  : *end == 'M' || *end == 'm' ? 1048576.0
                  : *end == 'G' || *end == 'g' ? 1073741824.0
                  : *end == 'T' || *end == 't' ? 1099511627776.0
                                                : 1.0;
    if (unit > 1.0)
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end != '\0')
        return -1;
    *out = (uint64_t)(x * unit);
    return 0;
}

/* parse_args: --help and --version said all there is to say */
enum { DONE = -1 };

static int parse_args(cli *c, int argc, char **argv)
{
    c->verbosity = 1;
    c->fail_if_slower = NAN;
    c->sets = calloc((size_t)argc, sizeof *c->sets);
    c->dirs = calloc((size_t)argc, sizeof *c->dirs);
    c->args = calloc((size_t)argc, sizeof *c->args);
    if (c->sets == NULL || c->dirs == NULL || c->args == NULL)
        return TP_EXIT_FAIL;
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            fputs(usage_text, stdout);
            return DONE;
        } else if (strcmp(a, "--version") == 0) {
            printf("pipeline (tracepipe) %s, plugin ABI %d.%d\n", TP_VERSION, TP_ABI_MAJOR,
                   TP_ABI_MINOR);
            return DONE;
        } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
            c->verbosity = 0;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            c->verbosity++;
        } else if (strcmp(a, "--json") == 0) {
            c->describe_format = TP_DESCRIBE_JSON;
        } else if (strcmp(a, "--markdown") == 0) {
            c->describe_format = TP_DESCRIBE_MARKDOWN;
        } else if (strcmp(a, "--no-progress") == 0) {
            c->no_progress = 1;
        } else if (strcmp(a, "--allow-plugin-path") == 0) {
            c->allow_plugin_path = 1;
        } else if (strcmp(a, "--set") == 0 || strcmp(a, "--plugin-dir") == 0) {
            if (i + 1 >= argc)
                return usage_error("this option needs a value:", a);
            if (a[2] == 's') {
                if (add_set(c, argv[++i]))
                    return TP_EXIT_USAGE;
            } else {
                c->dirs[c->n_dirs++] = argv[++i];
            }
        } else if (strcmp(a, "--input") == 0 || strcmp(a, "-j") == 0 ||
                   strcmp(a, "--jobs") == 0 || strcmp(a, "--max-memory") == 0) {
            if (i + 1 >= argc)
                return usage_error("this option needs a value:", a);
            const char *v = argv[++i];
            if (a[2] == 'i')
                c->input = v;
            else if (a[2] == 'm' && parse_size(v, &c->max_memory) != 0)
                return usage_error("--max-memory needs a size such as 8G or 512M, got", v);
            else if ((a[1] == 'j' || a[2] == 'j') && (c->jobs = atoi(v)) < 1)
                return usage_error("-j needs a number of traces at once (1 or more), got", v);
        } else if (strcmp(a, "--fail-if-slower") == 0) {
            if (i + 1 >= argc)
                return usage_error("this option needs a value:", a);
            char *end;
            c->fail_if_slower = strtod(argv[++i], &end);
            if (end == argv[i] || *end != '\0' || !(c->fail_if_slower >= 0))
                return usage_error("--fail-if-slower needs a percentage (e.g. 5), got", argv[i]);
        } else if (strcmp(a, "--shard") == 0 || strcmp(a, "--out") == 0 ||
                   strcmp(a, "--pipeline") == 0) {
            if (i + 1 >= argc)
                return usage_error("this option needs a value:", a);
            const char *v = argv[++i];
            char *end;
            if (a[2] == 'o')
                c->out = v;
            else if (a[2] == 'p')
                c->batch_pipeline = v;
            else if ((c->shard = strtol(v, &end, 10)) < 0 || *end != '/' ||
                     (c->nshards = strtol(end + 1, &end, 10)) < 1 || *end != '\0' ||
                     c->shard >= c->nshards)
                return usage_error("--shard needs I/N with 0 <= I < N (e.g. 0/8), got", v);
        } else if (strncmp(a, "--input=", 8) == 0) {
            c->input = a + 8;
        } else if (strncmp(a, "--set=", 6) == 0) {
            if (add_set(c, a + 6))
                return TP_EXIT_USAGE;
        } else if (strncmp(a, "--plugin-dir=", 13) == 0) {
            c->dirs[c->n_dirs++] = a + 13;
        } else if (a[0] == '-' && a[1] != '\0') {
            return usage_error("unknown option", a);
        } else if (c->command == NULL) {
            c->command = a;
        } else if (c->arg == NULL) {
            c->arg = a;
            c->args[c->n_args++] = a;
        } else if (strcmp(c->command, "merge") == 0) {
            c->args[c->n_args++] = a;
        } else {
            return usage_error("unexpected argument", a);
        }
    }
    if (c->command == NULL) {
        fputs(usage_text, stderr);
        return TP_EXIT_USAGE;
    }
    return 0;
}

static tp_ctx *make_ctx(const cli *c, const char *argv0, tp_diags *d)
{
    tp_ctx *ctx = tp_ctx_new();
    if (ctx == NULL)
        return NULL;
    tp_ctx_add_default_dirs(ctx, argv0);
    /* only `run` executes a pipeline, so only `run` loads the code it names
     * unless asked */
    tp_ctx_set_pipeline_plugin_path(ctx, c->allow_plugin_path || strcmp(c->command, "run") == 0);
    for (size_t i = 0; i < c->n_dirs; i++)
        tp_ctx_add_dir(ctx, c->dirs[i]);
    tp_ctx_load_all(ctx, d);
    return ctx;
}

static int cmd_plugins(tp_ctx *ctx)
{
    size_t n = tp_ctx_stage_count(ctx);
    if (n == 0) {
        fprintf(stderr, "pipeline: no plugins found (set TRACEPIPE_PLUGIN_PATH or --plugin-dir)\n");
        return TP_EXIT_FAIL;
    }
    printf("%-9s %-20s %-8s %s\n", "KIND", "NAME", "VERSION", "SUMMARY");
    for (tp_stage_kind k = TP_STAGE_READER; k <= TP_STAGE_WRITER; k++) {
        for (size_t i = 0; i < n; i++) {
            const tp_plugin_desc *pd;
            const tp_stage_desc *s = tp_ctx_stage_at(ctx, i, &pd);
            if (s->kind == k)
                printf("%-9s %-20s %-8s %s\n", tp_stage_kind_name(k), s->name,
                       pd->version ? pd->version : "-", s->summary ? s->summary : "");
        }
    }
    return TP_EXIT_OK;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* A trace given where a pipeline belongs: by its name, or by its first
 * bytes (gzip, SQLite). */
static int looks_like_trace(const char *path)
{
    static const char *const suffixes[] = {".json", ".json.gz", ".gz", ".sqlite", ".nsys-rep",
                                           ".qdrep"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++)
        if (ends_with(path, suffixes[i]))
            return 1;
    unsigned char head[16] = {0};
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    return (n >= 2 && head[0] == 0x1f && head[1] == 0x8b) ||
           (n == 16 && memcmp(head, "SQLite format 3", 16) == 0);
}

static int is_file(const char *path) { return access(path, F_OK) == 0; }

/* path if dir/name.yaml exists (new string), else NULL. */
static char *pipeline_in(const char *dir, size_t dlen, const char *name)
{
    size_t size = dlen + strlen(name) + 7;
    char *path = malloc(size);
    if (path == NULL)
        return NULL;
    snprintf(path, size, "%.*s/%s.yaml", (int)dlen, dir, name);
    if (is_file(path))
        return path;
    free(path);
    return NULL;
}

/* A bundled pipeline by name: pipelines/NAME.yaml here, then each folder of
 * $TRACEPIPE_PIPELINE_PATH, then beside the program, then the installed
 * ones.  New string or NULL. */
static char *find_named_pipeline(const char *name)
{
    char *found = pipeline_in("pipelines", 9, name);
    const char *env = getenv("TRACEPIPE_PIPELINE_PATH");
    for (const char *p = env; found == NULL && p && *p;) {
        size_t len = strcspn(p, ":");
        if (len > 0)
            found = pipeline_in(p, len, name);
        p += len + (p[len] == ':');
    }
    /* beside this program: a build tree (build/pipeline, pipelines/) or an
     * install moved elsewhere (bin/pipeline, share/tracepipe/pipelines) */
    static const char *const beside[] = {"/../pipelines", "/../share/tracepipe/pipelines"};
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    char *slash = n > 0 ? (exe[n] = '\0', strrchr(exe, '/')) : NULL;
    for (size_t i = 0; found == NULL && slash && i < 2; i++) {
        char dir[4200];
        int len = snprintf(dir, sizeof dir, "%.*s%s", (int)(slash - exe), exe, beside[i]);
        found = pipeline_in(dir, (size_t)len, name);
    }
    if (found == NULL)
        found = pipeline_in(TP_DEFAULT_PIPELINE_DIR, strlen(TP_DEFAULT_PIPELINE_DIR), name);
    return found;
}

/* The pipeline file to load for the command's argument (new string), or
 * NULL after saying why. */
static char *resolve_pipeline(const char *arg)
{
    if (!is_file(arg) && strchr(arg, '/') == NULL && !ends_with(arg, ".yaml") &&
        !ends_with(arg, ".yml")) {
        char *found = find_named_pipeline(arg);
        if (found)
            return found;
        tp_print_line(stderr, "pipeline: error: no pipeline file '%s' and no bundled pipeline "
                      "named '%s' (looked in pipelines/, $TRACEPIPE_PIPELINE_PATH, beside "
                      "the program and in %s)",
                      arg, arg, TP_DEFAULT_PIPELINE_DIR);
        return NULL;
    }
    if (is_file(arg) && looks_like_trace(arg)) {
        tp_print_line(stderr, "pipeline: error: %s is a trace, not a pipeline; run a pipeline "
                      "on it, e.g.: pipeline run dlrm_breakdown --set trace=%s", arg, arg);
        return NULL;
    }
    return strdup(arg);
}

/* --fail-if-slower: every result noting "slower_percent" (diff's summary)
 * against the limit; TP_EXIT_SLOWER past it, after saying so. */
static int slower_gate(const cli *c, const tp_run *run, int rc)
{
    if (rc != TP_EXIT_OK || isnan(c->fail_if_slower) || run == NULL)
        return rc;
    int seen = 0;
    for (size_t i = 0; i < tp_run_result_count(run); i++) {
        const tp_result *r = tp_run_result_at(run, i);
        const char *v = tp_result_meta_get(r, "slower_percent");
        if (v == NULL)
            continue;
        seen = 1;
        double pct = strtod(v, NULL);
        if (pct > c->fail_if_slower) {
            fprintf(stderr, "pipeline: the test run is %.2f %% slower than the base (result %s), "
                    "more than --fail-if-slower %g\n", pct, tp_result_get_id(r), c->fail_if_slower);
            return TP_EXIT_SLOWER;
        }
        if (c->verbosity > 0)
            fprintf(stderr, "pipeline: the test run is %.2f %% slower than the base (result %s): "
                    "within --fail-if-slower %g\n", pct, tp_result_get_id(r), c->fail_if_slower);
    }
    if (!seen) {
        fprintf(stderr, "pipeline: error: --fail-if-slower needs a diff analysis in the pipeline "
                "(trace: [base, test]); none made a comparison\n");
        return TP_EXIT_USAGE;
    }
    return rc;
}

/* ---------------------------------------------------------------- batch */

typedef struct batch_ctx {
    tp_ctx *ctx;
    const cli *c;
} batch_ctx;

static int is_var(const tp_var *v, const char *name) { return strcmp(v->name, name) == 0; }

/* One trace of a batch, in its child process: the pipeline loaded with
 * trace, trace_name and out set for it, then run. */
static int run_one_trace(void *arg, const tp_batch_trace *t, const tp_batch_list *l)
{
    const batch_ctx *b = arg;
    const cli *c = b->c;
    (void)l;
    tp_var *sets = calloc(c->n_sets + 3, sizeof *sets);
    char *out = NULL;
    if (sets == NULL)
        return TP_EXIT_FAIL;
    size_t n = 0;
    for (size_t i = 0; i < c->n_sets; i++)
        if (!is_var(&c->sets[i], "trace") && !is_var(&c->sets[i], "trace_name") &&
            !(c->declares_out && is_var(&c->sets[i], "out")))
            sets[n++] = c->sets[i];
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
    tp_pipeline *p = tp_pipeline_load_spec(b->ctx, c->spec, sets, n, t->path, &d);
    tp_diags_print(&d, stderr);
    tp_diags_free(&d);
    int rc = TP_EXIT_USAGE;
    if (p != NULL) {
        tp_run_opts opts = {.verbosity = c->verbosity, .report_outputs = c->verbosity > 0,
                            .skip_batch = 1};
        opts.has_rank_hint = tp_batch_rank_of_label(t->label, &opts.rank_hint);
        tp_run *run = NULL;
        rc = tp_pipeline_run(p, &opts, &run) == TP_OK ? TP_EXIT_OK : TP_EXIT_FAIL;
        rc = slower_gate(c, run, rc);
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
static const char *batch_spec(const cli *c, const tp_ctx *ctx, const tp_spec *spec)
{
    if (c->input)
        return c->input;
    for (size_t i = c->n_sets; i-- > 0;)
        if (is_var(&c->sets[i], "trace"))
            return is_many(c->sets[i].value) ? c->sets[i].value : NULL;
    const char *def = NULL;
    if (tp_spec_var(spec, "trace", &def) == 1 && def && !strstr(def, "${") && is_many(def))
        return def;
    def = tp_spec_reader_input(spec, ctx); /* a folder or glob written as the reader's */
    if (def && !strstr(def, "${") && is_many(def))
        return def;
    return NULL;
}

static int merge_into(const cli *c, const char *const *roots, size_t n, const char *out, int rc);

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
        if (!is_var(&c->sets[i], "trace") && !is_var(&c->sets[i], "trace_name") &&
            !(c->batch_out && is_var(&c->sets[i], "out")))
            sets[n++] = c->sets[i];
    if (c->declares_trace)
        sets[n++] = (tp_var){"trace", first};
    if (c->batch_out && c->declares_out)
        sets[n++] = (tp_var){"out", c->batch_out};
    tp_diags d = {0};
    tp_pipeline *p = tp_pipeline_load_spec(ctx, c->spec, sets, n, first, &d);
    tp_diags_print(&d, stderr);
    tp_diags_free(&d);
    free(sets);
    return p;
}

/* The `batch: true` stages, once, over every trace that went through: the
 * pipeline loaded with the first of them as `trace` (and `out` as given),
 * then a reader per trace and the batch stages (tp_pipeline_for_batch).
 * rc is the status so far. */
static int run_batch_stages(tp_ctx *ctx, const cli *c, const tp_batch_list *l, int rc)
{
    size_t nok = 0;
    const char **paths = calloc(l->n ? l->n : 1, sizeof *paths);
    const char **labels = calloc(l->n ? l->n : 1, sizeof *labels);
    if (paths == NULL || labels == NULL) {
        free(paths);
        free(labels);
        return TP_EXIT_FAIL;
    }
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].exit_code == 0) {
            labels[nok] = l->v[i].label;
            paths[nok++] = l->v[i].path;
        }
    tp_pipeline *p = nok > 0 ? load_batch_pipeline(ctx, c, paths[0]) : NULL;
    if (nok > 0 && p == NULL && rc == TP_EXIT_OK)
        rc = TP_EXIT_USAGE;
    size_t nb = p ? tp_pipeline_batch_stages(p) : 0;
    uint64_t need = TP_BATCH_PROCESS_BYTES; /* batch stages hold every trace at once */
    for (size_t i = 0; i < nok; i++)
        need += tp_batch_trace_bytes(paths[i]);
    if (nb > 0 && c->max_memory > 0 && need > c->max_memory) {
        tp_print_line(stderr, "pipeline: error: the %zu batch stage(s) would hold all %zu "
                      "traces at once, about %.1f MiB (estimated), more than --max-memory "
                      "%.1f MiB: not run", nb, nok, (double)need / (1u << 20),
                      (double)c->max_memory / (1u << 20));
        nb = 0;
        rc = rc == TP_EXIT_OK ? TP_EXIT_FAIL : rc;
    }
    if (nb > 0) {
        char err[4200];
        tp_pipeline *b = tp_pipeline_for_batch(p, paths, labels, nok, err, sizeof err);
        if (b == NULL) {
            tp_print_line(stderr, "pipeline: error: %s", err);
            rc = TP_EXIT_USAGE;
        } else {
            if (c->verbosity > 0)
                fprintf(stderr, "pipeline: batch: %zu batch stage(s) over %zu trace(s)\n", nb, nok);
            tp_run_opts opts = {.verbosity = c->verbosity, .report_outputs = c->verbosity > 0};
            tp_run *run = NULL;
            int brc = tp_pipeline_run(b, &opts, &run) == TP_OK ? TP_EXIT_OK : TP_EXIT_FAIL;
            brc = slower_gate(c, run, brc);
            tp_run_free(run);
            tp_pipeline_free(b);
            if (rc == TP_EXIT_OK)
                rc = brc;
        }
    }
    tp_pipeline_free(p);
    free(paths);
    free(labels);
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
        if (is_var(&c->sets[i], "out")) {
            free(c->out_base);
            c->out_base = strdup(c->sets[i].value);
        }
    /* the first reader reads each trace (tp_ctx_set_input); `trace` is set too when declared */
    c->declares_trace = has_trace == 1;
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
            fprintf(stderr, "pipeline: batch: skipped %s: no %s trace\n", l->v[i].path,
                    strcmp(reader, "auto") == 0 ? "known" : reader);
        free(l->v[i].path);
        free(l->v[i].label);
        skipped++;
    }
    l->n = k;
    if (skipped > 0 && c->verbosity > 0)
        fprintf(stderr, "pipeline: batch: %zu file(s) of %s skipped: not %s traces (-v names "
                "them)\n", skipped, spec,
                strcmp(reader, "auto") == 0 ? "known" : reader);
}

static int cmd_batch(tp_ctx *ctx, cli *c, const char *spec)
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
    if (l.n > 1 && !c->declares_out && !c->declares_trace_name) {
        tp_print_line(stderr, "pipeline: error: %s: %zu traces would write the same outputs: "
                      "declare `out:` (each trace gets OUT/LABEL) or `trace_name:` under vars: "
                      "and use ${trace_name} in the output paths", tp_spec_file(c->spec), l.n);
        tp_batch_list_free(&l);
        return TP_EXIT_USAGE;
    }
    size_t *positions = NULL;
    if (c->nshards > 0 && keep_shard(c, &l, &positions) != TP_OK) {
        tp_batch_list_free(&l);
        return TP_EXIT_FAIL;
    }
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    batch_ctx b = {ctx, c};
    tp_batch_opts o = {.jobs = c->jobs ? c->jobs : (int)(cores > 0 ? cores : 1),
                       .max_memory = c->max_memory,
                       .verbosity = c->verbosity,
                       .ctx = &b,
                       .run_one = run_one_trace};
    if (c->verbosity > 0)
        fprintf(stderr, "pipeline: batch: %zu trace(s) from %s, %d at once%s\n", l.n, spec,
                o.jobs, c->declares_out ? ", each writing to OUT/LABEL" : "");
    int rc = l.n > 0 ? tp_batch_run(&o, &l) : TP_EXIT_OK;
    if (c->nshards > 0) {
        /* a shard sees some traces only: the batch tables and stages wait
         * for `pipeline merge`, which the manifest tells every shard is done */
        if (c->declares_out) {
            const char *out = c->out_base ? c->out_base : ".";
            if (tp_shard_manifest_write(out, c->shard, c->nshards, &l, positions, err,
                                        sizeof err) != TP_OK) {
                tp_print_line(stderr, "pipeline: error: shard manifest: %s", err);
                rc = rc == TP_EXIT_OK ? TP_EXIT_FAIL : rc;
            } else if (c->verbosity > 0) {
                fprintf(stderr, "pipeline: shard done; when every shard is: pipeline merge %s "
                        "[--pipeline %s]\n", out, c->arg);
            }
        }
    } else {
        /* the tables first, so batch stages can read them (OUT/NAME.csv) */
        if (c->declares_out)
            rc = merge_into(c, (const char *const *)&c->out_base, 1, c->out_base, rc);
        rc = run_batch_stages(ctx, c, &l, rc);
    }
    free(positions);
    tp_batch_list_free(&l);
    return rc;
}

/* The batch tables of roots into out; rc is the status so far. */
static int merge_into(const cli *c, const char *const *roots, size_t n, const char *out, int rc)
{
    char err[4200] = "";
    size_t merged = 0;
    if (tp_merge_tables(roots, n, out ? out : ".", &merged, err, sizeof err) != TP_OK) {
        tp_print_line(stderr, "pipeline: error: merging the batch tables: %s", err);
        return rc == TP_EXIT_OK ? TP_EXIT_FAIL : rc;
    }
    if (c->verbosity > 0)
        fprintf(stderr, "pipeline: batch: %zu table(s) merged into %s (a row per trace row, "
                "first column trace)\n", merged, out ? out : ".");
    return rc;
}

/* The traces the shards' manifests list that failed, one line each; 1 if any. */
static int report_shard_failures(const tp_batch_list *l)
{
    size_t failed = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i].exit_code != 0) {
            tp_print_line(stderr, "pipeline: merge: %s failed in its shard (exit %d): %s",
                          l->v[i].label, l->v[i].exit_code, l->v[i].path);
            failed++;
        }
    if (failed > 0)
        fprintf(stderr, "pipeline: merge: %zu of %zu trace(s) failed in the shards\n", failed,
                l->n);
    return failed > 0;
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
    char *file = resolve_pipeline(c->batch_pipeline);
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
    while (first < l->n && l->v[first].exit_code != 0)
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

static int cmd_merge(tp_ctx *ctx, cli *c)
{
    if (c->n_args == 0)
        return usage_error("merge needs the batch output folders", NULL);
    const char *out = c->out ? c->out : c->args[0];
    tp_batch_list l;
    long nshards = 0;
    char err[4200] = "";
    if (tp_shard_manifests_read(c->args, c->n_args, &l, &nshards, err, sizeof err) != TP_OK) {
        tp_print_line(stderr, "pipeline: error: %s", err[0] ? err : "out of memory");
        return TP_EXIT_FAIL;
    }
    int rc = c->batch_pipeline ? check_merge_pipeline(ctx, c, &l, nshards, out) : TP_EXIT_OK;
    if (rc == TP_EXIT_OK)
        rc = merge_into(c, c->args, c->n_args, out, TP_EXIT_OK);
    if (rc == TP_EXIT_OK && c->batch_pipeline)
        rc = run_batch_stages(ctx, c, &l, rc);
    if (report_shard_failures(&l) && rc == TP_EXIT_OK)
        rc = TP_EXIT_FAIL;
    free(c->out_base);
    c->out_base = NULL;
    tp_spec_free(c->spec);
    c->spec = NULL;
    tp_batch_list_free(&l);
    return rc;
}

/* A bundled pipeline run by name outside the source folder reads its
 * sample trace relative to that folder: say how to give one's own. */
static void sample_hint(const cli *c, int bundled_elsewhere)
{
    for (size_t i = 0; i < c->n_sets; i++)
        if (is_var(&c->sets[i], "trace"))
            return;
    if (bundled_elsewhere && c->input == NULL && c->verbosity > 0)
        fprintf(stderr, "pipeline: hint: the bundled pipeline '%s' reads a sample trace of the "
                "tracepipe sources by default; give yours: pipeline %s %s --set trace=FILE (or "
                "--input FILE|DIR)\n", c->arg, c->command, c->arg);
}

static int cmd_pipeline(tp_ctx *ctx, cli *c, tp_diags *d)
{
    if (c->arg == NULL)
        return usage_error("this command needs a pipeline file:", c->command);
    char *file = resolve_pipeline(c->arg);
    if (file == NULL)
        return TP_EXIT_USAGE;
    int bundled_elsewhere = strcmp(file, c->arg) != 0 && strncmp(file, "pipelines/", 10) != 0;
    c->spec = tp_spec_read_file(file, d);
    free(file);
    const char *batch = c->spec && strcmp(c->command, "run") == 0 ? batch_spec(c, ctx, c->spec)
                                                                  : NULL;
    if (batch != NULL) {
        tp_diags_print(d, stderr);
        int rc = cmd_batch(ctx, c, batch);
        free(c->out_base);
        tp_spec_free(c->spec);
        return rc;
    }
    tp_pipeline *p = c->spec ? tp_pipeline_load_spec(ctx, c->spec, c->sets, c->n_sets, NULL, d)
                             : NULL;
    tp_spec_free(c->spec);
    c->spec = NULL;
    tp_diags_print(d, stderr);
    if (p == NULL) {
        sample_hint(c, bundled_elsewhere);
        return TP_EXIT_USAGE;
    }
    if (strcmp(c->command, "validate") == 0) {
        if (c->verbosity > 0)
            printf("%s: ok (%zu stages)\n", c->arg, tp_pipeline_stage_count(p));
        tp_pipeline_free(p);
        return TP_EXIT_OK;
    }
    tp_run_opts opts = {.verbosity = c->verbosity,
                        .progress = c->verbosity > 0 && !c->no_progress && isatty(2),
                        .report_outputs = c->verbosity > 0};
    tp_run *run = NULL;
    int rc = tp_pipeline_run(p, &opts, &run) == TP_OK ? TP_EXIT_OK : TP_EXIT_FAIL;
    rc = slower_gate(c, run, rc);
    if (rc == TP_EXIT_FAIL)
        sample_hint(c, bundled_elsewhere);
    tp_run_free(run);
    tp_pipeline_free(p);
    return rc;
}

int main(int argc, char **argv)
{
    cli c = {0};
    int rc = parse_args(&c, argc, argv);
    if (rc != 0) {
        free(c.sets);
        free(c.dirs);
        free(c.args);
        return finish_stdout(rc == DONE ? TP_EXIT_OK : rc);
    }
    handle_terminating_signals();
    tp_diags d = {0};
    tp_ctx *ctx = make_ctx(&c, argv[0], &d);
    if (ctx == NULL) {
        fprintf(stderr, "pipeline: out of memory\n");
        return TP_EXIT_FAIL;
    }
    if (strcmp(c.command, "run") == 0 || strcmp(c.command, "validate") == 0) {
        rc = cmd_pipeline(ctx, &c, &d);
    } else {
        tp_diags_print(&d, stderr);
        if (strcmp(c.command, "merge") == 0)
            rc = cmd_merge(ctx, &c);
        else if (strcmp(c.command, "plugins") == 0)
            rc = cmd_plugins(ctx);
        else if (strcmp(c.command, "describe") == 0)
            rc = c.arg ? tp_cli_describe(ctx, c.arg, c.describe_format)
                       : usage_error("describe needs a stage name (see 'pipeline plugins')", NULL);
        else
            rc = unknown_command(c.command);
    }
    tp_diags_free(&d);
    tp_ctx_free(ctx);
    free(c.sets);
    free(c.dirs);
    free(c.args);
    return finish_stdout(rc);
}
