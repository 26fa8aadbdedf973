/*
 * analysis diff: what the two traces are (<id>.facts: producer, device,
 * world size from trace info, warned when they differ) and how long each
 * run took (<id>.summary: the median iteration after skip_first/skip_last,
 * else — warned — the capture windows), with the change in words.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_iter.h>
#include <tracepipe/tp_sdk_stats.h>

#include "diff.h"

/* ------------------------------------------------------------ the words */

const char *df_change_words(char *buf, size_t size, double pct, const char *up,
                            const char *down)
{
    if (isnan(pct))
        return NULL;
    if (pct == 0)
        snprintf(buf, size, "unchanged");
    else
        snprintf(buf, size, "%.2f %% %s", fabs(pct), pct > 0 ? up : down);
    return buf;
}

/* ------------------------------------------------------------ iterations */

int df_side_iterations(df_side *s, const tp_iter_view *iv)
{
    int64_t lo, hi;
    tp_trace_window(s->t, &lo, &hi);
    s->window_ns = hi - lo;
    s->iteration_us = NAN;
    s->markers = iv->n;
    s->iterations = iv->last > iv->first ? iv->last - iv->first : 0;
    double *dur = tp_malloc((s->iterations ? s->iterations : 1) * sizeof *dur);
    if (dur == NULL)
        return TP_ENOMEM;
    for (size_t k = 0; k < s->iterations; k++)
        dur[k] = (double)(iv->it[iv->first + k].end - iv->it[iv->first + k].start);
    tp_stats stats;
    int rc = s->iterations > 0 ? tp_stats_of(dur, s->iterations, &stats) : TP_OK;
    if (rc == TP_OK && s->iterations > 0)
        s->iteration_us = stats.p50 / 1000.0; /* numpy's median, in ns, then us */
    tp_free(dur);
    return rc;
}

/* ---------------------------------------------------------------- facts */

/* The distinct names of the devices t's GPU activities ran on, in ordinal
 * order ("A, B"); every device it names when none ran any.  "" if none. */
static void device_names(const df_side *s, char *out, size_t size)
{
    enum { MAX_DEV = 256 };
    uint8_t used[MAX_DEV] = {0};
    size_t nused = 0;
    for (size_t i = 0; i < s->c->n; i++) {
        int32_t d = tp_ev_device(s->c, i);
        if (tp_ev_is_activity(s->c, i) && d >= 0 && d < MAX_DEV && !used[d]) {
            used[d] = 1;
            nused++;
        }
    }
    out[0] = '\0';
    for (int d = 0; d < MAX_DEV; d++) {
        char key[48];
        snprintf(key, sizeof key, "device.%d.name", d);
        const char *name = tp_trace_info_str(s->t, key);
        if (name == NULL || (nused > 0 && !used[d]) || strstr(out, name) != NULL)
            continue;
        size_t len = strlen(out);
        snprintf(out + len, size - len, "%s%s", len ? ", " : "", name);
    }
}

/* Fact `name` of side s as text in out; 0 when the trace does not say. */
static int fact_text(const df_side *s, const char *name, char *out, size_t size)
{
    int64_t v;
    const char *text = NULL;
    out[0] = '\0';
    if (strcmp(name, "trace") == 0) {
        text = tp_trace_info_str(s->t, "label");
    } else if (strcmp(name, "producer") == 0) {
        text = tp_trace_info_str(s->t, "producer");
        text = text ? text : tp_trace_info_str(s->t, "format");
    } else if (strcmp(name, "device") == 0) {
        device_names(s, out, size);
    } else if (strcmp(name, "iterations") == 0) {
        if (s->iterations == s->markers)
            snprintf(out, size, "%zu", s->markers);
        else
            snprintf(out, size, "%zu of %zu", s->iterations, s->markers);
    } else if (tp_trace_info_i64(s->t, name, &v) == TP_OK) {
        snprintf(out, size, "%lld", (long long)v);
    }
    if (text)
        snprintf(out, size, "%s", text);
    return out[0] != '\0';
}

