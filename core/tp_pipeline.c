/*
 * Pipeline descriptions: YAML -> validated list of stages with typed
 * configs.  Everything is checked before anything runs, and every problem
 * is reported with its file:line:col.
 */
#include "tp_pipeline.h"
#include "tp_spec.h"
#include "tp_strmap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const top_keys[] = {"name",        "description", "vars", "stages",
                                        "plugin_path", "iterations",  NULL};
static const char *const kind_keys[] = {"reader", "filter", "analysis", "writer", NULL};
static const char *const reserved_keys[] = {"reader", "filter", "analysis", "writer",
                                            "id",     "input",  "trace",    "batch", NULL};

typedef struct loader {
    tp_ctx *ctx;
    tp_pipeline *p;
    const char *file;
    const char *base_dir; /* for relative plugin_path entries, or NULL */
    tp_diags *d;
    const char *input;    /* `--input`: the first reader's input file, or NULL */
    bool reader_seen;     /* the first reader is parsed (it took input) */
    /* hashed, so that ids and inputs cost O(1) per stage, not O(stages) */
    tp_strmap ids;         /* stage id -> index of the first stage with it */
    tp_strmap next_suffix; /* plugin name -> next N to try for a default id_N */
} loader;

static void free_stage(pstage *s)
{
    free(s->plugin);
    free(s->id);
    for (size_t i = 0; i < s->n_inputs; i++)
        free(s->inputs[i]);
    free(s->inputs);
    for (size_t i = 0; i < s->n_traces; i++)
        free(s->traces[i]);
    free(s->traces);
    if (s->desc)
        tp_options_free(s->desc->options, s->config);
    if (s->req_desc)
        tp_options_free(s->req_desc->options, s->req_config);
    free(s->req_id);
}

void tp_pipeline_free(tp_pipeline *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->n; i++)
        free_stage(&p->stages[i]);
    free(p->stages);
    free(p->file);
    free(p->name);
    free(p->description);
    tp_iter_config_free(&p->iter);
    free(p);
}

const char *tp_pipeline_name(const tp_pipeline *p) { return p->name ? p->name : ""; }
size_t tp_pipeline_stage_count(const tp_pipeline *p) { return p->n; }

static void check_top_keys(loader *L, const tp_ynode *root)
{
    for (size_t i = 0; i < root->n; i++) {
        const tp_ynode *k = root->keys[i];
        bool known = false;
        for (size_t j = 0; top_keys[j]; j++)
            known |= strcmp(k->text, top_keys[j]) == 0;
        if (!known) {
            const char *near = tp_closest(k->text, top_keys, 6);
            tp_diags_add(L->d, L->file, k->line, k->col,
                         "error: unknown top-level key '%s'%s%s%s; valid keys: name, "
                         "description, vars, stages, plugin_path, iterations",
                         k->text, near ? " (did you mean '" : "", near ? near : "",
                         near ? "'?)" : "");
        }
    }
}

static char *scalar_copy(loader *L, const tp_ynode *n, const char *what)
{
    if (n->type != TP_YNODE_SCALAR) {
        tp_diags_add(L->d, L->file, n->line, n->col, "error: %s must be a string", what);
        return NULL;
    }
    return strdup(n->text);
}

/* vars: defaults, then --set values appended after them (later wins). */
static tp_var *collect_vars(loader *L, const tp_ynode *vars, const tp_var *sets, size_t n_sets,
                            size_t *n_out)
{
    size_t nv = vars && vars->type == TP_YNODE_MAP ? vars->n : 0;
    tp_var *v = calloc(nv + n_sets + 1, sizeof *v);
    if (v == NULL)
        return NULL;
    if (vars && vars->type != TP_YNODE_MAP)
        tp_diags_add(L->d, L->file, vars->line, vars->col,
                     "error: vars must be a mapping of names to values");
    size_t n = 0;
    for (size_t i = 0; i < nv; i++) {
        const tp_ynode *val = vars->items[i];
        if (val->type != TP_YNODE_SCALAR) {
            tp_diags_add(L->d, L->file, val->line, val->col,
                         "error: variable '%s' must be a scalar value", vars->keys[i]->text);
            continue;
        }
        v[n++] = (tp_var){vars->keys[i]->text, val->text};
    }
    const char **names = calloc(nv + 1, sizeof *names);
    for (size_t j = 0; names && j < nv; j++)
        names[j] = vars->keys[j]->text;
    for (size_t i = 0; i < n_sets; i++) {
        bool declared = false, repeated = false;
        for (size_t j = 0; j < nv; j++)
            declared |= strcmp(vars->keys[j]->text, sets[i].name) == 0;
        for (size_t j = i + 1; j < n_sets; j++)
            repeated |= strcmp(sets[j].name, sets[i].name) == 0;
        const char *near = names && !declared ? tp_closest(sets[i].name, names, nv) : NULL;
        if (!declared)
            tp_diags_add(L->d, L->file, 0, 0,
                         "error: --set %s: the pipeline declares no variable '%s' under vars:%s%s%s",
                         sets[i].name, sets[i].name, near ? " (did you mean '" : "",
                         near ? near : "", near ? "'?)" : "");
        else if (repeated)
            tp_diags_add(L->d, L->file, 0, 0,
                         "warning: --set %s given more than once: the last value wins",
                         sets[i].name);
        v[n++] = sets[i];
    }
    free(names);
    *n_out = n;
    return v;
}

