/*
 * YAML to a small node tree that remembers where each node was written.
 *
 * Built from libyaml's event API (not yaml_parser_load) so that aliases can
 * be refused before anything expands them and duplicate keys can be
 * reported — libyaml's own loader accepts both.
 */
#include "tp_yaml.h"

#include <yaml.h>

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct builder {
    yaml_parser_t parser;
    const char *file;
    tp_diags *d;
    int failed;
} builder;

void tp_ynode_free(tp_ynode *n)
{
    if (n == NULL)
        return;
    for (size_t i = 0; i < n->n; i++) {
        if (n->keys)
            tp_ynode_free(n->keys[i]);
        tp_ynode_free(n->items[i]);
    }
    free(n->keys);
    free(n->items);
    free(n->text);
    free(n);
}

tp_ynode *tp_ynode_clone(const tp_ynode *n)
{
    tp_ynode *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    *c = (tp_ynode){.type = n->type, .line = n->line, .col = n->col, .quoted = n->quoted};
    bool ok = n->text == NULL || (c->text = strdup(n->text)) != NULL;
    if (ok && n->n > 0) {
        ok = (c->items = calloc(n->n, sizeof *c->items)) != NULL &&
             (n->keys == NULL || (c->keys = calloc(n->n, sizeof *c->keys)) != NULL);
        for (; ok && c->n < n->n; c->n++) {
            c->items[c->n] = tp_ynode_clone(n->items[c->n]);
            if (n->keys)
                c->keys[c->n] = tp_ynode_clone(n->keys[c->n]);
            ok = c->items[c->n] && (n->keys == NULL || c->keys[c->n]); /* c->n counts it */
        }
    }
    if (!ok) {
        tp_ynode_free(c);
        return NULL;
    }
    return c;
}

static tp_ynode *node_new(tp_ynode_type type, const yaml_mark_t *m)
{
    tp_ynode *n = calloc(1, sizeof *n);
    if (n) {
        n->type = type;
        n->line = (int)m->line + 1;
        n->col = (int)m->column + 1;
    }
    return n;
}

static int node_push(tp_ynode *parent, tp_ynode *key, tp_ynode *item)
{
    tp_ynode **items = realloc(parent->items, (parent->n + 1) * sizeof *items);
    if (items == NULL)
        return -1;
    parent->items = items;
    if (parent->type == TP_YNODE_MAP) {
        tp_ynode **keys = realloc(parent->keys, (parent->n + 1) * sizeof *keys);
        if (keys == NULL)
            return -1;
        parent->keys = keys;
        keys[parent->n] = key;
    }
    items[parent->n++] = item;
    return 0;
}

static void parser_error(builder *b)
{
    const yaml_parser_t *p = &b->parser;
    const yaml_mark_t *m = p->problem ? &p->problem_mark : &p->context_mark;
    tp_diags_add(b->d, b->file, (int)m->line + 1, (int)m->column + 1, "error: YAML syntax: %s%s%s",
                 p->problem ? p->problem : "malformed document", p->context ? " " : "",
                 p->context ? p->context : "");
    b->failed = 1;
}

/* Reads the next event; returns 0 on a parser error (already reported). */
static int next_event(builder *b, yaml_event_t *ev)
{
    if (!yaml_parser_parse(&b->parser, ev)) {
        parser_error(b);
        return 0;
    }
    return 1;
}

static tp_ynode *build_node(builder *b, yaml_event_t *ev, int depth);

static tp_ynode *build_collection(builder *b, yaml_event_t *start, int depth)
{
    int is_map = start->type == YAML_MAPPING_START_EVENT;
    tp_ynode *n = node_new(is_map ? TP_YNODE_MAP : TP_YNODE_SEQ, &start->start_mark);
    yaml_event_type_t end = is_map ? YAML_MAPPING_END_EVENT : YAML_SEQUENCE_END_EVENT;
    if (n == NULL)
        return NULL;
    for (;;) {
        yaml_event_t ev;
        if (!next_event(b, &ev))
            goto fail;
        if (ev.type == end) {
            yaml_event_delete(&ev);
            return n;
        }
        tp_ynode *key = NULL;
        if (is_map) {
            key = build_node(b, &ev, depth + 1);
            yaml_event_delete(&ev);
            if (key == NULL)
                goto fail;
            if (key->type != TP_YNODE_SCALAR) {
                tp_diags_add(b->d, b->file, key->line, key->col,
                             "error: mapping keys must be plain scalars");
                b->failed = 1;
            } else {
                for (size_t i = 0; i < n->n; i++) /* earlier bad keys have no text */
                    if (n->keys[i]->type == TP_YNODE_SCALAR &&
                        strcmp(n->keys[i]->text, key->text) == 0) {
                        tp_diags_add(b->d, b->file, key->line, key->col,
                                     "error: duplicate key '%s' (first at line %d)", key->text,
                                     n->keys[i]->line);
                        b->failed = 1;
                    }
            }
            if (!next_event(b, &ev)) {
                tp_ynode_free(key);
                goto fail;
            }
        }
        tp_ynode *item = build_node(b, &ev, depth + 1);
        yaml_event_delete(&ev);
        if (item == NULL || node_push(n, key, item) != 0) {
            tp_ynode_free(key);
            tp_ynode_free(item);
            goto fail;
        }
    }
fail:
    tp_ynode_free(n);
    return NULL;
}

