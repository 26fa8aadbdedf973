/*
 * hierarchy: the host event forest and GPU launch links.
 *
 * The semantics are the SDK's (tp_sdk_trace.h): host events nested per
 * (pid, tid) with the overlap clamp, the main thread, launch links.  This
 * plugin adds the cross-thread attach (other threads' roots lying inside a
 * main-thread event go under it), children lists and depths, and publishes
 * it all as trace attachments (see docs/plugins/hierarchy.md) so later
 * analyses never recompute it.  Everything is O(n log n).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_trace.h>
#include <tracepipe/tp_sdk_iter.h>

#include "hier_internal.h"

static const tp_option hier_options[] = {
    TP_OPTION_BOOL("cross_thread", hier_config, cross_thread, "true",
                   "attach other threads' events lying inside a main-thread event under it"),
    TP_OPTION_INT("clamp_ns", hier_config, clamp_ns, "1000", 0, 1e12,
                  "a child ending less than this past its parent's end is still nested"),
    TP_OPTION_STRING("step_prefix", hier_config, step_prefix, NULL,
                     "override of the pipeline's iterations: marker for this stage: a name "
                     "prefix of the iteration markers that pick the main thread"),
    TP_OPTION_BOOL("python_frames", hier_config, python_frames, "false",
                   "nest Python frames (python_function events, with_stack=True) into the host "
                   "tree; by default they are left out, so ops nest under the steps"),
    TP_OPTION_END};

/* <id>: the forest's counts as a long table, one row per metric in a fixed
 * order (events, host_events, ..., cross_thread_attached). */
#define HIER_COLS(X, P)                                                                            \
    X(P, metric, STR, NULL, "what is counted: events, host_events, host_events_nested, roots, "    \
                            "threads, main_tid, launches_linked, gpu_linked, gpu_unlinked, "       \
                            "ambiguous_corr, clamped_overlaps, crossovers, "                       \
                            "cross_thread_attached")                                               \
    X(P, value, I64, NULL, "the metric's count (main_tid: the main thread's tid, -1 without "      \
                           "host events)")
TP_COLUMNS(hier_main, HIER_COLS);

static const tp_result_decl hier_results[] = {
    TP_RESULT("", "table", hier_main, "one row per metric of the forest and launch links"),
    TP_RESULTS_END};

/* The most crossovers described one by one (at -v); one warning sums up. */
#define HIER_MAX_WARNINGS 5

static void describe_crossover(const hier *h, uint32_t e, uint32_t top, char *buf, size_t size)
{
    const tp_cols *c = h->c;
    snprintf(buf, size,
             "event %lld '%s' (ts %lld, dur %lld ns) overlaps the end of '%s' (ts %lld, dur %lld ns) "
             "by %lld ns",
             (long long)e, tp_str_text(h->st, c->name[e]), (long long)c->ts[e],
             (long long)c->dur[e], tp_str_text(h->st, c->name[top]), (long long)c->ts[top],
             (long long)c->dur[top], (long long)(hier_end(c, e) - hier_end(c, top)));
}

/* Crossovers are profiler artefacts far more often than real overlaps:
 * the first few are listed at -v, the first is kept for the summary. */
static void note_crossover(void *ctx, uint32_t e, uint32_t top)
{
    hier *h = ctx;
    if (h->warned++ == 0) {
        h->first_cross = e;
        h->first_crossed = top;
    }
    if (h->warned > HIER_MAX_WARNINGS)
        return;
    char what[1024];
    describe_crossover(h, e, top, what, sizeof what);
    tp_log(h->st, TP_LOG_INFO, "crossover: %s: made a sibling, not a child", what);
}

/* Ranks the threads, then collects the complete host events sorted by
 * thread, then nesting order. */
static int collect_host(hier *h)
{
    const tp_cols *c = h->c;
    h->thread_of = tp_malloc((c->n_tracks ? c->n_tracks : 1) * sizeof *h->thread_of);
    if (h->thread_of == NULL || tp_thread_ranks(c, h->thread_of, &h->nranks) != TP_OK)
        return TP_ENOMEM;
    uint32_t kinds = TP_KINDS_HOST;
    if (!h->cfg->python_frames) /* Python frames would root the tree at threading.py */
        kinds &= ~TP_KIND_BIT(TP_KIND_PYTHON);
    return tp_rows_complete(c, kinds, h->thread_of, h->nranks, &h->ev, &h->nev);
}

