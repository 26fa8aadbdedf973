/*
 * analysis `counters` (issue 30, item 2): per GPU stream, the launch queue's
 * length (the SDK's series, tp_sdk_queue.h, as launch_stats.queue
 * summarises it) and the memcpy bandwidth (bytes / duration of each copy
 * while it runs, 0 between copies), as a result of the overlay kind
 * `counter`, which chrome_trace writes back into the trace as counter
 * events ("ph": "C"); their distributions per stream (<id>.summary,
 * counters_summary.c); and the CUPTI range profiler's per-kernel counters
 * with the op that launched each kernel (<id>.kernels, counters_cupti.c).
 * Definitions: docs/plugins/counters.md.
 */
#include <stdlib.h>
#include <string.h>

#include "counters.h"

static const tp_option cn_options[] = {
    TP_OPTION_LIST("cupti_counters", cn_config, cupti_counters,
                   "the CUPTI counters <id>.kernels has as columns, in this order (default: "
                   "HTA's SASS FLOP instruction counters)"),
    TP_OPTION_END};

#define CN_COLS(X, P)                                                                              \
    X(P, series, STR, NULL, "queue_length (launches queued on the stream) or memcpy_gbps")         \
    X(P, pid, I64, NULL, "the process of the stream's activities in the trace (the track's)")      \
    X(P, device, I64, NULL, "the device (null when not said)")                                     \
    X(P, stream, I64, NULL, "the stream")                                                          \
    X(P, start_us, F64, "us", "time of the value, from the trace's t0")                            \
    X(P, value, F64, NULL, "the series' value from start_us on (a count, or 10^9 bytes/s)")
TP_COLUMNS(cn_c, CN_COLS);

static const tp_col_decl cn_s_cols[] = {CN_SUM_COLS(TP_COL_DECL_, cn_s)};
static const tp_col_decl cn_u_cols[] = {CN_UNLISTED_COLS(TP_COL_DECL_, cn_u)};

#define CN_RESULT_SERIES                                                                           \
    TP_RESULT("", "counter", cn_c,                                                                 \
              "per stream, queue length and memcpy bandwidth over time: a counter overlay "       \
              "(chrome_trace writes it as \"ph\": \"C\" events)")
#define CN_RESULT_SUMMARY                                                                          \
    TP_RESULT("summary", "table", cn_s,                                                            \
              "per stream: launches, and the copies' bandwidth distribution (the queue's "         \
              "distribution is launch_stats.queue's)")
#define CN_RESULT_UNLISTED                                                                         \
    TP_RESULT("unlisted", "table", cn_u,                                                           \
              "the CUPTI counters the trace has that cupti_counters does not name, with the "      \
              "events carrying each, most first")
#define CN_KERNELS_DOC                                                                             \
    "one row per kernel with CUPTI counters, in time order: the kernel, the op that launched "     \
    "it, each counter of cupti_counters"

/* Without a configuration: <id>.kernels' fixed columns only. */
static const tp_result_decl cn_results[] = {
    CN_RESULT_SERIES, CN_RESULT_SUMMARY,
    {"kernels", "table", NULL, 0, CN_KERNELS_DOC}, CN_RESULT_UNLISTED, TP_RESULTS_END};

/* The declarations of one configuration: <id>.kernels has a column per
 * counter asked for, so they live in the configuration itself. */
static const tp_result_decl *cn_results_for(const void *config)
{
    cn_config *cfg = (cn_config *)(uintptr_t)config; /* the core's own writable copy */
    size_t ncols = 0;
    cn_kernel_cols(cfg, &ncols);
    cfg->decls[0] = (tp_result_decl)CN_RESULT_SERIES;
    cfg->decls[1] = (tp_result_decl)CN_RESULT_SUMMARY;
    cfg->decls[2] = (tp_result_decl){"kernels", "table", cfg->kernel_cols, ncols, CN_KERNELS_DOC};
    cfg->decls[3] = (tp_result_decl)CN_RESULT_UNLISTED;
    cfg->decls[4] = (tp_result_decl)TP_RESULTS_END;
    return cfg->decls;
}

