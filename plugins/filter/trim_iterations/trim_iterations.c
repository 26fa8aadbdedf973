/*
 * trim_iterations: keep N iterations of a training loop.
 *
 * Iterations are the SDK's view (tp_sdk_iter.h): the pipeline's
 * `iterations:`, or this stage's `marker`/`ranges` override; host markers
 * (ProfilerStep#N by default) are nested per thread with
 * the hierarchy's clamp (a marker nested in another is not an iteration),
 * counted on the thread holding the most (ties: lowest pid, then tid).
 * After skipping `skip` of them in time order, the window runs
 * from the start of the first kept marker to the end of the last kept one;
 * it applies to every process and thread (a merged multi-rank trace keeps
 * the same steps of every rank).  Then:
 *   - host events (every kind but GPU work, flows, metadata and the
 *     profiler's own Trace span) are kept when they overlap the window, and
 *     (option `clip`, default) cut to it, so a Python frame or a step
 *     enclosing the kept ones no longer stretches the trimmed trace; the
 *     Trace span is dropped, it covers the untrimmed trace;
 *   - kernels, memcpys and memsets follow their launcher (the SDK's launch
 *     link, tp_link_launches: by correlation id, flows where ids are
 *     ambiguous).  GPU work without a launcher in the trace is kept when it
 *     lies inside the window; a GPU annotation (never launched) also when
 *     its External id is that of a kept host annotation or when it encloses
 *     kept launched GPU work on its track;
 *   - launch flows (ac2g) follow the event they bind to (tp_flow_bind: the
 *     runtime call for 's', the GPU work for 'f'); other flows (fwdbwd) are
 *     kept when all their events lie inside;
 *   - metadata events are always kept.
 * Everything is O(n log n): sorted arrays, binary search.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_trace.h>

#include <tracepipe/tp_sdk_iter.h>
#include <tracepipe/tp_sdk_markers.h>

typedef struct trim_config {
    int64_t iterations;
    int64_t skip;
    const char *marker;
    int ranges;
    int clip;
} trim_config;

static const tp_option trim_options[] = {
    TP_OPTION_INT("iterations", trim_config, iterations, "1", 1, 1e9, "iterations to keep"),
    TP_OPTION_INT("skip", trim_config, skip, "0", 0, 1e9, "warm-up iterations to skip first"),
    TP_OPTION_STRING("marker", trim_config, marker, NULL,
                     "override of the pipeline's iterations: marker for this stage: a regex "
                     "naming the iteration markers"),
    TP_OPTION_BOOL("ranges", trim_config, ranges, "false",
                   "override: iterations are NVTX-style ranges (async b/e pairs) named by marker"),
    TP_OPTION_BOOL("clip", trim_config, clip, "true",
                   "cut kept host events that reach outside the window (enclosing Python "
                   "frames, a data loader straddling the edge) to the window"),
    TP_OPTION_END};

typedef struct trim_state {
    tp_markers m;
} trim_state;

/* ---- sorted sets of int64 ids */
typedef struct i64set {
    int64_t *v;
    size_t n, cap;
} i64set;

static int set_push(i64set *s, int64_t x)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 256;
        int64_t *v = tp_realloc(s->v, cap * sizeof *v);
        if (v == NULL)
            return TP_ENOMEM;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = x;
    return TP_OK;
}

static int i64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void set_finish(i64set *s)
{
    if (s->n == 0)
        return;
    qsort(s->v, s->n, sizeof *s->v, i64_cmp);
    size_t k = 1;
    for (size_t i = 1; i < s->n; i++)
        if (s->v[i] != s->v[k - 1])
            s->v[k++] = s->v[i];
    s->n = k;
}

static int set_has(const i64set *s, int64_t x)
{
    return s->n && bsearch(&x, s->v, s->n, sizeof x, i64_cmp) != NULL;
}