/* The one warning of a run with crossovers. */
static void warn_crossovers(const hier *h)
{
    char what[1024];
    describe_crossover(h, h->first_cross, h->first_crossed, what, sizeof what);
    tp_log(h->st, TP_LOG_WARN,
           "%lld crossover(s) (partial overlaps >= %lld ns) made siblings, not children; the "
           "first: %s%s",
           (long long)h->crossovers, (long long)h->cfg->clamp_ns, what,
           h->crossovers > 1 ? " (-v lists more)" : "");
}

/* Nests every thread's host events (the SDK's rule, with the clamp) and
 * splits the sorted events into threads. */
static int nest_threads(hier *h)
{
    tp_nest_report rep = {0, 0, note_crossover, h};
    if (tp_nest_rows(h->c, h->thread_of, h->ev, h->nev, h->cfg->clamp_ns, h->parent, &rep) != TP_OK)
        return TP_ENOMEM;
    h->clamped = rep.clamped;
    h->crossovers = rep.crossovers;
    h->threads = tp_malloc((h->nranks ? h->nranks : 1) * sizeof *h->threads);
    if (h->threads == NULL)
        return TP_ENOMEM;
    h->nthreads = tp_thread_runs(h->thread_of, h->c, h->ev, h->nev, h->threads);
    return TP_OK;
}

static int pick_main_thread(hier *h)
{
    tp_iter_override ov = {.prefix = h->cfg->step_prefix, .option = "step_prefix"};
    tp_iter_view v;
    int rc = tp_iter_view_get(h->st, NULL, &ov, &v);
    if (rc != TP_OK)
        return rc;
    h->main = tp_main_thread(h->c, h->ev, h->threads, h->nthreads, h->parent, v.memo, v.nmemo);
    tp_iter_view_release(&v);
    return TP_OK;
}

/* The stack index (from the bottom) of the innermost open main-thread event
 * ending at or after `end`, or -1.  Open events are nested, so their ends
 * shrink towards the top and a binary search finds it.  A clamped child may
 * end up to clamp_ns past its parent, so the entries just above the one
 * found are checked too while their ends are within clamp_ns of `end`. */
static long innermost_holding(const hier *h, const uint32_t *stack, size_t sp, int64_t end)
{
    const tp_cols *c = h->c;
    long lo = 0, hi = (long)sp - 1, found = -1;
    while (lo <= hi) {
        long mid = lo + (hi - lo) / 2;
        if (hier_end(c, h->ev[stack[mid]]) >= end) {
            found = mid;
            lo = mid + 1;
        } else {
            hi = mid - 1;
        }
    }
    for (long j = found + 1; j < (long)sp; j++) {
        int64_t e = hier_end(c, h->ev[stack[j]]);
        if (e >= end)
            found = j;
        else if (e < end - h->cfg->clamp_ns)
            break;
    }
    return found;
}

/* Attaches roots of the main process's other threads that lie entirely
 * inside a main-thread event under the innermost such event. */
static int attach_cross_thread(hier *h, uint32_t *stack)
{
    const tp_cols *c = h->c;
    const tp_thread_run *m = &h->threads[h->main];
    int64_t main_pid = tp_ev_pid(c, h->ev[m->begin]);
    size_t nq = 0;
    uint32_t *q = tp_malloc((h->nev ? h->nev : 1) * sizeof *q);
    h->adopted = tp_calloc(c->n / 64 + 1, sizeof *h->adopted);
    if (q == NULL || h->adopted == NULL) {
        tp_free(q);
        return TP_ENOMEM;
    }
    for (size_t t = 0; t < h->nthreads; t++) {
        const tp_thread_run *th = &h->threads[t];
        if (t == h->main || tp_ev_pid(c, h->ev[th->begin]) != main_pid)
            continue;
        for (size_t i = th->begin; i < th->end; i++)
            if (h->parent[h->ev[i]] < 0)
                q[nq++] = h->ev[i];
    }
    if (tp_rows_sort_nesting(c, NULL, q, nq) != TP_OK) {
        tp_free(q);
        return TP_ENOMEM;
    }
    size_t sp = 0, mi = m->begin;
    for (size_t k = 0; k < nq; k++) {
        int64_t qts = c->ts[q[k]], qdur = c->dur[q[k]];
        while (mi < m->end &&
               (c->ts[h->ev[mi]] < qts || (c->ts[h->ev[mi]] == qts && c->dur[h->ev[mi]] >= qdur))) {
            while (sp > 0 && hier_end(c, h->ev[stack[sp - 1]]) <= c->ts[h->ev[mi]])
                sp--;
            stack[sp++] = (uint32_t)mi++;
        }
        while (sp > 0 && hier_end(c, h->ev[stack[sp - 1]]) <= qts)
            sp--;
        long at = innermost_holding(h, stack, sp, hier_end(c, q[k]));
        if (at < 0)
            continue;
        uint32_t holder = h->ev[stack[at]];
        if (c->ts[holder] <= qts && hier_end(c, holder) > qts) {
            h->parent[q[k]] = (int32_t)holder;
            h->adopted[holder >> 6] |= (uint64_t)1 << (holder & 63);
            h->attached++;
        }
    }
    tp_free(q);
    return TP_OK;
}

