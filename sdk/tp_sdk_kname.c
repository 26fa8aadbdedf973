/* SDK: a GEMM kernel's library, element type and tile from its name
 * (tp_sdk_kname.h). */
#include <tracepipe/tp_sdk_kname.h>

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* The first "AxB[xC]" of whole numbers >= 8 after `from` (or at it) into
 * the tile; 1 when found. */
static int kn_tile(const char *from, tp_gemm_kname *k)
{
    for (const char *p = from; *p; p++) {
        if (!isdigit((unsigned char)*p) || (p > from && isdigit((unsigned char)p[-1])))
            continue;
        char *end;
        long m = strtol(p, &end, 10);
        if (*end != 'x' || !isdigit((unsigned char)end[1]) || m < 8)
            continue;
        long n = strtol(end + 1, &end, 10), d = 0;
        if (*end == 'x' && isdigit((unsigned char)end[1]))
            d = strtol(end + 1, &end, 10);
        if (n < 8)
            continue;
        k->tile_m = (int)m, k->tile_n = (int)n, k->tile_k = (int)d;
        return 1;
    }
    return 0;
}

/* Tensile's type letters after Cijk_A.._B.._: the inputs' type. */
static const char *kn_tensile_type(const char *t)
{
    if (strncmp(t, "F8", 2) == 0 || strncmp(t, "B8", 2) == 0)
        return "fp8";
    if (strncmp(t, "I8", 2) == 0)
        return "int8";
    switch (*t) {
    case 'B': return "bf16";
    case 'H': return "fp16";
    case 'S': return "fp32";
    case 'D': return "fp64";
    case 'X': return "tf32";
    default: return "";
    }
}

/* The element type a cuBLAS / CUTLASS / CK name spells, "" when none. */
static const char *kn_words_type(const char *low)
{
    static const struct {
        const char *word, *dtype;
    } words[] = {
        {"mxf4", "fp4"}, {"nvf4", "fp4"}, {"e2m1", "fp4"}, {"e4m3", "fp8"}, {"e5m2", "fp8"},
        {"fp8", "fp8"},  {"bf16", "bf16"}, {"bhalf", "bf16"}, {"tf32", "tf32"}, {"fp16", "fp16"},
        {"f16", "fp16"}, {"half", "fp16"}, {"hgemm", "fp16"}, {"h884", "fp16"}, {"h1688", "fp16"},
        {"i8816", "int8"}, {"s1688gemm", "tf32"}, {"dgemm", "fp64"}, {"sgemm", "fp32"},
        {"f32", "fp32"},
    };
    for (size_t i = 0; i < sizeof words / sizeof *words; i++)
        if (strstr(low, words[i].word))
            return words[i].dtype;
    return "";
}

int tp_gemm_kernel_decode(const char *name, tp_gemm_kname *k)
{
    char low[512];
    size_t n = 0;
    memset(k, 0, sizeof *k);
    k->dtype = "";
    if (name == NULL)
        return 0;
    for (; name[n] && n + 1 < sizeof low; n++)
        low[n] = (char)tolower((unsigned char)name[n]);
    low[n] = '\0';
    for (char *fb = strstr(low, "fbgemm"); fb; fb = strstr(fb, "fbgemm"))
        memcpy(fb, "fb_lib", 6); /* fbgemm_gpu's kernels (embeddings, permutes) */
    if (strncmp(name, "Cijk_", 5) == 0) {
        const char *t = name + 5;
        for (int skip = 0; skip < 2 && (t = strchr(t, '_')) != NULL; skip++)
            t++; /* past A..., B... */
        k->library = "tensile";
        k->dtype = t ? kn_tensile_type(t) : "";
        const char *mt = strstr(name, "_MT");
        if (mt)
            kn_tile(mt + 3, k);
        return 1;
    }
    if (strncmp(low, "igemm_", 6) == 0) {
        k->library = "miopen";
        k->dtype = kn_words_type(low);
        const char *bt = strstr(low, "_bt");
        if (bt)
            kn_tile(bt + 3, k);
        return 1;
    }
    if (!strstr(low, "gemm") && !strstr(low, "nvjet") && !strstr(low, "xmma"))
        return 0;
    k->library = strstr(low, "ck::") ? "ck" : strstr(low, "cutlass") && !strstr(low, "cublas")
                                                  ? "cutlass"
                                                  : "cublas";
    k->dtype = kn_words_type(low);
    const char *ts = strstr(low, "tilesize");
    if (strcmp(k->library, "ck") != 0)
        kn_tile(ts ? ts + 8 : low, k);
    return 1;
}

int tp_device_runs_tf32(const char *device_name, const char *compute_capability)
{
    static const char *const amd[] = {"amd", "instinct", "radeon"};
    if (compute_capability == NULL || !isdigit((unsigned char)compute_capability[0]))
        return 0;
    char low[128];
    size_t n = 0;
    for (; device_name && device_name[n] && n + 1 < sizeof low; n++)
        low[n] = (char)tolower((unsigned char)device_name[n]);
    low[n] = '\0';
    for (size_t i = 0; i < sizeof amd / sizeof *amd; i++)
        if (strstr(low, amd[i]))
            return 0;
    return strtol(compute_capability, NULL, 10) >= 8;
}
