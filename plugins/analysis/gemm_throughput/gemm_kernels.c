/*
 * Analysis gemm_kernels (in the gemm_throughput plugin), two sources.
 *
 * Without kernel_args (PyTorch traces): per kernel name, the FLOPs and
 * bytes of the GEMM ops (gemm_throughput's counts from Input Dims) that
 * launched its kernels, each call's shared among its kernels in proportion
 * to their durations, so the per-kernel figures add up to the ops'; count,
 * flop and bytes (totals), sum_us, achieved_tflops, achieved_gbps and
 * flop_per_byte.
 *
 * With kernel_args: matrix products whose sizes are kernel
 * arguments (seed 000: CLBlast's Xgemm* kernels take M, N, K as their first
 * arguments; the dvdt_prof reader gives each OpenCL kernel the arguments set
 * before its enqueue as args.args = {"0": "e8030000", ...}, raw bytes in
 * memory order).  Per (kernel name, M, N, K): count, flop = 2 M N K per
 * call, sum_us of the kernels' durations, achieved_tflops = count x flop /
 * sum (the seed's GFLOPS / 1000).  Kernels without the three arguments are
 * left out and counted in a log line.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

#include "gemm_kernels.h"

/* <id>, two column sets by source.  kernel_args given (OpenCL): one row per
 * (kernel name, M, N, K); without (PyTorch): one row per kernel name, the
 * ops' figures shared among their kernels.  flop and bytes have no unit in
 * their names, so none in the result either (the meaning gives it). */
#define GK_ARGS_COLS(X, P)                                                                      \
    X(P, name, STR, NULL, "the kernel's name")                                                  \
    X(P, m, I64, NULL, "M: the kernel argument at the first kernel_args index (bytes read "   \
                       "little-endian)")                                                        \
    X(P, n, I64, NULL, "N: the argument at the second index")                                   \
    X(P, k, I64, NULL, "K: the argument at the third index")                                    \
    X(P, count, I64, "count", "kernels of that name and sizes")                                 \
    X(P, flop, F64, NULL, "floating-point operations of one kernel: 2 M N K (flop)")            \
    X(P, sum_us, F64, "us", "their durations summed (device start to end)")                     \
    X(P, achieved_tflops, F64, "Tflop/s", "count x flop / sum_us, in 10^12 flop/s (null when "  \
                                          "sum_us is 0)")
#define GK_SHARES_COLS(X, P)                                                                    \
    X(P, name, STR, NULL, "the kernel's name")                                                  \
    X(P, count, I64, "count", "kernels of that name launched by GEMM ops")                      \
    X(P, flop, F64, NULL, "their shares of the launching calls' floating-point operations, "    \
                          "total (flop)")                                                       \
    X(P, bytes, F64, NULL, "their shares of the calls' bytes moved, total (bytes)")             \
    X(P, sum_us, F64, "us", "their durations summed")                                           \
    X(P, achieved_tflops, F64, "Tflop/s", "flop / sum_us, in 10^12 flop/s (null when sum_us "   \
                                          "is 0)")                                              \
    X(P, achieved_gbps, F64, "GB/s", "bytes / sum_us, in 10^9 bytes/s (null when sum_us is 0)") \
    X(P, flop_per_byte, F64, NULL, "arithmetic intensity: flop / bytes (null when bytes is 0)")
TP_COLUMNS(gk_args, GK_ARGS_COLS);
TP_COLUMNS(gk_shares, GK_SHARES_COLS);

static const tp_result_decl gk_results_args[] = {
    TP_RESULT("", "table", gk_args,
              "with kernel_args: one row per (kernel name, M, N, K), by sum_us descending"),
    TP_RESULTS_END};
TP_HIDDEN const tp_result_decl gk_results[] = {
    TP_RESULT("", "table", gk_shares,
              "without kernel_args: one row per kernel name launched by GEMM ops, by sum_us "
              "descending"),
    TP_RESULTS_END};

const tp_result_decl *gk_results_for(const void *config)
{
    const gk_config *cfg = config;
    return cfg->kernel_args.n == 3 ? gk_results_args : gk_results;
}

typedef struct gk_row {
    tp_str name;
    int64_t m, n, k;
    int64_t count, sum_ns;
} gk_row;

