/*
 * Trace semantics: linking GPU activity (kernels, memcpys, memsets) to the
 * runtime call that launched it.  See tp_link_launches() in
 * include/tracepipe/tp_sdk_trace.h.  Dense correlation ids (Kineto's): a
 * table of the outermost call per id, O(n), 4 bytes per id.  Otherwise
 * sorted 16-byte keys and binary search: O(n log n), four arrays of at most
 * n keys.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_rowset.h>
#include <tracepipe/tp_sdk_sort.h>
#include <tracepipe/tp_sdk_trace.h>

#include "tp_sdk_msort.h"

/* A sort key: (a, b) then row. */
typedef struct link_key {
    int64_t a;    /* correlation id, flow id, or ts */
    int32_t b;    /* thread rank, 0 if unused */
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

TP_MSORT_DEFINE(link_sort, link_key, const void *, link_key_less)

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
    return lo < n && k[lo].a == a && k[lo].b == b ? (int64_t)lo : -1;
}

/* The first entry whose first key is a, or -1. */
static int64_t first_with_a(const link_key *k, size_t n, int64_t a)
{
    size_t lo = tp_lower_bound_i64(k, n, sizeof *k, offsetof(link_key, a), a);
    return lo < n && k[lo].a == a ? (int64_t)lo : -1;
}

/* Depths in the host forest (no cells: not given). */
typedef tp_rowcells link_depth;

/* Is runtime row x more outer than y: by depth in the host forest (rows
 * outside it last) when depths are given, else complete first, then
 * earliest start, then longest; then row. */
static int outer_than(const tp_cols *c, const link_depth *depth, uint32_t x, uint32_t y)
{
    if (depth->cells) {
        int32_t dx = tp_rowcells_at(depth, x), dy = tp_rowcells_at(depth, y);
        dx = dx < 0 ? INT32_MAX : dx;
        dy = dy < 0 ? INT32_MAX : dy;
        return dx != dy ? dx < dy : x < y;
    }
    int cx = tp_ev_is_complete(c, x), cy = tp_ev_is_complete(c, y);
    if (cx != cy)
        return cx;
    return tp_nest_before(c, x, y);
}

/* The launch of a correlation group rt[at..]: its outermost call; *several
 * set when the group's calls lie in several pids. */
static uint32_t outermost(const tp_cols *c, const link_depth *depth, const link_key *rt, size_t nrt,
                          size_t at, int *several)
{
    uint32_t best = rt[at].row;
    int64_t pid = tp_ev_pid(c, best);
    *several = 0;
    for (size_t k = at + 1; k < nrt && rt[k].a == rt[at].a; k++) {
        if (tp_ev_pid(c, rt[k].row) != pid)
            *several = 1;
        if (outer_than(c, depth, rt[k].row, best))
            best = rt[k].row;
    }
    return best;
}

/* For an ambiguous group rt[at..]: the call starting last at or before ts
 * (else the first after it), the outermost among equal starts.  A kernel
 * never starts before its launch, and ranks of a merged trace that reuse
 * an id rarely launch with it at the same moment. */
static uint32_t nearest_launch(const tp_cols *c, const link_depth *depth, const link_key *rt,
                               size_t nrt, size_t at, int64_t ts)
{
    uint32_t best = rt[at].row;
    for (size_t k = at + 1; k < nrt && rt[k].a == rt[at].a; k++) {
        uint32_t r = rt[k].row;
        int64_t tr = c->ts[r], tb = c->ts[best];
        int better;
        if ((tr <= ts) != (tb <= ts))
            better = tr <= ts;
        else if (tr != tb)
            better = tr <= ts ? tr > tb : tr < tb;
        else
            better = outer_than(c, depth, r, best);
        if (better)
            best = r;
    }
    return best;
}

typedef struct linker {
    const tp_cols *c;
    const uint32_t *thread_of;
    link_depth depth;
    int32_t *launcher;
    uint64_t *amb; /* a bit per row: an ambiguous activity (flows may relink it) */
    tp_link_counts n;
} linker;

static int bit_get(const uint64_t *bits, size_t i)
{
    return (int)((bits[i >> 6] >> (i & 63)) & 1);
}

