/* Allocator events (include/tracepipe/tp_sdk_alloc.h). */
#include <string.h>

#include "tracepipe/tp_sdk_alloc.h"
#include "tracepipe/tp_sdk_json.h"
#include "tracepipe/tp_types.h"

/* The allocator's event names, by kind (PyTorch's profiler; Kineto). */
static const struct {
    const char *name;
    tp_alloc_kind kind;
} alloc_names[] = {
    {"[memory]", TP_ALLOC_MEMORY},
    {"[OutOfMemory]", TP_ALLOC_OOM},
};

tp_alloc_kind tp_alloc_kind_of(const char *name)
{
    for (size_t i = 0; name && i < sizeof alloc_names / sizeof alloc_names[0]; i++)
        if (strcmp(name, alloc_names[i].name) == 0)
            return alloc_names[i].kind;
    return TP_ALLOC_NONE;
}

const char *tp_alloc_kind_name(tp_alloc_kind k)
{
    static const char *const names[TP_ALLOC__COUNT] = {"none", "memory", "out_of_memory"};
    return (unsigned)k < TP_ALLOC__COUNT ? names[k] : names[0];
}

/* One integer field; 1 when present and numeric. */
static int field_i64(const char *args, size_t len, const char *key, int64_t *out)
{
    size_t vlen;
    const char *v = tp_json_get(args, len, key, &vlen);
    double d;
    if (v == NULL)
        return 0;
    if (tp_json_i64(v, vlen, out) == TP_OK)
        return 1;
    if (tp_json_f64(v, vlen, &d) != TP_OK)
        return 0;
    *out = tp_f64_to_i64(d);
    return 1;
}

static int32_t narrow(int64_t v)
{
    return v < INT32_MIN ? INT32_MIN : v > INT32_MAX ? INT32_MAX : (int32_t)v;
}

void tp_alloc_event_read(const char *args, size_t len, tp_alloc_event *e)
{
    int64_t type = 0, id = -1;
    memset(e, 0, sizeof *e);
    e->has_bytes = (uint8_t)field_i64(args, len, "Bytes", &e->bytes);
    e->has_total_allocated = (uint8_t)field_i64(args, len, "Total Allocated", &e->total_allocated);
    e->has_total_reserved = (uint8_t)field_i64(args, len, "Total Reserved", &e->total_reserved);
    e->has_addr = (uint8_t)field_i64(args, len, "Addr", &e->addr);
    e->has_device_type = (uint8_t)field_i64(args, len, "Device Type", &type);
    field_i64(args, len, "Device Id", &id);
    e->device_type = narrow(type);
    e->device_id = narrow(id);
}

const char *tp_alloc_device_type_name(int32_t type)
{
    /* c10/core/DeviceType.h, in its order */
    static const char *const names[] = {
        "cpu",  "cuda",   "mkldnn", "opengl", "opencl", "ideep", "hip",  "fpga",
        "maia", "xla",    "vulkan", "metal",  "xpu",    "mps",   "meta", "hpu",
        "ve",   "lazy",   "ipu",    "mtia",   "privateuseone"};
    return type >= 0 && (size_t)type < sizeof names / sizeof names[0] ? names[type] : NULL;
}
