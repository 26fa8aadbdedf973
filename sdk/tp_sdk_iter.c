/* SDK: iterations once per trace (tp_sdk_iter.h). */
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_sdk_iter.h>
#include <tracepipe/tp_sdk_markers.h>

#define ATT_HEAD "tp.iterations"
#define ATT_ROW "tp.iterations.row"
#define ATT_MEMO "tp.iterations.memo"
enum { HEAD_CELLS = 5, PER_IT = 4 }; /* n threads nested pid tid | start end row step */

static int where_of(tp_iter_source s)
{
    return s == TP_ITER_SOURCE_RANGE            ? TP_MARKERS_RANGES
           : s == TP_ITER_SOURCE_GPU_ANNOTATION ? TP_MARKERS_GPU
                                                : TP_MARKERS_HOST;
}

/* "^" and the prefix with every character but letters, digits and '_'
 * escaped: a step_prefix matched literally ("" matches nothing). */
static char *prefix_regex(const char *prefix)
{
    size_t n = strlen(prefix);
    if (n == 0) { /* an empty prefix names no marker (no iterations) */
        char *never = tp_malloc(5);
        if (never)
            memcpy(never, "(?!)", 5);
        return never;
    }
    char *re = tp_malloc(2 * n + 2);
    if (re == NULL)
        return NULL;
    size_t o = 0;
    re[o++] = '^';
    for (size_t i = 0; i < n; i++) {
        char ch = prefix[i];
        int plain = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                    (ch >= '0' && ch <= '9') || ch == '_' || (unsigned char)ch >= 0x80;
        if (!plain)
            re[o++] = '\\';
        re[o++] = ch;
    }
    re[o] = '\0';
    return re;
}

/* The digits of text[0, len) as a number when that is all it holds. */
static int all_digits(const char *text, size_t len, int64_t *out)
{
    if (len == 0 || len > 18)
        return 0;
    int64_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return 0;
        v = v * 10 + (text[i] - '0');
    }
    *out = v;
    return 1;
}

/* The step number of marker `name` (header comment's rule). */
static int64_t step_number(tp_stage *st, const tp_markers *m, tp_str name, size_t ordinal)
{
    const char *text = tp_str_text(st, name);
    size_t len = tp_str_len(st, name);
    int64_t v;
    if (tp_pyre_search(m->re, text, len, m->md) == 1 && pcre2_get_ovector_count(m->md) > 1) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(m->md);
        if (ov[2] != PCRE2_UNSET && ov[3] >= ov[2] && all_digits(text + ov[2], ov[3] - ov[2], &v))
            return v;
    }
    return tp_iter_step_of_name(text, len, (int64_t)ordinal);
}

int64_t tp_iter_step_of_name(const char *text, size_t len, int64_t ordinal)
{
    const char *hash = memrchr(text, '#', len);
    size_t from = hash ? (size_t)(hash - text) + 1 : len;
    int64_t v;
    if (hash && all_digits(text + from, len - from, &v))
        return v;
    return ordinal;
}

static int is_gpu_marker(const tp_cols *c, size_t i, const uint8_t *memo, size_t nmemo)
{
    return c->kind[i] == TP_KIND_GPU_ANNOTATION && tp_ev_is_complete(c, i) &&
           tp_name_marked(memo, nmemo, c->name[i]);
}

