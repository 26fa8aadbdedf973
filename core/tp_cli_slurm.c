/* `pipeline slurm PIPELINE --input DIR --shards N [--set k=v]... [--out OUT]
 * [--submit] [-- SBATCH-OPTION...]`: a shell script that submits a Slurm job
 * array of N tasks, each running one shard (--shard auto), and a merge job
 * after it (afterany: the merge decides from the shards' manifests, naming
 * a missing shard). Printed, or with --submit run (docs/cluster.md). Every
 * user value is single-quoted for the shell. */
#include "tp_cli.h"
#include "tp_yaml.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* s single-quoted for sh ('it'\''s'). */
static void put_quoted(FILE *f, const char *s)
{
    fputc('\'', f);
    for (; *s; s++)
        if (*s == '\'')
            fputs("'\\''", f);
        else
            fputc(*s, f);
    fputc('\'', f);
}

/* " --set 'k=v'" for each --set. */
static void put_sets(FILE *f, const cli *c)
{
    for (size_t i = 0; i < c->n_sets; i++) {
        if (tp_cli_is_var(&c->sets[i], "out"))
            continue; /* the outputs folder is out_dir's */
        fputs(" --set ", f);
        size_t len = strlen(c->sets[i].name) + strlen(c->sets[i].value) + 2;
        char *kv = malloc(len);
        if (kv == NULL)
            continue;
        snprintf(kv, len, "%s=%s", c->sets[i].name, c->sets[i].value);
        put_quoted(f, kv);
        free(kv);
    }
}

/* `sbatch OPTIONS USER-OPTIONS <<'TAG' | job_id`, the start of a job's submission. */
static void put_sbatch(FILE *f, const cli *c, const char *options, const char *tag)
{
    fprintf(f, "$(sbatch %s", options);
    for (size_t i = 0; i < c->n_sbatch; i++) {
        fputc(' ', f);
        put_quoted(f, c->sbatch[i]);
    }
    fprintf(f, " <<'%s' | job_id\n#!/bin/sh\n", tag);
}

/* The submission script; out_dir is where the shards write and merge reads. */
static void put_script(FILE *f, const cli *c, const char *self, const char *cwd,
                       const char *out_dir, int merge_pipeline)
{
    fputs("#!/bin/sh\n# Made by `pipeline slurm` (tracepipe " TP_VERSION "): a Slurm job array, "
          "one shard of the\n# traces per task (--shard auto), then a merge job after every "
          "task has ended\n# (afterany): it merges from the shards' manifests and fails "
          "naming a missing\n# shard; re-run that task (sbatch --array=I) and the merge "
          "job. Run it with sh.\nset -e\ncd ", f);
    put_quoted(f, cwd);
    fputs("\njob_id() { sed -n 's/^Submitted batch job \\([0-9][0-9]*\\).*/\\1/p'; }\narray=", f);
    char opts[96];
    snprintf(opts, sizeof opts, "--job-name=tracepipe --array=0-%ld", c->nshards - 1);
    put_sbatch(f, c, opts, "TRACEPIPE_ARRAY_JOB");
    /* the task id is the shard, so `sbatch --array=I` of this script alone
     * re-runs shard I (its own array would make it shard 0 of 1) */
    fprintf(f, "# task I is shard I of %ld: sbatch --array=I of this script re-runs it alone\n"
            "export TRACEPIPE_SHARD=\"$SLURM_ARRAY_TASK_ID/%ld\"\nexec ", c->nshards, c->nshards);
    put_quoted(f, self);
    fputs(" run ", f);
    put_quoted(f, c->arg);
    fputs(" --input ", f);
    put_quoted(f, c->input);
    fprintf(f, " --shard auto/%ld --no-progress --set ", c->nshards);
    size_t len = strlen(out_dir) + 5;
    char *kv = malloc(len);
    if (kv != NULL) {
        snprintf(kv, len, "out=%s", out_dir);
        put_quoted(f, kv);
        free(kv);
    }
    put_sets(f, c);
    fputs("\nTRACEPIPE_ARRAY_JOB\n)\n[ -n \"$array\" ] || { echo 'pipeline slurm: sbatch gave no "
          "job id for the array' >&2; exit 1; }\nmerge=", f);
    put_sbatch(f, c, "--job-name=tracepipe-merge --dependency=afterany:\"$array\"",
               "TRACEPIPE_MERGE_JOB");
    fputs("exec ", f);
    put_quoted(f, self);
    fputs(" merge ", f);
    put_quoted(f, out_dir);
    if (merge_pipeline) {
        fputs(" --pipeline ", f);
        put_quoted(f, c->arg);
        put_sets(f, c);
    }
    fprintf(f, "\nTRACEPIPE_MERGE_JOB\n)\n[ -n \"$merge\" ] || { echo 'pipeline slurm: sbatch gave "
            "no job id for the merge' >&2; exit 1; }\necho \"pipeline slurm: array job $array "
            "(%ld tasks), merge job $merge (after it)\"\n", c->nshards);
}

