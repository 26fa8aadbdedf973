/*
 * `pipeline describe NAME`: a stage's options and the results it makes,
 * with their columns, as text; with --json one JSON Schema per result (the
 * contract scripts and CI read), with --markdown the columns tables a
 * plugin's page holds (the docs test compares them).
 */
#include "tp_schema.h"
#include "tp_loader.h"
#include "tp_options.h"
#include "tp_yaml.h"

#include <stdlib.h>
#include <string.h>

static const char *opt_type_name(tp_opt_type t)
{
    switch (t) {
    case TP_OPT_BOOL:
        return "bool";
    case TP_OPT_INT:
        return "int";
    case TP_OPT_FLOAT:
        return "float";
    case TP_OPT_STRING:
        return "string";
    case TP_OPT_CHOICE:
    case TP_OPT_ENUM:
        return "choice";
    case TP_OPT_LIST:
        return "list";
    case TP_OPT_INT_LIST:
        return "int list";
    case TP_OPT_FLOAT_LIST:
        return "float list";
    case TP_OPT_MAP_LIST:
        return "list of mappings";
    }
    return "?";
}

/* The RANGE/CHOICES cell of an option. */
static void opt_range(const tp_option *o, char *range, size_t size)
{
    range[0] = '\0';
    if ((o->flags & TP_OPT_RANGE) && o->type != TP_OPT_BOOL && o->type != TP_OPT_STRING &&
        o->type != TP_OPT_CHOICE && o->type != TP_OPT_LIST && o->type != TP_OPT_ENUM)
        snprintf(range, size, "[%.15g, %.15g]", o->min, o->max);
    bool choices = o->type == TP_OPT_CHOICE || o->type == TP_OPT_ENUM ||
                   (o->type == TP_OPT_MAP_LIST && o->choices); /* a mapping's keys */
    for (size_t i = 0; choices && o->choices[i]; i++) {
        size_t used = strlen(range);
        snprintf(range + used, size - used, "%s%s", i ? (o->type == TP_OPT_MAP_LIST ? ", " : "|")
                                                    : (used ? " keys " : ""), o->choices[i]);
    }
}

/* The DEFAULT cell: "" for an empty default, so no cell is blank. */
static const char *opt_default(const tp_option *o)
{
    if (o->flags & TP_OPT_REQUIRED)
        return "(required)";
    return o->def == NULL ? "-" : *o->def ? o->def : "\"\"";
}

/* Widths of the option table's columns: the longest cell of each (at least
 * the widths of old, so short tables print as before). */
typedef struct opt_widths {
    int name, type, def, range;
} opt_widths;

static int wider(int w, const char *s)
{
    size_t n = strlen(s);
    return n > (size_t)w ? (int)n : w;
}

static opt_widths option_widths(const tp_option *opts)
{
    opt_widths w = {16, 7, 10, 18};
    char range[256];
    for (const tp_option *o = opts; o && o->name; o++) {
        opt_range(o, range, sizeof range);
        w.name = wider(w.name, o->name);
        w.type = wider(w.type, opt_type_name(o->type));
        w.def = wider(w.def, opt_default(o));
        w.range = wider(w.range, range);
    }
    return w;
}

static void option_line(const opt_widths *w, const char *name, const char *type,
                        const char *def, const char *range, const char *help)
{
    printf("  %-*s %-*s %-*s %-*s %s\n", w->name, name, w->type, type, w->def, def, w->range,
           range, help);
}

static void describe_option(const opt_widths *w, const tp_option *o)
{
    char range[256];
    opt_range(o, range, sizeof range);
    option_line(w, o->name, opt_type_name(o->type), opt_default(o), range,
                o->help ? o->help : "");
}

