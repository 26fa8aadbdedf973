/*
 * memory: <id>.iterations, the peak of each iteration per device.  The
 * level an iteration begins with counts (memory held from before it), so
 * an iteration that only frees peaks at its start.
 */
#include "memory.h"

enum { MEM_ITER_COLS(TP_COL_ENUM_, mem_it) mem_it__n };

typedef struct iter_acc {
    int64_t level, peak, peak_ts, n_allocs, allocated, freed;
    int have, any; /* have: a level is known; any: the device was seen by the iteration's end */
} iter_acc;

static void take(iter_acc *a, const mem_ev *e, int inside)
{
    a->level = e->allocated;
    a->have = a->any = 1;
    if (!inside)
        return;
    if (a->level > a->peak) {
        a->peak = a->level;
        a->peak_ts = e->ts;
    }
    if (e->bytes > 0) {
        a->n_allocs++;
        a->allocated += e->bytes;
    } else
        a->freed -= e->bytes;
}

static int write_row(mem *m, tp_result *r, size_t k, const mem_dev *d, const iter_acc *a)
{
    size_t row;
    int rc = tp_result_add_row(m->st, r, &row);
    rc = rc ? rc : tp_result_set_i64(m->st, r, row, mem_it_iteration, m->iv.step[k]);
    rc = rc ? rc : tp_result_set_str(m->st, r, row, mem_it_device_name, d->name);
    rc = rc ? rc : tp_result_set_i64(m->st, r, row, mem_it_peak_allocated_bytes, a->peak);
    rc = rc ? rc : tp_result_set_f64(m->st, r, row, mem_it_peak_us, mem_us(a->peak_ts - m->t0));
    rc = rc ? rc : tp_result_set_i64(m->st, r, row, mem_it_n_allocs, a->n_allocs);
    rc = rc ? rc : tp_result_set_i64(m->st, r, row, mem_it_allocated_bytes, a->allocated);
    rc = rc ? rc : tp_result_set_i64(m->st, r, row, mem_it_freed_bytes, a->freed);
    return rc;
}

/* One device across the counted iterations [first, last), events in time order. */
static int device_rows(mem *m, tp_result *r, int32_t dev)
{
    iter_acc a = {0};
    size_t j = 0;
    int rc = TP_OK;
    for (size_t k = m->iv.first; rc == TP_OK && k < m->iv.last; k++) {
        const tp_iteration *it = &m->iv.it[k];
        for (; j < m->nev && m->ev[j].ts < it->start; j++)
            if (m->ev[j].dev == dev && m->ev[j].kind == TP_ALLOC_MEMORY)
                take(&a, &m->ev[j], 0);
        a.peak = a.have ? a.level : INT64_MIN;
        a.peak_ts = it->start;
        a.n_allocs = a.allocated = a.freed = 0;
        a.any = a.have;
        for (; j < m->nev && m->ev[j].ts < it->end; j++)
            if (m->ev[j].dev == dev && m->ev[j].kind == TP_ALLOC_MEMORY)
                take(&a, &m->ev[j], 1);
        if (a.any)
            rc = write_row(m, r, k, &m->devs[dev], &a);
    }
    return rc;
}

int mem_write_iterations(mem *m, tp_result *r, const uint32_t *order)
{
    int rc = TP_OK;
    for (size_t d = 0; rc == TP_OK && d < m->ndevs; d++)
        rc = device_rows(m, r, (int32_t)order[d]);
    return rc;
}