static int gpu_cmp(const void *a, const void *b)
{
    const tp_iteration *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* Iterations from GPU-side annotations: the marked complete ones on the
 * track (device, stream) holding the most (a multi-GPU trace annotates
 * every device alike; ties: the first track), by start. */
static int gpu_iterations(const tp_cols *c, const uint8_t *memo, size_t nmemo, tp_iterations *it)
{
    memset(it, 0, sizeof *it);
    size_t *per_track = tp_calloc(c->n_tracks ? c->n_tracks : 1, sizeof *per_track);
    if (per_track == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < c->n; i++)
        if (is_gpu_marker(c, i, memo, nmemo))
            per_track[c->track[i]]++;
    size_t best = 0;
    for (size_t k = 0; k < c->n_tracks; k++) {
        it->threads += per_track[k] ? 1 : 0;
        if (per_track[k] > per_track[best])
            best = k;
    }
    size_t count = c->n_tracks ? per_track[best] : 0;
    tp_free(per_track);
    it->it = tp_malloc((count ? count : 1) * sizeof *it->it);
    if (it->it == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < c->n && count; i++)
        if (c->track[i] == best && is_gpu_marker(c, i, memo, nmemo))
            it->it[it->n++] = (tp_iteration){c->ts[i], c->ts[i] + c->dur[i], (uint32_t)i};
    qsort(it->it, it->n, sizeof *it->it, gpu_cmp);
    if (count) {
        it->pid = c->tracks[best].device;
        it->tid = c->tracks[best].stream;
    }
    return TP_OK;
}

/* Fills v (owned arrays) from marker, searched where `where` says. */
static int compute(tp_stage *st, const tp_cols *c, const char *option, const char *marker,
                   int where, tp_iter_view *v)
{
    tp_markers m;
    int rc = tp_markers_open(st, &m, option, marker);
    if (rc != TP_OK) {
        tp_markers_close(&m);
        return rc;
    }
    size_t nstr = tp_str_count(st);
    v->nmemo = nstr;
    v->memo = tp_calloc(nstr ? nstr : 1, 1);
    rc = v->memo ? tp_markers_memo(st, &m, where, c, v->memo, nstr) : TP_ENOMEM;
    tp_iterations it = {0};
    if (rc == TP_OK)
        rc = where == TP_MARKERS_GPU ? gpu_iterations(c, v->memo, nstr, &it)
             : where == TP_MARKERS_RANGES
                 ? tp_iterations_from_ranges(st, c, v->memo, nstr, &it)
                 : tp_iterations_from_markers(st, c, v->memo, nstr, TP_NEST_CLAMP_NS, &it);
    if (rc == TP_OK && (v->step = tp_malloc((it.n ? it.n : 1) * sizeof *v->step)) == NULL)
        rc = TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < it.n; i++)
        v->step[i] = step_number(st, &m, c->name[it.it[i].row], i);
    tp_markers_close(&m);
    if (rc != TP_OK) {
        tp_iterations_free(&it);
        return rc;
    }
    v->it = it.it;
    v->n = it.n;
    v->pid = it.pid;
    v->tid = it.tid;
    v->threads = it.threads;
    v->nested = it.nested;
    return TP_OK;
}

/* Publishes the iterations and the marker memo on t (the row index comes
 * with tp_iter_view_rows). */
static int publish(tp_stage *st, tp_trace *t, const tp_iter_view *v)
{
    int64_t *head = tp_trace_attach(st, t, ATT_HEAD, TP_COL_I64, HEAD_CELLS + PER_IT * v->n);
    int32_t *memo = tp_trace_attach(st, t, ATT_MEMO, TP_COL_I32, v->nmemo);
    if (head == NULL || memo == NULL)
        return TP_ENOMEM;
    head[0] = (int64_t)v->n;
    head[1] = (int64_t)v->threads;
    head[2] = (int64_t)v->nested;
    head[3] = v->pid;
    head[4] = v->tid;
    for (size_t i = 0; i < v->n; i++) {
        int64_t *it = head + HEAD_CELLS + PER_IT * i;
        it[0] = v->it[i].start;
        it[1] = v->it[i].end;
        it[2] = v->it[i].row;
        it[3] = v->step[i];
    }
    for (size_t i = 0; i < v->nmemo; i++)
        memo[i] = v->memo[i];
    return TP_OK;
}

