/*
 * Trace info from a Kineto file's metadata (docs/plugins/kineto.md):
 * format, label, rank and world_size from distributedInfo, t0_ns from
 * baseTimeNanoseconds, and per device (deviceProperties, an 8-GPU job lists
 * all 8) its name, SM count, memory and compute capability.  Metadata
 * values are small JSON texts kept by the parser, read here with jansson.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "kin.h"

static json_t *meta_json(tp_trace *t, const char *key)
{
    const char *text = tp_trace_meta(t, key);
    return text ? json_loads(text, JSON_DECODE_ANY, NULL) : NULL;
}

static int put_int(kin_parser *kp, const char *key, json_t *v)
{
    if (json_is_integer(v))
        return tp_trace_info_set_i64(kp->st, kp->trace, key, json_integer_value(v));
    return TP_OK;
}

static int put_device(kin_parser *kp, json_t *dev)
{
    json_t *id = json_object_get(dev, "id");
    if (!json_is_integer(id))
        return TP_OK;
    char key[96];
    long long ord = (long long)json_integer_value(id);
    int rc = TP_OK;
    json_t *name = json_object_get(dev, "name");
    if (json_is_string(name)) {
        snprintf(key, sizeof key, "device.%lld.name", ord);
        rc = tp_trace_info_set_str(kp->st, kp->trace, key, json_string_value(name));
    }
    snprintf(key, sizeof key, "device.%lld.sm_count", ord);
    if (rc == TP_OK)
        rc = put_int(kp, key, json_object_get(dev, "numSms"));
    snprintf(key, sizeof key, "device.%lld.memory_bytes", ord);
    if (rc == TP_OK)
        rc = put_int(kp, key, json_object_get(dev, "totalGlobalMem"));
    json_t *major = json_object_get(dev, "computeMajor"), *minor = json_object_get(dev, "computeMinor");
    if (rc == TP_OK && json_is_integer(major) && json_is_integer(minor)) {
        char cc[48];
        snprintf(cc, sizeof cc, "%lld.%lld", (long long)json_integer_value(major),
                 (long long)json_integer_value(minor));
        snprintf(key, sizeof key, "device.%lld.compute_capability", ord);
        rc = tp_trace_info_set_str(kp->st, kp->trace, key, cc);
    }
    return rc;
}

/* The file name without its folder and trace extensions (.gz, .json,
 * .pt.trace / .trace): "rank0.pt.trace.json.gz" -> "rank0". */
static void trace_label(const char *path, char *out, size_t size)
{
    const char *slash = strrchr(path, '/');
    snprintf(out, size, "%s", slash ? slash + 1 : path);
    static const char *const exts[] = {".gz", ".json", ".trace", ".pt"};
    for (size_t i = 0; i < sizeof exts / sizeof exts[0]; i++) {
        size_t n = strlen(out), k = strlen(exts[i]);
        if (n > k && strcmp(out + n - k, exts[i]) == 0)
            out[n - k] = '\0';
    }
}

int kin_fill_info(kin_parser *kp)
{
    char label[512];
    trace_label(kp->path, label, sizeof label);
    int rc = tp_trace_info_set_str(kp->st, kp->trace, "format", "kineto");
    if (rc == TP_OK)
        rc = tp_trace_info_set_str(kp->st, kp->trace, "label", label);
    json_t *dist = meta_json(kp->trace, "distributedInfo");
    if (rc == TP_OK && json_is_object(dist)) {
        rc = put_int(kp, "rank", json_object_get(dist, "rank"));
        if (rc == TP_OK)
            rc = put_int(kp, "world_size", json_object_get(dist, "world_size"));
    }
    json_decref(dist);
    json_t *base = meta_json(kp->trace, "baseTimeNanoseconds");
    if (rc == TP_OK)
        rc = put_int(kp, "t0_ns", base);
    json_decref(base);
    json_t *devs = meta_json(kp->trace, "deviceProperties");
    size_t i;
    json_t *dev;
    json_array_foreach(devs, i, dev)
    {
        if (rc == TP_OK && json_is_object(dev))
            rc = put_device(kp, dev);
    }
    json_decref(devs);
    return rc == TP_OK ? TP_OK : tp_fail(kp->st, rc, "%s: cannot store trace info", kp->path);
}
