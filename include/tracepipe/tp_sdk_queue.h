/*
 * tracepipe SDK: the launch queue of a stream as one series (CONVENTIONS,
 * "Overheads": queue length is one SDK series; launch_stats.queue owns its
 * summary, counters writes it into a Chrome trace).  n items each enter the
 * queue at in[i] and leave it at out[i] (a launch call's start; its
 * activity's end, or start under HTA's definition); the series is the
 * queue's length after each of the 2n changes, in time order.
 */
#ifndef TRACEPIPE_TP_SDK_QUEUE_H
#define TRACEPIPE_TP_SDK_QUEUE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_queue_point {
    int64_t t;     /* ns */
    int64_t depth; /* items queued after the change at t */
} tp_queue_point;

/* At equal times: leaves before entries (tracepipe's default), or entries
 * first (HTA's concatenation order). */
typedef enum tp_queue_ties { TP_QUEUE_LEAVES_FIRST = 0, TP_QUEUE_ENTRIES_FIRST = 1 } tp_queue_ties;

/* The 2n points into *pts (malloc'd, the caller frees; NULL when n = 0).
 * TP_OK or TP_ENOMEM. */
int tp_queue_series(const int64_t *in, const int64_t *out, size_t n, tp_queue_ties ties,
                    tp_queue_point **pts);

/* The time (ns) the series p[0, m) spends with at least `limit` items
 * queued: from each point at that depth to the next (a host blocked on a
 * full launch queue, HTA's get_time_spent_blocked_on_full_queue). */
int64_t tp_queue_time_at_least(const tp_queue_point *p, size_t m, int64_t limit);

#ifdef __cplusplus
}
#endif

#endif
