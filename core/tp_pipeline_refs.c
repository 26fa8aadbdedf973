/*
 * Pipeline loading, the references between stages: stage ids (explicit or
 * made from the plugin name), `input:` (earlier ids and the results they
 * declare), `trace:` (earlier readers), and the checks of a writer's output
 * file made before anything runs.
 */
#include "tp_loader.h"
#include "tp_pipeline.h"
#include "tp_strmap.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
char *tp_pl_stage_id(loader *L, const tp_ynode *m, const char *plugin)
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
bool tp_pl_register_id(loader *L, const char *id, size_t index)
{
    return id_taken(L, id) || tp_strmap_put(&L->ids, id, (long)index);
}

/* Can stage s make a result `rest` (after "<id>.")?  Its own declared ids,
 * and those of the analyses it requires, which run as "<id>.<name>". */
static bool stage_may_produce(const pstage *s, const char *rest)
{
    if (s->desc == NULL || declares(s->desc, rest))
        return true;
    for (size_t i = 0; i < s->n_reqs; i++) {
        const tp_stage_desc *d = s->reqs[i].desc;
        size_t len = strlen(d->name);
        if (strncmp(rest, d->name, len) != 0)
            continue;
        if (rest[len] == '\0' ? declares(d, "")
                              : rest[len] == '.' && declares(d, rest + len + 1))
            return true;
    }
    return false;
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
void tp_pl_parse_inputs(loader *L, pstage *s, const tp_ynode *in, size_t index)
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
void tp_pl_check_path_per_result(loader *L, const pstage *s, const tp_ynode *m)
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

/* An existing device or FIFO (symlinks followed: /dev/stdout) is written in
 * place (tp_host_output.c): it must be writable itself, its folder need not
 * be.  1 when path names one (*why set when it cannot be written), else 0. */
static int in_place_target(const char *path, const char **why)
{
    struct stat sb;
    if (stat(path, &sb) != 0 || S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode))
        return 0;
    *why = access(path, W_OK) != 0 ? "cannot be written" : NULL;
    return 1;
}

/* A symlink to an existing file (/dev/stdout on a file) has its target
 * replaced, beside itself: that target (malloc'd), else NULL. */
static char *link_target(const char *path)
{
    struct stat sb;
    if (strstr(path, "{id}") || strstr(path, "{rank}") || lstat(path, &sb) != 0 ||
        !S_ISLNK(sb.st_mode))
        return NULL;
    return realpath(path, NULL);
}

/* The nearest existing folder above a writer's output file (its option of
 * role TP_OPT_OUTPUT_FILE) must be one we
 * can write in (the writer creates the folders below it): said now, not
 * after the trace is read.  A path with {id} or {rank} is judged by its part
 * before the first of them. */
void tp_pl_check_output_folder(loader *L, const pstage *s, const tp_ynode *m)
{
    const tp_option *out = tp_option_with_role(s->desc, TP_OPT_OUTPUT_FILE);
    const tp_ynode *path = out ? tp_ymap_get(m, out->name) : NULL;
    if (s->kind != TP_STAGE_WRITER || path == NULL || path->type != TP_YNODE_SCALAR ||
        path->text[0] == '\0')
        return;
    const char *why = NULL;
    if (!strstr(path->text, "{id}") && !strstr(path->text, "{rank}") &&
        in_place_target(path->text, &why)) {
        if (why)
            tp_diags_add(L->d, L->file, path->line, path->col,
                         "error: %s '%s': output path '%s' %s", tp_stage_kind_name(s->kind),
                         s->id, path->text, why);
        return;
    }
    char *dir = link_target(path->text);
    if (dir == NULL && (dir = strdup(path->text)) == NULL)
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
void tp_pl_parse_traces(loader *L, pstage *s, const tp_ynode *tr, size_t index)
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

