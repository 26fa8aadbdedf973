/*
 * regex_select: keeping hierarchies whole.
 *
 * Two kinds of upward links:
 *  - parent: host events nest as the hierarchy analysis says when it ran on
 *    this trace (hierarchy.parent), else by time per (pid, tid); GPU rows
 *    always nest by time per (pid, tid), so a gpu_user_annotation range
 *    holds its kernels whether or not the hierarchy ran;
 *  - launcher: a kernel / memcpy / memset hangs under the runtime call that
 *    launched it (hierarchy.launcher, else the runtime call with the same
 *    correlation id starting closest before it).
 * Descendants follow both downwards, ancestors both upwards.  One sort per
 * link kind and linear sweeps: O(n log n).
 */
#include <stdlib.h>
#include <string.h>

#include "../../common/tp_track.h"
#include "regex_select.h"

typedef tp_track_ev nest_ev;

static int nestable(const tp_cols *c, size_t i)
{
    uint8_t k = c->kind[i];
    return c->phase[i] == 'X' && c->dur[i] >= 0 && k != TP_KIND_FLOW && k != TP_KIND_METADATA &&
           k != TP_KIND_COUNTER;
}

static int is_launched(uint8_t k)
{
    return k == TP_KIND_KERNEL || k == TP_KIND_MEMCPY || k == TP_KIND_MEMSET;
}

/* An event is the child of the innermost open event of its thread that
 * contains it; partial overlaps close the open event. */
static void nest_sorted(const nest_ev *e, size_t n, size_t *stack, int64_t *parent)
{
    size_t depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && (e[i].pid != e[i - 1].pid || e[i].tid != e[i - 1].tid))
            depth = 0;
        while (depth > 0) {
            const nest_ev *top = &e[stack[depth - 1]];
            if (e[i].end <= top->end && e[i].ts < top->end)
                break;
            depth--;
        }
        parent[e[i].row] = depth ? (int64_t)e[stack[depth - 1]].row : -1;
        stack[depth++] = i;
    }
}

/* Sets parent[] of the nestable rows (only the GPU ones if gpu_only). */
static int nest_by_time(const tp_cols *c, int gpu_only, int64_t *parent)
{
    size_t n = c->n ? c->n : 1;
    nest_ev *e = tp_malloc(n * sizeof *e);
    size_t *stack = tp_malloc(n * sizeof *stack);
    if (e == NULL || stack == NULL) {
        tp_free(e);
        tp_free(stack);
        return TP_ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++)
        if (nestable(c, i) && (!gpu_only || TP_KIND_IS_GPU(c->kind[i])))
            e[k++] = (nest_ev){tp_ev_pid(c, i), tp_ev_tid(c, i), c->ts[i], c->ts[i] + c->dur[i], i};
    qsort(e, k, sizeof *e, tp_track_ev_cmp);
    nest_sorted(e, k, stack, parent);
    tp_free(e);
    tp_free(stack);
    return TP_OK;
}

/* ---- launch links by correlation id */
typedef struct rt_key {
    int64_t corr, ts, end;
    size_t row;
} rt_key;

static int rt_cmp(const void *a, const void *b)
{
    const rt_key *x = a, *y = b;
    if (x->corr != y->corr)
        return x->corr < y->corr ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1; /* outermost first */
    return x->row < y->row ? -1 : x->row > y->row;
}

/* The launch of an activity: among the runtime calls with its id, the one
 * starting last at or before it (outermost on a tie), else the first.
 * Correlation ids restart per process; the nearest earlier call is the
 * right one in merged traces too. */
