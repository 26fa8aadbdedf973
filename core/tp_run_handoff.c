/*
 * A batch reads each trace once (issue 31): the trace's own process
 * writes what its first reader made to the batch's hand-off folder
 * (tp_trace_handoff.c), and the batch stages' process loads it when a
 * stage asks for that trace, instead of running the reader again.  A load
 * is refused, and the trace read as before, when the file is missing,
 * damaged or of another version, when the reader or its options differ
 * (a trace given a `capture`, `reader: auto` choosing another reader), or
 * when the trace file changed since its process read it.  Each file is
 * removed once tried: a second read of the same trace (a flow overlay
 * going back to earlier traces) reads the file.
 */
#include "tp_handoff.h"
#include "tp_options.h"
#include "tp_pipeline.h"
#include "tp_run.h"
#include "tp_trace.h"

#include <stdio.h>
#include <sys/stat.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double seconds_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Whether a batch stage of the pipeline reads traces: one that takes
 * several, an analysis or a filter (a writer of one trace rarely asks,
 * and a reader of results none). */
static bool batch_reads_traces(const tp_pipeline *p)
{
    for (size_t i = 0; i < p->n; i++) {
        const pstage *s = &p->stages[i];
        if (s->batch && ((s->desc->flags & TP_STAGE_F_TRACES) || s->kind == TP_STAGE_ANALYSIS ||
                         s->kind == TP_STAGE_FILTER))
            return true;
    }
    return false;
}

static double file_mb(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0 ? (double)sb.st_size / 1e6 : 0.0;
}

/* The reader's input file (its option of that role), or NULL. */
static const char *reader_input(const pstage *s)
{
    const tp_option *o = tp_option_with_role(s->desc, TP_OPT_INPUT_FILE);
    return o ? *(const char *const *)((const char *)s->config + o->offset) : NULL;
}

void tp_run_handoff_write(tp_run *run, const pstage *s, size_t pool_before)
{
    tp_run_slot *slot = tp_run_slot_of(run, s->id);
    char why[1200] = "", msg[1400];
    if (slot == NULL || slot->trace == NULL || !batch_reads_traces(run->pipeline))
        return;
    double t0 = seconds_now();
    if (pool_before != 1) /* texts interned before the reader: their order is not the read's */
        snprintf(why, sizeof why, "texts were interned before the reader");
    else
        tp_handoff_write(slot->trace, run->pool, tp_handoff_reader_key(s->desc, s->config),
                         reader_input(s), run->opts.handoff, why, sizeof why);
    if (why[0])
        snprintf(msg, sizeof msg, "no hand-off for the batch stages (%s): they read the trace",
                 why);
    else
        snprintf(msg, sizeof msg, "hand-off for the batch stages written in %.3f s (%.1f MB)",
                 seconds_now() - t0, file_mb(run->opts.handoff));
    tp_run_log(run, TP_LOG_INFO, s->id, msg);
}

int tp_run_handoff_load(tp_run *run, size_t k)
{
    tp_run_slot *slot = &run->traces[k];
    const pstage *r = slot->reader;
    if (r == NULL || r->handoff == NULL || access(r->handoff, F_OK) != 0)
        return TP_ENOTFOUND;
    double t0 = seconds_now();
    char why[1024] = "", msg[4200 + 1400];
    tp_trace *t = NULL;
    size_t latest = run->latest;
    int rc = tp_handoff_load(r->handoff, run->pool, tp_handoff_reader_key(r->desc, r->config),
                             reader_input(r), &t, why, sizeof why);
    unlink(r->handoff); /* tried once: used, or of no use */
    if (rc == TP_OK && (rc = tp_run_keep_trace(run, r->id, t)) != TP_OK)
        tp_trace_free(t);
    else if (rc == TP_OK)
        rc = tp_run_add_source(run, tp_trace_source_path(t), "the trace");
    run->latest = latest;
    if (rc == TP_OK)
        snprintf(msg, sizeof msg, "loaded from its trace process's hand-off in %.3f s (%zu events)",
                 seconds_now() - t0, tp_trace_columns(t)->n);
    else
        snprintf(msg, sizeof msg, "hand-off %s not used (%s): reading the trace", r->handoff,
                 why[0] ? why : "out of memory");
    tp_run_log(run, TP_LOG_INFO, r->id, msg);
    return rc;
}
