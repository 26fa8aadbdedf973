/* SDK: CUDA / HIP graph replays (tp_sdk_graphs.h). */
#include <stdio.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_rowset.h>
#include <tracepipe/tp_sdk_ext.h>
#include <tracepipe/tp_sdk_graphs.h>
#include <tracepipe/tp_sdk_vocab.h>
#include <tracepipe/tp_sdk_json.h>
#include <tracepipe/tp_sdk_sort.h>
#include <tracepipe/tp_sdk_trace.h>

/* A replayed activity: its launch and its own start. */
typedef struct replay_row {
    int64_t launch_ts, ts;
    int32_t launch;
    uint32_t row;
} replay_row;

static int replay_row_cmp(const void *a, const void *b, void *ctx)
{
    const replay_row *x = a, *y = b;
    (void)ctx;
    if (x->launch_ts != y->launch_ts)
        return x->launch_ts < y->launch_ts ? -1 : 1;
    if (x->launch != y->launch)
        return x->launch < y->launch ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* memo[name]: 0 not yet asked, 1 a graph launch API, 2 not. */
static int is_graph_launch(tp_stage *st, const tp_vocab *v, tp_str name, uint8_t *memo, size_t n)
{
    if (name >= n)
        return tp_vocab_launch_api(v, tp_str_text(st, name)) == TP_LAUNCHES_GRAPH;
    if (memo[name] == 0) {
        const char *s = tp_str_text(st, name);
        memo[name] = s && tp_vocab_launch_api(v, s) == TP_LAUNCHES_GRAPH ? 1 : 2;
    }
    return memo[name] == 1;
}

/* The integer `graph id` in row's args, or -1. */
static int64_t args_graph_id(const tp_trace *t, size_t row)
{
    size_t len = 0, vlen = 0;
    const char *args = tp_trace_args(t, row, &len);
    const char *v = args ? tp_json_get(args, len, "graph id", &vlen) : NULL;
    int64_t id = -1;
    if (v == NULL || tp_json_i64(v, vlen, &id) != TP_OK || id < 0)
        return -1;
    return id;
}

/* The replayed activities, sorted by launch, then start: *n of them. */
static int replayed_rows(tp_stage *st, const tp_cols *c, const tp_vocab *v,
                         const tp_rowcells *launcher, replay_row **out, size_t *n)
{
    size_t nnames = tp_str_count(st), k = 0;
    uint8_t *memo = tp_calloc(nnames ? nnames : 1, 1);
    replay_row *r = tp_malloc((c->n ? c->n : 1) * sizeof *r);
    if (memo == NULL || r == NULL) {
        tp_free(memo);
        tp_free(r);
        return TP_ENOMEM;
    }
    for (size_t i = 0; i < c->n; i++) {
        int32_t l = tp_rowcells_at(launcher, (int64_t)i);
        if (l >= 0 && tp_kind_is_activity(c->kind[i]) &&
            is_graph_launch(st, v, c->name[l], memo, nnames))
            r[k++] = (replay_row){c->ts[l], c->ts[i], l, (uint32_t)i};
    }
    tp_free(memo);
    int rc = tp_sort(r, k, sizeof *r, replay_row_cmp, NULL);
    if (rc != TP_OK) {
        tp_free(r);
        return rc;
    }
    *out = r;
    *n = k;
    return TP_OK;
}

/* A graph's identity while grouping: an explicit id, or a name sequence. */
typedef struct graph_key {
    int explicit_id;
    int64_t id;
    uint64_t hash; /* over the replay's (activity name, stream) pairs, in any order */
    int64_t count;
} graph_key;

static graph_key replay_key(const tp_trace *t, const tp_cols *c, const replay_row *r, size_t n)
{
    graph_key k = {0, -1, 1469598103934665603ull, (int64_t)n};
    int64_t id = args_graph_id(t, r[0].row);
    if (id < 0)
        id = args_graph_id(t, (size_t)r[0].launch);
    if (id >= 0)
        return (graph_key){1, id, 0, (int64_t)n};
    /* the same kernels on the same streams, whatever order the streams
     * interleave in at replay: a sum of one hash per activity */
    k.hash = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t h = 1469598103934665603ull;
        h = (h ^ ((uint64_t)c->name[r[i].row] + 1)) * 1099511628211ull;
        h = (h ^ (uint32_t)tp_ev_stream(c, r[i].row)) * 1099511628211ull;
        h ^= h >> 29;
        k.hash += h * 0x9e3779b97f4a7c15ull;
    }
    return k;
}