static int64_t find_launch(const rt_key *rt, size_t n, int64_t corr, int64_t ts)
{
    size_t lo = 0, hi = n; /* first key with (corr, ts) > (corr, ts of the activity) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (rt[mid].corr < corr || (rt[mid].corr == corr && rt[mid].ts <= ts))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo > 0 && rt[lo - 1].corr == corr) {
        size_t k = lo - 1;
        while (k > 0 && rt[k - 1].corr == corr && rt[k - 1].ts == rt[k].ts)
            k--;
        return (int64_t)rt[k].row;
    }
    return lo < n && rt[lo].corr == corr ? (int64_t)rt[lo].row : -1;
}

static int launchers_by_corr(const tp_cols *c, int64_t *launcher)
{
    rt_key *rt = tp_malloc((c->n ? c->n : 1) * sizeof *rt);
    if (rt == NULL)
        return TP_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (c->kind[i] != TP_KIND_RUNTIME || tp_ev_corr(c, i) == TP_NONE)
            continue;
        int64_t end = c->ts[i] + (c->dur[i] > 0 ? c->dur[i] : 0);
        rt[k++] = (rt_key){tp_ev_corr(c, i), c->ts[i], end, i};
    }
    qsort(rt, k, sizeof *rt, rt_cmp);
    for (size_t i = 0; i < c->n; i++)
        launcher[i] = is_launched(c->kind[i]) && tp_ev_corr(c, i) != TP_NONE
                          ? find_launch(rt, k, tp_ev_corr(c, i), c->ts[i])
                          : -1;
    tp_free(rt);
    return TP_OK;
}

/* ---- the links */
typedef struct links {
    int64_t *parent, *launcher;
    const char *source;
} links;

static int build_links(const tp_trace *t, links *l)
{
    const tp_cols *c = tp_trace_cols(t);
    size_t n = c->n ? c->n : 1, n_par = 0, n_lau = 0;
    const int32_t *hp = tp_trace_attached(t, "hierarchy.parent", TP_COL_I32, &n_par);
    const int32_t *hl = tp_trace_attached(t, "hierarchy.launcher", TP_COL_I32, &n_lau);
    int use_hier = hp != NULL && n_par == c->n;
    l->parent = tp_malloc(n * sizeof *l->parent);
    l->launcher = tp_malloc(n * sizeof *l->launcher);
    if (l->parent == NULL || l->launcher == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < c->n; i++)
        l->parent[i] = use_hier && !TP_KIND_IS_GPU(c->kind[i]) ? hp[i] : -1;
    if (nest_by_time(c, use_hier, l->parent) != TP_OK)
        return TP_ENOMEM;
    if (hl != NULL && n_lau == c->n) {
        for (size_t i = 0; i < c->n; i++)
            l->launcher[i] = hl[i];
    } else if (launchers_by_corr(c, l->launcher) != TP_OK) {
        return TP_ENOMEM;
    }
    l->source = use_hier ? " (hierarchy.parent, GPU nested by time, launches)"
                         : " (nested by time, launches by correlation)";
    return TP_OK;
}

static int64_t link_at(const int64_t *a, size_t n, size_t i)
{
    int64_t p = a[i];
    return p >= 0 && (uint64_t)p < n ? p : -1;
}

/* under[i] = 1 when i or one of its parents is seeded.  state: 0 unknown,
 * 1 under a seed, 2 not; each chain is walked once and its nodes resolved. */
static int parent_closure(const int64_t *parent, size_t n, const uint8_t *seed, uint8_t *under)
{
    uint8_t *state = tp_calloc(n ? n : 1, 1);
    size_t *path = tp_malloc((n ? n : 1) * sizeof *path);
    if (state == NULL || path == NULL) {
        tp_free(state);
        tp_free(path);
        return TP_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        int64_t j = (int64_t)i;
        uint8_t v = 2;
        while (j >= 0 && len < n) {
            if (state[j]) {
                v = state[j];
                break;
            }
            if (seed[j]) {
                v = 1;
                break;
            }
            path[len++] = (size_t)j;
            j = link_at(parent, n, (size_t)j);
        }
        if (j >= 0 && state[j] == 0)
            state[j] = v; /* the seeded node itself */
        for (size_t p = 0; p < len; p++)
            state[path[p]] = v;
    }
    for (size_t i = 0; i < n; i++)
        under[i] = state[i] == 1;
    tp_free(state);
    tp_free(path);
    return TP_OK;
}

/* Keeps every event below a matched one: first through parents, then GPU
 * work whose launch lies below (or is) a match, with its GPU children. */
static int add_descendants(const links *l, size_t n, const uint8_t *matched, uint8_t *keep)
{
    uint8_t *under = tp_malloc(n ? n : 1), *seed = tp_malloc(n ? n : 1);
    int rc = under && seed ? parent_closure(l->parent, n, matched, under) : TP_ENOMEM;
    if (rc == TP_OK) {
        for (size_t i = 0; i < n; i++) {
            int64_t r = link_at(l->launcher, n, i);
            seed[i] = (uint8_t)(matched[i] || (r >= 0 && under[r]));
        }
        rc = parent_closure(l->parent, n, seed, under);
    }
    for (size_t i = 0; rc == TP_OK && i < n; i++)
        if (under[i])
            keep[i] = 1;
    tp_free(under);
    tp_free(seed);
    return rc;
}

/* Keeps every event above a matched one, through parents and launches;
 * each node is visited once. */
static int add_ancestors(const links *l, size_t n, const uint8_t *matched, uint8_t *keep)
{
    uint8_t *seen = tp_calloc(n ? n : 1, 1);
    size_t *work = tp_malloc((n ? n : 1) * sizeof *work);
    if (seen == NULL || work == NULL) {
        tp_free(seen);
        tp_free(work);
        return TP_ENOMEM;
    }
    size_t top = 0;
    for (size_t i = 0; i < n; i++)
        if (matched[i]) {
            seen[i] = 1;
            work[top++] = i;
        }
    while (top > 0) {
        size_t i = work[--top];
        int64_t up[2] = {link_at(l->parent, n, i), link_at(l->launcher, n, i)};
        for (int k = 0; k < 2; k++) {
            if (up[k] >= 0 && !seen[up[k]]) {
                seen[up[k]] = 1;
                keep[up[k]] = 1;
                work[top++] = (size_t)up[k];
            }
        }
    }
    tp_free(seen);
    tp_free(work);
    return TP_OK;
}

int rs_extend(tp_stage *st, const tp_trace *t, uint8_t *keep, int desc, int anc,
              const char **source)
{
    (void)st;
    const tp_cols *c = tp_trace_cols(t);
    links l = {NULL, NULL, ""};
    uint8_t *matched = tp_malloc(c->n ? c->n : 1);
    int rc = matched ? build_links(t, &l) : TP_ENOMEM;
    if (rc == TP_OK) {
        *source = l.source;
        memcpy(matched, keep, c->n);
        if (desc)
            rc = add_descendants(&l, c->n, matched, keep);
        if (rc == TP_OK && anc)
            rc = add_ancestors(&l, c->n, matched, keep);
    }
    tp_free(matched);
    tp_free(l.parent);
    tp_free(l.launcher);
    return rc;
}
