/* critical_path: the dependency graph, built in one pass over the columns
 * (docs/plugins/critical_path.md, "The graph").  Arrays of nodes and typed
 * edges, memory linear in events, nothing allocated per edge. */
#include <string.h>

#include "cp.h"
#include <tracepipe/tp_sdk_coll.h>
#include <tracepipe/tp_sdk_json.h>
#include <tracepipe/tp_sdk_vocab.h>

const char *const cp_edge_names[CP_EDGE__N] = {"self",   "nesting",    "host_order",
                                               "launch", "stream",     "event_wait",
                                               "sync",   "memcpy",     "gap",
                                               "collective"};
const char *const cp_cat_names[CP_CAT__N] = {"gpu_compute", "communication", "memcpy",
                                             "launch_overhead", "host_cpu", "sync_wait",
                                             "idle"};

/* A stream: acts[from, to) in start order. */
typedef struct cp_stream {
    size_t from, to;
    int64_t pid; /* the process that launched its work (-1: unknown) */
    int32_t device, stream;
} cp_stream;

/* What a name means, classified once per name (vocabulary globs are slow
 * to match per event): per name id, for GPU activities and for runtime
 * calls, the category + 1 (0: not yet), the sync scope + 1, blocking + 1. */
typedef struct cp_names {
    uint8_t *act, *rt, *scope, *blocks;
    size_t n;
} cp_names;

/* What the build finds per node (of every trace), before the edges. */
typedef struct cp_found {
    int32_t *s_src;  /* node -> host predecessor point of its start, or stream predecessor */
    uint8_t *s_type; /* its edge type */
    int32_t *x_src;  /* node -> event-wait source (activity) or last child's end (host) */
    int32_t *end_src; /* node -> sync / blocking-copy source point of its end */
    uint8_t *end_type;
    int32_t *coll_src; /* node -> the last rank's collective start (several traces), or NULL */
} cp_found;

/* Building one trace's part of the graph. */
typedef struct cp_build_ctx {
    cp_graph *g;
    cp_trace *tr;
    const tp_cols *c;
    tp_hier_cview h;
    const tp_vocab *vp;
    int32_t *s_src, *x_src, *end_src, *coll_src; /* the cp_found arrays */
    uint8_t *s_type, *end_type;
    uint32_t *acts; /* activity rows by (device, stream, start, row) */
    size_t nacts;
    cp_stream *streams;
    size_t nstreams;
    uint32_t *by_corr; /* runtime and sync rows by (correlation, row) */
    size_t ncorr;
    cp_names *names;
} cp_build_ctx;

static int64_t ev_end(const tp_cols *c, size_t r) { return c->ts[r] + c->dur[r]; }

/* When an activity's launch was issued: its launch call's start, else its own. */
static int64_t launch_time(const cp_build_ctx *b, uint32_t a)
{
    int32_t l = tp_hier_launcher(&b->h, a);
    return l >= 0 ? b->c->ts[l] : b->c->ts[a];
}

static uint8_t name_category(const cp_build_ctx *b, uint32_t r)
{
    const tp_cols *c = b->c;
    const char *name = tp_str_text(b->g->st, c->name[r]);
    if (tp_kind_is_activity(c->kind[r])) {
        tp_kernel_class k = tp_vocab_kernel_class(b->vp, (tp_kind)c->kind[r], name);
        if (k == TP_KCLASS_COMMUNICATION)
            return CP_COMMUNICATION;
        return k == TP_KCLASS_MEMORY ? CP_MEMCPY_CAT : CP_GPU_COMPUTE;
    }
    if (c->kind[r] == TP_KIND_RUNTIME) {
        tp_launch_what w = tp_vocab_launch_api(b->vp, name);
        if (w == TP_LAUNCHES_SYNC)
            return CP_SYNC_WAIT;
        if (w != TP_LAUNCHES_NOTHING)
            return CP_LAUNCH_OVERHEAD;
    }
    return CP_HOST_CPU;
}

