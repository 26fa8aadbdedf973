/* Trace semantics: marked names, the main thread, iterations.  See
 * include/tracepipe/tp_sdk_trace.h. */
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_trace.h>

#include "tp_sdk_msort.h"

int tp_names_with_prefix(tp_stage *st, const char *prefix, uint8_t **memo, size_t *n)
{
    size_t count = tp_str_count(st), plen = strlen(prefix);
    uint8_t *m = tp_malloc(count ? count : 1);
    if (m == NULL)
        return TP_ENOMEM;
    for (size_t id = 0; id < count; id++) {
        const char *s = tp_str_text(st, (tp_str)id);
        m[id] = s && plen > 0 && strncmp(s, prefix, plen) == 0 ? 1 : 2;
    }
    *memo = m;
    *n = count;
    return TP_OK;
}

/* ------------------------------------------------------------ main thread */

size_t tp_thread_runs(const uint32_t *thread_of, const tp_cols *c, const uint32_t *rows,
                      size_t n, tp_thread_run *runs)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t rank = thread_of[c->track[rows[i]]];
        if (k == 0 || runs[k - 1].rank != rank)
            runs[k++] = (tp_thread_run){i, i, rank};
        runs[k - 1].end = i + 1;
    }
    return k;
}

size_t tp_main_thread(const tp_cols *c, const uint32_t *rows, const tp_thread_run *runs,
                      size_t nruns, const int32_t *parent, const uint8_t *memo, size_t nmemo)
{
    size_t best = 0;
    int64_t best_steps = 0, best_top = 0;
    for (size_t t = 0; t < nruns; t++) {
        int64_t steps = 0, top = 0;
        for (size_t i = runs[t].begin; i < runs[t].end; i++) {
            uint32_t row = rows[i];
            steps += tp_name_marked(memo, nmemo, c->name[row]);
            if (parent[row] < 0)
                top += c->dur[row];
        }
        if (t == 0 || steps > best_steps || (steps == best_steps && top > best_top)) {
            best = t;
            best_steps = steps;
            best_top = top;
        }
    }
    return best;
}

/* ------------------------------------------------------------- iterations */

/* pid/tid order for ties: numbers before texts, texts by their bytes. */
static int id_cmp(tp_stage *st, int64_t a, int64_t b)
{
    if (TP_ID_IS_STR(a) != TP_ID_IS_STR(b))
        return TP_ID_IS_STR(a) ? 1 : -1;
    if (!TP_ID_IS_STR(a))
        return a < b ? -1 : a > b;
    return strcmp(tp_str_text(st, TP_ID_STR(a)), tp_str_text(st, TP_ID_STR(b)));
}

static int same_thread(const tp_cols *c, uint32_t a, uint32_t b)
{
    return tp_ev_pid(c, a) == tp_ev_pid(c, b) && tp_ev_tid(c, a) == tp_ev_tid(c, b);
}

/* Keeps the thread holding the most of it->it[0, total) (grouped by
 * thread, time order within), moved to the front. */
static void pick_thread(tp_stage *st, const tp_cols *c, tp_iterations *it, size_t total)
{
    size_t best = 0, best_n = 0;
    for (size_t a = 0; a < total;) {
        size_t b = a;
        while (b < total && same_thread(c, it->it[b].row, it->it[a].row))
            b++;
        it->threads++;
        int better = b - a > best_n;
        if (!better && b - a == best_n) {
            uint32_t x = it->it[a].row, y = it->it[best].row;
            int pid_order = id_cmp(st, tp_ev_pid(c, x), tp_ev_pid(c, y));
            better = pid_order < 0 ||
                     (pid_order == 0 && id_cmp(st, tp_ev_tid(c, x), tp_ev_tid(c, y)) < 0);
        }
        if (better) {
            best = a;
            best_n = b - a;
        }
        a = b;
    }
    memmove(it->it, it->it + best, best_n * sizeof *it->it);
    it->n = best_n;
    if (best_n) {
        it->pid = tp_ev_pid(c, it->it[0].row);
        it->tid = tp_ev_tid(c, it->it[0].row);
    }
}

