/*
 * host_breakdown: the host runtime breakdown tree of seed 001.
 *
 * The root is the host runtime of the window; its children are the
 * hierarchy's roots, aggregated by name among siblings, and so on down
 * `depth` levels, each level cut to `truncate` names plus "Others", and
 * every shown node with children given an "Unaccounted" child: its time not
 * covered by the union of its real children's intervals.
 *
 * Roots of threads other than the main one (those the hierarchy did not
 * attach under a main-thread event) sit under one node per thread
 * ("thread 1075"), so names of parallel threads are not added up past the
 * runtime; other_threads: merge aggregates them with the main thread's.
 *
 * Time is measured inside the kept region K: the window [first start, last
 * end] of the host forest, starting at the first module event when
 * module_marker is set; with skip_module, K is only the time covered by
 * module events (data loading between modules drops out) and the module
 * events themselves are transparent (their children move up a level).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_intervals.h>
#include <tracepipe/tp_sdk_trace.h>
#include <tracepipe/tp_sdk_iter.h>

#include <tracepipe/tp_sdk_topn.h>
#include <tracepipe/tp_sdk_hier.h>

typedef struct hb_config {
    int64_t depth;
    int64_t truncate;
    const char *module_marker;
    int skip_module;
    int64_t batch_size;
    const char *step_prefix;
    int64_t other_threads;
} hb_config;

enum { THREADS_SUBTREE, THREADS_MERGE };
static const char *const hb_thread_modes[] = {"subtree", "merge", NULL};

static const tp_option hb_options[] = {
    TP_OPTION_INT("depth", hb_config, depth, "3", 0, 1000, "levels shown below the root"),
    TP_OPTION_INT("truncate", hb_config, truncate, "3", 0, 1e9,
                  "names kept per node, the rest folded into Others (0 = all)"),
    TP_OPTION_STRING("module_marker", hb_config, module_marker, "",
                     "name prefix of module events (e.g. \"DLRM \"); empty = none"),
    TP_OPTION_BOOL("skip_module", hb_config, skip_module, "false",
                   "drop the module level and the time between modules"),
    TP_OPTION_INT("batch_size", hb_config, batch_size, "0", 0, 1e15,
                  "samples per iteration, for the throughput (0 = off)"),
    TP_OPTION_STRING("step_prefix", hb_config, step_prefix, NULL,
                     "override of the pipeline's iterations: marker for this stage: a name "
                     "prefix of the iteration markers (counted for the throughput)"),
    TP_OPTION_ENUM("other_threads", hb_config, other_threads, "subtree", hb_thread_modes,
                   "roots of threads other than the main one: one subtree per thread (subtree), "
                   "or aggregated by name with the main thread's (merge; percentages may then "
                   "pass 100 when threads run in parallel)"),
    TP_OPTION_END};

/* <id>: the tree, rows in pre-order (parent first, siblings by time, then
 * Others, then Unaccounted).  These are the columns the SDK's top-N helper
 * writes (tp_sdk_topn.h); the result is made from them here and handed to
 * the helper through tp_agg_out, without tp_agg_out_init adding them again. */
#define HB_TREE_COLS(X, P)                                                                         \
    X(P, id, I64, NULL, "the row's number in pre-order (0 = the root)")                            \
    X(P, parent_id, I64, NULL, "the parent row's id (null for the root)")                          \
    X(P, depth, I64, NULL, "levels below the root (0 for the root)")                               \
    X(P, name, STR, NULL, "the event name (with [thread T] when kept apart), thread T, Others, "   \
                          "Unaccounted, or Host runtime for the root")                             \
    X(P, time_us, F64, "us", "the node's time inside the kept region")                             \
    X(P, percent_of_parent, F64, "percent", "100 x time / the parent's time (100 for the root)")   \
    X(P, percent_of_total, F64, "percent", "100 x time / the root's time")                         \
    X(P, count, I64, "count", "events aggregated (null for the root and Unaccounted)")
TP_COLUMNS(hb_tree, HB_TREE_COLS);

/* <id>.summary: one row. */
#define HB_SUMMARY_COLS(X, P)                                                                      \
    X(P, runtime_us, F64, "us", "the host runtime: the kept region's length")                      \
    X(P, iterations, I64, NULL, "iterations overlapping the kept region, at least 1 (a count)")    \
    X(P, batch_size, I64, NULL, "the batch_size option: samples per iteration (0 = off)")          \
    X(P, throughput_samples_per_s, F64, NULL, "batch_size x iterations / runtime in seconds "      \
                                              "(samples per second; null when batch_size is 0)")
