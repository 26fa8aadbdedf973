/* `--shard I/N` and `--shard auto[/N]`: which shard of a batch this process
 * runs, given on the command line or read from the scheduler's environment
 * (docs/cluster.md). The environment is read through a getenv-like function
 * so the unit tests can give their own. */
#include "batch/tp_batch.h"
#include "tp_cli.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TP_CLI_STR_(x) #x
#define TP_CLI_STR(x) TP_CLI_STR_(x)

int tp_cli_parse_count(const char *v, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long x = isdigit((unsigned char)v[0]) ? strtol(v, &end, 10) : -1;
    if (x < lo || x > hi || errno != 0 || *end != '\0')
        return -1;
    *out = x;
    return 0;
}

/* "I/N" with 0 <= I < N <= TP_BATCH_MAX_SHARDS; 0 or -1. */
static int parse_i_of_n(const char *v, long *shard, long *nshards)
{
    char i[32];
    const char *slash = strchr(v, '/');
    if (slash == NULL || (size_t)(slash - v) >= sizeof i)
        return -1;
    snprintf(i, sizeof i, "%.*s", (int)(slash - v), v);
    if (tp_cli_parse_count(slash + 1, 1, TP_BATCH_MAX_SHARDS, nshards) != 0 ||
        tp_cli_parse_count(i, 0, *nshards - 1, shard) != 0)
        return -1;
    return 0;
}

typedef struct {
    tp_cli_getenv_fn env;
    char *err;
    size_t errlen;
} shard_env;

/* Environment variable `name` as a whole number in [lo, hi] into *out:
 * 0; 1 when unset; -1 (after saying why) when not such a number. */
static int env_count(const shard_env *e, const char *name, long lo, long hi, long *out)
{
    const char *v = e->env(name);
    if (v == NULL || v[0] == '\0')
        return 1;
    if (tp_cli_parse_count(v, lo, hi, out) == 0)
        return 0;
    snprintf(e->err, e->errlen, "%s is '%s', not a whole number from %ld to %ld", name, v, lo,
             hi);
    return -1;
}

/* A shard count: the command line's (given > 0) unless the environment
 * gives another; -1 after saying why when they differ. */
static int agree(const shard_env *e, long given, long found, const char *from, long *n)
{
    if (given > 0 && given != found) {
        snprintf(e->err, e->errlen, "--shard auto/%ld, but %s makes %ld shards", given, from,
                 found);
        return -1;
    }
    *n = found;
    return 0;
}

/* The range checks of an index i of n, after they were read. */
static int index_in_range(const shard_env *e, long i, long n, const char *from)
{
    if (i >= 0 && i < n && n <= TP_BATCH_MAX_SHARDS)
        return 0;
    snprintf(e->err, e->errlen, "%s gives shard %ld of %ld: not 0 <= I < N <= %d", from, i, n,
             TP_BATCH_MAX_SHARDS);
    return -1;
}

/* A Slurm job array: I = (TASK_ID - TASK_MIN) / TASK_STEP, N = TASK_COUNT,
 * else (TASK_MAX - TASK_MIN) / TASK_STEP + 1 (STEP 1 when unset). */
static int from_slurm(const shard_env *e, long given, long *i, long *n)
{
    const long big = 1L << 40;
    long id, min, max, step = 1, count;
    int r;
    if ((r = env_count(e, "SLURM_ARRAY_TASK_ID", 0, big, &id)) != 0)
        return r;
    if ((r = env_count(e, "SLURM_ARRAY_TASK_MIN", 0, id, &min)) != 0) {
        if (r > 0)
            snprintf(e->err, e->errlen, "SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_MIN");
        return -1;
    }
    if (env_count(e, "SLURM_ARRAY_TASK_STEP", 1, big, &step) < 0)
        return -1;
    if ((id - min) % step != 0) {
        snprintf(e->err, e->errlen, "SLURM_ARRAY_TASK_ID %ld is not SLURM_ARRAY_TASK_MIN %ld "
                 "plus a multiple of SLURM_ARRAY_TASK_STEP %ld", id, min, step);
        return -1;
    }
    if ((r = env_count(e, "SLURM_ARRAY_TASK_COUNT", 1, big, &count)) < 0)
        return -1;
    if (r > 0) {
        if ((r = env_count(e, "SLURM_ARRAY_TASK_MAX", min, big, &max)) != 0) {
            if (r > 0)
                snprintf(e->err, e->errlen, "SLURM_ARRAY_TASK_ID is set but neither "
                         "SLURM_ARRAY_TASK_COUNT nor SLURM_ARRAY_TASK_MAX");
            return -1;
        }
        count = (max - min) / step + 1;
    }
    *i = (id - min) / step;
    if (agree(e, given, count, "the Slurm array", n) != 0)
        return -1;
    return index_in_range(e, *i, *n, "the Slurm array");
}

