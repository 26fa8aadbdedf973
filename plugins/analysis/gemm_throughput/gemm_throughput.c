/*
 * gemm_throughput: FLOPs, bytes and achieved throughput of matrix products
 * (issue 13, item 5; ANALYSES.md section 4).
 *
 * FLOPs and bytes come from the op's "Input Dims" and "Input type" args
 * (TraceLens' convention; table in docs/plugins/gemm_throughput.md).  A
 * call's device time is the union of the GPU work launched from its
 * subtree.  A product (the innermost product op: aten::addmm, aten::bmm)
 * holds no other product call, so it has only its own kernels; a wrapper
 * (aten::linear -> aten::addmm, aten::matmul -> aten::bmm; tp_gemm_roles)
 * aggregates its products' kernels and what it launched beside them (a
 * bias, a copy), and its FLOPs are theirs, never assigned to its own
 * kernels.  Per (op name, input dims, role): calls, flops and bytes per
 * call, busy_us, achieved_tflops, achieved_gbps, flop_per_byte, and with a
 * device preset the roofline time max(flops/peak, bytes/bandwidth) and
 * roofline_percent = roofline / busy.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

#include <tracepipe/tp_sdk_gemm.h>
#include <tracepipe/tp_sdk_presets.h>
#include "gemm_kernels.h"

typedef struct gt_config {
    const char *preset;
    int tf32;
} gt_config;

static const tp_option gt_options[] = {
    TP_OPTION_STRING("preset", gt_config, preset, NULL,
                     "device preset for the roofline, a name of docs/presets.md (v100_sxm2, "
                     "a100_sxm4_80gb, h100_sxm5_80gb, b200, mi300x ...; default: from the "
                     "trace's device name, the nearest of its family with a warning, else none)"),
    TP_OPTION_BOOL("tf32", gt_config, tf32, "false",
                   "fp32 products run on TF32 tensor cores (roofline peak)"),
    TP_OPTION_END};

/* <id>: one row per (op name, input dims).  flop and bytes have no unit in
 * their names, so none in the result either (the meaning gives it). */
#define GT_COLS(X, P)                                                                           \
    X(P, name, STR, NULL, "the matrix-product op (aten::mm, addmm, bmm, baddbmm, linear, "      \
                          "matmul)")                                                            \
    X(P, input_dims, STR, NULL, "its Input Dims as Python prints them ([[64, 128], [128, 256]])") \
    X(P, role, STR, NULL, "product: the innermost product op, its kernels carry its flop; "     \
                          "wrapper: holds a product op (aten::linear -> aten::addmm), its "     \
                          "figures aggregate its products' and are not to be added to them")    \
    X(P, count, I64, "count", "calls of the op with these dims")                                \
    X(P, flop, F64, NULL, "floating-point operations of one call (flop)")                       \
    X(P, bytes, F64, NULL, "bytes one call moves: elements read and written x bytes per element") \
    X(P, busy_us, F64, "us", "device time of all the calls: per call the union of the GPU work " \
                             "launched from its subtree (a wrapper's holds its products'), "    \
                             "summed")                                                          \
    X(P, flop_per_byte, F64, NULL, "arithmetic intensity: flop / bytes (flop/byte)")            \
    X(P, achieved_tflops, F64, "Tflop/s", "count x flop / busy time, in 10^12 flop/s (null "    \
                                          "without device time)")                               \
    X(P, achieved_gbps, F64, "GB/s", "count x bytes / busy time, in 10^9 bytes/s (null without " \
                                     "device time)")                                            \
    X(P, roofline_us, F64, "us", "one call's roofline: max(flop / peak, bytes / DRAM bandwidth) " \
                                 "of the preset (null without a preset)")                       \
    X(P, bound, STR, NULL, "the larger roofline term: compute or memory (null without a preset)") \
    X(P, roofline_percent, F64, "percent", "count x roofline_us / busy_us x 100, not clamped "  \
                                           "(null without device time or a preset)")
TP_COLUMNS(gt_main, GT_COLS);

