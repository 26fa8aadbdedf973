/* SDK: device presets (tp_sdk_presets.h), the built-in table.  A user's
 * preset file is read in tp_sdk_presets_file.c: it reports through the
 * host (tp_fail), so code that only reads the table (predict's model tests,
 * linked with the core) does not pull that in from the archive. */
#include <tracepipe/tp_sdk_presets.h>

#include <string.h>

/* ANALYSES.md section 5.1: dense GFLOP/s and GB/s; 0 = not published. */
static const tp_preset tp_presets[] = {
    {"v100_seed", 80, 25165824, 809, 2888, 12200, 0, 0, 0},
    {"a100_sxm4_80gb", 108, 41943040, 2039, 0, 19500, 156000, 312000, 312000},
    {"h100_sxm5_80gb", 132, 52428800, 3350, 0, 66900, 494700, 989400, 989400},
    {"mi300x", 304, 33554432, 5300, 0, 163400, 653700, 1307400, 1307400},
};

const tp_preset *tp_preset_find(const char *name)
{
    for (size_t i = 0; name && i < sizeof tp_presets / sizeof *tp_presets; i++)
        if (strcmp(tp_presets[i].name, name) == 0)
            return &tp_presets[i];
    return NULL;
}

const char *tp_preset_for_device(const char *name)
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
