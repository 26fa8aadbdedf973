/*
 * analysis `counters`: <id>.kernels, the CUPTI range profiler's counters per
 * kernel with the op that launched it (docs/plugins/counters.md, HTA's
 * cupti_counter_analysis).  Two sources, as tp_sdk_cupti.h describes them:
 * range events, paired in time order with the kernel launch calls (the
 * SDK's vocabulary) in time order when their counts agree, and kernels
 * whose own args carry a counter (their launch call by the hierarchy).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_sdk_cupti.h>
#include <tracepipe/tp_sdk_ops.h>

#include "counters.h"

static const tp_col_decl cn_k_cols[] = {CN_KERNEL_COLS(TP_COL_DECL_, cn_k)};

const char *const *cn_counters_of(const cn_config *cfg, size_t *n)
{
    if (cfg->cupti_counters.n > 0) {
        *n = cfg->cupti_counters.n;
        return cfg->cupti_counters.items;
    }
    return tp_cupti_flop_counters(n);
}

/* Is names[i] a column of its own: not a fixed column's name nor an
 * earlier counter's, and within CN_MAX_COUNTERS columns (*ncols so far)? */
static int own_column(const char *const *names, size_t i, size_t ncols)
{
    if (ncols >= CN_KERNEL_FIXED + CN_MAX_COUNTERS || names[i][0] == '\0')
        return 0;
    for (size_t f = 0; f < CN_KERNEL_FIXED; f++)
        if (strcmp(cn_k_cols[f].name, names[i]) == 0)
            return 0;
    for (size_t j = 0; j < i; j++)
        if (strcmp(names[j], names[i]) == 0)
            return 0;
    return 1;
}

/* The column of each counter into col[i] (-1: none), their count returned. */
static size_t counter_columns(const char *const *names, size_t n, int *col)
{
    size_t ncols = CN_KERNEL_FIXED;
    for (size_t i = 0; i < n; i++)
        col[i] = own_column(names, i, ncols) ? (int)ncols++ : -1;
    return ncols;
}

void cn_kernel_cols(cn_config *cfg, size_t *ncols)
{
    size_t n;
    const char *const *names = cn_counters_of(cfg, &n);
    memcpy(cfg->kernel_cols, cn_k_cols, sizeof cn_k_cols);
    *ncols = CN_KERNEL_FIXED;
    for (size_t i = 0; i < n; i++)
        if (own_column(names, i, *ncols))
            cfg->kernel_cols[(*ncols)++] =
                (tp_col_decl){names[i], TP_COL_F64, NULL,
                              "a CUPTI counter's value for the kernel (null: its event lacks it)"};
}

/* One kernel with counters: its event and its launch call (-1: none). */
typedef struct ck_item {
    int32_t row, call;
} ck_item;

static int by_time(const void *a, const void *b, void *ctx)
{
    const tp_cols *c = ctx;
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    if (c->ts[x] != c->ts[y])
        return c->ts[x] < c->ts[y] ? -1 : 1;
    return (x > y) - (x < y);
}

typedef struct ck {
    cn *k;
    const tp_hier_view *h;
    const char *const *names;
    size_t n_names;
    int *col;
    ck_item *v;
    size_t n;
} ck;

/* The value of counter `name` in args a (len bytes), NaN when absent. */
static double counter_value(const char *a, size_t len, const char *name)
{
    size_t vlen;
    const char *v = a ? tp_json_get(a, len, name, &vlen) : NULL;
    double d;
    return v && tp_json_f64(v, vlen, &d) == TP_OK ? d : NAN;
}

static int has_counter(const ck *x, size_t row)
{
    size_t len = 0;
    const char *a = tp_trace_args(x->k->t, row, &len);
    for (size_t i = 0; a && i < x->n_names; i++)
        if (x->col[i] >= 0 && !isnan(counter_value(a, len, x->names[i])))
            return 1;
    return 0;
}

/* Rows of the range events (*ranges) and of the kernel launch calls
 * (*calls), each in time order. */
static int ranges_and_calls(ck *x, const tp_vocab *vocab, int32_t *ranges, size_t *nr,
                            int32_t *calls, size_t *nc)
{
    const tp_cols *c = x->k->c;
    const char *cat = tp_cupti_range_cat();
    tp_str rcat = 0;
    size_t nnames = tp_str_count(x->k->st);
    uint8_t *api = tp_calloc(nnames ? nnames : 1, 1); /* 0 not asked, 1 no, 2 a kernel launch */
    if (api == NULL)
        return TP_ENOMEM;
    if (tp_str_lookup(x->k->st, cat, strlen(cat), &rcat) != 1)
        rcat = 0;
    for (size_t i = 0; rcat != 0 && i < c->n; i++) {
        if (c->cat[i] == rcat && c->dur[i] >= 0) {
            ranges[(*nr)++] = (int32_t)i;
        } else if (c->kind[i] == TP_KIND_RUNTIME && c->name[i] < nnames) {
            if (api[c->name[i]] == 0)
                api[c->name[i]] = tp_vocab_launch_api(vocab, tp_str_text(x->k->st, c->name[i])) ==
                                          TP_LAUNCHES_KERNEL ? 2 : 1;
            if (api[c->name[i]] == 2)
                calls[(*nc)++] = (int32_t)i;
        }
    }
    tp_free(api);
    int rc = tp_sort(ranges, *nr, sizeof *ranges, by_time, (void *)(uintptr_t)c);
    return rc ? rc : tp_sort(calls, *nc, sizeof *calls, by_time, (void *)(uintptr_t)c);
}

