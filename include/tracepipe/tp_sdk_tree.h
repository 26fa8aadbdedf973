/*
 * tracepipe SDK: walking tree results.
 *
 * A tree result (CONVENTIONS: host_breakdown, device_breakdown and any
 * analysis that emits one) is a table with I64 columns `id` and `parent_id`
 * whose rows are in pre-order: a root has a null parent_id, every other row
 * names an ancestor on the path from the latest root.  tp_result_tree_load
 * checks that once and gives each row its level and parent row, so a writer
 * or analysis never re-derives the shape (and never trusts a malformed one).
 */
#ifndef TRACEPIPE_TP_SDK_TREE_H
#define TRACEPIPE_TP_SDK_TREE_H

#include <stddef.h>
#include <stdint.h>
#include "tp_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_result_tree {
    int id_col, parent_col; /* column indexes in the result */
    size_t nrows, nroots;
    uint32_t *level;        /* per row: 0 for a root */
    int64_t *parent_row;    /* per row: the parent's row, -1 for a root */
} tp_result_tree;

/* Nonzero when r has the I64 columns `id` and `parent_id`. */
int tp_result_is_tree(const tp_result *r);

/* Fills t from r.  TP_ENOTFOUND (nothing recorded) when r is a flat table;
 * TP_EINVAL, recorded through tp_fail() with the result id and row, when a
 * row lacks an id or names a parent that is not an earlier ancestor;
 * TP_ENOMEM.  On TP_OK free t with tp_result_tree_free. */
int tp_result_tree_load(tp_stage *st, const tp_result *r, tp_result_tree *t);

void tp_result_tree_free(tp_result_tree *t);

#ifdef __cplusplus
}
#endif

#endif