static const tp_result_decl gt_results[] = {
    TP_RESULT("", "table", gt_main,
              "one row per (matrix-product op, input dims, role), by name, dims, role"),
    TP_RESULTS_END};

typedef tp_preset gt_preset;

/* The preset: the option's, else the trace's first device's (the SDK's
 * resolver: its part, else the nearest of its family with a warning); NULL
 * (roofline columns null) for a device of no preset. */
static const gt_preset *preset_of(tp_stage *st, const gt_config *cfg, const tp_trace *t)
{
    return tp_preset_resolve_trace(st, cfg->preset, t, 0);
}

static int gt_init(tp_stage *st, const void *config, void **state)
{
    const gt_config *cfg = config;
    (void)state;
    if (cfg->preset && tp_preset_resolve(st, cfg->preset, NULL, 1) == NULL)
        return TP_EINVAL;
    return TP_OK;
}

/* ------------------------------------------------------------- calls */

typedef struct gt_call {
    int32_t row;   /* the op's row; a replayed call's: its first activity */
    tp_str name;   /* the op's name (a replayed call's: its capturing op) */
    tp_str dims;   /* the "Input Dims" text, interned: the grouping key */
    double flops, bytes, bpe;
    int64_t busy;  /* union of the GPU work launched from its subtree */
    uint8_t role;  /* TP_GEMM_PRODUCT or TP_GEMM_WRAPPER */
} gt_call;

typedef struct gt {
    tp_stage *st;
    const gt_config *cfg;
    const tp_trace *t;
    const tp_cols *c;
    tp_hier_view v;
    uint8_t *role;      /* per row: tp_gemm_roles */
    int32_t *call_of;   /* per row: its call index, -1 (GEMM ops only) */
    gt_call *calls;
    size_t ncalls;
} gt;

/* The dims as one canonical text, "[[64, 128], [128, 256]]" (as Python
 * prints them), whatever the spacing of the trace: the grouping key. */
static size_t dims_text(const tp_gemm_shape *s, char *buf, size_t size)
{
    size_t n = 0;
#define PUT(...) (n += (size_t)snprintf(buf + n, n < size ? size - n : 0, __VA_ARGS__))
    PUT("[");
    for (int i = 0; i < s->n; i++) {
        PUT("%s[", i ? ", " : "");
        for (int k = 0; k < s->rank[i]; k++)
            PUT("%s%.0f", k ? ", " : "", s->dim[i][k]);
        PUT("]");
    }
    PUT("]");
#undef PUT
    return n < size ? n : size - 1;
}

/* dims_text interned: the grouping key, or TP_STR_ERROR. */
static tp_str dims_key(tp_stage *st, const tp_gemm_shape *s)
{
    char text[512];
    size_t tl = dims_text(s, text, sizeof text);
    return tp_intern(st, text, tl);
}

/* The GEMM calls of the trace with understood dims, and their roles. */
static int find_calls(gt *g)
{
    const tp_cols *c = g->c;
    const int64_t *captured = NULL; /* seen through their replays */
    int rc = tp_graph_captured_rows(g->t, &captured);
    if (rc != TP_OK)
        return tp_fail(g->st, rc, "out of memory reading column " TP_GRAPH_CAPTURED_COLUMN);
    rc = tp_gemm_roles(g->st, g->t, &g->v, g->role);
    for (size_t i = 0; rc == TP_OK && i < c->n; i++) {
        g->call_of[i] = -1;
        tp_gemm_call k;
        if (g->role[i] == TP_GEMM_NONE || (captured && captured[i]) ||
            !tp_gemm_call_read(g->st, g->t, i, &k))
            continue;
        tp_str key = dims_key(g->st, &k.shape);
        if (key == TP_STR_ERROR)
            return TP_ENOMEM;
        g->call_of[i] = (int32_t)g->ncalls;
        g->calls[g->ncalls++] =
            (gt_call){(int32_t)i, c->name[i], key, k.flops, k.elems * k.bpe, k.bpe, 0, g->role[i]};
    }
    return rc;
}

