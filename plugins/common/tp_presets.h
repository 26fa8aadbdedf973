/*
 * Device presets (ANALYSES.md section 5.1): the one table gemm_throughput's
 * roofline and predict's models read.  Dense GFLOP/s and GB/s; 0 = not
 * published (no vendor publishes L2 bandwidth: a model needing it fails
 * unless the pipeline gives one).  Header-only, private to the built-in
 * plugins.
 */
#ifndef TRACEPIPE_PLUGINS_TP_PRESETS_H
#define TRACEPIPE_PLUGINS_TP_PRESETS_H

#include <stddef.h>
#include <string.h>

typedef struct tp_preset {
    const char *name;
    int sms;           /* SMs / CUs */
    double l2_bytes;
    double dram_gbps, l2_gbps;
    double fp32, tf32, fp16, bf16;
} tp_preset;

static const tp_preset tp_presets[] = {
    {"v100_seed", 80, 25165824, 809, 2888, 12200, 0, 0, 0},
    {"a100_sxm4_80gb", 108, 41943040, 2039, 0, 19500, 156000, 312000, 312000},
    {"h100_sxm5_80gb", 132, 52428800, 3350, 0, 66900, 494700, 989400, 989400},
    {"mi300x", 304, 33554432, 5300, 0, 163400, 653700, 1307400, 1307400},
};

static inline const tp_preset *tp_preset_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof tp_presets / sizeof *tp_presets; i++)
        if (strcmp(tp_presets[i].name, name) == 0)
            return &tp_presets[i];
    return NULL;
}

/* The preset of a device by its name (trace info device.0.name): only the
 * parts whose figures the presets hold (an A100 40GB has other bandwidth). */
static inline const char *tp_preset_for_device(const char *name)
{
    if (name == NULL)
        return NULL;
    if (strstr(name, "A100") && strstr(name, "80GB") && strstr(name, "SXM"))
        return "a100_sxm4_80gb";
    if (strstr(name, "H100") && (strstr(name, "SXM") || strstr(name, "HBM3")))
        return "h100_sxm5_80gb";
    if (strstr(name, "MI300X"))
        return "mi300x";
    if (strstr(name, "V100"))
        return "v100_seed";
    return NULL;
}

#endif
