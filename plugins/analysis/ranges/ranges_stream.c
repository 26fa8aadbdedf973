/* ranges: GPU activities by stream and start, with prefix sums of their
 * durations: a GPU range's work in two binary searches (issue 32). */
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
