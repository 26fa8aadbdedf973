/* SDK: device presets (tp_sdk_presets.h), the built-in table and the
 * device-name mapping.  A user's preset file is read in
 * tp_sdk_presets_file.c and a stage's preset resolved in
 * tp_sdk_presets_resolve.c: they report through the host (tp_fail,
 * tp_log), so code that only reads the table (predict's model tests, linked
 * with the core) does not pull them in from the archive. */
#include <tracepipe/tp_sdk_presets.h>

#include <ctype.h>
#include <stdio.h>
#include <string.h>

/* Dense GFLOP/s and GB/s; 0 = not published (or, for a dtype, not supported
 * by the part).  docs/presets.md gives the source of every figure (the
 * vendor's datasheet; dense = half the "with sparsity" figure where only that
 * is printed) and the launch floor's trace: the shortest kernel measured on a
 * real trace of that part, 0 = not measured, and 0 in v100_seed so the seed's
 * vectors stay exact.  v100_seed and v100_sxm2 keep the seed's measured V100
 * figures (ANALYSES.md 5.1), not the datasheet's.  AMD's MI250X and MI250
 * are two GCDs, each its own device to PyTorch: their presets hold one GCD
 * (half the package's figures).  fp32 is the highest FP32 rate (AMD's
 * matrix rate where it differs from the vector one).  `link` is the vendor's
 * aggregate link figure (both directions); the preset keeps one direction, half of it. */
#define TP_PRESET_ROW(name, sms, l2, dram, l2bw, fp64, fp32, tf32, fp16, bf16, fp8, fp4, link,  \
                      floor)                                                                      \
    {name, sms, l2, dram, l2bw, fp32, tf32, fp16, bf16, floor, fp64, fp8, fp4, (link) / 2.0}
