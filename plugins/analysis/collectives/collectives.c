/*
 * analysis `collectives` (issue 30, item 3): every collective call of a
 * trace (a kernel the SDK's vocabulary names a collective) with its type,
 * dtype, message size, group size and process group (Kineto args on the
 * kernel or on the op that launched it: record_param_comms' `In msg
 * nelems`, `Out msg nelems`, `dtype`, `Group size`, `Process Group Name`;
 * older PyTorch: the `nccl:<type>` annotation's `Input Dims` and `Input
 * type`), its algorithm and bus bandwidth (NCCL's definitions, nccl-tests
 * doc/PERFORMANCE.md) and their share of the device preset's link peak;
 * aggregated per (type, size bucket, process group); over several traces
 * (`trace: [r0, r1 ...]` or `batch: true`), the calls matched across ranks
 * by the SDK's matcher (tp_sdk_coll.h) with each one's wait and skew.
 * The traces stream (TP_STAGE_F_STREAM): each is read, its calls kept (a
 * co_call each) and freed before the next, so a batch of many ranks holds
 * one trace plus the calls.
 * Definitions: docs/plugins/collectives.md.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_coll.h>

#include "collectives.h"

extern const tp_result_decl co_results[];

static const tp_option co_options[] = {
    TP_OPTION_STRING("preset", co_config, preset, NULL,
                     "device preset whose link_gbps the bus bandwidth is compared with "
                     "(v100_sxm2, a100_sxm4_80gb, h100_sxm5_80gb, mi300x ...); default: the "
                     "trace's device's, else no efficiency"),
    TP_OPTION_END};

static int co_init(tp_stage *st, const void *config, void **state)
{
    const co_config *cfg = config;
    (void)state;
    if (cfg->preset && tp_preset_resolve(st, cfg->preset, NULL, 1) == NULL)
        return TP_EINVAL;
    return TP_OK;
}

/* ------------------------------------------------------ args of a call */

static const char *arg(const tp_trace *t, int32_t row, const char *key, size_t *vlen)
{
    size_t len = 0;
    const char *a = tp_trace_args(t, (size_t)row, &len);
    return a ? tp_json_get(a, len, key, vlen) : NULL;
}

static int64_t arg_i64(const tp_trace *t, int32_t row, const char *key)
{
    size_t len = 0;
    const char *a = tp_trace_args(t, (size_t)row, &len);
    return a ? tp_coll_arg_count(a, len, key) : -1;
}

/* A string arg (a number's text too) into buf; 0 when absent. */
static int arg_text(const tp_trace *t, int32_t row, const char *key, char *buf, size_t size)
{
    size_t vlen;
    const char *v = arg(t, row, key, &vlen);
    buf[0] = '\0';
    if (v == NULL || tp_json_is_null(v, vlen))
        return 0;
    if (tp_json_str(v, vlen, buf, size) >= 0)
        return 1;
    snprintf(buf, size, "%.*s", (int)(vlen < size ? vlen : size - 1), v);
    return 1;
}

static int has_msg_sizes(const tp_trace *t, int32_t row)
{
    size_t vlen;
    return arg(t, row, "In msg nelems", &vlen) || arg(t, row, "Out msg nelems", &vlen);
}

/* The elements of the first input of "Input Dims" ([[6144], ...]); -1. */
static int64_t first_input_elems(const tp_trace *t, int32_t row)
{
    size_t vlen, elen, dlen;
    const char *v = arg(t, row, "Input Dims", &vlen), *e, *d;
    tp_json_iter it, in;
    int64_t n = 1, x;
    if (v == NULL || tp_json_array(v, vlen, &it) != TP_OK || tp_json_next(&it, &e, &elen) != 1 ||
        tp_json_array(e, elen, &in) != TP_OK)
        return -1;
    int any = 0;
    while (tp_json_next(&in, &d, &dlen) == 1) {
        if (tp_json_i64(d, dlen, &x) != TP_OK || x < 0)
            return -1;
        n *= x;
        any = 1;
    }
    return any ? n : -1;
}

