/* SDK: the one resolver of a stage's device preset (tp_sdk_presets.h,
 * tp_preset_resolve): exact name, else the nearest family with a warning,
 * else an error listing the presets. */
#include <tracepipe/tp_sdk_presets.h>
#include <tracepipe/tp_plugin.h>

#include <stddef.h>

/* How to say what a device is, after the list of presets. */
#define TP_PRESET_HOW                                                                             \
    "give preset: NAME to use one of them, or preset_file: FILE with the device's figures "      \
    "(JSON or flat YAML: dram_gbps, fp32_gflops, fp16_gflops, bf16_gflops, tf32_gflops, "        \
    "fp64_gflops, fp8_gflops, fp4_gflops, l2_gbps, link_gbps, sms, l2_bytes, launch_floor_us; "  \
    "or a TraceLens arch JSON); the presets and their sources: docs/presets.md"

const tp_preset *tp_preset_resolve(tp_stage *st, const char *name, const char *device,
                                   int required)
{
    char names[1024];
    tp_preset_names(names, sizeof names);
    if (name) {
        const tp_preset *p = tp_preset_find(name);
        if (p == NULL)
            tp_fail(st, TP_EINVAL, "preset: unknown preset '%s' (presets: %s)", name, names);
        return p;
    }
    tp_preset_match how;
    const tp_preset *p = tp_preset_match_device(device, &how);
    if (p && how == TP_PRESET_EXACT)
        tp_log(st, TP_LOG_INFO, "preset %s from the trace's device '%s'", p->name, device);
    else if (p)
        tp_log(st, TP_LOG_WARN, "preset %s for the trace's device '%s': not that part but the "
               "nearest preset of its family, whose figures (bandwidth, clocks, units) may "
               "differ; give preset_file: with the device's own figures to be exact", p->name,
               device);
    else if (required)
        tp_fail(st, TP_EINVAL, "no preset for the trace's device %s%s%s (presets: %s): "
                TP_PRESET_HOW, device ? "'" : "", device ? device : "(the trace names none)",
                device ? "'" : "", names);
    else
        tp_log(st, TP_LOG_INFO, "no preset for the trace's device %s%s%s (presets: %s)",
               device ? "'" : "", device ? device : "(the trace names none)", device ? "'" : "",
               names);
    return p;
}
