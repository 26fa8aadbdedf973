/* advice: the rules over each device's GPU timeline (TraceLens' agent
 * thresholds, Nsight Systems' gap and utilisation rules).  A device's
 * figures are over its own span, first activity start to last end, as
 * TraceLens' GPU timeline (CONVENTIONS: idle over the group's own span). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "advice.h"

enum { ANY_CLASS = -1, MEMCPY_ONLY = -2 };

static int wanted(adv *a, uint32_t row, int only)
{
    if (only == ANY_CLASS)
        return 1;
    if (only == MEMCPY_ONLY)
        return adv_is_memcpy(a, row);
    return (int)adv_class(a, row) == only;
}

/* The union of device d's activities of class `only` (ANY_CLASS,
 * MEMCPY_ONLY or a tp_kernel_class): *u new, *n intervals, *count events. */
static int dev_union(adv *a, const adv_device *d, int only, tp_interval **u, size_t *n,
                     size_t *count)
{
    *u = tp_malloc((d->n ? d->n : 1) * sizeof **u);
    if (*u == NULL)
        return TP_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < d->n; i++) {
        uint32_t r = d->rows[i];
        if (wanted(a, r, only))
            (*u)[k++] = (tp_interval){a->c->ts[r], a->c->ts[r] + a->c->dur[r]};
    }
    if (count)
        *count = k;
    *n = tp_intervals_union(*u, k);
    return TP_OK;
}

static void dev_span(const adv *a, const adv_device *d, int64_t *lo, int64_t *hi)
{
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (size_t i = 0; i < d->n; i++) {
        uint32_t r = d->rows[i];
        *lo = a->c->ts[r] < *lo ? a->c->ts[r] : *lo;
        *hi = a->c->ts[r] + a->c->dur[r] > *hi ? a->c->ts[r] + a->c->dur[r] : *hi;
    }
}

/* A device's timeline: the union of its activities (u borrowed, n
 * intervals; built once per device, kept on d, for the rules that read it)
 * and its span [lo, hi). */
typedef struct dev_tl {
    const tp_interval *u;
    size_t n;
    int64_t lo, hi;
} dev_tl;

static int dev_timeline(adv *a, adv_device *d, dev_tl *tl)
{
    dev_span(a, d, &tl->lo, &tl->hi);
    if (d->busy == NULL) {
        int rc = dev_union(a, d, ANY_CLASS, &d->busy, &d->nbusy, NULL);
        if (rc != TP_OK)
            return rc;
    }
    tl->u = d->busy;
    tl->n = d->nbusy;
    return TP_OK;
}

static void dev_where(const adv_device *d, char *buf, size_t size)
{
    snprintf(buf, size, "device %lld", (long long)d->device);
}

static double pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : NAN;
}

static int no_gpu(adv *a)
{
    return a->ndev == 0 ? adv_skip(a, "the trace has no GPU activity (kernels, memcpys, memsets)")
                        : TP_OK;
}

/* Runs a device rule on every device (after the info row of a trace
 * without GPU activity); a rule may fill the device's caches (busy). */
static int each_device(adv *a, int (*rule)(adv *a, adv_device *d))
{
    int rc = no_gpu(a);
    for (size_t k = 0; rc == TP_OK && k < a->ndev; k++)
        rc = rule(a, &a->dev[k]);
    return rc;
}

/* ------------------------------------------------------------ gpu_idle */

static int idle_device(adv *a, adv_device *d)
{
    dev_tl tl;
    int rc = dev_timeline(a, d, &tl);
    if (rc != TP_OK)
        return rc;
    int64_t lo = tl.lo, hi = tl.hi;
    int64_t busy = tp_intervals_length(tl.u, tl.n), idle = hi - lo - busy;
    double p = pct(idle, hi - lo);
    if (!(p > a->cfg->idle_percent))
        return TP_OK;
    char where[64];
    dev_where(d, where, sizeof where);
    return adv_emit(a, ADV_FIGS(-1, adv_us(idle), p, adv_rel_us(a, lo), adv_rel_us(a, hi)), where,
                    "the GPU is idle much of the time",
                    "idle %.1f us of a %.1f us span (%.2f %% > %g %%); busy %.1f us", adv_us(idle),
                    adv_us(hi - lo), p, a->cfg->idle_percent, adv_us(busy));
}

int adv_gpu_idle(adv *a) { return each_device(a, idle_device); }

/* -------------------------------------------------- communication rules */

