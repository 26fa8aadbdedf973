/*
 * tracepipe SDK: iteration markers named by a Python-style regex
 * (trim_iterations, iterations, ranges): compile the option's pattern once
 * (tp_sdk_regex.h), mark the names of the candidate events that match (each
 * distinct name matched once), and let tp_sdk_trace.h find the iterations
 * (markers or NVTX-style ranges).  A plugin calling these links libpcre2-8.
 */
#ifndef TRACEPIPE_TP_SDK_MARKERS_H
#define TRACEPIPE_TP_SDK_MARKERS_H

#include <stddef.h>
#include <stdint.h>

#include "tp_plugin.h"
#include "tp_sdk_regex.h"
#include "tp_sdk_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_markers {
    pcre2_code *re;
    pcre2_match_data *md;
    const char *pattern; /* borrowed: must outlive the markers */
} tp_markers;

/* Compiles pattern (an option's value, reported as `option`); TP_OK, or
 * the error reported with tp_fail (TP_EINVAL, TP_ENOMEM).  Close the
 * markers either way. */
int tp_markers_open(tp_stage *st, tp_markers *m, const char *option, const char *pattern);

void tp_markers_close(tp_markers *m);

/* Reports that PCRE2 gave up (code < 0 from tp_pyre_search) on the name of
 * event `row`: the iterations cannot be known.  Returns TP_EINVAL. */
int tp_markers_error(tp_stage *st, const tp_markers *m, const tp_cols *c, size_t row, int code);

/* Where markers are looked for (the `ranges` argument below): host events,
 * the begins of async ranges ('b'), or GPU-side annotations. */
enum { TP_MARKERS_HOST = 0, TP_MARKERS_RANGES = 1, TP_MARKERS_GPU = 2 };

/* Is row i a candidate marker for `where` (TP_MARKERS_*)? */
int tp_markers_candidate(const tp_cols *c, size_t i, int where);

/* The candidates are host events, or with `ranges` the begins of async
 * ranges (`b`); memo[name] = 1 when the name matches, 2 when not, 0 for
 * names of no candidate (memo holds nstr entries, zeroed by the caller). */
int tp_markers_memo(tp_stage *st, const tp_markers *m, int ranges, const tp_cols *c,
                    uint8_t *memo, size_t nstr);

/* The iterations the markers delimit (tp_iterations_from_markers with
 * TP_NEST_CLAMP_NS, or tp_iterations_from_ranges with `ranges`); free
 * with tp_iterations_free. */
int tp_markers_iterations(tp_stage *st, const tp_markers *m, int ranges, const tp_cols *c,
                          tp_iterations *it);

#ifdef __cplusplus
}
#endif

#endif
