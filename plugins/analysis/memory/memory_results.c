/*
 * memory: the results (declared here, made from the replay).
 */
#include <string.h>

#include "memory.h"

#define MEM_DEVICE_COLS(X, P)                                                                   \
    X(P, device_name, STR, NULL, "the device as PyTorch names it: cuda:0, cpu")                \
    X(P, device_type, STR, NULL, "its type (c10::DeviceType: cpu, cuda, hip, xpu, mps, ...)")  \
    X(P, device, I64, NULL, "its ordinal (null for the CPU)")                                  \
    X(P, n_allocs, I64, "count", "allocations in the trace")                                   \
    X(P, n_frees, I64, "count", "frees in the trace")                                          \
    X(P, allocated_bytes, I64, "bytes", "bytes allocated in the trace")                        \
    X(P, freed_bytes, I64, "bytes", "bytes freed in the trace")                                \
    X(P, peak_allocated_bytes, I64, "bytes", "most bytes allocated at once (the profiler's "  \
                                             "Total Allocated, else the replayed sum)")       \
    X(P, peak_us, F64, "us", "when that peak was first reached, from the trace's t0")         \
    X(P, peak_reserved_bytes, I64, "bytes", "most bytes the allocator reserved at once "      \
                                            "(null when the events do not say)")              \
    X(P, peak_reserved_us, F64, "us", "when that peak was first reached")                      \
    X(P, live_at_peak_bytes, I64, "bytes", "bytes of the trace's allocations live at the "    \
                                           "peak (<id>.peak by op)")                          \
    X(P, before_trace_at_peak_bytes, I64, "bytes", "the rest of the peak: blocks allocated "   \
                                                   "before the trace began")                 \
    X(P, n_unfreed, I64, "count", "allocations never freed in the trace (<id>.unfreed)")      \
    X(P, unfreed_bytes, I64, "bytes", "their bytes")                                           \
    X(P, n_before_trace_frees, I64, "count", "frees of blocks allocated before the trace")     \
    X(P, before_trace_freed_bytes, I64, "bytes", "their bytes")                                \
    X(P, final_allocated_bytes, I64, "bytes", "bytes allocated after the last event")         \
    X(P, n_oom, I64, "count", "out-of-memory events (<id>.oom)")
TP_COLUMNS(mem_dev_r, MEM_DEVICE_COLS);

#define MEM_TIMELINE_COLS(X, P)                                                                 \
    X(P, time_us, F64, "us", "the event's time, from the trace's t0")                          \
    X(P, device_name, STR, NULL, "the device (cuda:0, cpu)")                                   \
    X(P, allocated_bytes, I64, "bytes", "bytes allocated after the event")                     \
    X(P, reserved_bytes, I64, "bytes", "bytes reserved after the event (null when unknown)")
TP_COLUMNS(mem_tl, MEM_TIMELINE_COLS);

#define MEM_PEAK_COLS(X, P)                                                                     \
    X(P, device_name, STR, NULL, "the device")                                                 \
    X(P, origin, STR, NULL, "trace (allocated by an event of the trace) or before_trace "     \
                            "(the rest of the peak's total)")                                 \
    X(P, op, STR, NULL, "the outermost cpu op holding the allocation, below modules and "    \
                        "steps (null: none, or before_trace)")                                 \
    X(P, inner_op, STR, NULL, "the innermost cpu op whose time holds the allocation on its "  \
                              "thread")                                                        \
    X(P, count, I64, "count", "blocks live at the peak (null for before_trace)")              \
    X(P, live_bytes, I64, "bytes", "their bytes")                                              \
    X(P, peak_percent, F64, "percent", "share of the device's peak")
TP_COLUMNS(mem_pk, MEM_PEAK_COLS);

#define MEM_BY_OP_COLS(X, P)                                                                    \
    X(P, device_name, STR, NULL, "the device")                                                 \
    X(P, inner_op, STR, NULL, "innermost cpu op holding the allocations (null: outside any "  \
                              "op)")                                                           \
    X(P, count, I64, "count", "allocations")                                                   \
    X(P, allocated_bytes, I64, "bytes", "their bytes")                                         \
    X(P, freed_bytes, I64, "bytes", "bytes of them freed later in the trace")                  \
    X(P, held_bytes, I64, "bytes", "bytes of them made in an iteration and still live at its " \
                                   "end (held across iterations)")                            \
    X(P, unfreed_bytes, I64, "bytes", "bytes of them never freed in the trace")                \
    X(P, live_at_peak_bytes, I64, "bytes", "bytes of them live at their device's peak")
