/* analysis `collectives`: its results (docs/plugins/collectives.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_sdk.h>

#include "collectives.h"

#define CO_CALL_COLS(X, P)                                                                         \
    X(P, trace, STR, NULL, "the trace's label")                                                    \
    X(P, rank, I64, NULL, "trace info rank, else the trace's position in the stage's traces")      \
    X(P, stream, I64, NULL, "the kernel's stream (null when not said)")                            \
    X(P, start_us, F64, "us", "the kernel's start, from the trace's t0")                           \
    X(P, dur_us, F64, "us", "the kernel's duration")                                               \
    X(P, type, STR, NULL, "all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, "        \
                          "reduce, send_recv, other: the op's Collective name or nccl:<type> "     \
                          "name, else the kernel's (vocabulary)")                                  \
    X(P, name, STR, NULL, "the kernel")                                                            \
    X(P, op, STR, NULL, "the op whose args gave the sizes (null: none, or the kernel's own)")      \
    X(P, dtype, STR, NULL, "element type as the trace names it (null when not said)")              \
    X(P, process_group, STR, NULL, "Process Group Name (null when not said)")                      \
    X(P, group_size, I64, "count", "Group size, else trace info world_size (null without)")        \
    X(P, n_elements, I64, "count", "the message's elements: max(In, Out msg nelems), or the "      \
                                   "first input's (times the group size for all_gather)")          \
    X(P, size_bytes, I64, "bytes", "n_elements times the dtype's size (null if either unknown)")  \
    X(P, algbw_gbps, F64, "GB/s", "algorithm bandwidth, size_bytes / dur, 10^9 bytes/s")            \
    X(P, busbw_gbps, F64, "GB/s", "bus bandwidth, algbw times NCCL's factor of the type and "       \
                                 "group size, 10^9 bytes/s")                                       \
    X(P, link_percent, F64, "percent", "busbw_gbps / the preset's link_gbps * 100 (null "          \
                                       "without a preset)")                                        \
    X(P, collective, I64, NULL, "index of the matched collective across ranks (<id>.matched; "     \
                                "null with one trace)")                                            \
    X(P, wait_us, F64, "us", "latest aligned arrival at the collective over the ranks minus this " \
                             "call's (null with one trace)")                                       \
    X(P, skew_us, F64, "us", "latest minus earliest aligned arrival (null with one trace)")
TP_COLUMNS(co_call_c, CO_CALL_COLS);

#define CO_SUM_COLS(X, P)                                                                          \
    X(P, rank, I64, NULL, "the calls' rank (as in <id>)")                                          \
    X(P, type, STR, NULL, "collective type")                                                       \
    X(P, size_bucket_bytes, I64, "bytes", "the largest power of two <= size_bytes (null: size "    \
                                          "not known)")                                            \
    X(P, process_group, STR, NULL, "Process Group Name (null when not said)")                      \
    X(P, group_size, I64, "count", "group size (null when not known or not one)")                  \
    X(P, count, I64, "count", "calls")                                                             \
    X(P, sum_dur_us, F64, "us", "their durations, added")                                          \
    X(P, mean_dur_us, F64, "us", "sum_dur_us / count")                                             \
    X(P, total_bytes, I64, "bytes", "size_bytes added (null: size not known)")                     \
    X(P, algbw_gbps, F64, "GB/s", "total_bytes / sum_dur_us, 10^9 bytes/s")                         \
    X(P, busbw_gbps, F64, "GB/s", "algbw_gbps times NCCL's factor")                                 \
    X(P, link_percent, F64, "percent", "busbw_gbps / the preset's link_gbps * 100")
TP_COLUMNS(co_sum_c, CO_SUM_COLS);

#define CO_MATCH_COLS(X, P)                                                                        \
    X(P, collective, I64, NULL, "index of the matched collective, by (process group, type, "       \
                                "sequence)")                                                       \
    X(P, type, STR, NULL, "collective type")                                                       \
    X(P, process_group, STR, NULL, "Process Group Name (null when not said)")                      \
    X(P, seq, I64, NULL, "its position among the calls of its process group and type (0-based)")  \
    X(P, n_ranks, I64, "count", "ranks that made the call")                                        \
    X(P, group_size, I64, "count", "the group size the calls state (max over the ranks)")          \
    X(P, size_bytes, I64, "bytes", "message size (max over the ranks; null when not known)")       \
    X(P, last_rank, I64, NULL, "the rank that arrived last (aligned clocks; ties: the first)")     \
    X(P, skew_us, F64, "us", "latest minus earliest aligned arrival")                              \
    X(P, max_dur_us, F64, "us", "the longest of the ranks' kernels")
TP_COLUMNS(co_match_c, CO_MATCH_COLS);

const tp_result_decl co_results[] = {
    TP_RESULT("calls", "table", co_call_c, "one row per collective call, by trace then start"),
    TP_RESULT("by_type", "table", co_sum_c,
              "per (rank, type, size bucket, process group, group size): calls, time, bandwidths"),
    TP_RESULT("matched", "table", co_match_c,
              "per collective matched across the traces (empty with one trace)"),
    TP_RESULTS_END};

static double us(int64_t ns) { return (double)ns / 1000.0; }

double co_algbw_gbps(const co_call *k)
{
    int64_t d = k->end - k->start;
    return k->bytes >= 0 && d > 0 ? (double)k->bytes / (double)d : NAN;
}

double co_busbw_gbps(const co_call *k)
{
    return co_algbw_gbps(k) * tp_coll_busbw_factor(k->type, k->group_size);
}

static int set_f64(tp_stage *st, tp_result *r, size_t row, int col, double v)
{
    return isnan(v) ? TP_OK : tp_result_set_f64(st, r, row, col, v);
}

static int set_i64(tp_stage *st, tp_result *r, size_t row, int col, int64_t v)
{
    return v < 0 ? TP_OK : tp_result_set_i64(st, r, row, col, v);
}

static int set_str(tp_stage *st, tp_result *r, size_t row, int col, const char *s)
{
    return s && *s ? tp_result_set_str(st, r, row, col, s) : TP_OK;
}

static double link_percent(const co_calls *cs, double busbw)
{
    return cs->link_gbps > 0 ? busbw / cs->link_gbps * 100.0 : NAN;
}

static int call_row(tp_stage *st, tp_result *r, const co_calls *cs, const co_call *k)
{
    const co_seen *seen = &cs->seen[k->trace];
    int64_t t0 = seen->t0;
    size_t row;
    int rc = tp_result_add_row(st, r, &row);
    rc = rc ? rc : set_str(st, r, row, co_call_c_trace, tp_str_text(st, seen->label));
    rc = rc ? rc : tp_result_set_i64(st, r, row, co_call_c_rank, k->rank);
    rc = rc ? rc : set_i64(st, r, row, co_call_c_stream, k->stream);
    rc = rc ? rc : tp_result_set_f64(st, r, row, co_call_c_start_us, us(k->start - t0));
    rc = rc ? rc : tp_result_set_f64(st, r, row, co_call_c_dur_us, us(k->end - k->start));
    rc = rc ? rc : set_str(st, r, row, co_call_c_type, tp_coll_type_name(k->type));
    rc = rc ? rc : set_str(st, r, row, co_call_c_name, tp_str_text(st, k->name));
    rc = rc ? rc : set_str(st, r, row, co_call_c_op, k->op ? tp_str_text(st, k->op) : NULL);
    rc = rc ? rc : set_str(st, r, row, co_call_c_dtype, k->dtype);
    rc = rc ? rc : set_str(st, r, row, co_call_c_process_group, k->group);
    rc = rc ? rc : set_i64(st, r, row, co_call_c_group_size, k->group_size);
    rc = rc ? rc : set_i64(st, r, row, co_call_c_n_elements, k->nelems);
    rc = rc ? rc : set_i64(st, r, row, co_call_c_size_bytes, k->bytes);
    rc = rc ? rc : set_f64(st, r, row, co_call_c_algbw_gbps, co_algbw_gbps(k));
    rc = rc ? rc : set_f64(st, r, row, co_call_c_busbw_gbps, co_busbw_gbps(k));
    rc = rc ? rc
            : set_f64(st, r, row, co_call_c_link_percent, link_percent(cs, co_busbw_gbps(k)));
    rc = rc ? rc : set_i64(st, r, row, co_call_c_collective, k->set);
    if (rc == TP_OK && k->set >= 0) {
        rc = tp_result_set_f64(st, r, row, co_call_c_wait_us, (double)k->wait_hns / 2000.0);
        rc = rc ? rc : tp_result_set_f64(st, r, row, co_call_c_skew_us, (double)k->skew_hns / 2000.0);
    }
    return rc;
}

int co_write_calls(tp_stage *st, const co_calls *cs)
{
    tp_result *r = tp_result_declared(st, "calls");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(st, r, "title", "Collective calls: size, bandwidth, wait");
    int rc = TP_OK;
    for (size_t i = 0; rc == TP_OK && i < cs->n; i++)
        rc = call_row(st, r, cs, &cs->v[i]);
    return rc;
}

/* ------------------------------------------------------------ summary */