/* The range events, each with its launch call when the counts agree. */
static int add_ranges(ck *x, const tp_vocab *vocab)
{
    size_t n = x->k->c->n ? x->k->c->n : 1, nr = 0, nc = 0;
    int32_t *ranges = malloc(n * sizeof *ranges), *calls = malloc(n * sizeof *calls);
    int rc = ranges && calls ? ranges_and_calls(x, vocab, ranges, &nr, calls, &nc) : TP_ENOMEM;
    if (rc == TP_OK && nr > 0 && nr != nc)
        tp_log(x->k->st, TP_LOG_WARN,
               "%zu CUPTI range event(s) but %zu kernel launch call(s): ranges are paired with "
               "launches in time order only when the counts agree, so their ops are left null",
               nr, nc);
    for (size_t i = 0; rc == TP_OK && i < nr; i++)
        x->v[x->n++] = (ck_item){ranges[i], nr == nc ? calls[i] : -1};
    free(ranges);
    free(calls);
    return rc;
}

/* Kernels whose own args carry a counter asked for. */
static void add_kernels(ck *x)
{
    const tp_cols *c = x->k->c;
    for (size_t i = 0; i < c->n; i++)
        if (c->kind[i] == TP_KIND_KERNEL && has_counter(x, i))
            x->v[x->n++] = (ck_item){(int32_t)i, x->h->launcher[i]};
}

static int by_item_time(const void *a, const void *b, void *ctx)
{
    return by_time(&((const ck_item *)a)->row, &((const ck_item *)b)->row, ctx);
}

static int set_name(cn *k, tp_result *r, size_t row, int col, int32_t ev, int rc)
{
    return rc || ev < 0 ? rc : tp_result_set_str(k->st, r, row, col, tp_str_text(k->st, k->c->name[ev]));
}

/* One row: the event, its ops (inner: the innermost cpu op at or above the
 * call; top: tp_outermost_op's), its counters. */
static int kernel_row(ck *x, tp_result *r, const ck_item *it, int32_t top)
{
    cn *k = x->k;
    const tp_cols *c = k->c;
    int32_t inner = tp_hier_op_above(c, x->h, it->call);
    size_t row, len = 0, e = (size_t)it->row;
    int is_kernel = c->kind[e] == TP_KIND_KERNEL;
    int rc = tp_result_add_row(k->st, r, &row);
    rc = rc ? rc : tp_result_set_str(k->st, r, row, cn_k_source,
                                     is_kernel ? "kernel" : tp_cupti_range_cat());
    rc = rc ? rc : tp_result_set_f64(k->st, r, row, cn_k_start_us,
                                     (double)(c->ts[e] - k->t0) / 1000.0);
    rc = rc ? rc : tp_result_set_f64(k->st, r, row, cn_k_dur_us, (double)c->dur[e] / 1000.0);
    if (rc == TP_OK && is_kernel && tp_ev_stream(c, e) >= 0)
        rc = tp_result_set_i64(k->st, r, row, cn_k_stream, tp_ev_stream(c, e));
    rc = set_name(k, r, row, cn_k_kernel, it->row, rc);
    rc = set_name(k, r, row, cn_k_op, top, rc);
    rc = set_name(k, r, row, cn_k_inner_op, inner, rc);
    const char *a = tp_trace_args(k->t, e, &len);
    for (size_t i = 0; rc == TP_OK && i < x->n_names; i++) {
        double v = x->col[i] >= 0 ? counter_value(a, len, x->names[i]) : NAN;
        if (!isnan(v))
            rc = tp_result_set_f64(k->st, r, row, x->col[i], v);
    }
    return rc;
}

static int write_rows(ck *x, const tp_vocab *vocab, tp_result *r)
{
    const tp_cols *c = x->k->c;
    uint8_t *memo = NULL;
    size_t nmemo = 0, n = c->n ? c->n : 1;
    int32_t *top = tp_malloc(n * sizeof *top), *chain = tp_malloc(n * sizeof *chain);
    int rc = top && chain ? tp_op_names_memo(x->k->st, vocab, NULL, 0, &memo, &nmemo) : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < c->n; i++)
        top[i] = TP_OP_UNKNOWN;
    for (size_t i = 0; rc == TP_OK && i < x->n; i++) {
        int32_t call = x->v[i].call;
        int32_t t = call >= 0 ? tp_outermost_op(c, x->h->parent, memo, nmemo, top, chain, call) : -1;
        rc = kernel_row(x, r, &x->v[i], t);
    }
    tp_free(memo);
    tp_free(top);
    tp_free(chain);
    return rc;
}

int cn_write_kernels(cn *k, const tp_hier_view *h, const tp_vocab *vocab)
{
    tp_result *r = tp_result_declared(k->st, "kernels");
    ck x = {k, h, NULL, 0, NULL, NULL, 0};
    x.names = cn_counters_of(k->cfg, &x.n_names);
    x.col = malloc((x.n_names ? x.n_names : 1) * sizeof *x.col);
    x.v = malloc((k->c->n ? k->c->n : 1) * sizeof *x.v);
    int rc = r && x.col && x.v ? TP_OK : TP_ENOMEM;
    if (rc == TP_OK) {
        tp_result_set_meta(k->st, r, "title", "CUPTI counters per kernel");
        counter_columns(x.names, x.n_names, x.col);
        rc = add_ranges(&x, vocab);
    }
    if (rc == TP_OK) {
        add_kernels(&x);
        rc = tp_sort(x.v, x.n, sizeof *x.v, by_item_time, (void *)(uintptr_t)k->c);
    }
    rc = rc ? rc : write_rows(&x, vocab, r);
    free(x.col);
    free(x.v);
    return rc;
}
