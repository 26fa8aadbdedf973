/*
 * Reading the `hierarchy` analysis' attachments (docs/plugins/hierarchy.md)
 * from another plugin: one place that knows their names and checks their
 * sizes.  Part of the SDK (tp_sdk.h); header-only, so it needs no library.
 * The attachments' names and meaning are ABI: they change only with the
 * hierarchy plugin's major version.
 */
#ifndef TRACEPIPE_TP_SDK_HIER_H
#define TRACEPIPE_TP_SDK_HIER_H

#include <stdint.h>
#include "tp_plugin.h"
#include "tp_sdk_rowset.h"

/* Row numbers are int32_t, -1 for none. */
typedef struct tp_hier_view {
    const int32_t *parent, *first_child, *next_sibling, *depth, *launcher;
    const int32_t *roots;
    size_t nroots;
} tp_hier_view;

/* One int32 attachment of n elements (per row, or per member of a compact
 * set), or NULL. */
static inline const int32_t *tp_hier_row_array(const tp_trace *t, const char *name, size_t n)
{
    size_t got = 0;
    const int32_t *a = (const int32_t *)tp_trace_attached(t, name, TP_COL_I32, &got);
    return a != NULL && got == n ? a : NULL;
}

/* The five link arrays under names (name i of sizes[i] cells) into *out[i]
 * and the roots: TP_ENOTFOUND when one is missing.  What both views load. */
static inline int tp_hier_links_load(const tp_trace *t, const char *const names[5],
                                     const size_t sizes[5], const int32_t **out[5],
                                     const int32_t **roots, size_t *nroots)
{
    int missing = 0;
    for (int i = 0; i < 5; i++)
        missing |= (*out[i] = tp_hier_row_array(t, names[i], sizes[i])) == NULL;
    *nroots = 0;
    *roots = (const int32_t *)tp_trace_attached(t, "hierarchy.roots", TP_COL_I32, nroots);
    return missing || *roots == NULL ? TP_ENOTFOUND : TP_OK;
}

/* The wide parent array alone (a cell per row; filled on this first ask),
 * for code that walks parents by array, such as tp_outermost_op; NULL if
 * hierarchy has not run on t. */
#define TP_HIER_PARENT "hierarchy.parent"
static inline const int32_t *tp_hier_parent_array(const tp_trace *t)
{
    return tp_hier_row_array(t, TP_HIER_PARENT, tp_trace_cols(t)->n);
}

/* Fills v from trace t of n rows; TP_ENOTFOUND if hierarchy has not run on it. */
static inline int tp_hier_view_load(const tp_trace *t, size_t n, tp_hier_view *v)
{
    static const char *const names[5] = {TP_HIER_PARENT, "hierarchy.first_child",
                                         "hierarchy.next_sibling", "hierarchy.depth",
                                         "hierarchy.launcher"};
    const size_t sizes[5] = {n, n, n, n, n};
    const int32_t **out[5] = {&v->parent, &v->first_child, &v->next_sibling, &v->depth,
                              &v->launcher};
    return tp_hier_links_load(t, names, sizes, out, &v->roots, &v->nroots);
}

/* Fails stage st for a trace hierarchy has not run on (TP_ENOTFOUND). */
static inline int tp_hier_missing(tp_stage *st)
{
    return tp_fail(st, TP_ENOTFOUND, "hierarchy attachments missing (run hierarchy first)");
}

/* Loads the view of the stage's trace t, or fails the stage saying that
 * hierarchy has not run (TP_ENOTFOUND, reported): what every analysis
 * declaring `requires: hierarchy` starts with. */
static inline int tp_hier_view_require(tp_stage *st, const tp_trace *t, tp_hier_view *v)
{
    if (tp_hier_view_load(t, tp_trace_cols(t)->n, v) == TP_OK)
        return TP_OK;
    return tp_hier_missing(st);
}

/* The innermost cpu_op at or above row x (x itself when it is one), or -1. */
static inline int32_t tp_hier_op_above(const tp_cols *c, const tp_hier_view *v, int32_t x)
{
    while (x >= 0 && c->kind[x] != TP_KIND_CPU_OP)
        x = v->parent[x];
    return x;
}

/* The op that launched activity a: the innermost cpu_op above its launch
 * (runtime call), or -1 (no launch link, or no op above it). */
static inline int32_t tp_hier_launching_op(const tp_cols *c, const tp_hier_view *v, size_t a)
{
    return tp_hier_op_above(c, v, v->launcher[a]);
}

/*
 * The compact view (issue 31), what the built-in analyses read: the same
 * links as tp_hier_view, published over the rows they describe.  parent,
 * first_child, next_sibling and depth have a cell per host event of the
 * forest (the rows of `host`, by rank), launcher one per GPU activity (the
 * rows of `gpu`).  The accessors give, for any row, what the wide arrays
 * hold (-1 outside the set).  Loading it never fills the wide arrays, which
 * are lazy attachments filled from these on a plugin's first ask.
 */
