/*
 * memory: collecting the allocator's events, attributing each to the op
 * whose time range holds it on its thread, and replaying them.
 */
#include <stdio.h>
#include <string.h>

#include "memory.h"

/* The device of an event: found or added. */
static int device_of(mem *m, const tp_alloc_event *a, int32_t *out)
{
    int32_t type = a->has_device_type ? a->device_type : -1;
    int32_t id = type == 0 ? -1 : a->device_id; /* the CPU has no ordinal */
    for (size_t d = 0; d < m->ndevs; d++)
        if (m->devs[d].type == type && m->devs[d].id == id) {
            *out = (int32_t)d;
            return TP_OK;
        }
    mem_dev *nd = tp_realloc(m->devs, (m->ndevs + 1) * sizeof *nd);
    if (nd == NULL)
        return TP_ENOMEM;
    m->devs = nd;
    mem_dev *d = &nd[m->ndevs];
    memset(d, 0, sizeof *d);
    d->type = type;
    d->id = id;
    d->peak = d->peak_reserved = -1;
    d->peak_ev = -1;
    const char *tn = tp_alloc_device_type_name(type);
    char tbuf[24];
    if (tn == NULL) {
        snprintf(tbuf, sizeof tbuf, "device_type_%d", (int)type);
        tn = tbuf;
    }
    if (id < 0)
        snprintf(d->name, sizeof d->name, "%s", tn);
    else
        snprintf(d->name, sizeof d->name, "%s:%d", tn, (int)id);
    *out = (int32_t)m->ndevs++;
    return TP_OK;
}

/* The allocator kind of every name, cached per string id (0: not yet). */
static tp_alloc_kind kind_of_name(mem *m, uint8_t *memo, tp_str name)
{
    if (memo[name] == 0)
        memo[name] = (uint8_t)(1 + tp_alloc_kind_of(tp_str_text(m->st, name)));
    return (tp_alloc_kind)(memo[name] - 1);
}

static int add_event(mem *m, size_t row, tp_alloc_kind kind, size_t *cap)
{
    size_t len = 0;
    const char *args = tp_trace_args(m->t, row, &len);
    tp_alloc_event a;
    tp_alloc_event_read(args ? args : "", args ? len : 0, &a);
    if (*cap == m->nev) {
        size_t n = *cap ? *cap * 2 : 256;
        mem_ev *ne = tp_realloc(m->ev, n * sizeof *ne);
        if (ne == NULL)
            return TP_ENOMEM;
        m->ev = ne;
        *cap = n;
    }
    mem_ev *e = &m->ev[m->nev];
    memset(e, 0, sizeof *e);
    int rc = device_of(m, &a, &e->dev);
    if (rc != TP_OK)
        return rc;
    e->ts = m->c->ts[row];
    e->row = (uint32_t)row;
    e->kind = (uint8_t)kind;
    e->bytes = a.bytes;
    e->addr = a.addr;
    e->has_addr = a.has_addr;
    e->allocated = a.has_total_allocated ? a.total_allocated : INT64_MIN; /* replayed later */
    e->reserved = a.total_reserved;
    e->has_reserved = a.has_total_reserved;
    e->op = e->top = e->iter = e->freed_at = -1;
    e->freed_ts = INT64_MAX;
    m->nev++;
    return TP_OK;
}