static void add_plugin_dirs(loader *L, const tp_ynode *pp)
{
    if (pp == NULL)
        return;
    bool allowed = tp_ctx_pipeline_plugin_path_allowed(L->ctx);
    if (!allowed)
        tp_diags_add(L->d, L->file, pp->line, pp->col,
                     "warning: plugin_path: not loaded (a pipeline file may name code; pass "
                     "--allow-plugin-path to load it)");
    size_t n = pp->type == TP_YNODE_SEQ ? pp->n : 1;
    for (size_t i = 0; i < n; i++) {
        const tp_ynode *it = pp->type == TP_YNODE_SEQ ? pp->items[i] : pp;
        if (it->type != TP_YNODE_SCALAR) {
            tp_diags_add(L->d, L->file, it->line, it->col,
                         "error: plugin_path must be a directory or a list of directories");
            continue;
        }
        if (!allowed)
            continue;
        char dir[4096];
        if (it->text[0] != '/' && L->base_dir)
            snprintf(dir, sizeof dir, "%s/%s", L->base_dir, it->text);
        else
            snprintf(dir, sizeof dir, "%s", it->text);
        tp_ctx_add_dir(L->ctx, dir);
    }
}

static const char *kind_plural(tp_stage_kind k)
{
    switch (k) {
    case TP_STAGE_READER:
        return "readers";
    case TP_STAGE_FILTER:
        return "filters";
    case TP_STAGE_ANALYSIS:
        return "analyses";
    case TP_STAGE_WRITER:
        return "writers";
    }
    return "stages";
}

static void report_unknown_plugin(loader *L, tp_stage_kind kind, const tp_ynode *name)
{
    const char *other_path;
    const tp_stage_desc *other = tp_ctx_find_stage(L->ctx, 0, name->text, &other_path);
    if (other) {
        const char *is = tp_stage_kind_name(other->kind), *want = tp_stage_kind_name(kind);
        tp_diags_add(L->d, L->file, name->line, name->col, "error: '%s' is %s %s, not %s %s",
                     name->text, is[0] == 'a' ? "an" : "a", is, want[0] == 'a' ? "an" : "a",
                     want);
        return;
    }
    const char *names[512];
    size_t n = 0;
    char known[2048] = "";
    for (size_t i = 0; i < tp_ctx_stage_count(L->ctx) && n < 512; i++) {
        const tp_stage_desc *s = tp_ctx_stage_at(L->ctx, i, NULL);
        if (s->kind != kind)
            continue;
        bool dup = false;
        for (size_t j = 0; j < n; j++)
            dup |= strcmp(names[j], s->name) == 0;
        if (dup)
            continue;
        names[n++] = s->name;
        size_t used = strlen(known);
        snprintf(known + used, sizeof known - used, "%s%s", n > 1 ? ", " : "", s->name);
    }
    const char *near = tp_closest(name->text, names, n);
    tp_diags_add(L->d, L->file, name->line, name->col,
                 "error: unknown %s '%s'%s%s%s; known %s: %s", tp_stage_kind_name(kind),
                 name->text, near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "",
                 kind_plural(kind), n ? known : "(none found; check the plugin path)");
}

/* Finds the kind key of a stage mapping; reports none or several. */
static const tp_ynode *stage_kind(loader *L, const tp_ynode *m, tp_stage_kind *kind)
{
    const tp_ynode *found = NULL;
    for (size_t k = 0; kind_keys[k]; k++) {
        const tp_ynode *v = tp_ymap_get(m, kind_keys[k]);
        if (v == NULL)
            continue;
        if (found) {
            tp_diags_add(L->d, L->file, v->line, v->col,
                         "error: a stage names exactly one of reader:, filter:, analysis:, "
                         "writer:");
            return NULL;
        }
        found = v;
        *kind = (tp_stage_kind)(k + 1);
    }
    if (found == NULL)
        tp_diags_add(L->d, L->file, m->line, m->col,
                     "error: stage has none of reader:, filter:, analysis:, writer:");
    else if (found->type != TP_YNODE_SCALAR) {
        tp_diags_add(L->d, L->file, found->line, found->col,
                     "error: the plugin name must be a string");
        return NULL;
    }
    return found;
}

static bool id_taken(const loader *L, const char *id)
{
    return tp_strmap_find(&L->ids, id, strlen(id)) != NULL;
}

/* The plugin name, or the name made unique with the first free _N suffix
 * (N >= 2).  The next N to try is remembered per plugin: ids are never
 * removed, so every smaller N is still taken. */