static void bit_put(uint64_t *bits, size_t i, int v)
{
    uint64_t m = (uint64_t)1 << (i & 63);
    bits[i >> 6] = v ? bits[i >> 6] | m : bits[i >> 6] & ~m;
}

/* A runtime call that carries a correlation id. */
static int corr_call(const tp_cols *c, size_t i)
{
    return c->kind[i] == TP_KIND_RUNTIME && tp_ev_corr(c, i) != TP_NONE;
}

/* Are the calls' ids dense enough for a table over their span (at most
 * ~8 bytes per call)?  lo and span set when they are. */
static int corr_dense(size_t nrt, int64_t lo, int64_t hi, uint64_t *span)
{
    /* unsigned: ids spanning the int64 range must not overflow */
    *span = (uint64_t)hi - (uint64_t)lo + 1;
    return nrt > 0 && nrt <= (size_t)INT32_MAX && *span != 0 && *span <= 2 * (uint64_t)nrt + 1024;
}

/* The outermost call per id of dense ids, in one pass without sorting:
 * outer_than is a total order, so the outermost of a group does not depend
 * on the order its calls come in.  0 when a group's calls lie in several
 * pids (then the sorted path decides) or memory is short. */
static int32_t *dense_outermost(const linker *l, int64_t lo, uint64_t span)
{
    const tp_cols *c = l->c;
    int32_t *best = tp_malloc((size_t)span * sizeof *best);
    if (best == NULL)
        return NULL;
    memset(best, 0xff, (size_t)span * sizeof *best);
    for (size_t i = 0; i < c->n; i++) {
        if (!corr_call(c, i))
            continue;
        int32_t *b = &best[(uint64_t)tp_ev_corr(c, i) - (uint64_t)lo];
        if (*b >= 0 && tp_ev_pid(c, (size_t)*b) != tp_ev_pid(c, i)) {
            tp_free(best); /* ambiguous: needs the groups */
            return NULL;
        }
        if (*b < 0 || outer_than(c, &l->depth, (uint32_t)i, (uint32_t)*b))
            *b = (int32_t)i;
    }
    return best;
}

/* Links by dense correlation ids with a table of the outermost call per
 * id (4 bytes per id, nothing sorted: issue 31); 0 when it cannot (sparse
 * ids, an ambiguous group, no memory) and link_by_corr's sorted keys must. */
static int link_dense(linker *l, size_t *unlinked)
{
    const tp_cols *c = l->c;
    size_t nrt = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < c->n; i++) {
        if (!corr_call(c, i))
            continue;
        int64_t id = tp_ev_corr(c, i);
        lo = id < lo ? id : lo;
        hi = id > hi ? id : hi;
        nrt++;
    }
    uint64_t span;
    /* rows past INT32_MAX do not fit the table's cells (a caller without
     * hierarchy's row cap): the sorted path */
    int32_t *best = c->n <= (size_t)INT32_MAX && corr_dense(nrt, lo, hi, &span)
                        ? dense_outermost(l, lo, span) : NULL;
    if (best == NULL)
        return 0;
    for (size_t i = 0; i < c->n; i++) {
        if (!tp_kind_is_activity(c->kind[i]))
            continue;
        int64_t corr = tp_ev_corr(c, i);
        int32_t at = corr == TP_NONE || corr < lo || corr > hi
                         ? -1 : best[(uint64_t)corr - (uint64_t)lo];
        if (at < 0)
            (*unlinked)++;
        else
            l->launcher[i] = at;
    }
    tp_free(best);
    return 1;
}

/* First entries of the sorted runtime keys by correlation id, as a dense
 * table over [lo, lo + span) when the ids are dense enough (at most ~8 bytes
 * per call): one lookup instead of a binary search per activity. */
typedef struct corr_index {
    int32_t *first; /* per id - lo: the first entry with it, or -1; NULL: search */
    int64_t lo;
    size_t span;
} corr_index;

