/*
 * tracepipe SDK: aggregated breakdown trees with top-N folding
 * (host_breakdown, device_breakdown).
 *
 * A node of the output tree is a *group* of real items (events) that share
 * a key (their name) under the same parent group.  The children of a group
 * are all children of all its items, grouped again by key, sorted by time
 * (descending, ties by label, then key), cut to `truncate` groups with the
 * rest folded into one "Others" row (their summed time and count), plus an
 * optional "Unaccounted" row.  Rows are emitted in pre-order with the
 * columns
 *   id, parent_id, depth, name, time_us, percent_of_parent, percent_of_total, count
 * Every step sorts, so a level costs O(m log m) for its m items.
 */
#ifndef TRACEPIPE_TP_SDK_TOPN_H
#define TRACEPIPE_TP_SDK_TOPN_H

#include <stddef.h>
#include <stdint.h>

#include "tp_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A growable list of item ids (tp_malloc'ed; tp_free v when done). */
typedef struct tp_agg_buf {
    int64_t *v;
    size_t n, cap;
} tp_agg_buf;

/* Appends item; TP_OK or TP_ENOMEM. */
int tp_agg_push(tp_agg_buf *b, int64_t item);

/* Where the items come from.  Times are integer nanoseconds. */
typedef struct tp_agg_src {
    void *ctx;
    int (*children)(void *ctx, int64_t item, tp_agg_buf *out); /* appends */
    int64_t (*time)(void *ctx, int64_t item);
    uint64_t (*key)(void *ctx, int64_t item);
    const char *(*label)(void *ctx, uint64_t key);
    /* Time of item not covered by its children, < 0 when out of memory;
     * NULL = no Unaccounted rows. */
    int64_t (*unaccounted)(void *ctx, int64_t item);
} tp_agg_src;

/* The result being written and the limits. */
typedef struct tp_agg_out {
    tp_stage *st;
    tp_result *r;
    int c_id, c_parent, c_depth, c_name, c_time, c_pp, c_pt, c_count;
    int64_t next_id;
    int64_t total_ns;  /* time of the current top-level node */
    int64_t max_depth; /* levels shown below a top-level node */
    int64_t truncate;  /* groups kept per node; 0 = all */
} tp_agg_out;

/* Adds the tree's columns to r and marks it kind "tree"; set max_depth
 * and truncate after.  TP_OK or TP_ENOMEM. */
int tp_agg_out_init(tp_agg_out *o, tp_stage *st, tp_result *r);

/* Emits a top-level node (parent_id null, depth 0) for one item and, down
 * to max_depth, its grouped descendants.  count < 0 writes a null count. */
int tp_agg_top(const tp_agg_src *s, tp_agg_out *o, int64_t item, const char *name, int64_t count);

#ifdef __cplusplus
}
#endif

#endif