static char *default_id(loader *L, const char *plugin)
{
    if (!id_taken(L, plugin))
        return strdup(plugin);
    size_t len = strlen(plugin), cap = len + 24;
    tp_strmap_slot *next = tp_strmap_find(&L->next_suffix, plugin, len);
    char *buf = malloc(cap);
    if (buf == NULL)
        return NULL;
    long k = next ? next->value : 2;
    for (;; k++) {
        snprintf(buf, cap, "%s_%ld", plugin, k);
        if (!id_taken(L, buf))
            break;
    }
    if (!tp_strmap_put(&L->next_suffix, plugin, k + 1)) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* The explicit id, or a default one made from the plugin name. */
static char *stage_id(loader *L, const tp_ynode *m, const char *plugin)
{
    const tp_ynode *idn = tp_ymap_get(m, "id");
    if (idn) {
        if (idn->type != TP_YNODE_SCALAR || idn->text[0] == '\0') {
            tp_diags_add(L->d, L->file, idn->line, idn->col, "error: id must be a non-empty string");
            return NULL;
        }
        if (strchr(idn->text, '.'))
            tp_diags_add(L->d, L->file, idn->line, idn->col,
                         "error: id '%s' contains '.', which separates a stage id from its "
                         "result names; use another character such as '_'",
                         idn->text);
        else if (id_taken(L, idn->text))
            tp_diags_add(L->d, L->file, idn->line, idn->col,
                         "error: id '%s' is used by an earlier stage", idn->text);
        return strdup(idn->text);
    }
    return default_id(L, plugin);
}

/* Does a declared result pattern (tp_stage_desc.produces) match `rest`,
 * the part of a result id after "<stage id>."? */
static bool pattern_matches(const char *pattern, const char *rest)
{
    const char *star = strchr(pattern, '*');
    if (star == NULL)
        return strcmp(pattern, rest) == 0;
    size_t head = (size_t)(star - pattern), tail = strlen(star + 1), len = strlen(rest);
    return len > head + tail && strncmp(rest, pattern, head) == 0 &&
           strcmp(rest + len - tail, star + 1) == 0;
}

static bool declares(const tp_stage_desc *d, const char *rest)
{
    if (d->produces == NULL)
        return true; /* the stage does not say: anything may come */
    for (const char *const *pr = d->produces; *pr; pr++)
        if (pattern_matches(*pr, rest))
            return true;
    return false;
}

/* Remembers the id of stage `index` (the first stage keeps a repeated id). */
static bool register_id(loader *L, const char *id, size_t index)
{
    return id_taken(L, id) || tp_strmap_put(&L->ids, id, (long)index);
}

/* Can stage s make a result `rest` (after "<id>.")?  Its own declared ids,
 * and those of the analysis it requires, which runs as "<id>.<requires>". */
static bool stage_may_produce(const pstage *s, const char *rest)
{
    if (s->desc == NULL || declares(s->desc, rest))
        return true;
    if (s->req_desc == NULL)
        return false;
    size_t len = strlen(s->desc->requires);
    if (strncmp(rest, s->desc->requires, len) != 0)
        return false;
    if (rest[len] == '\0')
        return declares(s->req_desc, "");
    return rest[len] == '.' && declares(s->req_desc, rest + len + 1);
}

/* 1: name is an earlier stage's id or a result it declares; 0: no earlier
 * stage of that id; -1: the stage exists but declares no such result.
 * Stage ids contain no '.', so the id is the text before the first '.'. */
static int input_known(const loader *L, size_t before, const char *name)
{
    const char *dot = strchr(name, '.');
    size_t len = dot ? (size_t)(dot - name) : strlen(name);
    tp_strmap_slot *slot = tp_strmap_find(&L->ids, name, len);
    if (slot == NULL || (size_t)slot->value >= before)
        return 0;
    if (dot == NULL)
        return 1;
    return stage_may_produce(&L->p->stages[slot->value], dot + 1) ? 1 : -1;
}

/* The ids stage s declares, "a, b.*", for messages. */
static void declared_list(const pstage *s, char *buf, size_t size)
{
    buf[0] = '\0';
    for (const char *const *pr = s->desc->produces; pr && *pr; pr++) {
        size_t used = strlen(buf);
        snprintf(buf + used, size - used, "%s%s%s%s", used ? ", " : "", s->id, **pr ? "." : "",
                 *pr);
    }
}

static void report_undeclared(loader *L, const tp_ynode *it, size_t before)
{
    for (size_t j = 0; j < before; j++) {
        const pstage *s = &L->p->stages[j];
        size_t len = s->id ? strlen(s->id) : 0;
        if (s->id == NULL || strncmp(s->id, it->text, len) != 0 || it->text[len] != '.')
            continue;
        char all[1024];
        declared_list(s, all, sizeof all);
        const char *names[64];
        size_t n = 0;
        for (const char *const *pr = s->desc->produces; *pr && n < 64; pr++)
            if (**pr && strchr(*pr, '*') == NULL)
                names[n++] = *pr;
        const char *near = tp_closest(it->text + len + 1, names, n);
        char hint[512] = "";
        if (near)
            snprintf(hint, sizeof hint, " (did you mean '%s.%s'?)", s->id, near);
        tp_diags_add(L->d, L->file, it->line, it->col,
                     "error: input '%s': stage '%s' (%s) makes no such result%s; it makes: %s",
                     it->text, s->id, s->plugin, hint, all);
        return;
    }
}

/* `index` = how many stages come before this one. */
static void parse_inputs(loader *L, pstage *s, const tp_ynode *in, size_t index)
{
    if (in == NULL)
        return;
    s->inputs_given = true;
    size_t n = in->type == TP_YNODE_SEQ ? in->n : 1;
    s->inputs = calloc(n ? n : 1, sizeof *s->inputs);
    if (s->inputs == NULL)
        return;
    for (size_t i = 0; i < n; i++) {
        const tp_ynode *it = in->type == TP_YNODE_SEQ ? in->items[i] : in;
        if (it->type != TP_YNODE_SCALAR) {
            tp_diags_add(L->d, L->file, it->line, it->col,
                         "error: input must be a stage id or a list of stage ids");
            continue;
        }
        int known = input_known(L, index, it->text);
        if (known < 0) {
            report_undeclared(L, it, index);
            continue;
        }
        if (known == 0) {
            const char *ids[256];
            size_t k = 0;
            char all[1024] = "";
            for (size_t j = 0; j < index && k < 256; j++) {
                if (L->p->stages[j].id == NULL)
                    continue;
                ids[k++] = L->p->stages[j].id;
                size_t used = strlen(all);
                snprintf(all + used, sizeof all - used, "%s%s", k > 1 ? ", " : "",
                         L->p->stages[j].id);
            }
            const char *near = tp_closest(it->text, ids, k);
            tp_diags_add(L->d, L->file, it->line, it->col,
                         "error: input '%s' names no earlier stage%s%s%s; earlier ids: %s",
                         it->text, near ? " (did you mean '" : "", near ? near : "",
                         near ? "'?)" : "", k ? all : "(none)");
            continue;
        }
        s->inputs[s->n_inputs++] = strdup(it->text);
    }
}

/* How many results stage s declares: a pattern with '*' counts as two
 * (it may make several); -1 when s does not say. */
static int declared_count(const pstage *s)
{
    if (s->desc == NULL || s->desc->produces == NULL)
        return -1;
    int n = 0;
    for (const char *const *pr = s->desc->produces; *pr; pr++)
        n += strchr(*pr, '*') ? 2 : 1;
    return n;
}

/* How many results the inputs of stage `index` will hold, from what the
 * producers declare; -1 when some producer does not say. */
static int predicted_inputs(const tp_pipeline *p, size_t index)
{
    const pstage *w = &p->stages[index];
    int total = 0;
    if (!w->inputs_given) {
        for (size_t j = index; j-- > 0;) {
            int n = declared_count(&p->stages[j]);
            if (n != 0)
                return n; /* the nearest producer is the default input */
        }
        return 0;
    }
    for (size_t k = 0; k < w->n_inputs; k++) {
        const char *name = w->inputs[k];
        for (size_t j = 0; j < index; j++) {
            const pstage *s = &p->stages[j];
            size_t len = strlen(s->id);
            if (strcmp(s->id, name) == 0) {
                int n = declared_count(s);
                if (n < 0)
                    return -1;
                total += n;
            } else if (strncmp(s->id, name, len) == 0 && name[len] == '.') {
                total += strchr(name, '*') ? 2 : 1;
            }
        }
    }
    return total;
}

/* A writer that writes one file per result needs "{id}" in its output file when
 * its inputs hold several results: say so now, not after the trace is read. */
static void check_path_per_result(loader *L, const pstage *s, const tp_ynode *m)
{
    const tp_option *out = tp_option_with_role(s->desc, TP_OPT_OUTPUT_FILE);
    const tp_ynode *path = out ? tp_ymap_get(m, out->name) : NULL;
    if (!(s->desc->flags & TP_STAGE_F_PATH_PER_RESULT) || path == NULL ||
        path->type != TP_YNODE_SCALAR || strstr(path->text, "{id}"))
        return;
    int n = predicted_inputs(L->p, (size_t)(s - L->p->stages));
    if (n > 1)
        tp_diags_add(L->d, L->file, path->line, path->col,
                     "error: %s '%s': its inputs make several results, so %s '%s' must contain "
                     "{id} (one file per result id)",
                     tp_stage_kind_name(s->kind), s->id, out->name, path->text);
}

/* The nearest existing folder above a writer's output file (its option of
 * role TP_OPT_OUTPUT_FILE) must be one we
 * can write in (the writer creates the folders below it): said now, not
 * after the trace is read.  A path with {id} or {rank} is judged by its part
 * before the first of them. */
static void check_output_folder(loader *L, const pstage *s, const tp_ynode *m)
{
    const tp_option *out = tp_option_with_role(s->desc, TP_OPT_OUTPUT_FILE);
    const tp_ynode *path = out ? tp_ymap_get(m, out->name) : NULL;
    if (s->kind != TP_STAGE_WRITER || path == NULL || path->type != TP_YNODE_SCALAR ||
        path->text[0] == '\0')
        return;
    char *dir = strdup(path->text);
    if (dir == NULL)
        return;
    char *id = strstr(dir, "{id}"), *rank = strstr(dir, "{rank}");
    if (id)
        *id = '\0';
    if (rank)
        *rank = '\0';
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        strcpy(dir, ".");
    else if (slash == dir)
        dir[1] = '\0';
    else
        *slash = '\0';
    struct stat sb;
    int found;
    while (!(found = stat(dir, &sb) == 0) && errno == ENOENT && strcmp(dir, ".") != 0) {
        slash = strrchr(dir, '/'); /* climb to what exists */
        if (slash == NULL) {
            strcpy(dir, "."); /* "." always exists */
        } else if (slash == dir) {
            dir[1] = '\0';
        } else {
            *slash = '\0';
        }
    }
    const char *why = NULL;
    if (!found || !S_ISDIR(sb.st_mode))
        why = "is not a folder";
    else if (access(dir, W_OK | X_OK) != 0)
        why = "cannot be written in";
    if (why)
        tp_diags_add(L->d, L->file, path->line, path->col,
                     "error: %s '%s': output path '%s': '%s' %s", tp_stage_kind_name(s->kind),
                     s->id, path->text, dir, why);
    free(dir);
}

/* The earlier reader stage of that id that makes an event trace, or NULL. */
static const pstage *trace_reader(const tp_pipeline *p, size_t before, const char *id)
{
    for (size_t j = 0; j < before; j++) {
        const pstage *r = &p->stages[j];
        if (r->id && strcmp(r->id, id) == 0)
            return r->kind == TP_STAGE_READER && r->desc &&
                           !(r->desc->flags & TP_STAGE_F_NO_TRACE)
                       ? r
                       : NULL;
    }
    return NULL;
}

static void report_unknown_trace(loader *L, const tp_ynode *it, size_t before)
{
    const char *ids[256] = {0};
    size_t k = 0;
    char all[1024] = "";
    for (size_t j = 0; j < before && k < 256; j++) {
        if (trace_reader(L->p, before, L->p->stages[j].id ? L->p->stages[j].id : "") == NULL)
            continue;
        ids[k++] = L->p->stages[j].id;
        size_t used = strlen(all);
        snprintf(all + used, sizeof all - used, "%s%s", k > 1 ? ", " : "", L->p->stages[j].id);
    }
    const char *near = tp_closest(it->text, ids, k);
    char hint[512] = "";
    if (near)
        snprintf(hint, sizeof hint, " (did you mean '%s'?)", near);
    tp_diags_add(L->d, L->file, it->line, it->col,
                 "error: trace '%s' names no earlier reader%s; earlier readers: %s", it->text,
                 hint, k ? all : "(none)");
}

/* `trace: ID` or, for a stage that takes several (TP_STAGE_F_TRACES),
 * `trace: [ID, ID]`: each an earlier reader's id. */
static void parse_traces(loader *L, pstage *s, const tp_ynode *tr, size_t index)
{
    if (tr == NULL)
        return;
    if (s->kind == TP_STAGE_READER) {
        tp_diags_add(L->d, L->file, tr->line, tr->col,
                     "error: a reader makes a trace; 'trace:' belongs to the stages after it");
        return;
    }
    size_t n = tr->type == TP_YNODE_SEQ ? tr->n : 1;
    if (n == 0 || tr->type == TP_YNODE_MAP) {
        tp_diags_add(L->d, L->file, tr->line, tr->col,
                     "error: trace must be a reader's stage id%s",
                     s->desc->flags & TP_STAGE_F_TRACES ? " or a list of them" : "");
        return;
    }
    if (n > 1 && !(s->desc->flags & TP_STAGE_F_TRACES)) {
        tp_diags_add(L->d, L->file, tr->line, tr->col,
                     "error: %s '%s' works on one trace; give 'trace:' one reader id",
                     tp_stage_kind_name(s->kind), s->plugin);
        return;
    }
    if ((s->traces = calloc(n, sizeof *s->traces)) == NULL)
        return;
    for (size_t i = 0; i < n; i++) {
        const tp_ynode *it = tr->type == TP_YNODE_SEQ ? tr->items[i] : tr;
        if (it->type != TP_YNODE_SCALAR) {
            tp_diags_add(L->d, L->file, it->line, it->col, "error: trace must be a reader's id");
            continue;
        }
        if (trace_reader(L->p, index, it->text) == NULL) {
            report_unknown_trace(L, it, index);
            continue;
        }
        if ((s->traces[s->n_traces] = strdup(it->text)) != NULL)
            s->n_traces++;
    }
}

/* `batch: true|false`; readers make the traces a batch goes over, so they
 * are never batch stages. */
static void parse_batch(loader *L, pstage *s, const tp_ynode *b)
{
    if (b == NULL)
        return;
    if (b->type != TP_YNODE_SCALAR ||
        (strcmp(b->text, "true") != 0 && strcmp(b->text, "false") != 0)) {
        tp_diags_add(L->d, L->file, b->line, b->col, "error: batch must be true or false");
        return;
    }
    s->batch = strcmp(b->text, "true") == 0;
    /* a reader of traces reads each trace of a batch; one that yields
     * results only (results, csv_table) may read the batch tables */
    if (s->batch && s->kind == TP_STAGE_READER && !(s->desc->flags & TP_STAGE_F_NO_TRACE))
        tp_diags_add(L->d, L->file, b->line, b->col,
                     "error: a reader of traces reads each trace of a batch; 'batch: true' "
                     "belongs to the stages that compare them (ranks, diff, a merged "
                     "chrome_trace) and to readers of results (csv_table, results: the batch "
                     "tables OUT/NAME.csv)");
}

/* A stage that `requires` another gets that one's default config now, so
 * the run can add it without any validation left to do. */
static void resolve_requirement(loader *L, pstage *s, const tp_ynode *where)
{
    if (s->desc->requires == NULL)
        return;
    s->req_desc = tp_ctx_find_stage(L->ctx, TP_STAGE_ANALYSIS, s->desc->requires, NULL);
    if (s->req_desc == NULL) {
        tp_diags_add(L->d, L->file, where->line, where->col,
                     "error: %s '%s' needs analysis '%s', which no loaded plugin provides",
                     tp_stage_kind_name(s->kind), s->plugin, s->desc->requires);
        return;
    }
    char who[256];
    snprintf(who, sizeof who, "analysis '%s' (required by '%s')", s->desc->requires, s->id);
    s->req_config = tp_options_build(s->req_desc->options, s->req_desc->config_size, NULL, NULL,
                                     L->file, who, L->d);
    size_t n = strlen(s->id) + strlen(s->desc->requires) + 2;
    s->req_id = malloc(n);
    if (s->req_id)
        snprintf(s->req_id, n, "%s.%s", s->id, s->desc->requires);
}

/* The reader whose probe scores the head of file path (up to 256 KiB)
 * best (its score in *top), and in *score_of the score of reader `of` (if
 * given); NULL, with errno set when the file cannot be read (0 when no
 * reader knows it). */
static const tp_stage_desc *probe_readers(tp_ctx *ctx, const char *path, const tp_stage_desc *of,
                                          int *score_of, int *top)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 256 * 1024;
    unsigned char *head = malloc(cap);
    size_t n = head ? fread(head, 1, cap, f) : 0;
    fclose(f);
    const tp_stage_desc *best = NULL;
    int best_score = 0;
    for (size_t i = 0; head && i < tp_ctx_stage_count(ctx); i++) {
        const tp_stage_desc *d = tp_ctx_stage_at(ctx, i, NULL);
        int score = d->kind == TP_STAGE_READER && d->probe ? d->probe(head, n, path) : 0;
        if (d == of && score_of)
            *score_of = score;
        if (score > best_score) {
            best = d;
            best_score = score;
        }
    }
    errno = head ? 0 : ENOMEM;
    free(head);
    if (top)
        *top = best_score;
    return best;
}