static int key_equal(const graph_key *a, const graph_key *b)
{
    if (a->explicit_id != b->explicit_id)
        return 0;
    return a->explicit_id ? a->id == b->id : a->hash == b->hash && a->count == b->count;
}

/* The graph of key k (added when new); -1 when out of memory. */
static int32_t graph_of(tp_graphs *g, graph_key **keys, size_t *cap, const graph_key *k)
{
    for (size_t i = 0; i < g->ngraphs; i++)
        if (key_equal(&(*keys)[i], k))
            return (int32_t)i;
    if (g->ngraphs == *cap) {
        size_t ncap = *cap ? *cap * 2 : 16;
        graph_key *nk = tp_realloc(*keys, ncap * sizeof *nk);
        tp_graph *ng = nk ? tp_realloc(g->graphs, ncap * sizeof *ng) : NULL;
        if (nk)
            *keys = nk;
        if (ng == NULL)
            return -1;
        g->graphs = ng;
        *cap = ncap;
    }
    (*keys)[g->ngraphs] = *k;
    g->graphs[g->ngraphs] = (tp_graph){k->explicit_id ? k->id : (int64_t)g->ngraphs, 0, 0, 0, 0};
    return (int32_t)g->ngraphs++;
}

/* The capture columns a reader filled (tp_ext_column_cells: NULL when
 * absent; TP_ENOMEM when one exists but could not be read as an array). */
static int capture_columns(const tp_trace *t, tp_graphs *g)
{
    const void *op = NULL, *inner = NULL, *args = NULL, *call = NULL;
    int rc = tp_ext_column_cells(t, TP_GRAPH_OP_COLUMN, TP_COL_SID, &op);
    rc = rc ? rc : tp_ext_column_cells(t, TP_GRAPH_INNER_OP_COLUMN, TP_COL_SID, &inner);
    rc = rc ? rc : tp_ext_column_cells(t, TP_GRAPH_OP_ARGS_COLUMN, TP_COL_SID, &args);
    rc = rc ? rc : tp_ext_column_cells(t, TP_GRAPH_OP_CALL_COLUMN, TP_COL_I64, &call);
    g->op = op, g->inner_op = inner, g->op_args = args, g->op_call = call;
    return rc;
}

static int name_graphs(tp_stage *st, tp_graphs *g)
{
    for (size_t i = 0; i < g->ngraphs; i++) {
        char buf[40];
        int len = snprintf(buf, sizeof buf, "graph %lld", (long long)g->graphs[i].id);
        tp_str s = tp_intern(st, buf, (size_t)len);
        if (s == TP_STR_ERROR)
            return TP_ENOMEM;
        g->graphs[i].pseudo_op = s;
    }
    return TP_OK;
}

/* Groups the sorted replayed rows by launch, each launch into its graph. */
static int group_replays(const tp_trace *t, const tp_cols *c, const replay_row *r, size_t n,
                         tp_graphs *g)
{
    graph_key *keys = NULL;
    size_t cap = 0;
    int rc = TP_OK;
    for (size_t i = 0; i < n && rc == TP_OK;) {
        size_t j = i;
        while (j < n && r[j].launch == r[i].launch)
            j++;
        graph_key k = replay_key(t, c, r + i, j - i);
        int32_t gi = graph_of(g, &keys, &cap, &k);
        if (gi < 0) {
            rc = TP_ENOMEM;
            break;
        }
        tp_graph *gr = &g->graphs[gi];
        gr->replays++;
        for (size_t x = i; x < j; x++) {
            g->graph[r[x].row] = gi;
            gr->activities++;
            gr->gpu_ns += c->dur[r[x].row] > 0 ? c->dur[r[x].row] : 0;
        }
        i = j;
    }
    tp_free(keys);
    return rc;
}

/* The graphs published on a trace (once per trace, by the first stage that
 * asks): the graph of each row, and per graph GRAPH_CELLS int64 cells. */
#define ATT_ROW "tp.graphs.row"
#define ATT_LIST "tp.graphs.list"
enum { GRAPH_CELLS = 5 };