/* The first element of "Input type" (['float', ...]) into buf. */
static void first_input_type(const tp_trace *t, int32_t row, char *buf, size_t size)
{
    size_t vlen, elen;
    const char *v = arg(t, row, "Input type", &vlen), *e;
    tp_json_iter it;
    buf[0] = '\0';
    if (v && tp_json_array(v, vlen, &it) == TP_OK && tp_json_next(&it, &e, &elen) == 1 &&
        tp_json_str(e, elen, buf, size) < 0)
        buf[0] = '\0';
}

/* The row whose args describe kernel a: the kernel itself when it carries
 * message sizes, else the nearest op above its launch that does
 * (record_param_comms) or the nearest NVTX range with NCCL's payload (an
 * nsys export), else the nearest collective op above it with "Input Dims"
 * (the nccl:<type> annotation); *how says which. */
static int32_t source_row(const tp_trace *t, const tp_hier_view *h, tp_coll_memo *memo,
                          int32_t a, co_source *how)
{
    const tp_cols *c = tp_trace_cols(t);
    int32_t dims = -1;
    size_t vlen;
    *how = CO_SRC_ARGS;
    if (has_msg_sizes(t, a))
        return a;
    for (int32_t x = h->launcher[a]; x >= 0; x = h->parent[x]) {
        if (has_msg_sizes(t, x))
            return x;
        if (co_has_payload(t, x)) {
            *how = CO_SRC_PAYLOAD;
            return x;
        }
        if (dims < 0 && arg(t, x, "Input Dims", &vlen) &&
            tp_coll_memo_type(memo, c->name[x]) != TP_COLL_NONE)
            dims = x;
    }
    *how = CO_SRC_DIMS;
    return dims;
}

/* Type, sizes and dtype of call k from its source row s; its process group
 * by the SDK (tp_coll_group_of: the kernel, the ancestors of its launch,
 * then an NCCL payload), as critical_path keys the same call. */
static void describe(const tp_trace *t, const tp_hier_view *h, tp_coll_memo *memo, int32_t s,
                     co_source how, co_comms *comms, co_call *k)
{
    int dims_only = how == CO_SRC_DIMS;
    const tp_cols *c = tp_trace_cols(t);
    char name[64];
    tp_coll_type ty = TP_COLL_NONE;
    k->op = s >= 0 && s != k->row ? c->name[s] : 0;
    if (s >= 0 && arg_text(t, s, "Collective name", name, sizeof name))
        ty = tp_coll_type_of_name(name);
    else if (s >= 0 && s != k->row)
        ty = tp_coll_memo_type(memo, c->name[s]);
    if (ty != TP_COLL_NONE && ty != TP_COLL_OTHER)
        k->type = ty;
    int64_t ws = -1;
    tp_trace_info_i64(t, "world_size", &ws);
    k->group_size = s >= 0 ? arg_i64(t, s, "Group size") : -1;
    if (k->group_size < 0)
        k->group_size = ws;
    tp_coll_group_of(t, h, k->row, k->group, sizeof k->group);
    if (s < 0)
        return;
    if (how == CO_SRC_PAYLOAD) {
        co_describe_payload(t, s, comms, k);
        return;
    }
    if (dims_only) {
        first_input_type(t, s, k->dtype, sizeof k->dtype);
        int64_t in = first_input_elems(t, s);
        /* an all_gather's input is one rank's part of the message */
        k->nelems = in >= 0 && k->type == TP_COLL_ALL_GATHER
                        ? (k->group_size > 0 ? in * k->group_size : -1)
                        : in;
    } else {
        arg_text(t, s, "dtype", k->dtype, sizeof k->dtype);
        int64_t in = arg_i64(t, s, "In msg nelems"), out = arg_i64(t, s, "Out msg nelems");
        k->nelems = in > out ? in : out;
    }
    int esz = tp_dtype_bytes(k->dtype);
    k->bytes = k->nelems >= 0 && esz > 0 ? k->nelems * esz : -1;
}

/* ------------------------------------------------------ calls of a trace */