static const tp_stage_desc *probe_reader(tp_ctx *ctx, const char *path)
{
    return probe_readers(ctx, path, NULL, NULL, NULL);
}

int tp_ctx_reader_knows(tp_ctx *ctx, const char *reader, const char *path)
{
    const tp_stage_desc *only = NULL;
    if (strcmp(reader, "auto") != 0) {
        only = tp_ctx_find_stage(ctx, TP_STAGE_READER, reader, NULL);
        if (only == NULL || only->probe == NULL)
            return 1; /* nothing to ask: the reader will say */
    }
    int score = 0, top = 0;
    const tp_stage_desc *best = probe_readers(ctx, path, only, &score, &top);
    if (best == NULL)
        return errno != 0 ? -1 : 0;
    /* a file another reader knows better is that reader's (a dvdt-prof
     * JSON beside Kineto JSON traces) */
    return only == NULL || (score > 0 && score >= top);
}

/* `reader: auto`: the reader whose probe is surest of the file's first
 * bytes, or NULL after saying why. */
static const char *auto_reader(loader *L, const tp_ynode *m, const char *input)
{
    const tp_ynode *path = tp_ymap_get(m, "path");
    if (input == NULL && (path == NULL || path->type != TP_YNODE_SCALAR)) {
        tp_diags_add(L->d, L->file, m->line, m->col,
                     "error: reader 'auto' needs a path to look at");
        return NULL;
    }
    const char *file = input ? input : path->text;
    const tp_ynode *at = path ? path : m;
    const tp_stage_desc *best = probe_reader(L->ctx, file);
    if (best == NULL && errno != 0)
        tp_diags_add(L->d, L->file, at->line, at->col, "error: reader 'auto': %s: %s", file,
                     strerror(errno));
    else if (best == NULL)
        tp_diags_add(L->d, L->file, at->line, at->col,
                     "error: reader 'auto': %s: no reader knows this content (Kineto/Chrome JSON, "
                     "an nsys SQLite export, a dvdt-prof profile and tfprof reports are read)",
                     file);
    return best ? best->name : NULL;
}