/* Rows in nesting order: a short list (most events adopt a child or two)
 * by insertion, without the merge sort's scratch allocation; the order is
 * total, so the result is the same. */
static int sort_few(const tp_cols *c, uint32_t *rows, size_t k)
{
    if (k > 32)
        return tp_rows_sort_nesting(c, NULL, rows, k);
    for (size_t i = 1; i < k; i++) {
        uint32_t x = rows[i];
        size_t j = i;
        for (; j > 0 && tp_nest_before(c, x, rows[j - 1]); j--)
            rows[j] = rows[j - 1];
        rows[j] = x;
    }
    return TP_OK;
}

/* Puts the children of p in nesting order (start, longest first, row):
 * gathered into *kids (grown as needed), sorted, relinked. */
static int sort_children(hier *h, int32_t p, uint32_t **kids, size_t *cap)
{
    size_t k = 0;
    for (int32_t x = h->cfirst[hier_ix(h, p)]; x >= 0; x = h->cnext[hier_ix(h, x)]) {
        if (k == *cap) {
            size_t ncap = *cap ? 2 * *cap : 64;
            uint32_t *grown = tp_realloc(*kids, ncap * sizeof *grown);
            if (grown == NULL)
                return TP_ENOMEM;
            *kids = grown;
            *cap = ncap;
        }
        (*kids)[k++] = (uint32_t)x;
    }
    if (sort_few(h->c, *kids, k) != TP_OK)
        return TP_ENOMEM;
    h->cfirst[hier_ix(h, p)] = (int32_t)(*kids)[0];
    for (size_t i = 0; i + 1 < k; i++)
        h->cnext[hier_ix(h, (int32_t)(*kids)[i])] = (int32_t)(*kids)[i + 1];
    h->cnext[hier_ix(h, (int32_t)(*kids)[k - 1])] = -1;
    return TP_OK;
}

/* Children lists in (start, longest first) order.  A thread's events come
 * in that order in the thread-sorted rows, and children share their
 * parent's thread except those the cross-thread attach adopted: linking in
 * thread order, then sorting the adopters' lists, gives the order of one
 * sort of all the rows by time (issue 31: no scratch as large as the host
 * events).  The depths serve as the per-parent "last child" scratch
 * (reset to -1 afterwards; depths are filled from the roots).  All by the
 * host events' ranks (the compact arrays). */
static int link_children(hier *h)
{
    int32_t *last = h->cdepth;
    for (size_t i = 0; i < h->nev; i++) {
        int32_t row = (int32_t)h->ev[i], p = h->cparent[hier_ix(h, row)];
        if (p < 0)
            continue;
        uint32_t pi = hier_ix(h, p);
        if (h->cfirst[pi] < 0)
            h->cfirst[pi] = row;
        else
            h->cnext[hier_ix(h, last[pi])] = row;
        last[pi] = row;
        h->nested++;
    }
    for (size_t i = 0; i < h->nev; i++)
        h->cdepth[i] = -1;
    uint32_t *kids = NULL;
    size_t cap = 0;
    int rc = TP_OK;
    for (size_t w = 0; h->adopted && w <= h->c->n / 64 && rc == TP_OK; w++)
        for (uint64_t bits = h->adopted[w]; bits && rc == TP_OK; bits &= bits - 1)
            rc = sort_children(h, (int32_t)(w * 64 + (size_t)__builtin_ctzll(bits)), &kids, &cap);
    tp_free(kids);
    return rc;
}

/* Depth of every node of the tree under root, by an iterative pre-order walk. */
static void fill_depths(hier *h, int32_t root)
{
    int32_t node = root;
    h->cdepth[hier_ix(h, root)] = 0;
    for (;;) {
        uint32_t ni = hier_ix(h, node);
        if (h->cfirst[ni] >= 0) {
            node = h->cfirst[ni];
        } else {
            while (node != root && h->cnext[ni] < 0) {
                node = h->cparent[ni];
                ni = hier_ix(h, node);
            }
            if (node == root)
                return;
            node = h->cnext[ni];
        }
        uint32_t at = hier_ix(h, node);
        h->cdepth[at] = h->cdepth[hier_ix(h, h->cparent[at])] + 1;
    }
}

