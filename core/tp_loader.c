/*
 * Plugin registry and loader.
 *
 * Plugins are opened with dlopen(RTLD_NOW | RTLD_LOCAL) so a missing
 * symbol fails at load time and plugin symbols never collide.  The single
 * exported descriptor is checked (ABI major equal, minor not newer, struct
 * sizes, complete stages, sane option tables) before bind() hands it the
 * host table.  Plugins are never unloaded before the registry is freed:
 * names and help texts point into them.
 *
 * The descriptor, its stage array and each option table are read with the
 * sizes the plugin declares and copied into zero-filled structs of this
 * core's layout ("widened"), so a plugin built against an older 3.x header
 * (smaller structs) loads, and the fields it predates read as zero.
 */
#include "tp_host.h"
#include "tp_loader.h"
#include "tp_options.h"
#include "tp_trace.h"
#include "tp_pipeline.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct plugin {
    char *path;
    void *handle;
    tp_plugin_desc *desc;  /* widened copy; desc->stages points at `stages` */
    tp_stage_desc *stages; /* widened copies, then a zeroed terminator */
    size_t n_stages;
    int priority;
} plugin;

typedef struct stage_entry {
    const tp_stage_desc *desc;
    const tp_plugin_desc *plugin;
    const char *path;
    int priority;
} stage_entry;

typedef struct dir_entry {
    char *path;
    int priority;
    bool scanned;
} dir_entry;

struct tp_ctx {
    dir_entry *dirs;
    size_t n_dirs;
    plugin *plugins;
    size_t n_plugins;
    stage_entry *stages;
    size_t n_stages;
    int next_priority;
    bool ignore_pipeline_plugin_path; /* plugin_path: of pipeline files is not loaded */
};

/* A zero-filled struct of `full` bytes holding the first `declared` bytes of
 * src (all of it if the plugin's struct is larger: fields appended after
 * this core was built are ignored). */
static void *widen(const void *src, size_t declared, size_t full)
{
    void *copy = calloc(1, full);
    if (copy != NULL)
        memcpy(copy, src, declared < full ? declared : full);
    return copy;
}

static void plugin_copies_free(tp_plugin_desc *desc, tp_stage_desc *stages, size_t n)
{
    for (size_t i = 0; stages && i < n; i++) {
        free((void *)stages[i].options);
        free((void *)stages[i].produces); /* the core's copy (own_produces) */
    }
    free(stages);
    free(desc);
}

void tp_ctx_set_pipeline_plugin_path(tp_ctx *ctx, bool allowed)
{
    ctx->ignore_pipeline_plugin_path = !allowed;
}

bool tp_ctx_pipeline_plugin_path_allowed(const tp_ctx *ctx)
{
    return !ctx->ignore_pipeline_plugin_path;
}


tp_ctx *tp_ctx_new(void)
{
    return calloc(1, sizeof(tp_ctx));
}

void tp_ctx_free(tp_ctx *ctx)
{
    if (ctx == NULL)
        return;
    for (size_t i = 0; i < ctx->n_plugins; i++) {
        plugin_copies_free(ctx->plugins[i].desc, ctx->plugins[i].stages,
                           ctx->plugins[i].n_stages);
        dlclose(ctx->plugins[i].handle);
        free(ctx->plugins[i].path);
    }
    for (size_t i = 0; i < ctx->n_dirs; i++)
        free(ctx->dirs[i].path);
    free(ctx->plugins);
    free(ctx->stages);
    free(ctx->dirs);
    free(ctx);
}

int tp_ctx_add_dir(tp_ctx *ctx, const char *dir)
{
    for (size_t i = 0; i < ctx->n_dirs; i++) {
        if (strcmp(ctx->dirs[i].path, dir) == 0) {
            ctx->dirs[i].priority = ++ctx->next_priority; /* named again: now wins */
            return TP_OK;
        }
    }
    dir_entry *d = realloc(ctx->dirs, (ctx->n_dirs + 1) * sizeof *d);
    if (d == NULL)
        return TP_ENOMEM;
    ctx->dirs = d;
    char *copy = strdup(dir);
    if (copy == NULL)
        return TP_ENOMEM;
    ctx->dirs[ctx->n_dirs++] = (dir_entry){copy, ++ctx->next_priority, false};
    return TP_OK;
}

