/* launch_stats: what the plugin's files share (private to the plugin). */
#ifndef TRACEPIPE_LAUNCH_STATS_H
#define TRACEPIPE_LAUNCH_STATS_H

#include <stdint.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_iter.h>

enum { LS_DEFAULT, LS_HTA }; /* compat: none, hta */

typedef struct ls_config {
    int64_t compat;
    double runtime_cutoff_us, delay_cutoff_us;
    int64_t queue_full;
    int per_launch;
} ls_config;

typedef struct ls {
    tp_stage *st;
    const ls_config *cfg;
    const tp_cols *c;
    const int32_t *launcher;
    const int32_t *parent; /* host nesting (hierarchy) */
    int64_t t0;            /* start of the trace's span, for start_us */
    int round_us;          /* compat: hta on a trace with sub-us times: HTA's rounding */
    uint32_t *acts;        /* launched activities measured, by (device, stream, start) */
    size_t n;
    double *cpu, *gpu, *delay; /* per launch (acts order), us */
} ls;

/* Start and end of row i in the mode's clock (ns): as read, or under HTA's
 * rounding the start up and the end down to whole microseconds. */
int64_t ls_start(const ls *l, uint32_t i);
int64_t ls_end(const ls *l, uint32_t i);

/* The queue summary of one stream, acts[from, to). */
typedef struct ls_queue_stats {
    int64_t samples, max, min;
    double mean, std, p25, p50, p75; /* NaN when not defined */
    int64_t full_ns;                 /* time at >= queue_full launches queued */
} ls_queue_stats;

int ls_queue_of(const ls *l, size_t from, size_t to, ls_queue_stats *q);

#endif