static tp_ynode *build_node(builder *b, yaml_event_t *ev, int depth)
{
    if (depth > MAX_DEPTH) {
        tp_diags_add(b->d, b->file, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1,
                     "error: YAML nested deeper than %d levels", MAX_DEPTH);
        b->failed = 1;
        return NULL;
    }
    switch (ev->type) {
    case YAML_ALIAS_EVENT:
        tp_diags_add(b->d, b->file, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1,
                     "error: YAML aliases (*%s) are not supported in pipelines",
                     (const char *)ev->data.alias.anchor);
        b->failed = 1;
        return NULL;
    case YAML_SCALAR_EVENT: {
        if (ev->data.scalar.anchor) {
            tp_diags_add(b->d, b->file, (int)ev->start_mark.line + 1,
                         (int)ev->start_mark.column + 1,
                         "error: YAML anchors (&%s) are not supported in pipelines",
                         (const char *)ev->data.scalar.anchor);
            b->failed = 1;
        }
        tp_ynode *n = node_new(TP_YNODE_SCALAR, &ev->start_mark);
        if (n == NULL)
            return NULL;
        n->text = strndup((const char *)ev->data.scalar.value, ev->data.scalar.length);
        n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
        if (n->text == NULL) {
            free(n);
            return NULL;
        }
        return n;
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
        const yaml_char_t *anchor = ev->type == YAML_SEQUENCE_START_EVENT
                                        ? ev->data.sequence_start.anchor
                                        : ev->data.mapping_start.anchor;
        if (anchor) {
            tp_diags_add(b->d, b->file, (int)ev->start_mark.line + 1,
                         (int)ev->start_mark.column + 1,
                         "error: YAML anchors (&%s) are not supported in pipelines",
                         (const char *)anchor);
            b->failed = 1;
            return NULL;
        }
        return build_collection(b, ev, depth);
    }
    default:
        tp_diags_add(b->d, b->file, (int)ev->start_mark.line + 1, (int)ev->start_mark.column + 1,
                     "error: unexpected YAML structure");
        b->failed = 1;
        return NULL;
    }
}

/* Skips events up to the first node of the first document. */
static int skip_to_document(builder *b, yaml_event_t *ev)
{
    for (;;) {
        if (!next_event(b, ev))
            return 0;
        if (ev->type == YAML_STREAM_START_EVENT || ev->type == YAML_DOCUMENT_START_EVENT) {
            yaml_event_delete(ev);
            continue;
        }
        return 1;
    }
}

tp_ynode *tp_yaml_parse(const char *text, size_t len, const char *file, tp_diags *d)
{
    builder b = {.file = file, .d = d};
    if (!yaml_parser_initialize(&b.parser)) {
        tp_diags_add(d, file, 0, 0, "error: cannot initialise the YAML parser");
        return NULL;
    }
    yaml_parser_set_input_string(&b.parser, (const unsigned char *)text, len);
    yaml_event_t ev;
    tp_ynode *root = NULL;
    if (skip_to_document(&b, &ev)) {
        if (ev.type == YAML_STREAM_END_EVENT) {
            tp_diags_add(d, file, 1, 1, "error: the pipeline file is empty");
            b.failed = 1;
        } else {
            root = build_node(&b, &ev, 0);
        }
        yaml_event_delete(&ev);
    }
    if (root && !b.failed) {
        /* the document must end here: a second document is a mistake */
        if (next_event(&b, &ev)) {
            if (ev.type == YAML_DOCUMENT_END_EVENT) {
                yaml_event_delete(&ev);
                if (next_event(&b, &ev)) {
                    if (ev.type != YAML_STREAM_END_EVENT) {
                        tp_diags_add(d, file, (int)ev.start_mark.line + 1,
                                     (int)ev.start_mark.column + 1,
                                     "error: a pipeline file holds one YAML document");
                        b.failed = 1;
                    }
                    yaml_event_delete(&ev);
                }
            } else {
                yaml_event_delete(&ev);
            }
        }
    }
    yaml_parser_delete(&b.parser);
    if (b.failed || root == NULL) {
        if (!b.failed && d->n == 0)
            tp_diags_add(d, file, 0, 0, "error: out of memory while reading YAML");
        tp_ynode_free(root);
        return NULL;
    }
    return root;
}

