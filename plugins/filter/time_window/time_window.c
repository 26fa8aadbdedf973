/*
 * time_window: keep the events of a time range of the trace.
 *
 * The span runs from the earliest start to the latest end of the events
 * with a duration.  The window is the intersection of the fraction window
 * [start_fraction, end_fraction] of that span and the time window
 * [start_us, end_us], µs after the span's start (or on the trace's own
 * clock with absolute: true).  Events overlapping the window are kept (or,
 * with mode: contained, those lying inside it); points (no duration) are
 * kept when inside.  Metadata events are always kept.
 */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>

typedef struct tw_config {
    double start_fraction, end_fraction;
    double start_us, end_us;
    int absolute;
    const char *mode;
} tw_config;

static const char *const tw_modes[] = {"overlap", "contained", NULL};

/* 1e300 stands for "no limit": the core only knows options with values. */
static const tp_option tw_options[] = {
    TP_OPTION_FLOAT("start_fraction", tw_config, start_fraction, "0", 0, 1,
                    "window start as a fraction of the trace span"),
    TP_OPTION_FLOAT("end_fraction", tw_config, end_fraction, "1", 0, 1,
                    "window end as a fraction of the trace span"),
    TP_OPTION_FLOAT("start_us", tw_config, start_us, "-1e300", -1e300, 1e300,
                    "window start in µs (after the trace's first event unless absolute)"),
    TP_OPTION_FLOAT("end_us", tw_config, end_us, "1e300", -1e300, 1e300,
                    "window end in µs (after the trace's first event unless absolute)"),
    TP_OPTION_BOOL("absolute", tw_config, absolute, "false",
                   "start_us/end_us are times on the trace's clock, not offsets"),
    TP_OPTION_CHOICE("mode", tw_config, mode, "overlap", tw_modes,
                     "keep events overlapping the window, or only those inside it"),
    TP_OPTION_END};

/* µs -> ns, saturated to the int64 range. */
static int64_t us_to_ns(double us)
{
    double ns = nearbyint(us * 1000.0);
    if (ns >= 9.2e18)
        return INT64_MAX;
    if (ns <= -9.2e18)
        return INT64_MIN;
    return (int64_t)ns;
}

static int64_t sat_add(int64_t a, int64_t b)
{
    if (b > 0 && a > INT64_MAX - b)
        return INT64_MAX;
    if (b < 0 && a < INT64_MIN - b)
        return INT64_MIN;
    return a + b;
}

static int has_span(const tp_cols *c, size_t i)
{
    return c->dur[i] >= 0 && c->kind[i] != TP_KIND_METADATA;
}

/* Earliest start and latest end of the events with durations; 0 if none. */
static int find_span(const tp_cols *c, int64_t *lo, int64_t *hi)
{
    int found = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (!has_span(c, i))
            continue;
        int64_t end = c->ts[i] + c->dur[i];
        if (!found || c->ts[i] < *lo)
            *lo = c->ts[i];
        if (!found || end > *hi)
            *hi = end;
        found = 1;
    }
    return found;
}

static int tw_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const tw_config *cfg = config;
    if (cfg->start_fraction > cfg->end_fraction)
        return tp_fail(st, TP_EINVAL, "start_fraction %g is after end_fraction %g",
                       cfg->start_fraction, cfg->end_fraction);
    if (cfg->start_us > cfg->end_us)
        return tp_fail(st, TP_EINVAL, "start_us %g is after end_us %g", cfg->start_us, cfg->end_us);
    const tp_cols *c = tp_trace_cols(tp_stage_trace(st));
    uint8_t *keep = tp_keep_mask(st);
    int64_t lo = 0, hi = 0;
    if (!find_span(c, &lo, &hi)) {
        tp_log(st, TP_LOG_WARN, "no event has a duration: the trace has no span, nothing kept");
        for (size_t i = 0; i < c->n; i++)
            keep[i] = c->kind[i] == TP_KIND_METADATA;
        return TP_OK;
    }
    double span = (double)(hi - lo);
    int64_t ws = lo + (int64_t)nearbyint(cfg->start_fraction * span);
    int64_t we = lo + (int64_t)nearbyint(cfg->end_fraction * span);
    int64_t base = cfg->absolute ? 0 : lo;
    int64_t us_lo = sat_add(base, us_to_ns(cfg->start_us)), us_hi = sat_add(base, us_to_ns(cfg->end_us));
    ws = us_lo > ws ? us_lo : ws;
    we = us_hi < we ? us_hi : we;
    int contained = strcmp(cfg->mode, "contained") == 0;
    size_t kept = 0;
    for (size_t i = 0; i < c->n; i++) {
        int64_t ts = c->ts[i], end = ts + (c->dur[i] > 0 ? c->dur[i] : 0);
        int k;
        if (c->kind[i] == TP_KIND_METADATA)
            k = 1;
        else if (contained || c->dur[i] <= 0)
            k = ts >= ws && end <= we;
        else
            k = ts < we && end > ws;
        keep[i] = (uint8_t)k;
        kept += (size_t)k;
    }
    tp_log(st, TP_LOG_INFO, "span %.3f ms; window %.3f..%.3f ms after its start (%s): %zu of %zu events",
           span / 1e6, (double)(ws - lo) / 1e6, (double)(we - lo) / 1e6, cfg->mode, kept, c->n);
    return TP_OK;
}

static const tp_stage_desc tw_stages[] = {
    TP_STAGE(TP_STAGE_FILTER, "time_window",
             "keep events in a time window (fractions of the span or µs)", tw_options, tw_config,
             NULL, tw_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("time_window", "0.1.0", tw_stages);
