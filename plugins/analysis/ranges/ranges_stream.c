/* ranges: GPU activities by stream and start, with prefix sums of their
 * durations: a GPU range's work in two binary searches (issue 32); the host
 * range a GPU range projects. */
#include <stdint.h>
#include <tracepipe/tp_sdk.h>

#include "ranges_stream.h"

size_t rg_lower_bound(const tp_cols *c, const uint32_t *rows, size_t n, rg_cmp cmp,
                      const void *key)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cmp(c, rows[mid], key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Row a against *key, a (pid, tid, time): a stream's rows in start order. */
static int cmp_stream(const tp_cols *c, size_t a, const void *key)
{
    const int64_t *kb = key;
    int64_t ka[3] = {tp_ev_pid(c, a), tp_ev_tid(c, a), c->ts[a]};
    for (int k = 0; k < 3; k++)
        if (ka[k] != kb[k])
            return ka[k] < kb[k] ? -1 : 1;
    return 0;
}

static int by_stream(const void *x, const void *y, void *ctx)
{
    const tp_cols *c = ctx;
    size_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    int64_t kb[3] = {tp_ev_pid(c, b), tp_ev_tid(c, b), c->ts[b]};
    int d = cmp_stream(c, a, kb);
    return d ? d : (a > b) - (a < b);
}

int rg_stream_acts_open(const tp_cols *c, rg_stream_acts *sa)
{
    sa->act = tp_malloc((c->n ? c->n : 1) * sizeof *sa->act);
    sa->pre = tp_malloc((c->n + 1) * sizeof *sa->pre);
    sa->n = 0;
    if (sa->act == NULL || sa->pre == NULL)
        return TP_ENOMEM;
    for (size_t a = 0; a < c->n; a++)
        if (tp_ev_is_activity(c, a))
            sa->act[sa->n++] = (uint32_t)a;
    int rc = tp_sort(sa->act, sa->n, sizeof *sa->act, by_stream, (void *)c);
    sa->pre[0] = 0;
    for (size_t i = 0; i < sa->n; i++)
        sa->pre[i + 1] = sa->pre[i] + c->dur[sa->act[i]];
    return rc;
}

void rg_stream_acts_inside(const tp_cols *c, const rg_stream_acts *sa, size_t x, size_t *lo,
                           size_t *hi)
{
    int64_t k[3] = {tp_ev_pid(c, x), tp_ev_tid(c, x), c->ts[x]};
    *lo = rg_lower_bound(c, sa->act, sa->n, cmp_stream, k);
    k[2] = c->ts[x] + c->dur[x];
    *hi = rg_lower_bound(c, sa->act, sa->n, cmp_stream, k);
}

void rg_stream_acts_close(rg_stream_acts *sa)
{
    tp_free(sa->act);
    tp_free(sa->pre);
}

/* ------------------------------------------ GPU ranges' host ranges */

/* Host ranges by (External id, name id, start, row): where a GPU range
 * finds the one it projects. */
typedef struct rg_ext {
    int64_t ext, ts;
    tp_str name;
} rg_ext;

static int cmp_ext(const tp_cols *c, size_t a, const void *key)
{
    const rg_ext *k = key;
    int64_t ext = tp_ev_ext_id(c, a);
    if (ext != k->ext)
        return ext < k->ext ? -1 : 1;
    if (c->name[a] != k->name)
        return c->name[a] < k->name ? -1 : 1;
    return c->ts[a] < k->ts ? -1 : c->ts[a] > k->ts;
}

static int by_ext(const void *x, const void *y, void *ctx)
{
    const tp_cols *c = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    rg_ext kb = {tp_ev_ext_id(c, b), c->ts[b], c->name[b]};
    int d = cmp_ext(c, a, &kb);
    return d ? d : (a > b) - (a < b);
}

/* The host range GPU range g projects: of the host ranges with its
 * External id and name, the last starting at or before it, else the
 * first; SIZE_MAX when none. */
size_t rg_projected(const tp_cols *c, const uint32_t *host, size_t nh, size_t g)
{
    rg_ext k = {tp_ev_ext_id(c, g), INT64_MIN, c->name[g]};
    if (k.ext == TP_NONE)
        return SIZE_MAX;
    size_t lo = rg_lower_bound(c, host, nh, cmp_ext, &k); /* the first of (ext, name) */
    if (lo == nh || tp_ev_ext_id(c, host[lo]) != k.ext || c->name[host[lo]] != k.name)
        return SIZE_MAX;
    k.ts = c->ts[g];
    size_t best = host[lo];
    for (size_t i = lo + 1; i < nh && cmp_ext(c, host[i], &k) <= 0; i++)
        best = host[i];
    return best;
}

int rg_sort_by_ext(const tp_cols *c, uint32_t *host, size_t nh)
{
    return tp_sort(host, nh, sizeof *host, by_ext, (void *)c);
}