static void set_free(i64set *s)
{
    tp_free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

/* ---- init / destroy */
static int trim_init(tp_stage *st, const void *config, void **state)
{
    const trim_config *cfg = config;
    trim_state *s = tp_calloc(1, sizeof *s);
    if (s == NULL)
        return TP_ENOMEM;
    *state = s;
    if (cfg->marker == NULL)
        return TP_OK;
    int rc = tp_markers_open(st, &s->m, "marker", cfg->marker); /* a config error if bad */
    tp_markers_close(&s->m);
    return rc;
}

static void trim_destroy(tp_stage *st, void *state)
{
    (void)st;
    trim_state *s = state;
    tp_free(s);
}

/* ---- iterations */

/* "ProfilerStep#8..#10" when the names share a prefix ending in '#',
 * else "first..last". */
static void describe_range(const char *a, const char *b, char *buf, size_t size)
{
    size_t p = 0;
    while (a[p] && a[p] == b[p])
        p++;
    while (p > 0 && a[p - 1] >= '0' && a[p - 1] <= '9')
        p--;
    if (strcmp(a, b) == 0)
        snprintf(buf, size, "%s", a);
    else if (p > 0 && a[p - 1] == '#')
        snprintf(buf, size, "%s..%s", a, b + p - 1);
    else
        snprintf(buf, size, "%s..%s", a, b);
}

/* ---- selection */
/* Kept launched GPU work on a device track; reach = smallest end of it and
 * the later work of its track. */
typedef struct gwork {
    int64_t pid, tid, ts, end, reach;
} gwork;

typedef struct trim {
    tp_stage *st;
    const tp_cols *c;
    uint8_t *keep;
    int64_t ws, we;     /* window [ws, we] in ns */
    int clip;           /* cut kept host events to the window */
    size_t clipped;
    int32_t *launcher;  /* per row: the launch of GPU work (SDK), -1 */
    int32_t *bound;     /* per row: the event a launch flow binds to (SDK), -1 */
    gwork *work;        /* kept launched GPU work, by (pid, tid, ts) */
    size_t n_work;
    i64set gpu_all;     /* correlation ids of GPU work */
    i64set orphan_kept; /* ... of kept GPU work without a launcher */
    i64set ann_ext;     /* External ids of kept host annotations */
    size_t kept_launched, kept_inside, kept_annot;
} trim;

static int64_t ev_end(const tp_cols *c, size_t i)
{
    return c->ts[i] + (c->dur[i] > 0 ? c->dur[i] : 0);
}

/* Events with a duration overlap when they share some time; points count
 * when they lie inside the closed window. */
static int overlaps(const trim *t, size_t i)
{
    const tp_cols *c = t->c;
    if (c->dur[i] > 0)
        return c->ts[i] < t->we && ev_end(c, i) > t->ws;
    return c->ts[i] >= t->ws && c->ts[i] <= t->we;
}

static int inside(const trim *t, size_t i)
{
    return t->c->ts[i] >= t->ws && ev_end(t->c, i) <= t->we;
}

/* Cuts host row i, which overlaps the window, to it. */
static int clip_to_window(trim *t, size_t i)
{
    const tp_cols *c = t->c;
    int64_t a = c->ts[i] > t->ws ? c->ts[i] : t->ws;
    int64_t b = ev_end(c, i) < t->we ? ev_end(c, i) : t->we;
    t->clipped++;
    return tp_clip(t->st, i, a, b - a);
}

static int select_host(trim *t)
{
    const tp_cols *c = t->c;
    for (size_t i = 0; i < c->n; i++) {
        uint8_t k = c->kind[i];
        if (k == TP_KIND_METADATA || k == TP_KIND_FLOW)
            continue;
        if (TP_KIND_IS_GPU(k)) {
            if (tp_ev_corr(c, i) != TP_NONE && set_push(&t->gpu_all, tp_ev_corr(c, i)) != TP_OK)
                return TP_ENOMEM;
            continue;
        }
        int keep = k != TP_KIND_TRACE && overlaps(t, i);
        t->keep[i] = (uint8_t)keep;
        if (keep && t->clip && c->dur[i] > 0 && !inside(t, i)) {
            int rc = clip_to_window(t, i);
            if (rc != TP_OK)
                return rc;
        }
        if (keep && k == TP_KIND_ANNOTATION && tp_ev_ext_id(c, i) != TP_NONE &&
            set_push(&t->ann_ext, tp_ev_ext_id(c, i)) != TP_OK)
            return TP_ENOMEM;
    }
    set_finish(&t->gpu_all);
    set_finish(&t->ann_ext);
    return TP_OK;
}

static int gwork_cmp(const void *a, const void *b)
{
    const gwork *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

static void finish_work(trim *t)
{
    if (t->n_work == 0)
        return;
    qsort(t->work, t->n_work, sizeof *t->work, gwork_cmp);
    for (size_t i = t->n_work; i-- > 0;) {
        gwork *w = &t->work[i], *next = i + 1 < t->n_work ? w + 1 : NULL;
        w->reach = w->end;
        if (next && next->pid == w->pid && next->tid == w->tid && next->reach < w->reach)
            w->reach = next->reach;
    }
}

/* Does kept launched GPU work of row i's track lie within row i's span? */
static int encloses_work(const trim *t, size_t i)
{
    const tp_cols *c = t->c;
    gwork key = {tp_ev_pid(c, i), tp_ev_tid(c, i), c->ts[i], 0, 0};
    size_t lo = 0, hi = t->n_work; /* first work at or after the start */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (gwork_cmp(&t->work[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    const gwork *w = lo < t->n_work ? &t->work[lo] : NULL;
    return w && w->pid == key.pid && w->tid == key.tid && w->reach <= ev_end(c, i);
}

/* GPU row i follows its launcher; without one it must lie inside. */
static int keep_gpu_row(trim *t, size_t i, int *launched)
{
    int32_t l = t->launcher[i];
    *launched = l >= 0;
    return *launched ? t->keep[l] : inside(t, i);
}

/* Kernels, memcpys and memsets; annotations come after, in select_annotations. */
static int select_gpu_work(trim *t)
{
    const tp_cols *c = t->c;
    for (size_t i = 0; i < c->n; i++) {
        if (!TP_KIND_IS_GPU(c->kind[i]) || c->kind[i] == TP_KIND_GPU_ANNOTATION)
            continue;
        int launched;
        int keep = keep_gpu_row(t, i, &launched);
        t->keep[i] = (uint8_t)keep;
        if (!keep)
            continue;
        if (launched) {
            t->kept_launched++;
            t->work[t->n_work++] =
                (gwork){tp_ev_pid(c, i), tp_ev_tid(c, i), c->ts[i], ev_end(c, i), 0};
        } else {
            t->kept_inside++;
            if (tp_ev_corr(c, i) != TP_NONE && set_push(&t->orphan_kept, tp_ev_corr(c, i)) != TP_OK)
                return TP_ENOMEM;
        }
    }
    finish_work(t);
    return TP_OK;
}

/* gpu_user_annotation ranges carry no correlation id as a rule: they stay
 * with the host annotation of the same External id, or around kept work. */
static int select_annotations(trim *t)
{
    const tp_cols *c = t->c;
    for (size_t i = 0; i < c->n; i++) {
        if (c->kind[i] != TP_KIND_GPU_ANNOTATION)
            continue;
        int launched;
        int keep = keep_gpu_row(t, i, &launched);
        if (launched) {
            t->kept_launched += (size_t)keep;
        } else if (keep) {
            t->kept_inside++;
            if (tp_ev_corr(c, i) != TP_NONE && set_push(&t->orphan_kept, tp_ev_corr(c, i)) != TP_OK)
                return TP_ENOMEM;
        } else {
            keep = (tp_ev_ext_id(c, i) != TP_NONE && set_has(&t->ann_ext, tp_ev_ext_id(c, i))) ||
                   encloses_work(t, i);
            t->kept_annot += (size_t)keep;
        }
        t->keep[i] = (uint8_t)keep;
    }
    set_finish(&t->orphan_kept);
    return TP_OK;
}

/* A flow of another kind than launch flows, grouped by (cat, id). */
typedef struct oflow {
    tp_str cat;
    int64_t id;
    size_t row;
} oflow;

static int oflow_cmp(const void *a, const void *b)
{
    const oflow *x = a, *y = b;
    if (x->cat != y->cat)
        return x->cat < y->cat ? -1 : 1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* Other flows stay whole: kept when every event of the flow lies inside. */
static void keep_whole_flows(trim *t, oflow *f, size_t n)
{
    if (n == 0)
        return;
    qsort(f, n, sizeof *f, oflow_cmp);
    for (size_t a = 0; a < n;) {
        size_t b = a;
        int all_in = 1;
        while (b < n && f[b].cat == f[a].cat && f[b].id == f[a].id) {
            int64_t ts = t->c->ts[f[b].row];
            all_in &= ts >= t->ws && ts <= t->we;
            b++;
        }
        for (size_t j = a; j < b; j++)
            t->keep[f[j].row] = (uint8_t)all_in;
        a = b;
    }
}

static int select_flows(trim *t)
{
    const tp_cols *c = t->c;
    tp_str fwdbwd = 0;
    if (!tp_str_lookup(t->st, "fwdbwd", 6, &fwdbwd))
        fwdbwd = 0;
    oflow *other = NULL;
    size_t n_other = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (c->kind[i] != TP_KIND_FLOW)
            continue;
        int64_t id = tp_ev_flow_id(c, i);
        int launch_flow = id != TP_NONE && !(fwdbwd && c->cat[i] == fwdbwd);
        int32_t b = launch_flow ? t->bound[i] : -1;
        if (b >= 0) {
            t->keep[i] = t->keep[b]; /* s at the call, f at the GPU work it launched */
        } else if (launch_flow && set_has(&t->gpu_all, id)) {
            t->keep[i] = (uint8_t)set_has(&t->orphan_kept, id);
        } else if (id == TP_NONE) {
            t->keep[i] = (uint8_t)(c->ts[i] >= t->ws && c->ts[i] <= t->we);
        } else {
            if (other == NULL && (other = tp_malloc(c->n * sizeof *other)) == NULL)
                return TP_ENOMEM;
            other[n_other++] = (oflow){c->cat[i], id, i};
        }
    }
    keep_whole_flows(t, other, n_other);
    tp_free(other);
    return TP_OK;
}

static int trim_select(trim *t)
{
    const tp_cols *c = t->c;
    size_t n_gpu = 1, n = c->n ? c->n : 1;
    for (size_t i = 0; i < c->n; i++)
        n_gpu += TP_KIND_IS_GPU(c->kind[i]);
    t->launcher = tp_malloc(n * sizeof *t->launcher);
    t->bound = tp_malloc(n * sizeof *t->bound);
    t->work = tp_malloc(n_gpu * sizeof *t->work);
    int rc = t->launcher && t->bound && t->work ? TP_OK : TP_ENOMEM;
    if (rc == TP_OK)
        rc = tp_link_launches(c, NULL, NULL, t->launcher, NULL);
    if (rc == TP_OK)
        rc = tp_flow_bind(c, NULL, t->bound);
    if (rc == TP_OK)
        rc = select_host(t);
    if (rc == TP_OK)
        rc = select_gpu_work(t);
    if (rc == TP_OK)
        rc = select_annotations(t);
    if (rc == TP_OK)
        rc = select_flows(t);
    tp_free(t->launcher);
    tp_free(t->bound);
    tp_free(t->work);
    set_free(&t->gpu_all);
    set_free(&t->orphan_kept);
    set_free(&t->ann_ext);
    return rc;
}

static int too_few(tp_stage *st, const trim_config *cfg, const tp_iter_view *v, const tp_cols *c,
                   const tp_iterations *it)
{
    if (it->n == 0)
        return tp_fail(st, TP_EINVAL, "trace has no iterations: no %s matches marker '%s'",
                       v->source == TP_ITER_SOURCE_RANGE            ? "range (b/e pair)"
                       : v->source == TP_ITER_SOURCE_GPU_ANNOTATION ? "GPU annotation"
                                                                    : "complete host event",
                       v->marker);
    char range[512], pid[128], tid[128];
    describe_range(tp_str_text(st, c->name[it->it[0].row]), tp_str_text(st, c->name[it->it[it->n - 1].row]),
                   range, sizeof range);
    tp_id_text(st, it->pid, pid, sizeof pid);
    tp_id_text(st, it->tid, tid, sizeof tid);
    return tp_fail(st, TP_EINVAL, "trace has %zu iteration%s (%s); cannot skip %lld and keep %lld "
                   "(iterations counted on pid %s tid %s)",
                   it->n, it->n == 1 ? "" : "s", range, (long long)cfg->skip, (long long)cfg->iterations,
                   pid, tid);
}

static void log_result(tp_stage *st, const tp_cols *c, const tp_iterations *it, size_t first, size_t count,
                       const trim *t)
{
    char range[512], all[512], pid[128], tid[128], nested[64] = "";
    describe_range(tp_str_text(st, c->name[it->it[first].row]),
                   tp_str_text(st, c->name[it->it[first + count - 1].row]), range, sizeof range);
    describe_range(tp_str_text(st, c->name[it->it[0].row]), tp_str_text(st, c->name[it->it[it->n - 1].row]),
                   all, sizeof all);
    tp_id_text(st, it->pid, pid, sizeof pid);
    tp_id_text(st, it->tid, tid, sizeof tid);
    if (it->nested)
        snprintf(nested, sizeof nested, ", %zu nested marker%s ignored", it->nested,
                 it->nested == 1 ? "" : "s");
    tp_log(st, TP_LOG_INFO,
           "found %zu iterations (%s) on pid %s tid %s (%zu thread%s with markers%s); kept %zu (%s): "
           "%.3f ms window, %zu GPU events launched inside, %zu more lying inside, %zu GPU annotations "
           "of kept steps, %zu host events cut to the window",
           it->n, all, pid, tid, it->threads, it->threads == 1 ? "" : "s", nested, count, range,
           (double)(t->we - t->ws) / 1e6, t->kept_launched, t->kept_inside, t->kept_annot, t->clipped);
}

static int trim_run(tp_stage *st, const void *config, void *state)
{
    const trim_config *cfg = config;
    (void)state;
    tp_trace *tr = tp_stage_trace(st);
    const tp_cols *c = tp_trace_cols(tr);
    tp_iter_override ov = {.marker = cfg->marker, .ranges = cfg->ranges, .option = "marker"};
    tp_iter_view steps;
    int frc = tp_iter_view_get(st, tr, &ov, &steps);
    if (frc == TP_ENOMEM)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    if (frc != TP_OK)
        return frc; /* marker_error reported it */
    tp_iterations it = tp_iter_as_iterations(&steps);
    size_t first = (size_t)cfg->skip, count = (size_t)cfg->iterations;
    if (it.n < count || it.n - count < first) {
        int rc = too_few(st, cfg, &steps, c, &it);
        tp_iter_view_release(&steps);
        return rc;
    }
    trim t = {.st = st, .c = c, .keep = tp_keep_mask(st), .ws = it.it[first].start,
              .we = it.it[first].end, .clip = cfg->clip};
    for (size_t i = first; i < first + count; i++)
        t.we = it.it[i].end > t.we ? it.it[i].end : t.we;
    int rc = trim_select(&t);
    if (rc == TP_OK)
        log_result(st, c, &it, first, count, &t);
    tp_iter_view_release(&steps);
    return rc == TP_OK ? TP_OK : tp_fail(st, TP_ENOMEM, "out of memory");
}

static const tp_stage_desc trim_stages[] = {
    TP_STAGE_FULL(TP_STAGE_FILTER, "trim_iterations",
                  "keep N iterations (ProfilerStep#N or marker regex) and the GPU work they launched",
                  trim_options, trim_config, NULL, TP_PRODUCES_NONE, 0,
                  trim_init, trim_run, trim_destroy),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("trim_iterations", "0.1.0", trim_stages);