/* Publishes hierarchy.roots: main thread first, then by (pid, tid); needs
 * the thread-sorted event array, so it runs before link_children. */
static int collect_roots(hier *h)
{
    size_t k = 0;
    for (size_t i = 0; i < h->nev; i++)
        k += h->parent[h->ev[i]] < 0;
    tp_trace *tr = tp_stage_trace(h->st);
    int32_t *roots = tp_trace_attach(h->st, tr, "hierarchy.roots", TP_COL_I32, k);
    if (roots == NULL)
        return TP_ENOMEM;
    size_t j = 0;
    for (size_t pass = 0; pass < 2; pass++) {
        for (size_t t = 0; t < h->nthreads; t++) {
            if ((pass == 0) != (t == h->main))
                continue;
            for (size_t i = h->threads[t].begin; i < h->threads[t].end; i++)
                if (h->parent[h->ev[i]] < 0)
                    roots[j++] = (int32_t)h->ev[i];
        }
    }
    h->roots = k;
    return TP_OK;
}

/* Depths of the whole forest, from the published roots (after linking). */
static void fill_all_depths(hier *h)
{
    size_t k = 0;
    const int32_t *roots = tp_trace_attached(tp_stage_trace(h->st), "hierarchy.roots",
                                             TP_COL_I32, &k);
    for (size_t i = 0; roots && i < k; i++)
        fill_depths(h, roots[i]);
}

/* A working array of a cell per row, all -1. */
static int32_t *row_array(size_t n)
{
    int32_t *a = tp_malloc((n ? n : 1) * sizeof *a);
    if (a != NULL)
        memset(a, 0xff, (n ? n : 1) * sizeof *a);
    return a;
}

/* Every kernel / memcpy / memset linked to its launch (the SDK's rule),
 * into a working array the compact one is made from. */
static int link_launches(hier *h)
{
    tp_link_counts n;
    tp_rowset host = {h->hbits, h->hdir};
    h->launcher = row_array(h->c->n);
    if (h->launcher == NULL ||
        tp_link_launches_ranked(h->c, h->thread_of, &host, h->cdepth, h->launcher, &n) != TP_OK)
        return TP_ENOMEM;
    h->launches_linked = n.launches_linked;
    h->gpu_linked = n.gpu_linked;
    h->gpu_unlinked = n.gpu_unlinked;
    h->ambiguous = n.ambiguous;
    if (n.ambiguous > 0)
        tp_log(h->st, TP_LOG_WARN,
               "%lld GPU activities share their correlation id with launches in several "
               "processes (a merged trace?); %lld linked by flows, %lld to the nearest launch before them",
               (long long)n.ambiguous, (long long)(n.ambiguous - n.ambiguous_left),
               (long long)n.ambiguous_left);
    return TP_OK;
}

static int publish_main_tid(hier *h)
{
    int64_t *m = tp_trace_attach(h->st, tp_stage_trace(h->st), "hierarchy.main_tid", TP_COL_I64, 1);
    if (m == NULL)
        return TP_ENOMEM;
    m[0] = h->main_tid;
    return TP_OK;
}

static int add_count(hier *h, tp_result *r, const char *metric, int64_t value)
{
    size_t row;
    if (tp_result_add_row(h->st, r, &row) != TP_OK ||
        tp_result_set_str(h->st, r, row, hier_main_metric, metric) != TP_OK ||
        tp_result_set_i64(h->st, r, row, hier_main_value, value) != TP_OK)
        return TP_ENOMEM;
    return TP_OK;
}

static int write_counts(hier *h)
{
    tp_result *r = tp_result_declared(h->st, NULL);
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(h->st, r, "title", "Event hierarchy");
    int rc = TP_OK;
    rc |= add_count(h, r, "events", (int64_t)h->c->n);
    rc |= add_count(h, r, "host_events", (int64_t)h->nev);
    rc |= add_count(h, r, "host_events_nested", h->nested);
    rc |= add_count(h, r, "roots", (int64_t)h->roots);
    rc |= add_count(h, r, "threads", (int64_t)h->nthreads);
    rc |= add_count(h, r, "main_tid", h->main_tid);
    rc |= add_count(h, r, "launches_linked", h->launches_linked);
    rc |= add_count(h, r, "gpu_linked", h->gpu_linked);
    rc |= add_count(h, r, "gpu_unlinked", h->gpu_unlinked);
    rc |= add_count(h, r, "ambiguous_corr", h->ambiguous);
    rc |= add_count(h, r, "clamped_overlaps", h->clamped);
    rc |= add_count(h, r, "crossovers", h->crossovers);
    rc |= add_count(h, r, "cross_thread_attached", h->attached);
    return rc == TP_OK ? TP_OK : TP_ENOMEM;
}

