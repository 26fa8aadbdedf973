/*
 * regex_select: keeping hierarchies whole.
 *
 * Two kinds of upward links:
 *  - parent: host events nest as the hierarchy analysis says when it ran on
 *    this trace (hierarchy.parent), else by time per (pid, tid); GPU rows
 *    always nest by time per (pid, tid), so a gpu_user_annotation range
 *    holds its kernels whether or not the hierarchy ran.  Nesting by time is
 *    the SDK's (tp_nest_rows: the hierarchy's rule and clamp);
 *  - launcher: a kernel / memcpy / memset hangs under the runtime call that
 *    launched it (hierarchy.launcher, else the SDK's launch link,
 *    tp_link_launches: the same rule the hierarchy applies).
 * Descendants follow both downwards, ancestors both upwards.  One sort per
 * link kind and linear sweeps: O(n log n).
 */
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_sdk_trace.h>

#include "regex_select.h"

/* Kinds nested by time when the hierarchy has not run: every complete
 * event but flows, metadata and counters. */
#define NESTABLE_KINDS                                                                   \
    (~(TP_KIND_BIT(TP_KIND_FLOW) | TP_KIND_BIT(TP_KIND_METADATA) |                       \
       TP_KIND_BIT(TP_KIND_COUNTER)))

/* Sets parent[] of the complete rows of the given kinds, nested by time per
 * thread. */
static int nest_by_time(const tp_cols *c, uint32_t kinds, int32_t *parent)
{
    size_t nthreads = 0, n = 0;
    uint32_t *rows = NULL;
    uint32_t *thread_of = tp_malloc((c->n_tracks ? c->n_tracks : 1) * sizeof *thread_of);
    int rc = thread_of ? tp_thread_ranks(c, thread_of, &nthreads) : TP_ENOMEM;
    if (rc == TP_OK)
        rc = tp_rows_complete(c, kinds, thread_of, nthreads, &rows, &n);
    if (rc == TP_OK)
        rc = tp_nest_rows(c, thread_of, rows, n, TP_NEST_CLAMP_NS, parent, NULL);
    tp_free(rows);
    tp_free(thread_of);
    return rc;
}

/* ---- the links */
typedef struct links {
    int32_t *parent, *launcher;
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
    if (nest_by_time(c, use_hier ? TP_KINDS_GPU : NESTABLE_KINDS, l->parent) != TP_OK)
        return TP_ENOMEM;
    if (hl != NULL && n_lau == c->n)
        memcpy(l->launcher, hl, c->n * sizeof *l->launcher);
    else if (tp_link_launches(c, NULL, NULL, l->launcher, NULL) != TP_OK)
        return TP_ENOMEM;
    l->source = use_hier ? " (hierarchy.parent, GPU nested by time, launches)"
                         : " (nested by time, launches by correlation)";
    return TP_OK;
}

static int64_t link_at(const int32_t *a, size_t n, size_t i)
{
    int64_t p = a[i];
    return p >= 0 && (uint64_t)p < n ? p : -1;
}

/* under[i] = 1 when i or one of its parents is seeded.  state: 0 unknown,
 * 1 under a seed, 2 not; each chain is walked once and its nodes resolved. */
static int parent_closure(const int32_t *parent, size_t n, const uint8_t *seed, uint8_t *under)
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