static int publish(tp_stage *st, const tp_trace *t, const tp_graphs *g)
{
    /* a cache beside the events, which stay as they are */
    tp_trace *w = (tp_trace *)(uintptr_t)t;
    size_t nrows = g->graph != NULL ? g->nrows : 0; /* none replayed: an empty row array */
    int32_t *row = tp_trace_attach(st, w, ATT_ROW, TP_COL_I32, nrows);
    int64_t *list = tp_trace_attach(st, w, ATT_LIST, TP_COL_I64, GRAPH_CELLS * g->ngraphs);
    if (row == NULL || (list == NULL && g->ngraphs > 0))
        return TP_ENOMEM;
    if (nrows > 0)
        memcpy(row, g->graph, nrows * sizeof *row);
    for (size_t i = 0; i < g->ngraphs; i++) {
        const tp_graph *x = &g->graphs[i];
        int64_t *cell = list + GRAPH_CELLS * i;
        cell[0] = x->id;
        cell[1] = x->replays;
        cell[2] = x->activities;
        cell[3] = x->gpu_ns;
        cell[4] = (int64_t)x->pseudo_op;
    }
    return TP_OK;
}

/* The per-row graph array, -1 everywhere: only for a trace with replays
 * (a trace without keeps g->graph NULL, which the accessors read as none). */
static int graph_rows(tp_graphs *g)
{
    g->graph = tp_malloc((g->nrows ? g->nrows : 1) * sizeof *g->graph);
    if (g->graph == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < g->nrows; i++)
        g->graph[i] = -1;
    return TP_OK;
}

/* What an earlier stage published on t: 1 adopted, 0 nothing there, -1 out
 * of memory. */
static int adopt(const tp_trace *t, size_t nrows, tp_graphs *g)
{
    size_t nr = 0, nl = 0;
    const int32_t *row = tp_trace_attached(t, ATT_ROW, TP_COL_I32, &nr);
    const int64_t *list = tp_trace_attached(t, ATT_LIST, TP_COL_I64, &nl);
    if (row == NULL || nl % GRAPH_CELLS != 0 || (list == NULL && nl > 0))
        return 0;
    if (nr == 0 && nl == 0) /* published with no replay: no per-row array */
        return 1;
    if (nr != nrows)
        return 0;
    if (graph_rows(g) != TP_OK)
        return -1;
    g->ngraphs = nl / GRAPH_CELLS;
    g->graphs = tp_malloc((g->ngraphs ? g->ngraphs : 1) * sizeof *g->graphs);
    if (g->graphs == NULL)
        return -1;
    memcpy(g->graph, row, nrows * sizeof *row);
    for (size_t i = 0; i < g->ngraphs; i++) {
        const int64_t *cell = list + GRAPH_CELLS * i;
        g->graphs[i] = (tp_graph){cell[0], cell[1], cell[2], cell[3], (tp_str)cell[4]};
    }
    return 1;
}

static int find_graphs(tp_stage *st, const tp_trace *t, const tp_vocab *v,
                       const tp_rowcells *launcher, tp_graphs *g)
{
    const tp_cols *c = tp_trace_cols(t);
    int got = adopt(t, c->n, g);
    if (got != 0)
        return got > 0 ? TP_OK : TP_ENOMEM;
    replay_row *r = NULL;
    size_t n = 0;
    int rc = replayed_rows(st, c, v, launcher, &r, &n);
    if (rc == TP_OK && n > 0)
        rc = graph_rows(g);
    if (rc == TP_OK)
        rc = group_replays(t, c, r, n, g);
    if (rc == TP_OK)
        rc = name_graphs(st, g);
    if (rc == TP_OK)
        rc = publish(st, t, g);
    tp_free(r);
    return rc;
}

int tp_graphs_find(tp_stage *st, const tp_trace *t, const tp_vocab *v, const int32_t *launcher,
                   tp_graphs *g)
{
    return tp_graphs_find_ranked(st, t, v, NULL, launcher, g);
}

