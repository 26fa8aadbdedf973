/*
 * Traces: the columnar event table, each event's raw args text, trace
 * metadata and the derived arrays analyses attach.
 *
 * Columns grow by doubling.  Args texts go into one byte arena addressed by
 * (offset, length) per row, so an event costs no allocation of its own.
 * The (offset, length) columns exist only once some event has args: a
 * reader with keep_args: false saves their 12 bytes per event.  pid, tid,
 * device and stream are stored once per distinct tuple (a track): the row
 * holds the track's index.
 */
#include "tp_guard.h"
#include "tp_strpool.h"
#include "tp_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tp_trace_impl.h"


static source_file *source_new(const char *path)
{
    source_file *src = calloc(1, sizeof *src);
    if (src == NULL || (src->path = strdup(path)) == NULL) {
        free(src);
        return NULL;
    }
    src->refs = 1;
    src->fd = -1;
    struct stat sb;
    if (stat(path, &sb) == 0) {
        src->known = true;
        src->dev = sb.st_dev;
        src->ino = sb.st_ino;
        src->size = sb.st_size;
        src->mtime = sb.st_mtim;
    }
    return src;
}

static void source_release(source_file *src)
{
    if (src == NULL || --src->refs > 0)
        return;
    tp_map_unguard(src->guard);
    if (src->data)
        munmap((void *)src->data, src->len);
    if (src->fd >= 0)
        close(src->fd);
    free(src->problem);
    free(src->path);
    free(src);
}

static void source_problem(source_file *src, const char *fmt, ...) TP_PRINTF(2, 3);
static void source_problem(source_file *src, const char *fmt, ...)
{
    if (src->problem != NULL)
        return; /* the first one says it */
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    src->problem = strdup(msg); /* NULL on ENOMEM: then args stay unread */
}

/* Says how the file differs from what was read, or returns false. */
static bool source_changed(source_file *src, const struct stat *now)
{
    if (now->st_size != src->size) {
        source_problem(src, "%s: the trace changed on disk during the run (was %lld bytes, now "
                            "%lld): its args cannot be read",
                       src->path, (long long)src->size, (long long)now->st_size);
        return true;
    }
    if (now->st_mtim.tv_sec != src->mtime.tv_sec || now->st_mtim.tv_nsec != src->mtime.tv_nsec) {
        source_problem(src, "%s: the trace changed on disk during the run (modified): its args "
                            "cannot be read",
                       src->path);
        return true;
    }
    return false;
}