/* Little-endian bytes as hex text ("e8030000" -> 1000); -1 if malformed. */
static int64_t le_hex(const char *v, size_t len)
{
    if (len >= 2 && v[0] == '"' && v[len - 1] == '"') {
        v++;
        len -= 2;
    }
    if (len == 0 || len % 2 != 0 || len > 16)
        return -1;
    uint64_t out = 0;
    for (size_t i = 0; i < len; i += 2) {
        unsigned byte;
        char two[3] = {v[i], v[i + 1], 0};
        if (!isxdigit((unsigned char)two[0]) || !isxdigit((unsigned char)two[1]) ||
            sscanf(two, "%2x", &byte) != 1)
            return -1;
        out |= (uint64_t)byte << (4 * i);
    }
    return out > INT64_MAX ? -1 : (int64_t)out;
}

/* M, N, K of a kernel row from its sticky arguments; 0 if absent. */
static int sizes_of(const tp_trace *t, size_t row, const tp_intlist *idx, int64_t mnk[3])
{
    size_t len = 0, alen = 0, vlen = 0;
    const char *args = tp_trace_args(t, row, &len);
    const char *kargs = args ? tp_json_get(args, len, "args", &alen) : NULL;
    for (int i = 0; i < 3; i++) {
        char key[24];
        snprintf(key, sizeof key, "%lld", (long long)idx->items[i]);
        const char *v = kargs ? tp_json_get(kargs, alen, key, &vlen) : NULL;
        if (v == NULL || (mnk[i] = le_hex(v, vlen)) <= 0)
            return 0;
    }
    return 1;
}

static int add(gk_row **rows, size_t *n, tp_str name, const int64_t mnk[3], int64_t dur)
{
    for (size_t i = 0; i < *n; i++) {
        gk_row *r = &(*rows)[i];
        if (r->name == name && r->m == mnk[0] && r->n == mnk[1] && r->k == mnk[2]) {
            r->count++;
            r->sum_ns += dur;
            return TP_OK;
        }
    }
    gk_row *grown = tp_realloc(*rows, (*n + 1) * sizeof **rows);
    if (grown == NULL)
        return TP_ENOMEM;
    *rows = grown;
    grown[(*n)++] = (gk_row){name, mnk[0], mnk[1], mnk[2], 1, dur};
    return TP_OK;
}

static int by_sum_desc(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const gk_row *x = a, *y = b;
    return x->sum_ns != y->sum_ns ? (x->sum_ns < y->sum_ns ? 1 : -1)
                                  : (x->name != y->name ? (x->name < y->name ? -1 : 1) : 0);
}

static int write_rows(tp_stage *st, gk_row *rows, size_t n)
{
    tp_result *r = tp_result_declared(st, NULL);
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(st, r, "title", "Matrix-product kernels with sizes from their arguments");
    int rc = tp_sort(rows, n, sizeof *rows, by_sum_desc, NULL);
    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        double flop = 2.0 * (double)rows[i].m * (double)rows[i].n * (double)rows[i].k;
        double sum_us = (double)rows[i].sum_ns / 1000.0;
        size_t row;
        if (tp_result_add_row(st, r, &row) != TP_OK)
            return TP_ENOMEM;
        rc = tp_result_set_str(st, r, row, gk_args_name, tp_str_text(st, rows[i].name));
        rc = rc ? rc : tp_result_set_i64(st, r, row, gk_args_m, rows[i].m);
        rc = rc ? rc : tp_result_set_i64(st, r, row, gk_args_n, rows[i].n);
        rc = rc ? rc : tp_result_set_i64(st, r, row, gk_args_k, rows[i].k);
        rc = rc ? rc : tp_result_set_i64(st, r, row, gk_args_count, rows[i].count);
        rc = rc ? rc : tp_result_set_f64(st, r, row, gk_args_flop, flop);
        rc = rc ? rc : tp_result_set_f64(st, r, row, gk_args_sum_us, sum_us);
        if (rc == TP_OK && rows[i].sum_ns > 0) /* flop per ns = GFLOP/s; / 1000: TFLOP/s */
            rc = tp_result_set_f64(st, r, row, gk_args_achieved_tflops,
                                   (double)rows[i].count * flop / (double)rows[i].sum_ns / 1000.0);
    }
    return rc;
}