static int is_dir(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

int tp_ctx_add_default_dirs(tp_ctx *ctx, const char *argv0)
{
    (void)argv0;
    /* lowest priority first: compiled-in install dir, then the dirs beside
     * the executable (build tree, or PREFIX/bin -> PREFIX/lib/...), then
     * $TRACEPIPE_PLUGIN_PATH */
    if (is_dir(TP_DEFAULT_PLUGIN_DIR))
        tp_ctx_add_dir(ctx, TP_DEFAULT_PLUGIN_DIR);
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            char dir[PATH_MAX + 32];
            snprintf(dir, sizeof dir, "%s/../lib/tracepipe/plugins", exe);
            if (is_dir(dir))
                tp_ctx_add_dir(ctx, dir);
            snprintf(dir, sizeof dir, "%s/plugins", exe);
            if (is_dir(dir))
                tp_ctx_add_dir(ctx, dir);
        }
    }
    const char *env = getenv("TRACEPIPE_PLUGIN_PATH");
    if (env && *env) {
        char *copy = strdup(env), *save = NULL;
        if (copy == NULL)
            return TP_ENOMEM;
        for (char *tok = strtok_r(copy, ":", &save); tok; tok = strtok_r(NULL, ":", &save))
            tp_ctx_add_dir(ctx, tok);
        free(copy);
    }
    return TP_OK;
}

static const char *kind_name(tp_stage_kind kind)
{
    switch (kind) {
    case TP_STAGE_READER:
        return "reader";
    case TP_STAGE_FILTER:
        return "filter";
    case TP_STAGE_ANALYSIS:
        return "analysis";
    case TP_STAGE_WRITER:
        return "writer";
    }
    return "?";
}

/* Checks one stage description; returns a static reason or NULL if fine. */
static const char *stage_problem(const tp_stage_desc *s)
{
    if (s->kind < TP_STAGE_READER || s->kind > TP_STAGE_WRITER)
        return "stage has an unknown kind";
    if (s->run == NULL)
        return "stage has no run callback";
    for (const tp_option *o = s->options; o && o->name; o++) {
        size_t fs = tp_option_field_size(o->type);
        if (fs == 0)
            return "an option has an unknown type";
        if (o->offset + fs > s->config_size)
            return "an option lies outside the config struct";
        if ((o->type == TP_OPT_CHOICE || o->type == TP_OPT_ENUM) && o->choices == NULL)
            return "a choice option has no choices";
        if (o->type == TP_OPT_MAP_LIST && o->choices == NULL)
            return "a list-of-mappings option declares no keys";
    }
    for (const char *const *pr = s->produces; pr && *pr; pr++) {
        const char *star = strchr(*pr, '*');
        if (star && strchr(star + 1, '*'))
            return "a produced result id has more than one '*'";
    }
    for (const char *const *r = s->requires_list; r && *r; r++)
        if (**r == '\0')
            return "a required analysis has an empty name";
    for (const tp_result_decl *r = s->results; r && r->name; r++) {
        if (r->n_cols > 0 && r->cols == NULL)
            return "a declared result has columns but no column table";
        for (size_t c = 0; c < r->n_cols; c++)
            if (r->cols[c].name == NULL ||
                (r->cols[c].type != TP_COL_STR && r->cols[c].type != TP_COL_I64 &&
                 r->cols[c].type != TP_COL_F64))
                return "a declared column has no name or a type other than STR, I64, F64";
    }
    return NULL;
}

/* The stage's `produces` as a list the core owns: the plugin's, or, for a
 * stage that declares results and no `produces`, the declared names.  The
 * ids stay the plugin's strings. */
static int own_produces(tp_stage_desc *s)
{
    const char *const *given = s->produces;
    s->produces = NULL;
    size_t n = 0;
    if (given)
        while (given[n])
            n++;
    else if (s->results)
        while (s->results[n].name)
            n++;
    else
        return TP_OK;
    const char **names = calloc(n + 1, sizeof *names);
    if (names == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < n; i++)
        names[i] = given ? given[i] : s->results[i].name;
    s->produces = names;
    return TP_OK;
}

