/*
 * trim_iterations: keep N iterations of a training loop.
 *
 * Iterations are delimited by marker events: complete host events (ph X)
 * whose name matches `marker` (ProfilerStep#N by default).  After skipping
 * `skip` markers in time order, the window runs from the start of the first
 * kept marker to the end of the last kept one.  Then:
 *   - host events (every kind but GPU work, flows and metadata) are kept
 *     when they overlap the window;
 *   - GPU work is kept when a kept runtime call launched it (same
 *     correlation id), even past the window's end, or when it lies inside
 *     the window;
 *   - launch flows (ac2g: id = correlation) follow their runtime call;
 *     other flows (fwdbwd) are kept when all their events lie in the window;
 *   - metadata events are always kept.
 * Everything is O(n log n): sorted id arrays, binary search.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>

typedef struct trim_config {
    int64_t iterations;
    int64_t skip;
    const char *marker;
} trim_config;

#define TRIM_DEFAULT_MARKER "^ProfilerStep#\\d+$"

static const tp_option trim_options[] = {
    TP_OPTION_INT("iterations", trim_config, iterations, "1", 1, 1e9, "iterations to keep"),
    TP_OPTION_INT("skip", trim_config, skip, "0", 0, 1e9, "warm-up iterations to skip first"),
    TP_OPTION_STRING("marker", trim_config, marker, NULL,
                     "regex naming the iteration markers (default ^ProfilerStep#\\d+$)"),
    TP_OPTION_END};

typedef struct trim_state {
    pcre2_code *re;
    pcre2_match_data *md;
    const char *marker;
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
    s->marker = cfg->marker ? cfg->marker : TRIM_DEFAULT_MARKER;
    int err;
    PCRE2_SIZE off;
    s->re = pcre2_compile((PCRE2_SPTR)s->marker, PCRE2_ZERO_TERMINATED,
                          PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &err, &off, NULL);
    if (s->re == NULL) {
        PCRE2_UCHAR text[256];
        pcre2_get_error_message(err, text, sizeof text);
        return tp_fail(st, TP_EINVAL, "marker: bad regex '%s': %s at offset %zu", s->marker,
                       (const char *)text, (size_t)off);
    }
    (void)pcre2_jit_compile(s->re, PCRE2_JIT_COMPLETE); /* interpreter if no JIT */
    s->md = pcre2_match_data_create_from_pattern(s->re, NULL);
    return s->md ? TP_OK : TP_ENOMEM;
}

static void trim_destroy(tp_stage *st, void *state)
{
    (void)st;
    trim_state *s = state;
    if (s == NULL)
        return;
    pcre2_match_data_free(s->md);
    pcre2_code_free(s->re);
    tp_free(s);
}

/* ---- markers */
typedef struct marker {
    int64_t ts, end;
    size_t row;
} marker;

