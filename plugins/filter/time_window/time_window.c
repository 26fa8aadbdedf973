/*
 * time_window: keep the events of a time range of the trace.
 *
 * The span is the SDK's trace span (tp_trace_span): from the earliest start
 * to the latest end of the events with a duration (mode: starts: from the
 * earliest to the latest start of all events, as seed 004 measures it);
 * metadata and the profiler's own span (kind TRACE) do not count.  The window is the intersection of the
 * fraction window [start_fraction, end_fraction] of that span and the time
 * window [start_us, end_us], µs after the span's start (or on the trace's
 * own clock with absolute: true).  The µs limits are read as exact decimals
 * (epoch µs with ns digits do not fit a double).  Events overlapping the
 * window are kept (mode: contained: those lying inside it; mode: starts:
 * those starting strictly inside it); points (no duration) are kept when
 * inside.  Profiler spans are kept only when inside the window, so a
 * trimmed trace never carries the untrimmed span.  Metadata is always kept.
 * mode: clip keeps what overlap keeps and cuts every kept event (the
 * profiler's span included) to the window, so time summed over the result
 * is time inside the window.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_trace.h>

typedef struct tw_config {
    double start_fraction, end_fraction;
    const char *start_us, *end_us; /* decimal text, NULL = no limit */
    int absolute;
    int mode; /* tw_mode: the index in tw_modes */
} tw_config;

typedef enum tw_mode { TW_OVERLAP, TW_CONTAINED, TW_STARTS, TW_CLIP } tw_mode;

static const char *const tw_modes[] = {"overlap", "contained", "starts", "clip", NULL};

static const tp_option tw_options[] = {
    TP_OPTION_FLOAT("start_fraction", tw_config, start_fraction, "0", 0, 1,
                    "window start as a fraction of the trace span"),
    TP_OPTION_FLOAT("end_fraction", tw_config, end_fraction, "1", 0, 1,
                    "window end as a fraction of the trace span"),
    TP_OPTION_STRING("start_us", tw_config, start_us, NULL,
                     "window start in µs, exact decimal (after the span's start unless absolute)"),
    TP_OPTION_STRING("end_us", tw_config, end_us, NULL,
                     "window end in µs, exact decimal (after the span's start unless absolute)"),
    TP_OPTION_BOOL("absolute", tw_config, absolute, "false",
                   "start_us/end_us are times on the trace's clock, not offsets"),
    TP_OPTION_ENUM("mode", tw_config, mode, "overlap", tw_modes,
                     "keep events overlapping the window, lying inside it, starting inside it, or "
                     "overlapping it cut to it (clip)"),
    TP_OPTION_END};

/* The µs limits in ns, parsed once when the stage starts. */
typedef struct tw_state {
    int64_t lo_ns, hi_ns;
    int has_lo, has_hi;
    tw_mode mode;
} tw_state;

/* ---- exact decimal µs -> ns */
typedef struct decimal {
    const char *ip, *fp; /* integer and fraction digits */
    size_t il, fl;
    long exp;
    int neg;
} decimal;

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int digit_at(const decimal *d, long i)
{
    if (i < 0)
        return 0;
    if ((size_t)i < d->il)
        return d->ip[i] - '0';
    i -= (long)d->il;
    return (size_t)i < d->fl ? d->fp[i] - '0' : 0;
}

/* [+-]digits[.digits][e[+-]digits], at least one digit; 0 if it is not. */
static int split_decimal(const char *s, decimal *d)
{
    memset(d, 0, sizeof *d);
    if (*s == '+' || *s == '-')
        d->neg = *s++ == '-';
    for (d->ip = s; is_digit(*s); s++)
        d->il++;
    if (*s == '.')
        for (d->fp = ++s; is_digit(*s); s++)
            d->fl++;
    if (d->il + d->fl == 0)
        return 0;
    if (*s == 'e' || *s == 'E') {
        int eneg = 0;
        s++;
        if (*s == '+' || *s == '-')
            eneg = *s++ == '-';
        if (!is_digit(*s))
            return 0;
        for (; is_digit(*s); s++)
            if (d->exp < 1000000)
                d->exp = d->exp * 10 + (*s - '0');
        d->exp = eneg ? -d->exp : d->exp;
    }
    return *s == '\0';
}

/* text µs -> ns, rounded to nearest (halves away from zero) like the
 * kineto reader.  -1: not a number, -2: out of the int64 ns range. */
static int parse_us(const char *text, int64_t *ns)
{
    decimal d;
    if (!split_decimal(text, &d))
        return -1;
    long point = (long)d.il + d.exp + 3; /* ns digits before the decimal point */
    long total = (long)(d.il + d.fl);
    uint64_t acc = 0;
    for (long i = 0; i < point; i++) {
        if (i >= total && acc == 0)
            break; /* all digits were zeros */
        unsigned dig = (unsigned)digit_at(&d, i);
        if (acc > ((uint64_t)INT64_MAX - dig) / 10)
            return -2;
        acc = acc * 10 + dig;
    }
    if (point >= 0 && digit_at(&d, point) >= 5 && ++acc > (uint64_t)INT64_MAX)
        return -2;
    *ns = d.neg ? -(int64_t)acc : (int64_t)acc;
    return 0;
}

static int parse_limit(tp_stage *st, const char *name, const char *text, int64_t *ns, int *has)
{
    *has = text != NULL;
    if (text == NULL)
        return TP_OK;
    int rc = parse_us(text, ns);
    if (rc == -1)
        return tp_fail(st, TP_EINVAL, "%s: '%s' is not a number of µs", name, text);
    if (rc == -2)
        return tp_fail(st, TP_EINVAL, "%s: %s µs is out of range", name, text);
    return TP_OK;
}

