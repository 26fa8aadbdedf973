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

typedef struct link_key {
    int64_t a, b, c; /* sort keys */
    int64_t row;
} link_key;

static int link_key_cmp(const void *x, const void *y)
{
    const link_key *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    if (p->c != q->c)
        return p->c < q->c ? -1 : 1;
    return p->row < q->row ? -1 : p->row > q->row;
}

static inline int link_key_less(const link_key *p, const link_key *q)
{
    return link_key_cmp(p, q) < 0;
}

HIER_DEFINE_SORT(link_sort, link_key, link_key_less)

/* The first entry with keys (a, b, c), or -1. */
static int64_t find_key(const link_key *k, size_t n, int64_t a, int64_t b, int64_t c)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const link_key *m = &k[mid];
        int less = m->a < a || (m->a == a && (m->b < b || (m->b == b && m->c < c)));
        if (less)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && k[lo].a == a && k[lo].b == b && k[lo].c == c)
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
    int64_t pid = c->pid[rt[at].row];
    for (size_t k = at + 1; k < nrt && rt[k].a == rt[at].a; k++)
        if (c->pid[rt[k].row] != pid)
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
        if (c->kind[i] != TP_KIND_RUNTIME || c->corr[i] == TP_NONE)
            continue;
        int64_t d = h->depth[i] < 0 ? INT64_MAX : h->depth[i];
        rt[nrt++] = (link_key){c->corr[i], d, 0, (int64_t)i};
    }
    if (link_sort(rt, nrt) != TP_OK) {
        tp_free(rt);
        return TP_ENOMEM;
    }
    for (size_t i = 0; i < c->n; i++) {
        if (!is_activity(c->kind[i]))
            continue;
        int64_t at = c->corr[i] == TP_NONE ? -1 : first_with_a(rt, nrt, c->corr[i]);
        if (at < 0) {
            (*unlinked)++;
            continue;
        }
        h->launcher[i] = rt[at].row;
        if (several_pids(c, rt, nrt, (size_t)at)) {
            h->amb[i] = 1;
            h->ambiguous++;
            (*unlinked)++; /* let the flow pass try for the exact launch */
        }
    }
    tp_free(rt);
    return TP_OK;
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
            rt[nrt++] = (link_key){c->pid[i], c->tid[i], c->ts[i], (int64_t)i};
        else if (is_activity(c->kind[i]) && (h->launcher[i] < 0 || h->amb[i]))
            gpu[ngpu++] = (link_key){c->pid[i], c->tid[i], c->ts[i], (int64_t)i};
        else if (c->kind[i] == TP_KIND_FLOW && c->phase[i] == 's' && c->flow_id[i] != TP_NONE)
            starts[ns++] = (link_key){c->flow_id[i], 0, 0, (int64_t)i};
    }
    if (rc == TP_OK) {
        if (link_sort(rt, nrt) != TP_OK || link_sort(gpu, ngpu) != TP_OK ||
            link_sort(starts, ns) != TP_OK)
            rc = TP_ENOMEM;
    }
    for (size_t i = 0; rc == TP_OK && ngpu > 0 && i < c->n; i++) {
        if (c->kind[i] != TP_KIND_FLOW || c->phase[i] != 'f' || c->flow_id[i] == TP_NONE)
            continue;
        int64_t s = first_with_a(starts, ns, c->flow_id[i]);
        int64_t g = find_key(gpu, ngpu, c->pid[i], c->tid[i], c->ts[i]);
        if (s < 0 || g < 0)
            continue;
        int64_t gr = gpu[g].row;
        if (h->launcher[gr] >= 0 && !h->amb[gr])
            continue; /* linked by an earlier flow */
        for (size_t k = (size_t)s; k < ns && starts[k].a == c->flow_id[i]; k++) {
            size_t srow = (size_t)starts[k].row;
            int64_t r = find_key(rt, nrt, c->pid[srow], c->tid[srow], c->ts[srow]);
            if (r >= 0) {
                h->launcher[gr] = rt[r].row;
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
        int64_t l = h->launcher[i];
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