static void corr_index_build(corr_index *ix, const link_key *rt, size_t nrt)
{
    memset(ix, 0, sizeof *ix);
    uint64_t span; /* sorted: the difference is the true distance modulo 2^64 */
    if (!corr_dense(nrt, nrt ? rt[0].a : 0, nrt ? rt[nrt - 1].a : 0, &span))
        return;
    ix->first = tp_malloc((size_t)span * sizeof *ix->first);
    if (ix->first == NULL)
        return; /* the binary search still works */
    ix->lo = rt[0].a;
    ix->span = (size_t)span;
    memset(ix->first, 0xff, ix->span * sizeof *ix->first);
    for (size_t k = nrt; k-- > 0;)
        ix->first[(uint64_t)rt[k].a - (uint64_t)ix->lo] = (int32_t)k;
}

/* The first entry with correlation id a, or -1. */
static int64_t corr_first(const corr_index *ix, const link_key *rt, size_t nrt, int64_t a)
{
    if (ix->first == NULL)
        return first_with_a(rt, nrt, a);
    if (a < ix->lo || (uint64_t)a - (uint64_t)ix->lo >= ix->span)
        return -1;
    return ix->first[(uint64_t)a - (uint64_t)ix->lo];
}

static int link_by_corr(linker *l, size_t *unlinked)
{
    const tp_cols *c = l->c;
    if (link_dense(l, unlinked))
        return TP_OK;
    link_key *rt = tp_malloc((c->n ? c->n : 1) * sizeof *rt);
    if (rt == NULL)
        return TP_ENOMEM;
    size_t nrt = 0;
    for (size_t i = 0; i < c->n; i++)
        if (corr_call(c, i))
            rt[nrt++] = (link_key){tp_ev_corr(c, i), 0, (uint32_t)i};
    if (link_sort(NULL, rt, nrt) != TP_OK) {
        tp_free(rt);
        return TP_ENOMEM;
    }
    corr_index ix;
    corr_index_build(&ix, rt, nrt);
    for (size_t i = 0; i < c->n; i++) {
        if (!tp_kind_is_activity(c->kind[i]))
            continue;
        int64_t corr = tp_ev_corr(c, i);
        int64_t at = corr == TP_NONE ? -1 : corr_first(&ix, rt, nrt, corr);
        if (at < 0) {
            (*unlinked)++;
            continue;
        }
        int several;
        l->launcher[i] = (int32_t)outermost(c, &l->depth, rt, nrt, (size_t)at, &several);
        if (several) {
            l->launcher[i] = (int32_t)nearest_launch(c, &l->depth, rt, nrt, (size_t)at, c->ts[i]);
            bit_put(l->amb, i, 1);
            l->n.ambiguous++;
            (*unlinked)++; /* let the flow pass try for the exact launch */
        }
    }
    tp_free(ix.first);
    tp_free(rt);
    return TP_OK;
}

/* A flow and the event it binds to share (pid, tid) but not always a track
 * (GPU tracks carry device and stream, flow events do not). */
static int32_t thread_rank(const linker *l, size_t i)
{
    return (int32_t)l->thread_of[l->c->track[i]];
}

/* Is start x a better partner than y for a finish at ts: the latest at or
 * before ts, else the earliest after it. */
static int better_start(const tp_cols *c, uint32_t x, uint32_t y, int64_t ts)
{
    int64_t tx = c->ts[x], ty = c->ts[y];
    if ((tx <= ts) != (ty <= ts))
        return tx <= ts;
    if (tx != ty)
        return tx <= ts ? tx > ty : tx < ty;
    return x < y;
}

/* Links the activity an 'f' flow binds to with the launch of its 's': of
 * the starts with the flow's (id, cat) sitting on a runtime call, the
 * latest at or before the 'f' (ids repeat: fwdbwd reuses small ones, and
 * merged traces restart correlation ids per process), else the earliest
 * after it. */