static int refuse(char **err, const char *path, const char *fmt, ...) TP_PRINTF(3, 4);
static int refuse(char **err, const char *path, const char *fmt, ...)
{
    char msg[1024], detail[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof detail, fmt, ap);
    va_end(ap);
    snprintf(msg, sizeof msg, "%s: plugin refused: %s", path, detail);
    if (err)
        *err = strdup(msg);
    return TP_EINVAL;
}

static int check_version(const tp_plugin_desc *d, const char *path, char **err)
{
    if (d->abi_major != TP_ABI_MAJOR || d->abi_minor > TP_ABI_MINOR)
        return refuse(err, path,
                      "ABI version %u.%u, this core has %u.%u; rebuild it against this core's "
                      "include/tracepipe/",
                      d->abi_major, d->abi_minor, TP_ABI_MAJOR, TP_ABI_MINOR);
    if (d->struct_size < TP_PLUGIN_DESC_MIN_SIZE)
        return refuse(err, path, "descriptor is %u bytes, expected at least %zu", d->struct_size,
                      (size_t)TP_PLUGIN_DESC_MIN_SIZE);
    if (d->name == NULL || d->bind == NULL || d->stages == NULL)
        return refuse(err, path, "incomplete descriptor (name, bind or stages missing)");
    return TP_OK;
}

/* Widens one stage's option table, read with the plugin's stride. */
static int widen_options(tp_stage_desc *s, const char *path, char **err)
{
    const char *src = (const char *)s->options;
    if (src == NULL)
        return TP_OK;
    size_t stride = s->option_size ? s->option_size : TP_OPTION_MIN_SIZE;
    if (stride < TP_OPTION_MIN_SIZE)
        return refuse(err, path, "stage '%s': option entries of %zu bytes, expected at least %zu",
                      s->name, stride, (size_t)TP_OPTION_MIN_SIZE);
    size_t n = 0;
    while (((const tp_option *)(const void *)(src + n * stride))->name != NULL)
        n++;
    tp_option *opts = calloc(n + 1, sizeof *opts);
    if (opts == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < n; i++)
        memcpy(&opts[i], src + i * stride, stride < sizeof *opts ? stride : sizeof *opts);
    s->options = opts;
    s->option_size = sizeof *opts;
    return TP_OK;
}

/* Widens the stage array, stepping by the first entry's declared size; on
 * success *out holds n stages and a zeroed terminator. */
static int widen_stages(const tp_plugin_desc *d, const char *path, tp_stage_desc **out,
                        size_t *n_out, char **err)
{
    const char *src = (const char *)d->stages;
    size_t stride = ((const tp_stage_desc *)(const void *)src)->struct_size;
    if (stride < TP_STAGE_DESC_MIN_SIZE)
        return refuse(err, path, "stage entries of %zu bytes, expected at least %zu", stride,
                      (size_t)TP_STAGE_DESC_MIN_SIZE);
    size_t n = 0;
    while (((const tp_stage_desc *)(const void *)(src + n * stride))->name != NULL)
        n++;
    tp_stage_desc *stages = calloc(n + 1, sizeof *stages);
    if (stages == NULL)
        return TP_ENOMEM;
    *out = stages;
    *n_out = n;
    for (size_t i = 0; i < n; i++) {
        memcpy(&stages[i], src + i * stride, stride < sizeof *stages ? stride : sizeof *stages);
        stages[i].struct_size = sizeof *stages;
        const char *const *given = stages[i].produces;
        stages[i].produces = NULL; /* never the plugin's to free */
        int rc = widen_options(&stages[i], path, err);
        if (rc != TP_OK) {
            stages[i].options = NULL; /* still the plugin's own table */
            return rc;
        }
        stages[i].produces = given;
        if (own_produces(&stages[i]) != TP_OK)
            return TP_ENOMEM;
        const char *why = stage_problem(&stages[i]);
        if (why)
            return refuse(err, path, "stage '%s': %s", stages[i].name, why);
    }
    return TP_OK;
}

