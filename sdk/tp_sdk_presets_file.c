/* SDK: a user's device preset file (tp_sdk_presets.h, tp_preset_load). */
#include <tracepipe/tp_sdk_presets.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_json.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The figures a file may give, tracepipe's names (GFLOP/s and GB/s). */
static double *preset_field(tp_preset *p, const char *key, size_t len)
{
#define TP_PRESET_KEY(K, F) if (len == sizeof(K) - 1 && memcmp(key, K, len) == 0) return &p->F
    TP_PRESET_KEY("dram_gbps", dram_gbps);
    TP_PRESET_KEY("l2_gbps", l2_gbps);
    TP_PRESET_KEY("l2_bytes", l2_bytes);
    TP_PRESET_KEY("fp32_gflops", fp32);
    TP_PRESET_KEY("tf32_gflops", tf32);
    TP_PRESET_KEY("fp16_gflops", fp16);
    TP_PRESET_KEY("bf16_gflops", bf16);
    TP_PRESET_KEY("launch_floor_us", launch_floor_us);
    TP_PRESET_KEY("link_gbps", link_gbps);
#undef TP_PRESET_KEY
    return NULL;
}

static int preset_number(tp_stage *st, const char *path, const char *key, const char *v,
                         size_t vlen, double *out)
{
    if (tp_json_f64(v, vlen, out) != TP_OK || !(*out >= 0))
        return tp_fail(st, TP_EINVAL, "%s: '%s' is not a number >= 0: '%.*s'", path, key,
                       vlen > 40 ? 40 : (int)vlen, v);
    return TP_OK;
}

/* TraceLens's arch JSON: mem_bw_gbps and max_achievable_tflops{matrix_*,
 * vector_*} in TFLOP/s.  fp32 is the vector rate (matrix_fp32 when there is
 * none), tf32 matrix_tf32 else matrix_fp32. */
static int preset_tracelens(tp_stage *st, const char *path, const char *text, size_t len,
                            tp_preset *p)
{
    static const char *const keys[][2] = {{"vector_fp32", NULL}, {"matrix_tf32", "matrix_fp32"},
                                          {"matrix_fp16", NULL}, {"matrix_bf16", NULL}};
    double *fields[] = {&p->fp32, &p->tf32, &p->fp16, &p->bf16};
    size_t vlen, mlen;
    const char *v = tp_json_get(text, len, "mem_bw_gbps", &vlen);
    const char *maf = tp_json_get(text, len, "max_achievable_tflops", &mlen);
    int rc = v ? preset_number(st, path, "mem_bw_gbps", v, vlen, &p->dram_gbps) : TP_OK;
    for (size_t i = 0; maf && rc == TP_OK && i < 4; i++) {
        for (size_t k = 0; k < 2 && keys[i][k]; k++) {
            const char *f = tp_json_get(maf, mlen, keys[i][k], &vlen);
            if (f == NULL)
                continue;
            rc = preset_number(st, path, keys[i][k], f, vlen, fields[i]);
            *fields[i] *= 1e3; /* TFLOP/s -> GFLOP/s */
            break;
        }
    }
    const char *m32 = maf ? tp_json_get(maf, mlen, "matrix_fp32", &vlen) : NULL;
    if (rc == TP_OK && p->fp32 == 0 && m32) {
        rc = preset_number(st, path, "matrix_fp32", m32, vlen, &p->fp32);
        p->fp32 *= 1e3;
    }
    return rc;
}

