/*
 * device_breakdown: preparation (activities, owners, forest order, streams)
 * and the per-stream active/idle table.
 */
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_intervals.h>
#include <tracepipe/tp_sdk_trace.h>

#include "devb_internal.h"

/* Names that structure a trace rather than compute: the vocabulary's
 * modules and the iteration markers. */
static int module_like(const db *d, tp_str name, const char *s)
{
    return tp_iter_is_marker(&d->steps, name) || tp_vocab_is_module(&d->vocab, s);
}

int db_is_merge_op(db *d, int64_t r)
{
    if (!d->cfg->merge_ops || d->c->kind[r] != TP_KIND_CPU_OP)
        return 0;
    tp_str name = d->c->name[r];
    if (name >= d->nnames)
        return 1;
    if (d->module_memo[name] == 0) {
        const char *s = tp_str_text(d->st, name);
        d->module_memo[name] = (s && module_like(d, name, s)) ? 1 : 2;
    }
    return d->module_memo[name] == 2;
}

static int in_set(const db *d, int32_t r)
{
    return tp_bits_has(d->inset, r);
}

/* Sibling k or the first set member after it, or -1. */
static int32_t member_from(const db *d, int32_t k)
{
    while (k >= 0 && !in_set(d, k))
        k = tp_hier_next_sibling(&d->hv, k);
    return k;
}

/* Appends the set members of root's subtree to d->pre in pre-order, setting
 * their positions (no recursion).  A member's parent is a member. */
static void walk_preorder(db *d, int32_t root)
{
    int32_t node = root, k;
    for (;;) {
        d->pos[db_rank(d, node)] = (int32_t)d->npre;
        d->pre[d->npre++] = node;
        if ((k = member_from(d, tp_hier_first_child(&d->hv, node))) >= 0) {
            node = k;
            continue;
        }
        while (node != root && (k = member_from(d, tp_hier_next_sibling(&d->hv, node))) < 0)
            node = tp_hier_parent(&d->hv, node);
        if (node == root)
            return;
        node = k;
    }
}

/*
 * The entry of an activity launched by row l (>= 0): with merge_ops, the
 * topmost merge op of the launcher's chain (seed 001: the first operator
 * below modules gathers all kernels of its subtree; the tree shows nothing
 * below it), else the launcher.  The climb stops at the first set member: a
 * member has no merge op above it, so a member merge op is the topmost, and
 * the answer does not depend on how much of the set is built.  It costs the
 * distance to the set (from a kernel's launch to its op's top), not the
 * depth.
 */
/* Entries of chain rows remembered, direct-mapped (row & mask): a row
 * between a launch and its topmost merge op never joins the set, so without
 * this every activity launched below a deep chain would climb the whole
 * chain again (issue 12's nested ops: quadratic).  A remembered entry stays
 * right: it is a set member and a merge op with none above it, and no row
 * between it and the row is ever added to the set.  row NULL: none kept. */
typedef struct entry_cache {
    int32_t *row, *entry;
    uint32_t mask;
} entry_cache;

/* Rows from x up to stop (not included) remembered as having entry e. */
static void remember(const db *d, entry_cache *ec, int32_t x, int32_t stop, int32_t e)
{
    for (; ec->row != NULL && x >= 0 && x != stop; x = tp_hier_parent(&d->hv, x)) {
        ec->row[(uint32_t)x & ec->mask] = x;
        ec->entry[(uint32_t)x & ec->mask] = e;
    }
}

static int32_t entry_of(const db *d, entry_cache *ec, int32_t l)
{
    int32_t top_merge = -1, r = l;
    for (; r >= 0 && !in_set(d, r); r = tp_hier_parent(&d->hv, r)) {
        uint32_t slot = (uint32_t)r & ec->mask;
        if (ec->row != NULL && ec->row[slot] == r) {
            int32_t e = ec->entry[slot];
            remember(d, ec, l, r, e);
            return e;
        }
        if (db_is_merge_op((db *)d, r))
            top_merge = r;
    }
    if (r >= 0 && db_is_merge_op((db *)d, r))
        top_merge = r;
    if (top_merge < 0)
        return l;
    remember(d, ec, l, top_merge, top_merge);
    return top_merge;
}

