/*
 * tracepipe SDK: device presets (ANALYSES.md section 5.1), the one table
 * gemm_throughput's roofline and predict's models read, and a user's
 * preset file.  Dense GFLOP/s and GB/s; 0 = not published (no vendor
 * publishes L2 bandwidth: a model needing it fails unless the pipeline
 * gives one).
 */
#ifndef TRACEPIPE_TP_SDK_PRESETS_H
#define TRACEPIPE_TP_SDK_PRESETS_H

#include <stddef.h>

#include "tp_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_preset {
    const char *name;
    int sms;           /* SMs / CUs */
    double l2_bytes;
    double dram_gbps, l2_gbps;
    double fp32, tf32, fp16, bf16;
} tp_preset;

/* The built-in preset of that name (v100_seed, a100_sxm4_80gb,
 * h100_sxm5_80gb, mi300x), or NULL (also for a NULL name). */
const tp_preset *tp_preset_find(const char *name);

/* The preset of a device by its name (trace info device.0.name): only the
 * parts whose figures the presets hold (an A100 40GB has other bandwidth);
 * NULL when none. */
const char *tp_preset_for_device(const char *name);

/*
 * A device preset from a user's file: JSON with tracepipe's keys (name, sms,
 * l2_bytes, dram_gbps, l2_gbps, fp32_gflops, tf32_gflops, fp16_gflops,
 * bf16_gflops), TraceLens's arch JSON (name, mem_bw_gbps,
 * max_achievable_tflops), or tracepipe's keys as a flat YAML mapping.  A
 * figure not given is 0 (not known): a model that needs it says so.
 * name (namesz bytes) gets the file's name for the device, else the path;
 * p->name points to it.  TP_OK, or the error reported with tp_fail.
 */
int tp_preset_load(tp_stage *st, const char *path, tp_preset *p, char *name, size_t namesz);

#ifdef __cplusplus
}
#endif

#endif
