/*
 * A batch's traces read when a stage asks for them (issue 31).  The batch
 * pipeline (tp_pipeline_for_batch) has a reader per trace, marked
 * deferred: where it stands, the run only keeps a husk under its id (no
 * rows).  A stage that does not stream has its traces read before it runs
 * and kept, as before; a TP_STAGE_F_STREAM stage has trace i read when it
 * asks (tp_stage_trace_at), its required analyses run on it, and the one it
 * asked for before let go (back to a husk: its info and metadata stay, so
 * results still name the trace they came from).  So `ranks` or a merged
 * Chrome trace over 128 ranks holds one rank at a time.
 */
#include "tp_pipeline.h"
#include "tp_run.h"
#include "tp_trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int tp_run_defer_reader(tp_run *run, const pstage *s)
{
    int rc = tp_run_add_reader_input(run, s->desc, s->config);
    tp_trace *husk = rc == TP_OK ? tp_trace_new(run->pool) : NULL;
    if (husk == NULL)
        return rc != TP_OK ? rc : TP_ENOMEM;
    if ((rc = tp_run_keep_trace(run, s->id, husk)) != TP_OK) {
        tp_trace_free(husk);
        return rc;
    }
    tp_run_slot *slot = tp_run_slot_of(run, s->id);
    slot->reader = s;
    slot->loaded = false;
    return TP_OK;
}

bool tp_run_stage_reads_late(const pstage *s)
{
    if ((s->desc->flags & TP_STAGE_F_STREAM) || s->kind == TP_STAGE_READER)
        return true; /* a reader makes its trace (or results): it reads no other */
    return s->kind == TP_STAGE_WRITER && !(s->desc->flags & TP_STAGE_F_TRACES) && s->n_reqs == 0;
}

static bool streams(const tp_stage *st)
{
    return st->ps != NULL && (st->desc->flags & TP_STAGE_F_STREAM);
}

/* Reads a deferred slot's trace: loaded from its trace process's hand-off
 * when there is one that matches (tp_run_handoff.c), else its reader run
 * again; the latest trace left as it was. */
int tp_run_slot_read(tp_run *run, size_t k)
{
    const pstage *r = run->traces[k].reader;
    if (tp_run_handoff_load(run, k) == TP_OK) {
        run->traces[k].loaded = true;
        return TP_OK;
    }
    size_t latest = run->latest;
    int had = run->has_rank_hint;
    int64_t hint = run->rank_hint;
    run->has_rank_hint = r->has_rank_hint;
    run->rank_hint = r->rank_hint;
    tp_stage st;
    memset(&st, 0, sizeof st);
    int rc = tp_run_exec_stage(run, r->desc, r->id, r->config, &st, "reader (batch)", NULL, 0);
    if (rc != TP_OK)
        tp_run_report_failure(run, r, r->id, &st, rc);
    run->has_rank_hint = had;
    run->rank_hint = hint;
    run->latest = latest;
    if (rc == TP_OK)
        run->traces[k].loaded = true;
    return rc;
}

/* The analyses streaming stage ps requires, run on slot k's trace where
 * it lacks them. */
int tp_run_slot_reqs(tp_run *run, size_t k, const pstage *ps)
{
    char *one[1] = {run->traces[k].id};
    int rc = TP_OK;
    for (size_t q = 0; ps && q < ps->n_reqs && rc == TP_OK; q++) {
        const preq *req = &ps->reqs[q];
        if (tp_trace_is_done(run->traces[k].trace, req->desc->name))
            continue;
        tp_stage st;
        memset(&st, 0, sizeof st);
        rc = tp_run_exec_stage(run, req->desc, req->id, req->config, &st, "required analysis",
                               one, 1);
        if (rc != TP_OK)
            tp_run_report_failure(run, ps, req->id, &st, rc);
    }
    return rc;
}

/* Reads a deferred slot's trace, then, for a streaming stage ps, the
 * analyses it requires on it. */
static int read_slot(tp_run *run, size_t k, const pstage *ps)
{
    int rc = tp_run_slot_read(run, k);
    return rc == TP_OK ? tp_run_slot_reqs(run, k, ps) : rc;
}

int tp_run_hold_traces(tp_run *run, const pstage *s)
{
    size_t n = s->n_traces ? s->n_traces : 1;
    for (size_t i = 0; i < n; i++) {
        tp_run_slot *slot = tp_run_slot_of(run, s->n_traces ? s->traces[i] : NULL);
        if (slot == NULL || slot->reader == NULL || slot->loaded)
            continue;
        int rc = read_slot(run, (size_t)(slot - run->traces), NULL);
        if (rc != TP_OK)
            return rc;
    }
    return TP_OK;
}

/* The stage's trace pointers after a slot's trace changed. */
void tp_run_stage_rebind(tp_stage *st)
{
    for (size_t i = 0; i < st->n_traces; i++)
        if (st->slots[i])
            st->traces[i] = st->run->traces[st->slots[i] - 1].trace;
    if (st->n_traces)
        st->trace = st->traces[0];
}

/* Slot k's rows freed: its trace becomes a husk (id, info, metadata).
 * What changed in its source file while it was read goes into why (""
 * when nothing did). */
void tp_run_slot_husk(tp_run *run, size_t k, char *why, size_t why_size)
{
    tp_run_slot *slot = &run->traces[k];
    const char *problem = tp_trace_source_problem(slot->trace);
    snprintf(why, why_size, "%s", problem ? problem : "");
    tp_trace *husk = tp_trace_husk(slot->trace);
    if (husk == NULL)
        return; /* kept: memory is short, but the trace is still right */
    tp_trace_free(slot->trace);
    slot->trace = husk;
    slot->loaded = false;
}

/* A source file that changed while the stage read its args fails the
 * stage, as check_source would have. */
static void let_go(tp_stage *st, size_t k)
{
    char why[sizeof st->error];
    tp_run_slot_husk(st->run, k, why, sizeof why);
    if (why[0] && st->error_code == 0) {
        snprintf(st->error, sizeof st->error, "%s", why);
        st->error_code = TP_EIO;
    }
    tp_run_stage_rebind(st);
}

void tp_run_stage_let_go(tp_stage *st)
{
    if (st->current)
        let_go(st, st->current - 1);
    st->current = 0;
}

int tp_run_stage_trace_ready(tp_stage *st, size_t i)
{
    if (i >= st->n_traces || st->slots == NULL || st->slots[i] == 0)
        return TP_OK;
    size_t k = st->slots[i] - 1;
    if (st->group != NULL)
        return tp_run_group_trace(st, k); /* one read for every stage of the group */
    if (st->run->traces[k].loaded)
        return TP_OK;
    if (streams(st))
        tp_run_stage_let_go(st);
    int rc = read_slot(st->run, k, streams(st) ? st->ps : NULL);
    if (rc == TP_OK && streams(st))
        st->current = k + 1;
    else if (rc != TP_OK && st->error_code == 0) {
        snprintf(st->error, sizeof st->error, "trace '%s' could not be read (above)",
                 st->run->traces[k].id);
        st->error_code = rc;
    }
    tp_run_stage_rebind(st);
    return rc;
}
