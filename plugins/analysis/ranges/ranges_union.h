/* ranges: the busy time (union) of sets of GPU activities given as segments
 * of one order of the activities, and that order's positions by iteration
 * (issue 32: nested ranges of ever-new names without depth x activities). */
#ifndef TP_RANGES_UNION_H
#define TP_RANGES_UNION_H

#include <stddef.h>
#include <stdint.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_trace.h>

/* The activities act[lo, hi) belong to set `set`. */
typedef struct rg_seg {
    uint32_t set, lo, hi;
} rg_seg;

/* The first index of a[lo, hi) (ascending) whose value is not below key. */
size_t rg_lower_u32(const uint32_t *a, size_t lo, size_t hi, uint32_t key);

/* Offline range minimum: out[q] = min of v[lo, hi) for every query
 * (lo < hi), all at once: the queries by their end, a stack of the
 * suffix minima and a binary search each, O((n + q) log n).  TP_OK or
 * TP_ENOMEM. */
int rg_range_min(const int64_t *v, size_t n, const rg_seg *q, size_t nq, int64_t *out);

/* busy[set] += the length of the union of the intervals [ts, ts + dur) of
 * the activities act[lo, hi) of the segments of that set; a set's segments
 * are disjoint.  A set's segments whose activities' time spans overlap are
 * united explicitly (their activities listed); every other segment is a
 * query of one sweep over act keeping, per time point, the latest activity
 * covering it (a segment tree) and, per activity, the time it is the latest
 * for (a Fenwick tree): O(n log n) whatever the nesting.  seg is reordered.
 * TP_OK or TP_ENOMEM. */
int rg_union_lengths(const tp_cols *c, const uint32_t *act, size_t nact, rg_seg *seg,
                     size_t nseg, int64_t *busy);

/* The positions of act[] by the iteration of their launching row's start
 * (launcher[act[p]]), ascending in each, with their durations added: the
 * work of a segment in one iteration by two binary searches. */
typedef struct rg_by_iter {
    size_t *begin;  /* iteration k's positions: pos[begin[k], begin[k + 1]) */
    uint32_t *pos;
    int64_t *pre;   /* durations of pos[0, j) added */
    int64_t *k, *negk; /* per position: its iteration (none: INT64_MAX), minus it (none: 1) */
} rg_by_iter;

/* TP_OK or TP_ENOMEM; close either way. */
int rg_by_iter_open(const tp_cols *c, const int32_t *launcher, const uint32_t *act, size_t nact,
                    const tp_iterations *it, rg_by_iter *b);
void rg_by_iter_close(rg_by_iter *b);

#endif