static uint8_t node_category(cp_build_ctx *b, uint32_t r)
{
    const tp_cols *c = b->c;
    tp_str s = c->name[r];
    uint8_t *memo = tp_kind_is_activity(c->kind[r]) ? b->names->act
                    : c->kind[r] == TP_KIND_RUNTIME ? b->names->rt : NULL;
    if (memo == NULL || s >= b->names->n)
        return memo == NULL ? CP_HOST_CPU : name_category(b, r);
    if (memo[s] == 0)
        memo[s] = (uint8_t)(name_category(b, r) + 1);
    return (uint8_t)(memo[s] - 1);
}

/* The sync scope of a runtime call's name (memoised; +1 stored). */
static tp_sync_scope sync_scope_of(cp_build_ctx *b, tp_str s)
{
    if (s >= b->names->n)
        return tp_vocab_sync_scope(b->vp, tp_str_text(b->g->st, s));
    if (b->names->scope[s] == 0)
        b->names->scope[s] = (uint8_t)(tp_vocab_sync_scope(b->vp, tp_str_text(b->g->st, s)) + 1);
    return (tp_sync_scope)(b->names->scope[s] - 1);
}

static int blocks_of(cp_build_ctx *b, tp_str s)
{
    if (s >= b->names->n)
        return tp_vocab_launch_blocks(b->vp, tp_str_text(b->g->st, s));
    if (b->names->blocks[s] == 0)
        b->names->blocks[s] = (uint8_t)(tp_vocab_launch_blocks(b->vp, tp_str_text(b->g->st, s)) + 1);
    return b->names->blocks[s] - 1;
}

/* Host events of the hierarchy's forest (Python frames only when it nests
 * them) and GPU activities are nodes. */
static int is_node(const cp_trace *tr, size_t r)
{
    return (tp_ev_is_host(tr->c, r) && tp_hier_depth(&tr->h, (int64_t)r) >= 0) ||
           tp_ev_is_activity(tr->c, r);
}

/* Numbers trace tr's nodes from g->nn on. */
static int number_nodes(cp_graph *g, cp_trace *tr)
{
    const tp_cols *c = tr->c;
    tr->node_of = tp_malloc((c->n ? c->n : 1) * sizeof *tr->node_of);
    if (tr->node_of == NULL)
        return TP_ENOMEM;
    tr->from = g->nn;
    for (size_t r = 0; r < c->n; r++)
        tr->node_of[r] = is_node(tr, r) ? (int32_t)g->nn++ : -1;
    tr->to = g->nn;
    return TP_OK;
}

/* The graph's per-node and per-point arrays, and what the build finds. */
static int node_arrays(cp_graph *g, cp_found *f)
{
    g->np = 2 * g->nn;
    size_t nn = g->nn ? g->nn : 1, np = g->np ? g->np : 1;
    g->row = tp_malloc(nn * sizeof *g->row);
    g->cat = tp_malloc(nn);
    g->off = tp_malloc((np + 1) * sizeof *g->off);
    f->s_src = tp_malloc(nn * sizeof *f->s_src);
    f->x_src = tp_malloc(nn * sizeof *f->x_src);
    f->end_src = tp_malloc(nn * sizeof *f->end_src);
    f->s_type = tp_calloc(nn, 1);
    f->end_type = tp_calloc(nn, 1);
    if (!g->row || !g->cat || !g->off || !f->s_src || !f->x_src || !f->end_src ||
        !f->s_type || !f->end_type)
        return TP_ENOMEM;
    for (size_t k = 0; k < g->nn; k++)
        f->s_src[k] = f->x_src[k] = f->end_src[k] = -1;
    return TP_OK;
}

/* Trace tr's nodes: rows and categories. */
static void make_nodes(cp_build_ctx *b)
{
    cp_graph *g = b->g;
    const tp_cols *c = b->c;
    for (size_t r = 0; r < c->n; r++) {
        int32_t k = b->tr->node_of[r];
        if (k < 0)
            continue;
        g->row[k] = (uint32_t)r;
        g->cat[k] = node_category(b, (uint32_t)r);
    }
}

static int32_t start_pt(const cp_build_ctx *b, int32_t row) { return 2 * b->tr->node_of[row]; }
static int32_t end_pt(const cp_build_ctx *b, int32_t row) { return 2 * b->tr->node_of[row] + 1; }

/* Host order: each child after its previous sibling (the first after its
 * parent's start), the parent's end after its last child. */