static int kernels_result(tp_stage *st, const tp_trace *t, const tp_intlist *args,
                          const char *match)
{
    const tp_cols *c = tp_trace_cols(t);
    gk_row *rows = NULL;
    size_t n = 0, without = 0;
    int rc = TP_OK;
    for (size_t i = 0; args->n == 3 && i < c->n && rc == TP_OK; i++) {
        if (c->kind[i] != TP_KIND_KERNEL || c->dur[i] < 0 ||
            !tp_contains_nocase(tp_str_text(st, c->name[i]), match))
            continue;
        int64_t mnk[3];
        if (sizes_of(t, i, args, mnk))
            rc = add(&rows, &n, c->name[i], mnk, c->dur[i]);
        else
            without++;
    }
    if (without > 0)
        tp_log(st, TP_LOG_INFO, "%zu '%s' kernel(s) without arguments %lld, %lld, %lld left out",
               without, match, (long long)args->items[0], (long long)args->items[1],
               (long long)args->items[2]);
    if (rc == TP_OK)
        rc = write_rows(st, rows, n);
    tp_free(rows);
    return rc;
}

static int by_sum_then_name(const void *a, const void *b, void *ctx)
{
    tp_stage *st = ctx;
    const gt_kernel_sum *x = a, *y = b;
    if (x->sum_ns != y->sum_ns)
        return x->sum_ns < y->sum_ns ? 1 : -1;
    return strcmp(tp_str_text(st, x->name), tp_str_text(st, y->name));
}

/* PyTorch traces: per kernel, shares of its GEMM ops' FLOPs and bytes. */
static int shares_result(tp_stage *st, const tp_trace *t)
{
    gt_kernel_sum *k = NULL;
    size_t n = 0;
    int rc = gt_kernel_shares(st, t, &k, &n);
    if (rc != TP_OK)
        return rc;
    tp_result *r = tp_result_declared(st, NULL);
    if (r == NULL) {
        tp_free(k);
        return TP_ENOMEM;
    }
    tp_result_set_meta(st, r, "title", "Matrix-product kernels: their GEMM ops' FLOPs and bytes");
    rc = tp_sort(k, n, sizeof *k, by_sum_then_name, st);
    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        size_t row;
        double ns = (double)k[i].sum_ns;
        rc = tp_result_add_row(st, r, &row);
        rc = rc ? rc : tp_result_set_str(st, r, row, gk_shares_name, tp_str_text(st, k[i].name));
        rc = rc ? rc : tp_result_set_i64(st, r, row, gk_shares_count, k[i].count);
        rc = rc ? rc : tp_result_set_f64(st, r, row, gk_shares_flop, k[i].flop);
        rc = rc ? rc : tp_result_set_f64(st, r, row, gk_shares_bytes, k[i].bytes);
        rc = rc ? rc : tp_result_set_f64(st, r, row, gk_shares_sum_us, ns / 1000.0);
        if (rc == TP_OK && ns > 0) { /* per ns: GFLOP/s and GB/s */
            rc = tp_result_set_f64(st, r, row, gk_shares_achieved_tflops, k[i].flop / ns / 1000.0);
            rc = rc ? rc : tp_result_set_f64(st, r, row, gk_shares_achieved_gbps, k[i].bytes / ns);
        }
        if (rc == TP_OK && k[i].bytes > 0)
            rc = tp_result_set_f64(st, r, row, gk_shares_flop_per_byte, k[i].flop / k[i].bytes);
    }
    tp_free(k);
    return rc;
}

TP_HIDDEN const tp_option gk_options[] = {
    TP_OPTION_INT_LIST("kernel_args", gk_config, kernel_args, 0, 255,
                       "argument indexes holding M, N, K (CLBlast's Xgemm*: [0, 1, 2]); "
                       "without: kernels of PyTorch GEMM ops"),
    TP_OPTION_STRING("kernel_match", gk_config, kernel_match, "gemm",
                     "kernels to size: names containing this (any case)"),
    TP_OPTION_END};

int gk_init(tp_stage *st, const void *config, void **state)
{
    const gk_config *cfg = config;
    (void)state;
    if (cfg->kernel_args.n != 0 && cfg->kernel_args.n != 3)
        return tp_fail(st, TP_EINVAL, "kernel_args: give three indexes, those of M, N and K "
                       "(e.g. [0, 1, 2]; got %zu)", cfg->kernel_args.n);
    return TP_OK;
}

int gk_run(tp_stage *st, const void *config, void *state)
{
    const gk_config *cfg = config;
    const tp_trace *t = tp_stage_trace(st);
    (void)state;
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    int rc = cfg->kernel_args.n == 3 ? kernels_result(st, t, &cfg->kernel_args, cfg->kernel_match)
                                     : shares_result(st, t);
    if (rc == TP_ENOTFOUND)
        return rc; /* (the hierarchy's error is already said) */
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}
