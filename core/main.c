/*
 * pipeline — the tracepipe command line.
 *
 *   pipeline run PIPELINE [--set k=v]... [-q|-v] [--plugin-dir DIR]...
 *                [--input FILE|DIR|GLOB [-j N] [--max-memory SIZE] [--captures GLOB]
 *                 [--shard I/N|auto[/N]]]
 *                [--fail-if EXPR]... [--fail-if-slower PCT]
 *   pipeline merge DIR... [--out OUT] [--pipeline PIPELINE [--set k=v]...]
 *   pipeline slurm PIPELINE --input DIR --shards N [--set k=v]... [--out OUT]
 *                  [--submit] [-- SBATCH-OPTION...]
 *   pipeline validate PIPELINE [--set k=v]... [--allow-plugin-path]
 *
 * PIPELINE is a file, or the name of a bundled pipeline.
 *   pipeline plugins
 *   pipeline describe NAME
 *
 * Exit codes: 0 ok, 1 failure while running, 2 usage or configuration error,
 * 3 a gate tripped (--fail-if, fail_if:, --fail-if-slower); a batch
 * exits with its traces' worst, 1 > 2 > 3 > 0 (tp_exit_worst).
 */
#include "batch/tp_batch.h"
#include "tp_cli.h"
#include "tp_schema.h"
#include "tp_loader.h"
#include "tp_options.h"

#include <ctype.h>
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
    "  slurm PIPELINE       print a script submitting a Slurm job array of --shards N\n"
    "                       tasks over --input DIR (--shard auto), and a merge job after\n"
    "                       it; --submit runs it (sbatch); --out OUT the shared outputs\n"
    "                       folder; options after -- go to sbatch (docs/cluster.md)\n"
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
    "  --captures GLOB      in a batch, the file names of graph capture traces (default\n"
    "                       '*graph_capture*', vLLM's graph_capture_rank_N): not runs, but\n"
    "                       each given to its rank's trace as the variable capture\n"
    "  --fail-if EXPR       exit 3 when EXPR holds for a row of the run's results, e.g.\n"
    "                       'advice.severity >= warn', 'kernels[name=~\"nccl\"].sum_us\n"
    "                       > 5000', 'st.devices.idle_us / window_us > 0.15'\n"
    "                       (repeatable; checked by validate; the language: docs/gates.md,\n"
    "                       also a pipeline's top-level fail_if: list)\n"
    "  --fail-if-slower PCT exit 3 when a diff analysis finds the test run more than\n"
    "                       PCT % slower than the base (a CI regression gate): short for\n"
    "                       --fail-if '<diff id>.summary.slower_percent > PCT'\n"
    "  --shard I/N          run only the I-th (from 0) of N deterministic shards of the\n"
    "                       traces, then merge; --shard auto[/N]: I and N from\n"
    "                       TRACEPIPE_SHARD=I/N, a Slurm job array or a Kubernetes\n"
    "                       Indexed Job (N from auto/N or TRACEPIPE_SHARD_COUNT)\n"
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
    "3 a gate tripped (--fail-if, fail_if:, --fail-if-slower); a batch's is its traces'\n"
    "worst (1 > 2 > 3).\n";

/* SIGINT, SIGTERM, SIGHUP: remove the temporary outputs being written,
 * then die of the signal (exit status 130, 143, 129 in a shell). */
static void on_terminating_signal(int sig)
{
    tp_remove_temp_files();
    signal(sig, SIG_DFL);
    raise(sig); /* blocked until the handler returns, then fatal */
}

/* A closed stdout (`pipeline run X | head`) ends the text output only:
 * writes to it fail with EPIPE instead of killing the process, so the file
 * writers after a text writer still run; finish_stdout says what happened. */