static void parse_stage(loader *L, const tp_ynode *m)
{
    if (m->type != TP_YNODE_MAP) {
        tp_diags_add(L->d, L->file, m->line, m->col,
                     "error: each stage must be a mapping such as '- analysis: hierarchy'");
        return;
    }
    tp_stage_kind kind = TP_STAGE_READER;
    const tp_ynode *name = stage_kind(L, m, &kind);
    if (name == NULL)
        return;
    const char *plugin = name->text;
    /* `--input` is the first reader's input file, whatever the stage says */
    const char *input = kind == TP_STAGE_READER && !L->reader_seen ? L->input : NULL;
    L->reader_seen |= kind == TP_STAGE_READER;
    bool is_auto = kind == TP_STAGE_READER && strcmp(plugin, "auto") == 0;
    if (is_auto && (plugin = auto_reader(L, m, input)) == NULL)
        return;
    pstage *s = &L->p->stages[L->p->n];
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->auto_reader = is_auto;
    s->line = m->line;
    s->col = m->col;
    s->plugin = strdup(plugin);
    s->id = s->plugin ? stage_id(L, m, s->plugin) : NULL;
    L->p->n++; /* owned by the pipeline from here on, so freed on any error */
    if (s->plugin == NULL || s->id == NULL)
        return;
    if (!register_id(L, s->id, L->p->n - 1)) {
        tp_diags_add(L->d, L->file, m->line, m->col, "error: out of memory");
        return;
    }
    s->desc = tp_ctx_find_stage(L->ctx, kind, plugin, &s->plugin_path);
    if (s->desc == NULL) {
        report_unknown_plugin(L, kind, name);
        return;
    }
    parse_inputs(L, s, tp_ymap_get(m, "input"), L->p->n - 1);
    parse_traces(L, s, tp_ymap_get(m, "trace"), L->p->n - 1);
    parse_batch(L, s, tp_ymap_get(m, "batch"));
    char who[256];
    snprintf(who, sizeof who, "%s '%s'", tp_stage_kind_name(kind), s->id);
    if (strcmp(s->id, s->plugin) != 0)
        snprintf(who, sizeof who, "%s '%s' (%s)", tp_stage_kind_name(kind), s->id, s->plugin);
    const tp_option *in = input ? tp_option_with_role(s->desc, TP_OPT_INPUT_FILE) : NULL;
    s->config = tp_options_build_given(s->desc->options, s->desc->config_size, m, reserved_keys,
                                       L->file, who, L->d, in ? in->name : NULL, input);
    resolve_requirement(L, s, name);
    check_output_folder(L, s, m);
    check_path_per_result(L, s, m);
}