static int is_marker(const tp_cols *c, size_t i, const uint8_t *memo, size_t nmemo)
{
    return tp_ev_is_host(c, i) && tp_name_marked(memo, nmemo, c->name[i]);
}

/* The marker rows, copied into a compact table of their own (rows 0..k-1
 * keep the trace's order), so nesting them needs k cells, not n. */
typedef struct marker_table {
    tp_cols cols;
    int64_t *ts, *dur;
    uint32_t *track, *row;
    size_t n;
} marker_table;

static void marker_table_free(marker_table *m)
{
    tp_free(m->ts);
    tp_free(m->dur);
    tp_free(m->track);
    tp_free(m->row);
}

static int marker_table_fill(const tp_cols *c, const uint8_t *memo, size_t nmemo, marker_table *m)
{
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++)
        k += (size_t)is_marker(c, i, memo, nmemo);
    size_t cap = k ? k : 1;
    m->ts = tp_malloc(cap * sizeof *m->ts);
    m->dur = tp_malloc(cap * sizeof *m->dur);
    m->track = tp_malloc(cap * sizeof *m->track);
    m->row = tp_malloc(cap * sizeof *m->row);
    if (!m->ts || !m->dur || !m->track || !m->row)
        return TP_ENOMEM;
    for (size_t i = 0; i < c->n; i++) {
        if (!is_marker(c, i, memo, nmemo))
            continue;
        m->ts[m->n] = c->ts[i];
        m->dur[m->n] = c->dur[i];
        m->track[m->n] = c->track[i];
        m->row[m->n++] = (uint32_t)i;
    }
    memset(&m->cols, 0, sizeof m->cols);
    m->cols.struct_size = (uint32_t)sizeof m->cols;
    m->cols.n = m->n;
    m->cols.ts = m->ts;
    m->cols.dur = m->dur;
    m->cols.track = m->track;
    m->cols.tracks = c->tracks;
    m->cols.n_tracks = c->n_tracks;
    return TP_OK;
}

int tp_iterations_from_markers(tp_stage *st, const tp_cols *c, const uint8_t *memo, size_t nmemo,
                               int64_t clamp_ns, tp_iterations *it)
{
    memset(it, 0, sizeof *it);
    marker_table m;
    memset(&m, 0, sizeof m);
    int rc = marker_table_fill(c, memo, nmemo, &m);
    size_t k = m.n, cap = k ? k : (size_t)1, kept = 0;
    uint32_t *pos = rc == TP_OK ? tp_malloc(cap * sizeof *pos) : NULL;
    int32_t *parent = rc == TP_OK ? tp_malloc(cap * sizeof *parent) : NULL;
    it->it = rc == TP_OK ? tp_malloc(cap * sizeof *it->it) : NULL;
    if (pos == NULL || parent == NULL || it->it == NULL)
        rc = TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < k; i++) {
        pos[i] = (uint32_t)i;
        parent[i] = -1;
    }
    if (rc == TP_OK)
        rc = tp_nest_rows(&m.cols, NULL, pos, k, clamp_ns, parent, NULL);
    for (size_t i = 0; rc == TP_OK && i < k; i++) {
        uint32_t p = pos[i];
        if (parent[p] >= 0)
            continue; /* a marker inside a marker: not an iteration */
        it->it[kept++] = (tp_iteration){m.ts[p], m.ts[p] + m.dur[p], m.row[p]};
    }
    it->nested = k - kept;
    if (rc == TP_OK)
        pick_thread(st, c, it, kept);
    tp_free(pos);
    tp_free(parent);
    marker_table_free(&m);
    if (rc != TP_OK)
        tp_iterations_free(it);
    return rc;
}