static void host_children(cp_build_ctx *b)
{
    const cp_graph *g = b->g;
    for (size_t k = b->tr->from; k < b->tr->to; k++) {
        int32_t r = (int32_t)g->row[k], prev = -1;
        if (!tp_ev_is_host(b->c, (size_t)r))
            continue;
        for (int32_t ch = tp_hier_first_child(&b->h, r); ch >= 0;
             ch = tp_hier_next_sibling(&b->h, ch)) {
            if (b->tr->node_of[ch] < 0)
                continue;
            int32_t n = b->tr->node_of[ch];
            b->s_src[n] = prev < 0 ? start_pt(b, r) : end_pt(b, prev);
            b->s_type[n] = prev < 0 ? CP_NESTING : CP_HOST_ORDER;
            prev = ch;
        }
        if (prev >= 0)
            b->x_src[k] = end_pt(b, prev);
    }
}

/* Roots of the host forest follow each other on their thread. */
static int host_roots(cp_build_ctx *b)
{
    const tp_cols *c = b->c;
    const cp_graph *g = b->g;
    uint32_t *thread_of = tp_malloc((c->n_tracks ? c->n_tracks : 1) * sizeof *thread_of);
    size_t own = b->tr->to - b->tr->from;
    uint32_t *roots = tp_malloc((own ? own : 1) * sizeof *roots);
    size_t nthreads = 0, nr = 0;
    int rc = thread_of && roots ? tp_thread_ranks(c, thread_of, &nthreads) : TP_ENOMEM;
    for (size_t k = b->tr->from; k < b->tr->to && rc == TP_OK; k++)
        if (tp_ev_is_host(c, g->row[k]) && tp_hier_parent(&b->h, g->row[k]) < 0)
            roots[nr++] = g->row[k];
    rc = rc ? rc : tp_rows_sort_nesting(c, thread_of, roots, nr);
    for (size_t i = 1; i < nr && rc == TP_OK; i++) {
        if (thread_of[c->track[roots[i]]] != thread_of[c->track[roots[i - 1]]])
            continue;
        int32_t n = b->tr->node_of[roots[i]];
        b->s_src[n] = end_pt(b, (int32_t)roots[i - 1]);
        b->s_type[n] = CP_HOST_ORDER;
    }
    tp_free(thread_of);
    tp_free(roots);
    return rc;
}

/* Activities per stream, in start order; each after its predecessor. */
static int streams(cp_build_ctx *b)
{
    const tp_cols *c = b->c;
    cp_graph *g = b->g;
    size_t own = b->tr->to - b->tr->from;
    b->acts = tp_malloc((own ? own : 1) * sizeof *b->acts);
    b->streams = tp_malloc((own ? own : 1) * sizeof *b->streams);
    if (!b->acts || !b->streams)
        return TP_ENOMEM;
    for (size_t k = b->tr->from; k < b->tr->to; k++)
        if (tp_ev_is_activity(c, g->row[k]))
            b->acts[b->nacts++] = g->row[k];
    int rc = tp_sort(b->acts, b->nacts, sizeof *b->acts, tp_rows_cmp_stream_start, (void *)c);
    for (size_t i = 0; i < b->nacts && rc == TP_OK; i++) {
        uint32_t a = b->acts[i];
        cp_stream *s = b->nstreams ? &b->streams[b->nstreams - 1] : NULL;
        if (s == NULL || s->device != tp_ev_device(c, a) || s->stream != tp_ev_stream(c, a)) {
            s = &b->streams[b->nstreams++];
            *s = (cp_stream){i, i, -1, tp_ev_device(c, a), tp_ev_stream(c, a)};
        } else {
            int32_t n = b->tr->node_of[a];
            b->s_src[n] = end_pt(b, (int32_t)b->acts[i - 1]);
            b->s_type[n] = CP_STREAM;
        }
        s->to = i + 1;
        int32_t l = s->pid < 0 ? tp_hier_launcher(&b->h, a) : -1;
        if (l >= 0)
            s->pid = tp_ev_pid(c, (size_t)l);
    }
    return rc;
}

/* The first index of stream s's activities launched at or after time t
 * (launch order is stream order). */