/* The (call, activity) pairs: each activity to every product call above
 * its launch (its product and the wrappers holding it); p NULL: counts. */
typedef struct gt_pair {
    int32_t call, act;
} gt_pair;

static size_t call_pairs(const gt *g, gt_pair *p)
{
    size_t n = 0;
    for (size_t a = 0; a < g->c->n; a++) {
        if (!tp_ev_is_activity(g->c, a) || g->v.launcher[a] < 0)
            continue;
        for (int32_t x = tp_gemm_call_above(&g->v, g->role, a); x >= 0;
             x = tp_gemm_call_at(&g->v, g->role, g->v.parent[x])) {
            if (p && g->call_of[x] >= 0)
                p[n] = (gt_pair){g->call_of[x], (int32_t)a};
            n += g->call_of[x] >= 0;
        }
    }
    return n;
}

/* Each call's busy time: the union of the activities launched from its
 * subtree. */
static int busy_times(gt *g)
{
    const tp_cols *c = g->c;
    size_t n = call_pairs(g, NULL);
    gt_pair *p = tp_malloc((n ? n : 1) * sizeof *p);
    if (p == NULL)
        return TP_ENOMEM;
    call_pairs(g, p);
    /* group by call with a counting pass (calls are dense indexes) */
    size_t *start = tp_calloc(g->ncalls + 1, sizeof *start);
    int32_t *acts = tp_malloc((n ? n : 1) * sizeof *acts);
    tp_interval *iv = tp_malloc((n ? n : 1) * sizeof *iv);
    int rc = start && acts && iv ? TP_OK : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < n; i++)
        start[p[i].call + 1]++;
    for (size_t k = 1; rc == TP_OK && k <= g->ncalls; k++)
        start[k] += start[k - 1];
    for (size_t i = 0; rc == TP_OK && i < n; i++)
        acts[start[p[i].call]++] = p[i].act;
    for (size_t k = 0, from = 0; rc == TP_OK && k < g->ncalls; k++) { /* start[k] is now its end */
        size_t m = 0;
        for (size_t i = from; i < start[k]; i++)
            iv[m++] = (tp_interval){c->ts[acts[i]], c->ts[acts[i]] + c->dur[acts[i]]};
        g->calls[k].busy = tp_intervals_length(iv, tp_intervals_union(iv, m));
        from = start[k];
    }
    tp_free(p);
    tp_free(start);
    tp_free(acts);
    tp_free(iv);
    return rc;
}

/* ------------------------------------------------- graph replays */

/* One call per (replay, capture-time call of a product op): the kernels
 * a graph launch replayed for it (rows[0, n), tp_graph_op_calls); its busy
 * time the union of theirs (iv: room for n intervals, the caller's one
 * buffer for every call). */
static int add_replay_call(gt *g, const tp_graphs *gr, const uint32_t *rows, size_t n,
                           tp_interval *iv)
{
    const tp_cols *c = g->c;
    size_t alen = 0;
    int64_t call = 0;
    const char *args = tp_graph_op_args(g->st, gr, rows[0], &alen, &call);
    tp_str name = tp_graph_op_of(gr, rows[0], 1);
    tp_gemm_call k;
    if (!tp_gemm_call_parse(tp_str_text(g->st, name), args, alen, &k))
        return TP_OK;
    tp_str key = dims_key(g->st, &k.shape);
    if (key == TP_STR_ERROR)
        return TP_ENOMEM;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (c->dur[rows[i]] >= 0)
            iv[m++] = (tp_interval){c->ts[rows[i]], c->ts[rows[i]] + c->dur[rows[i]]};
    int64_t busy = tp_intervals_length(iv, tp_intervals_union(iv, m));
    g->calls[g->ncalls++] = (gt_call){(int32_t)rows[0], name, key, k.flops, k.elems * k.bpe,
                                      k.bpe, busy, TP_GEMM_PRODUCT};
    return TP_OK;
}

/* The product calls of graph replays whose capturing ops a reader gave
 * (after busy_times: these have no call_of row). */
