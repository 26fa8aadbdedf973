/* SDK device presets (tp_sdk_presets.h): the built-in table, the device
 * name mapping, and a user's preset file in its three forms (tracepipe's
 * JSON keys, TraceLens's arch JSON in TFLOP/s, a flat YAML mapping). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tp_internal.h"
#include "tp_test.h"

#include <tracepipe/tp_sdk_presets.h>

START_TEST(built_in_table)
{
    const tp_preset *p = tp_preset_find("a100_sxm4_80gb");
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(p->sms, 108);
    ck_assert(p->l2_bytes == 41943040 && p->dram_gbps == 2039 && p->l2_gbps == 0);
    ck_assert(p->fp32 == 19500 && p->tf32 == 156000 && p->fp16 == 312000 && p->bf16 == 312000);
    p = tp_preset_find("v100_seed");
    ck_assert(p != NULL && p->sms == 80 && p->l2_gbps == 2888 && p->fp16 == 0);
    ck_assert_ptr_null(tp_preset_find("a100"));
    ck_assert_ptr_null(tp_preset_find(NULL));

    ck_assert_str_eq(tp_preset_for_device("NVIDIA A100-SXM4-80GB"), "a100_sxm4_80gb");
    ck_assert_str_eq(tp_preset_for_device("NVIDIA A100-SXM4-40GB"), "a100_sxm4_40gb");
    ck_assert_str_eq(tp_preset_for_device("NVIDIA H100 80GB HBM3"), "h100_sxm5_80gb");
    ck_assert_str_eq(tp_preset_for_device("AMD Instinct MI300X"), "mi300x");
    ck_assert_str_eq(tp_preset_for_device("Tesla V100-SXM2-16GB"), "v100_sxm2");
    ck_assert_str_eq(tp_preset_for_device("NVIDIA A100-PG509-200"), "a100_sxm4_40gb");
    ck_assert_ptr_null(tp_preset_for_device("NVIDIA H800")); /* family, not exact */
    ck_assert_ptr_null(tp_preset_for_device(NULL));
}
END_TEST

