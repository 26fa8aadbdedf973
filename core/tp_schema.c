/*
 * Declared result schemas.  A stage declares, per result, its columns with
 * type, unit and meaning (tp_stage_desc.results, or results_for(config)
 * when options change them).  The core makes results from the declaration,
 * so the columns a stage writes are the ones `pipeline describe` prints,
 * its JSON Schema states and the plugin's page lists (the docs test
 * compares them).
 */
#include "tp_schema.h"
#include "tp_host.h"
#include "tp_result.h"
#include "tp_trace.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

const tp_result_decl *tp_schema_of(const tp_stage_desc *d, const void *config)
{
    if (d == NULL)
        return NULL;
    if (d->results_for != NULL && config != NULL) {
        const tp_result_decl *r = d->results_for(config);
        if (r != NULL)
            return r;
    }
    return d->results;
}

const tp_result_decl *tp_schema_find(const tp_result_decl *decls, const char *name)
{
    const char *want = name ? name : "";
    for (const tp_result_decl *r = decls; r && r->name; r++)
        if (strcmp(r->name, want) == 0)
            return r;
    return NULL;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

const char *tp_schema_unit_from_name(const char *name)
{
    static const struct {
        const char *suffix, *unit;
    } by_suffix[] = {{"_us", "us"},           {"_ns", "ns"},           {"_bytes", "bytes"},
                     {"_percent", "percent"}, {"_ratio", "ratio"},     {"_tflops", "Tflop/s"},
                     {"_gbps", "GB/s"},       {"_flop", "flop"},       {"_count", "count"}};
    for (size_t i = 0; i < sizeof by_suffix / sizeof by_suffix[0]; i++)
        if (ends_with(name, by_suffix[i].suffix))
            return by_suffix[i].unit;
    if (strncmp(name, "percent", 7) == 0)
        return "percent";
    if (strcmp(name, "count") == 0 || strncmp(name, "n_", 2) == 0)
        return "count";
    return NULL;
}

static int same_unit(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

/* Columns, kind and units of decl on r.  A unit is kept as a note only where
 * the column's name does not already imply it, and a kind only when it is
 * not "table": results stay what they were before they were declared. */
static int apply_decl(tp_stage *st, tp_result *r, const tp_result_decl *decl)
{
    const tp_host_api *api = tp_core_host_api();
    for (size_t c = 0; c < decl->n_cols; c++) {
        const tp_col_decl *col = &decl->cols[c];
        int idx = api->result_add_col(st, r, col->name, col->type);
        if (idx < 0)
            return idx;
        if (col->doc && *col->doc && tp_result_col_set_meaning(r, idx, col->doc) != TP_OK)
            return TP_ENOMEM;
        if (col->unit && !same_unit(col->unit, tp_schema_unit_from_name(col->name))) {
            int rc = api->result_set_unit(st, r, idx, col->unit);
            if (rc != TP_OK)
                return rc;
        }
    }
    if (decl->kind && strcmp(decl->kind, "table") != 0)
        return api->result_set_kind(st, r, decl->kind);
    return TP_OK;
}

tp_result *tp_host_result_declared(tp_stage *st, const char *name)
{
    const tp_result_decl *decl = tp_schema_find(tp_schema_of(st->desc, st->config), name);
    if (decl == NULL) {
        if (st->error_code == 0) {
            snprintf(st->error, sizeof st->error,
                     "plugin bug: stage '%s' declares no result '%s'", st->desc->name,
                     name && *name ? name : "(main)");
            st->error_code = TP_EINVAL;
        }
        return NULL;
    }
    tp_result *r = tp_core_host_api()->result_new(st, name);
    if (r == NULL)
        return NULL;
    return apply_decl(st, r, decl) == TP_OK ? r : NULL;
}

static const char *type_name(tp_coltype t)
{
    return t == TP_COL_STR ? "text" : t == TP_COL_I64 ? "int64" : t == TP_COL_F64 ? "double" : "?";
}

static const char *unit_of(const tp_col_decl *c)
{
    const char *u = c->unit ? c->unit : tp_schema_unit_from_name(c->name);
    return u ? u : "";
}

void tp_schema_print_text(FILE *f, const tp_result_decl *decls, const char *stage_id)
{
    for (const tp_result_decl *r = decls; r && r->name; r++) {
        fprintf(f, "\n  result %s%s%s (%s)%s%s\n", stage_id, *r->name ? "." : "", r->name,
                r->kind ? r->kind : "table", r->doc ? ": " : "", r->doc ? r->doc : "");
        int wn = 22, wu = 9; /* the longest name and unit, at least these */
        for (size_t c = 0; c < r->n_cols; c++) {
            size_t n = strlen(r->cols[c].name), u = strlen(unit_of(&r->cols[c]));
            wn = n > (size_t)wn ? (int)n : wn;
            wu = u > (size_t)wu ? (int)u : wu;
        }
        fprintf(f, "    %-*s %-7s %-*s %s\n", wn, "COLUMN", "TYPE", wu, "UNIT", "MEANING");
        for (size_t c = 0; c < r->n_cols; c++)
            fprintf(f, "    %-*s %-7s %-*s %s\n", wn, r->cols[c].name, type_name(r->cols[c].type),
                    wu, *unit_of(&r->cols[c]) ? unit_of(&r->cols[c]) : "-",
                    r->cols[c].doc ? r->cols[c].doc : "");
    }
}

void tp_schema_print_markdown(FILE *f, const tp_result_decl *decls)
{
    for (const tp_result_decl *r = decls; r && r->name; r++) {
        fprintf(f, "\n**`<id>%s%s`** (%s)%s%s\n\n", *r->name ? "." : "", r->name,
                r->kind ? r->kind : "table", r->doc ? ": " : "", r->doc ? r->doc : "");
        fprintf(f, "| column | type | unit | meaning |\n|---|---|---|---|\n");
        for (size_t c = 0; c < r->n_cols; c++)
            fprintf(f, "| `%s` | %s | %s | %s |\n", r->cols[c].name, type_name(r->cols[c].type),
                    *unit_of(&r->cols[c]) ? unit_of(&r->cols[c]) : "-",
                    r->cols[c].doc ? r->cols[c].doc : "");
    }
}

/* The JSON Schema of one column's cells as the json writer writes them. */
static json_t *column_schema(const tp_col_decl *c)
{
    const char *t = c->type == TP_COL_STR ? "string" : c->type == TP_COL_I64 ? "integer" : "number";
    json_t *s = json_pack("{s:[s,s]}", "type", t, "null");
    if (s && c->doc)
        json_object_set_new(s, "description", json_string(c->doc));
    const char *unit = unit_of(c);
    if (s && *unit)
        json_object_set_new(s, "x-unit", json_string(unit));
    return s;
}

/* One result: an array of row objects (a tree: of root nodes with
 * `children`, as the json writer nests them). */
static json_t *result_schema(const tp_result_decl *r, const char *stage_name)
{
    json_t *props = json_object(), *required = json_array();
    int tree = r->kind && strcmp(r->kind, "tree") == 0;
    for (size_t c = 0; props && required && c < r->n_cols; c++) {
        if (tree && strcmp(r->cols[c].name, "parent_id") == 0)
            continue; /* the nesting says it */
        json_object_set_new(props, r->cols[c].name, column_schema(&r->cols[c]));
        json_array_append_new(required, json_string(r->cols[c].name));
    }
    if (tree)
        json_object_set_new(props, "children", json_pack("{s:s,s:{s:s}}", "type", "array",
                                                         "items", "$ref", "#/$defs/row"));
    json_t *row = json_pack("{s:s,s:o,s:o}", "type", "object", "properties", props, "required",
                            required);
    char title[512];
    snprintf(title, sizeof title, "%s: <id>%s%s", stage_name, *r->name ? "." : "", r->name);
    return json_pack("{s:s,s:s,s:s,s:s,s:{s:s},s:{s:o}}", "$schema",
                     "https://json-schema.org/draft/2020-12/schema", "title", title,
                     "description", r->doc ? r->doc : "", "type", "array", "items", "$ref",
                     "#/$defs/row", "$defs", "row", row);
}

int tp_schema_print_json(FILE *f, const tp_stage_desc *d, const tp_result_decl *decls)
{
    json_t *all = json_object();
    for (const tp_result_decl *r = decls; all && r && r->name; r++) {
        char key[256];
        snprintf(key, sizeof key, "<id>%s%s", *r->name ? "." : "", r->name);
        json_object_set_new(all, key, result_schema(r, d->name));
    }
    if (all == NULL)
        return TP_ENOMEM;
    int rc = json_dumpf(all, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 ? TP_OK : TP_EIO;
    fputc('\n', f);
    json_decref(all);
    return rc;
}
