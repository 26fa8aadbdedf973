/*
 * Traces: arrays attached by analyses, filtered (and clipped) copies, and
 * the bookkeeping of a run (reader id, analyses done, memory held).
 */
#include "tp_trace_impl.h"

#include <stdlib.h>
#include <string.h>

static size_t coltype_size(tp_coltype type)
{
    return type == TP_COL_F64 ? sizeof(double) : type == TP_COL_I32 ? sizeof(int32_t)
                                                                     : sizeof(int64_t);
}

/* The attachment of that name, or NULL. */
static attachment *find_att(const tp_trace *t, const char *name)
{
    for (size_t i = 0; i < t->n_att; i++)
        if (strcmp(t->att[i].name, name) == 0)
            return &t->att[i];
    return NULL;
}

/* Lets go of a lazy attachment's filler and its user pointer. */
static void drop_filler(attachment *a)
{
    if (a->free_user)
        a->free_user(a->user);
    a->fill = NULL;
    a->user = NULL;
    a->free_user = NULL;
}

/* Puts (data, type, n) under name, replacing what it held; a new entry
 * when there is none.  TP_ENOMEM leaves everything as it was. */
static int put_att(tp_trace *t, const char *name, tp_coltype type, size_t n, void *data)
{
    attachment *old = find_att(t, name);
    if (old != NULL && old->filling)
        return TP_EINVAL; /* its filler is running on its user pointer */
    if (old != NULL) {
        free(old->data);
        drop_filler(old);
        old->data = data;
        old->type = type;
        old->n = n;
        return TP_OK;
    }
    attachment *a = realloc(t->att, (t->n_att + 1) * sizeof *a);
    char *nm = strdup(name);
    if (a == NULL || nm == NULL) {
        if (a)
            t->att = a;
        free(nm);
        return TP_ENOMEM;
    }
    t->att = a;
    t->att[t->n_att++] = (attachment){nm, type, n, data, NULL, NULL, NULL, false};
    return TP_OK;
}

void *tp_trace_attach_array(tp_trace *t, const char *name, tp_coltype type, size_t n)
{
    if (type != TP_COL_I64 && type != TP_COL_F64 && type != TP_COL_I32)
        return NULL;
    void *data = calloc(n ? n : 1, coltype_size(type));
    if (data != NULL && put_att(t, name, type, n, data) != TP_OK) {
        free(data);
        return NULL;
    }
    return data;
}

int tp_trace_attach_lazy(tp_trace *t, const char *name, tp_coltype type, size_t n,
                         tp_attach_fill_fn fill, void *user, void (*free_user)(void *user))
{
    int rc = (type == TP_COL_I64 || type == TP_COL_F64 || type == TP_COL_I32) && fill != NULL
                 ? put_att(t, name, type, n, NULL) : TP_EINVAL;
    attachment *a = rc == TP_OK ? find_att(t, name) : NULL;
    if (a == NULL) {
        if (free_user)
            free_user(user);
        return rc;
    }
    a->fill = fill;
    a->user = user;
    a->free_user = free_user;
    return TP_OK;
}

const void *tp_trace_find_array(const tp_trace *t, const char *name, tp_coltype type, size_t *n)
{
    const attachment *a = find_att(t, name);
    if (a == NULL || a->type != type || a->data == NULL)
        return NULL;
    if (n)
        *n = a->n;
    return a->data;
}

/* Runs the filler of lazy attachment a of t into new cells; TP_OK and its
 * data set, or its error.  No lock: stages run one at a time, even in a
 * group (its baton).  A filler may ask for other lazy attachments (their
 * fillers run then); asking for its own is refused (TP_EINVAL), not a
 * deadlock.  a is found again after the filler: t's entries may have moved. */
static int run_filler(const tp_trace *t, attachment *a)
{
    if (a->filling)
        return TP_EINVAL;
    void *cells = calloc(a->n ? a->n : 1, coltype_size(a->type));
    if (cells == NULL)
        return TP_ENOMEM;
    char *name = a->name;
    a->filling = true;
    int rc = a->fill(t, a->user, cells, a->n);
    a = find_att(t, name);
    if (a == NULL) { /* cannot happen through the API: entries are never removed */
        free(cells);
        return TP_ERR;
    }
    a->filling = false;
    if (rc != TP_OK || a->fill == NULL) { /* failed, or replaced meanwhile */
        free(cells);
        return rc < 0 ? rc : TP_ERR;
    }
    a->data = cells;
    drop_filler(a);
    return TP_OK;
}

const void *tp_trace_find_lazy(const tp_trace *t, const char *name, tp_coltype type, size_t *n,
                               bool *filled, int *rc)
{
    *filled = false;
    *rc = TP_OK;
    attachment *a = find_att(t, name);
    if (a == NULL || a->type != type)
        return NULL;
    if (a->data == NULL && a->fill != NULL) {
        *rc = run_filler(t, a);
        *filled = *rc == TP_OK;
    }
    return tp_trace_find_array(t, name, type, n);
}