/* Device d's communication figures, computed on the first rule asking. */
static int comm_of(adv *a, adv_device *d, const adv_comm **out)
{
    *out = &d->comm;
    if (d->comm_done)
        return TP_OK;
    tp_interval *comm, *comp;
    size_t nm, nc, count;
    int rc = dev_union(a, d, TP_KCLASS_COMMUNICATION, &comm, &nm, &count);
    if (rc != TP_OK)
        return rc;
    if ((rc = dev_union(a, d, TP_KCLASS_COMPUTATION, &comp, &nc, NULL)) != TP_OK) {
        tp_free(comm);
        return rc;
    }
    d->comm.comm = tp_intervals_length(comm, nm);
    d->comm.exposed = d->comm.comm - tp_intervals_overlap(comm, nm, comp, nc);
    d->comm.count = count;
    dev_span(a, d, &d->comm.lo, &d->comm.hi);
    d->comm_done = 1;
    tp_free(comm);
    tp_free(comp);
    return TP_OK;
}

static int any_comm(adv *a)
{
    for (size_t k = 0; k < a->ndev; k++)
        for (size_t i = 0; i < a->dev[k].n; i++)
            if (adv_class(a, a->dev[k].rows[i]) == TP_KCLASS_COMMUNICATION)
                return 1;
    return 0;
}

typedef int (*comm_rule)(adv *a, const adv_device *d, const adv_comm *f);

static int each_comm_device(adv *a, comm_rule rule)
{
    if (a->ndev == 0)
        return no_gpu(a);
    if (!any_comm(a))
        return adv_skip(a, "no communication kernels (collectives of the vocabulary) in the trace");
    int rc = TP_OK;
    for (size_t k = 0; rc == TP_OK && k < a->ndev; k++) {
        const adv_comm *f;
        rc = comm_of(a, &a->dev[k], &f);
        if (rc == TP_OK && f->count > 0)
            rc = rule(a, &a->dev[k], f);
    }
    return rc;
}

static int exposed_rule(adv *a, const adv_device *d, const adv_comm *f)
{
    double p = pct(f->exposed, f->hi - f->lo);
    if (!(p > a->cfg->exposed_comm_percent))
        return TP_OK;
    char where[64];
    dev_where(d, where, sizeof where);
    return adv_emit(a, ADV_FIGS((int64_t)f->count, adv_us(f->exposed), p, adv_rel_us(a, f->lo),
                                adv_rel_us(a, f->hi)),
                    where, "communication runs exposed: no computation hides it",
                    "exposed %.1f us of %.1f us communication, %.2f %% of a %.1f us span "
                    "(> %g %%), %zu kernels",
                    adv_us(f->exposed), adv_us(f->comm), p, adv_us(f->hi - f->lo),
                    a->cfg->exposed_comm_percent, f->count);
}

int adv_exposed_comm(adv *a) { return each_comm_device(a, exposed_rule); }

static int overlap_rule(adv *a, const adv_device *d, const adv_comm *f)
{
    double p = pct(f->comm - f->exposed, f->comm);
    if (!(p < a->cfg->overlap_percent))
        return TP_OK;
    char where[64];
    dev_where(d, where, sizeof where);
    return adv_emit(a, ADV_FIGS((int64_t)f->count, adv_us(f->comm), p, adv_rel_us(a, f->lo),
                                adv_rel_us(a, f->hi)),
                    where, "communication overlaps computation too little",
                    "%.1f us of %.1f us communication overlaps computation (%.2f %% < %g %%)",
                    adv_us(f->comm - f->exposed), adv_us(f->comm), p, a->cfg->overlap_percent);
}

int adv_comm_overlap(adv *a) { return each_comm_device(a, overlap_rule); }

/* --------------------------------------------------------- memcpy_share */

/* The most copies device d runs in one iteration (a copy's iteration is
 * its launching call's, its own start's without one; iterations the
 * pipeline's skip_first / skip_last leave out do not count); the trace's
 * count when no iteration counts. */
static int most_per_iteration(adv *a, const adv_device *d, size_t total, int64_t *most,
                              int64_t *step)
{
    tp_iter_view *v = &a->iter;
    *most = (int64_t)total;
    *step = -1;
    if (v->first >= v->last) /* no iterations, or none counts */
        return TP_OK;
    int rc = tp_iter_view_rows(a->st, a->t, v);
    int64_t *per = rc == TP_OK ? tp_calloc(v->n, sizeof *per) : NULL;
    if (per == NULL)
        return rc ? rc : TP_ENOMEM;
    for (size_t i = 0; i < d->n; i++) {
        uint32_t r = d->rows[i];
        int32_t from = a->hv.launcher[r] >= 0 ? a->hv.launcher[r] : (int32_t)r;
        if (adv_is_memcpy(a, r) && v->row[from] >= 0)
            per[v->row[from]]++;
    }
    *most = 0; /* over the iterations statistics count (skip_first, skip_last) */
    for (size_t k = v->first; k < v->last; k++)
        if (per[k] > *most) {
            *most = per[k];
            *step = v->step[k];
        }
    tp_free(per);
    return TP_OK;
}

