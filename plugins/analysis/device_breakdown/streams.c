/*
 * device_breakdown: preparation (activities, owners, forest order, streams)
 * and the per-stream active/idle table.
 */
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>

#include "devb_internal.h"

static int is_activity(uint8_t k)
{
    return k == TP_KIND_KERNEL || k == TP_KIND_MEMCPY || k == TP_KIND_MEMSET;
}

/* Names that structure a trace rather than compute: modules and steps. */
static int module_like(const char *s)
{
    static const char *const prefixes[] = {"##", "__", "module::", "DLRM ",
                                           "DistributedDataParallel", "ProfilerStep#", NULL};
    for (size_t i = 0; prefixes[i]; i++)
        if (strncmp(s, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

int db_is_merge_op(db *d, int64_t r)
{
    if (!d->cfg->merge_ops || d->c->kind[r] != TP_KIND_CPU_OP)
        return 0;
    tp_str name = d->c->name[r];
    if (name >= d->nnames)
        return 1;
    if (d->module_memo[name] == 0) {
        const char *s = tp_str_text(d->st, name);
        d->module_memo[name] = (s && module_like(s)) ? 1 : 2;
    }
    return d->module_memo[name] == 2;
}

/* The op an activity is shown under: its launcher's nearest ancestor that
 * is not itself a runtime call, or -1.  With merge_ops, the topmost op on
 * the chain instead (seed 001: the first operator below modules gathers all
 * kernels of its subtree). */
static int64_t owner_of(db *d, int64_t a)
{
    int64_t p = d->launcher[a];
    while (p >= 0 && d->c->kind[p] == TP_KIND_RUNTIME)
        p = d->parent[p];
    int64_t top_op = -1;
    for (int64_t q = p; q >= 0 && d->cfg->merge_ops; q = d->parent[q])
        if (db_is_merge_op(d, q))
            top_op = q;
    return top_op >= 0 ? top_op : p;
}

/* Appends the subtree of root to d->pre in pre-order (no recursion). */
static void walk_preorder(db *d, int64_t root)
{
    int64_t node = root;
    d->pre[d->npre++] = root;
    for (;;) {
        if (d->first_child[node] >= 0) {
            node = d->first_child[node];
        } else {
            while (node != root && d->next_sibling[node] < 0)
                node = d->parent[node];
            if (node == root)
                return;
            node = d->next_sibling[node];
        }
        d->pre[d->npre++] = node;
    }
}

static int db_iv_cmp(const void *a, const void *b)
{
    const db_iv *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return x->e < y->e ? -1 : x->e > y->e;
}

static int collect_streams(db *d)
{
    db_iv *iv = d->iv;
    for (size_t i = 0; i < d->nacts; i++) {
        int64_t a = d->acts[i];
        iv[i] = (db_iv){tp_ev_device(d->c, (size_t)a), tp_ev_stream(d->c, (size_t)a), d->c->ts[a], d->c->ts[a] + d->c->dur[a]};
    }
    qsort(iv, d->nacts, sizeof *iv, db_iv_cmp);
    d->streams = tp_malloc((d->nacts ? d->nacts : 1) * sizeof *d->streams);
    if (d->streams == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < d->nacts; i++) {
        /* iv and by_stream are both sorted by (device, stream): index i is
         * the same stream's activity in both */
        if (i == 0 || iv[i].device != iv[i - 1].device || iv[i].stream != iv[i - 1].stream)
            d->streams[d->nstreams++] = (db_stream){iv[i].device, iv[i].stream, i, 0};
        d->streams[d->nstreams - 1].count++;
        if (i > 0 && iv[i].device != iv[0].device)
            d->multi_device = 1;
    }
    return TP_OK;
}

static int act_cmp(const void *a, const void *b)
{
    const db_act *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* Sorts the activities by stream once, so each stream's pass touches only
 * its own activities. */
static void group_by_stream(db *d)
{
    for (size_t i = 0; i < d->nacts; i++) {
        int64_t a = d->acts[i];
        int64_t owner = d->launcher[a] >= 0 ? owner_of(d, a) : -1;
        d->by_stream[i] = (db_act){tp_ev_device(d->c, (size_t)a), tp_ev_stream(d->c, (size_t)a), a, owner};
    }
    qsort(d->by_stream, d->nacts, sizeof *d->by_stream, act_cmp);
}

int db_prepare(db *d)
{
    const tp_cols *c = d->c;
    size_t n = c->n ? c->n : 1;
    d->acts = tp_malloc(n * sizeof *d->acts);
    d->pre = tp_malloc(n * sizeof *d->pre);
    d->dt = tp_calloc(n, sizeof *d->dt);
    d->pos = tp_malloc(n * sizeof *d->pos);
    d->touched = tp_malloc(n * sizeof *d->touched);
    d->mark = tp_calloc(n, 1);
    int32_t **lists[] = {&d->tfirst, &d->tnext, &d->ofirst, &d->onext};
    for (size_t k = 0; k < sizeof lists / sizeof lists[0]; k++) {
        if ((*lists[k] = tp_malloc(n * sizeof **lists[k])) == NULL)
            return TP_ENOMEM;
        memset(*lists[k], 0xff, n * sizeof **lists[k]); /* -1 everywhere */
    }
    d->by_stream = tp_malloc(n * sizeof *d->by_stream);
    d->nnames = tp_str_count(d->st);
    d->short_memo = tp_calloc(d->nnames ? d->nnames : 1, sizeof *d->short_memo);
    d->module_memo = tp_calloc(d->nnames ? d->nnames : 1, 1);
    if (!d->acts || !d->pre || !d->dt || !d->pos || !d->touched || !d->mark ||
        !d->by_stream || !d->short_memo || !d->module_memo)
        return TP_ENOMEM;
    for (size_t i = 0; i < c->n; i++) {
        if (c->phase[i] != 'X' || c->dur[i] < 0 || !is_activity(c->kind[i]))
            continue;
        d->acts[d->nacts++] = (int64_t)i;
    }
    for (size_t i = 0; i < d->nroots; i++)
        if (d->roots[i] >= 0 && (size_t)d->roots[i] < c->n)
            walk_preorder(d, d->roots[i]);
    memset(d->pos, 0xff, n * sizeof *d->pos); /* -1: not in the host forest */
    for (size_t i = 0; i < d->npre; i++)
        d->pos[d->pre[i]] = (int32_t)i;
    group_by_stream(d);
    d->iv = tp_malloc(n * sizeof *d->iv);
    if (d->iv == NULL)
        return TP_ENOMEM;
    return collect_streams(d);
}

/* Earliest start and latest end of all complete events but the
 * profiler's own span. */
static void window(const db *d, int64_t *w0, int64_t *w1)
{
    const tp_cols *c = d->c;
    int have = 0;
    *w0 = *w1 = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (c->phase[i] != 'X' || c->dur[i] < 0 || c->kind[i] == TP_KIND_TRACE)
            continue;
        if (!have || c->ts[i] < *w0)
            *w0 = c->ts[i];
        if (!have || c->ts[i] + c->dur[i] > *w1)
            *w1 = c->ts[i] + c->dur[i];
        have = 1;
    }
}

static int stream_row(db *d, tp_result *r, const db_stream *s, int64_t span, int64_t active)
{
    size_t row;
    int rc = tp_result_add_row(d->st, r, &row);
    if (rc != TP_OK)
        return rc;
    rc |= tp_result_set_i64(d->st, r, row, 0, s->device);
    rc |= tp_result_set_i64(d->st, r, row, 1, s->stream);
    rc |= tp_result_set_f64(d->st, r, row, 2, (double)span / 1000.0);
    rc |= tp_result_set_f64(d->st, r, row, 3, (double)active / 1000.0);
    rc |= tp_result_set_f64(d->st, r, row, 4, (double)(span - active) / 1000.0);
    rc |= tp_result_set_f64(d->st, r, row, 5,
                            span > 0 ? 100.0 * (double)active / (double)span : 0.0);
    return rc == TP_OK ? TP_OK : TP_ENOMEM;
}

int db_write_streams(db *d)
{
    static const char *const cols[] = {"device", "stream", "span_us", "active_us", "idle_us",
                                       "active_percent"};
    tp_result *r = tp_result_new(d->st, "streams");
    if (r == NULL)
        return TP_ENOMEM;
    for (int i = 0; i < 6; i++)
        if (tp_result_add_col(d->st, r, cols[i], i < 2 ? TP_COL_I64 : TP_COL_F64) != i)
            return TP_ENOMEM;
    tp_result_set_meta(d->st, r, "title", "GPU stream activity");
    int64_t w0, w1;
    window(d, &w0, &w1);
    const db_iv *iv = d->iv;
    int rc = TP_OK;
    for (size_t i = 0, s = 0; i < d->nacts && rc == TP_OK; s++) {
        int64_t active = 0;
        size_t j = i;
        while (j < d->nacts && iv[j].device == iv[i].device && iv[j].stream == iv[i].stream) {
            int64_t a = iv[j].s, b = iv[j].e; /* one union component */
            for (j++; j < d->nacts && iv[j].device == iv[i].device &&
                      iv[j].stream == iv[i].stream && iv[j].s <= b;
                 j++)
                if (iv[j].e > b)
                    b = iv[j].e;
            active += b - a;
        }
        rc = stream_row(d, r, &d->streams[s], w1 - w0, active);
        i = j;
    }
    return rc;
}