static int by_time(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const mem_ev *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* The events' rows in (thread, ts, row) order, for the sweep. */
typedef struct by_thread_ctx {
    const mem_ev *ev;
    const tp_cols *c;
    const uint32_t *thread_of; /* per track */
} by_thread_ctx;

/* The thread rank of a row (thread_of: per track, tp_thread_ranks). */
static uint32_t thread_at(const tp_cols *c, const uint32_t *thread_of, size_t row)
{
    return thread_of[c->track[row]];
}

static int by_thread(const void *a, const void *b, void *ctx)
{
    const by_thread_ctx *k = ctx;
    const mem_ev *x = &k->ev[*(const uint32_t *)a], *y = &k->ev[*(const uint32_t *)b];
    uint32_t tx = thread_at(k->c, k->thread_of, x->row), ty = thread_at(k->c, k->thread_of, y->row);
    if (tx != ty)
        return tx < ty ? -1 : 1;
    return by_time(x, y, NULL);
}

/* The innermost cpu op on thread th holding time ts: from the host event
 * last started at or before ts up the hierarchy's parents. */
static int32_t op_at(const tp_cols *c, const int32_t *parent, const uint32_t *thread_of,
                     int32_t last, uint32_t th, int64_t ts)
{
    for (int32_t x = last; x >= 0; x = parent[x])
        if (thread_at(c, thread_of, (size_t)x) == th && c->kind[x] == TP_KIND_CPU_OP && c->ts[x] <= ts &&
            c->ts[x] + c->dur[x] > ts)
            return x;
    return -1;
}

/* Sweeps each thread's host events (nesting order) and its allocator
 * events (time order) together. */
static void sweep(mem *m, const int32_t *parent, const uint32_t *thread_of, const uint32_t *host,
                  size_t nhost, const uint32_t *order)
{
    size_t h = 0;
    int32_t last = -1;
    uint32_t cur = UINT32_MAX;
    for (size_t k = 0; k < m->nev; k++) {
        mem_ev *e = &m->ev[order[k]];
        uint32_t th = thread_at(m->c, thread_of, e->row);
        if (th != cur) {
            cur = th;
            last = -1;
            while (h < nhost && thread_at(m->c, thread_of, host[h]) < th)
                h++;
        }
        while (h < nhost && thread_at(m->c, thread_of, host[h]) == th && m->c->ts[host[h]] <= e->ts)
            last = (int32_t)host[h++];
        e->op = op_at(m->c, parent, thread_of, last, th, e->ts);
    }
}

/* Each event's top-level op: the outermost op above its innermost one,
 * below modules and steps. */
static int top_ops(mem *m, const tp_vocab *v, const int32_t *parent)
{
    const tp_strlist *mods = &m->cfg->module_prefixes;
    uint8_t *memo = NULL;
    size_t nmemo = 0, n = m->c->n ? m->c->n : 1;
    int32_t *top = tp_malloc(n * sizeof *top), *chain = tp_malloc(n * sizeof *chain);
    int rc = top && chain ? tp_op_names_memo(m->st, v, mods->items, mods->n, &memo, &nmemo)
                          : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < m->c->n; i++)
        top[i] = TP_OP_UNKNOWN;
    for (size_t k = 0; rc == TP_OK && k < m->nev; k++)
        if (m->ev[k].op >= 0)
            m->ev[k].top = tp_outermost_op(m->c, parent, memo, nmemo, top, chain, m->ev[k].op);
    tp_free(memo);
    tp_free(top);
    tp_free(chain);
    return rc;
}

static int attribute(mem *m)
{
    tp_hier_view hv;
    int rc = tp_hier_view_require(m->st, m->t, &hv);
    if (rc != TP_OK || m->nev == 0)
        return rc;
    size_t nthreads = 0, nhost = 0, n = m->c->n_tracks ? m->c->n_tracks : 1;
    uint32_t *thread_of = tp_malloc(n * sizeof *thread_of), *host = NULL;
    uint32_t *order = tp_malloc(m->nev * sizeof *order);
    rc = thread_of && order ? tp_thread_ranks(m->c, thread_of, &nthreads) : TP_ENOMEM;
    rc = rc ? rc : tp_rows_complete(m->c, TP_KINDS_HOST, thread_of, nthreads, &host, &nhost);
    rc = rc ? rc : tp_rows_sort_nesting(m->c, thread_of, host, nhost);
    for (size_t k = 0; rc == TP_OK && k < m->nev; k++)
        order[k] = (uint32_t)k;
    by_thread_ctx ctx = {m->ev, m->c, thread_of};
    rc = rc ? rc : tp_sort(order, m->nev, sizeof *order, by_thread, &ctx);
    if (rc == TP_OK)
        sweep(m, hv.parent, thread_of, host, nhost, order);
    tp_vocab v;
    int vrc = rc ? rc : tp_vocab_get(m->st, &v);
    if (rc == TP_OK && vrc == TP_OK) {
        rc = top_ops(m, &v, hv.parent);
        tp_vocab_free(&v);
    }
    tp_free(thread_of);
    tp_free(host);
    tp_free(order);
    return rc ? rc : vrc;
}

static int iterations(mem *m)
{
    int rc = tp_iter_view_get(m->st, m->t, NULL, &m->iv);
    rc = rc ? rc : tp_iter_view_rows(m->st, m->t, &m->iv);
    for (size_t k = 0; rc == TP_OK && k < m->nev; k++)
        m->ev[k].iter = m->iv.row[m->ev[k].row];
    return rc;
}

int mem_collect(mem *m)
{
    size_t nstr = tp_str_count(m->st), cap = 0;
    uint8_t *memo = tp_calloc(nstr ? nstr : 1, 1);
    int rc = memo ? TP_OK : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < m->c->n; i++) {
        if (m->c->kind[i] != TP_KIND_INSTANT || m->c->name[i] >= nstr)
            continue;
        tp_alloc_kind k = kind_of_name(m, memo, m->c->name[i]);
        if (k != TP_ALLOC_NONE)
            rc = add_event(m, i, k, &cap);
    }
    tp_free(memo);
    rc = rc ? rc : tp_sort(m->ev, m->nev, sizeof *m->ev, by_time, NULL);
    rc = rc ? rc : attribute(m);
    return rc ? rc : iterations(m);
}