static int replay_calls(gt *g)
{
    tp_vocab voc;
    tp_graphs gr;
    if (tp_vocab_get(g->st, &voc) != TP_OK)
        return TP_ENOMEM;
    int rc = tp_graphs_find(g->st, g->t, &voc, g->v.launcher, &gr);
    tp_vocab_free(&voc);
    if (rc != TP_OK)
        return rc;
    uint32_t *rows = NULL;
    size_t *start = NULL, n = 0;
    rc = tp_graph_op_calls(g->st, &gr, g->v.launcher, &rows, &start, &n);
    size_t most = 1;
    for (size_t i = 0; rc == TP_OK && i < n; i++)
        most = start[i + 1] - start[i] > most ? start[i + 1] - start[i] : most;
    tp_interval *iv = rc == TP_OK ? tp_malloc(most * sizeof *iv) : NULL;
    if (rc == TP_OK && iv == NULL)
        rc = TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < n; i++)
        rc = add_replay_call(g, &gr, rows + start[i], start[i + 1] - start[i], iv);
    tp_free(iv);
    tp_free(rows);
    tp_free(start);
    tp_graphs_free(&gr);
    return rc;
}

/* ------------------------------------------------ per kernel (gemm_kernels) */

/* The hierarchy's view, the roles and the calls of g's trace: TP_OK, or
 * TP_ENOTFOUND (said) or TP_ENOMEM; gt_end frees either way. */
static int gt_begin(gt *g)
{
    if (tp_hier_view_require(g->st, g->t, &g->v) != TP_OK)
        return TP_ENOTFOUND;
    size_t n = g->c->n ? g->c->n : 1;
    g->call_of = tp_malloc(n * sizeof *g->call_of);
    g->calls = tp_malloc(n * sizeof *g->calls);
    g->role = tp_malloc(n);
    return g->call_of && g->calls && g->role ? find_calls(g) : TP_ENOMEM;
}

static void gt_end(gt *g)
{
    tp_free(g->call_of);
    tp_free(g->calls);
    tp_free(g->role);
}

/* Per activity its product's call index (tp_gemm_owner), -1; the work of
 * each call summed in dur_of_call, the activities wrappers launched beside
 * their products counted in *beside. */
static void owners(const gt *g, int32_t *call_of_act, int64_t *dur_of_call, size_t *beside)
{
    const tp_cols *c = g->c;
    for (size_t a = 0; a < c->n; a++) {
        call_of_act[a] = -1;
        if (!tp_ev_is_activity(c, a) || g->v.launcher[a] < 0 || c->dur[a] < 0)
            continue;
        int32_t x = tp_gemm_owner(&g->v, g->role, a);
        if (x >= 0 && g->call_of[x] >= 0) {
            call_of_act[a] = g->call_of[x];
            dur_of_call[g->call_of[x]] += c->dur[a];
        } else if (tp_gemm_call_above(&g->v, g->role, a) >= 0) {
            (*beside)++;
        }
    }
}