/* On the first args reference: holds the file the reader is reading. */
static void source_hold(source_file *src)
{
    if (src->fd >= 0 || src->problem != NULL)
        return;
    struct stat sb;
    src->fd = open(src->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (src->fd < 0) {
        source_problem(src, "%s: cannot open again to read args: %s", src->path,
                       strerror(errno));
    } else if (fstat(src->fd, &sb) != 0 || !S_ISREG(sb.st_mode) || !src->known ||
               sb.st_dev != src->dev || sb.st_ino != src->ino) {
        source_problem(src, "%s: the trace was replaced while it was read", src->path);
    } else {
        source_changed(src, &sb);
    }
}

static void refresh_views(tp_trace *t)
{
    t->cols.struct_size = sizeof t->cols;
    t->cols.ts = t->ts;
    t->cols.dur = t->dur;
    t->cols.name = t->name;
    t->cols.cat = t->cat;
    t->cols.track = t->track;
    t->cols.kind = t->kind;
    t->cols.phase = t->phase;
    t->cols.ext_id32 = t->ext_id;
    t->cols.corr32 = t->corr;
    t->cols.flow_id32 = t->flow_id;
    t->cols.wide_ids = t->wide;
    t->cols.n_wide_ids = t->n_wide;
    t->cols.tracks = t->tracks.v;
    t->cols.n_tracks = t->tracks.n;
}

tp_trace *tp_trace_new(tp_strpool *pool)
{
    tp_trace *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->pool = pool;
    refresh_views(t);
    return t;
}

void tp_trace_free(tp_trace *t)
{
    if (t == NULL)
        return;
    void *cols[] = {t->ts,       t->dur,      t->ext_id,   t->corr,         t->flow_id,
                    t->name,     t->cat,      t->track,    t->kind,         t->phase,
                    t->arena,    t->tracks.v, t->tracks.slots, t->wide};
    for (size_t i = 0; i < sizeof cols / sizeof cols[0]; i++)
        free(cols[i]);
    tp_trace_args_free(t);
    for (size_t i = 0; i < t->n_meta; i++) {
        free(t->meta[i].key);
        free(t->meta[i].json);
    }
    free(t->meta);
    for (size_t i = 0; i < t->n_att; i++) {
        free(t->att[i].name);
        free(t->att[i].data);
        if (t->att[i].free_user)
            t->att[i].free_user(t->att[i].user);
    }
    free(t->att);
    for (size_t i = 0; i < t->n_done; i++)
        free(t->done[i]);
    free(t->done);
    tp_info_free(t->info);
    tp_ext_free(t->ext);
    free(t->id);
    source_release(t->src);
    free(t);
}

const tp_cols *tp_trace_columns(const tp_trace *t)
{
    return &t->cols;
}

static int grow(void **p, size_t elem, size_t cap)
{
    void *q = realloc(*p, elem * cap);
    if (q == NULL)
        return -1;
    *p = q;
    return 0;
}

int tp_trace_grow(void **p, size_t elem, size_t cap) { return grow(p, elem, cap); }

int tp_trace_reserve_rows(tp_trace *t, size_t n)
{
    if (n <= t->cap)
        return TP_OK;
    /* on failure some columns may be larger than others; cap is only
     * raised once all of them have grown, so the trace stays consistent */
    if (grow((void **)&t->ts, sizeof *t->ts, n) || grow((void **)&t->dur, sizeof *t->dur, n) ||
        grow((void **)&t->track, sizeof *t->track, n) ||
        grow((void **)&t->ext_id, sizeof *t->ext_id, n) ||
        grow((void **)&t->corr, sizeof *t->corr, n) ||
        grow((void **)&t->flow_id, sizeof *t->flow_id, n) ||
        grow((void **)&t->name, sizeof *t->name, n) || grow((void **)&t->cat, sizeof *t->cat, n) ||
        grow((void **)&t->kind, sizeof *t->kind, n) ||
        grow((void **)&t->phase, sizeof *t->phase, n) ||
        tp_trace_args_grow(t, n) != TP_OK || tp_ext_reserve(t->ext, n) != TP_OK) {
        refresh_views(t);
        return TP_ENOMEM;
    }
    t->cap = n;
    refresh_views(t);
    tp_trace_args_grown(t); /* dense or sparse args slots, as the rows so far say */
    return TP_OK;
}

static int arena_put(tp_trace *t, const char *s, size_t len, uint64_t *off)
{
    if (t->arena_cap - t->arena_used < len) {
        size_t cap = t->arena_cap ? t->arena_cap : 1 << 16;
        while (cap - t->arena_used < len)
            cap *= 2;
        char *a = realloc(t->arena, cap);
        if (a == NULL)
            return TP_ENOMEM;
        t->arena = a;
        t->arena_cap = cap;
    }
    memcpy(t->arena + t->arena_used, s, len);
    *off = t->arena_used;
    t->arena_used += len;
    return TP_OK;
}

static uint64_t track_hash(const tp_track *k)
{
    uint64_t h = (uint64_t)k->pid * 0x9E3779B97F4A7C15u;
    h = (h ^ (uint64_t)k->tid) * 0xC2B2AE3D27D4EB4Fu;
    h = (h ^ ((uint64_t)(uint32_t)k->device << 32 | (uint32_t)k->stream)) * 0x9E3779B97F4A7C15u;
    return h ^ (h >> 31);
}

static int track_equal(const tp_track *a, const tp_track *b)
{
    return a->pid == b->pid && a->tid == b->tid && a->device == b->device &&
           a->stream == b->stream && a->context == b->context;
}

/* Doubles the index and re-inserts every track. */
static int track_rehash(track_table *tt)
{
    size_t nslots = tt->nslots ? tt->nslots * 2 : 64;
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (slots == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < tt->n; i++) {
        size_t s = track_hash(&tt->v[i]) & (nslots - 1);
        while (slots[s] != 0)
            s = (s + 1) & (nslots - 1);
        slots[s] = (uint32_t)i + 1;
    }
    free(tt->slots);
    tt->slots = slots;
    tt->nslots = nslots;
    return TP_OK;
}

/* The index of the track (pid, tid, device, stream), added if new. */
static int track_find_or_add(track_table *tt, const tp_track *k, uint32_t *out)
{
    if (tt->n > 0 && track_equal(&tt->v[tt->last], k)) {
        *out = tt->last;
        return TP_OK;
    }
    if ((tt->n + 1) * 2 > tt->nslots && track_rehash(tt) != TP_OK)
        return TP_ENOMEM;
    size_t s = track_hash(k) & (tt->nslots - 1);
    for (; tt->slots[s] != 0; s = (s + 1) & (tt->nslots - 1)) {
        if (track_equal(&tt->v[tt->slots[s] - 1], k)) {
            *out = tt->last = tt->slots[s] - 1;
            return TP_OK;
        }
    }
    if (tt->n >= UINT32_MAX - 1)
        return TP_ENOMEM;
    if (tt->n == tt->cap) {
        size_t cap = tt->cap ? tt->cap * 2 : 16;
        tp_track *v = realloc(tt->v, cap * sizeof *v);
        if (v == NULL)
            return TP_ENOMEM;
        tt->v = v;
        tt->cap = cap;
    }
    tt->v[tt->n] = *k;
    tt->slots[s] = (uint32_t)tt->n + 1;
    *out = tt->last = (uint32_t)tt->n++;
    return TP_OK;
}

/* The 4-byte cell for id v (see TP_ID32_WIDE), adding v to the wide table
 * when it does not fit. */
static int id_cell(tp_trace *t, int64_t v, int32_t *cell)
{
    if (v >= -1 && v <= INT32_MAX) {
        *cell = (int32_t)v;
        return TP_OK;
    }
    if (t->n_wide >= (size_t)INT32_MAX - 1)
        return TP_ENOMEM;
    if (t->n_wide == t->cap_wide) {
        size_t cap = t->cap_wide ? t->cap_wide * 2 : 64;
        int64_t *w = realloc(t->wide, cap * sizeof *w);
        if (w == NULL)
            return TP_ENOMEM;
        t->wide = w;
        t->cap_wide = cap;
    }
    t->wide[t->n_wide] = v;
    *cell = (int32_t)(-2 - (int64_t)t->n_wide++);
    t->cols.wide_ids = t->wide;
    t->cols.n_wide_ids = t->n_wide;
    return TP_OK;
}

/* Appends the row; args_off is already placed (arena or file). */
static int push_row(tp_trace *t, const tp_event *ev, uint64_t off, size_t alen)
{
    size_t i = t->cols.n;
    tp_track where = {ev->pid, ev->tid, ev->device, ev->stream, ev->context, {0, 0, 0}};
    uint32_t track;
    int32_t ext_id, corr, flow_id;
    int rc = track_find_or_add(&t->tracks, &where, &track);
    t->cols.tracks = t->tracks.v; /* may have moved, even if a later step fails */
    t->cols.n_tracks = t->tracks.n;
    if (rc != TP_OK || id_cell(t, ev->ext_id, &ext_id) != TP_OK ||
        id_cell(t, ev->corr, &corr) != TP_OK || id_cell(t, ev->flow_id, &flow_id) != TP_OK)
        return TP_ENOMEM;
    t->ts[i] = ev->ts;
    t->dur[i] = ev->dur;
    t->name[i] = ev->name;
    t->cat[i] = ev->cat;
    t->track[i] = track;
    t->kind[i] = ev->kind < TP_KIND__COUNT ? ev->kind : (uint8_t)TP_KIND_OTHER; /* unknown: other */
    t->phase[i] = ev->phase;
    t->ext_id[i] = ext_id;
    t->corr[i] = corr;
    t->flow_id[i] = flow_id;
    if (t->args_off && tp_trace_args_put(t, i, off, (uint32_t)alen) != TP_OK)
        return TP_ENOMEM;
    t->cols.n = i + 1;
    return TP_OK;
}

int tp_trace_refine_row(tp_trace *t, size_t row, uint8_t kind, int32_t device, int32_t stream)
{
    if (row >= t->cols.n || kind >= TP_KIND__COUNT)
        return TP_EINVAL;
    tp_track where = t->tracks.v[t->track[row]];
    if (where.device != device || where.stream != stream) {
        where.device = device;
        where.stream = stream;
        uint32_t track;
        int rc = track_find_or_add(&t->tracks, &where, &track);
        t->cols.tracks = t->tracks.v;
        t->cols.n_tracks = t->tracks.n;
        if (rc != TP_OK)
            return rc;
        t->track[row] = track;
    }
    t->kind[row] = kind;
    return TP_OK;
}

/* Room for one more row, and the args columns when alen > 0. */
static int make_room(tp_trace *t, size_t alen)
{
    if (t->cols.n == t->cap && tp_trace_reserve_rows(t, t->cap ? t->cap * 2 : 1024) != TP_OK)
        return TP_ENOMEM;
    if (alen > UINT32_MAX)
        return TP_EINVAL;
    if (alen > 0 && t->args_off == NULL && tp_trace_args_make(t) != TP_OK)
        return TP_ENOMEM;
    return TP_OK;
}

int tp_trace_push(tp_trace *t, const tp_event *ev)
{
    uint64_t off = 0;
    size_t alen = ev->args ? ev->args_len : 0;
    int rc = make_room(t, alen);
    if (rc != TP_OK)
        return rc;
    if (alen > 0 && arena_put(t, ev->args, alen, &off) != TP_OK)
        return TP_ENOMEM;
    return push_row(t, ev, off, alen);
}

int tp_trace_push_ref(tp_trace *t, const tp_event *ev, uint64_t file_off)
{
    size_t alen = ev->args_len;
    if (file_off & ARGS_IN_FILE || t->src == NULL)
        return TP_EINVAL;
    if (alen > 0)
        source_hold(t->src);
    int rc = make_room(t, alen);
    if (rc != TP_OK)
        return rc;
    return push_row(t, ev, alen ? file_off | ARGS_IN_FILE : 0, alen);
}

/* ---- rows appended as columns (tp_rows, since ABI 3.4) */

/* EINVAL for a block the trace cannot take as it is: a place out of range,
 * an args offset that is not one, args without a source file.  *has_args:
 * some row has args. */
static int rows_check(const tp_trace *t, const tp_rows *r, bool *has_args)
{
    *has_args = false;
    if (!r->ts || !r->dur || !r->name || !r->cat || !r->kind || !r->phase || !r->ext_id ||
        !r->corr || !r->flow_id || !r->place || !r->places || (r->args_len && !r->args_off))
        return TP_EINVAL;
    for (size_t i = 0; i < r->n; i++)
        if (r->place[i] >= r->n_places)
            return TP_EINVAL;
    for (size_t i = 0; r->args_len && i < r->n; i++) {
        if (r->args_len[i] > 0 && r->args_off[i] & ARGS_IN_FILE)
            return TP_EINVAL;
        *has_args = *has_args || r->args_len[i] > 0;
    }
    return *has_args && t->src == NULL ? TP_EINVAL : TP_OK;
}

/* tr[k]: the trace's track of place k (added in the places' order, which a
 * reader keeps in order of first use, as row-by-row appends number them). */
/* Row i's track: its place's, found or added on the place's first use, so
 * tracks are numbered in the order row-by-row appends give them (a place
 * no row uses adds none).  tr[k] is UINT32_MAX until place k is used. */
static int row_track(tp_trace *t, const tp_rows *r, uint32_t *tr, uint32_t place, uint32_t *out)
{
    if (tr[place] == UINT32_MAX) {
        const tp_track *p = &r->places[place];
        tp_track where = {p->pid, p->tid, p->device, p->stream, p->context, {0, 0, 0}};
        int rc = track_find_or_add(&t->tracks, &where, &tr[place]);
        t->cols.tracks = t->tracks.v;
        t->cols.n_tracks = t->tracks.n;
        if (rc != TP_OK)
            return rc;
    }
    *out = tr[place];
    return TP_OK;
}

/* Rows [at, at + r->n): the cells that are not plain copies (ids row by row,
 * so the wide-id table is in the order row-by-row appends give it). */
static int rows_cells(tp_trace *t, const tp_rows *r, uint32_t *tr, size_t at)
{
    for (size_t i = 0; i < r->n; i++) {
        size_t j = at + i;
        uint8_t kind = r->kind[i];
        t->kind[j] = kind < TP_KIND__COUNT ? kind : (uint8_t)TP_KIND_OTHER; /* unknown: other */
        if (row_track(t, r, tr, r->place[i], &t->track[j]) != TP_OK ||
            id_cell(t, r->ext_id[i], &t->ext_id[j]) != TP_OK ||
            id_cell(t, r->corr[i], &t->corr[j]) != TP_OK ||
            id_cell(t, r->flow_id[i], &t->flow_id[j]) != TP_OK)
            return TP_ENOMEM;
    }
    if (t->args_off && tp_trace_args_put_block(t, at, r->n, r->args_off, r->args_len) != TP_OK)
        return TP_ENOMEM;
    return TP_OK;
}

int tp_trace_push_rows(tp_trace *t, const tp_rows *r)
{
    size_t at = t->cols.n, n = r->n;
    bool has_args;
    if (n == 0)
        return TP_OK;
    int rc = rows_check(t, r, &has_args);
    if (rc != TP_OK)
        return rc;
    if (at + n > t->cap &&
        tp_trace_reserve_rows(t, at + n > t->cap * 2 ? at + n : t->cap * 2) != TP_OK)
        return TP_ENOMEM;
    if (has_args && t->args_off == NULL && tp_trace_args_make(t) != TP_OK)
        return TP_ENOMEM;
    if (has_args)
        source_hold(t->src);
    uint32_t *tr = malloc((r->n_places ? r->n_places : 1) * sizeof *tr);
    if (tr == NULL)
        return TP_ENOMEM;
    for (size_t k = 0; k < r->n_places; k++)
        tr[k] = UINT32_MAX;
    rc = rows_cells(t, r, tr, at);
    free(tr);
    if (rc != TP_OK)
        return rc; /* n unchanged: the rows written are not part of the trace */
    memcpy(t->ts + at, r->ts, n * sizeof *t->ts);
    memcpy(t->dur + at, r->dur, n * sizeof *t->dur);
    memcpy(t->name + at, r->name, n * sizeof *t->name);
    memcpy(t->cat + at, r->cat, n * sizeof *t->cat);
    memcpy(t->phase + at, r->phase, n * sizeof *t->phase);
    t->cols.n = at + n;
    return TP_OK;
}

/* Maps the source file on the first args read, if it is still what was
 * read; NULL (and a problem) if not. */
static source_file *source_map(const tp_trace *t)
{
    source_file *src = t->src;
    if (src == NULL || src->problem != NULL || src->fd < 0)
        return NULL;
    if (src->tried)
        return src->data ? src : NULL;
    src->tried = true;
    struct stat sb;
    if (fstat(src->fd, &sb) != 0) {
        source_problem(src, "%s: cannot read args: %s", src->path, strerror(errno));
        return NULL;
    }
    if ((!src->own && source_changed(src, &sb)) || sb.st_size <= 0)
        return NULL;
    void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, src->fd, 0);
    if (p == MAP_FAILED) {
        source_problem(src, "%s: cannot map to read args: %s", src->path, strerror(errno));
        return NULL;
    }
    src->data = p;
    src->len = (size_t)sb.st_size;
    if ((src->guard = tp_map_guard(p, src->len)) == NULL) {
        source_problem(src, "%s: cannot read args: out of memory", src->path);
        return NULL;
    }
    return src;
}