static void link_one_flow(linker *l, size_t f, const link_key *rt, size_t nrt,
                          const link_key *gpu, size_t ngpu, const link_key *starts, size_t ns)
{
    const tp_cols *c = l->c;
    int64_t id = tp_ev_flow_id(c, f);
    int32_t cat = (int32_t)c->cat[f];
    int64_t s = find_key(starts, ns, id, cat);
    int64_t g = find_key(gpu, ngpu, c->ts[f], thread_rank(l, f));
    if (s < 0 || g < 0)
        return;
    uint32_t gr = gpu[g].row;
    if (l->launcher[gr] >= 0 && !bit_get(l->amb, gr))
        return; /* linked by an earlier flow */
    int64_t best_start = -1, best_launch = -1;
    for (size_t k = (size_t)s; k < ns && starts[k].a == id && starts[k].b == cat; k++) {
        uint32_t srow = starts[k].row;
        int64_t r = find_key(rt, nrt, c->ts[srow], thread_rank(l, srow));
        if (r >= 0 && (best_start < 0 || better_start(c, srow, (uint32_t)best_start, c->ts[f]))) {
            best_start = srow;
            best_launch = rt[r].row;
        }
    }
    if (best_launch >= 0) {
        l->launcher[gr] = (int32_t)best_launch;
        bit_put(l->amb, gr, 0);
    }
}

/* Flow fallback for activities the correlation ids did not link. */
static int link_by_flows(linker *l)
{
    const tp_cols *c = l->c;
    size_t n = c->n ? c->n : 1, nrt = 0, ngpu = 0, ns = 0;
    link_key *rt = tp_malloc(n * sizeof *rt), *gpu = tp_malloc(n * sizeof *gpu);
    link_key *starts = tp_malloc(n * sizeof *starts);
    int rc = (rt && gpu && starts) ? TP_OK : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < c->n; i++) {
        if (c->kind[i] == TP_KIND_RUNTIME && c->phase[i] == 'X')
            rt[nrt++] = (link_key){c->ts[i], thread_rank(l, i), (uint32_t)i};
        else if (tp_kind_is_activity(c->kind[i]) && (l->launcher[i] < 0 || bit_get(l->amb, i)))
            gpu[ngpu++] = (link_key){c->ts[i], thread_rank(l, i), (uint32_t)i};
        else if (c->kind[i] == TP_KIND_FLOW && c->phase[i] == 's' && tp_ev_flow_id(c, i) != TP_NONE)
            starts[ns++] = (link_key){tp_ev_flow_id(c, i), (int32_t)c->cat[i], (uint32_t)i};
    }
    if (rc == TP_OK && (link_sort(NULL, rt, nrt) != TP_OK || link_sort(NULL, gpu, ngpu) != TP_OK ||
                        link_sort(NULL, starts, ns) != TP_OK))
        rc = TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && ngpu > 0 && i < c->n; i++)
        if (c->kind[i] == TP_KIND_FLOW && c->phase[i] == 'f' && tp_ev_flow_id(c, i) != TP_NONE)
            link_one_flow(l, i, rt, nrt, gpu, ngpu, starts, ns);
    tp_free(rt);
    tp_free(gpu);
    tp_free(starts);
    return rc;
}

/* Counts the links; amb doubles as the "launcher seen" mark once the
 * ambiguous ones are counted. */
static void count_links(linker *l)
{
    const tp_cols *c = l->c;
    size_t nwords = c->n / 64 + 1;
    for (size_t w = 0; w < nwords; w++)
        l->n.ambiguous_left += __builtin_popcountll(l->amb[w]);
    memset(l->amb, 0, nwords * sizeof *l->amb);
    for (size_t i = 0; i < c->n; i++) {
        if (!tp_kind_is_activity(c->kind[i]))
            continue;
        int32_t r = l->launcher[i];
        if (r < 0) {
            l->n.gpu_unlinked++;
            continue;
        }
        l->n.gpu_linked++;
        if (!bit_get(l->amb, (size_t)r)) {
            bit_put(l->amb, (size_t)r, 1);
            l->n.launches_linked++;
        }
    }
}

int tp_link_launches(const tp_cols *c, const uint32_t *thread_of, const int32_t *depth,
                     int32_t *launcher, tp_link_counts *counts)
{
    return tp_link_launches_ranked(c, thread_of, NULL, depth, launcher, counts);
}

