/*
 * tracepipe SDK: CUPTI range-profiler counters, the one place that knows
 * how profilers record per-kernel performance counters (part of the SDK,
 * tp_sdk.h).
 *
 * PyTorch's profiler in CUPTI range-profiler mode
 * (_ExperimentalConfig(profiler_metrics=[...], profiler_measure_per_kernel=
 * True)) replays each kernel under the counters and writes one complete
 * event of category "cuda_profiler_range" per kernel: the kernel's name
 * (or "__missing__"), a time on a track of its own, and each counter's value
 * in its args, keyed by the counter's name
 * ("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum").  These events
 * carry no correlation id: the i-th of them, in time order, is the kernel
 * of the i-th kernel launch call (HTA's cupti_counter_analysis pairs them
 * so).  A Kineto kernel event may carry counters in its args the same way.
 */
#ifndef TRACEPIPE_TP_SDK_CUPTI_H
#define TRACEPIPE_TP_SDK_CUPTI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Is cat (len bytes, not NUL-terminated) the range profiler's category? */
int tp_cupti_is_range_cat(const char *cat, size_t len);

/* The range profiler's category, "cuda_profiler_range". */
const char *tp_cupti_range_cat(void);

/* The counters HTA computes FLOPs from (its
 * CUDA_SASS_INSTRUCTION_COUNTER_FLOPS, in its order: ffma, fmul, fadd,
 * hfma, hmul, hadd, dfma, dmul, dadd), *n of them: the default counters of
 * a stage that reports counters. */
const char *const *tp_cupti_flop_counters(size_t *n);

/* Is key (len bytes) named as a CUPTI/Perfworks metric is,
 * "<unit>__<counter>.<rollup>" ("dram__bytes_read.sum",
 * "sm__cycles_elapsed.avg"): how a counter is told from a kernel's other
 * args.  (Every numeric arg of a range event is a counter.) */
int tp_cupti_is_counter_name(const char *key, size_t len);

#ifdef __cplusplus
}
#endif
#endif
