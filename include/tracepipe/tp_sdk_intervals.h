/*
 * Time intervals and their unions (part of the plugin SDK, tp_sdk.h).
 *
 * An interval is [start, end) in the trace's nanoseconds.  A *union* is an
 * array of disjoint intervals sorted by start, as tp_intervals_union()
 * leaves it; intervals that only touch (one ends where the next starts) are
 * merged, so the union of a stream's back-to-back kernels is one interval.
 */
#ifndef TRACEPIPE_TP_SDK_INTERVALS_H
#define TRACEPIPE_TP_SDK_INTERVALS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_interval {
    int64_t start, end;
} tp_interval;

/* Sorts iv[0..n) and merges it, in place, into its union; returns the
 * number of disjoint intervals now at the front of iv.  Empty and inverted
 * intervals (end <= start) are dropped.  O(n log n). */
size_t tp_intervals_union(tp_interval *iv, size_t n);

/* Total length of a union (disjoint intervals). */
int64_t tp_intervals_length(const tp_interval *u, size_t n);

/* Length of the intersection of two unions.  O(na + nb). */
int64_t tp_intervals_overlap(const tp_interval *a, size_t na, const tp_interval *b, size_t nb);

/* Time covered by at least k of the intervals iv[0..n) (any order, they may
 * overlap; touching ones do not count as overlapping): k = 1 is the union's
 * length, k = 2 the time two or more run at once.  -1 when out of memory
 * (2n edges of scratch).  O(n log n). */
int64_t tp_intervals_at_least(const tp_interval *iv, size_t n, int k);

/* Length of the part of a union inside [lo, hi). */
int64_t tp_intervals_within(const tp_interval *u, size_t n, int64_t lo, int64_t hi);

/* The union of the trace rows' intervals [ts[r], ts[r] + dur[r]) for the n
 * rows at rows[], without copying them out (4 bytes of sort scratch per row
 * at most, none when they come in start order; issue 31): rows is sorted in
 * place by start (tp_sort_rows_by_key), *length gets the union's length and
 * *within its part inside [lo, hi), both exactly as tp_intervals_union,
 * tp_intervals_length and tp_intervals_within give them.  Always TP_OK
 * (tp_sort_rows_by_key never fails). */
int tp_intervals_rows_union(uint32_t *rows, size_t n, const int64_t *ts, const int64_t *dur,
                            int64_t lo, int64_t hi, int64_t *length, int64_t *within);

#ifdef __cplusplus
}
#endif
#endif