int gt_kernel_shares(tp_stage *st, const tp_trace *t, gt_kernel_sum **out, size_t *nout)
{
    gt g = {.st = st, .t = t, .c = tp_trace_cols(t)};
    const tp_cols *c = g.c;
    size_t n = c->n ? c->n : 1, nstr = tp_str_count(st), beside = 0;
    *out = NULL;
    *nout = 0;
    int rc = gt_begin(&g);
    int32_t *call_of_act = tp_malloc(n * sizeof *call_of_act);
    int64_t *dur_of_call = tp_calloc(g.ncalls ? g.ncalls : 1, sizeof *dur_of_call);
    gt_kernel_sum *by_name = tp_calloc(nstr ? nstr : 1, sizeof *by_name);
    if (rc == TP_OK && !(call_of_act && dur_of_call && by_name))
        rc = TP_ENOMEM;
    if (rc == TP_OK)
        owners(&g, call_of_act, dur_of_call, &beside);
    if (rc == TP_OK && beside > 0)
        tp_log(st, TP_LOG_INFO, "%zu activit%s launched by wrapper ops beside their products "
               "(bias, copy) left out: no FLOPs", beside, beside == 1 ? "y" : "ies");
    for (size_t a = 0; rc == TP_OK && a < c->n; a++) {
        int32_t k = call_of_act[a];
        if (k < 0 || c->name[a] >= nstr)
            continue;
        double share = dur_of_call[k] > 0 ? (double)c->dur[a] / (double)dur_of_call[k] : 0;
        gt_kernel_sum *s = &by_name[c->name[a]];
        s->name = c->name[a];
        s->count++;
        s->sum_ns += c->dur[a];
        s->flop += g.calls[k].flops * share;
        s->bytes += g.calls[k].bytes * share;
    }
    size_t m = 0;
    for (size_t i = 0; rc == TP_OK && i < nstr; i++)
        if (by_name[i].count > 0)
            by_name[m++] = by_name[i];
    gt_end(&g);
    tp_free(call_of_act);
    tp_free(dur_of_call);
    if (rc != TP_OK) {
        tp_free(by_name);
        return rc;
    }
    *out = by_name;
    *nout = m;
    return TP_OK;
}

/* ----------------------------------------------------------- results */

