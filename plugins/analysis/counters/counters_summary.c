/*
 * analysis `counters`: <id>.summary, per stream its launches and the
 * distribution of its copies' bandwidths, one value per copy
 * (docs/plugins/counters.md).  The queue series' distribution and the time
 * at a full queue are launch_stats.queue's (CONVENTIONS: it owns them).
 */
#include <math.h>
#include <stdlib.h>

#include "counters.h"

int cn_sum_copies(cn *k, uint32_t track, double *gbps, size_t n, int64_t bytes, int64_t ns)
{
    tp_stats s;
    int rc = tp_stats_of(gbps, n, &s);
    if (rc != TP_OK)
        return rc;
    cn_sum *u = &k->sums[track];
    u->copies = (int64_t)n;
    u->copy_bytes = bytes;
    u->copy_ns = ns;
    u->p50_gbps = s.p50;
    u->p90_gbps = s.p90;
    u->max_gbps = s.max;
    return TP_OK;
}

static int set_f64(cn *k, tp_result *r, size_t row, int col, double v, int rc)
{
    return rc || isnan(v) ? rc : tp_result_set_f64(k->st, r, row, col, v);
}

static int sum_row(cn *k, tp_result *r, uint32_t track)
{
    const tp_track *tr = &k->c->tracks[track];
    const cn_sum *u = &k->sums[track];
    size_t row;
    int rc = tp_result_add_row(k->st, r, &row);
    rc = rc ? rc : tp_result_set_i64(k->st, r, row, cn_s_pid, tr->pid);
    if (rc == TP_OK && tr->device >= 0)
        rc = tp_result_set_i64(k->st, r, row, cn_s_device, tr->device);
    rc = rc ? rc : tp_result_set_i64(k->st, r, row, cn_s_stream, tr->stream);
    rc = rc ? rc : tp_result_set_i64(k->st, r, row, cn_s_n_launches, u->launches);
    rc = rc ? rc : tp_result_set_i64(k->st, r, row, cn_s_n_copies, u->copies);
    rc = rc ? rc : tp_result_set_i64(k->st, r, row, cn_s_copy_bytes, u->copy_bytes);
    if (rc == TP_OK && u->copies > 0) {
        rc = set_f64(k, r, row, cn_s_p50_memcpy_gbps, u->p50_gbps, rc);
        rc = set_f64(k, r, row, cn_s_p90_memcpy_gbps, u->p90_gbps, rc);
        rc = set_f64(k, r, row, cn_s_max_memcpy_gbps, u->max_gbps, rc);
        rc = set_f64(k, r, row, cn_s_memcpy_gbps,
                     u->copy_ns > 0 ? (double)u->copy_bytes / (double)u->copy_ns : NAN, rc);
    }
    return rc;
}

static int by_stream(const void *a, const void *b, void *ctx)
{
    const tp_track *t = ctx, *x = &t[*(const uint32_t *)a], *y = &t[*(const uint32_t *)b];
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

int cn_write_summary(cn *k)
{
    tp_result *r = tp_result_declared(k->st, "summary");
    size_t n = 0, nt = k->c->n_tracks;
    uint32_t *order = malloc((nt ? nt : 1) * sizeof *order);
    int rc = r && order ? TP_OK : TP_ENOMEM;
    for (uint32_t i = 0; rc == TP_OK && i < nt; i++)
        if (k->sums[i].launches > 0 || k->sums[i].copies > 0)
            order[n++] = i;
    if (rc == TP_OK) {
        tp_result_set_meta(k->st, r, "title", "Per stream: launches and memcpy bandwidth");
        rc = tp_sort(order, n, sizeof *order, by_stream, (void *)(uintptr_t)k->c->tracks);
    }
    for (size_t i = 0; rc == TP_OK && i < n; i++)
        rc = sum_row(k, r, order[i]);
    free(order);
    return rc;
}