static void parse_stages(loader *L, const tp_ynode *stages, const tp_ynode *root)
{
    if (stages == NULL) {
        tp_diags_add(L->d, L->file, root->line, root->col,
                     "error: the pipeline has no 'stages:' list");
        return;
    }
    if (stages->type != TP_YNODE_SEQ || stages->n == 0) {
        tp_diags_add(L->d, L->file, stages->line, stages->col,
                     "error: 'stages:' must be a non-empty list of stages");
        return;
    }
    L->p->stages = calloc(stages->n, sizeof *L->p->stages);
    if (L->p->stages == NULL)
        return;
    for (size_t i = 0; i < stages->n; i++)
        parse_stage(L, stages->items[i]);
}

static char *optional_text(loader *L, const tp_ynode *root, const char *key)
{
    const tp_ynode *n = tp_ymap_get(root, key);
    return n ? scalar_copy(L, n, key) : NULL;
}

static tp_pipeline *load(loader *L, const tp_ynode *spec, const tp_var *sets, size_t n_sets)
{
    size_t errors = L->d->n;
    tp_ynode *root = tp_ynode_clone(spec); /* ${var} substitution writes in it */
    if (root == NULL) {
        tp_diags_add(L->d, L->file, 0, 0, "error: out of memory");
        return NULL;
    }
    if (root->type != TP_YNODE_MAP) {
        tp_diags_add(L->d, L->file, root->line, root->col,
                     "error: a pipeline is a mapping with a 'stages:' list");
        tp_ynode_free(root);
        return NULL;
    }
    L->p = calloc(1, sizeof *L->p);
    if (L->p == NULL) {
        tp_ynode_free(root);
        return NULL;
    }
    L->p->ctx = L->ctx;
    L->p->file = strdup(L->file);
    check_top_keys(L, root);
    L->p->name = optional_text(L, root, "name");
    L->p->description = optional_text(L, root, "description");
    size_t nv = 0;
    tp_var *vars = collect_vars(L, tp_ymap_get(root, "vars"), sets, n_sets, &nv);
    tp_ynode *stages = (tp_ynode *)tp_ymap_get(root, "stages");
    tp_ynode *pp = (tp_ynode *)tp_ymap_get(root, "plugin_path");
    tp_ynode *iterations = (tp_ynode *)tp_ymap_get(root, "iterations");
    if (vars) {
        tp_yaml_substitute(stages, vars, nv, L->file, L->d);
        tp_yaml_substitute(pp, vars, nv, L->file, L->d);
        tp_yaml_substitute(iterations, vars, nv, L->file, L->d);
    }
    tp_iter_config_load(&L->p->iter, iterations, L->file, L->d);
    add_plugin_dirs(L, pp);
    tp_ctx_load_all(L->ctx, L->d);
    /* plugin refusals are warnings unless a stage needs the refused plugin;
     * they stay in d so the unknown-plugin error is read next to them */
    size_t before_stages = L->d->n;
    parse_stages(L, stages, root);
    tp_strmap_free(&L->ids);
    tp_strmap_free(&L->next_suffix);
    free(vars);
    tp_ynode_free(root);
    bool failed = false;
    for (size_t i = errors; i < L->d->n; i++)
        failed |= strstr(L->d->lines[i], "error:") != NULL;
    (void)before_stages;
    if (!failed) /* options the schema cannot judge: each stage's init does */
        failed = tp_pipeline_check_configs(L->p, L->d) != TP_OK;
    if (failed) {
        tp_pipeline_free(L->p);
        return NULL;
    }
    return L->p;
}