/* Adds " and NAME (A vs B)" to the warning. */
static void add_difference(char *warn, size_t size, const char *name, const char *b,
                           const char *t)
{
    size_t len = strlen(warn);
    snprintf(warn + len, size - len, "%s%s (%s vs %s)", len ? ", " : "", name, b, t);
}

int df_write_facts(tp_stage *st, const df_side side[2])
{
    static const struct {
        const char *name;
        int compared;
    } facts[] = {{"trace", 0},      {"producer", 1}, {"device", 1},
                 {"world_size", 1}, {"rank", 0},     {"iterations", 0}};
    tp_result *r = tp_result_declared(st, "facts");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(st, r, "title", "The traces compared");
    char warn[1024] = "";
    int rc = TP_OK;
    for (size_t f = 0; f < sizeof facts / sizeof *facts && rc == TP_OK; f++) {
        char b[384], t[384];
        int hb = fact_text(&side[0], facts[f].name, b, sizeof b);
        int ht = fact_text(&side[1], facts[f].name, t, sizeof t);
        const char *status = !hb || !ht ? "unknown" : strcmp(b, t) == 0 ? "same" : "differs";
        size_t row;
        rc = tp_result_add_row(st, r, &row);
        rc = rc ? rc : tp_result_set_str(st, r, row, df_fact_fact, facts[f].name);
        if (rc == TP_OK && hb)
            rc = tp_result_set_str(st, r, row, df_fact_base, b);
        if (rc == TP_OK && ht)
            rc = tp_result_set_str(st, r, row, df_fact_test, t);
        if (rc == TP_OK && facts[f].compared)
            rc = tp_result_set_str(st, r, row, df_fact_status, status);
        if (facts[f].compared && strcmp(status, "differs") == 0)
            add_difference(warn, sizeof warn, facts[f].name, b, t);
    }
    if (rc == TP_OK && warn[0]) {
        char text[1200];
        snprintf(text, sizeof text, "the traces differ in %s: the change measured is not the "
                 "code's alone", warn);
        tp_log(st, TP_LOG_WARN, "%s", text);
        rc = tp_result_set_meta(st, r, "warning", text);
    }
    return rc;
}

/* -------------------------------------------------------------- summary */

static double pct_of(double b, double t) { return b != 0 ? 100.0 * (t - b) / b : NAN; }

/* A row's delta_percent (null when base is 0) and change in words: the run
 * time's slower or faster, other times' more or less, counts' more or
 * fewer. */
static int change_cells(tp_stage *st, tp_result *r, size_t row, const int cols[2], double b,
                        double t, int run_time, int is_time)
{
    char words[64];
    const char *change = df_change_words(words, sizeof words, pct_of(b, t),
                                         run_time ? "slower" : "more",
                                         run_time ? "faster" : is_time ? "less" : "fewer");
    int rc = b != 0 ? tp_result_set_f64(st, r, row, cols[0], pct_of(b, t)) : TP_OK;
    return rc == TP_OK && change ? tp_result_set_str(st, r, row, cols[1], change) : rc;
}

/* A time row of <id>.summary. */
static int summary_row(tp_stage *st, tp_result *r, const char *measure, double b, double t,
                       int run_time)
{
    static const int cols[2] = {df_sum_delta_percent, df_sum_change};
    size_t row;
    int rc = tp_result_add_row(st, r, &row);
    rc = rc ? rc : tp_result_set_str(st, r, row, df_sum_measure, measure);
    rc = rc ? rc : tp_result_set_f64(st, r, row, df_sum_base, b);
    rc = rc ? rc : tp_result_set_f64(st, r, row, df_sum_test, t);
    rc = rc ? rc : tp_result_set_f64(st, r, row, df_sum_delta, t - b);
    if (rc == TP_OK && b != 0 && run_time)
        rc = tp_result_set_f64(st, r, row, df_sum_slower_percent, pct_of(b, t));
    return rc ? rc : change_cells(st, r, row, cols, b, t, run_time, 1);
}