static int push(co_calls *cs, const co_call *k)
{
    if (cs->n == cs->cap) {
        size_t cap = cs->cap ? 2 * cs->cap : 64;
        co_call *v = realloc(cs->v, cap * sizeof *v);
        if (v == NULL)
            return TP_ENOMEM;
        cs->v = v;
        cs->cap = cap;
    }
    cs->v[cs->n++] = *k;
    return TP_OK;
}

static int by_start(const void *a, const void *b, void *ctx)
{
    const co_call *x = a, *y = b;
    (void)ctx;
    if (x->trace != y->trace)
        return x->trace < y->trace ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

static int calls_of(tp_stage *st, const tp_trace *t, uint32_t index, const tp_vocab *vocab,
                    co_calls *cs)
{
    const tp_cols *c = tp_trace_cols(t);
    tp_hier_view h;
    if (tp_hier_view_require(st, t, &h) != TP_OK)
        return TP_ENOTFOUND;
    int64_t rank = index;
    tp_trace_info_i64(t, "rank", &rank);
    /* the vocabulary's patterns are matched once per name, not per activity
     * or ancestor */
    tp_coll_memo memo;
    if (tp_coll_memo_init(&memo, st, vocab) != TP_OK)
        return TP_ENOMEM;
    int rc = TP_OK;
    co_comms comms = {t, 0, NULL, 0};
    for (size_t i = 0; rc == TP_OK && i < c->n; i++) {
        if (!tp_ev_is_activity(c, i) || c->dur[i] < 0)
            continue;
        tp_coll_type ty = tp_coll_memo_type(&memo, c->name[i]);
        if (ty == TP_COLL_NONE)
            continue;
        co_call k = {.trace = index, .rank = rank, .row = (int32_t)i,
                     .stream = tp_ev_stream(c, i), .start = c->ts[i],
                     .end = c->ts[i] + c->dur[i], .type = ty, .name = c->name[i],
                     .nelems = -1, .bytes = -1, .wait_hns = -1, .skew_hns = -1, .set = -1, .seq = -1,
                     .n_ranks = 1};
        co_source how;
        int32_t s = source_row(t, &h, &memo, (int32_t)i, &how);
        describe(t, &h, &memo, s, how, &comms, &k);
        rc = push(cs, &k);
    }
    tp_coll_memo_free(&memo);
    co_comms_free(&comms);
    return rc;
}

/* ------------------------------------------------------ across ranks */


static int earlier(const void *a, const void *b, void *ctx)
{
    const tp_coll_match *m = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (m->earliest_hns[x] != m->earliest_hns[y])
        return m->earliest_hns[x] < m->earliest_hns[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* The number of each matched collective in order of its earliest aligned
 * arrival: (*order)[set]. */
static int by_arrival(const tp_coll_match *m, uint32_t **order)
{
    uint32_t *sorted = malloc((m->nsets ? m->nsets : 1) * sizeof *sorted);
    *order = malloc((m->nsets ? m->nsets : 1) * sizeof **order);
    int rc = sorted && *order ? TP_OK : TP_ENOMEM;
    for (size_t s = 0; rc == TP_OK && s < m->nsets; s++)
        sorted[s] = (uint32_t)s;
    rc = rc ? rc : tp_sort(sorted, m->nsets, sizeof *sorted, earlier, (void *)m);
    for (size_t s = 0; rc == TP_OK && s < m->nsets; s++)
        (*order)[sorted[s]] = (uint32_t)s;
    free(sorted);
    return rc;
}

/* The calls of each trace (cs sorted by trace, start) matched across the
 * traces: each call's set, wait and skew. */
static int match(co_calls *cs, size_t nt)
{
    tp_coll_rank *r = calloc(nt, sizeof *r);
    int64_t *start = malloc((cs->n ? cs->n : 1) * sizeof *start);
    int64_t *end = malloc((cs->n ? cs->n : 1) * sizeof *end);
    uint64_t *key = malloc((cs->n ? cs->n : 1) * sizeof *key);
    size_t *from = calloc(nt + 1, sizeof *from);
    tp_coll_match m = {0};
    int rc = r && start && end && key && from ? TP_OK : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < cs->n; i++) {
        start[i] = cs->v[i].start;
        end[i] = cs->v[i].end;
        key[i] = tp_coll_key(cs->v[i].group, cs->v[i].type);
        from[cs->v[i].trace + 1] = i + 1;
    }
    for (size_t t = 1; rc == TP_OK && t <= nt; t++)
        from[t] = from[t] > from[t - 1] ? from[t] : from[t - 1];
    for (size_t t = 0; rc == TP_OK && t < nt; t++)
        r[t] = (tp_coll_rank){start + from[t], end + from[t], key + from[t], from[t + 1] - from[t]};
    uint32_t *order = NULL;
    if (rc == TP_OK && (rc = tp_coll_match_ranks(r, nt, &m)) == TP_OK &&
        (rc = by_arrival(&m, &order)) == TP_OK) {
        for (size_t s = 0; s < m.nsets; s++)
            for (size_t j = m.first[s]; j < m.first[s + 1]; j++) {
                co_call *k = &cs->v[from[m.member[j].rank] + m.member[j].call];
                k->set = (int64_t)order[s];
                k->n_ranks = (int64_t)tp_coll_set_size(&m, s);
                k->wait_hns = m.latest_hns[s] - m.arrival_hns[j];
                k->skew_hns = m.latest_hns[s] - m.earliest_hns[s];
                k->seq = (int64_t)m.seq[s];
            }
    }
    tp_coll_match_free(&m);
    free(order);
    free(r);
    free(start);
    free(end);
    free(key);
    free(from);
    return rc;
}

static double link_of(tp_stage *st, const co_config *cfg, const tp_trace *t)
{
    const tp_preset *p = tp_preset_resolve_trace(st, cfg->preset, t, 0);
    return p ? p->link_gbps : 0;
}

/* What the call rows need of trace t once it is freed. */
static int see(tp_stage *st, const tp_trace *t, co_seen *seen)
{
    int64_t hi;
    const char *label = tp_trace_info_str(t, "label");
    seen->t0 = 0;
    tp_trace_window(t, &seen->t0, &hi);
    seen->label = label ? tp_intern(st, label, strlen(label)) : 0;
    return seen->label == TP_STR_ERROR ? TP_ENOMEM : TP_OK;
}

static int co_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    size_t nt = tp_stage_trace_count(st);
    co_calls cs = {0};
    tp_vocab vocab;
    if (tp_vocab_get(st, &vocab) != TP_OK)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    int rc = (cs.seen = calloc(nt ? nt : 1, sizeof *cs.seen)) ? TP_OK : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < nt; i++) {
        const tp_trace *t = tp_stage_trace_at(st, i); /* the one before it is freed */
        rc = calls_of(st, t, (uint32_t)i, &vocab, &cs);
        rc = rc ? rc : see(st, t, &cs.seen[i]);
        if (rc == TP_OK && i == 0)
            cs.link_gbps = link_of(st, config, t);
    }
    tp_vocab_free(&vocab);
    if (rc == TP_ENOTFOUND) {
        free(cs.v);
        free(cs.seen);
        return rc;
    }
    rc = rc ? rc : tp_sort(cs.v, cs.n, sizeof *cs.v, by_start, NULL);
    if (rc == TP_OK && nt >= 2)
        rc = match(&cs, nt);
    rc = rc ? rc : co_write_matched(st, &cs);
    rc = rc ? rc : co_write_calls(st, &cs);
    rc = rc ? rc : co_write_summary(st, &cs);
    free(cs.v);
    free(cs.seen);
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc co_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "collectives",
                  "collective calls: type, dtype, message size, group, algorithm and bus "
                  "bandwidth (NCCL's), link efficiency; per (type, size, group); matched "
                  "across ranks with wait and skew (trace: [r0, r1 ...] or batch: true)",
                  co_options, co_config, "hierarchy", co_results, NULL,
                  TP_STAGE_F_TRACES | TP_STAGE_F_STREAM,
                  co_init, co_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("collectives", "0.1.0", co_stages);