static int64_t bucket_of(int64_t bytes)
{
    if (bytes <= 0)
        return bytes;
    int64_t b = 1;
    while (b <= bytes / 2)
        b *= 2;
    return b;
}

static int same_group(const co_call *a, const co_call *b)
{
    return a->trace == b->trace && a->type == b->type && bucket_of(a->bytes) == bucket_of(b->bytes) &&
           strcmp(a->group, b->group) == 0 && a->group_size == b->group_size;
}

/* Calls by group (trace, type, size bucket, process group, group size),
 * then in their order: a group is a run, its first call the earliest. */
static int by_group(const void *a, const void *b, void *ctx)
{
    const co_call *v = ctx, *x = &v[*(const uint32_t *)a], *y = &v[*(const uint32_t *)b];
    int64_t bx = bucket_of(x->bytes), by = bucket_of(y->bytes);
    int c = strcmp(x->group, y->group);
    if (x->trace != y->trace)
        return x->trace < y->trace ? -1 : 1;
    if (x->type != y->type)
        return x->type < y->type ? -1 : 1;
    if (bx != by)
        return bx < by ? -1 : 1;
    if (c != 0)
        return c;
    if (x->group_size != y->group_size)
        return x->group_size < y->group_size ? -1 : 1;
    return (x > y) - (x < y);
}

