/* Trace semantics: threads, nesting, the trace span.  See
 * include/tracepipe/tp_sdk_trace.h and docs/architecture.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_trace.h>

#include "tp_sdk_msort.h"

/* ---------------------------------------------------------------- threads */

typedef struct thread_key {
    int64_t pid, tid;
    uint32_t track;
} thread_key;

static int thread_key_cmp(const void *a, const void *b)
{
    const thread_key *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return (x->track > y->track) - (x->track < y->track);
}

int tp_thread_ranks(const tp_cols *c, uint32_t *thread_of, size_t *nthreads)
{
    size_t nt = c->n_tracks, ranks = 0;
    thread_key *keys = tp_malloc((nt ? nt : 1) * sizeof *keys);
    if (keys == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < nt; i++)
        keys[i] = (thread_key){c->tracks[i].pid, c->tracks[i].tid, (uint32_t)i};
    qsort(keys, nt, sizeof *keys, thread_key_cmp);
    for (size_t i = 0; i < nt; i++) {
        if (i > 0 && (keys[i].pid != keys[i - 1].pid || keys[i].tid != keys[i - 1].tid))
            ranks++;
        thread_of[keys[i].track] = (uint32_t)ranks;
    }
    *nthreads = ranks + (nt > 0);
    tp_free(keys);
    return TP_OK;
}

static int wanted(const tp_cols *c, size_t i, uint32_t kinds)
{
    return tp_ev_is_complete(c, i) && c->kind[i] < 32 && (kinds & TP_KIND_BIT(c->kind[i]));
}

/* A counting pass places the rows by thread (file order within each), so
 * the nesting sort that follows mostly finds long sorted runs. */
int tp_rows_complete(const tp_cols *c, uint32_t kinds, const uint32_t *thread_of,
                     size_t nthreads, uint32_t **rows, size_t *n)
{
    *rows = NULL;
    *n = 0;
    size_t *start = tp_calloc(nthreads + 1, sizeof *start);
    if (start == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < c->n; i++)
        if (wanted(c, i, kinds))
            start[thread_of[c->track[i]] + 1]++;
    for (size_t r = 0; r < nthreads; r++)
        start[r + 1] += start[r];
    size_t total = start[nthreads];
    uint32_t *out = tp_malloc((total ? total : 1) * sizeof *out);
    if (out == NULL) {
        tp_free(start);
        return TP_ENOMEM;
    }
    for (size_t i = 0; i < c->n; i++)
        if (wanted(c, i, kinds))
            out[start[thread_of[c->track[i]]]++] = (uint32_t)i;
    tp_free(start);
    *rows = out;
    *n = total;
    return TP_OK;
}

/* ---------------------------------------------------------------- sorting */

typedef struct sort_ctx {
    const tp_cols *c;
    const uint32_t *thread_of;
} sort_ctx;

static inline int time_less(const sort_ctx *s, const uint32_t *x, const uint32_t *y)
{
    return tp_nest_before(s->c, *x, *y);
}

static inline int thread_less(const sort_ctx *s, const uint32_t *x, const uint32_t *y)
{
    uint32_t tx = s->thread_of[s->c->track[*x]], ty = s->thread_of[s->c->track[*y]];
    if (tx != ty)
        return tx < ty;
    return tp_nest_before(s->c, *x, *y);
}

TP_MSORT_DEFINE(sort_by_time, uint32_t, const sort_ctx *, time_less)
TP_MSORT_DEFINE(sort_by_thread, uint32_t, const sort_ctx *, thread_less)

int tp_rows_sort_nesting(const tp_cols *c, const uint32_t *thread_of, uint32_t *rows, size_t n)
{
    sort_ctx s = {c, thread_of};
    return thread_of ? sort_by_thread(&s, rows, n) : sort_by_time(&s, rows, n);
}

/* ---------------------------------------------------------------- nesting */

static inline int64_t end_of(const tp_cols *c, uint32_t r)
{
    return c->ts[r] + c->dur[r];
}

static void crossed(tp_nest_report *rep, uint32_t row, uint32_t top)
{
    rep->crossovers++;
    if (rep->crossover)
        rep->crossover(rep->ctx, row, top);
}

