/* analysis `counters`: what its files share (docs/plugins/counters.md). */
#ifndef TP_COUNTERS_H
#define TP_COUNTERS_H

#include <stdint.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_queue.h>

/* The most counters <id>.kernels can have as columns. */
#define CN_MAX_COUNTERS 256

/* <id>.summary's columns (declared in counters.c). */
#define CN_SUM_COLS(X, P)                                                                          \
    X(P, pid, I64, NULL, "the process of the stream's activities in the trace (the track's)")      \
    X(P, device, I64, NULL, "the device (null when not said)")                                     \
    X(P, stream, I64, NULL, "the stream")                                                          \
    X(P, n_launches, I64, "count", "launch calls whose activity ran on the stream")                \
    X(P, n_copies, I64, "count", "copies with a byte count on the stream")                         \
    X(P, copy_bytes, I64, "bytes", "their bytes, added")                                           \
    X(P, p50_memcpy_gbps, F64, "GB/s", "median of the copies' bandwidths, 10^9 bytes/s (null: "    \
                                      "no copies)")                                                \
    X(P, p90_memcpy_gbps, F64, "GB/s", "90th percentile of the copies' bandwidths")                 \
    X(P, max_memcpy_gbps, F64, "GB/s", "the fastest copy's bandwidth")                              \
    X(P, memcpy_gbps, F64, "GB/s", "copy_bytes / the copies' durations added, 10^9 bytes/s")
enum { CN_SUM_COLS(TP_COL_ENUM_, cn_s) cn_s__n };

/* <id>.unlisted's columns (declared in counters.c). */
#define CN_UNLISTED_COLS(X, P)                                                                     \
    X(P, name, STR, NULL, "a counter the trace has that cupti_counters does not name")            \
    X(P, count, I64, "count", "events carrying it (range events and kernels)")
enum { CN_UNLISTED_COLS(TP_COL_ENUM_, cn_u) cn_u__n };

/* <id>.kernels' columns before the counters (declared in counters_cupti.c). */
#define CN_KERNEL_COLS(X, P)                                                                       \
    X(P, source, STR, NULL, "cuda_profiler_range (a range event) or kernel (a kernel's args)")     \
    X(P, start_us, F64, "us", "the event's start, from the trace's t0 (a range's is the "          \
                              "profiler's, not the kernel's)")                                     \
    X(P, dur_us, F64, "us", "the event's duration (a range's: the profiling pass')")               \
    X(P, stream, I64, NULL, "the kernel's stream (null for a range)")                              \
    X(P, kernel, STR, NULL, "the kernel's name as the event gives it")                             \
    X(P, op, STR, NULL, "the outermost op above its launch call (null: none, or not paired)")      \
    X(P, inner_op, STR, NULL, "the innermost op above its launch call")
enum { CN_KERNEL_COLS(TP_COL_ENUM_, cn_k) cn_k__n };
#define CN_KERNEL_FIXED ((size_t)cn_k__n)

typedef struct cn_config {
    tp_strlist cupti_counters;
    /* Filled by results_for from cupti_counters (the declared columns of
     * <id>.kernels depend on it): the declarations point into this config. */
    tp_col_decl kernel_cols[CN_KERNEL_FIXED + CN_MAX_COUNTERS];
    tp_result_decl decls[5];
} cn_config;

/* One stream's figures for <id>.summary (counters_summary.c). */
typedef struct cn_sum {
    int64_t launches, copies, copy_bytes, copy_ns;
    double p50_gbps, p90_gbps, max_gbps;
} cn_sum;

typedef struct cn {
    tp_stage *st;
    const cn_config *cfg;
    const tp_trace *t;
    const tp_cols *c;
    tp_result *r;
    int64_t t0;
    cn_sum *sums; /* per track */
} cn;

/* counters_summary.c: the copies' figures of one track from their
 * bandwidths (gbps[0, n), sorted). */
int cn_sum_copies(cn *k, uint32_t track, double *gbps, size_t n, int64_t bytes, int64_t ns);
/* <id>.summary: one row per stream with launches or copies. */
int cn_write_summary(cn *k);

/* counters_cupti.c: <id>.kernels' declaration for cfg (the fixed columns,
 * then each counter of cfg's list, HTA's FLOP counters when empty), and
 * the table itself. */
void cn_kernel_cols(cn_config *cfg, size_t *ncols);
int cn_write_kernels(cn *k, const tp_hier_view *h, const tp_vocab *vocab);
/* The counters asked for: cupti_counters, else HTA's FLOP counters. */
const char *const *cn_counters_of(const cn_config *cfg, size_t *n);

/* counters_unlisted.c: <id>.unlisted, the counters of the trace not among
 * names[0, n). */
int cn_write_unlisted(cn *k, const char *const *names, size_t n);

#endif
