/*
 * hierarchy: linking GPU activity (kernels, memcpys, memsets) to the runtime
 * call that launched it.
 *
 * First by correlation id: any RUNTIME event with the activity's corr (the
 * outermost one when several share it, e.g. cudaLaunchKernel around
 * cuLaunchKernel).  Activities still unlinked, and those whose id has
 * launches in several processes (merged traces restart ids per process),
 * fall back on flow events: an 's' flow at a runtime event's (pid, tid, ts)
 * and an 'f' flow with the same id at the activity's (pid, tid, ts) link
 * the two.  Flow ids are not unique either (fwdbwd flows reuse small ids),
 * so every 's' with the id is tried.
 */
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>

#include "hier_internal.h"
#include "hier_sort.h"

/* A sort key: (a, b) then row.  16 bytes, so the key arrays stay small. */
typedef struct link_key {
    int64_t a;    /* correlation id, flow id, or ts */
    int32_t b;    /* depth (outermost first) or thread rank, 0 if unused */
    uint32_t row;
} link_key;

static inline int link_key_less(const void *ctx, const link_key *p, const link_key *q)
{
    (void)ctx;
    if (p->a != q->a)
        return p->a < q->a;
    if (p->b != q->b)
        return p->b < q->b;
    return p->row < q->row;
}

HIER_DEFINE_SORT(link_sort, link_key, const void *, link_key_less)

/* The first entry with keys (a, b), or -1. */
static int64_t find_key(const link_key *k, size_t n, int64_t a, int32_t b)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const link_key *m = &k[mid];
        if (m->a < a || (m->a == a && m->b < b))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && k[lo].a == a && k[lo].b == b)
        return (int64_t)lo;
    return -1;
}

/* The first entry whose first key is a, or -1. */
static int64_t first_with_a(const link_key *k, size_t n, int64_t a)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k[mid].a < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < n && k[lo].a == a) ? (int64_t)lo : -1;
}

static int is_activity(uint8_t k)
{
    return k == TP_KIND_KERNEL || k == TP_KIND_MEMCPY || k == TP_KIND_MEMSET;
}

/* True if the runtime events sharing rt[at]'s corr id lie in several pids. */
static int several_pids(const tp_cols *c, const link_key *rt, size_t nrt, size_t at)
{
    int64_t pid = tp_ev_pid(c, rt[at].row);
    for (size_t k = at + 1; k < nrt && rt[k].a == rt[at].a; k++)
        if (tp_ev_pid(c, rt[k].row) != pid)
            return 1;
    return 0;
}

/* Runtime events by correlation id, outermost first. */
static int link_by_corr(hier *h, size_t *unlinked)
{
    const tp_cols *c = h->c;
    link_key *rt = tp_malloc((c->n ? c->n : 1) * sizeof *rt);
    if (rt == NULL)
        return TP_ENOMEM;
    size_t nrt = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (c->kind[i] != TP_KIND_RUNTIME || tp_ev_corr(c, i) == TP_NONE)
            continue;
        int32_t d = h->depth[i] < 0 ? INT32_MAX : h->depth[i];
        rt[nrt++] = (link_key){tp_ev_corr(c, i), d, (uint32_t)i};
    }
    if (link_sort(NULL, rt, nrt) != TP_OK) {
        tp_free(rt);
        return TP_ENOMEM;
    }
    for (size_t i = 0; i < c->n; i++) {
        if (!is_activity(c->kind[i]))
            continue;
        int64_t at = tp_ev_corr(c, i) == TP_NONE ? -1 : first_with_a(rt, nrt, tp_ev_corr(c, i));
        if (at < 0) {
            (*unlinked)++;
            continue;
        }
        h->launcher[i] = (int32_t)rt[at].row;
        if (several_pids(c, rt, nrt, (size_t)at)) {
            h->amb[i] = 1;
            h->ambiguous++;
            (*unlinked)++; /* let the flow pass try for the exact launch */
        }
    }
    tp_free(rt);
    return TP_OK;
}

/* The (pid, tid) rank of row i as a key: a flow and the event it binds to
 * share (pid, tid) but not always a track (GPU tracks carry device and
 * stream, flow events do not). */