/* ---- ranges: 'b' ... 'e' with the same (cat, id) */
typedef struct range_end {
    tp_str cat;
    int64_t id, ts;
    uint32_t row;
} range_end;

static int range_end_cmp(const void *a, const void *b)
{
    const range_end *x = a, *y = b;
    if (x->cat != y->cat)
        return x->cat < y->cat ? -1 : 1;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* The first 'e' of (cat, id) at or after ts, or NULL. */
static const range_end *find_end(const range_end *e, size_t n, tp_str cat, int64_t id, int64_t ts)
{
    range_end key = {cat, id, ts, 0};
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (range_end_cmp(&e[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && e[lo].cat == cat && e[lo].id == id ? &e[lo] : NULL;
}

static int is_range_begin(const tp_cols *c, size_t i, const uint8_t *memo, size_t nmemo)
{
    return c->phase[i] == 'b' && tp_name_marked(memo, nmemo, c->name[i]);
}

/* Order of ranges: by thread (pid, tid), then start, then row. */
static inline int iter_less(const tp_cols *c, const tp_iteration *x, const tp_iteration *y)
{
    int64_t px = tp_ev_pid(c, x->row), py = tp_ev_pid(c, y->row);
    int64_t tx = tp_ev_tid(c, x->row), ty = tp_ev_tid(c, y->row);
    if (px != py)
        return px < py;
    if (tx != ty)
        return tx < ty;
    if (x->start != y->start)
        return x->start < y->start;
    return x->row < y->row;
}

TP_MSORT_DEFINE(sort_iterations, tp_iteration, const tp_cols *, iter_less)

int tp_iterations_from_ranges(tp_stage *st, const tp_cols *c, const uint8_t *memo, size_t nmemo,
                              tp_iterations *it)
{
    memset(it, 0, sizeof *it);
    size_t nb = 0, ne = 0;
    for (size_t i = 0; i < c->n; i++) {
        nb += (size_t)is_range_begin(c, i, memo, nmemo);
        ne += c->phase[i] == 'e';
    }
    range_end *ends = tp_malloc((ne ? ne : 1) * sizeof *ends);
    it->it = tp_malloc((nb ? nb : 1) * sizeof *it->it);
    if (ends == NULL || it->it == NULL) {
        tp_free(ends);
        tp_iterations_free(it);
        return TP_ENOMEM;
    }
    ne = 0;
    for (size_t i = 0; i < c->n; i++)
        if (c->phase[i] == 'e')
            ends[ne++] = (range_end){c->cat[i], tp_ev_flow_id(c, i), c->ts[i], (uint32_t)i};
    qsort(ends, ne, sizeof *ends, range_end_cmp);
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (!is_range_begin(c, i, memo, nmemo))
            continue;
        const range_end *e = find_end(ends, ne, c->cat[i], tp_ev_flow_id(c, i), c->ts[i]);
        if (e != NULL)
            it->it[k++] = (tp_iteration){c->ts[i], e->ts, (uint32_t)i};
    }
    tp_free(ends);
    if (sort_iterations(c, it->it, k) != TP_OK) {
        tp_iterations_free(it);
        return TP_ENOMEM;
    }
    pick_thread(st, c, it, k);
    return TP_OK;
}

static size_t iteration_at(const tp_iterations *it, int64_t ts)
{
    size_t lo = 0, hi = it->n; /* first iteration starting after ts */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (it->it[mid].start <= ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int32_t tp_iteration_of(const tp_iterations *it, int64_t ts)
{
    size_t at = iteration_at(it, ts);
    return at > 0 && ts < it->it[at - 1].end ? (int32_t)(at - 1) : -1;
}

void tp_iterations_index(const tp_cols *c, const tp_iterations *it, int32_t *index)
{
    for (size_t i = 0; i < c->n; i++)
        index[i] = tp_iteration_of(it, c->ts[i]);
}

void tp_iterations_free(tp_iterations *it)
{
    tp_free(it->it);
    it->it = NULL;
    it->n = 0;
}