void tp_nest_thread(const tp_cols *c, const uint32_t *rows, size_t n, int64_t clamp_ns,
                    int32_t *parent, uint32_t *stack, tp_nest_report *rep)
{
    size_t sp = 0; /* stack: positions in rows of the open ancestors */
    for (size_t i = 0; i < n; i++) {
        uint32_t e = rows[i];
        int64_t ts = c->ts[e], end = end_of(c, e);
        int crossing = 0;
        for (;;) {
            while (sp > 0 && end_of(c, rows[stack[sp - 1]]) <= ts)
                sp--;
            if (sp == 0)
                break;
            uint32_t top = rows[stack[sp - 1]];
            int64_t over = end - end_of(c, top);
            if (over <= 0 || over < clamp_ns)
                break; /* inside, or clamped */
            if (end_of(c, top) - ts < clamp_ns) {
                rep->clamped++; /* starts in top's last instant: follows it */
            } else if (!crossing) {
                crossed(rep, e, top);
                crossing = 1;
            }
            sp--;
        }
        if (sp > 0) {
            uint32_t top = rows[stack[sp - 1]];
            parent[e] = (int32_t)top;
            if (end > end_of(c, top))
                rep->clamped++;
        }
        stack[sp++] = (uint32_t)i;
    }
}

static int same_thread(const tp_cols *c, const uint32_t *thread_of, uint32_t a, uint32_t b)
{
    if (thread_of)
        return thread_of[c->track[a]] == thread_of[c->track[b]];
    return tp_ev_pid(c, a) == tp_ev_pid(c, b) && tp_ev_tid(c, a) == tp_ev_tid(c, b);
}

int tp_nest_rows(const tp_cols *c, const uint32_t *thread_of, uint32_t *rows, size_t n,
                 int64_t clamp_ns, int32_t *parent, tp_nest_report *report)
{
    tp_nest_report scratch_report = {0, 0, NULL, NULL};
    tp_nest_report *rep = report ? report : &scratch_report;
    uint32_t *ranks = NULL;
    if (thread_of == NULL) { /* rank the tracks here */
        size_t nthreads;
        ranks = tp_malloc((c->n_tracks ? c->n_tracks : 1) * sizeof *ranks);
        if (ranks == NULL || tp_thread_ranks(c, ranks, &nthreads) != TP_OK) {
            tp_free(ranks);
            return TP_ENOMEM;
        }
        thread_of = ranks;
    }
    uint32_t *stack = tp_malloc((n ? n : 1) * sizeof *stack);
    int rc = stack ? tp_rows_sort_nesting(c, thread_of, rows, n) : TP_ENOMEM;
    for (size_t a = 0; rc == TP_OK && a < n;) {
        size_t b = a + 1;
        while (b < n && same_thread(c, thread_of, rows[a], rows[b]))
            b++;
        tp_nest_thread(c, rows + a, b - a, clamp_ns, parent, stack, rep);
        a = b;
    }
    tp_free(stack);
    tp_free(ranks);
    return rc;
}

/* ------------------------------------------------------------- trace span */

static int counts_for_span(const tp_cols *c, size_t i, tp_span_mode mode)
{
    uint8_t k = c->kind[i];
    if (k == TP_KIND_METADATA || k == TP_KIND_TRACE)
        return 0;
    return mode == TP_SPAN_STARTS || c->dur[i] >= 0;
}

int tp_trace_span(const tp_cols *c, tp_span_mode mode, int64_t *lo, int64_t *hi)
{
    int found = 0;
    *lo = *hi = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (!counts_for_span(c, i, mode))
            continue;
        int64_t end = mode == TP_SPAN_STARTS ? c->ts[i] : c->ts[i] + c->dur[i];
        if (!found || c->ts[i] < *lo)
            *lo = c->ts[i];
        if (!found || end > *hi)
            *hi = end;
        found = 1;
    }
    return found;
}

void tp_id_text(tp_stage *st, int64_t id, char *buf, size_t size)
{
    if (TP_ID_IS_STR(id)) {
        const char *name = tp_str_text(st, TP_ID_STR(id));
        snprintf(buf, size, "'%s'", name ? name : "");
    } else {
        snprintf(buf, size, "%lld", (long long)id);
    }
}

int tp_trace_window(const tp_trace *t, int64_t *lo, int64_t *hi)
{
    if (tp_trace_info_i64(t, TP_INFO_WINDOW_START, lo) == TP_OK &&
        tp_trace_info_i64(t, TP_INFO_WINDOW_END, hi) == TP_OK && *hi >= *lo)
        return 1;
    return tp_trace_span(tp_trace_cols(t), TP_SPAN_EXTENT, lo, hi);
}