TP_COLUMNS(hb_sum, HB_SUMMARY_COLS);

static const tp_result_decl hb_results[] = {
    TP_RESULT("", "tree", hb_tree, "one row per node of the host runtime breakdown"),
    TP_RESULT("summary", "table", hb_sum, "one row: runtime, iterations and throughput"),
    TP_RESULTS_END};

/* The roots of one thread other than the main one, shown as one node. */
typedef struct hb_thread {
    size_t first, n;    /* its roots: roots[first .. first + n) */
    int64_t start, end; /* its first root's start, last root's end */
    char label[160];
} hb_thread;

/* Items of the aggregated tree: a trace row (>= 0), the root (-1), or a
 * thread node (-2 - k for threads[k]); a thread's key is past every name id. */
#define HB_ROOT (-1)
#define HB_THREAD_ITEM(k) (-2 - (int64_t)(k))
#define HB_THREAD_OF(item) ((size_t)(-2 - (item)))
#define HB_THREAD_KEY0 ((uint64_t)1 << 40)

typedef struct hb {
    tp_stage *st;
    const hb_config *cfg;
    const tp_cols *c;
    tp_hier_cview hv; /* hierarchy */
    const int32_t *roots;
    size_t nroots;
    uint8_t *memo; /* per name id: bit0 known, bit1 module */
    size_t nnames;
    tp_interval *seg; /* K: sorted disjoint segments */
    int64_t *prefix; /* prefix[j] = length of segments before j */
    size_t nseg;
    int64_t w0, w1; /* the window */
    tp_agg_buf kids; /* scratch for unaccounted() */
    tp_interval *ivs;
    size_t ivcap;
    size_t main_n;      /* roots[0 .. main_n): the main thread's */
    hb_thread *threads; /* the other threads with roots, when split */
    size_t nthreads;
    uint8_t *parallel;  /* per row: overlaps a sibling of another thread */
} hb;

enum { NAME_KNOWN = 1, NAME_MODULE = 2 };

static unsigned name_flags(hb *h, tp_str name)
{
    if (name >= h->nnames)
        return 0;
    if (!(h->memo[name] & NAME_KNOWN)) {
        const char *s = tp_str_text(h->st, name);
        const char *m = h->cfg->module_marker;
        unsigned f = NAME_KNOWN;
        if (s && m && m[0] && strncmp(s, m, strlen(m)) == 0)
            f |= NAME_MODULE;
        h->memo[name] = (uint8_t)f;
    }
    return h->memo[name];
}

static int64_t row_end(const hb *h, int64_t r) { return h->c->ts[r] + h->c->dur[r]; }