typedef struct tp_hier_cview {
    tp_rowset host, gpu;
    const int32_t *parent, *first_child, *next_sibling, *depth; /* per host event */
    const int32_t *launcher;                                    /* per GPU activity */
    size_t nhost, ngpu;
    const int32_t *roots;
    size_t nroots;
} tp_hier_cview;

/* The compact attachments' names (docs/plugins/hierarchy.md). */
#define TP_HIER_HOST_ROWS "hierarchy.host_rows"
#define TP_HIER_HOST_RANK "hierarchy.host_rank"
#define TP_HIER_GPU_ROWS "hierarchy.gpu_rows"
#define TP_HIER_GPU_RANK "hierarchy.gpu_rank"

/* A rowset of trace t over n rows from its two attachments, or 0. */
static inline int tp_hier_rowset_load(const tp_trace *t, const char *bits, const char *dir,
                                      size_t n, tp_rowset *s)
{
    size_t nb = 0, nd = 0;
    s->bits = (const uint64_t *)tp_trace_attached(t, bits, TP_COL_I64, &nb);
    s->dir = (const uint32_t *)tp_trace_attached(t, dir, TP_COL_I32, &nd);
    return s->bits != NULL && s->dir != NULL && nb == tp_rowset_words(n) && nd == nb;
}

/* Fills v from trace t of n rows; TP_ENOTFOUND if hierarchy has not run on it. */
static inline int tp_hier_cview_load(const tp_trace *t, size_t n, tp_hier_cview *v)
{
    if (!tp_hier_rowset_load(t, TP_HIER_HOST_ROWS, TP_HIER_HOST_RANK, n, &v->host) ||
        !tp_hier_rowset_load(t, TP_HIER_GPU_ROWS, TP_HIER_GPU_RANK, n, &v->gpu))
        return TP_ENOTFOUND;
    size_t w = tp_rowset_words(n) - 1;
    v->nhost = v->host.dir[w] + tp_popcount64(v->host.bits[w]);
    v->ngpu = v->gpu.dir[w] + tp_popcount64(v->gpu.bits[w]);
    static const char *const names[5] = {"hierarchy.host_parent", "hierarchy.host_first_child",
                                         "hierarchy.host_next_sibling", "hierarchy.host_depth",
                                         "hierarchy.gpu_launcher"};
    const size_t sizes[5] = {v->nhost, v->nhost, v->nhost, v->nhost, v->ngpu};
    const int32_t **out[5] = {&v->parent, &v->first_child, &v->next_sibling, &v->depth,
                              &v->launcher};
    return tp_hier_links_load(t, names, sizes, out, &v->roots, &v->nroots);
}

/* The compact view of the stage's trace, or the stage failed as
 * tp_hier_view_require fails it. */
static inline int tp_hier_cview_require(tp_stage *st, const tp_trace *t, tp_hier_cview *v)
{
    if (tp_hier_cview_load(t, tp_trace_cols(t)->n, v) == TP_OK)
        return TP_OK;
    return tp_hier_missing(st);
}

/* Row r's links, as hierarchy.parent[r] ... would give them (-1: none). */
static inline int32_t tp_hier_parent(const tp_hier_cview *v, int64_t r)
{
    return tp_rowset_cell(&v->host, v->parent, r);
}
static inline int32_t tp_hier_first_child(const tp_hier_cview *v, int64_t r)
{
    return tp_rowset_cell(&v->host, v->first_child, r);
}
static inline int32_t tp_hier_next_sibling(const tp_hier_cview *v, int64_t r)
{
    return tp_rowset_cell(&v->host, v->next_sibling, r);
}
static inline int32_t tp_hier_depth(const tp_hier_cview *v, int64_t r)
{
    return tp_rowset_cell(&v->host, v->depth, r);
}
static inline int32_t tp_hier_launcher(const tp_hier_cview *v, int64_t r)
{
    return tp_rowset_cell(&v->gpu, v->launcher, r);
}

/* tp_hier_op_above and tp_hier_launching_op on the compact view. */
static inline int32_t tp_hier_op_above_ranked(const tp_cols *c, const tp_hier_cview *v, int32_t x)
{
    while (x >= 0 && c->kind[x] != TP_KIND_CPU_OP)
        x = tp_hier_parent(v, x);
    return x;
}
static inline int32_t tp_hier_launching_op_ranked(const tp_cols *c, const tp_hier_cview *v,
                                                  size_t a)
{
    return tp_hier_op_above_ranked(c, v, tp_hier_launcher(v, (int64_t)a));
}

#endif
