/* The readers' row-validation policy: see include/tracepipe/tp_sdk_rows.h. */
#include <tracepipe/tp_sdk_rows.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>

int tp_rows_add(int64_t a, int64_t b, int64_t *out)
{
    if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b))
        return 0;
    *out = a + b;
    return 1;
}

tp_rows_reason tp_rows_ns(double v, double scale, int64_t *out)
{
    double x = v * scale;
    if (!isfinite(v) || !isfinite(x))
        return isfinite(v) ? TP_ROWS_RANGE : TP_ROWS_NOT_FINITE;
    x = round(x);
    /* 2^63 is exactly representable: anything below it converts */
    if (!(x >= -9223372036854775808.0 && x < 9223372036854775808.0))
        return TP_ROWS_RANGE;
    *out = (int64_t)x;
    return TP_ROWS_N_REASONS;
}

tp_rows_reason tp_rows_dur(int64_t start, int64_t end, int64_t *dur)
{
    if (end < start)
        return TP_ROWS_BACKWARDS;
    if (start < 0 && end > INT64_MAX + start)
        return TP_ROWS_RANGE;
    *dur = end - start;
    return TP_ROWS_N_REASONS;
}

void tp_rows_drop(tp_rows_tally *t, tp_rows_reason why, const char *place, ...)
{
    if (why >= TP_ROWS_N_REASONS)
        return;
    if (tp_rows_dropped(t) == 0) {
        va_list ap;
        va_start(ap, place);
        vsnprintf(t->first, sizeof t->first, place, ap);
        va_end(ap);
    }
    t->n[why]++;
}

size_t tp_rows_dropped(const tp_rows_tally *t)
{
    size_t n = 0;
    for (int i = 0; i < TP_ROWS_N_REASONS; i++)
        n += t->n[i];
    return n;
}

void tp_rows_warn(tp_stage *st, const char *path, const char *what, const tp_rows_tally *t)
{
    static const char *const why[TP_ROWS_N_REASONS] = {"not finite", "beyond int64 ns",
                                                       "ending before they start", "negative"};
    size_t n = tp_rows_dropped(t);
    if (n == 0)
        return;
    char list[160] = "";
    size_t len = 0;
    for (int i = 0; i < TP_ROWS_N_REASONS; i++)
        if (t->n[i] && len < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%zu %s", len ? ", " : "",
                                    t->n[i], why[i]);
    tp_log(st, TP_LOG_WARN, "%s: %zu damaged %s (first at %s): %s", path, n, what,
           t->first, list);
}

int tp_rows_span(const tp_cols *c, int64_t *first, int64_t *last)
{
    *first = INT64_MAX;
    *last = INT64_MIN;
    if (c == NULL || c->n == 0)
        return 1;
    for (size_t i = 0; i < c->n; i++) {
        int64_t end;
        if (!tp_rows_add(c->ts[i], c->dur[i] > 0 ? c->dur[i] : 0, &end))
            end = INT64_MAX; /* a reader following this policy never stores one */
        if (c->ts[i] < *first)
            *first = c->ts[i];
        if (end > *last)
            *last = end;
    }
    return !(*first < 0 && *last > INT64_MAX + *first);
}

int tp_rows_span_check(tp_stage *st, const tp_trace *t, const char *path)
{
    int64_t first, last;
    if (tp_rows_span(tp_trace_cols(t), &first, &last))
        return TP_OK;
    return tp_fail(st, TP_EFORMAT,
                   "%s: the trace spans more than int64 nanoseconds (earliest start %lld ns, "
                   "latest end %lld ns), so its times cannot be subtracted",
                   path, (long long)first, (long long)last);
}