TP_COLUMNS(mem_op, MEM_BY_OP_COLS);

#define MEM_UNFREED_COLS(X, P)                                                                  \
    X(P, device_name, STR, NULL, "the device")                                                 \
    X(P, time_us, F64, "us", "when the block was allocated, from the trace's t0")              \
    X(P, bytes, I64, "bytes", "its size")                                                      \
    X(P, addr, I64, NULL, "its address")                                                       \
    X(P, op, STR, NULL, "the outermost cpu op holding the allocation")                         \
    X(P, inner_op, STR, NULL, "the innermost one")                                             \
    X(P, iteration, I64, NULL, "the iteration of the allocation (null outside any)")
TP_COLUMNS(mem_uf, MEM_UNFREED_COLS);

#define MEM_OOM_COLS(X, P)                                                                      \
    X(P, device_name, STR, NULL, "the device")                                                 \
    X(P, time_us, F64, "us", "when the allocation failed, from the trace's t0")                \
    X(P, bytes, I64, "bytes", "the size asked for")                                            \
    X(P, total_allocated_bytes, I64, "bytes", "bytes allocated then (null when unknown)")      \
    X(P, total_reserved_bytes, I64, "bytes", "bytes reserved then (null when unknown)")        \
    X(P, op, STR, NULL, "the outermost cpu op holding the event")                              \
    X(P, inner_op, STR, NULL, "the innermost one")
TP_COLUMNS(mem_oom, MEM_OOM_COLS);

TP_COLUMNS(mem_it, MEM_ITER_COLS);

const tp_result_decl mem_results[] = {
    TP_RESULT("", "table", mem_dev_r, "per device: allocations, frees, peaks, leaks, OOMs"),
    TP_RESULT("timeline", "series", mem_tl, "allocated and reserved bytes over time, per device"),
    TP_RESULT("peak", "table", mem_pk, "per device: the blocks live at the peak, by op"),
    TP_RESULT("by_op", "table", mem_op, "per device and op: bytes allocated, freed, held, never freed"),
    TP_RESULT("unfreed", "table", mem_uf, "allocations never freed in the trace, largest first"),
    TP_RESULT("oom", "table", mem_oom, "out-of-memory events, in time order"),
    TP_RESULT("iterations", "series", mem_it, "per iteration and device: the peak"),
    TP_RESULTS_END};

/* ---------------------------------------------------------- helpers */

static const char *op_name(const mem *m, int32_t row)
{
    return row >= 0 ? tp_str_text(m->st, m->c->name[row]) : NULL;
}

static int set_str(mem *m, tp_result *r, size_t row, int col, const char *s)
{
    return s ? tp_result_set_str(m->st, r, row, col, s) : TP_OK;
}

enum { R_DEV, R_TIMELINE, R_PEAK, R_BY_OP, R_UNFREED, R_OOM, R_ITER, R__N };
static const char *const result_names[R__N] = {NULL,      "timeline", "peak",      "by_op",
                                               "unfreed", "oom",      "iterations"};

static int is_alloc(const mem_ev *e) { return e->kind == TP_ALLOC_MEMORY && e->bytes > 0; }

/* ------------------------------------------------------------ devices */