static int tw_init(tp_stage *st, const void *config, void **state)
{
    const tw_config *cfg = config;
    tw_state *s = tp_calloc(1, sizeof *s);
    if (s == NULL)
        return TP_ENOMEM;
    *state = s;
    s->mode = (tw_mode)cfg->mode;
    if (cfg->start_fraction > cfg->end_fraction)
        return tp_fail(st, TP_EINVAL, "start_fraction %g is after end_fraction %g",
                       cfg->start_fraction, cfg->end_fraction);
    int rc = parse_limit(st, "start_us", cfg->start_us, &s->lo_ns, &s->has_lo);
    if (rc == TP_OK)
        rc = parse_limit(st, "end_us", cfg->end_us, &s->hi_ns, &s->has_hi);
    if (rc == TP_OK && s->has_lo && s->has_hi && s->lo_ns > s->hi_ns)
        return tp_fail(st, TP_EINVAL, "start_us %s is after end_us %s", cfg->start_us, cfg->end_us);
    return rc;
}

static void tw_destroy(tp_stage *st, void *state)
{
    (void)st;
    tp_free(state);
}

/* ---- span and window */
static int64_t sat_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

static int keep_event(const tp_cols *c, size_t i, tw_mode mode, int64_t ws, int64_t we)
{
    int64_t ts = c->ts[i], end = ts + (c->dur[i] > 0 ? c->dur[i] : 0);
    uint8_t kind = c->kind[i];
    if (kind == TP_KIND_METADATA)
        return 1;
    if (mode == TW_STARTS)
        return ts > ws && (kind == TP_KIND_TRACE ? end : ts) < we;
    if (mode == TW_CLIP && c->dur[i] > 0)
        return ts < we && end > ws;
    if (mode == TW_CONTAINED || kind == TP_KIND_TRACE || c->dur[i] <= 0)
        return ts >= ws && end <= we;
    return ts < we && end > ws;
}

/* Cuts kept event i to [ws, we) when it crosses an edge. */
static int clip_to(tp_stage *st, const tp_cols *c, size_t i, int64_t ws, int64_t we)
{
    int64_t ts = c->ts[i], end = ts + c->dur[i];
    if (ts >= ws && end <= we)
        return TP_OK;
    int64_t a = ts > ws ? ts : ws, b = end < we ? end : we;
    return tp_clip(st, i, a, b - a);
}

static int tw_run(tp_stage *st, const void *config, void *state)
{
    const tw_config *cfg = config;
    const tw_state *s = state;
    const tp_cols *c = tp_trace_cols(tp_stage_trace(st));
    uint8_t *keep = tp_keep_mask(st);
    int64_t lo = 0, hi = 0;
    if (!tp_trace_span(c, s->mode == TW_STARTS ? TP_SPAN_STARTS : TP_SPAN_EXTENT, &lo, &hi)) {
        tp_log(st, TP_LOG_WARN, "no event counts for the span (%s): nothing kept",
               tw_modes[cfg->mode]);
        for (size_t i = 0; i < c->n; i++)
            keep[i] = c->kind[i] == TP_KIND_METADATA;
        return TP_OK;
    }
    double span = (double)(hi - lo);
    int64_t ws = lo + (int64_t)nearbyint(cfg->start_fraction * span);
    int64_t we = lo + (int64_t)nearbyint(cfg->end_fraction * span);
    int64_t base = cfg->absolute ? 0 : lo;
    if (s->has_lo && sat_add(base, s->lo_ns) > ws)
        ws = sat_add(base, s->lo_ns);
    if (s->has_hi && sat_add(base, s->hi_ns) < we)
        we = sat_add(base, s->hi_ns);
    size_t kept = 0;
    for (size_t i = 0; i < c->n; i++) {
        keep[i] = (uint8_t)keep_event(c, i, s->mode, ws, we);
        kept += keep[i];
        if (keep[i] && s->mode == TW_CLIP && c->dur[i] > 0 && c->kind[i] != TP_KIND_METADATA) {
            int rc = clip_to(st, c, i, ws, we);
            if (rc != TP_OK)
                return rc;
        }
    }
    if (s->mode == TW_CLIP) { /* analyses afterwards divide by the window */
        tp_trace *t = tp_stage_trace(st);
        int rc = tp_trace_info_set_i64(st, t, TP_INFO_WINDOW_START, ws);
        if (rc == TP_OK)
            rc = tp_trace_info_set_i64(st, t, TP_INFO_WINDOW_END, we > ws ? we : ws);
        if (rc != TP_OK)
            return rc;
    }
    tp_log(st, TP_LOG_INFO, "span %.3f ms; window %.3f..%.3f ms after its start (%s): %zu of %zu events",
           span / 1e6, ((double)ws - (double)lo) / 1e6, ((double)we - (double)lo) / 1e6, tw_modes[cfg->mode],
           kept, c->n);
    return TP_OK;
}

static const tp_stage_desc tw_stages[] = {
    TP_STAGE_FULL(TP_STAGE_FILTER, "time_window",
                  "keep events in a time window (fractions of the span or µs)",
                  tw_options, tw_config, NULL, TP_PRODUCES_NONE, 0,
                  tw_init, tw_run, tw_destroy),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("time_window", "0.1.0", tw_stages);
