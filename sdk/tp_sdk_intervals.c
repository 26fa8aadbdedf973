/* Interval unions: see include/tracepipe/tp_sdk_intervals.h. */
#include <stdlib.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_intervals.h>
#include <tracepipe/tp_sdk_sort.h>

#include "tp_sdk_msort.h"

static int by_start(const void *a, const void *b)
{
    const tp_interval *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->end > y->end) - (x->end < y->end);
}

static int interval_less(const void *ctx, const tp_interval *x, const tp_interval *y)
{
    (void)ctx;
    return x->start != y->start ? x->start < y->start : x->end < y->end;
}

/* A natural merge sort: a stream's kernels come in start order and a
 * device's are a few such runs, so the usual input costs a pass or a few
 * merges instead of qsort's n log n. */
TP_MSORT_DEFINE(sort_intervals, tp_interval, const void *, interval_less)

size_t tp_intervals_union(tp_interval *iv, size_t n)
{
    size_t kept = 0;
    for (size_t i = 0; i < n; i++)
        if (iv[i].end > iv[i].start)
            iv[kept++] = iv[i];
    if (sort_intervals(NULL, iv, kept) != TP_OK)
        qsort(iv, kept, sizeof *iv, by_start); /* no memory for the merge: in place */
    size_t out = 0;
    for (size_t i = 0; i < kept; i++) {
        if (out > 0 && iv[i].start <= iv[out - 1].end) {
            if (iv[i].end > iv[out - 1].end)
                iv[out - 1].end = iv[i].end;
        } else {
            iv[out++] = iv[i];
        }
    }
    return out;
}

int64_t tp_intervals_length(const tp_interval *u, size_t n)
{
    int64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += u[i].end - u[i].start;
    return total;
}

int64_t tp_intervals_overlap(const tp_interval *a, size_t na, const tp_interval *b, size_t nb)
{
    int64_t total = 0;
    size_t i = 0, j = 0;
    while (i < na && j < nb) {
        int64_t lo = a[i].start > b[j].start ? a[i].start : b[j].start;
        int64_t hi = a[i].end < b[j].end ? a[i].end : b[j].end;
        if (hi > lo)
            total += hi - lo;
        if (a[i].end < b[j].end)
            i++;
        else
            j++;
    }
    return total;
}

int64_t tp_intervals_within(const tp_interval *u, size_t n, int64_t lo, int64_t hi)
{
    tp_interval w = {lo, hi};
    return hi > lo ? tp_intervals_overlap(u, n, &w, 1) : 0;
}

/* Adds the disjoint interval [s, e) to a union's length and its part
 * inside [lo, hi). */
static void add_disjoint(int64_t s, int64_t e, int64_t lo, int64_t hi, int64_t *length,
                         int64_t *within)
{
    int64_t a = s > lo ? s : lo, b = e < hi ? e : hi;
    *length += e - s;
    if (b > a)
        *within += b - a;
}

int tp_intervals_rows_union(uint32_t *rows, size_t n, const int64_t *ts, const int64_t *dur,
                            int64_t lo, int64_t hi, int64_t *length, int64_t *within)
{
    tp_sort_rows_by_key(rows, n, ts); /* never fails (in place without memory) */
    int64_t len = 0, in = 0, s = 0, e = 0;
    int open = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t rs = ts[rows[i]], re = rs + dur[rows[i]];
        if (re <= rs)
            continue; /* empty or inverted */
        if (open && rs <= e) {
            e = re > e ? re : e;
            continue;
        }
        if (open)
            add_disjoint(s, e, lo, hi, &len, &in);
        s = rs;
        e = re;
        open = 1;
    }
    if (open)
        add_disjoint(s, e, lo, hi, &len, &in);
    *length = len;
    *within = in;
    return TP_OK;
}

/* An interval's end point for the concurrency sweep: ends sort before
 * starts at the same time, so touching intervals never count as overlapping. */
typedef struct edge {
    int64_t t;
    int delta; /* +1 start, -1 end */
} edge;

static int by_time(const void *a, const void *b)
{
    const edge *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->delta > y->delta) - (x->delta < y->delta);
}

static int edge_less(const void *ctx, const edge *x, const edge *y)
{
    (void)ctx;
    return x->t != y->t ? x->t < y->t : x->delta < y->delta;
}

TP_MSORT_DEFINE(sort_edges, edge, const void *, edge_less)

int64_t tp_intervals_at_least(const tp_interval *iv, size_t n, int k)
{
    edge *e = tp_malloc(2 * (n ? n : 1) * sizeof *e);
    if (e == NULL)
        return -1;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (iv[i].end > iv[i].start) {
            e[m++] = (edge){iv[i].start, +1};
            e[m++] = (edge){iv[i].end, -1};
        }
    if (sort_edges(NULL, e, m) != TP_OK)
        qsort(e, m, sizeof *e, by_time);
    int64_t total = 0;
    int depth = 0;
    for (size_t i = 0; i < m; i++) {
        if (depth >= k && i > 0)
            total += e[i].t - e[i - 1].t;
        depth += e[i].delta;
    }
    tp_free(e);
    return total;
}