static int write_device(mem *m, tp_result *r, const mem_dev *d)
{
    tp_stage *st = m->st;
    size_t row;
    int rc = tp_result_add_row(st, r, &row);
    rc = rc ? rc : tp_result_set_str(st, r, row, mem_dev_r_device_name, d->name);
    rc = rc ? rc : set_str(m, r, row, mem_dev_r_device_type, tp_alloc_device_type_name(d->type));
    if (rc == TP_OK && d->id >= 0)
        rc = tp_result_set_i64(st, r, row, mem_dev_r_device, d->id);
    rc = rc ? rc : tp_result_set_i64(st, r, row, mem_dev_r_n_allocs, d->n_allocs);
    rc = rc ? rc : tp_result_set_i64(st, r, row, mem_dev_r_n_frees, d->n_frees);
    rc = rc ? rc : tp_result_set_i64(st, r, row, mem_dev_r_allocated_bytes, d->allocated);
    rc = rc ? rc : tp_result_set_i64(st, r, row, mem_dev_r_freed_bytes, d->freed);
    if (rc == TP_OK && d->peak_ev >= 0) {
        rc = tp_result_set_i64(st, r, row, mem_dev_r_peak_allocated_bytes, d->peak);
        rc = rc ? rc : tp_result_set_f64(st, r, row, mem_dev_r_peak_us, mem_us(d->peak_ts - m->t0));
        rc = rc ? rc : tp_result_set_i64(st, r, row, mem_dev_r_live_at_peak_bytes, d->live_at_peak);
        rc = rc ? rc : tp_result_set_i64(st, r, row, mem_dev_r_before_trace_at_peak_bytes,
                                         d->peak - d->live_at_peak);
        rc = rc ? rc : tp_result_set_i64(st, r, row, mem_dev_r_final_allocated_bytes, d->last);
    }
    if (rc == TP_OK && d->has_reserved) {
        rc = tp_result_set_i64(st, r, row, mem_dev_r_peak_reserved_bytes, d->peak_reserved);
        rc = rc ? rc : tp_result_set_f64(st, r, row, mem_dev_r_peak_reserved_us,
                                         mem_us(d->peak_reserved_ts - m->t0));
    }
    rc = rc ? rc : tp_result_set_i64(st, r, row, mem_dev_r_n_unfreed, d->n_unfreed);
    rc = rc ? rc : tp_result_set_i64(st, r, row, mem_dev_r_unfreed_bytes, d->unfreed);
    rc = rc ? rc : tp_result_set_i64(st, r, row, mem_dev_r_n_before_trace_frees, d->n_pre_frees);
    rc = rc ? rc : tp_result_set_i64(st, r, row, mem_dev_r_before_trace_freed_bytes, d->pre_freed);
    rc = rc ? rc : tp_result_set_i64(st, r, row, mem_dev_r_n_oom, d->n_oom);
    return rc;
}

static int by_device(const void *a, const void *b, void *ctx)
{
    const mem_dev *x = &((const mem_dev *)ctx)[*(const uint32_t *)a];
    const mem_dev *y = &((const mem_dev *)ctx)[*(const uint32_t *)b];
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* rank[d]: the device's place in (type, ordinal) order. */
static int device_order(mem *m, uint32_t *order, uint32_t *rank)
{
    for (size_t d = 0; d < m->ndevs; d++)
        order[d] = (uint32_t)d;
    int rc = tp_sort(order, m->ndevs, sizeof *order, by_device, m->devs);
    for (size_t k = 0; rc == TP_OK && k < m->ndevs; k++)
        rank[order[k]] = (uint32_t)k;
    return rc;
}

/* ----------------------------------------------------------- timeline */

/* Marks the points of device d kept: every event, or in each of
 * max_points equal runs of events the highest (the first of equals). */
static void keep_points(const mem *m, int32_t d, const uint32_t *idx, size_t n, uint8_t *keep)
{
    size_t p = (size_t)m->cfg->max_points;
    (void)d;
    if (p == 0 || n <= p) {
        for (size_t k = 0; k < n; k++)
            keep[idx[k]] = 1;
        return;
    }
    for (size_t b = 0; b < p; b++) {
        size_t lo = b * n / p, hi = (b + 1) * n / p, best = lo;
        for (size_t k = lo + 1; k < hi; k++)
            if (m->ev[idx[k]].allocated > m->ev[idx[best]].allocated)
                best = k;
        if (lo < hi)
            keep[idx[best]] = 1;
    }
}

static int write_timeline(mem *m, tp_result *r)
{
    size_t n = m->nev ? m->nev : 1;
    uint8_t *keep = tp_calloc(n, 1);
    uint32_t *idx = tp_malloc(n * sizeof *idx);
    int rc = keep && idx ? TP_OK : TP_ENOMEM;
    for (size_t d = 0; rc == TP_OK && d < m->ndevs; d++) {
        size_t k = 0;
        for (size_t j = 0; j < m->nev; j++)
            if (m->ev[j].dev == (int32_t)d && m->ev[j].kind == TP_ALLOC_MEMORY)
                idx[k++] = (uint32_t)j;
        keep_points(m, (int32_t)d, idx, k, keep);
    }
    for (size_t j = 0; rc == TP_OK && j < m->nev; j++) {
        if (!keep[j])
            continue;
        const mem_ev *e = &m->ev[j];
        size_t row;
        rc = tp_result_add_row(m->st, r, &row);
        rc = rc ? rc : tp_result_set_f64(m->st, r, row, mem_tl_time_us, mem_us(e->ts - m->t0));
        rc = rc ? rc : tp_result_set_str(m->st, r, row, mem_tl_device_name, m->devs[e->dev].name);
        rc = rc ? rc : tp_result_set_i64(m->st, r, row, mem_tl_allocated_bytes, e->allocated);
        if (rc == TP_OK && e->has_reserved)
            rc = tp_result_set_i64(m->st, r, row, mem_tl_reserved_bytes, e->reserved);
    }
    tp_free(keep);
    tp_free(idx);
    return rc;
}

/* ------------------------------------------------------- groups by op */

/* Allocations grouped by (device rank, op name, top op name); names are
 * string ids, NO_NAME for none. */
#define NO_NAME UINT32_MAX
typedef struct mem_group {
    uint32_t dev, op, top;
    int64_t count, bytes, freed, held, unfreed, live;
    uint8_t before; /* the peak's before-trace rest */
} mem_group;

static uint32_t name_of(const mem *m, int32_t row)
{
    return row >= 0 ? m->c->name[row] : NO_NAME;
}

static int by_key(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const mem_group *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->op != y->op)
        return x->op < y->op ? -1 : 1;
    return (x->top > y->top) - (x->top < y->top);
}