typedef struct cn_item {
    uint32_t track;
    int64_t in, out; /* queue: call start, activity end; memcpy: start, end */
    double gbps;     /* memcpy only */
    int64_t bytes;   /* memcpy only */
} cn_item;

static int by_track(const void *a, const void *b, void *ctx)
{
    const cn_item *x = a, *y = b;
    (void)ctx;
    if (x->track != y->track)
        return x->track < y->track ? -1 : 1;
    return (x->in > y->in) - (x->in < y->in);
}

static int point(cn *k, const char *series, uint32_t track, int64_t t, double v)
{
    const tp_track *tr = &k->c->tracks[track];
    size_t row;
    int rc = tp_result_add_row(k->st, k->r, &row);
    rc = rc ? rc : tp_result_set_str(k->st, k->r, row, cn_c_series, series);
    rc = rc ? rc : tp_result_set_i64(k->st, k->r, row, cn_c_pid, tr->pid);
    if (rc == TP_OK && tr->device >= 0)
        rc = tp_result_set_i64(k->st, k->r, row, cn_c_device, tr->device);
    rc = rc ? rc : tp_result_set_i64(k->st, k->r, row, cn_c_stream, tr->stream);
    rc = rc ? rc : tp_result_set_f64(k->st, k->r, row, cn_c_start_us, (double)(t - k->t0) / 1000.0);
    return rc ? rc : tp_result_set_f64(k->st, k->r, row, cn_c_value, v);
}

/* The queue series of items v[0, n) of one track. */
static int queue_rows(cn *k, const cn_item *v, size_t n)
{
    int64_t *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    tp_queue_point *p = NULL;
    int rc = in && out ? TP_OK : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < n; i++) {
        in[i] = v[i].in;
        out[i] = v[i].out;
    }
    rc = rc ? rc : tp_queue_series(in, out, n, TP_QUEUE_LEAVES_FIRST, &p);
    for (size_t i = 0; rc == TP_OK && i < 2 * n; i++)
        rc = point(k, "queue_length", v[0].track, p[i].t, (double)p[i].depth);
    if (rc == TP_OK)
        k->sums[v[0].track].launches = (int64_t)n;
    free(p);
    free(in);
    free(out);
    return rc;
}

/* The copies v[0, n) of one track, in start order: each one's bandwidth
 * from its start, 0 once none runs (times never go back: a copy starting
 * before the previous ended takes over). */
static int memcpy_rows(cn *k, const cn_item *v, size_t n)
{
    double *gbps = malloc(n * sizeof *gbps);
    int rc = gbps ? TP_OK : TP_ENOMEM;
    int64_t until = v[0].in, bytes = 0, ns = 0;
    for (size_t i = 0; rc == TP_OK && i < n; i++) {
        if (i > 0 && v[i].in >= until)
            rc = point(k, "memcpy_gbps", v[i].track, until, 0.0);
        rc = rc ? rc : point(k, "memcpy_gbps", v[i].track, v[i].in, v[i].gbps);
        until = v[i].out > until ? v[i].out : until;
        gbps[i] = v[i].gbps;
        bytes += v[i].bytes;
        ns += v[i].out - v[i].in;
    }
    rc = rc ? rc : point(k, "memcpy_gbps", v[0].track, until, 0.0);
    rc = rc ? rc : cn_sum_copies(k, v[0].track, gbps, n, bytes, ns);
    free(gbps);
    return rc;
}

/* Runs of equal track in v (sorted by track), each through rows(). */
static int per_track(cn *k, cn_item *v, size_t n, int (*rows)(cn *, const cn_item *, size_t))
{
    int rc = tp_sort(v, n, sizeof *v, by_track, NULL);
    for (size_t i = 0, j; rc == TP_OK && i < n; i = j) {
        for (j = i + 1; j < n && v[j].track == v[i].track; j++)
            ;
        rc = rows(k, v + i, j - i);
    }
    return rc;
}

/* A copy's bytes (Kineto's "bytes" arg), -1 without. */
static int64_t copy_bytes(const tp_trace *t, size_t row)
{
    size_t len = 0, vlen;
    const char *a = tp_trace_args(t, row, &len), *v;
    int64_t b;
    if (a == NULL || (v = tp_json_get(a, len, "bytes", &vlen)) == NULL ||
        tp_json_i64(v, vlen, &b) != TP_OK)
        return -1;
    return b;
}

