/*
 * tracepipe SDK: the one row-validation policy of the readers
 * (docs/robustness.md, "Damaged rows").  A reader turns each row's raw
 * numbers into an event's ts and dur through these checks, never with a bare
 * `+` or a cast: times are int64 ns, and a sum or a conversion that does not
 * fit is undefined behaviour in C (a kernel that vanishes or lasts 292
 * years in a release build).
 *
 *   - a double becomes int64 ns only when finite and in range (tp_rows_ns);
 *   - a start moved by an offset, or an end computed as start + dur, must
 *     fit (tp_rows_add);
 *   - a row ending before it starts is damaged (tp_rows_dur), as is a
 *     negative duration, size or count (a reader's own check);
 *   - the whole trace, latest end minus earliest start, must fit in int64
 *     ns so that analyses may subtract any two times (tp_rows_span).
 *
 * A damaged row is dropped and counted in a tp_rows_tally by its reason;
 * tp_rows_warn then says once, per reader run, how many rows went and where
 * the first one was (FILE:place), so nothing vanishes silently.  A trace
 * whose span does not fit is refused (tp_rows_span_check).
 */
#ifndef TRACEPIPE_TP_SDK_ROWS_H
#define TRACEPIPE_TP_SDK_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "tp_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Why a row was dropped. */
typedef enum tp_rows_reason {
    TP_ROWS_NOT_FINITE, /* a NaN or infinite number */
    TP_ROWS_RANGE,      /* a time or a sum beyond int64 ns */
    TP_ROWS_BACKWARDS,  /* ends before it starts */
    TP_ROWS_NEGATIVE,   /* a negative duration, size or count */
    TP_ROWS_N_REASONS
} tp_rows_reason;

typedef struct tp_rows_tally {
    size_t n[TP_ROWS_N_REASONS];
    char first[80]; /* the place of the first dropped row, e.g. "record 12" */
} tp_rows_tally;

/* a + b into *out: 1, or 0 (and *out untouched) when it overflows int64. */
int tp_rows_add(int64_t a, int64_t b, int64_t *out);

/* v * scale rounded to the nearest int64 (e.g. ms with scale 1e6 -> ns):
 * TP_ROWS_N_REASONS when it is, else why not (not finite, or beyond int64). */
tp_rows_reason tp_rows_ns(double v, double scale, int64_t *out);

/* end - start into *dur: TP_ROWS_N_REASONS when start <= end and the
 * difference fits, else TP_ROWS_BACKWARDS or TP_ROWS_RANGE. */
tp_rows_reason tp_rows_dur(int64_t start, int64_t end, int64_t *dur);

/* Count one dropped row; place (printf-style) is kept for the first. */
void tp_rows_drop(tp_rows_tally *t, tp_rows_reason why, const char *place, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The number of dropped rows. */
size_t tp_rows_dropped(const tp_rows_tally *t);

/* One warning when rows were dropped: "PATH: N damaged WHAT (first at
 * PLACE): K not finite, K beyond int64 ns, K ending before they start,
 * K negative" (only the reasons that occurred); WHAT says what became of
 * them, e.g. "records dropped". */
void tp_rows_warn(tp_stage *st, const char *path, const char *what, const tp_rows_tally *t);

/* Earliest start and latest end (ts + max(dur, 0)) of the trace's events;
 * 1 when their difference fits in int64 ns (or no event), else 0. */
int tp_rows_span(const tp_cols *c, int64_t *first, int64_t *last);

/* tp_rows_span as the readers' refusal: TP_OK, or tp_fail(TP_EFORMAT)
 * "PATH: the trace spans more than int64 nanoseconds ...". */
int tp_rows_span_check(tp_stage *st, const tp_trace *t, const char *path);

/* A double already in ns to int64 ns, truncated toward zero: 1, or 0 when
 * it is not finite or beyond int64 (the nsys JSON-lines reader's rule). */
static inline int tp_rows_f64_ns(double v, int64_t *ns)
{
    if (!(v >= -9223372036854775808.0 && v < 9223372036854775808.0))
        return 0;
    *ns = (int64_t)v;
    return 1;
}

#ifdef __cplusplus
}
#endif

#endif