int tp_link_launches_ranked(const tp_cols *c, const uint32_t *thread_of, const tp_rowset *host,
                            const int32_t *depth, int32_t *launcher, tp_link_counts *counts)
{
    linker l = {c, thread_of, {depth, depth ? host : NULL}, launcher, NULL, {0, 0, 0, 0, 0}};
    uint32_t *ranks = NULL;
    for (size_t i = 0; i < c->n; i++)
        launcher[i] = -1;
    l.amb = tp_calloc(c->n / 64 + 1, sizeof *l.amb);
    if (l.amb != NULL && thread_of == NULL) {
        size_t nthreads;
        ranks = tp_malloc((c->n_tracks ? c->n_tracks : 1) * sizeof *ranks);
        if (ranks != NULL && tp_thread_ranks(c, ranks, &nthreads) != TP_OK) {
            tp_free(ranks);
            ranks = NULL;
        }
        l.thread_of = ranks;
    }
    size_t unlinked = 0;
    int rc = l.amb && l.thread_of ? link_by_corr(&l, &unlinked) : TP_ENOMEM;
    if (rc == TP_OK && unlinked > 0)
        rc = link_by_flows(&l);
    if (rc == TP_OK)
        count_links(&l);
    tp_free(l.amb);
    tp_free(ranks);
    if (counts)
        *counts = l.n;
    return rc;
}

/* ------------------------------------------------------------ flow binding */

static int binds_start(const tp_cols *c, size_t i)
{
    return tp_ev_is_complete(c, i) && c->kind[i] == TP_KIND_RUNTIME;
}

static int binds_finish(const tp_cols *c, size_t i)
{
    return tp_ev_is_activity(c, i);
}

static int is_flow(const tp_cols *c, size_t i)
{
    return c->kind[i] == TP_KIND_FLOW && (c->phase[i] == 's' || c->phase[i] == 'f');
}

/* Keys (ts, thread rank) of the events one phase of flows binds to. */
static int bind_phase(const tp_cols *c, const uint32_t *thread_of, int32_t *bound, char phase,
                      int (*binds)(const tp_cols *, size_t), link_key *keys)
{
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++)
        if (binds(c, i))
            keys[k++] = (link_key){c->ts[i], (int32_t)thread_of[c->track[i]], (uint32_t)i};
    if (link_sort(NULL, keys, k) != TP_OK)
        return TP_ENOMEM;
    for (size_t i = 0; i < c->n; i++) {
        if (!is_flow(c, i) || c->phase[i] != phase)
            continue;
        int64_t at = find_key(keys, k, c->ts[i], (int32_t)thread_of[c->track[i]]);
        bound[i] = at < 0 ? -1 : (int32_t)keys[at].row;
    }
    return TP_OK;
}

int tp_flow_bind(const tp_cols *c, const uint32_t *thread_of, int32_t *bound)
{
    for (size_t i = 0; i < c->n; i++)
        bound[i] = -1;
    uint32_t *ranks = NULL;
    if (thread_of == NULL) {
        size_t nthreads;
        ranks = tp_malloc((c->n_tracks ? c->n_tracks : 1) * sizeof *ranks);
        if (ranks == NULL || tp_thread_ranks(c, ranks, &nthreads) != TP_OK) {
            tp_free(ranks);
            return TP_ENOMEM;
        }
        thread_of = ranks;
    }
    size_t most = 0, ns = 0, nf = 0;
    for (size_t i = 0; i < c->n; i++) {
        ns += (size_t)binds_start(c, i);
        nf += (size_t)binds_finish(c, i);
    }
    most = ns > nf ? ns : nf;
    link_key *keys = tp_malloc((most ? most : 1) * sizeof *keys);
    int rc = keys ? bind_phase(c, thread_of, bound, 's', binds_start, keys) : TP_ENOMEM;
    if (rc == TP_OK)
        rc = bind_phase(c, thread_of, bound, 'f', binds_finish, keys);
    tp_free(keys);
    tp_free(ranks);
    return rc;
}

unsigned tp_launch_outliers(double cpu_us, double gpu_us, double delay_us,
                            double runtime_cutoff_us, double delay_cutoff_us)
{
    unsigned k = cpu_us > runtime_cutoff_us ? TP_LAUNCH_SLOW
                 : gpu_us < cpu_us          ? TP_LAUNCH_SHORT_GPU
                                            : 0u;
    return delay_us > delay_cutoff_us ? k | TP_LAUNCH_LATE : k;
}