typedef struct co_agg {
    const co_call *k;   /* the first call of the group */
    int64_t count, dur, bytes, bytes_dur; /* bytes_dur: duration of the calls of known size */
    double bus;         /* Σ bytes * factor */
} co_agg;

static int by_time(const void *a, const void *b, void *ctx)
{
    const co_agg *x = a, *y = b;
    (void)ctx;
    if (x->k->trace != y->k->trace)
        return x->k->trace < y->k->trace ? -1 : 1;
    if (x->dur != y->dur)
        return x->dur > y->dur ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

static int agg_row(tp_stage *st, tp_result *r, const co_calls *cs, const co_agg *g)
{
    size_t row;
    double alg = g->bytes_dur > 0 ? (double)g->bytes / (double)g->bytes_dur : NAN;
    double bus = g->bytes_dur > 0 ? g->bus / (double)g->bytes_dur : NAN;
    int rc = tp_result_add_row(st, r, &row);
    rc = rc ? rc : tp_result_set_i64(st, r, row, co_sum_c_rank, g->k->rank);
    rc = rc ? rc : set_str(st, r, row, co_sum_c_type, tp_coll_type_name(g->k->type));
    rc = rc ? rc : set_i64(st, r, row, co_sum_c_size_bucket_bytes, bucket_of(g->k->bytes));
    rc = rc ? rc : set_str(st, r, row, co_sum_c_process_group, g->k->group);
    rc = rc ? rc : set_i64(st, r, row, co_sum_c_group_size, g->k->group_size);
    rc = rc ? rc : tp_result_set_i64(st, r, row, co_sum_c_count, g->count);
    rc = rc ? rc : tp_result_set_f64(st, r, row, co_sum_c_sum_dur_us, us(g->dur));
    rc = rc ? rc : tp_result_set_f64(st, r, row, co_sum_c_mean_dur_us, us(g->dur) / (double)g->count);
    rc = rc ? rc : set_i64(st, r, row, co_sum_c_total_bytes, g->k->bytes >= 0 ? g->bytes : -1);
    rc = rc ? rc : set_f64(st, r, row, co_sum_c_algbw_gbps, alg);
    rc = rc ? rc : set_f64(st, r, row, co_sum_c_busbw_gbps, bus);
    return rc ? rc : set_f64(st, r, row, co_sum_c_link_percent, link_percent(cs, bus));
}

int co_write_summary(tp_stage *st, const co_calls *cs)
{
    tp_result *r = tp_result_declared(st, "by_type");
    co_agg *g = calloc(cs->n ? cs->n : 1, sizeof *g);
    uint32_t *order = malloc((cs->n ? cs->n : 1) * sizeof *order);
    size_t ng = 0;
    int rc = r && g && order ? TP_OK : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < cs->n; i++)
        order[i] = (uint32_t)i;
    rc = rc ? rc : tp_sort(order, cs->n, sizeof *order, by_group, cs->v);
    if (rc != TP_OK) {
        free(g);
        free(order);
        return rc;
    }
    tp_result_set_meta(st, r, "title", "Collectives per type, size and group");
    for (size_t i = 0; i < cs->n; i++) {
        const co_call *k = &cs->v[order[i]];
        if (i == 0 || !same_group(&cs->v[order[i - 1]], k))
            g[ng++].k = k;
        size_t j = ng - 1;
        g[j].count++;
        g[j].dur += k->end - k->start;
        if (k->bytes >= 0 && k->end > k->start) {
            g[j].bytes += k->bytes;
            g[j].bytes_dur += k->end - k->start;
            g[j].bus += (double)k->bytes * tp_coll_busbw_factor(k->type, k->group_size);
        }
    }
    rc = tp_sort(g, ng, sizeof *g, by_time, NULL);
    for (size_t j = 0; rc == TP_OK && j < ng; j++)
        rc = agg_row(st, r, cs, &g[j]);
    free(g);
    free(order);
    return rc;
}