const char *tp_trace_source_problem(const tp_trace *t)
{
    source_file *src = t ? t->src : NULL;
    if (src == NULL)
        return NULL;
    struct stat sb;
    if (src->problem == NULL && src->data != NULL) {
        /* a fault on the mapping: the file shrank, or its pages could not
         * be read (I/O error) */
        bool changed = !src->own && fstat(src->fd, &sb) == 0 && source_changed(src, &sb);
        if (!changed && tp_map_faulted(src->guard))
            source_problem(src, "%s: its args could not be read back from the file (I/O error)",
                           src->path);
    }
    return src->problem;
}

const char *tp_trace_args_text(const tp_trace *t, size_t row, size_t *len)
{
    uint64_t off;
    size_t alen = tp_trace_args_ref(t, row, &off);
    if (alen == 0) {
        if (len)
            *len = 0;
        return NULL;
    }
    if (off & ARGS_IN_FILE) {
        const source_file *m = source_map(t);
        off &= ~ARGS_IN_FILE;
        if (m == NULL || off > m->len || alen > m->len - off) {
            /* the file changed (the run fails, tp_trace_source_problem):
             * no args rather than wrong ones */
            if (len)
                *len = 0;
            return NULL;
        }
        if (len)
            *len = alen;
        return m->data + off;
    }
    if (len)
        *len = alen;
    return t->arena + off;
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

int tp_trace_meta_set(tp_trace *t, const char *key, const char *json, size_t len)
{
    char *copy = dup_n(json, len);
    if (copy == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < t->n_meta; i++) {
        if (strcmp(t->meta[i].key, key) == 0) {
            free(t->meta[i].json);
            t->meta[i].json = copy;
            return TP_OK;
        }
    }
    meta_entry *m = realloc(t->meta, (t->n_meta + 1) * sizeof *m);
    char *k = strdup(key);
    if (m == NULL || k == NULL) {
        if (m)
            t->meta = m;
        free(copy);
        free(k);
        return TP_ENOMEM;
    }
    t->meta = m;
    t->meta[t->n_meta].key = k;
    t->meta[t->n_meta].json = copy;
    t->n_meta++;
    return TP_OK;
}

const char *tp_trace_meta_get(const tp_trace *t, const char *key)
{
    for (size_t i = 0; i < t->n_meta; i++)
        if (strcmp(t->meta[i].key, key) == 0)
            return t->meta[i].json;
    return NULL;
}

size_t tp_trace_meta_n(const tp_trace *t)
{
    return t->n_meta;
}

const char *tp_trace_meta_key_at(const tp_trace *t, size_t i)
{
    return i < t->n_meta ? t->meta[i].key : NULL;
}

const char *tp_trace_source_path(const tp_trace *t)
{
    return t->src ? t->src->path : "";
}

int tp_trace_args_file_set(tp_trace *t, int fd)
{
    source_file *src = source_new("");
    char *path = t->src ? strdup(t->src->path) : strdup("");
    if (src == NULL || path == NULL) {
        free(path);
        source_release(src);
        close(fd);
        return TP_ENOMEM;
    }
    free(src->path);
    src->path = path;
    src->known = false;
    src->own = true;
    src->fd = fd;
    source_release(t->src);
    t->src = src;
    return TP_OK;
}

void tp_trace_refresh_views(tp_trace *t) { refresh_views(t); }

void tp_trace_source_hold(tp_trace *t)
{
    if (t->src != NULL)
        source_hold(t->src);
}

int tp_trace_add_track(tp_trace *t, const tp_track *k, uint32_t *index)
{
    int rc = track_find_or_add(&t->tracks, k, index);
    refresh_views(t);
    return rc;
}

int tp_trace_source_set(tp_trace *t, const char *path)
{
    source_file *src = source_new(path ? path : "");
    if (src == NULL)
        return TP_ENOMEM;
    source_release(t->src);
    t->src = src;
    return TP_OK;
}