static int memcpy_device(adv *a, adv_device *d)
{
    tp_interval *u;
    size_t n, count;
    int64_t lo, hi, most, step;
    int rc = dev_union(a, d, MEMCPY_ONLY, &u, &n, &count);
    if (rc != TP_OK || count == 0) {
        tp_free(u);
        return rc;
    }
    int64_t busy = tp_intervals_length(u, n);
    tp_free(u);
    dev_span(a, d, &lo, &hi);
    if ((rc = most_per_iteration(a, d, count, &most, &step)) != TP_OK)
        return rc;
    double p = pct(busy, hi - lo);
    if (!(p > a->cfg->memcpy_percent) && most <= a->cfg->memcpy_count)
        return TP_OK;
    char where[96], per[64] = "in the trace";
    if (step >= 0)
        snprintf(per, sizeof per, "in iteration %lld", (long long)step);
    snprintf(where, sizeof where, "device %lld, %s", (long long)d->device, per);
    return adv_emit(a, ADV_FIGS(most, adv_us(busy), p, adv_rel_us(a, lo), adv_rel_us(a, hi)),
                    where, "memory copies take much of the GPU's time or are many",
                    "copies busy %.1f us, %.2f %% of a %.1f us span (threshold %g %%); %lld "
                    "copies %s (threshold %lld), %zu in all",
                    adv_us(busy), p, adv_us(hi - lo), a->cfg->memcpy_percent, (long long)most,
                    per, (long long)a->cfg->memcpy_count, count);
}

int adv_memcpy_share(adv *a) { return each_device(a, memcpy_device); }

/* ------------------------------------------------------------ gpu_gaps */

static int gaps_device(adv *a, adv_device *d)
{
    dev_tl tl;
    int rc = dev_timeline(a, d, &tl);
    const tp_interval *u = tl.u;
    size_t n = rc == TP_OK ? tl.n : 0;
    double min_ns = a->cfg->gap_us * 1000.0;
    for (size_t i = 1; rc == TP_OK && i < n; i++) {
        int64_t gap = u[i].start - u[i - 1].end;
        if ((double)gap < min_ns)
            continue;
        char where[96];
        dev_where(d, where, sizeof where);
        adv_add_iteration(a, u[i - 1].end, where, sizeof where);
        rc = adv_emit(a, ADV_FIGS(1, adv_us(gap), NAN, adv_rel_us(a, u[i - 1].end),
                                  adv_rel_us(a, u[i].start)),
                      where, "the GPU does nothing for a long time",
                      "no GPU activity for %.1f us (>= %g us), from %.1f us to %.1f us",
                      adv_us(gap), a->cfg->gap_us, adv_rel_us(a, u[i - 1].end),
                      adv_rel_us(a, u[i].start));
    }
    return rc;
}

int adv_gpu_gaps(adv *a) { return each_device(a, gaps_device); }

/* ----------------------------------------------------- low_utilization */

/* lo + floor((hi - lo) * k / chunks) without overflowing int64: with
 * hi - lo = q * chunks + r, it is q * k + floor(r * k / chunks). */
static int64_t chunk_bound(int64_t lo, int64_t hi, int64_t k, int64_t chunks)
{
    int64_t q = (hi - lo) / chunks, r = (hi - lo) % chunks;
    return lo + q * k + r * k / chunks;
}

static int util_device(adv *a, adv_device *d)
{
    dev_tl tl;
    int rc = dev_timeline(a, d, &tl);
    if (rc != TP_OK)
        return rc;
    const tp_interval *u = tl.u;
    size_t n = tl.n;
    int64_t lo = tl.lo, hi = tl.hi;
    int64_t chunks = a->cfg->util_chunks, low = 0, worst_lo = 0, worst_hi = 0;
    double worst = INFINITY;
    for (int64_t k = 0; hi > lo && k < chunks; k++) {
        int64_t c0 = chunk_bound(lo, hi, k, chunks), c1 = chunk_bound(lo, hi, k + 1, chunks);
        double p = pct(tp_intervals_within(u, n, c0, c1), c1 - c0);
        if (!(p < a->cfg->util_percent))
            continue;
        low++;
        if (p < worst) {
            worst = p;
            worst_lo = c0;
            worst_hi = c1;
        }
    }
    if (low == 0)
        return TP_OK;
    char where[96];
    dev_where(d, where, sizeof where);
    adv_add_iteration(a, worst_lo, where, sizeof where);
    return adv_emit(a, ADV_FIGS(low, NAN, worst, adv_rel_us(a, worst_lo), adv_rel_us(a, worst_hi)),
                    where, "GPU utilisation is low in parts of the run",
                    "%lld of %lld chunks of %.1f us busy less than %g %%; the lowest %.2f %% "
                    "(%.1f us to %.1f us)",
                    (long long)low, (long long)chunks, adv_us(hi - lo) / (double)chunks,
                    a->cfg->util_percent, worst, adv_rel_us(a, worst_lo),
                    adv_rel_us(a, worst_hi));
}

int adv_low_utilization(adv *a) { return each_device(a, util_device); }
