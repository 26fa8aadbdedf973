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
#include <stdint.h>

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
    double launch_floor_us; /* no kernel of this part runs shorter (0: not known) */
    /* Since issue 27 (appended: code that fills the fields above is unchanged). */
    double fp64, fp8, fp4; /* dense GFLOP/s; fp64 the highest published (matrix) rate */
    double link_gbps;      /* peak GPU-to-GPU bandwidth in one direction, GB/s (0: not known):
                            * half the aggregate (both directions) figure the vendor states
                            * for NVLink / Infinity Fabric / PCIe; NCCL's bus bandwidth is
                            * compared with it */
} tp_preset;

/* The peak (GFLOP/s) a product of elements of `bytes_per_element` bytes
 * runs at on p: 8 fp64, 4 fp32 (tf32 when tf32 is set and known), 2
 * fp16 (bf16 when bf16 is set), 1 fp8, 0.5 fp4; 0 when the preset does not
 * publish it. */
double tp_preset_peak(const tp_preset *p, double bytes_per_element, int tf32, int bf16);

/* The built-in preset of that name (docs/presets.md lists them with the
 * source of every figure), or NULL (also for a NULL name). */
const tp_preset *tp_preset_find(const char *name);

/* The built-in presets' names, ", "-separated, into buf (snprintf's
 * contract: the length it needs). */
size_t tp_preset_names(char *buf, size_t size);

/* How a device's name met a preset. */
typedef enum tp_preset_match {
    TP_PRESET_NO_MATCH = 0,
    TP_PRESET_EXACT,  /* the part whose figures the preset holds */
    TP_PRESET_FAMILY  /* another part of its family: near figures, not equal */
} tp_preset_match;

/* The preset of a device by its name (trace info device.0.name), matched
 * on the name's words whatever the vendor's spelling ("NVIDIA
 * A100-PG509-200", "AMD Instinct MI250X / MI250", "Quadro GP100"): the part
 * a preset holds, else the nearest of its family (an H800: h100_sxm5_80gb,
 * *how TP_PRESET_FAMILY), else NULL (a device of no family a preset
 * holds). */
const tp_preset *tp_preset_match_device(const char *device, tp_preset_match *how);

/* The name of the preset of exactly that part, else NULL. */
const char *tp_preset_for_device(const char *name);

/*
 * The one resolver of every stage's preset: the option `name` (a built-in
 * preset's exact name; else an error listing them), else the device's
 * preset by tp_preset_match_device, with a warning naming the preset taken
 * when it is only the nearest of the family.  With no preset for the
 * device: when `required`, NULL after an error (tp_fail: TP_EINVAL) naming
 * the device, listing the presets and saying how to give preset: or
 * preset_file:; else NULL after an info line.  `device` may be NULL (the
 * trace names none).
 */
const tp_preset *tp_preset_resolve(tp_stage *st, const char *name, const char *device,
                                   int required);

/*
 * A device that names no part a preset holds (vLLM's ROCm traces write
 * "name": "", or an unknown name): the nearest preset by its compute
 * capability ("9.4": gfx942 under HIP), vendor (amd: a HIP runtime), SM/CU
 * count and memory (bytes), or NULL.  tp_sdk_presets_props.c.
 */
const tp_preset *tp_preset_match_props(const char *cc, int64_t sms, int64_t memory_bytes,
                                       int amd);

/* tp_preset_resolve for trace t's device 0: the option `name`, else its
 * name's preset, else (no name, or one of no family) the preset of its
 * properties with a warning saying which were read, else
 * tp_preset_resolve's error or info line. */
const tp_preset *tp_preset_resolve_trace(tp_stage *st, const char *name, const tp_trace *t,
                                         int required);

/*
 * A device preset from a user's file: JSON with tracepipe's keys (name, sms,
 * l2_bytes, dram_gbps, l2_gbps, fp32_gflops, tf32_gflops, fp16_gflops,
 * bf16_gflops, launch_floor_us), TraceLens's arch JSON (name, mem_bw_gbps,
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