/* Puts row l's entry and its ancestors in the set; returns the entry. */
static int32_t add_entry(db *d, entry_cache *ec, int32_t l)
{
    int32_t e = entry_of(d, ec, l);
    for (int32_t r = e; r >= 0 && !in_set(d, r); r = tp_hier_parent(&d->hv, r))
        d->inset[r >> 6] |= (uint64_t)1 << (r & 63);
    return e;
}

/* A cache of up to 2^17 entries (1 MiB), only with merge_ops (without them
 * there are no chains); without memory, none (slower, same answers). */
static entry_cache entry_cache_new(const db *d)
{
    entry_cache ec = {NULL, NULL, 0};
    if (!d->cfg->merge_ops)
        return ec;
    uint32_t size = 1;
    while (size < (1u << 17) && size < d->c->n)
        size <<= 1;
    ec.row = tp_malloc(size * sizeof *ec.row);
    ec.entry = tp_malloc(size * sizeof *ec.entry);
    if (ec.row == NULL || ec.entry == NULL) {
        tp_free(ec.row);
        tp_free(ec.entry);
        ec.row = ec.entry = NULL;
        return ec;
    }
    memset(ec.row, 0xff, size * sizeof *ec.row); /* -1: no row */
    ec.mask = size - 1;
    return ec;
}

/* The set's rows in the host forest's pre-order (d->pre) and their
 * positions (d->pos, by rank; -1 for members outside the forest), once
 * the set is marked (group_by_stream); the activities' entries become
 * positions. */
static int owning_preorder(db *d)
{
    uint32_t members = tp_rowset_index(d->inset, d->rank_dir, tp_rowset_words(d->c->n));
    size_t m = members ? members : 1;
    d->pre = tp_malloc(m * sizeof *d->pre);
    d->pos = tp_malloc(m * sizeof *d->pos);
    if (!d->pre || !d->pos)
        return TP_ENOMEM;
    memset(d->pos, 0xff, m * sizeof *d->pos); /* -1: not in the host forest */
    for (size_t i = 0; i < d->nroots; i++)
        if (d->roots[i] >= 0 && (size_t)d->roots[i] < d->c->n && in_set(d, d->roots[i]))
            walk_preorder(d, d->roots[i]);
    for (size_t i = 0; i < d->nacts; i++)
        if (d->by_stream[i].entry >= 0)
            d->by_stream[i].entry = db_pos(d, d->by_stream[i].entry);
    return TP_OK;
}

/* A track's stream key, for ranking the tracks. */
typedef struct stream_key {
    int32_t device, stream;
    uint32_t track;
} stream_key;

static int stream_key_cmp(const void *a, const void *b)
{
    const stream_key *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    return (x->track > y->track) - (x->track < y->track);
}

/* slot[track] = rank of the track's (device, stream) among the distinct
 * pairs, and d->streams gets one entry per pair (counts still zero). */
static int stream_slots(db *d, uint32_t *slot)
{
    const tp_cols *c = d->c;
    size_t nt = c->n_tracks;
    stream_key *keys = tp_malloc((nt ? nt : 1) * sizeof *keys);
    d->streams = tp_malloc((nt ? nt : 1) * sizeof *d->streams);
    if (keys == NULL || d->streams == NULL) {
        tp_free(keys);
        return TP_ENOMEM;
    }
    for (size_t i = 0; i < nt; i++)
        keys[i] = (stream_key){c->tracks[i].device, c->tracks[i].stream, (uint32_t)i};
    qsort(keys, nt, sizeof *keys, stream_key_cmp);
    for (size_t i = 0; i < nt; i++) {
        if (i == 0 || keys[i].device != keys[i - 1].device || keys[i].stream != keys[i - 1].stream)
            d->streams[d->nstreams++] = (db_stream){keys[i].device, keys[i].stream, 0, 0, 0, 0};
        slot[keys[i].track] = (uint32_t)d->nstreams - 1;
    }
    tp_free(keys);
    return TP_OK;
}

/* Places the activities in by_stream grouped by stream, in row order within
 * each (a counting sort on the stream slot), with their entries (rows, for
 * now) marked in the set. */
