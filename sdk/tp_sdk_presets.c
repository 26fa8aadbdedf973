/* SDK: device presets (tp_sdk_presets.h), the built-in table and the
 * device-name mapping.  A user's preset file is read in
 * tp_sdk_presets_file.c and a stage's preset resolved in
 * tp_sdk_presets_resolve.c: they report through the host (tp_fail,
 * tp_log), so code that only reads the table (predict's model tests, linked
 * with the core) does not pull them in from the archive. */
#include <tracepipe/tp_sdk_presets.h>

#include <stdio.h>
#include <string.h>

/* ANALYSES.md section 5.1: dense GFLOP/s and GB/s; 0 = not published.  The
 * last figure is the launch floor (us), the shortest kernel measured on a
 * real trace of that part (docs/plugins/predict.md, "Presets", names each
 * source); 0 = not measured, and 0 in v100_seed so the seed's vectors stay
 * exact.  The very last is link_gbps, a GPU's peak GPU-to-GPU bandwidth in
 * one direction (GB/s), which NCCL's bus bandwidth is compared with:
 * NVLink 2, 3, 4 at 25 GB/s per link and direction times 6 (V100 SXM2), 12
 * (A100 SXM4), 18 (H100 SXM5) links; MI300X 7 Infinity Fabric links of
 * 64 GB/s per direction.  v100_sxm2 is v100_seed's V100 SXM2 with its floor: the preset of
 * V100 traces. */
static const tp_preset tp_presets[] = {
    {"v100_seed", 80, 25165824, 809, 2888, 12200, 0, 0, 0, 0, 150},
    {"v100_sxm2", 80, 25165824, 809, 2888, 12200, 0, 0, 0, 1.248, 150},
    {"a100_sxm4_80gb", 108, 41943040, 2039, 0, 19500, 156000, 312000, 312000, 1.344, 300},
    {"h100_sxm5_80gb", 132, 52428800, 3350, 0, 66900, 494700, 989400, 989400, 1.6, 450},
    {"mi300x", 304, 33554432, 5300, 0, 163400, 653700, 1307400, 1307400, 0, 448},
};
#define TP_N_PRESETS (sizeof tp_presets / sizeof *tp_presets)

const tp_preset *tp_preset_find(const char *name)
{
    for (size_t i = 0; name && i < TP_N_PRESETS; i++)
        if (strcmp(tp_presets[i].name, name) == 0)
            return &tp_presets[i];
    return NULL;
}

size_t tp_preset_names(char *buf, size_t size)
{
    size_t n = 0;
    for (size_t i = 0; i < TP_N_PRESETS; i++)
        n += (size_t)snprintf(buf + (n < size ? n : size), n < size ? size - n : 0, "%s%s",
                              i ? ", " : "", tp_presets[i].name);
    return n;
}

/* Device names to presets, first match wins: the parts whose figures a
 * preset holds (exact), then each preset's family (the same chip in another
 * package, memory size or clock: its figures are near, not equal).  A
 * device of no family here (B200, MI210, an L4 ...) has no preset. */
static const struct tp_preset_rule {
    const char *preset;
    const char *words[3]; /* all of them in the device's name */
    tp_preset_match match;
} tp_preset_rules[] = {
    {"v100_sxm2", {"V100", "SXM2"}, TP_PRESET_EXACT},
    {"a100_sxm4_80gb", {"A100", "80GB", "SXM"}, TP_PRESET_EXACT},
    {"h100_sxm5_80gb", {"H100", "SXM"}, TP_PRESET_EXACT},
    {"h100_sxm5_80gb", {"H100", "HBM3"}, TP_PRESET_EXACT}, /* "NVIDIA H100 80GB HBM3": the SXM5 */
    {"mi300x", {"MI300X"}, TP_PRESET_EXACT},
    {"v100_sxm2", {"V100"}, TP_PRESET_FAMILY},
    {"a100_sxm4_80gb", {"A100"}, TP_PRESET_FAMILY},
    {"h100_sxm5_80gb", {"H100"}, TP_PRESET_FAMILY},
    {"h100_sxm5_80gb", {"H800"}, TP_PRESET_FAMILY},
    {"h100_sxm5_80gb", {"H200"}, TP_PRESET_FAMILY},
    {"mi300x", {"MI300"}, TP_PRESET_FAMILY},
    {"mi300x", {"MI325"}, TP_PRESET_FAMILY},
};

static int has_words(const char *name, const char *const *words)
{
    for (size_t i = 0; i < 3 && words[i]; i++)
        if (strstr(name, words[i]) == NULL)
            return 0;
    return 1;
}

const tp_preset *tp_preset_match_device(const char *device, tp_preset_match *how)
{
    *how = TP_PRESET_NO_MATCH;
    for (size_t i = 0; device && i < sizeof tp_preset_rules / sizeof *tp_preset_rules; i++)
        if (has_words(device, tp_preset_rules[i].words)) {
            *how = tp_preset_rules[i].match;
            return tp_preset_find(tp_preset_rules[i].preset);
        }
    return NULL;
}

const char *tp_preset_for_device(const char *name)
{
    tp_preset_match how;
    const tp_preset *p = tp_preset_match_device(name, &how);
    return p && how == TP_PRESET_EXACT ? p->name : NULL;
}