static int copy_row(tp_trace *dst, const tp_trace *src, size_t i)
{
    size_t alen = 0;
    const char *args = NULL;
    uint64_t off;
    int in_file = tp_trace_args_ref(src, i, &off) && (off & ARGS_IN_FILE);
    if (!in_file)
        args = tp_trace_args_text(src, i, &alen);
    else
        alen = tp_trace_args_ref(src, i, &off);
    const tp_track *where = &src->tracks.v[src->track[i]];
    const tp_cols *c = &src->cols;
    tp_event ev = {.ts = src->ts[i], .dur = src->dur[i], .name = src->name[i], .cat = src->cat[i],
                   .pid = where->pid, .tid = where->tid, .kind = src->kind[i],
                   .phase = src->phase[i], .ext_id = tp_ev_ext_id(c, i), .corr = tp_ev_corr(c, i),
                   .flow_id = tp_ev_flow_id(c, i), .device = where->device,
                   .stream = where->stream, .args = args, .args_len = alen,
                   .context = where->context};
    /* a text still in the source file stays there: the filtered trace has
     * the same source */
    if (in_file)
        return tp_trace_push_ref(dst, &ev, off & ~ARGS_IN_FILE);
    return tp_trace_push(dst, &ev);
}

/* What names and describes t, copied to out: its metadata, info and id. */
static int copy_identity(tp_trace *out, const tp_trace *t)
{
    for (size_t i = 0; i < t->n_meta; i++)
        if (tp_trace_meta_set(out, t->meta[i].key, t->meta[i].json, strlen(t->meta[i].json)))
            return TP_ENOMEM;
    if (tp_info_copy(t->info, &out->info) != TP_OK ||
        (t->id && tp_trace_set_id(out, t->id) != TP_OK))
        return TP_ENOMEM;
    return TP_OK;
}

tp_trace *tp_trace_filtered(const tp_trace *t, const uint8_t *keep)
{
    return tp_trace_filtered_clipped(t, keep, NULL, NULL, NULL);
}

tp_trace *tp_trace_filtered_clipped(const tp_trace *t, const uint8_t *keep,
                                    const uint8_t *clipped, const int64_t *clip_ts,
                                    const int64_t *clip_dur)
{
    tp_trace *out = tp_trace_new(t->pool);
    if (out == NULL)
        return NULL;
    out->src = t->src; /* the same file: args still in it stay there */
    if (out->src)
        out->src->refs++;
    size_t kept = 0;
    for (size_t i = 0; i < t->cols.n; i++)
        kept += keep[i] != 0;
    if (tp_trace_reserve_rows(out, kept) != TP_OK)
        goto fail;
    for (size_t i = 0; i < t->cols.n; i++) {
        if (!keep[i])
            continue;
        if (copy_row(out, t, i) != TP_OK)
            goto fail;
        if (clipped && clipped[i]) { /* the row just copied, cut to the window */
            out->ts[out->cols.n - 1] = clip_ts[i];
            out->dur[out->cols.n - 1] = clip_dur[i];
        }
    }
    if (copy_identity(out, t) != TP_OK ||
        tp_ext_gather(t->ext, keep, t->cols.n, &out->ext, out->cap) != TP_OK)
        goto fail;
    tp_trace_args_settle(out);
    return out;
fail:
    tp_trace_free(out);
    return NULL;
}

tp_trace *tp_trace_husk(const tp_trace *t)
{
    tp_trace *out = tp_trace_new(t->pool);
    if (out != NULL && copy_identity(out, t) != TP_OK) {
        tp_trace_free(out);
        return NULL;
    }
    return out;
}

tp_info **tp_trace_info_slot(tp_trace *t) { return &t->info; }
const tp_info *tp_trace_info_of(const tp_trace *t) { return t->info; }
tp_extcols **tp_trace_ext_slot(tp_trace *t) { return &t->ext; }
const tp_extcols *tp_trace_ext_of(const tp_trace *t) { return t->ext; }
size_t tp_trace_capacity(const tp_trace *t) { return t->cap; }
const char *tp_trace_id(const tp_trace *t) { return t->id ? t->id : ""; }

int tp_trace_set_id(tp_trace *t, const char *id)
{
    char *copy = strdup(id);
    if (copy == NULL)
        return TP_ENOMEM;
    free(t->id);
    t->id = copy;
    return TP_OK;
}

int tp_trace_mark_done(tp_trace *t, const char *analysis)
{
    if (tp_trace_is_done(t, analysis))
        return TP_OK;
    char **d = realloc(t->done, (t->n_done + 1) * sizeof *d);
    if (d == NULL)
        return TP_ENOMEM;
    t->done = d;
    if ((t->done[t->n_done] = strdup(analysis)) == NULL)
        return TP_ENOMEM;
    t->n_done++;
    return TP_OK;
}

bool tp_trace_is_done(const tp_trace *t, const char *analysis)
{
    for (size_t i = 0; i < t->n_done; i++)
        if (strcmp(t->done[i], analysis) == 0)
            return true;
    return false;
}

size_t tp_trace_memory(const tp_trace *t)
{
    size_t per_row = 2 * sizeof(int64_t) + 3 * sizeof(int32_t) + 2 * sizeof(tp_str) +
                     sizeof(uint32_t) + 2;
    size_t bytes = t->cap * per_row + tp_trace_args_memory(t) + t->arena_cap;
    bytes += t->tracks.cap * sizeof(tp_track) + t->tracks.nslots * sizeof(uint32_t);
    bytes += t->cap_wide * sizeof(int64_t);
    for (size_t i = 0; i < t->n_meta; i++)
        bytes += strlen(t->meta[i].json);
    bytes += tp_ext_memory(t->ext);
    for (size_t i = 0; i < t->n_att; i++)
        bytes += t->att[i].data ? t->att[i].n * coltype_size(t->att[i].type) : 0;
    return bytes;
}