#define MB(x) ((x) * 1048576.0)
static const tp_preset tp_presets[] = {
    /*           name              sms  L2       DRAM   L2BW  FP64    FP32    TF32     FP16     BF16     FP8      FP4      link  floor */
    TP_PRESET_ROW("v100_seed",      80, MB(24),   809, 2888,     0,  12200,      0,       0,       0,       0,       0,    0,     0),
    TP_PRESET_ROW("v100_sxm2",      80, MB(24),   809, 2888,  7800,  12200,      0,  125000,       0,       0,       0,  300, 1.248),
    TP_PRESET_ROW("v100_pcie",      80, MB(6),    900,    0,  7000,  14000,      0,  112000,       0,       0,       0,   32,     0),
    TP_PRESET_ROW("quadro_gp100",   56, 0,        717,    0,  5200,  10300,      0,   20700,       0,       0,       0,    0,     0),
    TP_PRESET_ROW("a100_sxm4_40gb", 108, MB(40), 1555,    0, 19500,  19500, 156000,  312000,  312000,       0,       0,  600, 1.344),
    TP_PRESET_ROW("a100_sxm4_80gb", 108, MB(40), 2039,    0, 19500,  19500, 156000,  312000,  312000,       0,       0,  600, 1.344),
    TP_PRESET_ROW("a100_pcie_40gb", 108, MB(40), 1555,    0, 19500,  19500, 156000,  312000,  312000,       0,       0,   64,     0),
    TP_PRESET_ROW("a100_pcie_80gb", 108, MB(40), 1935,    0, 19500,  19500, 156000,  312000,  312000,       0,       0,   64,     0),
    TP_PRESET_ROW("h100_sxm5_80gb", 132, MB(50), 3350,    0, 66900,  66900, 494700,  989400,  989400, 1978900,       0,  900,   1.6),
    TP_PRESET_ROW("h100_pcie",     114, MB(50),  2000,    0, 51000,  51000, 378000,  756500,  756500, 1513000,       0,  128,     0),
    TP_PRESET_ROW("h100_nvl",        0, 0,       3900,    0, 60000,  60000, 417500,  835500,  835500, 1670500,       0,  600,     0),
    TP_PRESET_ROW("h200_sxm",        0, 0,       4800,    0, 67000,  67000, 494500,  989500,  989500, 1979000,       0,  900,     0),
    TP_PRESET_ROW("h200_nvl",        0, 0,       4800,    0, 60000,  60000, 417500,  835500,  835500, 1670500,       0,  900,     0),
    TP_PRESET_ROW("b200",            0, 0,       8000,    0, 37000,  75000, 1125000, 2250000, 2250000, 4500000, 9000000, 1800,    0),
    TP_PRESET_ROW("gb200",           0, 0,       8000,    0, 45000,      0, 1250000, 2500000, 2500000, 5000000, 10000000, 1800,   0),
    TP_PRESET_ROW("l4",              0, 0,        300,    0,     0,  30300,  60000,  121000,  121000,  242500,       0,   64,     0),
    TP_PRESET_ROW("l40s",          142, 0,        864,    0,     0,  91600, 183000,  362050,  362050,  733000,       0,   64,     0),
    TP_PRESET_ROW("mi210",         104, MB(8),   1638.4,  0, 45300,  45300,      0,  181000,  181000,       0,       0,  300, 1.919),
    TP_PRESET_ROW("mi250",         104, MB(8),   1638.4,  0, 45250,  45250,      0,  181000,  181000,       0,       0,    0,     0),
    TP_PRESET_ROW("mi250x",        110, MB(8),   1638.4,  0, 47850,  47850,      0,  191500,  191500,       0,       0,    0,     0),
    TP_PRESET_ROW("mi300x",        304, MB(32),  5300,    0, 163400, 163400, 653700, 1307400, 1307400, 2614900,      0,  896,     0),
    TP_PRESET_ROW("mi325x",        304, MB(32),  6000,    0, 163400, 163400, 653700, 1307400, 1307400, 2614900,      0,  896,     0),
    TP_PRESET_ROW("mi355x",        256, MB(32),  8000,    0, 78600, 157300,      0, 2516600, 2516600, 5033200, 10066300, 1075.2, 0),
};
#undef MB
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
 * package, memory size or clock, or the nearest part of its generation: its
 * figures are near, not equal).  A rule's words must all be words of the
 * device's name (split at anything but letters and digits, compared without
 * case); "X*" is any word starting with X.  More specific rules come first
 * ("GB200" before "B200"; "PCIE" before a model's bare name). */
static const struct tp_preset_rule {
    const char *preset;
    const char *words[3];
    tp_preset_match match;
} tp_preset_rules[] = {
    {"v100_sxm2", {"V100", "SXM2"}, TP_PRESET_EXACT},
    {"v100_pcie", {"V100", "PCIE"}, TP_PRESET_EXACT},
    {"quadro_gp100", {"GP100"}, TP_PRESET_EXACT},
    {"a100_sxm4_40gb", {"A100", "PG509"}, TP_PRESET_EXACT}, /* HGX A100 40GB's board: 40 GB */
    {"a100_pcie_80gb", {"A100", "PCIE", "80GB"}, TP_PRESET_EXACT},
    {"a100_pcie_40gb", {"A100", "PCIE"}, TP_PRESET_EXACT},
    {"a100_sxm4_80gb", {"A100", "SXM*", "80GB"}, TP_PRESET_EXACT},
    {"a100_sxm4_40gb", {"A100", "SXM*"}, TP_PRESET_EXACT},
    {"h100_nvl", {"H100", "NVL"}, TP_PRESET_EXACT},
    {"h100_pcie", {"H100", "PCIE"}, TP_PRESET_EXACT},
    {"h100_sxm5_80gb", {"H100", "SXM*"}, TP_PRESET_EXACT},
    {"h100_sxm5_80gb", {"H100", "HBM3"}, TP_PRESET_EXACT}, /* "NVIDIA H100 80GB HBM3": the SXM5 */
    {"h200_nvl", {"H200", "NVL"}, TP_PRESET_EXACT},
    {"h200_sxm", {"H200"}, TP_PRESET_EXACT}, /* "NVIDIA H200": the SXM part */
    {"gb200", {"GB200"}, TP_PRESET_EXACT},
    {"b200", {"B200"}, TP_PRESET_EXACT},
    {"l40s", {"L40S"}, TP_PRESET_EXACT},
    {"l4", {"L4"}, TP_PRESET_EXACT},
    {"mi210", {"MI210"}, TP_PRESET_EXACT},
    {"mi250x", {"MI250X", "MI250"}, TP_PRESET_FAMILY}, /* ROCm's name of both parts' GCDs */
    {"mi250x", {"MI250X"}, TP_PRESET_EXACT},
    {"mi250", {"MI250"}, TP_PRESET_EXACT},
    {"mi300x", {"MI300X"}, TP_PRESET_EXACT},
    {"mi325x", {"MI325X"}, TP_PRESET_EXACT},
    {"mi355x", {"MI355X"}, TP_PRESET_EXACT},
    {"v100_pcie", {"V100S"}, TP_PRESET_FAMILY},
    {"v100_sxm2", {"V100*"}, TP_PRESET_FAMILY},
    {"quadro_gp100", {"P100*"}, TP_PRESET_FAMILY},
    {"a100_sxm4_80gb", {"A100*"}, TP_PRESET_FAMILY},
    {"a100_sxm4_80gb", {"A800*"}, TP_PRESET_FAMILY},
    {"h100_sxm5_80gb", {"H100*"}, TP_PRESET_FAMILY},
    {"h100_sxm5_80gb", {"H800*"}, TP_PRESET_FAMILY},
    {"gb200", {"GB300"}, TP_PRESET_FAMILY},
    {"b200", {"B100"}, TP_PRESET_FAMILY},
    {"b200", {"B300"}, TP_PRESET_FAMILY},
    {"l40s", {"L40*"}, TP_PRESET_FAMILY},
    {"mi250x", {"GFX90A"}, TP_PRESET_FAMILY}, /* CDNA2 by its ISA name */
    {"mi300x", {"MI300*"}, TP_PRESET_FAMILY},
    {"mi300x", {"MI308*"}, TP_PRESET_FAMILY},
    {"mi300x", {"GFX942"}, TP_PRESET_FAMILY},
    {"mi325x", {"MI325*"}, TP_PRESET_FAMILY},
    {"mi355x", {"MI350*"}, TP_PRESET_FAMILY},
    {"mi355x", {"MI355*"}, TP_PRESET_FAMILY},
    {"mi355x", {"GFX950"}, TP_PRESET_FAMILY},
};

/* Whether `word` (a rule's: upper case, "X*" a prefix) is one of the words
 * of `name`. */
static int has_word(const char *name, const char *word)
{
    size_t wl = strlen(word);
    int prefix = wl > 0 && word[wl - 1] == '*';
    wl -= (size_t)prefix;
    for (const char *s = name; *s;) {
        while (*s && !isalnum((unsigned char)*s))
            s++;
        const char *e = s;
        while (*e && isalnum((unsigned char)*e))
            e++;
        size_t n = (size_t)(e - s), k = 0;
        while (k < wl && k < n && toupper((unsigned char)s[k]) == word[k])
            k++;
        if (k == wl && (prefix ? n >= wl : n == wl) && n > 0)
            return 1;
        s = e;
    }
    return 0;
}

static int has_words(const char *name, const char *const *words)
{
    for (size_t i = 0; i < 3 && words[i]; i++)
        if (!has_word(name, words[i]))
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

double tp_preset_peak(const tp_preset *p, double bytes_per_element, int tf32, int bf16)
{
    if (bytes_per_element >= 8)
        return p->fp64;
    if (bytes_per_element >= 4)
        return tf32 && p->tf32 > 0 ? p->tf32 : p->fp32;
    if (bytes_per_element >= 2)
        return bf16 ? p->bf16 : p->fp16;
    return bytes_per_element >= 1 ? p->fp8 : p->fp4;
}

const char *tp_preset_for_device(const char *name)
{
    tp_preset_match how;
    const tp_preset *p = tp_preset_match_device(name, &how);
    return p && how == TP_PRESET_EXACT ? p->name : NULL;
}