/* ------------------------------------------------------------ matched */

static int by_set(const void *a, const void *b, void *ctx)
{
    const co_call *const *x = a, *const *y = b;
    (void)ctx;
    if ((*x)->set != (*y)->set)
        return (*x)->set < (*y)->set ? -1 : 1;
    return ((*x)->rank > (*y)->rank) - ((*x)->rank < (*y)->rank);
}

static int set_row(tp_stage *st, tp_result *r, const co_call *const *m, size_t n)
{
    int64_t gs = -1, bytes = -1, dur = 0, last = -1;
    for (size_t i = 0; i < n; i++) {
        gs = m[i]->group_size > gs ? m[i]->group_size : gs;
        bytes = m[i]->bytes > bytes ? m[i]->bytes : bytes;
        dur = m[i]->end - m[i]->start > dur ? m[i]->end - m[i]->start : dur;
        if (last < 0 && m[i]->wait_hns == 0)
            last = m[i]->rank;
    }
    size_t row;
    int rc = tp_result_add_row(st, r, &row);
    rc = rc ? rc : tp_result_set_i64(st, r, row, co_match_c_collective, m[0]->set);
    rc = rc ? rc : set_str(st, r, row, co_match_c_type, tp_coll_type_name(m[0]->type));
    rc = rc ? rc : set_str(st, r, row, co_match_c_process_group, m[0]->group);
    rc = rc ? rc : tp_result_set_i64(st, r, row, co_match_c_seq, m[0]->seq);
    rc = rc ? rc : tp_result_set_i64(st, r, row, co_match_c_n_ranks, (int64_t)n);
    rc = rc ? rc : set_i64(st, r, row, co_match_c_group_size, gs);
    rc = rc ? rc : set_i64(st, r, row, co_match_c_size_bytes, bytes);
    rc = rc ? rc : set_i64(st, r, row, co_match_c_last_rank, last);
    rc = rc ? rc : tp_result_set_f64(st, r, row, co_match_c_skew_us, (double)m[0]->skew_hns / 2000.0);
    return rc ? rc : tp_result_set_f64(st, r, row, co_match_c_max_dur_us, us(dur));
}

int co_write_matched(tp_stage *st, const co_calls *cs)
{
    tp_result *r = tp_result_declared(st, "matched");
    const co_call **m = malloc((cs->n ? cs->n : 1) * sizeof *m);
    size_t n = 0;
    if (r == NULL || m == NULL) {
        free(m);
        return TP_ENOMEM;
    }
    tp_result_set_meta(st, r, "title", "Collectives matched across ranks");
    for (size_t i = 0; i < cs->n; i++)
        if (cs->v[i].set >= 0)
            m[n++] = &cs->v[i];
    int rc = tp_sort(m, n, sizeof *m, by_set, NULL);
    for (size_t i = 0, j; rc == TP_OK && i < n; i = j) {
        for (j = i + 1; j < n && m[j]->set == m[i]->set; j++)
            ;
        rc = set_row(st, r, m + i, j - i);
    }
    free(m);
    return rc;
}
