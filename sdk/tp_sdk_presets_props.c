/* SDK: a device preset from what a trace says of its device besides the
 * name (tp_sdk_presets.h, tp_preset_resolve_trace): compute capability,
 * SM/CU count, memory size, a HIP runtime.  vLLM's ROCm traces name no
 * device ("name": ""); an unknown name gets the nearest family too. */
#include <tracepipe/tp_sdk_presets.h>
#include <tracepipe/tp_plugin.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Compute capability (HIP writes gfx942 as 9.4, gfx90a as 9.0) and vendor
 * to the nearest preset; sms and memory (GB, 10^9 bytes) pick a part where
 * they tell parts apart (0: any).  First match wins. */
static const struct tp_preset_prop_rule {
    int amd;
    const char *cc;
    int sms;
    double min_gb;
    const char *preset;
} tp_prop_rules[] = {
    {1, "9.4", 304, 250, "mi325x"},
    {1, "9.4", 0, 0, "mi300x"},
    {1, "9.5", 0, 0, "mi355x"},
    {1, "9.0", 104, 0, "mi210"},
    {1, "9.0", 0, 0, "mi250x"},
    {0, "6.0", 0, 0, "quadro_gp100"},
    {0, "7.0", 0, 0, "v100_sxm2"},
    {0, "8.0", 0, 60, "a100_sxm4_80gb"},
    {0, "8.0", 0, 0, "a100_sxm4_40gb"},
    {0, "8.9", 0, 0, "l40s"},
    {0, "9.0", 114, 0, "h100_pcie"},
    {0, "9.0", 0, 100, "h200_sxm"},
    {0, "9.0", 0, 0, "h100_sxm5_80gb"},
    {0, "10.0", 0, 0, "b200"},
};

const tp_preset *tp_preset_match_props(const char *cc, int64_t sms, int64_t memory_bytes,
                                       int amd)
{
    for (size_t i = 0; cc && i < sizeof tp_prop_rules / sizeof *tp_prop_rules; i++) {
        const struct tp_preset_prop_rule *r = &tp_prop_rules[i];
        if (r->amd == amd && strcmp(r->cc, cc) == 0 && (r->sms == 0 || r->sms == sms) &&
            (double)memory_bytes >= r->min_gb * 1e9)
            return tp_preset_find(r->preset);
    }
    return NULL;
}

/* The trace's device 0 ran under a HIP runtime (ROCm's profilers write
 * these keys). */
static int trace_is_amd(const tp_trace *t)
{
    return tp_trace_meta(t, "roctracer_version") != NULL ||
           tp_trace_meta(t, "hip_runtime_version") != NULL;
}

const tp_preset *tp_preset_resolve_trace(tp_stage *st, const char *name, const tp_trace *t,
                                         int required)
{
    const char *device = t ? tp_trace_info_str(t, "device.0.name") : NULL;
    tp_preset_match how;
    if (name || t == NULL || tp_preset_match_device(device, &how))
        return tp_preset_resolve(st, name, device, required);
    const char *cc = tp_trace_info_str(t, "device.0.compute_capability");
    int64_t sms = 0, mem = 0;
    tp_trace_info_i64(t, "device.0.sm_count", &sms);
    tp_trace_info_i64(t, "device.0.memory_bytes", &mem);
    int amd = trace_is_amd(t);
    const tp_preset *p = tp_preset_match_props(cc, sms, mem, amd);
    if (p == NULL)
        return tp_preset_resolve(st, NULL, device, required);
    tp_log(st, TP_LOG_WARN, "preset %s for the trace's device %s%s%s from its properties "
           "(%s compute capability %s, %lld %s, %.0f GB): the nearest preset of that "
           "generation, whose figures may differ from the part's; give preset: or "
           "preset_file: to be exact", p->name, device && *device ? "'" : "",
           device && *device ? device : "(unnamed)", device && *device ? "'" : "",
           amd ? "HIP" : "CUDA", cc, (long long)sms, amd ? "CUs" : "SMs", (double)mem / 1e9);
    return p;
}