/* The known stage name closest to name, or NULL. */
static const char *closest_stage(tp_ctx *ctx, const char *name)
{
    size_t n = tp_ctx_stage_count(ctx);
    const char **names = calloc(n + 1, sizeof *names);
    if (names == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        names[i] = tp_ctx_stage_at(ctx, i, NULL)->name;
    const char *near = tp_closest(name, names, n);
    free(names);
    return near;
}

/* The stage's defaults, for results_for: a stage whose results depend on
 * its options is described as configured by default.  NULL when an option
 * is required (then `results` is described). */
static void *default_config(const tp_stage_desc *s)
{
    static const tp_ynode empty = {.type = TP_YNODE_MAP};
    static const char *const none[] = {NULL};
    tp_diags quiet = {0};
    void *config = tp_options_build(s->options, s->config_size, &empty, none, "", "", &quiet);
    tp_diags_free(&quiet);
    return config;
}

static void describe_text(const tp_stage_desc *s, const char *path, const tp_result_decl *decls)
{
    printf("%s %s — %s\n  plugin: %s\n", tp_stage_kind_name(s->kind), s->name,
           s->summary ? s->summary : "", path);
    if (s->requires || (s->requires_list && s->requires_list[0])) {
        printf("  requires: analysis");
        if (s->requires)
            printf(" %s", s->requires);
        for (const char *const *r = s->requires_list; r && *r; r++)
            printf("%s %s", s->requires || r != s->requires_list ? "," : "", *r);
        printf(" (run first with defaults if the pipeline lacks it)\n");
    }
    opt_widths w = option_widths(s->options);
    printf("\n");
    option_line(&w, "OPTION", "TYPE", "DEFAULT", "RANGE/CHOICES", "HELP");
    for (const tp_option *o = s->options; o && o->name; o++)
        describe_option(&w, o);
    if (s->options == NULL || s->options[0].name == NULL)
        printf("  (no options)\n");
    if (decls && s->results_for)
        printf("\n  results (as with the default options; some options change them):\n");
    if (decls)
        tp_schema_print_text(stdout, decls, "<id>");
    else if (s->produces && s->produces[0]) {
        printf("\n  results, declared by id only (no column schema):");
        for (const char *const *pr = s->produces; *pr; pr++)
            printf(" <id>%s%s", **pr ? "." : "", *pr);
        printf("\n");
    }
}

int tp_describe_json_to(tp_ctx *ctx, const char *name, FILE *out, char *why, size_t why_size)
{
    const char *path = NULL;
    const tp_stage_desc *s = tp_ctx_find_stage(ctx, 0, name, &path);
    if (s == NULL) {
        const char *near = closest_stage(ctx, name);
        snprintf(why, why_size, "no stage named '%s'%s%s%s", name, near ? "; did you mean '" : "",
                 near ? near : "", near ? "'?" : "");
        return TP_EINVAL;
    }
    void *config = s->results_for ? default_config(s) : NULL;
    const tp_result_decl *decls = tp_schema_of(s, config);
    int rc = TP_OK;
    if (decls == NULL) {
        snprintf(why, why_size, "%s '%s' declares no result columns", tp_stage_kind_name(s->kind),
                 s->name);
        rc = TP_EINVAL;
    } else if (tp_schema_print_json(out, s, decls) != TP_OK) {
        snprintf(why, why_size, "out of memory");
        rc = TP_ENOMEM;
    }
    if (config)
        tp_options_free(s->options, config);
    return rc;
}

int tp_cli_describe(tp_ctx *ctx, const char *name, int format)
{
    const char *path = NULL;
    const tp_stage_desc *s = tp_ctx_find_stage(ctx, 0, name, &path);
    if (s == NULL) {
        const char *near = closest_stage(ctx, name);
        tp_print_line(stderr, "pipeline: no stage named '%s'%s%s%s (see 'pipeline plugins')", name,
                      near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
        return TP_EXIT_USAGE;
    }
    void *config = s->results_for ? default_config(s) : NULL;
    const tp_result_decl *decls = tp_schema_of(s, config);
    int rc = TP_EXIT_OK;
    if (format == TP_DESCRIBE_TEXT) {
        describe_text(s, path, decls);
    } else if (decls == NULL) {
        tp_print_line(stderr, "pipeline: %s '%s' declares no result columns", tp_stage_kind_name(s->kind),
                      s->name);
        rc = TP_EXIT_FAIL;
    } else if (format == TP_DESCRIBE_MARKDOWN) {
        tp_schema_print_markdown(stdout, decls);
    } else if (tp_schema_print_json(stdout, s, decls) != TP_OK) {
        rc = TP_EXIT_FAIL;
    }
    if (config)
        tp_options_free(s->options, config);
    return rc;
}
