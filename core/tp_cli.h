/* Core-internal: the command line of `pipeline` (main.c) and what its
 * commands share: the parsed options, finding a pipeline by name, the
 * --fail-if-slower gate (tp_cli.c), and the batch and merge commands
 * (core/batch/tp_batch_cli.c). */
#ifndef TRACEPIPE_TP_CLI_H
#define TRACEPIPE_TP_CLI_H

#include "tp_core.h"
#include "tp_spec.h"

#include <stdint.h>

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
    const char **fail_if;  /* --fail-if EXPR, in order (docs/gates.md) */
    size_t n_fail_if;
    const char **args; /* merge: its folders */
    size_t n_args;
    const char *out;   /* merge --out */
    const char *batch_pipeline; /* merge --pipeline: its batch stages after merging */
    const char *batch_out;      /* merge: `out` for those batch stages */
    int jobs;          /* -j; 0: the number of cores */
    uint64_t max_memory;
    tp_spec *spec;     /* the pipeline file being run, read and parsed once */
    int declares_out, declares_trace_name, declares_trace;
    int declares_capture;     /* a batch pairs capture traces by rank into `capture` */
    const char *capture_glob; /* --captures: capture traces' file names (NULL: the default) */
    char *out_base;    /* out's value: --set, else the file's default */
    int describe_format; /* describe --json / --markdown (TP_DESCRIBE_*) */
    int submit;                /* slurm --submit */
    const char *const *sbatch; /* slurm: the options after `--`, for sbatch */
    size_t n_sbatch;
} cli;

/* "pipeline: WHAT ARG" and the --help hint on stderr; TP_EXIT_USAGE. */
int tp_cli_usage_error(const char *what, const char *arg);
/* The pipeline file to load for a command's argument (a file, or the name
 * of a bundled pipeline; new string), or NULL after saying why. */
char *tp_cli_resolve_pipeline(const char *arg);
/* The same without printing: a bundled name is looked for first in dirs
 * (n_dirs of them), then where the command looks; NULL with the reason in
 * why (empty when memory ran out). */
char *tp_cli_find_pipeline(const char *arg, const char *const *dirs, size_t n_dirs, char *why,
                           size_t why_size);
/* c->spec validated with these variables and input (tp_pipeline_load_spec),
 * then the command line's gates (--fail-if, --fail-if-slower) checked
 * against its results and added; NULL with every problem in d. */
tp_pipeline *tp_cli_load(tp_ctx *ctx, const cli *c, const tp_var *sets, size_t n_sets,
                         const char *input, tp_diags *d);
/* The gates of p (fail_if:, --fail-if, --fail-if-slower) on a run whose
 * stages all succeeded (rc TP_EXIT_OK; any other rc is returned as is):
 * TP_EXIT_SLOWER when one trips, after saying which, one line each. */
int tp_cli_gates(const cli *c, const tp_pipeline *p, const tp_run *run, int rc);
/* Is v the variable `name`? */
int tp_cli_is_var(const tp_var *v, const char *name);

/* ---- shards (core/tp_cli_shard.c) */
/* A whole number in [lo, hi], all of v (no sign, spaces or overflow); 0 or -1. */
int tp_cli_parse_count(const char *v, long lo, long hi, long *out);
typedef char *(*tp_cli_getenv_fn)(const char *name);
/* --shard auto[/count] (count NULL: not given): c's shard and shard count
 * from env — TRACEPIPE_SHARD=I/N, else a Slurm job array, else a
 * Kubernetes Indexed Job (count from TRACEPIPE_SHARD_COUNT or count) —
 * 0; or -1 with the reason (one line) in err. */
int tp_cli_shard_auto(const char *count, tp_cli_getenv_fn env, long *shard, long *nshards,
                      char *err, size_t errlen);
/* --shard's value v (I/N, auto, auto/N) into c: 0, or TP_EXIT_USAGE after saying why. */
int tp_cli_shard(cli *c, const char *v);

/* `slurm PIPELINE --input DIR --shards N ...` (core/tp_cli_slurm.c): the
 * script submitting the array and merge jobs, printed or run; an exit status. */
int tp_cli_slurm(cli *c);

/* ---- batch and merge (core/batch/tp_batch_cli.c) */
/* The batch spec of `run`: --input, or a folder or glob as the trace
 * variable (--set trace=, else the pipeline's default) or as the first
 * reader's input file; NULL for one trace. */
const char *tp_cli_batch_spec(const cli *c, const tp_ctx *ctx, const tp_spec *spec);
/* `run` over the traces of spec (c->spec the pipeline); an exit status. */
int tp_cli_batch(tp_ctx *ctx, cli *c, const char *spec);
/* `merge DIR... [--out OUT] [--pipeline P]`; an exit status. */
int tp_cli_merge(tp_ctx *ctx, cli *c);

#endif