tp_pipeline *tp_pipeline_load_spec(tp_ctx *ctx, const tp_spec *spec, const tp_var *sets,
                                   size_t n_sets, const char *input, tp_diags *d)
{
    loader L = {.ctx = ctx, .file = tp_spec_file(spec), .base_dir = tp_spec_base_dir(spec),
                .d = d, .input = input};
    return load(&L, tp_spec_root(spec), sets, n_sets);
}

tp_pipeline *tp_pipeline_load_string(tp_ctx *ctx, const char *yaml, size_t len, const char *name,
                                     const tp_var *sets, size_t n_sets, tp_diags *d)
{
    tp_spec *spec = tp_spec_from_string(yaml, len, name, d);
    tp_pipeline *p = spec ? tp_pipeline_load_spec(ctx, spec, sets, n_sets, NULL, d) : NULL;
    tp_spec_free(spec);
    return p;
}

tp_pipeline *tp_pipeline_load_file(tp_ctx *ctx, const char *path, const tp_var *sets,
                                   size_t n_sets, tp_diags *d)
{
    tp_spec *spec = tp_spec_read_file(path, d);
    tp_pipeline *p = spec ? tp_pipeline_load_spec(ctx, spec, sets, n_sets, NULL, d) : NULL;
    tp_spec_free(spec);
    return p;
}

/* ---------------------------------------------------------------- batch */

/* A copy of stage s for another pipeline; the reader's input file replaced
 * by path when given.  TP_OK or TP_ENOMEM. */
static int clone_stage(const pstage *s, pstage *c, const char *id, const char *path)
{
    memset(c, 0, sizeof *c);
    c->kind = s->kind;
    c->desc = s->desc;
    c->plugin_path = s->plugin_path;
    c->line = s->line;
    c->col = s->col;
    c->batch = s->batch;
    c->plugin = strdup(s->plugin);
    c->id = strdup(id);
    const tp_option *in = path ? tp_option_with_role(s->desc, TP_OPT_INPUT_FILE) : NULL;
    c->config = tp_options_clone(s->desc->options, s->desc->config_size, s->config,
                                 in ? in->name : NULL, path);
    if (!c->plugin || !c->id || !c->config)
        return TP_ENOMEM;
    if (s->n_inputs && (c->inputs = calloc(s->n_inputs, sizeof *c->inputs)) == NULL)
        return TP_ENOMEM;
    for (; c->n_inputs < s->n_inputs; c->n_inputs++)
        if ((c->inputs[c->n_inputs] = strdup(s->inputs[c->n_inputs])) == NULL)
            return TP_ENOMEM;
    c->inputs_given = s->inputs_given;
    if (s->req_desc) {
        c->req_desc = s->req_desc;
        c->req_config = tp_options_clone(s->req_desc->options, s->req_desc->config_size,
                                         s->req_config, NULL, NULL);
        c->req_id = strdup(s->req_id);
        if (!c->req_config || !c->req_id)
            return TP_ENOMEM;
    }
    return TP_OK;
}