static int marker_cmp(const void *a, const void *b)
{
    const marker *x = a, *y = b;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

static int is_marker_candidate(const tp_cols *c, size_t i)
{
    uint8_t k = c->kind[i];
    return c->phase[i] == 'X' && c->dur[i] >= 0 && !TP_KIND_IS_GPU(k) && k != TP_KIND_FLOW &&
           k != TP_KIND_METADATA;
}

/* Name verdicts are cached per interned id: each distinct name is matched once. */
static int name_matches(tp_stage *st, trim_state *s, uint8_t *memo, tp_str name)
{
    if (memo[name] == 0) {
        int rc = pcre2_match(s->re, (PCRE2_SPTR)tp_str_text(st, name), tp_str_len(st, name), 0,
                             0, s->md, NULL);
        memo[name] = rc >= 0 ? 1 : 2;
    }
    return memo[name] == 1;
}

static int find_markers(tp_stage *st, trim_state *s, const tp_cols *c, marker **out, size_t *n)
{
    size_t nstr = tp_str_count(st);
    uint8_t *memo = tp_calloc(nstr ? nstr : 1, 1);
    marker *m = tp_malloc((c->n ? c->n : 1) * sizeof *m);
    if (memo == NULL || m == NULL) {
        tp_free(memo);
        tp_free(m);
        return TP_ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++)
        if (is_marker_candidate(c, i) && c->name[i] < nstr && name_matches(st, s, memo, c->name[i]))
            m[k++] = (marker){c->ts[i], c->ts[i] + c->dur[i], i};
    tp_free(memo);
    qsort(m, k, sizeof *m, marker_cmp);
    *out = m;
    *n = k;
    return TP_OK;
}

/* "ProfilerStep#8..#10" when the names share a prefix ending in '#',
 * else "first..last". */
static void describe_range(tp_stage *st, const char *a, const char *b, char *buf, size_t size)
{
    (void)st;
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
typedef struct trim {
    tp_stage *st;
    const tp_cols *c;
    uint8_t *keep;
    int64_t ws, we;          /* window [ws, we] in ns */
    i64set rt_all, rt_kept;  /* correlation ids of runtime calls */
    i64set gpu_all, gpu_kept; /* correlation ids of GPU work */
    size_t kept_gpu_launched, kept_gpu_inside;
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

static int select_host(trim *t)
{
    const tp_cols *c = t->c;
    for (size_t i = 0; i < c->n; i++) {
        uint8_t k = c->kind[i];
        if (k == TP_KIND_METADATA || k == TP_KIND_FLOW)
            continue;
        if (TP_KIND_IS_GPU(k)) {
            if (c->corr[i] != TP_NONE && set_push(&t->gpu_all, c->corr[i]) != TP_OK)
                return TP_ENOMEM;
            continue;
        }
        int keep = overlaps(t, i);
        t->keep[i] = (uint8_t)keep;
        if (k == TP_KIND_RUNTIME && c->corr[i] != TP_NONE) {
            if (set_push(&t->rt_all, c->corr[i]) != TP_OK ||
                (keep && set_push(&t->rt_kept, c->corr[i]) != TP_OK))
                return TP_ENOMEM;
        }
    }
    set_finish(&t->rt_all);
    set_finish(&t->rt_kept);
    set_finish(&t->gpu_all);
    return TP_OK;
}

static int select_gpu(trim *t)
{
    const tp_cols *c = t->c;
    for (size_t i = 0; i < c->n; i++) {
        if (!TP_KIND_IS_GPU(c->kind[i]))
            continue;
        int launched = c->corr[i] != TP_NONE && set_has(&t->rt_kept, c->corr[i]);
        int keep = launched || inside(t, i);
        t->keep[i] = (uint8_t)keep;
        t->kept_gpu_launched += (size_t)launched;
        t->kept_gpu_inside += (size_t)(keep && !launched);
        if (keep && c->corr[i] != TP_NONE && set_push(&t->gpu_kept, c->corr[i]) != TP_OK)
            return TP_ENOMEM;
    }
    set_finish(&t->gpu_kept);
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

static int is_launch_flow(const trim *t, size_t i, tp_str fwdbwd)
{
    int64_t id = t->c->flow_id[i];
    if (id == TP_NONE || (fwdbwd && t->c->cat[i] == fwdbwd))
        return 0;
    return set_has(&t->rt_all, id) || set_has(&t->gpu_all, id);
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
        int64_t id = c->flow_id[i];
        if (is_launch_flow(t, i, fwdbwd)) {
            /* follows its runtime call; ids only GPU work has follow the GPU side */
            int keep = set_has(&t->rt_kept, id) || (!set_has(&t->rt_all, id) && set_has(&t->gpu_kept, id));
            t->keep[i] = (uint8_t)keep;
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
    int rc = select_host(t);
    if (rc == TP_OK)
        rc = select_gpu(t);
    if (rc == TP_OK)
        rc = select_flows(t);
    set_free(&t->rt_all);
    set_free(&t->rt_kept);
    set_free(&t->gpu_all);
    set_free(&t->gpu_kept);
    return rc;
}

static int too_few(tp_stage *st, const trim_config *cfg, const trim_state *s, const tp_cols *c,
                   const marker *m, size_t n)
{
    if (n == 0)
        return tp_fail(st, TP_EINVAL, "trace has no iterations: no complete host event matches marker '%s'",
                       s->marker);
    char range[512];
    describe_range(st, tp_str_text(st, c->name[m[0].row]), tp_str_text(st, c->name[m[n - 1].row]),
                   range, sizeof range);
    return tp_fail(st, TP_EINVAL, "trace has %zu iteration%s (%s); cannot skip %lld and keep %lld",
                   n, n == 1 ? "" : "s", range, (long long)cfg->skip, (long long)cfg->iterations);
}

static int trim_run(tp_stage *st, const void *config, void *state)
{
    const trim_config *cfg = config;
    trim_state *s = state;
    tp_trace *tr = tp_stage_trace(st);
    const tp_cols *c = tp_trace_cols(tr);
    marker *m;
    size_t nm;
    if (find_markers(st, s, c, &m, &nm) != TP_OK)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    size_t first = (size_t)cfg->skip, count = (size_t)cfg->iterations;
    if (nm < count || nm - count < first) {
        int rc = too_few(st, cfg, s, c, m, nm);
        tp_free(m);
        return rc;
    }
    trim t = {.st = st, .c = c, .keep = tp_keep_mask(st), .ws = m[first].ts, .we = m[first].end};
    for (size_t i = first; i < first + count; i++)
        t.we = m[i].end > t.we ? m[i].end : t.we;
    char range[512];
    describe_range(st, tp_str_text(st, c->name[m[first].row]),
                   tp_str_text(st, c->name[m[first + count - 1].row]), range, sizeof range);
    char all[512];
    describe_range(st, tp_str_text(st, c->name[m[0].row]), tp_str_text(st, c->name[m[nm - 1].row]),
                   all, sizeof all);
    tp_free(m);
    if (trim_select(&t) != TP_OK)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    tp_log(st, TP_LOG_INFO,
           "found %zu iterations (%s); kept %zu (%s): %.3f ms window, %zu GPU events launched inside, "
           "%zu more lying inside",
           nm, all, count, range, (double)(t.we - t.ws) / 1e6, t.kept_gpu_launched, t.kept_gpu_inside);
    return TP_OK;
}

static const tp_stage_desc trim_stages[] = {
    TP_STAGE(TP_STAGE_FILTER, "trim_iterations",
             "keep N iterations (ProfilerStep#N or marker regex) and the GPU work they launched",
             trim_options, trim_config, trim_init, trim_run, trim_destroy),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("trim_iterations", "0.1.0", trim_stages);