/* A flat YAML mapping of tracepipe's keys: "key: value" lines, # comments. */
static int preset_yaml(tp_stage *st, const char *path, char *text, tp_preset *p, char *name,
                       size_t namesz)
{
    int lineno = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        lineno++;
        char *hash = strchr(line, '#'), *colon;
        if (hash)
            *hash = '\0';
        while (*line == ' ' || *line == '\t' || *line == '\r')
            line++;
        if (*line == '\0')
            continue;
        if ((colon = strchr(line, ':')) == NULL)
            return tp_fail(st, TP_EINVAL, "%s: line %d: not 'key: value' (a preset file is JSON "
                           "or a flat YAML mapping)", path, lineno);
        char *key = line, *val = colon + 1, *end = colon;
        while (end > key && (end[-1] == ' ' || end[-1] == '\t'))
            end--;
        *end = '\0';
        while (*val == ' ' || *val == '\t')
            val++;
        size_t vlen = strlen(val);
        while (vlen && (val[vlen - 1] == ' ' || val[vlen - 1] == '\r' || val[vlen - 1] == '\t'))
            val[--vlen] = '\0';
        if (vlen >= 2 && (val[0] == '"' || val[0] == '\'') && val[vlen - 1] == val[0])
            val[--vlen] = '\0', val++, vlen--;
        if (strcmp(key, "name") == 0) {
            snprintf(name, namesz, "%s", val);
            continue;
        }
        double *f = preset_field(p, key, strlen(key));
        double sms;
        if (strcmp(key, "sms") == 0) {
            if (preset_number(st, path, key, val, vlen, &sms) != TP_OK)
                return TP_EINVAL;
            p->sms = (int)sms;
            continue;
        }
        if (f == NULL)
            return tp_fail(st, TP_EINVAL, "%s: line %d: unknown key '%s' (name, sms, l2_bytes, "
                           "dram_gbps, l2_gbps, fp32_gflops, tf32_gflops, fp16_gflops, "
                           "bf16_gflops, launch_floor_us, link_gbps)", path, lineno, key);
        if (preset_number(st, path, key, val, vlen, f) != TP_OK)
            return TP_EINVAL;
    }
    return TP_OK;
}

int tp_preset_load(tp_stage *st, const char *path, tp_preset *p, char *name, size_t namesz)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return tp_fail(st, TP_EIO, "preset_file %s: %s", path, strerror(errno));
    char *text = malloc((1u << 20) + 1);
    size_t len = text ? fread(text, 1, 1u << 20, f) : 0;
    int big = text && len == (1u << 20) && fgetc(f) != EOF;
    fclose(f);
    if (text == NULL)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    if (big) {
        free(text);
        return tp_fail(st, TP_EINVAL, "preset_file %s: larger than 1 MiB, not a preset", path);
    }
    text[len] = '\0';
    memset(p, 0, sizeof *p);
    snprintf(name, namesz, "%s", path);
    size_t i = 0, vlen;
    while (i < len && (text[i] == ' ' || text[i] == '\n' || text[i] == '\r' || text[i] == '\t'))
        i++;
    int rc = TP_OK;
    if (i < len && text[i] == '{') {
        const char *v = tp_json_get(text, len, "name", &vlen);
        char buf[128];
        if (v && tp_json_str(v, vlen, buf, sizeof buf) >= 0)
            snprintf(name, namesz, "%s", buf);
        if (tp_json_get(text, len, "max_achievable_tflops", &vlen) ||
            tp_json_get(text, len, "mem_bw_gbps", &vlen)) {
            rc = preset_tracelens(st, path, text, len, p);
        } else {
            static const char *const keys[] = {"dram_gbps", "l2_gbps", "l2_bytes", "fp32_gflops",
                                               "tf32_gflops", "fp16_gflops", "bf16_gflops",
                                               "launch_floor_us", "link_gbps"};
            for (size_t k = 0; rc == TP_OK && k < sizeof keys / sizeof *keys; k++)
                if ((v = tp_json_get(text, len, keys[k], &vlen)) != NULL)
                    rc = preset_number(st, path, keys[k], v, vlen,
                                          preset_field(p, keys[k], strlen(keys[k])));
            double sms = 0;
            if (rc == TP_OK && (v = tp_json_get(text, len, "sms", &vlen)) != NULL &&
                (rc = preset_number(st, path, "sms", v, vlen, &sms)) == TP_OK)
                p->sms = (int)sms;
        }
    } else {
        rc = preset_yaml(st, path, text, p, name, namesz);
    }
    free(text);
    if (rc == TP_OK && p->dram_gbps == 0 && p->fp32 == 0 && p->tf32 == 0 && p->fp16 == 0 &&
        p->bf16 == 0)
        rc = tp_fail(st, TP_EINVAL, "preset_file %s: no bandwidth or FLOP rate in it "
                     "(dram_gbps, fp32_gflops ...; or TraceLens's mem_bw_gbps, "
                     "max_achievable_tflops)", path);
    p->name = name;
    return rc;
}