/* ------------------------------------------------------------- replay */

/* Live blocks by (device, address): open addressing, tombstones; at most
 * nev insertions into 2^k >= 2 nev slots, so never full. */
typedef struct live_map {
    int32_t *slot; /* event index, -1 empty, -2 removed */
    size_t mask;
} live_map;

static uint64_t live_hash(int32_t dev, int64_t addr)
{
    uint64_t h = (uint64_t)addr * 0x9E3779B97F4A7C15ull ^ (uint64_t)(uint32_t)dev;
    return h ^ (h >> 29);
}

/* The slot holding (dev, addr), or the free one to put it in (*found 0). */
static size_t live_find(const live_map *lm, const mem_ev *ev, int32_t dev, int64_t addr,
                        int *found)
{
    size_t i = live_hash(dev, addr) & lm->mask, free_slot = SIZE_MAX;
    for (;; i = (i + 1) & lm->mask) {
        int32_t s = lm->slot[i];
        if (s == -1) {
            *found = 0;
            return free_slot != SIZE_MAX ? free_slot : i;
        }
        if (s == -2) {
            if (free_slot == SIZE_MAX)
                free_slot = i;
        } else if (ev[s].dev == dev && ev[s].addr == addr) {
            *found = 1;
            return i;
        }
    }
}

static void apply(mem *m, live_map *lm, size_t j)
{
    mem_ev *e = &m->ev[j];
    mem_dev *d = &m->devs[e->dev];
    int found = 0;
    size_t s = e->has_addr ? live_find(lm, m->ev, e->dev, e->addr, &found) : 0;
    if (e->bytes > 0) {
        d->n_allocs++;
        d->allocated += e->bytes;
        if (e->has_addr)
            lm->slot[s] = (int32_t)j; /* a block given twice: the earlier one stays unfreed */
    } else if (e->bytes < 0) {
        d->n_frees++;
        d->freed -= e->bytes;
        if (found) {
            m->ev[lm->slot[s]].freed_at = (int32_t)j;
            m->ev[lm->slot[s]].freed_ts = e->ts;
            lm->slot[s] = -2;
        } else {
            e->pre_trace = 1;
            d->n_pre_frees++;
            d->pre_freed -= e->bytes;
        }
    }
    if (e->allocated == INT64_MIN)
        e->allocated = d->last + e->bytes; /* no total: replayed from the trace's own events */
    d->last = e->allocated;
    if (e->allocated > d->peak) {
        d->peak = e->allocated;
        d->peak_ts = e->ts;
        d->peak_ev = (int32_t)j;
    }
    if (e->has_reserved && e->reserved > d->peak_reserved) {
        d->peak_reserved = e->reserved;
        d->peak_reserved_ts = e->ts;
        d->has_reserved = 1;
    }
}

/* Is allocation i live at its device's peak? */
static int live_at_peak(const mem *m, size_t i)
{
    const mem_ev *e = &m->ev[i];
    int32_t p = m->devs[e->dev].peak_ev;
    return e->kind == TP_ALLOC_MEMORY && e->bytes > 0 && p >= 0 && (int32_t)i <= p &&
           (e->freed_at < 0 || e->freed_at > p);
}

int mem_replay(mem *m)
{
    size_t cap = 16;
    while (cap < 2 * m->nev)
        cap *= 2;
    live_map lm = {tp_malloc(cap * sizeof *lm.slot), cap - 1};
    if (lm.slot == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < cap; i++)
        lm.slot[i] = -1;
    for (size_t j = 0; j < m->nev; j++) {
        if (m->ev[j].kind == TP_ALLOC_OOM)
            m->devs[m->ev[j].dev].n_oom++;
        else
            apply(m, &lm, j);
    }
    tp_free(lm.slot);
    for (size_t i = 0; i < m->nev; i++) {
        mem_ev *e = &m->ev[i];
        mem_dev *d = &m->devs[e->dev];
        if (e->kind != TP_ALLOC_MEMORY || e->bytes <= 0)
            continue;
        if (e->freed_at < 0) {
            d->n_unfreed++;
            d->unfreed += e->bytes;
        }
        if (live_at_peak(m, i))
            d->live_at_peak += e->bytes;
    }
    return TP_OK;
}

int mem_is_live_at_peak(const mem *m, size_t i) { return live_at_peak(m, i); }