/* The plugin's descriptor and stages checked and widened into new copies. */
static int check_descriptor(const tp_plugin_desc *d, const char *path, tp_plugin_desc **desc_out,
                            tp_stage_desc **stages_out, size_t *n_out, char **err)
{
    *desc_out = NULL;
    *stages_out = NULL;
    *n_out = 0;
    int rc = check_version(d, path, err);
    if (rc != TP_OK)
        return rc;
    if ((*desc_out = widen(d, d->struct_size, sizeof **desc_out)) == NULL)
        return TP_ENOMEM;
    (*desc_out)->struct_size = sizeof **desc_out;
    rc = widen_stages(d, path, stages_out, n_out, err);
    if (rc == TP_OK)
        (*desc_out)->stages = *stages_out;
    return rc;
}

static bool already_loaded(const tp_ctx *ctx, const char *path)
{
    for (size_t i = 0; i < ctx->n_plugins; i++)
        if (strcmp(ctx->plugins[i].path, path) == 0)
            return true;
    return false;
}

static int register_stages(tp_ctx *ctx, const plugin *p)
{
    for (const tp_stage_desc *s = p->stages; s->name; s++) {
        stage_entry *st = realloc(ctx->stages, (ctx->n_stages + 1) * sizeof *st);
        if (st == NULL)
            return TP_ENOMEM;
        ctx->stages = st;
        ctx->stages[ctx->n_stages++] = (stage_entry){s, p->desc, p->path, p->priority};
    }
    return TP_OK;
}

/*
 * Trust (docs/robustness.md, "Trust model"): a plugin is code, so only a
 * file that nobody but its owner could have written is loaded: owned by the
 * user or root, not writable by group or others, in a directory that is the
 * same.  Returns why not (written to why), or NULL when sb passes.
 */
static const char *untrusted(const struct stat *sb, char *why, size_t size)
{
    if (sb->st_uid != geteuid() && sb->st_uid != 0) {
        snprintf(why, size, "owned by uid %ld, not by you (uid %ld) or root",
                 (long)sb->st_uid, (long)geteuid());
        return why;
    }
    if (sb->st_mode & (S_IWGRP | S_IWOTH)) {
        snprintf(why, size, "writable by %s (mode %04o); chmod go-w it if you trust it",
                 (sb->st_mode & S_IWOTH) ? "others" : "its group",
                 (unsigned)(sb->st_mode & 07777));
        return why;
    }
    return NULL;
}

/* Only regular files are plugins (dlopen on a FIFO would block forever),
 * and only trusted ones. */
static int check_plugin_file(const char *path, char **err)
{
    struct stat sb;
    char why[128];
    if (stat(path, &sb) != 0)
        return refuse(err, path, "cannot load: %s", strerror(errno));
    if (!S_ISREG(sb.st_mode))
        return refuse(err, path, "not a regular file");
    if (untrusted(&sb, why, sizeof why))
        return refuse(err, path, "%s", why);
    return TP_OK;
}

/* NULL when the directory may hold plugins, else why not (in why). */
static const char *untrusted_dir(const char *dir, char *why, size_t size)
{
    struct stat sb;
    if (stat(dir, &sb) != 0)
        return NULL; /* opendir reports it */
    return untrusted(&sb, why, size);
}