static int text_cmp(const mem *m, uint32_t a, uint32_t b)
{
    if (a == b)
        return 0;
    if (a == NO_NAME || b == NO_NAME)
        return a == NO_NAME ? 1 : -1;
    return strcmp(tp_str_text(m->st, a), tp_str_text(m->st, b));
}

/* Device, then most bytes first, then names. */
static int by_bytes(const void *a, const void *b, void *ctx)
{
    const mem_group *x = a, *y = b;
    if (x->dev != y->dev)
        return x->dev < y->dev ? -1 : 1;
    if (x->bytes != y->bytes)
        return x->bytes > y->bytes ? -1 : 1;
    if (x->before != y->before)
        return x->before ? 1 : -1;
    int o = text_cmp(ctx, x->op, y->op);
    return o ? o : text_cmp(ctx, x->top, y->top);
}

/* Merges rows of equal key (sorted), summing; *n shrinks. */
static void merge_groups(mem_group *g, size_t *n)
{
    size_t k = 0;
    for (size_t i = 0; i < *n; i++) {
        if (k > 0 && by_key(&g[k - 1], &g[i], NULL) == 0) {
            mem_group *o = &g[k - 1];
            o->count += g[i].count;
            o->bytes += g[i].bytes;
            o->freed += g[i].freed;
            o->held += g[i].held;
            o->unfreed += g[i].unfreed;
            o->live += g[i].live;
        } else
            g[k++] = g[i];
    }
    *n = k;
}

static int group_sorted(mem *m, mem_group *g, size_t *n)
{
    int rc = tp_sort(g, *n, sizeof *g, by_key, NULL);
    if (rc == TP_OK)
        merge_groups(g, n);
    return rc ? rc : tp_sort(g, *n, sizeof *g, by_bytes, m);
}

static int write_peak_group(mem *m, tp_result *r, const mem_group *g, const uint32_t *order)
{
    const mem_dev *d = &m->devs[order[g->dev]];
    size_t row;
    int rc = tp_result_add_row(m->st, r, &row);
    rc = rc ? rc : tp_result_set_str(m->st, r, row, mem_pk_device_name, d->name);
    rc = rc ? rc : tp_result_set_str(m->st, r, row, mem_pk_origin, g->before ? "before_trace" : "trace");
    if (rc == TP_OK && g->op != NO_NAME)
        rc = tp_result_set_str(m->st, r, row, mem_pk_inner_op, tp_str_text(m->st, g->op));
    if (rc == TP_OK && g->top != NO_NAME)
        rc = tp_result_set_str(m->st, r, row, mem_pk_op, tp_str_text(m->st, g->top));
    if (rc == TP_OK && !g->before)
        rc = tp_result_set_i64(m->st, r, row, mem_pk_count, g->count);
    rc = rc ? rc : tp_result_set_i64(m->st, r, row, mem_pk_live_bytes, g->bytes);
    if (rc == TP_OK && d->peak > 0)
        rc = tp_result_set_f64(m->st, r, row, mem_pk_peak_percent,
                               100.0 * (double)g->bytes / (double)d->peak);
    return rc;
}