int tp_graphs_find_ranked(tp_stage *st, const tp_trace *t, const tp_vocab *v,
                          const tp_rowset *gpu, const int32_t *launcher, tp_graphs *g)
{
    tp_rowcells by = {launcher, gpu};
    const tp_cols *c = tp_trace_cols(t);
    memset(g, 0, sizeof *g);
    g->nrows = c->n;
    int rc = find_graphs(st, t, v, &by, g);
    if (rc == TP_OK && capture_columns(t, g) != TP_OK)
        rc = tp_fail(st, TP_ENOMEM, "out of memory reading the graph capture columns");
    if (rc != TP_OK)
        tp_graphs_free(g);
    return rc;
}

void tp_graphs_free(tp_graphs *g)
{
    tp_free(g->graph);
    tp_free(g->graphs);
    memset(g, 0, sizeof *g);
}

int tp_graph_replays(tp_stage *st, const tp_trace *t, const tp_vocab *v, const int32_t *launcher,
                     uint32_t **rows, size_t **start, size_t *nreplays)
{
    const tp_cols *c = tp_trace_cols(t);
    replay_row *r = NULL;
    size_t n = 0, m = 0;
    *nreplays = 0;
    tp_rowcells by = {launcher, NULL};
    int rc = replayed_rows(st, c, v, &by, &r, &n);
    *rows = rc == TP_OK ? tp_malloc((n ? n : 1) * sizeof **rows) : NULL;
    *start = *rows ? tp_malloc((n + 1) * sizeof **start) : NULL;
    if (rc == TP_OK && *start == NULL)
        rc = TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < n; i++) {
        if (i == 0 || r[i].launch != r[i - 1].launch)
            (*start)[m++] = i;
        (*rows)[i] = r[i].row;
    }
    tp_free(r);
    if (rc != TP_OK) {
        tp_free(*rows);
        tp_free(*start);
        *rows = NULL;
        *start = NULL;
        return rc;
    }
    (*start)[m] = n;
    *nreplays = m;
    return TP_OK;
}

int tp_graph_capture_call(const char *name) { return tp_vocab_graph_capture(name); }

const char *tp_graph_op_args(tp_stage *st, const tp_graphs *g, size_t a, size_t *len,
                             int64_t *call)
{
    if (!tp_graph_replayed(g, a) || g->op_args == NULL || g->op_args[a] == 0)
        return NULL;
    const char *s = tp_str_text(st, g->op_args[a]);
    *len = s ? strlen(s) : 0;
    *call = g->op_call ? g->op_call[a] : 0;
    return s;
}

typedef struct op_call_key {
    int64_t launch, call;
    uint32_t row;
} op_call_key;

static int op_call_cmp(const void *a, const void *b, void *ctx)
{
    const op_call_key *x = a, *y = b;
    (void)ctx;
    if (x->launch != y->launch)
        return x->launch < y->launch ? -1 : 1;
    if (x->call != y->call)
        return x->call < y->call ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

int tp_graph_op_calls(tp_stage *st, const tp_graphs *g, const int32_t *launcher, uint32_t **rows,
                      size_t **start, size_t *ncalls)
{
    size_t n = 0, m = 0, cap = g->nrows ? g->nrows : 1;
    op_call_key *k = tp_malloc(cap * sizeof *k);
    *rows = tp_malloc(cap * sizeof **rows);
    *start = tp_malloc((cap + 1) * sizeof **start);
    *ncalls = 0;
    int rc = k && *rows && *start ? TP_OK : TP_ENOMEM;
    for (size_t a = 0; rc == TP_OK && a < g->nrows; a++) {
        size_t len;
        int64_t call = 0;
        if (tp_graph_op_args(st, g, a, &len, &call) && call > 0)
            k[n++] = (op_call_key){launcher[a], call, (uint32_t)a};
    }
    if (rc == TP_OK)
        rc = tp_sort(k, n, sizeof *k, op_call_cmp, NULL);
    for (size_t i = 0; rc == TP_OK && i < n; i++) {
        if (i == 0 || k[i].launch != k[i - 1].launch || k[i].call != k[i - 1].call)
            (*start)[m++] = i;
        (*rows)[i] = k[i].row;
    }
    if (rc == TP_OK) {
        (*start)[m] = n;
        *ncalls = m;
    }
    tp_free(k);
    if (rc != TP_OK) {
        tp_free(*rows);
        tp_free(*start);
        *rows = NULL;
        *start = NULL;
    }
    return rc;
}