/* The reader of one trace of a batch: a clone of the pipeline's with the
 * trace's path; with `reader: auto`, the reader that knows the trace (with
 * its defaults when it is not the one chosen for the first trace). */
static int clone_reader(tp_ctx *ctx, const pstage *reader, pstage *c, const char *id,
                        const char *path)
{
    const tp_stage_desc *d = reader->auto_reader ? probe_reader(ctx, path) : NULL;
    if (d == NULL || d == reader->desc)
        return clone_stage(reader, c, id, path);
    pstage as = *reader;
    tp_diags diags = {0};
    /* the stage `{INPUT: PATH}`: that reader's defaults and the trace */
    const tp_option *in = tp_option_with_role(d, TP_OPT_INPUT_FILE);
    if (in == NULL)
        return clone_stage(reader, c, id, path);
    tp_ynode key = {.type = TP_YNODE_SCALAR, .text = (char *)in->name};
    tp_ynode value = {.type = TP_YNODE_SCALAR, .text = (char *)path, .quoted = true};
    tp_ynode *keys[] = {&key}, *items[] = {&value};
    tp_ynode stage = {.type = TP_YNODE_MAP, .n = 1, .keys = keys, .items = items};
    void *defaults = tp_options_build(d->options, d->config_size, &stage, NULL, NULL, d->name,
                                      &diags);
    tp_diags_free(&diags);
    if (defaults == NULL)
        return TP_ENOMEM;
    as.desc = tp_ctx_find_stage(ctx, TP_STAGE_READER, d->name, &as.plugin_path);
    as.plugin = (char *)d->name;
    as.config = defaults;
    int rc = clone_stage(&as, c, id, path);
    tp_options_free(d->options, defaults);
    return rc;
}

size_t tp_pipeline_batch_stages(const tp_pipeline *p)
{
    size_t n = 0;
    for (size_t i = 0; i < p->n; i++)
        n += p->stages[i].batch;
    return n;
}

tp_pipeline *tp_pipeline_for_batch(const tp_pipeline *p, const char *const *paths,
                                   const char *const *labels, size_t n, char *err, size_t errsz)
{
    const pstage *reader = NULL;
    for (size_t i = 0; i < p->n && reader == NULL; i++)
        if (p->stages[i].kind == TP_STAGE_READER)
            reader = &p->stages[i];
    if (reader == NULL) {
        snprintf(err, errsz, "%s: the pipeline has no reader to read the batch's traces", p->file);
        return NULL;
    }
    /* a batch stage takes results of batch stages only: the per-trace
     * stages ran in their own processes */
    for (size_t i = 0; i < p->n; i++) {
        const pstage *s = &p->stages[i];
        for (size_t k = 0; s->batch && k < s->n_inputs; k++) {
            size_t len = strcspn(s->inputs[k], ".");
            for (size_t j = 0; j < i; j++)
                if (!p->stages[j].batch && strlen(p->stages[j].id) == len &&
                    strncmp(p->stages[j].id, s->inputs[k], len) == 0) {
                    snprintf(err, errsz, "%s:%d:%d: batch stage '%s' takes input '%s' of the "
                             "per-trace stage '%s'; a batch stage takes results of batch stages "
                             "(mark it batch: true too, or use the batch tables OUT/NAME.csv)",
                             p->file, s->line, s->col, s->id, s->inputs[k], p->stages[j].id);
                    return NULL;
                }
        }
    }
    tp_pipeline *b = calloc(1, sizeof *b);
    size_t nb = tp_pipeline_batch_stages(p);
    if (b == NULL || (b->stages = calloc(n + nb, sizeof *b->stages)) == NULL) {
        free(b);
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    b->ctx = p->ctx;
    b->file = strdup(p->file);
    b->name = p->name ? strdup(p->name) : NULL;
    int rc = b->file ? tp_iter_config_clone(&b->iter, &p->iter) : TP_ENOMEM;
    char id[64];
    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        snprintf(id, sizeof id, "%s_%zu", reader->id, i);
        rc = clone_reader(p->ctx, reader, &b->stages[b->n], id, paths[i]);
        pstage *c = &b->stages[b->n++];
        c->has_rank_hint = labels && tp_batch_rank_of_label(labels[i], &c->rank_hint);
    }
    for (size_t i = 0; i < p->n && rc == TP_OK; i++) {
        const pstage *s = &p->stages[i];
        if (!s->batch)
            continue;
        pstage *c = &b->stages[b->n++];
        rc = clone_stage(s, c, s->id, NULL);
        /* every trace for a stage that takes several; else the latest */
        if (rc == TP_OK && (s->desc->flags & TP_STAGE_F_TRACES)) {
            if ((c->traces = calloc(n ? n : 1, sizeof *c->traces)) == NULL)
                rc = TP_ENOMEM;
            for (size_t t = 0; t < n && rc == TP_OK; t++) {
                snprintf(id, sizeof id, "%s_%zu", reader->id, t);
                if ((c->traces[t] = strdup(id)) == NULL)
                    rc = TP_ENOMEM;
                c->n_traces = t + 1;
            }
        }
    }
    if (rc != TP_OK) {
        tp_pipeline_free(b);
        snprintf(err, errsz, "out of memory");
        return NULL;
    }
    return b;
}