/* Length of K before x. */
static int64_t measure_to(const hb *h, int64_t x)
{
    size_t lo = 0, hi = h->nseg;
    while (lo < hi) { /* first segment starting after x */
        size_t mid = lo + (hi - lo) / 2;
        if (h->seg[mid].start <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return 0;
    const tp_interval *g = &h->seg[lo - 1];
    return h->prefix[lo - 1] + (x < g->end ? x : g->end) - g->start;
}

static int64_t kept(const hb *h, int64_t s, int64_t e)
{
    return e > s ? measure_to(h, e) - measure_to(h, s) : 0;
}

/* x lies in K: inside a segment [s, e), or at the very end of the window
 * (so a zero-length event there still counts). */
static int in_k(const hb *h, int64_t x)
{
    if (h->nseg > 0 && x == h->w1)
        return 1;
    for (size_t lo = 0, hi = h->nseg; lo < hi;) {
        size_t mid = lo + (hi - lo) / 2;
        if (h->seg[mid].end <= x)
            lo = mid + 1;
        else if (h->seg[mid].start > x)
            hi = mid;
        else
            return 1;
    }
    return 0;
}

static int transparent(hb *h, int64_t r)
{
    return h->cfg->skip_module && (name_flags(h, h->c->name[r]) & NAME_MODULE);
}

static int included(const hb *h, int64_t r)
{
    return kept(h, h->c->ts[r], row_end(h, r)) > 0 || in_k(h, h->c->ts[r]);
}

/* Appends r, or for a transparent module event its children. */
static int push_child(hb *h, int64_t r, tp_agg_buf *out)
{
    if (transparent(h, r)) {
        for (int64_t k = tp_hier_first_child(&h->hv, r); k >= 0;
             k = tp_hier_next_sibling(&h->hv, k)) {
            int rc = push_child(h, k, out);
            if (rc != TP_OK)
                return rc;
        }
        return TP_OK;
    }
    return included(h, r) ? tp_agg_push(out, r) : TP_OK;
}

/* Whether any root of thread k lies in the kept region. */
static int thread_included(hb *h, size_t k)
{
    const hb_thread *t = &h->threads[k];
    for (size_t i = t->first; i < t->first + t->n; i++)
        if (included(h, h->roots[i]))
            return 1;
    return 0;
}

static int hb_children(void *ctx, int64_t item, tp_agg_buf *out)
{
    hb *h = ctx;
    int rc = TP_OK;
    if (item == HB_ROOT) {
        size_t n = h->nthreads ? h->main_n : h->nroots;
        for (size_t i = 0; i < n && rc == TP_OK; i++)
            rc = push_child(h, h->roots[i], out);
        for (size_t k = 0; k < h->nthreads && rc == TP_OK; k++)
            if (thread_included(h, k))
                rc = tp_agg_push(out, HB_THREAD_ITEM(k));
        return rc;
    }
    if (item < 0) {
        const hb_thread *t = &h->threads[HB_THREAD_OF(item)];
        for (size_t i = t->first; i < t->first + t->n && rc == TP_OK; i++)
            rc = push_child(h, h->roots[i], out);
        return rc;
    }
    for (int64_t k = tp_hier_first_child(&h->hv, item); k >= 0 && rc == TP_OK;
         k = tp_hier_next_sibling(&h->hv, k))
        rc = push_child(h, k, out);
    return rc;
}

/* [start, end) of an item: the window, a thread's roots, an event. */
static void item_span(const hb *h, int64_t item, int64_t *s, int64_t *e)
{
    if (item == HB_ROOT) {
        *s = h->w0;
        *e = h->w1;
    } else if (item < 0) {
        *s = h->threads[HB_THREAD_OF(item)].start;
        *e = h->threads[HB_THREAD_OF(item)].end;
    } else {
        *s = h->c->ts[item];
        *e = row_end(h, item);
    }
}

static int64_t hb_time(void *ctx, int64_t item)
{
    hb *h = ctx;
    if (item == HB_ROOT)
        return h->nseg ? h->prefix[h->nseg] : 0;
    int64_t s, e;
    item_span(h, item, &s, &e);
    return kept(h, s, e);
}

static void row_thread_text(hb *h, int32_t r, char *buf, size_t size);

/* A row running in parallel with a sibling of another thread is kept apart
 * from same-named siblings of other threads: its key is the interned
 * "NAME [thread T]", so no group adds up parallel time past its parent. */
static uint64_t hb_key(void *ctx, int64_t item)
{
    hb *h = ctx;
    if (item < 0)
        return HB_THREAD_KEY0 + HB_THREAD_OF(item);
    tp_str name = h->c->name[item];
    if (h->parallel == NULL || !h->parallel[item])
        return name;
    char thread[200], label[1024];
    row_thread_text(h, (int32_t)item, thread, sizeof thread);
    const char *text = tp_str_text(h->st, name);
    int n = snprintf(label, sizeof label, "%s [%s]", text ? text : "", thread);
    tp_str id = tp_intern(h->st, label, n < (int)sizeof label ? (size_t)n : sizeof label - 1);
    return id == TP_STR_ERROR ? name : id;
}

static const char *hb_label(void *ctx, uint64_t key)
{
    hb *h = ctx;
    if (key >= HB_THREAD_KEY0)
        return h->threads[key - HB_THREAD_KEY0].label;
    const char *s = tp_str_text(h->st, (tp_str)key);
    return s ? s : "";
}

static int iv_cmp(const void *a, const void *b)
{
    const tp_interval *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Time of item in K not covered by the union of its children's intervals
 * (clipped to the item): never negative, except -1 when out of memory. */
static int64_t hb_unaccounted(void *ctx, int64_t item)
{
    hb *h = ctx;
    int64_t s, e;
    item_span(h, item, &s, &e);
    h->kids.n = 0;
    if (hb_children(h, item, &h->kids) != TP_OK)
        return -1;
    if (h->kids.n > h->ivcap) {
        tp_interval *v = tp_realloc(h->ivs, h->kids.n * sizeof *v);
        if (v == NULL)
            return -1;
        h->ivs = v;
        h->ivcap = h->kids.n;
    }
    size_t n = 0;
    for (size_t i = 0; i < h->kids.n; i++) {
        int64_t ks, ke;
        item_span(h, h->kids.v[i], &ks, &ke);
        int64_t a = ks > s ? ks : s, b = ke < e ? ke : e;
        if (b > a)
            h->ivs[n++] = (tp_interval){a, b};
    }
    if (n > 1) /* h->ivs is still NULL when no node had children yet */
        n = tp_intervals_union(h->ivs, n);
    int64_t covered = 0;
    for (size_t i = 0; i < n; i++)
        covered += kept(h, h->ivs[i].start, h->ivs[i].end);
    int64_t u = hb_time(h, item) - covered;
    return u > 0 ? u : 0;
}

/* Appends [s, e) to K, merging it with the last segment when they touch. */
static void add_segment(hb *h, int64_t s, int64_t e)
{
    if (h->nseg > 0 && s <= h->seg[h->nseg - 1].end) {
        if (e > h->seg[h->nseg - 1].end)
            h->seg[h->nseg - 1].end = e;
        return;
    }
    h->seg[h->nseg++] = (tp_interval){s, e};
}

/* Builds K from the forest, the window and the module events. */
static int build_region(hb *h)
{
    const tp_cols *c = h->c;
    size_t nmod = 0;
    int have = 0;
    int64_t first_mod = 0;
    h->seg = tp_malloc((c->n + 1) * sizeof *h->seg);
    h->prefix = tp_malloc((c->n + 2) * sizeof *h->prefix);
    if (h->seg == NULL || h->prefix == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < c->n; i++) {
        if (!tp_rowset_has(&h->hv.host, (int64_t)i)) /* not in the forest (depth -1) */
            continue;
        int64_t e = c->ts[i] + c->dur[i];
        if (!have || c->ts[i] < h->w0)
            h->w0 = c->ts[i];
        if (!have || e > h->w1)
            h->w1 = e;
        have = 1;
        if (name_flags(h, c->name[i]) & NAME_MODULE) {
            if (nmod == 0 || c->ts[i] < first_mod)
                first_mod = c->ts[i];
            h->seg[nmod++] = (tp_interval){c->ts[i], e};
        }
    }
    if (!have)
        return TP_OK;
    if (h->cfg->module_marker && h->cfg->module_marker[0] && nmod == 0)
        tp_log(h->st, TP_LOG_WARN, "host_breakdown: no event name starts with module_marker '%s'",
               h->cfg->module_marker);
    if (h->cfg->skip_module && nmod > 0) {
        qsort(h->seg, nmod, sizeof *h->seg, iv_cmp);
        size_t n = nmod;
        h->nseg = 0;
        for (size_t i = 0; i < n; i++)
            add_segment(h, h->seg[i].start, h->seg[i].end);
        h->w0 = h->seg[0].start;
        h->w1 = h->seg[h->nseg - 1].end;
    } else {
        if (nmod > 0)
            h->w0 = first_mod;
        h->seg[0] = (tp_interval){h->w0, h->w1};
        h->nseg = 1;
    }
    h->prefix[0] = 0;
    for (size_t j = 0; j < h->nseg; j++)
        h->prefix[j + 1] = h->prefix[j] + h->seg[j].end - h->seg[j].start;
    return TP_OK;
}

/* The trace's iterations (the SDK's view: the pipeline's, or step_prefix) that
 * overlap the kept region (a step starts before the modules nested in it,
 * so its start alone would miss it); at least 1, -1 when out of memory. */
static int64_t count_iterations(hb *h)
{
    tp_iter_override ov = {.prefix = h->cfg->step_prefix, .option = "step_prefix"};
    tp_iter_view v;
    if (tp_iter_view_get(h->st, NULL, &ov, &v) != TP_OK)
        return -1;
    int64_t n = 0;
    for (size_t k = 0; k < v.n; k++)
        n += kept(h, v.it[k].start, v.it[k].end) > 0 || in_k(h, v.it[k].start);
    tp_iter_view_release(&v);
    return n > 0 ? n : 1;
}

static int write_summary(hb *h, tp_result *tree, int64_t runtime_ns)
{
    tp_stage *st = h->st;
    int64_t iters = count_iterations(h);
    if (iters < 0)
        return TP_ENOMEM;
    double runtime_us = (double)runtime_ns / 1000.0;
    double tput = runtime_ns > 0 ? (double)h->cfg->batch_size * (double)iters / (runtime_us / 1e6)
                                 : 0.0;
    char buf[64];
    int rc = TP_OK;
    snprintf(buf, sizeof buf, "%.3f", runtime_us);
    rc |= tp_result_set_meta(st, tree, "runtime_us", buf);
    snprintf(buf, sizeof buf, "%lld", (long long)iters);
    rc |= tp_result_set_meta(st, tree, "iterations", buf);
    if (h->cfg->batch_size > 0) {
        snprintf(buf, sizeof buf, "%.2f", tput);
        rc |= tp_result_set_meta(st, tree, "throughput_samples_per_s", buf);
    }
    tp_result *r = rc == TP_OK ? tp_result_declared(st, "summary") : NULL;
    size_t row;
    if (r == NULL || tp_result_add_row(st, r, &row) != TP_OK)
        return TP_ENOMEM;
    rc |= tp_result_set_f64(st, r, row, hb_sum_runtime_us, runtime_us);
    rc |= tp_result_set_i64(st, r, row, hb_sum_iterations, iters);
    rc |= tp_result_set_i64(st, r, row, hb_sum_batch_size, h->cfg->batch_size);
    if (h->cfg->batch_size > 0)
        rc |= tp_result_set_f64(st, r, row, hb_sum_throughput_samples_per_s, tput);
    rc |= tp_result_set_meta(st, r, "title", "Host runtime summary");
    return rc == TP_OK ? TP_OK : TP_ENOMEM;
}

static int load_hierarchy(hb *h, const tp_trace *t)
{
    if (tp_hier_cview_load(t, h->c->n, &h->hv) != TP_OK)
        return TP_ENOTFOUND;
    h->roots = h->hv.roots;
    h->nroots = h->hv.nroots;
    return TP_OK;
}

static int same_thread(const tp_cols *c, int32_t a, int32_t b)
{
    return tp_ev_pid(c, (size_t)a) == tp_ev_pid(c, (size_t)b) &&
           tp_ev_tid(c, (size_t)a) == tp_ev_tid(c, (size_t)b);
}

/* "thread T", or "pid P thread T" outside the main thread's process. */
static void row_thread_text(hb *h, int32_t r, char *buf, size_t size)
{
    const tp_cols *c = h->c;
    char pid[64], tid[64];
    tp_id_text(h->st, tp_ev_pid(c, (size_t)r), pid, sizeof pid);
    tp_id_text(h->st, tp_ev_tid(c, (size_t)r), tid, sizeof tid);
    if (h->nroots > 0 && tp_ev_pid(c, (size_t)r) == tp_ev_pid(c, (size_t)h->roots[0]))
        snprintf(buf, size, "thread %s", tid);
    else
        snprintf(buf, size, "pid %s thread %s", pid, tid);
}

static void thread_label(hb *h, hb_thread *t)
{
    row_thread_text(h, h->roots[t->first], t->label, sizeof t->label);
}

/* Marks the children of every event that overlap a same-named sibling of
 * another thread: the hierarchy attaches other threads' work under
 * main-thread events, and two such threads running side by side would
 * otherwise be added up into one group longer than its parent.  Children
 * come in start order, so one sweep per parent, keeping per name the
 * sibling reaching furthest, finds them. */
static int mark_parallel(hb *h)
{
    const tp_cols *c = h->c;
    size_t nnames = tp_str_count(h->st);
    int32_t *furthest = tp_malloc((nnames ? nnames : 1) * sizeof *furthest);
    h->parallel = tp_calloc(c->n ? c->n : 1, 1);
    if (h->parallel == NULL || furthest == NULL) {
        tp_free(furthest);
        return TP_ENOMEM;
    }
    memset(furthest, 0xff, (nnames ? nnames : 1) * sizeof *furthest); /* -1 */
    /* the forest's events by rank, in row order: the rank is the count */
    for (size_t p = 0, rank = 0; p < c->n; p++) {
        if (!tp_rowset_has(&h->hv.host, (int64_t)p))
            continue;
        int32_t first = h->hv.first_child[rank++];
        if (first < 0)
            continue;
        for (int32_t k = first; k >= 0; k = tp_hier_next_sibling(&h->hv, k)) {
            int32_t *f = &furthest[c->name[k]];
            if (*f >= 0 && c->ts[k] < row_end(h, *f) && !same_thread(c, k, *f))
                h->parallel[k] = h->parallel[*f] = 1;
            if (*f < 0 || row_end(h, k) > row_end(h, *f))
                *f = k;
        }
        for (int32_t k = first; k >= 0; k = tp_hier_next_sibling(&h->hv, k))
            furthest[c->name[k]] = -1;
    }
    tp_free(furthest);
    return TP_OK;
}

/* Splits the roots (the main thread's first, then each other thread's,
 * hierarchy.roots' order) into the main thread's and one group per other
 * thread, unless other_threads is merge or there is one thread. */
static int split_threads(hb *h)
{
    h->main_n = h->nroots;
    if (h->cfg->other_threads == THREADS_MERGE || h->nroots == 0)
        return TP_OK;
    if (mark_parallel(h) != TP_OK)
        return TP_ENOMEM;
    size_t n = 1;
    while (n < h->nroots && same_thread(h->c, h->roots[n], h->roots[0]))
        n++;
    if (n == h->nroots)
        return TP_OK;
    h->main_n = n;
    h->threads = tp_calloc(h->nroots - n, sizeof *h->threads);
    if (h->threads == NULL)
        return TP_ENOMEM;
    for (size_t i = n; i < h->nroots; i++) {
        int32_t r = h->roots[i];
        hb_thread *t = &h->threads[h->nthreads];
        if (h->nthreads == 0 || !same_thread(h->c, r, h->roots[i - 1])) {
            t = &h->threads[h->nthreads++];
            *t = (hb_thread){.first = i, .start = h->c->ts[r], .end = row_end(h, r)};
            thread_label(h, t);
        } else {
            t = &h->threads[h->nthreads - 1];
        }
        t->n++;
        if (h->c->ts[r] < t->start)
            t->start = h->c->ts[r];
        if (row_end(h, r) > t->end)
            t->end = row_end(h, r);
    }
    return TP_OK;
}

static void hb_free(hb *h)
{
    tp_free(h->threads);
    tp_free(h->parallel);
    tp_free(h->memo);
    tp_free(h->seg);
    tp_free(h->prefix);
    tp_free(h->kids.v);
    tp_free(h->ivs);
}

static int hb_build(hb *h)
{
    int rc = build_region(h);
    if (rc == TP_OK)
        rc = split_threads(h);
    if (rc != TP_OK)
        return rc;
    tp_result *r = tp_result_declared(h->st, NULL); /* the tree's columns, kind tree */
    if (r == NULL || tp_result_set_meta(h->st, r, "title", "Host runtime breakdown") != TP_OK)
        return TP_ENOMEM;
    tp_agg_out o = {.st = h->st, .r = r, .c_id = hb_tree_id, .c_parent = hb_tree_parent_id,
                    .c_depth = hb_tree_depth, .c_name = hb_tree_name, .c_time = hb_tree_time_us,
                    .c_pp = hb_tree_percent_of_parent, .c_pt = hb_tree_percent_of_total,
                    .c_count = hb_tree_count, .max_depth = h->cfg->depth,
                    .truncate = h->cfg->truncate};
    tp_agg_src src = {h, hb_children, hb_time, hb_key, hb_label, hb_unaccounted};
    rc = tp_agg_top(&src, &o, -1, "Host runtime", -1);
    if (rc == TP_OK)
        rc = write_summary(h, r, hb_time(h, -1));
    return rc;
}

static int hb_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "host_breakdown: no trace loaded (put a reader stage first)");
    hb h = {0};
    h.st = st;
    h.cfg = config;
    h.c = tp_trace_cols(t);
    if (load_hierarchy(&h, t) != TP_OK)
        return tp_fail(st, TP_ENOTFOUND,
                       "host_breakdown: hierarchy attachments missing or stale "
                       "(run the hierarchy analysis on this trace first)");
    h.nnames = tp_str_count(st);
    h.memo = tp_calloc(h.nnames ? h.nnames : 1, 1);
    int rc = h.memo ? hb_build(&h) : TP_ENOMEM;
    hb_free(&h);
    if (rc != TP_OK)
        return tp_fail(st, rc, "host_breakdown: out of memory");
    return TP_OK;
}

static const tp_stage_desc hb_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "host_breakdown",
                  "host runtime breakdown tree: time per op name by level, Others, Unaccounted",
                  hb_options, hb_config, "hierarchy", hb_results, NULL, 0, NULL, hb_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("host_breakdown", "0.1.0", hb_stages);