static size_t launched_from(const cp_build_ctx *b, const cp_stream *s, int64_t t)
{
    size_t lo = s->from, hi = s->to;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (launch_time(b, b->acts[mid]) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The last activity of stream s launched before time t, or -1. */
static int32_t last_launched_before(const cp_build_ctx *b, const cp_stream *s, int64_t t)
{
    size_t i = launched_from(b, s, t);
    return i > s->from ? (int32_t)b->acts[i - 1] : -1;
}

/* The first activity of stream s launched at or after time t, or -1. */
static int32_t first_launched_from(const cp_build_ctx *b, const cp_stream *s, int64_t t)
{
    size_t i = launched_from(b, s, t);
    return i < s->to ? (int32_t)b->acts[i] : -1;
}

static const cp_stream *find_stream(const cp_build_ctx *b, int64_t pid, int64_t stream)
{
    for (size_t i = 0; i < b->nstreams; i++)
        if (b->streams[i].stream == stream && (b->streams[i].pid == pid || b->streams[i].pid < 0))
            return &b->streams[i];
    return NULL;
}

static int by_corr(const void *x, const void *y, void *ctx)
{
    const tp_cols *c = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    int64_t ca = tp_ev_corr(c, a), cb = tp_ev_corr(c, b);
    if (ca != cb)
        return ca < cb ? -1 : 1;
    return (a > b) - (a < b);
}

static int corr_index(cp_build_ctx *b)
{
    const tp_cols *c = b->c;
    size_t n = 0;
    for (size_t r = 0; r < c->n; r++)
        n += (c->kind[r] == TP_KIND_RUNTIME || c->kind[r] == TP_KIND_SYNC) &&
             tp_ev_corr(c, r) != TP_NONE;
    b->by_corr = tp_malloc((n ? n : 1) * sizeof *b->by_corr);
    if (b->by_corr == NULL)
        return TP_ENOMEM;
    for (size_t r = 0; r < c->n; r++)
        if ((c->kind[r] == TP_KIND_RUNTIME || c->kind[r] == TP_KIND_SYNC) &&
            tp_ev_corr(c, r) != TP_NONE)
            b->by_corr[b->ncorr++] = (uint32_t)r;
    return tp_sort(b->by_corr, b->ncorr, sizeof *b->by_corr, by_corr, (void *)c);
}

/* The first row of kind with correlation id corr (of process pid, when >= 0), or -1. */
static int32_t row_by_corr(const cp_build_ctx *b, int64_t corr, unsigned kind, int64_t pid)
{
    size_t lo = 0, hi = b->ncorr;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (tp_ev_corr(b->c, b->by_corr[mid]) < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < b->ncorr && tp_ev_corr(b->c, b->by_corr[lo]) == corr; lo++) {
        uint32_t r = b->by_corr[lo];
        if (b->c->kind[r] == kind && (pid < 0 || tp_ev_pid(b->c, r) == pid))
            return (int32_t)r;
    }
    return -1;
}

static int64_t arg_i64(tp_stage *st, const tp_trace *t, int32_t row, const char *key)
{
    size_t len = 0, vlen = 0;
    int64_t v = -1;
    if (row < 0)
        return -1;
    const char *args = tp_trace_args(t, (size_t)row, &len);
    const char *val = args ? tp_json_get(args, len, key, &vlen) : NULL;
    (void)st;
    if (val == NULL || tp_json_i64(val, vlen, &v) != TP_OK)
        return -1;
    return v;
}

/* What a sync call waits for, as its CUDA sync record on the device says. */
typedef struct cp_wait {
    int64_t stream;      /* the synchronised (or waiting) stream, -1: unknown */
    int64_t on_stream;   /* the stream an event was recorded on, -1: unknown */
    int64_t record_time; /* when that event was recorded (its record call's start), -1 */
} cp_wait;

static cp_wait wait_of(const cp_build_ctx *b, const tp_trace *t, uint32_t call)
{
    const tp_cols *c = b->c;
    int64_t pid = tp_ev_pid(c, call);
    int32_t y = row_by_corr(b, tp_ev_corr(c, call), TP_KIND_SYNC, -1);
    cp_wait w = {arg_i64(b->g->st, t, y, "stream"), arg_i64(b->g->st, t, y, "wait_on_stream"), -1};
    int64_t rec = arg_i64(b->g->st, t, y, "wait_on_cuda_event_record_corr_id");
    int32_t rr = rec >= 0 ? row_by_corr(b, rec, TP_KIND_RUNTIME, pid) : -1;
    if (rr >= 0)
        w.record_time = c->ts[rr];
    return w;
}

/* The end point of the latest-ending activity a host sync call waits for:
 * per stream (one stream, or every stream of its process), the last
 * activity launched before `before`, if it ends by the call's end. */
static int32_t waited_activity(const cp_build_ctx *b, uint32_t call, int64_t stream,
                               int64_t before)
{
    const tp_cols *c = b->c;
    int64_t pid = tp_ev_pid(c, call), best_end = INT64_MIN;
    int32_t best = -1;
    for (size_t i = 0; i < b->nstreams; i++) {
        const cp_stream *s = &b->streams[i];
        if ((stream >= 0 && s->stream != stream) || (s->pid >= 0 && s->pid != pid))
            continue;
        int32_t a = last_launched_before(b, s, before);
        if (a >= 0 && ev_end(c, (size_t)a) <= ev_end(c, call) && ev_end(c, (size_t)a) > best_end) {
            best_end = ev_end(c, (size_t)a);
            best = a;
        }
    }
    return best < 0 ? -1 : end_pt(b, best);
}

/* A stream wait: the first activity launched on the waiting stream after
 * the call starts after the last one launched on the recording stream
 * before the event was recorded. */
static void stream_wait(cp_build_ctx *b, uint32_t call, const cp_wait *w)
{
    int64_t pid = tp_ev_pid(b->c, call);
    const cp_stream *from = find_stream(b, pid, w->on_stream), *to = find_stream(b, pid, w->stream);
    if (from == NULL || to == NULL || w->record_time < 0)
        return;
    int32_t src = last_launched_before(b, from, w->record_time);
    int32_t dst = first_launched_from(b, to, b->c->ts[call]);
    if (src < 0 || dst < 0)
        return;
    int32_t n = b->tr->node_of[dst];
    int32_t p = end_pt(b, src);
    if (b->x_src[n] < 0 || cp_t(b->g, b->x_src[n]) < cp_t(b->g, p))
        b->x_src[n] = p;
}

static void sync_call(cp_build_ctx *b, const tp_trace *t, uint32_t call, tp_sync_scope scope)
{
    cp_wait w = wait_of(b, t, call);
    if (scope == TP_SYNC_STREAM_WAIT) {
        stream_wait(b, call, &w);
        return;
    }
    int64_t stream = -1, before = b->c->ts[call];
    if (scope == TP_SYNC_EVENT && w.on_stream >= 0 && w.record_time >= 0) {
        stream = w.on_stream;
        before = w.record_time;
    } else if (scope == TP_SYNC_STREAM && w.stream >= 0) {
        stream = w.stream;
    }
    int32_t src = waited_activity(b, call, stream, before);
    int32_t n = b->tr->node_of[call];
    if (src >= 0) {
        b->end_src[n] = src;
        b->end_type[n] = CP_SYNC;
    }
}

/* Synchronisations and blocking copies. */
static void waits(cp_build_ctx *b, const tp_trace *t)
{
    const tp_cols *c = b->c;
    const cp_graph *g = b->g;
    for (size_t k = b->tr->from; k < b->tr->to; k++) {
        uint32_t r = g->row[k];
        if (c->kind[r] != TP_KIND_RUNTIME || tp_hier_first_child(&b->h, r) >= 0)
            continue;
        tp_sync_scope s = sync_scope_of(b, c->name[r]);
        if (s != TP_SYNC_NONE)
            sync_call(b, t, r, s);
    }
    for (size_t i = 0; i < b->nacts; i++) {
        uint32_t a = b->acts[i];
        int32_t l = tp_hier_launcher(&b->h, a);
        if (l < 0 || b->tr->node_of[l] < 0 || tp_hier_first_child(&b->h, l) >= 0 ||
            !blocks_of(b, c->name[l]))
            continue;
        int32_t n = b->tr->node_of[l], p = end_pt(b, (int32_t)a);
        if (b->end_src[n] < 0 || cp_t(g, b->end_src[n]) < cp_t(g, p)) {
            b->end_src[n] = p;
            b->end_type[n] = CP_MEMCPY;
        }
    }
}

/* ------------------------------------------------------------- edges */

/* An in-edge of the point being built: from src, weight w, owned by own (CP_OWN_*). */
static void add(cp_graph *g, int32_t src, uint8_t type, int64_t w, unsigned own)
{
    size_t i = g->ne++;
    g->src[i] = src;
    g->w[i] = w;
    g->type[i] = CP_EDGE_BYTE(type, own);
}

static void move_edge(cp_graph *g, size_t to, size_t from)
{
    g->src[to] = g->src[from];
    g->w[to] = g->w[from];
    g->type[to] = g->type[from];
}

static void start_edges(const cp_build_ctx *b, int32_t k)
{
    cp_graph *g = b->g;
    uint32_t r = g->row[k];
    int64_t t = cp_t(g, 2 * k);
    if (tp_ev_is_activity(b->c, r)) {
        if (b->s_src[k] >= 0)
            add(g, b->s_src[k], CP_STREAM, 0, CP_OWN_DST);
        if (b->x_src[k] >= 0)
            add(g, b->x_src[k], CP_EVENT_WAIT, 0, CP_OWN_DST);
        int32_t l = tp_hier_launcher(&b->h, r);
        if (l >= 0 && b->tr->node_of[l] >= 0) /* the launch call's time */
            add(g, start_pt(b, l), CP_LAUNCH, 0, CP_OWN_SRC);
        return;
    }
    int32_t src = b->s_src[k], parent = tp_hier_parent(&b->h, r);
    if (src < 0)
        return;
    if (b->s_type[k] == CP_NESTING || parent < 0) { /* the parent's own time, or a root's order */
        add(g, src, b->s_type[k], parent < 0 ? 0 : t - cp_t(g, src), parent < 0 ? CP_OWN_DST : CP_OWN_SRC);
    } else if (cp_t(g, src) <= t) { /* after a sibling: the parent's own time between */
        add(g, src, CP_HOST_ORDER, t - cp_t(g, src), CP_OWN_PARENT);
    } else { /* overlapping siblings (the nesting clamp): from the parent's start */
        add(g, start_pt(b, parent), CP_NESTING, t - cp_t(g, start_pt(b, parent)), CP_OWN_SRC);
    }
}

static void end_edges(const cp_build_ctx *b, int32_t k)
{
    cp_graph *g = b->g;
    uint32_t r = g->row[k];
    int64_t t = cp_t(g, 2 * k + 1), dur = b->c->dur[r];
    int32_t src = tp_ev_is_host(b->c, r) ? b->x_src[k] : -1;
    int32_t last = b->coll_src ? b->coll_src[k] : -1;
    if (last >= 0 && cp_t(g, last) <= t) /* first: on a tie the last rank's arrival binds */
        add(g, last, CP_COLLECTIVE, t - cp_t(g, last), CP_OWN_DST);
    if (src >= 0 && cp_t(g, src) <= t) { /* a parent: its own time after its last child */
        add(g, src, CP_NESTING, t - cp_t(g, src), CP_OWN_DST);
        return;
    }
    if (src < 0 && b->end_src[k] >= 0 && cp_t(g, b->end_src[k]) <= t) {
        /* waiting: the call returns `tail` after the GPU work ends; else
         * (the work was done before the call) only a causal edge */
        int64_t tail = t - cp_t(g, b->end_src[k]);
        int waited = cp_t(g, b->end_src[k]) > cp_t(g, 2 * k);
        add(g, 2 * k, CP_SELF, waited ? tail : dur, CP_OWN_DST);
        add(g, b->end_src[k], b->end_type[k], waited ? tail : 0, CP_OWN_DST);
        return;
    }
    add(g, 2 * k, CP_SELF, dur, CP_OWN_DST);
}

/* Edge i's arrival at its destination, by measured times. */
static int64_t arrival(const cp_graph *g, size_t i) { return cp_t(g, g->src[i]) + g->w[i]; }

/* Keeps the in-edges of point p its measured times allow, and turns the
 * binding one's slack into time: a launch's delay, else a gap edge. */
static void settle(cp_graph *g, int32_t p, size_t from)
{
    size_t keep = from;
    for (size_t i = from; i < g->ne; i++) {
        if (arrival(g, i) <= cp_t(g, p))
            move_edge(g, keep++, i);
        else
            g->n_dropped++;
    }
    g->ne = keep;
    if (keep == from)
        return;
    size_t best = from;
    for (size_t i = from + 1; i < keep; i++) { /* ties: a launch explains a delay */
        int64_t x = arrival(g, i), y = arrival(g, best);
        if (x > y || (x == y && CP_TYPE_OF(g->type[i]) == CP_LAUNCH && g->w[best] == 0))
            best = i;
    }
    int64_t slack = cp_t(g, p) - arrival(g, best);
    if (slack <= 0)
        return;
    if (CP_TYPE_OF(g->type[best]) == CP_LAUNCH || g->w[best] > 0) {
        g->w[best] += slack;
    } else {
        g->type[best] = CP_EDGE_BYTE(CP_GAP, CP_OWN_DST);
        g->w[best] = slack;
    }
}

/* The edge arrays cut to their size (they were made for the most edges). */
static int edges_trim(cp_graph *g)
{
    size_t n = g->ne ? g->ne : 1;
    void *a = tp_realloc(g->src, n * sizeof *g->src);
    g->src = a ? a : g->src;
    void *c = a ? tp_realloc(g->w, n * sizeof *g->w) : NULL;
    g->w = c ? c : g->w;
    void *d = c ? tp_realloc(g->type, n) : NULL;
    g->type = d ? d : g->type;
    return d ? TP_OK : TP_ENOMEM;
}

/* The edge arrays, made for the most edges (at most 3 in-edges a point). */
static int edge_arrays(cp_graph *g)
{
    size_t cap = 3 * g->np + 1;
    g->src = tp_malloc(cap * sizeof *g->src);
    g->w = tp_malloc(cap * sizeof *g->w);
    g->type = tp_malloc(cap);
    return g->src && g->w && g->type ? TP_OK : TP_ENOMEM;
}

/* The in-edges of the points of b's trace. */
static void edges(cp_build_ctx *b)
{
    cp_graph *g = b->g;
    for (size_t k = b->tr->from; k < b->tr->to; k++) {
        g->off[2 * k] = (uint32_t)g->ne;
        start_edges(b, (int32_t)k);
        settle(g, (int32_t)(2 * k), g->off[2 * k]);
        g->off[2 * k + 1] = (uint32_t)g->ne;
        end_edges(b, (int32_t)k);
        settle(g, (int32_t)(2 * k + 1), g->off[2 * k + 1]);
    }
}

static void ctx_free(cp_build_ctx *b)
{
    tp_free(b->acts);
    tp_free(b->streams);
    tp_free(b->by_corr);
    memset(b, 0, sizeof *b);
}

static void found_free(cp_found *f, cp_names *names)
{
    tp_free(f->s_src);
    tp_free(f->s_type);
    tp_free(f->x_src);
    tp_free(f->end_src);
    tp_free(f->end_type);
    tp_free(f->coll_src);
    tp_free(names->act);
    tp_free(names->rt);
    tp_free(names->scope);
    tp_free(names->blocks);
}

static int names_memo(tp_stage *st, cp_names *names)
{
    size_t ns = tp_str_count(st) ? tp_str_count(st) : 1;
    names->n = tp_str_count(st);
    names->act = tp_calloc(ns, 1);
    names->rt = tp_calloc(ns, 1);
    names->scope = tp_calloc(ns, 1);
    names->blocks = tp_calloc(ns, 1);
    return names->act && names->rt && names->scope && names->blocks ? TP_OK : TP_ENOMEM;
}

static cp_build_ctx ctx_of(cp_graph *g, size_t i, const tp_vocab *v, cp_found *f, cp_names *names)
{
    cp_trace *tr = &g->tr[i];
    return (cp_build_ctx){.g = g, .tr = tr, .c = tr->c, .h = tr->h, .vp = v,
                          .s_src = f->s_src, .x_src = f->x_src, .end_src = f->end_src,
                          .coll_src = f->coll_src, .s_type = f->s_type,
                          .end_type = f->end_type, .names = names};
}

/* One trace's edges but the collectives': host order, streams, waits. */
static int trace_edges(cp_build_ctx *b)
{
    host_children(b);
    int rc = host_roots(b);
    rc = rc ? rc : streams(b);
    rc = rc ? rc : corr_index(b);
    if (rc == TP_OK) {
        waits(b, b->tr->t);
        edges(b);
    }
    return rc;
}

/* The stage's traces, their hierarchy views and nodes. */
static int traces(cp_graph *g, tp_stage *st)
{
    g->nt = tp_stage_trace_count(st);
    g->tr = tp_calloc(g->nt ? g->nt : 1, sizeof *g->tr);
    if (g->tr == NULL)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    size_t total = 0;
    for (size_t i = 0; i < g->nt; i++) {
        cp_trace *tr = &g->tr[i];
        tr->t = tp_stage_trace_at(st, i);
        tr->c = tp_trace_cols(tr->t);
        int64_t hi;
        tr->t0 = 0;
        tp_trace_window(tr->t, &tr->t0, &hi); /* once: it may be a pass over the trace */
        if (tp_trace_info_i64(tr->t, "rank", &tr->rank) != TP_OK) /* null with one trace */
            tr->rank = g->nt > 1 ? (int64_t)i : -1;
        total += tr->c->n;
        if (total > INT32_MAX / 2)
            return tp_fail(st, TP_EINVAL, "%s: more events than critical_path handles (%d)",
                           tp_trace_source(tr->t), INT32_MAX / 2);
        if (tp_hier_cview_require(st, tr->t, &tr->h) != TP_OK)
            return TP_ENOTFOUND;
        if (number_nodes(g, tr) != TP_OK)
            return tp_fail(st, TP_ENOMEM, "out of memory");
    }
    return TP_OK;
}

int cp_build(cp_graph *g, tp_stage *st)
{
    tp_vocab v;
    cp_found f = {0};
    cp_names names = {0};
    g->st = st;
    int rc = traces(g, st);
    if (rc != TP_OK)
        return rc; /* reported */
    if ((rc = tp_vocab_get(st, &v)) != TP_OK)
        return tp_fail(st, rc, "out of memory");
    rc = names_memo(st, &names);
    rc = rc ? rc : node_arrays(g, &f);
    rc = rc ? rc : cp_match_collectives(g, &v, &f.coll_src);
    for (size_t i = 0; i < g->nt && rc == TP_OK; i++) {
        cp_build_ctx b = ctx_of(g, i, &v, &f, &names);
        make_nodes(&b);
    }
    rc = rc ? rc : edge_arrays(g);
    for (size_t i = 0; i < g->nt && rc == TP_OK; i++) {
        cp_build_ctx b = ctx_of(g, i, &v, &f, &names);
        rc = trace_edges(&b);
        ctx_free(&b);
    }
    if (rc == TP_OK) {
        g->off[g->np] = (uint32_t)g->ne;
        rc = edges_trim(g);
    }
    found_free(&f, &names);
    for (size_t i = 0; i < g->nt; i++) { /* rows -> nodes: cp_node_of_row from here on */
        tp_free(g->tr[i].node_of);
        g->tr[i].node_of = NULL;
    }
    tp_vocab_free(&v);
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

void cp_graph_drop_edges(cp_graph *g)
{
    tp_free(g->off);
    tp_free(g->src);
    tp_free(g->w);
    tp_free(g->type);
    tp_free(g->order);
    g->off = NULL;
    g->src = NULL;
    g->w = NULL;
    g->type = NULL;
    g->order = NULL;
    g->ne = 0;
}

void cp_graph_free(cp_graph *g)
{
    for (size_t i = 0; g->tr != NULL && i < g->nt; i++)
        tp_free(g->tr[i].node_of);
    tp_free(g->tr);
    tp_free(g->row);
    tp_free(g->cat);
    cp_graph_drop_edges(g);
    tp_free(g->rt);
    tp_free(g->bsrc);
    tp_free(g->btype);
    memset(g, 0, sizeof *g);
}