static int collect(cn *k, const tp_hier_view *h, const tp_vocab *vocab, cn_item *q, size_t *nq,
                   cn_item *m, size_t *nm)
{
    const tp_cols *c = k->c;
    /* per launcher name id: 0 not asked yet, 1 not a launch API, 2 one (the
     * vocabulary's patterns are matched once per name, not per activity) */
    size_t nnames = tp_str_count(k->st);
    uint8_t *is_api = tp_calloc(nnames ? nnames : 1, 1);
    if (is_api == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < c->n; i++) {
        if (!tp_ev_is_activity(c, i) || c->dur[i] < 0 || tp_ev_stream(c, i) < 0)
            continue;
        int32_t l = h->launcher[i];
        tp_str call = l >= 0 ? c->name[l] : 0;
        if (l >= 0 && call < nnames && is_api[call] == 0)
            is_api[call] = tp_vocab_launch_api(vocab, tp_str_text(k->st, call)) !=
                                 TP_LAUNCHES_NOTHING ? 2 : 1;
        if (l >= 0 && call < nnames && is_api[call] == 2)
            q[(*nq)++] = (cn_item){c->track[i], c->ts[l], c->ts[i] + c->dur[i], 0, 0};
        int64_t b = c->kind[i] == TP_KIND_MEMCPY && c->dur[i] > 0 ? copy_bytes(k->t, i) : -1;
        if (b >= 0)
            m[(*nm)++] = (cn_item){c->track[i], c->ts[i], c->ts[i] + c->dur[i],
                                   (double)b / (double)c->dur[i], b};
    }
    tp_free(is_api);
    return TP_OK;
}

/* The counter series, each stream's summary of them, then the kernels'
 * counters. */
static int cn_all(cn *k, const tp_hier_view *h, const tp_vocab *vocab)
{
    size_t n = k->c->n ? k->c->n : 1, nq = 0, nm = 0;
    cn_item *q = malloc(n * sizeof *q), *m = malloc(n * sizeof *m);
    int rc = q && m ? TP_OK : TP_ENOMEM;
    rc = rc ? rc : collect(k, h, vocab, q, &nq, m, &nm);
    if (rc == TP_OK) {
        tp_result_set_meta(k->st, k->r, "title",
                           "Counters per stream: launch queue, memcpy bandwidth");
        rc = per_track(k, q, nq, queue_rows);
    }
    rc = rc ? rc : per_track(k, m, nm, memcpy_rows);
    free(q);
    free(m);
    rc = rc ? rc : cn_write_summary(k);
    rc = rc ? rc : cn_write_kernels(k, h, vocab);
    size_t nn;
    const char *const *names = cn_counters_of(k->cfg, &nn);
    return rc ? rc : cn_write_unlisted(k, names, nn);
}

static int cn_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const tp_trace *t = tp_stage_trace(st);
    tp_hier_view h;
    if (tp_hier_view_require(st, t, &h) != TP_OK)
        return TP_ENOTFOUND;
    cn k = {st, config, t, tp_trace_cols(t), tp_result_declared(st, NULL), 0, NULL};
    int64_t hi;
    tp_trace_window(t, &k.t0, &hi);
    k.sums = tp_calloc(k.c->n_tracks ? k.c->n_tracks : 1, sizeof *k.sums);
    tp_vocab vocab;
    int rc = k.sums && k.r ? TP_OK : TP_ENOMEM;
    if (rc == TP_OK && (rc = tp_vocab_get(st, &vocab)) == TP_OK) {
        rc = cn_all(&k, &h, &vocab);
        tp_vocab_free(&vocab);
    }
    tp_free(k.sums);
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc cn_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "counters",
                  "per stream, launch queue length and memcpy bandwidth over time (a counter "
                  "overlay that chrome_trace writes into the trace) and their distributions; "
                  "CUPTI counters per kernel",
                  cn_options, cn_config, "hierarchy", cn_results, cn_results_for, 0, NULL, cn_run,
                  NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("counters", "0.1.0", cn_stages);