static int by_op_and_dims(const void *a, const void *b, void *ctx)
{
    gt *g = ctx;
    const gt_call *x = a, *y = b;
    tp_str nx = x->name, ny = y->name;
    int r = strcmp(tp_str_text(g->st, nx), tp_str_text(g->st, ny));
    if (r)
        return r;
    r = strcmp(tp_str_text(g->st, x->dims), tp_str_text(g->st, y->dims));
    if (r)
        return r;
    if (x->role != y->role) /* products first */
        return x->role < y->role ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

/* The peak for the call's element type: half precision's for 2-byte
 * types, TF32's for fp32 when asked, else FP32's. */
static double peak_of(const gt *g, const gt_preset *p, double bpe)
{
    if (bpe == 2 && p->fp16 > 0)
        return p->fp16;
    return bpe == 4 && g->cfg->tf32 && p->tf32 > 0 ? p->tf32 : p->fp32;
}

/* The roofline of one call at peak (GFLOP/s) and the preset's bandwidth;
 * *compute_bound says which term is larger. */
static double roofline_of(const gt_call *k, double peak, const gt_preset *p, int *compute_bound)
{
    double compute = k->flops / peak / 1000, memory = k->bytes / p->dram_gbps / 1000;
    *compute_bound = compute >= memory;
    return *compute_bound ? compute : memory;
}

/* roofline_us, bound and roofline_percent of a group of n calls.  Never
 * clamped (CONVENTIONS): fp32 calls faster than the FP32 peak ran on TF32
 * tensor cores, so TF32's peak is the right one; a row still above 100 %
 * has a null roofline_percent, the reason logged. */
static int roofline_cells(gt *g, tp_result *r, size_t row, const gt_call *k, double n,
                          double busy_us, const gt_preset *p)
{
    int compute;
    double peak = peak_of(g, p, k->bpe), roof = roofline_of(k, peak, p, &compute);
    const char *what = tp_str_text(g->st, k->name), *dims = tp_str_text(g->st, k->dims);
    if (busy_us > 0 && n * roof > busy_us && k->bpe == 4 && peak == p->fp32 && p->tf32 > 0) {
        tp_log(g->st, TP_LOG_INFO, "%s %s: fp32 faster than the FP32 peak, so on TF32 tensor "
               "cores: roofline at TF32's peak", what, dims);
        roof = roofline_of(k, p->tf32, p, &compute);
    }
    int rc = tp_result_set_f64(g->st, r, row, gt_main_roofline_us, roof);
    rc = rc ? rc : tp_result_set_str(g->st, r, row, gt_main_bound, compute ? "compute" : "memory");
    if (rc != TP_OK || busy_us <= 0)
        return rc;
    if (n * roof > busy_us) {
        tp_log(g->st, TP_LOG_WARN, "%s %s: faster than the preset's roofline (%.1f %%): "
               "roofline_percent left null; is the preset this device's?", what, dims,
               n * roof / busy_us * 100);
        return TP_OK;
    }
    return tp_result_set_f64(g->st, r, row, gt_main_roofline_percent, n * roof / busy_us * 100);
}

static int group_row(gt *g, tp_result *r, size_t from, size_t to, const gt_preset *p)
{
    const gt_call *k = &g->calls[from];
    int64_t busy = 0;
    for (size_t i = from; i < to; i++)
        busy += g->calls[i].busy;
    double n = (double)(to - from), flops = k->flops, bytes = k->bytes;
    double busy_us = (double)busy / 1000.0;
    size_t row;
    int rc = tp_result_add_row(g->st, r, &row);
    rc = rc ? rc : tp_result_set_str(g->st, r, row, gt_main_name,
                                     tp_str_text(g->st, k->name));
    rc = rc ? rc : tp_result_set_str(g->st, r, row, gt_main_input_dims,
                                     tp_str_text(g->st, k->dims));
    rc = rc ? rc : tp_result_set_str(g->st, r, row, gt_main_role,
                                     k->role == TP_GEMM_WRAPPER ? "wrapper" : "product");
    rc = rc ? rc : tp_result_set_i64(g->st, r, row, gt_main_count, (int64_t)(to - from));
    rc = rc ? rc : tp_result_set_f64(g->st, r, row, gt_main_flop, flops);
    rc = rc ? rc : tp_result_set_f64(g->st, r, row, gt_main_bytes, bytes);
    rc = rc ? rc : tp_result_set_f64(g->st, r, row, gt_main_busy_us, busy_us);
    rc = rc ? rc : tp_result_set_f64(g->st, r, row, gt_main_flop_per_byte, flops / bytes);
    if (rc == TP_OK && busy > 0) {
        rc = tp_result_set_f64(g->st, r, row, gt_main_achieved_tflops,
                               n * flops / 1e12 / (busy_us / 1e6));
        rc = rc ? rc : tp_result_set_f64(g->st, r, row, gt_main_achieved_gbps,
                                         n * bytes / 1e9 / (busy_us / 1e6));
    }
    if (rc == TP_OK && p)
        rc = roofline_cells(g, r, row, k, n, busy_us, p);
    return rc;
}

static int write_result(gt *g, const gt_preset *p)
{
    tp_result *r = tp_result_declared(g->st, NULL);
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(g->st, r, "title", "Matrix products: FLOPs, bytes, achieved throughput");
    int rc = tp_sort(g->calls, g->ncalls, sizeof *g->calls, by_op_and_dims, g);
    for (size_t i = 0; i < g->ncalls && rc == TP_OK;) {
        size_t j = i + 1;
        while (j < g->ncalls && g->calls[j].name == g->calls[i].name &&
               g->calls[j].dims == g->calls[i].dims && g->calls[j].role == g->calls[i].role)
            j++;
        rc = group_row(g, r, i, j, p);
        i = j;
    }
    return rc;
}

static int gt_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const gt_config *cfg = config;
    const tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    gt g = {.st = st, .cfg = cfg, .t = t, .c = tp_trace_cols(t)};
    int rc = gt_begin(&g);
    if (rc == TP_OK)
        rc = busy_times(&g); /* before the calls are sorted: call_of indexes them */
    if (rc == TP_OK)
        rc = replay_calls(&g);
    if (rc == TP_OK)
        rc = write_result(&g, preset_of(st, cfg, t));
    gt_end(&g);
    if (rc == TP_ENOTFOUND)
        return rc; /* (said) */
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc gt_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "gemm_throughput",
                  "matrix products: FLOPs and bytes from Input Dims, achieved TFLOP/s and GB/s, "
                  "roofline",
                  gt_options, gt_config, "hierarchy", gt_results, NULL, 0, gt_init, gt_run, NULL),
    GT_KERNELS_STAGE,
    TP_STAGE_END};

TP_PLUGIN_DEFINE("gemm_throughput", "0.1.0", gt_stages);
