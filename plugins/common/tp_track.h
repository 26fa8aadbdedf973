/*
 * An event placed on its track (pid, tid) with its interval, and the order
 * that nests events by time on each track: by track, then start, then the
 * longer (enclosing) one first, then row.  Header-only.
 */
#ifndef TRACEPIPE_PLUGINS_TP_TRACK_H
#define TRACEPIPE_PLUGINS_TP_TRACK_H

#include <stddef.h>
#include <stdint.h>

typedef struct tp_track_ev {
    int64_t pid, tid, ts, end;
    size_t row;
} tp_track_ev;

/* qsort comparator for tp_track_ev. */
static inline int tp_track_ev_cmp(const void *a, const void *b)
{
    const tp_track_ev *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1; /* longest first: parents before children */
    return x->row < y->row ? -1 : x->row > y->row;
}

#endif