static int write_peak(mem *m, tp_result *r, const uint32_t *order, const uint32_t *rank)
{
    mem_group *g = tp_malloc((m->nev + m->ndevs + 1) * sizeof *g);
    if (g == NULL)
        return TP_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < m->nev; i++)
        if (mem_is_live_at_peak(m, i))
            g[n++] = (mem_group){.dev = rank[m->ev[i].dev], .op = name_of(m, m->ev[i].op),
                                 .top = name_of(m, m->ev[i].top), .count = 1,
                                 .bytes = m->ev[i].bytes};
    int rc = group_sorted(m, g, &n);
    for (size_t d = 0; rc == TP_OK && d < m->ndevs; d++) { /* the rest of each peak */
        const mem_dev *dv = &m->devs[d];
        if (dv->peak_ev >= 0 && dv->peak != dv->live_at_peak)
            g[n++] = (mem_group){.dev = rank[d], .op = NO_NAME, .top = NO_NAME,
                                 .bytes = dv->peak - dv->live_at_peak, .before = 1};
    }
    rc = rc ? rc : tp_sort(g, n, sizeof *g, by_bytes, m);
    for (size_t k = 0; rc == TP_OK && k < n; k++)
        rc = write_peak_group(m, r, &g[k], order);
    tp_free(g);
    return rc;
}

/* -------------------------------------------------------------- by op */

/* Was allocation e made in an iteration and still live at its end? */
static int held_across(const mem *m, const mem_ev *e)
{
    return e->iter >= 0 && (size_t)e->iter < m->iv.n && e->freed_ts >= m->iv.it[e->iter].end;
}

static int write_by_op(mem *m, tp_result *r, const uint32_t *order, const uint32_t *rank)
{
    mem_group *g = tp_malloc((m->nev ? m->nev : 1) * sizeof *g);
    if (g == NULL)
        return TP_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < m->nev; i++) {
        const mem_ev *e = &m->ev[i];
        if (!is_alloc(e))
            continue;
        g[n++] = (mem_group){.dev = rank[e->dev], .op = name_of(m, e->op), .top = NO_NAME, .count = 1,
                             .bytes = e->bytes, .freed = e->freed_at >= 0 ? e->bytes : 0,
                             .held = held_across(m, e) ? e->bytes : 0,
                             .unfreed = e->freed_at < 0 ? e->bytes : 0,
                             .live = mem_is_live_at_peak(m, i) ? e->bytes : 0};
    }
    int rc = group_sorted(m, g, &n);
    for (size_t k = 0; rc == TP_OK && k < n; k++) {
        size_t row;
        rc = tp_result_add_row(m->st, r, &row);
        rc = rc ? rc : tp_result_set_str(m->st, r, row, mem_op_device_name,
                                         m->devs[order[g[k].dev]].name);
        if (rc == TP_OK && g[k].op != NO_NAME)
            rc = tp_result_set_str(m->st, r, row, mem_op_inner_op, tp_str_text(m->st, g[k].op));
        rc = rc ? rc : tp_result_set_i64(m->st, r, row, mem_op_count, g[k].count);
        rc = rc ? rc : tp_result_set_i64(m->st, r, row, mem_op_allocated_bytes, g[k].bytes);
        rc = rc ? rc : tp_result_set_i64(m->st, r, row, mem_op_freed_bytes, g[k].freed);
        rc = rc ? rc : tp_result_set_i64(m->st, r, row, mem_op_held_bytes, g[k].held);
        rc = rc ? rc : tp_result_set_i64(m->st, r, row, mem_op_unfreed_bytes, g[k].unfreed);
        rc = rc ? rc : tp_result_set_i64(m->st, r, row, mem_op_live_at_peak_bytes, g[k].live);
    }
    tp_free(g);
    return rc;
}

/* -------------------------------------------------- unfreed and OOMs */

static int by_size(const void *a, const void *b, void *ctx)
{
    const mem *m = ctx;
    uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
    if (m->ev[i].bytes != m->ev[j].bytes)
        return m->ev[i].bytes > m->ev[j].bytes ? -1 : 1;
    return (i > j) - (i < j);
}