static int32_t thread_rank(const hier *h, size_t i)
{
    return (int32_t)hier_thread_of(h, i);
}

/* Flow fallback for activities the correlation ids did not link. */
static int link_by_flows(hier *h)
{
    const tp_cols *c = h->c;
    size_t n = c->n ? c->n : 1, nrt = 0, ngpu = 0, ns = 0;
    link_key *rt = tp_malloc(n * sizeof *rt), *gpu = tp_malloc(n * sizeof *gpu);
    link_key *starts = tp_malloc(n * sizeof *starts);
    int rc = (rt && gpu && starts) ? TP_OK : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < c->n; i++) {
        if (c->kind[i] == TP_KIND_RUNTIME && c->phase[i] == 'X')
            rt[nrt++] = (link_key){c->ts[i], thread_rank(h, i), (uint32_t)i};
        else if (is_activity(c->kind[i]) && (h->launcher[i] < 0 || h->amb[i]))
            gpu[ngpu++] = (link_key){c->ts[i], thread_rank(h, i), (uint32_t)i};
        else if (c->kind[i] == TP_KIND_FLOW && c->phase[i] == 's' && tp_ev_flow_id(c, i) != TP_NONE)
            starts[ns++] = (link_key){tp_ev_flow_id(c, i), 0, (uint32_t)i};
    }
    if (rc == TP_OK) {
        if (link_sort(NULL, rt, nrt) != TP_OK || link_sort(NULL, gpu, ngpu) != TP_OK ||
            link_sort(NULL, starts, ns) != TP_OK)
            rc = TP_ENOMEM;
    }
    for (size_t i = 0; rc == TP_OK && ngpu > 0 && i < c->n; i++) {
        if (c->kind[i] != TP_KIND_FLOW || c->phase[i] != 'f' || tp_ev_flow_id(c, i) == TP_NONE)
            continue;
        int64_t s = first_with_a(starts, ns, tp_ev_flow_id(c, i));
        int64_t g = find_key(gpu, ngpu, c->ts[i], thread_rank(h, i));
        if (s < 0 || g < 0)
            continue;
        uint32_t gr = gpu[g].row;
        if (h->launcher[gr] >= 0 && !h->amb[gr])
            continue; /* linked by an earlier flow */
        for (size_t k = (size_t)s; k < ns && starts[k].a == tp_ev_flow_id(c, i); k++) {
            uint32_t srow = starts[k].row;
            int64_t r = find_key(rt, nrt, c->ts[srow], thread_rank(h, srow));
            if (r >= 0) {
                h->launcher[gr] = (int32_t)rt[r].row;
                h->amb[gr] = 0;
                break;
            }
        }
    }
    tp_free(rt);
    tp_free(gpu);
    tp_free(starts);
    return rc;
}

static int count_links(hier *h)
{
    const tp_cols *c = h->c;
    uint8_t *seen = tp_calloc(c->n ? c->n : 1, 1);
    if (seen == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < c->n; i++) {
        if (!is_activity(c->kind[i]))
            continue;
        int32_t l = h->launcher[i];
        if (l < 0) {
            h->gpu_unlinked++;
            continue;
        }
        h->gpu_linked++;
        if (!seen[l]) {
            seen[l] = 1;
            h->launches_linked++;
        }
    }
    tp_free(seen);
    return TP_OK;
}

int hier_link_launches(hier *h)
{
    size_t unlinked = 0;
    h->amb = tp_calloc(h->c->n ? h->c->n : 1, 1);
    if (h->amb == NULL)
        return TP_ENOMEM;
    int rc = link_by_corr(h, &unlinked);
    if (rc == TP_OK && unlinked > 0)
        rc = link_by_flows(h);
    if (rc == TP_OK)
        rc = count_links(h);
    int64_t still = 0;
    for (size_t i = 0; i < h->c->n; i++)
        still += h->amb[i];
    if (h->ambiguous > 0)
        tp_log(h->st, TP_LOG_WARN,
               "%lld GPU activities share their correlation id with launches in several "
               "processes (a merged trace?); %lld linked by flows, %lld to the outermost launch",
               (long long)h->ambiguous, (long long)(h->ambiguous - still), (long long)still);
    tp_free(h->amb);
    h->amb = NULL;
    return rc;
}
