/*
 * launch_stats: the launch queue of a stream (docs/plugins/launch_stats.md).
 * The series is the SDK's (tp_sdk_queue.h): +1 when a launch call starts, -1 when its activity ends (the
 * default: launched and not finished) or starts (compat: hta, HTA's
 * trace_counters: enqueued and not yet executing).  At equal times the
 * default counts ends first; hta keeps HTA's concatenation order, calls
 * first.  Its summary: the values after each change (HTA's describe: count,
 * mean, sample std, min, quartiles, max), the default's mean weighted by
 * time instead, and the time spent at >= queue_full.
 */
#include <math.h>
#include <stdlib.h>

#include <tracepipe/tp_sdk_queue.h>

#include "launch_stats.h"

/* The queue's edges of acts[from, to): each launch call's start, and its
 * activity's end (default) or start (compat: hta). */
static void edges_of(const ls *l, size_t from, size_t to, int64_t *in, int64_t *out)
{
    int hta = l->cfg->compat == LS_HTA;
    for (size_t i = from; i < to; i++) {
        uint32_t a = l->acts[i];
        in[i - from] = ls_start(l, (uint32_t)l->launcher[a]);
        out[i - from] = hta ? ls_start(l, a) : ls_end(l, a);
    }
}

/* Values after each change into v; the time-weighted mean and the time at
 * >= full (the SDK's) into q. */
static void walk(const tp_queue_point *p, size_t m, int64_t full, double *v, ls_queue_stats *q)
{
    double area = 0;
    q->full_ns = tp_queue_time_at_least(p, m, full);
    for (size_t i = 0; i < m; i++) {
        v[i] = (double)p[i].depth;
        if (i + 1 < m)
            area += (double)p[i].depth * (double)(p[i + 1].t - p[i].t);
    }
    int64_t span = m ? p[m - 1].t - p[0].t : 0;
    q->mean = span > 0 ? area / (double)span : NAN;
}

int ls_queue_of(const ls *l, size_t from, size_t to, ls_queue_stats *q)
{
    size_t n = to - from, m = 2 * n;
    int64_t *in = tp_malloc((n ? n : 1) * sizeof *in), *out = tp_malloc((n ? n : 1) * sizeof *out);
    double *v = tp_malloc((m ? m : 1) * sizeof *v);
    tp_queue_point *e = NULL;
    int rc = in && out && v ? TP_OK : TP_ENOMEM;
    int hta = l->cfg->compat == LS_HTA;
    if (rc == TP_OK) {
        edges_of(l, from, to, in, out);
        rc = tp_queue_series(in, out, n, hta ? TP_QUEUE_ENTRIES_FIRST : TP_QUEUE_LEAVES_FIRST, &e);
    }
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
    free(e);
    tp_free(in);
    tp_free(out);
    tp_free(v);
    return rc;
}
