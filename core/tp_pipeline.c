/*
 * Pipeline descriptions: YAML -> validated list of stages with typed
 * configs.  Everything is checked before anything runs, and every problem
 * is reported with its file:line:col.
 */
#include "tp_pipeline.h"
#include "tp_spec.h"
#include "tp_strmap.h"
#include "tp_loader.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const top_keys[] = {"name",        "description", "vars",    "stages",
                                        "plugin_path", "iterations",  "vocabulary", "fail_if",
                                        NULL};
static const char *const kind_keys[] = {"reader", "filter", "analysis", "writer", NULL};
static const char *const reserved_keys[] = {"reader", "filter", "analysis", "writer",
                                            "id",     "input",  "trace",    "batch", NULL};


static void free_stage(pstage *s)
{
    free(s->plugin);
    free(s->id);
    free(s->handoff);
    for (size_t i = 0; i < s->n_inputs; i++)
        free(s->inputs[i]);
    free(s->inputs);
    for (size_t i = 0; i < s->n_traces; i++)
        free(s->traces[i]);
    free(s->traces);
    if (s->desc)
        tp_options_free(s->desc->options, s->config);
    for (size_t i = 0; i < s->n_reqs; i++) {
        tp_options_free(s->reqs[i].desc->options, s->reqs[i].config);
        free(s->reqs[i].id);
    }
    free(s->reqs);
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
    tp_vocab_config_free(&p->vocab);
    tp_gate_list_free(&p->gates);
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
            const char *near = tp_closest(k->text, top_keys, 8);
            tp_diags_add(L->d, L->file, k->line, k->col,
                         "error: unknown top-level key '%s'%s%s%s; valid keys: name, "
                         "description, vars, stages, plugin_path, iterations, vocabulary, fail_if",
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

/* vars: the built-in ${pipeline_dir} (the pipeline file's folder, so a
 * bundled pipeline finds the data installed beside it), the defaults, then
 * --set values appended after them (later wins). */
static tp_var *collect_vars(loader *L, const tp_ynode *vars, const tp_var *sets, size_t n_sets,
                            size_t *n_out)
{
    size_t nv = vars && vars->type == TP_YNODE_MAP ? vars->n : 0;
    tp_var *v = calloc(nv + n_sets + 2, sizeof *v);
    if (v == NULL)
        return NULL;
    if (vars && vars->type != TP_YNODE_MAP)
        tp_diags_add(L->d, L->file, vars->line, vars->col,
                     "error: vars must be a mapping of names to values");
    size_t n = 0;
    v[n++] = (tp_var){"pipeline_dir", L->base_dir ? L->base_dir : "."};
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

/* One analysis stage s requires, with its default config now, so the run
 * can add it without any validation left to do. */
static void resolve_one_requirement(loader *L, pstage *s, const char *name,
                                    const tp_ynode *where)
{
    for (size_t i = 0; i < s->n_reqs; i++)
        if (strcmp(s->reqs[i].desc->name, name) == 0)
            return; /* named twice */
    const tp_stage_desc *d = tp_ctx_find_stage(L->ctx, TP_STAGE_ANALYSIS, name, NULL);
    if (d == NULL) {
        tp_diags_add(L->d, L->file, where->line, where->col,
                     "error: %s '%s' needs analysis '%s', which no loaded plugin provides",
                     tp_stage_kind_name(s->kind), s->plugin, name);
        return;
    }
    preq *r = &s->reqs[s->n_reqs];
    char who[256];
    snprintf(who, sizeof who, "analysis '%s' (required by '%s')", name, s->id);
    r->desc = d;
    r->config = tp_options_build(d->options, d->config_size, NULL, NULL, L->file, who, L->d);
    size_t n = strlen(s->id) + strlen(name) + 2;
    if ((r->id = malloc(n)) != NULL)
        snprintf(r->id, n, "%s.%s", s->id, name);
    if (r->config == NULL || r->id == NULL) {
        tp_options_free(d->options, r->config);
        free(r->id);
        return;
    }
    s->n_reqs++;
}

/* The analyses a stage requires: `requires`, then `requires_list`. */
static void resolve_requirement(loader *L, pstage *s, const tp_ynode *where)
{
    size_t n = s->desc->requires != NULL;
    for (const char *const *r = s->desc->requires_list; r && *r; r++)
        n++;
    if (n == 0 || (s->reqs = calloc(n, sizeof *s->reqs)) == NULL)
        return;
    if (s->desc->requires)
        resolve_one_requirement(L, s, s->desc->requires, where);
    for (const char *const *r = s->desc->requires_list; r && *r; r++)
        resolve_one_requirement(L, s, *r, where);
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
    const tp_stage_desc *best = tp_probe_reader(L->ctx, file);
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
    s->node = m;
    s->col = m->col;
    s->plugin = strdup(plugin);
    s->id = s->plugin ? tp_pl_stage_id(L, m, s->plugin) : NULL;
    L->p->n++; /* owned by the pipeline from here on, so freed on any error */
    if (s->plugin == NULL || s->id == NULL)
        return;
    if (!tp_pl_register_id(L, s->id, L->p->n - 1)) {
        tp_diags_add(L->d, L->file, m->line, m->col, "error: out of memory");
        return;
    }
    s->desc = tp_ctx_find_stage(L->ctx, kind, plugin, &s->plugin_path);
    if (s->desc == NULL) {
        report_unknown_plugin(L, kind, name);
        return;
    }
    tp_pl_parse_inputs(L, s, tp_ymap_get(m, "input"), L->p->n - 1);
    tp_pl_parse_traces(L, s, tp_ymap_get(m, "trace"), L->p->n - 1);
    parse_batch(L, s, tp_ymap_get(m, "batch"));
    char who[256];
    snprintf(who, sizeof who, "%s '%s'", tp_stage_kind_name(kind), s->id);
    if (strcmp(s->id, s->plugin) != 0)
        snprintf(who, sizeof who, "%s '%s' (%s)", tp_stage_kind_name(kind), s->id, s->plugin);
    const tp_option *in = input ? tp_option_with_role(s->desc, TP_OPT_INPUT_FILE) : NULL;
    s->config = tp_options_build_given(s->desc->options, s->desc->config_size, m, reserved_keys,
                                       L->file, who, L->d, in ? in->name : NULL, input);
    resolve_requirement(L, s, name);
    tp_pl_check_output_folder(L, s, m);
    tp_pl_check_path_per_result(L, s, m);
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
    tp_ynode *vocabulary = (tp_ynode *)tp_ymap_get(root, "vocabulary");
    tp_ynode *fail_if = (tp_ynode *)tp_ymap_get(root, "fail_if");
    if (vars) {
        tp_yaml_substitute(fail_if, vars, nv, L->file, L->d);
        tp_yaml_substitute(stages, vars, nv, L->file, L->d);
        tp_yaml_substitute(pp, vars, nv, L->file, L->d);
        tp_yaml_substitute(iterations, vars, nv, L->file, L->d);
        tp_yaml_substitute(vocabulary, vars, nv, L->file, L->d);
    }
    tp_iter_config_load(&L->p->iter, iterations, L->file, L->d);
    tp_vocab_config_load(&L->p->vocab, vocabulary, L->file, L->d);
    add_plugin_dirs(L, pp);
    tp_ctx_load_all(L->ctx, L->d);
    /* plugin refusals are warnings unless a stage needs the refused plugin;
     * they stay in d so the unknown-plugin error is read next to them */
    size_t before_stages = L->d->n;
    parse_stages(L, stages, root);
    tp_strmap_free(&L->ids);
    tp_strmap_free(&L->next_suffix);
    free(vars);
    bool failed = false;
    for (size_t i = errors; i < L->d->n; i++)
        failed |= strstr(L->d->lines[i], "error:") != NULL;
    (void)before_stages;
    if (!failed && fail_if) { /* against the stages' declared results */
        size_t before = L->d->n;
        tp_gate_load_yaml(L->p, fail_if, L->file, L->d);
        failed = L->d->n > before;
    }
    if (!failed) /* options the schema cannot judge: each stage's init does */
        failed = tp_pipeline_check_configs(L->p, L->d) != TP_OK;
    for (size_t i = 0; i < L->p->n; i++)
        L->p->stages[i].node = NULL; /* root goes now */
    tp_ynode_free(root);
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