/* Is any value a line break away from breaking the script's here-documents? */
static const char *multiline_value(const cli *c)
{
    const char *v[] = {c->arg, c->input, c->out};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (v[i] && strchr(v[i], '\n'))
            return v[i];
    for (size_t i = 0; i < c->n_sets; i++)
        if (strchr(c->sets[i].value, '\n'))
            return c->sets[i].value;
    for (size_t i = 0; i < c->n_sbatch; i++)
        if (strchr(c->sbatch[i], '\n'))
            return c->sbatch[i];
    return NULL;
}

/* The script run by sh: its exit status (0, else TP_EXIT_FAIL). */
static int submit(const char *script)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", script, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0) {
        perror("pipeline slurm: sh");
        return TP_EXIT_FAIL;
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? TP_EXIT_OK : TP_EXIT_FAIL;
}

/* Has the pipeline file a `batch: true` stage (for merge --pipeline)? */
static int has_batch_stage(const tp_spec *spec)
{
    const tp_ynode *stages = tp_ymap_get(tp_spec_root(spec), "stages");
    for (size_t i = 0; stages && stages->type == TP_YNODE_SEQ && i < stages->n; i++) {
        const tp_ynode *b = tp_ymap_get(stages->items[i], "batch");
        if (b && b->type == TP_YNODE_SCALAR && strcmp(b->text, "true") == 0)
            return 1;
    }
    return 0;
}

/* The pipeline's outputs folder (--out, --set out=, else its default) and
 * whether it has batch stages for merge --pipeline; -1 after saying why.
 * (The pipeline is validated by each task, on the cluster's traces.) */
static int read_pipeline(cli *c, char **out_dir, int *has_batch)
{
    char *file = tp_cli_resolve_pipeline(c->arg);
    if (file == NULL)
        return -1;
    tp_diags d = {0};
    tp_spec *spec = tp_spec_read_file(file, &d);
    free(file);
    tp_diags_print(&d, stderr);
    tp_diags_free(&d);
    const char *out = NULL;
    if (spec != NULL && tp_spec_var(spec, "out", &out) != 1) {
        tp_print_line(stderr, "pipeline slurm: %s declares no `out` variable: its shards "
                      "could not write into one folder to merge", c->arg);
    } else if (spec != NULL) {
        for (size_t i = 0; i < c->n_sets; i++)
            if (tp_cli_is_var(&c->sets[i], "out"))
                out = c->sets[i].value;
        *out_dir = strdup(c->out ? c->out : out ? out : ".");
        *has_batch = has_batch_stage(spec);
    }
    tp_spec_free(spec);
    return *out_dir ? 0 : -1;
}

int tp_cli_slurm(cli *c)
{
    if (c->arg == NULL || c->input == NULL || c->nshards == 0)
        return tp_cli_usage_error("slurm needs PIPELINE --input DIR --shards N", NULL);
    const char *bad = multiline_value(c);
    if (bad != NULL)
        return tp_cli_usage_error("slurm: a value may not hold a line break:", bad);
    char self[PATH_MAX], cwd[PATH_MAX];
    if (realpath("/proc/self/exe", self) == NULL)
        snprintf(self, sizeof self, "pipeline");
    if (getcwd(cwd, sizeof cwd) == NULL) {
        perror("pipeline slurm: the current folder");
        return TP_EXIT_FAIL;
    }
    char *out_dir = NULL;
    int has_batch = 0;
    if (read_pipeline(c, &out_dir, &has_batch) != 0) {
        free(out_dir);
        return TP_EXIT_USAGE;
    }
    char *script = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&script, &len);
    if (f == NULL) {
        free(out_dir);
        return TP_EXIT_FAIL;
    }
    put_script(f, c, self, cwd, out_dir, has_batch);
    fclose(f);
    free(out_dir);
    int rc = TP_EXIT_OK;
    if (c->submit)
        rc = submit(script);
    else
        fputs(script, stdout);
    free(script);
    return rc;
}