static void handle_terminating_signals(void)
{
    signal(SIGPIPE, SIG_IGN);
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

/* stdio keeps only an error flag for stdout, and by the time the command
 * ends errno says something else: stdout goes through a stream of our own
 * whose writes remember the first error, so the message names it. */
static int stdout_errno;

static ssize_t stdout_write(void *cookie, const char *buf, size_t size)
{
    (void)cookie;
    size_t done = 0;
    while (done < size) {
        ssize_t w = write(STDOUT_FILENO, buf + done, size - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0) {
            if (stdout_errno == 0)
                stdout_errno = errno;
            return done ? (ssize_t)done : -1;
        }
        done += (size_t)w;
    }
    return (ssize_t)done;
}

static void track_stdout_errors(void)
{
    cookie_io_functions_t io = {.read = NULL, .write = stdout_write, .seek = NULL, .close = NULL};
    FILE *f = fopencookie(NULL, "w", io);
    if (f == NULL)
        return; /* stdout as it is: errors then read as EIO */
    setvbuf(f, NULL, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF, BUFSIZ);
    fflush(stdout);
    stdout = f;
}

/* What a command printed must have reached stdout (a full disk,
 * /dev/full): otherwise the command failed.  A command that failed already
 * said why (a writer to stdout names the write error).  A reader that
 * closed the pipe early (`| head`) cut the text output only: the stages
 * and their files are done, and the status is 141 (128 + SIGPIPE), what a
 * shell reports for a command the closed pipe ended. */
static int finish_stdout(int rc)
{
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return rc;
    if (rc != TP_EXIT_OK)
        return rc;
    if (stdout_errno == EPIPE) {
        fprintf(stderr, "pipeline: standard output was closed early: the text output stopped "
                "there; every stage ran and its files were written (exit %d)\n", TP_EXIT_PIPE);
        return TP_EXIT_PIPE;
    }
    int why = stdout_errno ? stdout_errno : errno ? errno : EIO;
    fprintf(stderr, "pipeline: error: cannot write to standard output: %s\n", strerror(why));
    return TP_EXIT_FAIL;
}
static int unknown_command(const char *cmd)
{
    static const char *const commands[] = {"run", "validate", "plugins", "describe", "merge", "slurm"};
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
        return tp_cli_usage_error("--set needs NAME=VALUE, got", kv);
    *eq = '\0';
    c->sets[c->n_sets++] = (tp_var){kv, eq + 1};
    return 0;
}

/* "8G", "512M", "100K", "123" (bytes): a finite size of at least 1 MiB
 * (one trace's process alone takes 32); 0 or -1. */
static int parse_size(const char *v, uint64_t *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (end == v || errno != 0 || !isfinite(x) || x <= 0 || !isdigit((unsigned char)v[0]) ||
        strspn(v, "0123456789.eE+-") != (size_t)(end - v)) /* (no hexadecimal) */
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
    if (*end != '\0' || x * unit < 1048576.0 || x * unit > 9.0e18)
        return -1;
    *out = (uint64_t)(x * unit);
    return 0;
}

#define TP_STR_(x) #x
#define TP_STR(x) TP_STR_(x)

/* parse_args: --help and --version said all there is to say */
enum { DONE = -1 };

static int parse_args(cli *c, int argc, char **argv)
{
    c->verbosity = 1;
    c->fail_if_slower = NAN;
    c->sets = calloc((size_t)argc, sizeof *c->sets);
    c->dirs = calloc((size_t)argc, sizeof *c->dirs);
    c->args = calloc((size_t)argc, sizeof *c->args);
    c->fail_if = calloc((size_t)argc, sizeof *c->fail_if);
    if (c->sets == NULL || c->dirs == NULL || c->args == NULL || c->fail_if == NULL)
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
        } else if (strcmp(a, "--submit") == 0) {
            c->submit = 1;
        } else if (strcmp(a, "--") == 0 && c->command && strcmp(c->command, "slurm") == 0) {
            c->sbatch = (const char *const *)argv + i + 1;
            c->n_sbatch = (size_t)(argc - i - 1);
            break;
        } else if (strcmp(a, "--shards") == 0) {
            if (i + 1 >= argc)
                return tp_cli_usage_error("this option needs a value:", a);
            if (tp_cli_parse_count(argv[++i], 1, TP_BATCH_MAX_SHARDS, &c->nshards) != 0)
                return tp_cli_usage_error("--shards needs a number of array tasks, 1 to "
                                          TP_STR(TP_BATCH_MAX_SHARDS) ", got", argv[i]);
        } else if (strcmp(a, "--allow-plugin-path") == 0) {
            c->allow_plugin_path = 1;
        } else if (strcmp(a, "--set") == 0 || strcmp(a, "--plugin-dir") == 0) {
            if (i + 1 >= argc)
                return tp_cli_usage_error("this option needs a value:", a);
            if (a[2] == 's') {
                if (add_set(c, argv[++i]))
                    return TP_EXIT_USAGE;
            } else {
                c->dirs[c->n_dirs++] = argv[++i];
            }
        } else if (strcmp(a, "--input") == 0 || strcmp(a, "-j") == 0 ||
                   strcmp(a, "--jobs") == 0 || strcmp(a, "--max-memory") == 0) {
            if (i + 1 >= argc)
                return tp_cli_usage_error("this option needs a value:", a);
            const char *v = argv[++i];
            long jobs = 0;
            if (a[2] == 'i')
                c->input = v;
            else if (a[2] == 'm' && parse_size(v, &c->max_memory) != 0)
                return tp_cli_usage_error("--max-memory needs a size of at least 1M, such as 8G "
                                          "or 512M, got", v);
            else if ((a[1] == 'j' || a[2] == 'j') && tp_cli_parse_count(v, 1, TP_BATCH_MAX_JOBS, &jobs))
                return tp_cli_usage_error("-j needs a number of traces at once, 1 to "
                                          TP_STR(TP_BATCH_MAX_JOBS) ", got", v);
            else if (a[1] == 'j' || a[2] == 'j')
                c->jobs = (int)jobs;
        } else if (strcmp(a, "--captures") == 0) {
            if (i + 1 >= argc)
                return tp_cli_usage_error("this option needs a value:", a);
            c->capture_glob = argv[++i];
        } else if (strcmp(a, "--fail-if") == 0) {
            if (i + 1 >= argc)
                return tp_cli_usage_error("this option needs a value:", a);
            c->fail_if[c->n_fail_if++] = argv[++i];
        } else if (strncmp(a, "--fail-if=", 10) == 0) {
            c->fail_if[c->n_fail_if++] = a + 10;
        } else if (strcmp(a, "--fail-if-slower") == 0) {
            if (i + 1 >= argc)
                return tp_cli_usage_error("this option needs a value:", a);
            char *end;
            c->fail_if_slower = strtod(argv[++i], &end);
            if (end == argv[i] || *end != '\0' || !(c->fail_if_slower >= 0))
                return tp_cli_usage_error("--fail-if-slower needs a percentage (e.g. 5), got", argv[i]);
        } else if (strcmp(a, "--shard") == 0 || strcmp(a, "--out") == 0 ||
                   strcmp(a, "--pipeline") == 0) {
            if (i + 1 >= argc)
                return tp_cli_usage_error("this option needs a value:", a);
            const char *v = argv[++i];
            if (a[2] == 'o')
                c->out = v;
            else if (a[2] == 'p')
                c->batch_pipeline = v;
            else if (tp_cli_shard(c, v) != 0)
                return TP_EXIT_USAGE;
        } else if (strncmp(a, "--input=", 8) == 0) {
            c->input = a + 8;
        } else if (strncmp(a, "--set=", 6) == 0) {
            if (add_set(c, a + 6))
                return TP_EXIT_USAGE;
        } else if (strncmp(a, "--plugin-dir=", 13) == 0) {
            c->dirs[c->n_dirs++] = a + 13;
        } else if (a[0] == '-' && a[1] != '\0') {
            return tp_cli_usage_error("unknown option", a);
        } else if (c->command == NULL) {
            c->command = a;
        } else if (c->arg == NULL) {
            c->arg = a;
            c->args[c->n_args++] = a;
        } else if (strcmp(c->command, "merge") == 0) {
            c->args[c->n_args++] = a;
        } else {
            return tp_cli_usage_error("unexpected argument", a);
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

/* A bundled pipeline run by name outside the source folder reads its
 * sample traces relative to that folder: say how to give one's own, by the
 * variables its readers name (trace; diff's base and test).  The text is
 * made while the pipeline file is at hand, printed if the run fails. */
static void sample_hint(const cli *c, const tp_spec *spec, int bundled_elsewhere, char *out,
                        size_t size)
{
    const char *names[8];
    size_t n = spec && bundled_elsewhere && c->input == NULL ? tp_spec_reader_vars(spec, names, 8)
                                                             : 0;
    out[0] = '\0';
    for (size_t i = 0; i < c->n_sets; i++)
        for (size_t j = 0; j < n; j++)
            if (tp_cli_is_var(&c->sets[i], names[j]))
                return;
    size_t used = 0;
    for (size_t j = 0; j < n && used < size; j++)
        used += (size_t)snprintf(out + used, size - used, " --set %s=FILE", names[j]);
}

static void print_hint(const cli *c, const char *sets)
{
    if (sets[0] != '\0' && c->verbosity > 0)
        fprintf(stderr, "pipeline: hint: the bundled pipeline '%s' reads sample traces of the "
                "tracepipe sources by default; give yours: pipeline %s %s%s (or --input "
                "FILE|DIR)\n", c->arg, c->command, c->arg, sets);
}

static int cmd_pipeline(tp_ctx *ctx, cli *c, tp_diags *d)
{
    if (c->arg == NULL)
        return tp_cli_usage_error("this command needs a pipeline file:", c->command);
    char *file = tp_cli_resolve_pipeline(c->arg);
    if (file == NULL)
        return TP_EXIT_USAGE;
    int bundled_elsewhere = strcmp(file, c->arg) != 0 && strncmp(file, "pipelines/", 10) != 0;
    c->spec = tp_spec_read_file(file, d);
    free(file);
    char hint[256];
    sample_hint(c, c->spec, bundled_elsewhere, hint, sizeof hint);
    const char *batch = c->spec && strcmp(c->command, "run") == 0 ? tp_cli_batch_spec(c, ctx, c->spec)
                                                                  : NULL;
    if (batch != NULL) {
        tp_diags_print(d, stderr);
        int rc = tp_cli_batch(ctx, c, batch);
        if (rc == TP_EXIT_USAGE || rc == TP_EXIT_FAIL)
            print_hint(c, hint);
        free(c->out_base);
        tp_spec_free(c->spec);
        return rc;
    }
    tp_pipeline *p = c->spec ? tp_cli_load(ctx, c, c->sets, c->n_sets, NULL, d) : NULL;
    tp_spec_free(c->spec);
    c->spec = NULL;
    tp_diags_print(d, stderr);
    if (p == NULL) {
        print_hint(c, hint);
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
    rc = tp_cli_gates(c, p, run, rc);
    if (rc == TP_EXIT_FAIL)
        print_hint(c, hint);
    tp_run_free(run);
    tp_pipeline_free(p);
    return rc;
}

int main(int argc, char **argv)
{
    cli c = {0};
    track_stdout_errors();
    int rc = parse_args(&c, argc, argv);
    if (rc != 0) {
        free(c.sets);
        free(c.dirs);
        free(c.args);
        free(c.fail_if);
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
            rc = tp_cli_merge(ctx, &c);
        else if (strcmp(c.command, "slurm") == 0)
            rc = tp_cli_slurm(&c);
        else if (strcmp(c.command, "plugins") == 0)
            rc = cmd_plugins(ctx);
        else if (strcmp(c.command, "describe") == 0)
            rc = c.arg ? tp_cli_describe(ctx, c.arg, c.describe_format)
                       : tp_cli_usage_error("describe needs a stage name (see 'pipeline plugins')", NULL);
        else
            rc = unknown_command(c.command);
    }
    tp_diags_free(&d);
    tp_ctx_free(ctx);
    free(c.sets);
    free(c.dirs);
    free(c.args);
    free(c.fail_if);
    return finish_stdout(rc);
}