static int group_by_stream(db *d)
{
    const tp_cols *c = d->c;
    uint32_t *slot = tp_malloc((c->n_tracks ? c->n_tracks : 1) * sizeof *slot);
    if (slot == NULL || stream_slots(d, slot) != TP_OK) {
        tp_free(slot);
        return TP_ENOMEM;
    }
    for (size_t i = 0; i < c->n; i++)
        if (tp_ev_is_activity(c, i))
            d->streams[slot[c->track[i]]].count++;
    size_t first = 0;
    for (size_t s = 0; s < d->nstreams; s++) {
        d->streams[s].first = first;
        first += d->streams[s].count;
    }
    d->nacts = first;
    d->by_stream = tp_malloc((d->nacts ? d->nacts : 1) * sizeof *d->by_stream);
    if (d->by_stream == NULL) {
        tp_free(slot);
        return TP_ENOMEM;
    }
    for (size_t s = 0; s < d->nstreams; s++)
        d->streams[s].count = 0;
    entry_cache ec = entry_cache_new(d);
    for (size_t i = 0; i < c->n; i++) {
        if (!tp_ev_is_activity(c, i))
            continue;
        db_stream *st = &d->streams[slot[c->track[i]]];
        int32_t l = tp_hier_launcher(&d->hv, (int64_t)i);
        d->by_stream[st->first + st->count++] =
            (db_act){(int32_t)i, l >= 0 ? add_entry(d, &ec, l) : -1};
    }
    tp_free(ec.row);
    tp_free(ec.entry);
    tp_free(slot);
    /* drop the pairs no activity uses (host tracks' -1/-1, say) */
    size_t k = 0;
    for (size_t s = 0; s < d->nstreams; s++)
        if (d->streams[s].count > 0)
            d->streams[k++] = d->streams[s];
    d->nstreams = k;
    for (size_t s = 1; s < d->nstreams; s++)
        if (d->streams[s].device != d->streams[0].device)
            d->multi_device = 1;
    return TP_OK;
}

/* The union of by_stream[first, first + count)'s intervals: its length and
 * its part inside the trace's window, sorting their rows in rows[]. */
static int acts_union(const db *d, size_t first, size_t count, uint32_t *rows, int64_t *length,
                      int64_t *within)
{
    for (size_t i = 0; i < count; i++)
        rows[i] = (uint32_t)d->by_stream[first + i].row;
    return tp_intervals_rows_union(rows, count, d->c->ts, d->c->dur, d->w0, d->w1, length,
                                   within);
}

/* Each stream's active time: the length of the union of its activities'
 * intervals, and its part inside the trace's window, from one row array
 * sized for the largest stream. */
static int stream_actives(db *d)
{
    size_t most = 0;
    for (size_t s = 0; s < d->nstreams; s++)
        if (d->streams[s].count > most)
            most = d->streams[s].count;
    uint32_t *rows = tp_malloc((most ? most : 1) * sizeof *rows);
    int rc = rows ? TP_OK : TP_ENOMEM;
    for (size_t s = 0; s < d->nstreams && rc == TP_OK; s++) {
        db_stream *st = &d->streams[s];
        rc = acts_union(d, st->first, st->count, rows, &st->active, &st->in_window);
    }
    tp_free(rows);
    return rc;
}

/* The per-position and per-activity arrays of the tree passes, allocated
 * after the streams' and devices' tables so that their interval scratch is
 * gone by then. */
int db_alloc_pass_arrays(db *d)
{
    size_t np = d->npre ? d->npre : 1, na = d->nacts ? d->nacts : 1;
    d->dt = tp_calloc(np, sizeof *d->dt);
    d->touched_cap = d->npre / 16 + 1;
    d->touched = tp_malloc(d->touched_cap * sizeof *d->touched);
    d->mark = tp_calloc(np, 1);
    d->ofirst = tp_malloc(np * sizeof *d->ofirst);
    d->onext = tp_malloc(na * sizeof *d->onext);
    if (!d->dt || !d->touched || !d->mark || !d->ofirst || !d->onext)
        return TP_ENOMEM;
    memset(d->ofirst, 0xff, np * sizeof *d->ofirst); /* -1 everywhere */
    memset(d->onext, 0xff, na * sizeof *d->onext);
    return TP_OK;
}

int db_prepare(db *d)
{
    tp_trace_window(d->t, &d->w0, &d->w1); /* once: without a clip it scans the trace */
    d->nnames = tp_str_count(d->st);
    d->short_memo = tp_calloc(d->nnames ? d->nnames : 1, sizeof *d->short_memo);
    d->module_memo = tp_calloc(d->nnames ? d->nnames : 1, 1);
    if (!d->short_memo || !d->module_memo)
        return TP_ENOMEM;
    size_t nwords = d->c->n / 64 + 1;
    d->inset = tp_calloc(nwords, sizeof *d->inset);
    d->rank_dir = tp_malloc(nwords * sizeof *d->rank_dir);
    if (!d->inset || !d->rank_dir)
        return TP_ENOMEM;
    int rc = group_by_stream(d);
    if (rc == TP_OK)
        rc = owning_preorder(d);
    if (rc == TP_OK)
        rc = stream_actives(d);
    return rc;
}