static int load_file(tp_ctx *ctx, const char *path, int priority, char **err)
{
    if (err)
        *err = NULL;
    if (already_loaded(ctx, path))
        return TP_OK;
    int rc = check_plugin_file(path, err);
    if (rc != TP_OK)
        return rc;
    dlerror();
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        char msg[1024];
        snprintf(msg, sizeof msg, "%s: plugin refused: cannot load: %s (missing dependency? try ldd)",
                 path, dlerror());
        if (err)
            *err = strdup(msg);
        return TP_EIO;
    }
    const tp_plugin_desc *d = dlsym(h, TP_DESCRIPTOR_SYMBOL);
    if (d == NULL) {
        dlclose(h);
        return refuse(err, path, "no '" TP_DESCRIPTOR_SYMBOL "' symbol (not a tracepipe plugin)");
    }
    tp_plugin_desc *desc;
    tp_stage_desc *stages;
    size_t n_stages;
    rc = check_descriptor(d, path, &desc, &stages, &n_stages, err);
    plugin *ps = rc == TP_OK ? realloc(ctx->plugins, (ctx->n_plugins + 1) * sizeof *ps) : NULL;
    char *copy = ps ? strdup(path) : NULL;
    if (ps)
        ctx->plugins = ps;
    if (copy == NULL) {
        plugin_copies_free(desc, stages, n_stages);
        free(copy);
        dlclose(h);
        return rc == TP_OK ? TP_ENOMEM : rc;
    }
    plugin *p = &ctx->plugins[ctx->n_plugins++];
    *p = (plugin){copy, h, desc, stages, n_stages, priority};
    desc->bind(tp_core_host_api());
    return register_stages(ctx, p);
}

int tp_ctx_load_file(tp_ctx *ctx, const char *path, char **err)
{
    char dir[PATH_MAX], why[128];
    const char *slash = strrchr(path, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
    if (slash == path)
        snprintf(dir, sizeof dir, "/");
    if (untrusted_dir(dir, why, sizeof why))
        return refuse(err, path, "its directory %s is %s", dir, why);
    return load_file(ctx, path, ++ctx->next_priority, err);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static void scan_dir(tp_ctx *ctx, dir_entry *dir, tp_diags *d)
{
    dir->scanned = true;
    char why[128];
    if (untrusted_dir(dir->path, why, sizeof why)) {
        tp_diags_add(d, dir->path, 0, 0, "warning: plugin directory refused: %s", why);
        return;
    }
    DIR *dh = opendir(dir->path);
    if (dh == NULL) {
        tp_diags_add(d, dir->path, 0, 0, "warning: cannot open plugin directory");
        return;
    }
    char **names = NULL;
    size_t n = 0;
    for (struct dirent *e; (e = readdir(dh)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".so") != 0)
            continue;
        char **nn = realloc(names, (n + 1) * sizeof *nn);
        if (nn == NULL)
            break;
        names = nn;
        if ((names[n] = strdup(e->d_name)) != NULL)
            n++;
    }
    closedir(dh);
    qsort(names, n, sizeof *names, by_name); /* deterministic order */
    for (size_t i = 0; i < n; i++) {
        char path[PATH_MAX];
        snprintf(path, sizeof path, "%s/%s", dir->path, names[i]);
        char *err = NULL;
        if (load_file(ctx, path, dir->priority, &err) != TP_OK && err)
            tp_diags_add(d, NULL, 0, 0, "warning: %s", err);
        free(err);
        free(names[i]);
    }
    free(names);
}

int tp_ctx_load_all(tp_ctx *ctx, tp_diags *d)
{
    for (size_t i = 0; i < ctx->n_dirs; i++)
        if (!ctx->dirs[i].scanned)
            scan_dir(ctx, &ctx->dirs[i], d);
    return TP_OK;
}

const tp_stage_desc *tp_ctx_find_stage(const tp_ctx *ctx, tp_stage_kind kind, const char *name,
                                       const char **plugin_path)
{
    const stage_entry *best = NULL;
    for (size_t i = 0; i < ctx->n_stages; i++) {
        const stage_entry *s = &ctx->stages[i];
        if ((kind == 0 || s->desc->kind == kind) && strcmp(s->desc->name, name) == 0 &&
            (best == NULL || s->priority > best->priority))
            best = s;
    }
    if (best && plugin_path)
        *plugin_path = best->path;
    return best ? best->desc : NULL;
}

size_t tp_ctx_stage_count(const tp_ctx *ctx)
{
    return ctx->n_stages;
}

const tp_stage_desc *tp_ctx_stage_at(const tp_ctx *ctx, size_t i, const tp_plugin_desc **owner)
{
    if (i >= ctx->n_stages)
        return NULL;
    if (owner)
        *owner = ctx->stages[i].plugin;
    return ctx->stages[i].desc;
}

const char *tp_stage_kind_name(tp_stage_kind kind)
{
    return kind_name(kind);
}
