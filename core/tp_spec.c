/*
 * The pipeline file, read and parsed once (issue 23): what batch, merge and
 * run ask of it (its variables, its first reader and that reader's input
 * file) comes from this one tree, and every load of the pipeline validates
 * a copy of it (tp_pipeline_load_spec).
 */
#include "tp_spec.h"
#include "tp_options.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct tp_spec {
    char *file;
    char *base_dir;
    tp_ynode *root;
};

void tp_spec_free(tp_spec *s)
{
    if (s == NULL)
        return;
    free(s->file);
    free(s->base_dir);
    tp_ynode_free(s->root);
    free(s);
}

static tp_spec *spec_new(const char *yaml, size_t len, const char *file, tp_diags *d)
{
    tp_spec *s = calloc(1, sizeof *s);
    if (s == NULL || (s->file = strdup(file)) == NULL) {
        tp_spec_free(s);
        return NULL;
    }
    if ((s->root = tp_yaml_parse(yaml, len, file, d)) == NULL) {
        tp_spec_free(s);
        return NULL;
    }
    return s;
}

tp_spec *tp_spec_from_string(const char *yaml, size_t len, const char *name, tp_diags *d)
{
    return spec_new(yaml, len, name ? name : "<string>", d);
}

/* The whole file (new buffer, *len bytes) or NULL after saying why. */
static char *read_all(const char *path, size_t *len_out, tp_diags *d)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        tp_diags_add(d, path, 0, 0, "error: cannot open pipeline: %s", strerror(errno));
        return NULL;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 8192;
            if (cap > (64u << 20)) {
                tp_diags_add(d, path, 0, 0, "error: pipeline file larger than 64 MiB");
                free(buf);
                fclose(f);
                return NULL;
            }
            char *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return NULL;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    int read_error = ferror(f);
    fclose(f);
    if (read_error) {
        tp_diags_add(d, path, 0, 0, "error: cannot read pipeline (is it a directory?)");
        free(buf);
        return NULL;
    }
    *len_out = len;
    return buf;
}

tp_spec *tp_spec_read_file(const char *path, tp_diags *d)
{
    size_t len = 0;
    char *buf = read_all(path, &len, d);
    if (buf == NULL)
        return NULL;
    tp_spec *s = spec_new(buf, len, path, d);
    free(buf);
    const char *slash = strrchr(path, '/');
    if (s && slash && (s->base_dir = strndup(path, (size_t)(slash - path))) == NULL) {
        tp_spec_free(s);
        return NULL;
    }
    return s;
}

const char *tp_spec_file(const tp_spec *s) { return s->file; }
const char *tp_spec_base_dir(const tp_spec *s) { return s->base_dir; }
const tp_ynode *tp_spec_root(const tp_spec *s) { return s->root; }

int tp_spec_var(const tp_spec *s, const char *name, const char **value)
{
    const tp_ynode *vars = tp_ymap_get(s->root, "vars");
    const tp_ynode *v = vars && vars->type == TP_YNODE_MAP ? tp_ymap_get(vars, name) : NULL;
    *value = v && v->type == TP_YNODE_SCALAR ? v->text : NULL;
    return v != NULL;
}

/* The first stage that names a reader, or NULL. */
static const tp_ynode *reader_stage(const tp_spec *s)
{
    const tp_ynode *stages = tp_ymap_get(s->root, "stages");
    for (size_t i = 0; stages && stages->type == TP_YNODE_SEQ && i < stages->n; i++) {
        const tp_ynode *m = stages->items[i];
        if (m->type == TP_YNODE_MAP && tp_ymap_get(m, "reader") != NULL)
            return m;
    }
    return NULL;
}

const char *tp_spec_reader(const tp_spec *s)
{
    const tp_ynode *m = reader_stage(s);
    const tp_ynode *r = m ? tp_ymap_get(m, "reader") : NULL;
    return r && r->type == TP_YNODE_SCALAR ? r->text : NULL;
}

const char *tp_spec_reader_input(const tp_spec *s, const tp_ctx *ctx)
{
    const char *reader = tp_spec_reader(s);
    if (reader == NULL)
        return NULL;
    const char *key = "path"; /* `reader: auto` probes its own path: */
    if (strcmp(reader, "auto") != 0) {
        const tp_stage_desc *d = tp_ctx_find_stage(ctx, TP_STAGE_READER, reader, NULL);
        const tp_option *o = d ? tp_option_with_role(d, TP_OPT_INPUT_FILE) : NULL;
        if (o == NULL)
            return NULL;
        key = o->name;
    }
    const tp_ynode *v = tp_ymap_get(reader_stage(s), key);
    return v && v->type == TP_YNODE_SCALAR ? v->text : NULL;
}

/* Whether the scalar text names ${name}. */
static int names_var(const char *text, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = strstr(text, "${"); p; p = strstr(p + 2, "${"))
        if (strncmp(p + 2, name, len) == 0 && p[2 + len] == '}')
            return 1;
    return 0;
}

static int reader_names_var(const tp_ynode *stage, const char *name)
{
    for (size_t k = 0; k < stage->n; k++)
        if (stage->items[k]->type == TP_YNODE_SCALAR && names_var(stage->items[k]->text, name))
            return 1;
    return 0;
}

size_t tp_spec_reader_vars(const tp_spec *s, const char **names, size_t max)
{
    const tp_ynode *vars = tp_ymap_get(s->root, "vars");
    const tp_ynode *stages = tp_ymap_get(s->root, "stages");
    if (vars == NULL || vars->type != TP_YNODE_MAP || stages == NULL ||
        stages->type != TP_YNODE_SEQ)
        return 0;
    size_t n = 0;
    for (size_t i = 0; i < stages->n; i++) {
        const tp_ynode *m = stages->items[i];
        if (m->type != TP_YNODE_MAP || tp_ymap_get(m, "reader") == NULL)
            continue;
        const tp_ynode *batch = tp_ymap_get(m, "batch");
        if (batch && batch->type == TP_YNODE_SCALAR && strcmp(batch->text, "true") == 0)
            continue; /* a batch table's reader reads the run's own output, not a sample */
        for (size_t v = 0; v < vars->n && n < max; v++) {
            const char *name = vars->keys[v]->text;
            const tp_ynode *def = vars->items[v];
            if (def->type == TP_YNODE_SCALAR && names_var(def->text, "pipeline_dir"))
                continue; /* data installed beside the pipeline, found anywhere */
            int seen = 0;
            for (size_t j = 0; j < n; j++)
                seen |= strcmp(names[j], name) == 0;
            if (!seen && reader_names_var(m, name))
                names[n++] = name;
        }
    }
    return n;
}
