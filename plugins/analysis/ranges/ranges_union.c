/* ranges: busy time of activity sets given as segments of one order of the
 * activities (ranges_union.h; issue 32). */
#include "ranges_union.h"
#include <tracepipe/tp_sdk_sort.h>

#include <tracepipe/tp_sdk.h>

#define LOWER_BOUND(a, lo, hi, key)                                                                \
    while (lo < hi) {                                                                              \
        size_t mid = lo + (hi - lo) / 2;                                                           \
        if (a[mid] < key)                                                                          \
            lo = mid + 1;                                                                          \
        else                                                                                       \
            hi = mid;                                                                              \
    }                                                                                              \
    return lo

size_t rg_lower_u32(const uint32_t *a, size_t lo, size_t hi, uint32_t key)
{
    LOWER_BOUND(a, lo, hi, key);
}

static int by_end(const void *x, const void *y, void *ctx)
{
    const rg_seg *q = ctx;
    uint32_t a = q[*(const uint32_t *)x].hi, b = q[*(const uint32_t *)y].hi;
    return (a > b) - (a < b);
}

/* The queries' indexes in the order of their ends. */
static uint32_t *by_ends(const rg_seg *q, size_t nq)
{
    uint32_t *ord = tp_malloc((nq ? nq : 1) * sizeof *ord);
    for (size_t j = 0; ord != NULL && j < nq; j++)
        ord[j] = (uint32_t)j;
    if (ord != NULL && tp_sort(ord, nq, sizeof *ord, by_end, (void *)q) != TP_OK) {
        tp_free(ord);
        return NULL;
    }
    return ord;
}

int rg_range_min(const int64_t *v, size_t n, const rg_seg *q, size_t nq, int64_t *out)
{
    uint32_t *ord = by_ends(q, nq), *stk = tp_malloc((n ? n : 1) * sizeof *stk);
    int rc = ord && stk ? TP_OK : TP_ENOMEM;
    size_t sp = 0, i = 0; /* stk: indexes < i whose value is below every later one's */
    for (size_t k = 0; k < nq && rc == TP_OK; k++) {
        const rg_seg *s = &q[ord[k]];
        for (; i < s->hi; stk[sp++] = (uint32_t)i, i++)
            while (sp > 0 && v[stk[sp - 1]] >= v[i])
                sp--;
        /* the first stacked index >= s->lo holds the minimum */
        out[ord[k]] = v[stk[rg_lower_u32(stk, 0, sp, s->lo)]];
    }
    tp_free(ord);
    tp_free(stk);
    return rc;
}

/* ------------------------------------------------ the latest-cover sweep */

#define RG_BLANK (-1) /* no activity covers the node's time */
#define RG_MIXED (-2) /* the node's time has several latest activities */

typedef struct rg_sweep {
    int64_t *xs;  /* the activities' distinct starts and ends, ascending */
    size_t m;
    int32_t *col; /* per segment-tree node over [xs[i], xs[i + 1]): latest activity */
    int64_t *fen; /* Fenwick tree over activities: the time each is the latest for */
    size_t nf;
} rg_sweep;

static void fen_add(rg_sweep *w, size_t i, int64_t d)
{
    for (i++; i <= w->nf; i += i & (~i + 1))
        w->fen[i - 1] += d;
}

static int64_t fen_sum(const rg_sweep *w, size_t i) /* over activities [0, i) */
{
    int64_t s = 0;
    for (; i > 0; i -= i & (~i + 1))
        s += w->fen[i - 1];
    return s;
}

/* Activity p becomes the latest over [xs[ql], xs[qr]) (node covers [l, r)):
 * the activities it replaces lose that time.  Amortised O(log m): each
 * paint leaves at most two more runs of one colour. */
static void paint(rg_sweep *w, size_t node, size_t l, size_t r, size_t ql, size_t qr, int32_t p)
{
    if (qr <= l || r <= ql)
        return;
    if (ql <= l && r <= qr && w->col[node] != RG_MIXED) {
        if (w->col[node] >= 0)
            fen_add(w, (size_t)w->col[node], -(w->xs[r] - w->xs[l]));
        w->col[node] = p;
        return;
    }
    size_t mid = l + (r - l) / 2, a = 2 * node + 1, b = 2 * node + 2;
    if (w->col[node] != RG_MIXED)
        w->col[a] = w->col[b] = w->col[node];
    paint(w, a, l, mid, ql, qr, p);
    paint(w, b, mid, r, ql, qr, p);
    w->col[node] = w->col[a] == w->col[b] ? w->col[a] : RG_MIXED;
}