/* A Kubernetes Indexed Job: I = JOB_COMPLETION_INDEX, N = --shard auto/N
 * or TRACEPIPE_SHARD_COUNT. */
static int from_kubernetes(const shard_env *e, long given, long *i, long *n)
{
    const long big = 1L << 40;
    long count = 0;
    int r;
    if ((r = env_count(e, "JOB_COMPLETION_INDEX", 0, big, i)) != 0)
        return r;
    if ((r = env_count(e, "TRACEPIPE_SHARD_COUNT", 1, big, &count)) < 0)
        return -1;
    if (r > 0 && given == 0) {
        snprintf(e->err, e->errlen, "JOB_COMPLETION_INDEX is set but not the number of "
                 "shards: give --shard auto/N or TRACEPIPE_SHARD_COUNT=N");
        return -1;
    }
    if (r > 0)
        count = given;
    if (agree(e, given, count, "TRACEPIPE_SHARD_COUNT", n) != 0)
        return -1;
    return index_in_range(e, *i, *n, "JOB_COMPLETION_INDEX");
}

/* TRACEPIPE_SHARD=I/N. */
static int from_generic(const shard_env *e, long given, long *i, long *n)
{
    const char *v = e->env("TRACEPIPE_SHARD");
    long found;
    if (v == NULL || v[0] == '\0')
        return 1;
    if (parse_i_of_n(v, i, &found) != 0) {
        snprintf(e->err, e->errlen, "TRACEPIPE_SHARD is '%s', not I/N with 0 <= I < N <= %d",
                 v, TP_BATCH_MAX_SHARDS);
        return -1;
    }
    return agree(e, given, found, "TRACEPIPE_SHARD", n);
}

int tp_cli_shard_auto(const char *count, tp_cli_getenv_fn env, long *shard, long *nshards,
                      char *err, size_t errlen)
{
    shard_env e = {env, err, errlen};
    long given = 0;
    if (count != NULL && tp_cli_parse_count(count, 1, TP_BATCH_MAX_SHARDS, &given) != 0) {
        snprintf(err, errlen, "--shard auto/N needs N from 1 to %d, got '%s'",
                 TP_BATCH_MAX_SHARDS, count);
        return -1;
    }
    /* the explicit variable first, then the schedulers */
    int (*const sources[])(const shard_env *, long, long *, long *) = {
        from_generic, from_slurm, from_kubernetes};
    for (size_t k = 0; k < sizeof sources / sizeof sources[0]; k++) {
        int r = sources[k](&e, given, shard, nshards);
        if (r <= 0)
            return r;
    }
    snprintf(err, errlen, "--shard auto: no shard in the environment: none of TRACEPIPE_SHARD "
             "(I/N), SLURM_ARRAY_TASK_ID (a Slurm job array), JOB_COMPLETION_INDEX (a "
             "Kubernetes Indexed Job) is set");
    return -1;
}

int tp_cli_shard(cli *c, const char *v)
{
    char err[512];
    if (strcmp(v, "auto") == 0 || strncmp(v, "auto/", 5) == 0) {
        if (tp_cli_shard_auto(v[4] ? v + 5 : NULL, getenv, &c->shard, &c->nshards, err,
                              sizeof err) != 0)
            return tp_cli_usage_error(err, NULL);
        return 0;
    }
    if (parse_i_of_n(v, &c->shard, &c->nshards) != 0)
        return tp_cli_usage_error("--shard needs I/N with 0 <= I < N <= "
                                  TP_CLI_STR(TP_BATCH_MAX_SHARDS) " (e.g. 0/8) or auto, got", v);
    return 0;
}