static void hier_free(hier *h)
{
    tp_free(h->parent);
    tp_free(h->launcher);
    tp_free(h->ev);
    tp_free(h->adopted);
    tp_free(h->threads);
    tp_free(h->thread_of);
}

static int build_forest(hier *h)
{
    int rc = collect_host(h);
    if (rc == TP_OK)
        rc = hier_publish_host_set(h);
    if (rc == TP_OK)
        rc = (h->parent = row_array(h->c->n)) != NULL ? TP_OK : TP_ENOMEM;
    if (rc == TP_OK)
        rc = nest_threads(h);
    if (rc == TP_OK)
        rc = pick_main_thread(h);
    h->main_tid = -1;
    if (rc == TP_OK && h->nthreads > 0)
        h->main_tid = tp_ev_tid(h->c, h->ev[h->threads[h->main].begin]);
    uint32_t *stack = NULL;
    if (rc == TP_OK && h->cfg->cross_thread && h->nthreads > 1) {
        stack = tp_malloc((h->nev ? h->nev : 1) * sizeof *stack);
        rc = stack ? attach_cross_thread(h, stack) : TP_ENOMEM;
    }
    tp_free(stack);
    if (rc == TP_OK)
        rc = collect_roots(h);
    if (rc == TP_OK)
        rc = hier_publish_host_links(h); /* and gives the working parent back */
    if (rc == TP_OK)
        rc = link_children(h);
    if (rc == TP_OK)
        fill_all_depths(h);
    /* the host events are linked into the attachments now: give them back
     * before launch linking allocates its own arrays */
    tp_free(h->ev);
    h->ev = NULL;
    return rc;
}

/* A trace with timed events of which none is a host op, runtime call,
 * Python frame or GPU activity (a TensorFlow timeline read as Kineto): no
 * analysis can say anything, so say that instead of empty tables. */
static int nothing_to_analyse(tp_stage *st, const tp_cols *c)
{
    size_t timed = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (tp_ev_is_host(c, i) || tp_ev_is_activity(c, i))
            return TP_OK;
        timed += tp_ev_is_complete(c, i) && c->kind[i] != TP_KIND_TRACE;
    }
    if (timed == 0)
        return TP_OK; /* an empty trace: empty tables are the truth */
    const char *src = tp_trace_source(tp_stage_trace(st));
    return tp_fail(st, TP_EFORMAT,
                   "%s: none of its %zu timed events is a host op, runtime call or GPU "
                   "activity, so there is nothing to analyse (the reader's warning names their "
                   "categories; is this a PyTorch profiler trace?)",
                   src ? src : "trace", timed);
}

static int hier_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    tp_trace *tr = tp_stage_trace(st);
    if (tr == NULL)
        return tp_fail(st, TP_EINVAL, "hierarchy: no trace loaded (put a reader stage first)");
    hier h = {0};
    h.st = st;
    h.cfg = config;
    h.c = tp_trace_cols(tr);
    if (nothing_to_analyse(st, h.c) != TP_OK)
        return TP_EFORMAT;
    if (h.c->n > (size_t)INT32_MAX)
        return tp_fail(st, TP_EINVAL, "hierarchy: %zu events: at most %d are supported", h.c->n,
                       INT32_MAX);
    int rc = build_forest(&h);
    if (rc == TP_OK)
        rc = link_launches(&h);
    if (rc == TP_OK)
        rc = hier_publish_launchers(&h); /* and gives the working launcher back */
    if (rc == TP_OK)
        rc = hier_register_wide(&h);
    if (rc == TP_OK)
        rc = publish_main_tid(&h);
    if (rc == TP_OK)
        rc = write_counts(&h);
    hier_free(&h);
    if (rc != TP_OK)
        return tp_fail(st, rc, "hierarchy: out of memory");
    if (h.crossovers > 0)
        warn_crossovers(&h);
    return TP_OK;
}

static const tp_stage_desc hier_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "hierarchy",
                  "nest host events per thread, attach helper threads, link GPU work to launches",
                  hier_options, hier_config, NULL, hier_results, NULL, 0, NULL, hier_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("hierarchy", "0.1.0", hier_stages);