/* A row of <id>.counts. */
static int count_row(tp_stage *st, tp_result *r, const char *measure, int64_t b, int64_t t)
{
    static const int cols[2] = {df_count_delta_percent, df_count_change};
    size_t row;
    int rc = tp_result_add_row(st, r, &row);
    rc = rc ? rc : tp_result_set_str(st, r, row, df_count_measure, measure);
    rc = rc ? rc : tp_result_set_i64(st, r, row, df_count_base, b);
    rc = rc ? rc : tp_result_set_i64(st, r, row, df_count_test, t);
    rc = rc ? rc : tp_result_set_i64(st, r, row, df_count_delta, t - b);
    return rc ? rc : change_cells(st, r, row, cols, (double)b, (double)t, 0, 0);
}

static int write_counts(tp_stage *st, const df_side side[2], const size_t nops[2],
                        const size_t nacts[2])
{
    tp_result *r = tp_result_declared(st, "counts");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(st, r, "title", "Base vs test: counts");
    int rc = count_row(st, r, "kernel_count", side[0].kernel_count, side[1].kernel_count);
    rc = rc ? rc : count_row(st, r, "op_names", (int64_t)nops[0], (int64_t)nops[1]);
    return rc ? rc : count_row(st, r, "kernel_names", (int64_t)nacts[0], (int64_t)nacts[1]);
}

/* Without iterations on both sides the run time is the capture window:
 * say so, with the GPU work each window holds, and how to give steps. */
static int warn_windows(tp_stage *st, tp_result *r, const df_side side[2], const char *prefix)
{
    const char *which = side[0].iterations == 0 && side[1].iterations == 0 ? "either trace"
                        : side[0].iterations == 0                          ? "the base trace"
                                                                           : "the test trace";
    const tp_iter_settings *set = tp_iterations_settings(st);
    char words[64], text[1024];
    const char *kernels = df_change_words(words, sizeof words,
                                          pct_of((double)side[0].kernel_count,
                                                 (double)side[1].kernel_count), "more", "fewer");
    snprintf(text, sizeof text, "no iterations in %s (%s '%s'): comparing capture windows "
             "(first to last event), which time the profiler, not the work; the test trace ran "
             "%s GPU activities (%lld vs %lld). Give the steps: `iterations: {marker: REGEX}` "
             "(annotations, NVTX push/pop ranges) or `iterations: {source: range, marker: "
             "REGEX}` (NVTX start/end ranges)", which, prefix ? "step_prefix" : "marker",
             prefix ? prefix : set && set->marker ? set->marker : TP_ITER_DEFAULT_MARKER,
             kernels ? kernels : "its", (long long)side[1].kernel_count,
             (long long)side[0].kernel_count);
    tp_log(st, TP_LOG_WARN, "%s", text);
    return tp_result_set_meta(st, r, "warning", text);
}

int df_write_summary(tp_stage *st, const df_side side[2], const size_t nops[2],
                     const size_t nacts[2], const char *step_prefix)
{
    const df_side *b = &side[0], *t = &side[1];
    tp_result *r = tp_result_declared(st, "summary");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(st, r, "title", "Base vs test");
    int iters = b->iterations > 0 && t->iterations > 0;
    double bt = iters ? b->iteration_us : (double)b->window_ns / 1000.0;
    double tt = iters ? t->iteration_us : (double)t->window_ns / 1000.0;
    if (!(bt > 0)) /* CONVENTIONS: a diff that cannot compare fails */
        return tp_fail(st, TP_EINVAL, "the base trace's run time (%s) is 0: nothing to compare",
                       iters ? "median iteration" : "capture window");
    int rc = summary_row(st, r, iters ? "iteration_us" : "window_us", bt, tt, 1);
    rc = rc ? rc : summary_row(st, r, "kernel_us", (double)b->kernel_ns / 1000.0,
                               (double)t->kernel_ns / 1000.0, 0);
    rc = rc ? rc : write_counts(st, side, nops, nacts);
    rc = rc ? rc : tp_result_set_meta(st, r, "run_time",
                                      iters ? "median iteration" : "capture window");
    if (rc == TP_OK && !iters)
        rc = warn_windows(st, r, side, step_prefix);
    if (rc == TP_OK) {
        char text[64];
        snprintf(text, sizeof text, "%.17g", pct_of(bt, tt));
        rc = tp_result_set_meta(st, r, "slower_percent", text);
    }
    return rc;
}