static size_t x_index(const rg_sweep *w, int64_t x)
{
    return tp_lower_bound_i64(w->xs, w->m, sizeof *w->xs, 0, x);
}

static int by_i64(const void *x, const void *y, void *ctx)
{
    (void)ctx;
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int sweep_open(rg_sweep *w, const tp_cols *c, const uint32_t *act, size_t nact)
{
    w->xs = tp_malloc((2 * nact + 1) * sizeof *w->xs);
    w->fen = tp_calloc(nact + 1, sizeof *w->fen);
    w->col = tp_malloc((8 * nact + 4) * sizeof *w->col);
    w->nf = nact;
    w->m = 0;
    if (w->xs == NULL || w->fen == NULL || w->col == NULL)
        return TP_ENOMEM;
    for (size_t p = 0; p < nact; p++)
        if (c->dur[act[p]] > 0) {
            w->xs[w->m++] = c->ts[act[p]];
            w->xs[w->m++] = c->ts[act[p]] + c->dur[act[p]];
        }
    int rc = tp_sort(w->xs, w->m, sizeof *w->xs, by_i64, NULL);
    size_t u = 0;
    for (size_t i = 0; i < w->m; i++)
        if (u == 0 || w->xs[u - 1] != w->xs[i])
            w->xs[u++] = w->xs[i];
    w->m = u;
    for (size_t i = 0; i < 8 * nact + 4; i++)
        w->col[i] = RG_BLANK;
    return rc;
}

static void sweep_add(rg_sweep *w, const tp_cols *c, uint32_t row, size_t p)
{
    if (c->dur[row] <= 0 || w->m < 2)
        return;
    size_t ql = x_index(w, c->ts[row]), qr = x_index(w, c->ts[row] + c->dur[row]);
    paint(w, 0, 0, w->m - 1, ql, qr, (int32_t)p);
    fen_add(w, p, c->dur[row]);
}

static void sweep_close(rg_sweep *w)
{
    tp_free(w->xs);
    tp_free(w->fen);
    tp_free(w->col);
}

/* busy[set] += the union of each single segment: after act[0, hi) the time
 * whose latest activity lies in [lo, hi) is the union of act[lo, hi). */
static int single_unions(const tp_cols *c, const uint32_t *act, size_t nact, const rg_seg *q,
                         size_t nq, int64_t *busy)
{
    rg_sweep w = {0};
    uint32_t *ord = by_ends(q, nq);
    int rc = ord ? sweep_open(&w, c, act, nact) : TP_ENOMEM;
    size_t p = 0;
    for (size_t k = 0; k < nq && rc == TP_OK; k++) {
        const rg_seg *s = &q[ord[k]];
        for (; p < s->hi; p++)
            sweep_add(&w, c, act[p], p);
        busy[s->set] += fen_sum(&w, s->hi) - fen_sum(&w, s->lo);
    }
    sweep_close(&w);
    tp_free(ord);
    return rc;
}

/* ------------------------------------------------------- the segments */

/* A segment with its activities' time span [b, e). */
typedef struct rg_spanned {
    rg_seg s;
    int64_t b, e;
} rg_spanned;

static int by_set_start(const void *x, const void *y, void *ctx)
{
    (void)ctx;
    const rg_spanned *a = x, *b = y;
    if (a->s.set != b->s.set)
        return a->s.set < b->s.set ? -1 : 1;
    return (a->b > b->b) - (a->b < b->b);
}

/* Each segment's time span, by two offline range minima. */
static int spans(const tp_cols *c, const uint32_t *act, size_t nact, const rg_seg *seg,
                 size_t nseg, rg_spanned *out)
{
    int64_t *v = tp_malloc((nact ? nact : 1) * sizeof *v);
    int64_t *m = tp_malloc((nseg ? nseg : 1) * sizeof *m);
    int rc = v && m ? TP_OK : TP_ENOMEM;
    for (size_t p = 0; rc == TP_OK && p < nact; p++)
        v[p] = c->ts[act[p]];
    rc = rc ? rc : rg_range_min(v, nact, seg, nseg, m);
    for (size_t i = 0; rc == TP_OK && i < nseg; i++)
        out[i] = (rg_spanned){seg[i], m[i], 0};
    for (size_t p = 0; rc == TP_OK && p < nact; p++)
        v[p] = -(c->ts[act[p]] + c->dur[act[p]]);
    rc = rc ? rc : rg_range_min(v, nact, seg, nseg, m);
    for (size_t i = 0; rc == TP_OK && i < nseg; i++)
        out[i].e = -m[i];
    tp_free(v);
    tp_free(m);
    return rc;
}

/* busy[set] += the union of the activities of sp[0, n), listed. */
static int listed_union(const tp_cols *c, const uint32_t *act, const rg_spanned *sp, size_t n,
                        int64_t *busy)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += sp[i].s.hi - sp[i].s.lo;
    tp_interval *iv = tp_malloc((k ? k : 1) * sizeof *iv);
    if (iv == NULL)
        return TP_ENOMEM;
    k = 0;
    for (size_t i = 0; i < n; i++)
        for (uint32_t p = sp[i].s.lo; p < sp[i].s.hi; p++)
            iv[k++] = (tp_interval){c->ts[act[p]], c->ts[act[p]] + c->dur[act[p]]};
    busy[sp[0].s.set] += tp_intervals_length(iv, tp_intervals_union(iv, k));
    tp_free(iv);
    return TP_OK;
}

