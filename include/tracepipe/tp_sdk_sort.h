/*
 * tracepipe SDK: sorting.
 *
 * Both sorts are stable merge sorts that find the ascending runs first, so
 * input that is already (nearly) in order — a trace written in time order —
 * costs about one pass.  Unlike qsort they take a context pointer and give
 * the same order on every C library.
 */
#ifndef TRACEPIPE_TP_SDK_SORT_H
#define TRACEPIPE_TP_SDK_SORT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Sorts n elements of `size` bytes at base by cmp (negative, zero or
 * positive as for qsort; ctx passed through); equal elements keep their
 * order.  TP_OK, or TP_ENOMEM with base unchanged. */
int tp_sort(void *base, size_t n, size_t size,
            int (*cmp)(const void *a, const void *b, void *ctx), void *ctx);

/* Sorts row numbers by key[row], ties by row number: the usual way to walk
 * trace rows in time order (key = tp_cols.ts) without moving the columns.
 * Always TP_OK: a few rows, or rows without memory for the merge sort's
 * scratch, are sorted in place (heapsort, the same order). */
int tp_sort_rows_by_key(uint32_t *rows, size_t n, const int64_t *key);

/* Binary search: n elements of `size` bytes at base, sorted by the int64_t
 * at byte offset `off` of each; the index of the first whose key is >= key,
 * n when none is. */
size_t tp_lower_bound_i64(const void *base, size_t n, size_t size, size_t off, int64_t key);

#ifdef __cplusplus
}
#endif

#endif
