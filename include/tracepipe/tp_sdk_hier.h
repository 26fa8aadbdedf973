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

/* Row numbers are int32_t, -1 for none. */
typedef struct tp_hier_view {
    const int32_t *parent, *first_child, *next_sibling, *depth, *launcher;
    const int32_t *roots;
    size_t nroots;
} tp_hier_view;

/* One per-row attachment of n elements, or NULL. */
static inline const int32_t *tp_hier_row_array(const tp_trace *t, const char *name, size_t n)
{
    size_t got = 0;
    const int32_t *a = (const int32_t *)tp_trace_attached(t, name, TP_COL_I32, &got);
    return a != NULL && got == n ? a : NULL;
}

/* Fills v from trace t of n rows; TP_ENOTFOUND if hierarchy has not run on it. */
static inline int tp_hier_view_load(const tp_trace *t, size_t n, tp_hier_view *v)
{
    v->parent = tp_hier_row_array(t, "hierarchy.parent", n);
    v->first_child = tp_hier_row_array(t, "hierarchy.first_child", n);
    v->next_sibling = tp_hier_row_array(t, "hierarchy.next_sibling", n);
    v->depth = tp_hier_row_array(t, "hierarchy.depth", n);
    v->launcher = tp_hier_row_array(t, "hierarchy.launcher", n);
    v->nroots = 0;
    v->roots = (const int32_t *)tp_trace_attached(t, "hierarchy.roots", TP_COL_I32, &v->nroots);
    if (!v->parent || !v->first_child || !v->next_sibling || !v->depth || !v->launcher ||
        !v->roots)
        return TP_ENOTFOUND;
    return TP_OK;
}

/* Loads the view of the stage's trace t, or fails the stage saying that
 * hierarchy has not run (TP_ENOTFOUND, reported): what every analysis
 * declaring `requires: hierarchy` starts with. */
static inline int tp_hier_view_require(tp_stage *st, const tp_trace *t, tp_hier_view *v)
{
    if (tp_hier_view_load(t, tp_trace_cols(t)->n, v) == TP_OK)
        return TP_OK;
    return tp_fail(st, TP_ENOTFOUND, "hierarchy attachments missing (run hierarchy first)");
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

#endif