const tp_ynode *tp_ymap_get(const tp_ynode *map, const char *key)
{
    if (map == NULL || map->type != TP_YNODE_MAP)
        return NULL;
    for (size_t i = 0; i < map->n; i++)
        if (strcmp(map->keys[i]->text, key) == 0)
            return map->items[i];
    return NULL;
}

static const char *var_value(const tp_var *vars, size_t n, const char *name, size_t len)
{
    /* later entries win, so --set (appended after vars:) overrides defaults */
    for (size_t i = n; i-- > 0;)
        if (strlen(vars[i].name) == len && strncmp(vars[i].name, name, len) == 0)
            return vars[i].value;
    return NULL;
}

/* Variables may refer to variables (out: ${root}/out); the expansion is
 * repeated until no reference is left, at most this many times, so a cycle
 * (a: ${b}, b: ${a}) is an error, not a hang. */
#define TP_VAR_MAX_DEPTH 16

/* Expands ${name} in one scalar; returns 0 on an unknown or unterminated
 * reference, or a cycle (reported). */
static int substitute_scalar_at(tp_ynode *n, const tp_var *vars, size_t nv, const char *file,
                                tp_diags *d, int depth)
{
    if (strstr(n->text, "${") == NULL)
        return 1;
    if (depth == TP_VAR_MAX_DEPTH) {
        tp_diags_add(d, file, n->line, n->col,
                     "error: variables refer to each other in a cycle (still '%s' after %d "
                     "expansions)", n->text, TP_VAR_MAX_DEPTH);
        return 0;
    }
    size_t cap = strlen(n->text) + 1, used = 0;
    char *out = malloc(cap);
    if (out == NULL)
        return 0;
    for (const char *p = n->text; *p;) {
        const char *add = p;
        size_t add_len = 1;
        const char *next = p + 1;
        if (p[0] == '$' && p[1] == '{') {
            const char *end = strchr(p + 2, '}');
            if (end == NULL) {
                tp_diags_add(d, file, n->line, n->col, "error: unterminated '${' in '%s'", n->text);
                free(out);
                return 0;
            }
            add = var_value(vars, nv, p + 2, (size_t)(end - p - 2));
            if (add == NULL) {
                tp_diags_add(d, file, n->line, n->col,
                             "error: unknown variable '%.*s' (define it under vars: or pass "
                             "--set %.*s=VALUE)",
                             (int)(end - p - 2), p + 2, (int)(end - p - 2), p + 2);
                free(out);
                return 0;
            }
            add_len = strlen(add);
            next = end + 1;
        }
        if (used + add_len + 1 > cap) {
            cap = (used + add_len + 1) * 2;
            char *o = realloc(out, cap);
            if (o == NULL) {
                free(out);
                return 0;
            }
            out = o;
        }
        memcpy(out + used, add, add_len);
        used += add_len;
        p = next;
    }
    out[used] = '\0';
    free(n->text);
    n->text = out;
    return substitute_scalar_at(n, vars, nv, file, d, depth + 1); /* values may hold ${...} */
}

static int substitute_scalar(tp_ynode *n, const tp_var *vars, size_t nv, const char *file,
                             tp_diags *d)
{
    return substitute_scalar_at(n, vars, nv, file, d, 0);
}

int tp_yaml_substitute(tp_ynode *root, const tp_var *vars, size_t n_vars, const char *file,
                       tp_diags *d)
{
    if (root == NULL)
        return 1;
    if (root->type == TP_YNODE_SCALAR)
        return substitute_scalar(root, vars, n_vars, file, d);
    int ok = 1;
    for (size_t i = 0; i < root->n; i++)
        ok &= tp_yaml_substitute(root->items[i], vars, n_vars, file, d);
    return ok;
}