static int write_unfreed(mem *m, tp_result *r)
{
    uint32_t *idx = tp_malloc((m->nev ? m->nev : 1) * sizeof *idx);
    if (idx == NULL)
        return TP_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < m->nev; i++)
        if (is_alloc(&m->ev[i]) && m->ev[i].freed_at < 0)
            idx[n++] = (uint32_t)i;
    int rc = tp_sort(idx, n, sizeof *idx, by_size, m);
    for (size_t k = 0; rc == TP_OK && k < n; k++) {
        const mem_ev *e = &m->ev[idx[k]];
        size_t row;
        rc = tp_result_add_row(m->st, r, &row);
        rc = rc ? rc : tp_result_set_str(m->st, r, row, mem_uf_device_name, m->devs[e->dev].name);
        rc = rc ? rc : tp_result_set_f64(m->st, r, row, mem_uf_time_us, mem_us(e->ts - m->t0));
        rc = rc ? rc : tp_result_set_i64(m->st, r, row, mem_uf_bytes, e->bytes);
        if (rc == TP_OK && e->has_addr)
            rc = tp_result_set_i64(m->st, r, row, mem_uf_addr, e->addr);
        rc = rc ? rc : set_str(m, r, row, mem_uf_inner_op, op_name(m, e->op));
        rc = rc ? rc : set_str(m, r, row, mem_uf_op, op_name(m, e->top));
        if (rc == TP_OK && e->iter >= 0)
            rc = tp_result_set_i64(m->st, r, row, mem_uf_iteration, m->iv.step[e->iter]);
    }
    tp_free(idx);
    return rc;
}

static int write_oom(mem *m, tp_result *r)
{
    int rc = TP_OK;
    for (size_t j = 0; rc == TP_OK && j < m->nev; j++) {
        const mem_ev *e = &m->ev[j];
        if (e->kind != TP_ALLOC_OOM)
            continue;
        size_t row;
        rc = tp_result_add_row(m->st, r, &row);
        rc = rc ? rc : tp_result_set_str(m->st, r, row, mem_oom_device_name, m->devs[e->dev].name);
        rc = rc ? rc : tp_result_set_f64(m->st, r, row, mem_oom_time_us, mem_us(e->ts - m->t0));
        rc = rc ? rc : tp_result_set_i64(m->st, r, row, mem_oom_bytes, e->bytes);
        if (rc == TP_OK && e->allocated != INT64_MIN)
            rc = tp_result_set_i64(m->st, r, row, mem_oom_total_allocated_bytes, e->allocated);
        if (rc == TP_OK && e->has_reserved)
            rc = tp_result_set_i64(m->st, r, row, mem_oom_total_reserved_bytes, e->reserved);
        rc = rc ? rc : set_str(m, r, row, mem_oom_inner_op, op_name(m, e->op));
        rc = rc ? rc : set_str(m, r, row, mem_oom_op, op_name(m, e->top));
    }
    return rc;
}

int mem_write_results(mem *m)
{
    tp_result *r[R__N] = {NULL};
    for (int k = 0; k < R__N; k++)
        if ((r[k] = tp_result_declared(m->st, result_names[k])) == NULL)
            return TP_ENOMEM;
    tp_result_set_meta(m->st, r[R_DEV], "title", "Memory per device");
    tp_result_set_meta(m->st, r[R_TIMELINE], "title", "Memory over time");
    size_t nd = m->ndevs ? m->ndevs : 1;
    uint32_t *order = tp_malloc(nd * sizeof *order), *rank = tp_malloc(nd * sizeof *rank);
    int rc = order && rank ? device_order(m, order, rank) : TP_ENOMEM;
    for (size_t k = 0; rc == TP_OK && k < m->ndevs; k++)
        rc = write_device(m, r[R_DEV], &m->devs[order[k]]);
    rc = rc ? rc : write_timeline(m, r[R_TIMELINE]);
    rc = rc ? rc : write_peak(m, r[R_PEAK], order, rank);
    rc = rc ? rc : write_by_op(m, r[R_BY_OP], order, rank);
    rc = rc ? rc : write_unfreed(m, r[R_UNFREED]);
    rc = rc ? rc : write_oom(m, r[R_OOM]);
    rc = rc ? rc : mem_write_iterations(m, r[R_ITER], order);
    tp_free(order);
    tp_free(rank);
    return rc;
}