/* Reads what an earlier stage published on t; 0 when nothing is there. */
static int adopt(const tp_trace *t, tp_iter_view *v, int *rc)
{
    size_t nh, nm;
    const int64_t *head = tp_trace_attached(t, ATT_HEAD, TP_COL_I64, &nh);
    const int32_t *memo = tp_trace_attached(t, ATT_MEMO, TP_COL_I32, &nm);
    if (head == NULL || memo == NULL || nh < HEAD_CELLS ||
        nh != HEAD_CELLS + PER_IT * (size_t)head[0])
        return 0;
    v->n = (size_t)head[0];
    v->threads = (size_t)head[1];
    v->nested = (size_t)head[2];
    v->pid = head[3];
    v->tid = head[4];
    v->it = tp_malloc((v->n ? v->n : 1) * sizeof *v->it);
    v->step = tp_malloc((v->n ? v->n : 1) * sizeof *v->step);
    v->memo = tp_malloc(nm ? nm : 1);
    if (v->it == NULL || v->step == NULL || v->memo == NULL) {
        *rc = TP_ENOMEM;
        return 1;
    }
    for (size_t i = 0; i < v->n; i++) {
        const int64_t *it = head + HEAD_CELLS + PER_IT * i;
        v->it[i] = (tp_iteration){it[0], it[1], (uint32_t)it[2]};
        v->step[i] = it[3];
    }
    for (size_t i = 0; i < nm; i++)
        v->memo[i] = (uint8_t)memo[i];
    v->nmemo = nm;
    *rc = TP_OK;
    return 1;
}

static void set_skips(const tp_iter_settings *s, tp_iter_view *v)
{
    v->first = s->skip_first < v->n ? s->skip_first : v->n;
    v->last = v->n - v->first > s->skip_last ? v->n - s->skip_last : v->first;
}

int tp_iter_view_get(tp_stage *st, tp_trace *t, const tp_iter_override *ov, tp_iter_view *v)
{
    memset(v, 0, sizeof *v);
    if (t == NULL)
        t = tp_stage_trace(st);
    const tp_iter_settings *s = tp_iterations_settings(st);
    const tp_cols *c = tp_trace_cols(t);
    int override = ov && (ov->marker || ov->prefix || ov->ranges || ov->gpu);
    v->overridden = override;
    v->source = s->source;
    v->marker = s->marker;
    int rc = TP_OK;
    if (override) {
        if (ov->prefix && !ov->marker && (v->own_marker = prefix_regex(ov->prefix)) == NULL)
            return TP_ENOMEM;
        if (ov->marker || ov->prefix) {
            v->marker = ov->marker ? ov->marker : v->own_marker;
            v->source = TP_ITER_SOURCE_HOST;
        }
        if (ov->ranges)
            v->source = TP_ITER_SOURCE_RANGE;
        if (ov->gpu)
            v->source = TP_ITER_SOURCE_GPU_ANNOTATION;
        rc = compute(st, c, ov->option ? ov->option : "marker", v->marker, where_of(v->source),
                     v);
    } else if (!adopt(t, v, &rc)) {
        rc = compute(st, c, "iterations: marker", v->marker, where_of(v->source), v);
        if (rc == TP_OK)
            rc = publish(st, t, v);
    }
    if (rc != TP_OK) {
        tp_iter_view_release(v);
        return rc;
    }
    set_skips(s, v);
    return TP_OK;
}

int tp_iter_view_rows(tp_stage *st, tp_trace *t, tp_iter_view *v)
{
    if (v->row != NULL)
        return TP_OK;
    if (t == NULL)
        t = tp_stage_trace(st);
    const tp_cols *c = tp_trace_cols(t);
    size_t n;
    const int32_t *row = v->overridden ? NULL : tp_trace_attached(t, ATT_ROW, TP_COL_I32, &n);
    if (row != NULL && n == c->n) {
        v->row = row;
        return TP_OK;
    }
    int32_t *idx = v->overridden ? tp_malloc((c->n ? c->n : 1) * sizeof *idx)
                                 : tp_trace_attach(st, t, ATT_ROW, TP_COL_I32, c->n);
    if (idx == NULL)
        return TP_ENOMEM;
    tp_iterations it = tp_iter_as_iterations(v);
    tp_iterations_index(c, &it, idx);
    if (v->overridden)
        v->own_row = idx; /* a stage's own iterations are never published */
    v->row = idx;
    return TP_OK;
}

void tp_iter_view_release(tp_iter_view *v)
{
    tp_free(v->it);
    tp_free(v->step);
    tp_free(v->memo);
    tp_free(v->own_row);
    tp_free(v->own_marker);
    memset(v, 0, sizeof *v);
}
