/* Row validation shared by readers: checked arithmetic on a row's times and
 * the one rule on a trace's span (docs/robustness.md "int64 spans").
 * Header only; names tp_rows_*. */
#ifndef TRACEPIPE_TP_SDK_ROWS_H
#define TRACEPIPE_TP_SDK_ROWS_H

#include <stdint.h>

#include "tp_plugin.h"

/* end - start in ns into *dur: 1, or 0 when the row ends before it starts
 * or the difference does not fit in int64 (a damaged row). */
static inline int tp_rows_dur(int64_t start, int64_t end, int64_t *dur)
{
    int64_t d;
    if (end < start || __builtin_sub_overflow(end, start, &d))
        return 0;
    *dur = d;
    return 1;
}

/* start + dur in ns into *end: 1, or 0 when it does not fit in int64. */
static inline int tp_rows_end(int64_t start, int64_t dur, int64_t *end)
{
    return !__builtin_add_overflow(start, dur, end);
}

/* A finite double of ns as int64 into *ns: 1, or 0 for NaN, infinities and
 * values beyond int64 (1e19, 1e400 read as inf). */
static inline int tp_rows_f64_ns(double v, int64_t *ns)
{
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
        return 0;
    *ns = (int64_t)v;
    return 1;
}

/* The trace's span (earliest start to latest end, ends clamped at start)
 * must fit in int64 ns so that any two times subtract: 1 if it does (or the
 * trace is empty), 0 if not, with the two ends in *first / *last. */
static inline int tp_rows_span_fits(const tp_cols *c, int64_t *first, int64_t *last)
{
    *first = INT64_MAX;
    *last = INT64_MIN;
    for (size_t i = 0; c != NULL && i < c->n; i++) {
        int64_t end;
        if (c->dur[i] <= 0 || !tp_rows_end(c->ts[i], c->dur[i], &end))
            end = c->dur[i] <= 0 ? c->ts[i] : INT64_MAX;
        if (c->ts[i] < *first)
            *first = c->ts[i];
        if (end > *last)
            *last = end;
    }
    return c == NULL || c->n == 0 || !(*first < 0 && *last > INT64_MAX + *first);
}

/* The span rule for a reader's trace: TP_OK, or a failure naming path and
 * the two ends. */
static inline int tp_rows_span_check(tp_stage *st, tp_trace *t, const char *path)
{
    int64_t first, last;
    if (tp_rows_span_fits(tp_trace_cols(t), &first, &last))
        return TP_OK;
    return tp_fail(st, TP_EFORMAT,
                   "%s: the trace spans more than int64 nanoseconds (earliest start %lld ns, "
                   "latest end %lld ns), so its times cannot be subtracted",
                   path, (long long)first, (long long)last);
}

#endif
