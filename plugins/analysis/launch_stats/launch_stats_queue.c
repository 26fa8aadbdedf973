/*
 * launch_stats: the launch queue of a stream (docs/plugins/launch_stats.md).
 * A series: +1 when a launch call starts, -1 when its activity ends (the
 * default: launched and not finished) or starts (compat: hta, HTA's
 * trace_counters: enqueued and not yet executing).  At equal times the
 * default counts ends first; hta keeps HTA's concatenation order, calls
 * first.  Its summary: the values after each change (HTA's describe: count,
 * mean, sample std, min, quartiles, max), the default's mean weighted by
 * time instead, and the time spent at >= queue_full.
 */
#include <math.h>

#include "launch_stats.h"

typedef struct ls_edge {
    int64_t t;
    int delta;
} ls_edge;

static int ends_first(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const ls_edge *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->delta > y->delta) - (x->delta < y->delta);
}

static int calls_first(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const ls_edge *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->delta < y->delta) - (x->delta > y->delta);
}

static size_t edges_of(const ls *l, size_t from, size_t to, ls_edge *e)
{
    size_t m = 0;
    int hta = l->cfg->compat == LS_HTA;
    for (size_t i = from; i < to; i++) {
        uint32_t a = l->acts[i];
        e[m++] = (ls_edge){ls_start(l, (uint32_t)l->launcher[a]), +1};
        e[m++] = (ls_edge){hta ? ls_start(l, a) : ls_end(l, a), -1};
    }
    return m;
}

/* Values after each edge into v; the time-weighted mean and the time at
 * >= full into q. */
static void walk(const ls_edge *e, size_t m, int64_t full, double *v, ls_queue_stats *q)
{
    int64_t depth = 0;
    double area = 0;
    q->full_ns = 0;
    for (size_t i = 0; i < m; i++) {
        depth += e[i].delta;
        v[i] = (double)depth;
        if (i + 1 < m) {
            area += (double)depth * (double)(e[i + 1].t - e[i].t);
            if (depth >= full)
                q->full_ns += e[i + 1].t - e[i].t;
        }
    }
    int64_t span = m ? e[m - 1].t - e[0].t : 0;
    q->mean = span > 0 ? area / (double)span : NAN;
}

int ls_queue_of(const ls *l, size_t from, size_t to, ls_queue_stats *q)
{
    size_t n = 2 * (to - from);
    ls_edge *e = tp_malloc((n ? n : 1) * sizeof *e);
    double *v = tp_malloc((n ? n : 1) * sizeof *v);
    int rc = e && v ? TP_OK : TP_ENOMEM;
    size_t m = rc == TP_OK ? edges_of(l, from, to, e) : 0;
    int hta = l->cfg->compat == LS_HTA;
    if (rc == TP_OK)
        rc = tp_sort(e, m, sizeof *e, hta ? calls_first : ends_first, NULL);
    tp_stats s;
    if (rc == TP_OK) {
        double weighted;
        walk(e, m, l->cfg->queue_full, v, q);
        weighted = q->mean;
        rc = tp_stats_of(v, m, &s);
        if (rc == TP_OK) {
            q->samples = (int64_t)s.count;
            q->max = (int64_t)s.max;
            q->min = (int64_t)s.min;
            q->mean = hta ? s.mean : weighted;
            q->std = s.std_sample;
            q->p25 = tp_percentile_sorted(v, m, 25);
            q->p50 = s.p50;
            q->p75 = tp_percentile_sorted(v, m, 75);
        }
    }
    tp_free(e);
    tp_free(v);
    return rc;
}
