/* Hand-made Kineto traces read through the real pipeline, for the SDK
 * suites that need a run (check_sdk_iter.c, check_sdk_hier.c). */
#ifndef TRACEPIPE_TESTS_SDK_KINETO_H
#define TRACEPIPE_TESTS_SDK_KINETO_H

#include "tp_internal.h"
#include "tp_pipeline.h"

typedef struct kineto_run {
    char path[64]; /* the trace's temp file */
    tp_ctx *ctx;
    tp_pipeline *p;
    tp_run *run;
    tp_stage st;     /* a stage "probe" of the run, on its latest trace */
    const tp_cols *c; /* that trace's columns */
} kineto_run;

/* Writes json to a temp file and runs the pipeline `top` (YAML lines before
 * `stages:`, may be "") whose stages are `reader: kineto` on that file then
 * `stages` (YAML lines, may be ""); fails the test if it does not load or
 * run.  Points tp_host at the core's host table. */
void kineto_run_open(kineto_run *f, const char *json, const char *top, const char *stages);

/* Frees the run, pipeline and registry and removes the temp file. */
void kineto_run_close(kineto_run *f);

#endif