/* Writes text to a new temporary file; its path in path (64 bytes). */
static void temp_file(char *path, const char *text)
{
    snprintf(path, 64, "/tmp/tp_preset_XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    fclose(f);
}

static int load(const char *text, tp_stage *st, tp_preset *p, char *name, size_t namesz)
{
    char path[64];
    temp_file(path, text);
    memset(st, 0, sizeof *st);
    tp_host = tp_core_host_api();
    int rc = tp_preset_load(st, path, p, name, namesz);
    unlink(path);
    return rc;
}

START_TEST(preset_files)
{
    tp_stage st;
    tp_preset p;
    char name[64];
    ck_assert_int_eq(load("{\"name\": \"lab gpu\", \"sms\": 46, \"dram_gbps\": 448, "
                          "\"fp32_gflops\": 8100, \"l2_bytes\": 4194304}",
                          &st, &p, name, sizeof name),
                     TP_OK);
    ck_assert_str_eq(p.name, "lab gpu");
    ck_assert_int_eq(p.sms, 46);
    ck_assert(p.dram_gbps == 448 && p.fp32 == 8100 && p.l2_bytes == 4194304 && p.tf32 == 0);

    /* TraceLens: TFLOP/s -> GFLOP/s; fp32 the vector rate, tf32 falls back to matrix_fp32 */
    ck_assert_int_eq(load("{\"mem_bw_gbps\": 1600, \"max_achievable_tflops\": {\"vector_fp32\": "
                          "20.5, \"matrix_fp32\": 40, \"matrix_fp16\": 300}}",
                          &st, &p, name, sizeof name),
                     TP_OK);
    ck_assert(p.dram_gbps == 1600 && p.fp32 == 20500 && p.tf32 == 40000 && p.fp16 == 300000 &&
              p.bf16 == 0);

    ck_assert_int_eq(load("# a card\nname: 'yaml gpu'\nsms: 10\ndram_gbps: 300  # GB/s\n"
                          "bf16_gflops: 5000\n",
                          &st, &p, name, sizeof name),
                     TP_OK);
    ck_assert_str_eq(p.name, "yaml gpu");
    ck_assert(p.sms == 10 && p.dram_gbps == 300 && p.bf16 == 5000);

    ck_assert_int_eq(load("dram_gbps: 300\nwarp_size: 32\n", &st, &p, name, sizeof name),
                     TP_EINVAL);
    ck_assert_ptr_nonnull(strstr(st.error, ": line 2: unknown key 'warp_size'"));
    ck_assert_int_eq(load("{\"dram_gbps\": -1}", &st, &p, name, sizeof name), TP_EINVAL);
    ck_assert_ptr_nonnull(strstr(st.error, ": 'dram_gbps' is not a number >= 0: '-1'"));
    ck_assert_int_eq(load("name: idle\n", &st, &p, name, sizeof name), TP_EINVAL);
    ck_assert_ptr_nonnull(strstr(st.error, ": no bandwidth or FLOP rate in it"));
}
END_TEST

#define TP_TEST_PRESETS                                                                          \
    "v100_seed, v100_sxm2, v100_pcie, quadro_gp100, a100_sxm4_40gb, a100_sxm4_80gb, "           \
    "a100_pcie_40gb, a100_pcie_80gb, h100_sxm5_80gb, h100_pcie, h100_nvl, h200_sxm, h200_nvl, "  \
    "b200, gb200, l4, l40s, mi210, mi250, mi250x, mi300x, mi325x, mi355x"

/* Issue 25 item 6: the launch floors, the family fallback, the error
 * listing the presets. */
START_TEST(families_and_floors)
{
    ck_assert(tp_preset_find("v100_seed")->launch_floor_us == 0); /* the seed's vectors exact */
    ck_assert(tp_preset_find("v100_sxm2")->launch_floor_us == 1.248);
    ck_assert(tp_preset_find("a100_sxm4_80gb")->launch_floor_us == 1.344);
    ck_assert(tp_preset_find("h100_sxm5_80gb")->launch_floor_us == 1.6);
    ck_assert(tp_preset_find("mi300x")->launch_floor_us == 0); /* not measured */
    ck_assert(tp_preset_find("mi210")->launch_floor_us == 1.919); /* TraceLens gpu_only */
    ck_assert(tp_preset_find("a100_sxm4_40gb")->launch_floor_us == 1.344); /* HTA nccl_data */

    /* Issue 27: dense per-dtype peaks (docs/presets.md's sources) and the
     * dtype's peak. */
    const tp_preset *b = tp_preset_find("b200"), *h = tp_preset_find("h100_sxm5_80gb");
    ck_assert(b->dram_gbps == 8000 && b->bf16 == 2250000 && b->fp8 == 4500000 &&
              b->fp4 == 9000000 && b->fp64 == 37000 && b->link_gbps == 900 && b->sms == 0);
    ck_assert(tp_preset_peak(h, 2, 0, 1) == 989400 && tp_preset_peak(h, 1, 0, 0) == 1978900);
    ck_assert(tp_preset_peak(h, 4, 1, 0) == 494700 && tp_preset_peak(h, 4, 0, 0) == 66900);
    ck_assert(tp_preset_peak(h, 8, 0, 0) == 66900 && tp_preset_peak(h, 0.5, 0, 0) == 0);
    const tp_preset *m = tp_preset_find("mi250x"), *q = tp_preset_find("quadro_gp100");
    ck_assert(m->sms == 110 && m->fp16 == 191500 && m->dram_gbps == 1638.4 && m->tf32 == 0);
    ck_assert(tp_preset_peak(m, 4, 1, 0) == 47850); /* no TF32 on CDNA2: the FP32 rate */
    ck_assert(q->fp16 == 20700 && q->bf16 == 0 && tp_preset_peak(q, 2, 0, 1) == 0);
    ck_assert(tp_preset_find("mi355x")->fp4 == 10066300 && tp_preset_find("l4")->fp64 == 0);
    char names[1024];
    ck_assert_uint_eq(tp_preset_names(names, sizeof names), strlen(TP_TEST_PRESETS));
    ck_assert_str_eq(names, TP_TEST_PRESETS);

    /* Issue 27: device names as drivers and vendors spell them (the corpus's
     * traces' deviceProperties, nvidia-smi, rocm-smi). */
    static const struct {
        const char *device, *preset;
        tp_preset_match how;
    } cases[] = {
        {"Tesla V100-SXM2-32GB", "v100_sxm2", TP_PRESET_EXACT},  /* DLRM, HTA ns_resolution */
        {"Tesla V100-SXM2-16GB", "v100_sxm2", TP_PRESET_EXACT},
        {"Tesla V100-PCIE-16GB", "v100_pcie", TP_PRESET_EXACT},
        {"Tesla V100S-PCIE-32GB", "v100_pcie", TP_PRESET_FAMILY},
        {"Tesla V100-DGXS-32GB", "v100_sxm2", TP_PRESET_FAMILY},
        {"Quadro GP100", "quadro_gp100", TP_PRESET_EXACT},       /* HTA step_based trace */
        {"Tesla P100-PCIE-16GB", "quadro_gp100", TP_PRESET_FAMILY},
        {"NVIDIA A100-PG509-200", "a100_sxm4_40gb", TP_PRESET_EXACT}, /* HTA nccl_data */
        {"NVIDIA A100-SXM4-40GB", "a100_sxm4_40gb", TP_PRESET_EXACT},
        {"NVIDIA A100-SXM4-80GB", "a100_sxm4_80gb", TP_PRESET_EXACT},
        {"NVIDIA A100 80GB PCIe", "a100_pcie_80gb", TP_PRESET_EXACT},
        {"NVIDIA A100-PCIE-40GB", "a100_pcie_40gb", TP_PRESET_EXACT},
        {"NVIDIA A100-SXM-80GB", "a100_sxm4_80gb", TP_PRESET_EXACT},
        {"NVIDIA A800-SXM4-80GB", "a100_sxm4_80gb", TP_PRESET_FAMILY},
        {"NVIDIA H100 80GB HBM3", "h100_sxm5_80gb", TP_PRESET_EXACT}, /* TraceLens BERT */
        {"NVIDIA H100 SXM5 80GB", "h100_sxm5_80gb", TP_PRESET_EXACT},
        {"NVIDIA H100 PCIe", "h100_pcie", TP_PRESET_EXACT},
        {"NVIDIA H100 NVL", "h100_nvl", TP_PRESET_EXACT},
        {"NVIDIA H800", "h100_sxm5_80gb", TP_PRESET_FAMILY},
        {"NVIDIA H200", "h200_sxm", TP_PRESET_EXACT},
        {"NVIDIA H200 NVL", "h200_nvl", TP_PRESET_EXACT},
        {"NVIDIA B200", "b200", TP_PRESET_EXACT},
        {"NVIDIA GB200", "gb200", TP_PRESET_EXACT},
        {"NVIDIA B300 SXM6 AC", "b200", TP_PRESET_FAMILY},
        {"NVIDIA GB300", "gb200", TP_PRESET_FAMILY},
        {"NVIDIA L4", "l4", TP_PRESET_EXACT},
        {"NVIDIA L40S", "l40s", TP_PRESET_EXACT},
        {"NVIDIA L40", "l40s", TP_PRESET_FAMILY},
        {"AMD Instinct MI210", "mi210", TP_PRESET_EXACT},        /* TraceLens gpu_only */
        {"AMD Instinct MI250X / MI250", "mi250x", TP_PRESET_FAMILY},
        {"AMD Instinct MI250X", "mi250x", TP_PRESET_EXACT},
        {"AMD Instinct MI250", "mi250", TP_PRESET_EXACT},
        {"AMD Instinct MI300X", "mi300x", TP_PRESET_EXACT},
        {"AMD Instinct MI300X VF", "mi300x", TP_PRESET_EXACT},
        {"AMD Instinct MI300A", "mi300x", TP_PRESET_FAMILY},
        {"AMD Instinct MI308X", "mi300x", TP_PRESET_FAMILY},
        {"AMD Instinct MI325X", "mi325x", TP_PRESET_EXACT},
        {"AMD Instinct MI355X", "mi355x", TP_PRESET_EXACT},
        {"AMD Instinct MI350X", "mi355x", TP_PRESET_FAMILY},
        {"gfx942", "mi300x", TP_PRESET_FAMILY},
        {"nvidia h100 80gb hbm3", "h100_sxm5_80gb", TP_PRESET_EXACT}, /* any case */
        {"NVIDIA A10", NULL, TP_PRESET_NO_MATCH},           /* not an A100 */
        {"NVIDIA H20", NULL, TP_PRESET_NO_MATCH},           /* not an H200 */
        {"NVIDIA GeForce RTX 4090", NULL, TP_PRESET_NO_MATCH},
        {"NVIDIA A10G 24 GB", NULL, TP_PRESET_NO_MATCH},
        {"Intel(R) Data Center GPU Max 1550", NULL, TP_PRESET_NO_MATCH},
        {"", NULL, TP_PRESET_NO_MATCH},
        {NULL, NULL, TP_PRESET_NO_MATCH},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        tp_preset_match how = TP_PRESET_EXACT;
        const tp_preset *p = tp_preset_match_device(cases[i].device, &how);
        ck_assert_msg(how == cases[i].how, "%s: match %d", cases[i].device, (int)how);
        if (cases[i].preset)
            ck_assert_str_eq(p->name, cases[i].preset);
        else
            ck_assert_ptr_null(p);
    }

    tp_stage st;
    memset(&st, 0, sizeof st);
    tp_host = tp_core_host_api();
    ck_assert_ptr_null(tp_preset_resolve(&st, NULL, "NVIDIA GeForce RTX 4090", 1));
    ck_assert_str_eq(st.error, "no preset for the trace's device 'NVIDIA GeForce RTX 4090' "
                     "(presets: " TP_TEST_PRESETS "): give preset: NAME to use one of them, or "
                     "preset_file: FILE with the device's figures (JSON or flat YAML: dram_gbps, "
                     "fp32_gflops, fp16_gflops, bf16_gflops, tf32_gflops, fp64_gflops, fp8_gflops, "
                     "fp4_gflops, l2_gbps, link_gbps, sms, l2_bytes, launch_floor_us; or a "
                     "TraceLens arch JSON); the presets and their sources: docs/presets.md");
    memset(&st, 0, sizeof st);
    ck_assert_ptr_null(tp_preset_resolve(&st, "a100", NULL, 0));
    ck_assert_str_eq(st.error, "preset: unknown preset 'a100' (presets: " TP_TEST_PRESETS ")");
    ck_assert_str_eq(tp_preset_resolve(&st, "mi300x", "NVIDIA B200", 1)->name, "mi300x");

    tp_preset p;
    char name[64];
    ck_assert_int_eq(load("dram_gbps: 1600\nlaunch_floor_us: 1.9\n", &st, &p, name, sizeof name),
                     TP_OK);
    ck_assert(p.dram_gbps == 1600 && p.launch_floor_us == 1.9);
}
END_TEST

/* A device that names no part: the nearest preset by its properties (vLLM's
 * ROCm traces: name "", compute capability 9.4, 304 CUs, 206 141 652 992
 * bytes, a HIP runtime: an MI300X). */
START_TEST(presets_by_properties)
{
    static const struct {
        const char *cc;
        int64_t sms;
        double gb;
        int amd;
        const char *preset;
    } cases[] = {
        {"9.4", 304, 206.141652992, 1, "mi300x"},
        {"9.4", 304, 274.877906944, 1, "mi325x"}, /* 256 GiB */
        {"9.4", 228, 128, 1, "mi300x"},           /* an MI300A: the family */
        {"9.0", 104, 68.7, 1, "mi210"},
        {"9.0", 110, 68.7, 1, "mi250x"},
        {"9.5", 256, 309, 1, "mi355x"},
        {"9.0", 132, 85.0, 0, "h100_sxm5_80gb"},
        {"9.0", 114, 85.0, 0, "h100_pcie"},
        {"9.0", 132, 150.0, 0, "h200_sxm"},
        {"8.0", 108, 85.1, 0, "a100_sxm4_80gb"},
        {"8.0", 108, 42.5, 0, "a100_sxm4_40gb"},
        {"7.0", 80, 34.1, 0, "v100_sxm2"},
        {"10.0", 148, 192, 0, "b200"},
        {"9.4", 304, 206, 0, NULL}, /* no CUDA part is 9.4 */
        {"7.5", 40, 16, 0, NULL},   /* a T4: no preset of its generation */
        {NULL, 0, 0, 0, NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        const tp_preset *p = tp_preset_match_props(cases[i].cc, cases[i].sms,
                                                   (int64_t)(cases[i].gb * 1e9), cases[i].amd);
        if (cases[i].preset)
            ck_assert_str_eq(p->name, cases[i].preset);
        else
            ck_assert_ptr_null(p);
    }
}
END_TEST

static Suite *sdk_presets_suite(void)
{
    Suite *s = suite_create("sdk_presets");
    TCase *tc = tcase_create("presets");
    tcase_add_test(tc, built_in_table);
    tcase_add_test(tc, preset_files);
    tcase_add_test(tc, families_and_floors);
    tcase_add_test(tc, presets_by_properties);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_presets_suite)