int rg_union_lengths(const tp_cols *c, const uint32_t *act, size_t nact, rg_seg *seg,
                     size_t nseg, int64_t *busy)
{
    size_t n = 0;
    for (size_t i = 0; i < nseg; i++)
        if (seg[i].lo < seg[i].hi)
            seg[n++] = seg[i];
    rg_spanned *sp = tp_malloc((n ? n : 1) * sizeof *sp);
    int rc = sp ? spans(c, act, nact, seg, n, sp) : TP_ENOMEM;
    rc = rc ? rc : tp_sort(sp, n, sizeof *sp, by_set_start, NULL);
    size_t nsingle = 0; /* seg[0, nsingle): the segments alone in their time */
    for (size_t i = 0; i < n && rc == TP_OK;) {
        size_t j = i + 1;
        int64_t e = sp[i].e;
        for (; j < n && sp[j].s.set == sp[i].s.set && sp[j].b < e; j++)
            e = sp[j].e > e ? sp[j].e : e;
        if (j == i + 1)
            seg[nsingle++] = sp[i].s;
        else
            rc = listed_union(c, act, sp + i, j - i, busy);
        i = j;
    }
    tp_free(sp);
    return rc ? rc : single_unions(c, act, nact, seg, nsingle, busy);
}

/* ------------------------------------------- positions by iteration */

void rg_by_iter_close(rg_by_iter *b)
{
    tp_free(b->begin);
    tp_free(b->pos);
    tp_free(b->pre);
    tp_free(b->k);
    tp_free(b->negk);
}

int rg_by_iter_open(const tp_cols *c, const int32_t *launcher, const uint32_t *act, size_t nact,
                    const tp_iterations *it, rg_by_iter *b)
{
    size_t n = nact ? nact : 1;
    b->begin = tp_calloc(it->n + 2, sizeof *b->begin);
    b->pos = tp_malloc(n * sizeof *b->pos);
    b->pre = tp_malloc((n + 1) * sizeof *b->pre);
    b->k = tp_malloc(n * sizeof *b->k);
    b->negk = tp_malloc(n * sizeof *b->negk);
    if (!b->begin || !b->pos || !b->pre || !b->k || !b->negk)
        return TP_ENOMEM;
    for (size_t p = 0; p < nact; p++) {
        int32_t k = tp_iteration_of(it, c->ts[launcher[act[p]]]);
        b->k[p] = k >= 0 ? k : INT64_MAX;
        b->negk[p] = k >= 0 ? -(int64_t)k : 1;
        if (k >= 0)
            b->begin[k + 2]++;
    }
    for (size_t k = 0; k < it->n; k++)
        b->begin[k + 2] += b->begin[k + 1];
    for (size_t p = 0; p < nact; p++)
        if (b->k[p] != INT64_MAX)
            b->pos[b->begin[b->k[p] + 1]++] = (uint32_t)p; /* begin[k + 1]: k's end */
    b->pre[0] = 0;
    for (size_t j = 0; j < b->begin[it->n]; j++)
        b->pre[j + 1] = b->pre[j] + c->dur[act[b->pos[j]]];
    return TP_OK;
}