/* A stream's row; window idle is the window minus the stream's union inside
 * it, never negative. */
static int stream_row(db *d, tp_result *r, const db_stream *s, int64_t window)
{
    int64_t active = s->active;
    size_t row;
    int rc = tp_result_add_row(d->st, r, &row);
    if (rc != TP_OK)
        return rc;
    rc |= tp_result_set_i64(d->st, r, row, db_streams_device, s->device);
    rc |= tp_result_set_i64(d->st, r, row, db_streams_stream, s->stream);
    rc |= tp_result_set_f64(d->st, r, row, db_streams_window_us, (double)window / 1000.0);
    rc |= tp_result_set_f64(d->st, r, row, db_streams_active_us, (double)active / 1000.0);
    rc |= tp_result_set_f64(d->st, r, row, db_streams_window_idle_us,
                            (double)(window - s->in_window) / 1000.0);
    rc |= tp_result_set_f64(d->st, r, row, db_streams_active_percent,
                            window > 0 ? 100.0 * (double)active / (double)window : 0.0);
    return rc == TP_OK ? TP_OK : TP_ENOMEM;
}

int db_write_streams(db *d)
{
    tp_result *r = tp_result_declared(d->st, "streams");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(d->st, r, "title", "GPU stream activity");
    int rc = TP_OK; /* the trace's window: the same for every stream */
    for (size_t s = 0; s < d->nstreams && rc == TP_OK; s++)
        rc = stream_row(d, r, &d->streams[s], d->w1 - d->w0);
    return rc;
}

/* One device's row: its streams s[0, n), whose activities are contiguous in
 * by_stream (sorted by device first); busy = the union over all of them. */
static int device_row(db *d, tp_result *r, const db_stream *s, size_t n, uint32_t *rows)
{
    size_t first = s[0].first, count = s[n - 1].first + s[n - 1].count - first;
    int64_t sum = 0, busy, inside, window = d->w1 - d->w0;
    for (size_t k = 0; k < n; k++)
        sum += s[k].active;
    size_t row;
    int rc = acts_union(d, first, count, rows, &busy, &inside);
    if (rc != TP_OK || (rc = tp_result_add_row(d->st, r, &row)) != TP_OK)
        return rc;
    int64_t idle = window - inside; /* never negative */
    rc |= tp_result_set_i64(d->st, r, row, db_devices_device, s[0].device);
    rc |= tp_result_set_i64(d->st, r, row, db_devices_n_streams, (int64_t)n);
    rc |= tp_result_set_f64(d->st, r, row, db_devices_busy_us, (double)busy / 1000.0);
    rc |= tp_result_set_f64(d->st, r, row, db_devices_sum_stream_busy_us, (double)sum / 1000.0);
    rc |= tp_result_set_f64(d->st, r, row, db_devices_window_us, (double)window / 1000.0);
    rc |= tp_result_set_f64(d->st, r, row, db_devices_window_idle_us, (double)idle / 1000.0);
    rc |= tp_result_set_f64(d->st, r, row, db_devices_busy_percent,
                            window > 0 ? 100.0 * (double)busy / (double)window : 0.0);
    return rc == TP_OK ? TP_OK : TP_ENOMEM;
}

int db_write_devices(db *d)
{
    tp_result *r = tp_result_declared(d->st, "devices");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(d->st, r, "title", "GPU device activity (busy: union over its streams)");
    uint32_t *rows = tp_malloc((d->nacts ? d->nacts : 1) * sizeof *rows);
    if (rows == NULL)
        return TP_ENOMEM;
    int rc = TP_OK;
    for (size_t s = 0, e; s < d->nstreams && rc == TP_OK; s = e) {
        for (e = s + 1; e < d->nstreams && d->streams[e].device == d->streams[s].device; e++)
            ;
        rc = device_row(d, r, &d->streams[s], e - s, rows);
    }
    tp_free(rows);
    return rc;
}
