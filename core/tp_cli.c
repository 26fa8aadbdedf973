/*
 * What the commands of `pipeline` share (tp_cli.h): usage errors, finding
 * a pipeline file by name, loading it with the command line's gates and
 * running them (the language: tp_gate.c).
 */
#include "tp_cli.h"
#include "tp_gate.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int tp_cli_usage_error(const char *what, const char *arg)
{
    tp_print_line(stderr, "pipeline: %s%s%s", what, arg ? " " : "", arg ? arg : "");
    fputs("Try 'pipeline --help'.\n", stderr);
    return TP_EXIT_USAGE;
}

int tp_cli_is_var(const tp_var *v, const char *name) { return strcmp(v->name, name) == 0; }

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

/* Something that can be read as a file: a folder named like a bundled
 * pipeline (a `ranks/` folder of traces) is not one. */
static int is_file(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && !S_ISDIR(sb.st_mode);
}

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

char *tp_cli_find_pipeline(const char *arg, const char *const *dirs, size_t n_dirs, char *why,
                           size_t why_size)
{
    why[0] = '\0';
    if (!is_file(arg) && strchr(arg, '/') == NULL && !ends_with(arg, ".yaml") &&
        !ends_with(arg, ".yml")) {
        char *found = NULL;
        for (size_t i = 0; found == NULL && i < n_dirs; i++)
            found = pipeline_in(dirs[i], strlen(dirs[i]), arg);
        if (found == NULL)
            found = find_named_pipeline(arg);
        if (found)
            return found;
        if (access(arg, F_OK) == 0)
            return strdup(arg); /* a folder: the loader says it cannot be read */
        snprintf(why, why_size, "no pipeline file '%s' and no bundled pipeline named '%s' (looked "
                 "in pipelines/, $TRACEPIPE_PIPELINE_PATH, beside the program and in %s)",
                 arg, arg, TP_DEFAULT_PIPELINE_DIR);
        return NULL;
    }
    if (is_file(arg) && looks_like_trace(arg)) {
        snprintf(why, why_size, "%s is a trace, not a pipeline; run a pipeline on it, e.g.: "
                 "pipeline run dlrm_breakdown --set trace=%s", arg, arg);
        return NULL;
    }
    return strdup(arg);
}

/* The pipeline file to load for the command's argument (new string), or
 * NULL after saying why. */
char *tp_cli_resolve_pipeline(const char *arg)
{
    char why[8192];
    char *file = tp_cli_find_pipeline(arg, NULL, 0, why, sizeof why);
    if (file == NULL && why[0] != '\0')
        tp_print_line(stderr, "pipeline: error: %s", why);
    return file;
}

tp_pipeline *tp_cli_load(tp_ctx *ctx, const cli *c, const tp_var *sets, size_t n_sets,
                         const char *input, tp_diags *d)
{
    tp_pipeline *p = tp_pipeline_load_spec(ctx, c->spec, sets, n_sets, input, d);
    if (p && tp_pipeline_add_gates(p, c->fail_if, c->n_fail_if, c->fail_if_slower, d) != TP_OK) {
        tp_pipeline_free(p);
        return NULL;
    }
    return p;
}

int tp_cli_gates(const cli *c, const tp_pipeline *p, const tp_run *run, int rc)
{
    if (rc != TP_EXIT_OK)
        return rc;
    return tp_exit_worst(rc, tp_pipeline_check_gates(p, run, c->verbosity, stderr));
}
