/*
 * Iterations, once per trace (SDK view).  The pipeline sets them once, at
 * the top (`iterations:`: marker regex, source, skip_first, skip_last); the
 * first stage that asks computes them on its trace and publishes them there
 * (trace attachments "tp.iterations", "tp.iterations.memo", and
 * "tp.iterations.row" once a stage asks for rows), and every later stage
 * reads the same ones.  A
 * filter makes a new trace, on which they are computed again.
 *
 * A stage option that names markers (step_prefix, marker, ranges, source) is an
 * override: given, it replaces the pipeline's setting for that stage only,
 * and its iterations are the stage's own (never published).  A plugin never
 * parses markers itself.
 *
 * Step numbers: the marker's first capture group when it is a number, else
 * the name's text after its last '#' when that is all digits
 * (ProfilerStep#12: 12), else the ordinal (0-based).  Rows
 * belong to the iteration whose [start, end) holds their start.
 *
 * The plugin links libpcre2-8 (pkg-config tracepipe gives it).
 */
#ifndef TRACEPIPE_TP_SDK_ITER_H
#define TRACEPIPE_TP_SDK_ITER_H

#include <stddef.h>
#include <stdint.h>

#include "tp_plugin.h"
#include "tp_sdk_trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A stage's override of the pipeline's iterations; all zero: none. */
typedef struct tp_iter_override {
    const char *marker; /* a regex (Python syntax), or NULL */
    const char *prefix; /* a name prefix (step_prefix), or NULL: matched literally */
    int ranges;         /* 1: the stage's `ranges: true` (async ranges) */
    int gpu;            /* 1: the stage's `source: gpu_annotation` */
    const char *option; /* the option's name, for messages ("marker") */
} tp_iter_override;

typedef struct tp_iter_view {
    size_t n;               /* iterations, in time order */
    tp_iteration *it;       /* n: [start, end) ns and the marker row */
    int64_t *step;          /* n: step numbers */
    const int32_t *row;     /* c->n cells: the iteration of each row's start, or -1;
                               NULL until tp_iter_view_rows asks for it */
    uint8_t *memo;          /* names the marker matches (1), other candidates' (2) */
    size_t nmemo;
    size_t first, last;     /* iterations [first, last) count in per-iteration statistics */
    int64_t pid, tid;       /* the thread (host) the iterations were counted on */
    size_t threads, nested; /* threads holding markers; markers nested in markers */
    const char *marker;     /* the pattern in force (borrowed) */
    tp_iter_source source;
    int overridden;         /* 1: a stage option set them */
    int32_t *own_row;       /* private: row when the view owns it */
    char *own_marker;       /* private */
} tp_iter_view;

/* The iterations of trace t (tp_stage_trace(st) when NULL) as the pipeline
 * sets them, or as ov overrides them (NULL or zeroed: no override).  A
 * bad override regex or a regex PCRE2 gives up on fails the stage (tp_fail).
 * Release with tp_iter_view_release. */
int tp_iter_view_get(tp_stage *st, tp_trace *t, const tp_iter_override *ov, tp_iter_view *v);
void tp_iter_view_release(tp_iter_view *v);

/* Fills v->row, the iteration of every row (4 bytes an event, so only for
 * stages that need it; published with the iterations, computed once). */
int tp_iter_view_rows(tp_stage *st, tp_trace *t, tp_iter_view *v);

/* Is name one the marker matches (a step marker)? */
static inline int tp_iter_is_marker(const tp_iter_view *v, tp_str name)
{
    return name < v->nmemo && v->memo[name] == 1;
}

/* The step number a marker's name gives without a capture group: the
 * digits after its last '#' when that is all that follows
 * (ProfilerStep#12: 12), else `ordinal`.  (since 3.4) */
int64_t tp_iter_step_of_name(const char *text, size_t len, int64_t ordinal);

/* The iterations as the older tp_iterations struct (borrowed arrays: do not
 * free), for SDK functions that take one. */
static inline tp_iterations tp_iter_as_iterations(const tp_iter_view *v)
{
    tp_iterations it;
    it.it = v->it;
    it.n = v->n;
    it.pid = v->pid;
    it.tid = v->tid;
    it.threads = v->threads;
    it.nested = v->nested;
    return it;
}

#ifdef __cplusplus
}
#endif
#endif
