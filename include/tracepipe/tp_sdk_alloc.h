/*
 * tracepipe SDK: allocator events, the one place that knows how profilers
 * record memory allocations (part of the SDK, tp_sdk.h).
 *
 * PyTorch's profiler (profile_memory=True) writes every allocation and free
 * of its caching allocator as an instant event named "[memory]" and every
 * failed allocation as "[OutOfMemory]", with args
 *   Bytes            the block's size: > 0 an allocation, < 0 a free
 *   Total Allocated  bytes allocated on the device after the event
 *   Total Reserved   bytes the allocator holds (reserved) after the event
 *   Device Type      c10::DeviceType (0 cpu, 1 cuda, ...), Device Id
 *   Addr             the block's address (pairs a free with its allocation)
 * The event names are a table here (docs/vocabulary.md, "Allocator
 * events"), never literals in a plugin.
 */
#ifndef TRACEPIPE_TP_SDK_ALLOC_H
#define TRACEPIPE_TP_SDK_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What an event is to the allocator. */
typedef enum tp_alloc_kind {
    TP_ALLOC_NONE = 0, /* not an allocator event */
    TP_ALLOC_MEMORY,   /* an allocation or a free ("[memory]") */
    TP_ALLOC_OOM,      /* an allocation that failed ("[OutOfMemory]") */
    TP_ALLOC__COUNT
} tp_alloc_kind;

/* The allocator kind of an event name (the whole name). */
tp_alloc_kind tp_alloc_kind_of(const char *name);

/* "memory", "out_of_memory"; "none" for TP_ALLOC_NONE. */
const char *tp_alloc_kind_name(tp_alloc_kind k);

/* One allocator event's args.  A field the event lacks keeps its has_ flag
 * 0 (its value 0; device_id -1). */
typedef struct tp_alloc_event {
    int64_t bytes, total_allocated, total_reserved, addr;
    int32_t device_type, device_id;
    uint8_t has_bytes, has_total_allocated, has_total_reserved, has_addr, has_device_type;
} tp_alloc_event;

/* Reads an allocator event's args object (raw JSON text, as
 * tp_trace_args gives it); numbers written as reals are truncated.
 * Always fills *e (absent fields as above). */
void tp_alloc_event_read(const char *args, size_t len, tp_alloc_event *e);

/* The name of a c10::DeviceType ("cpu", "cuda", "hip", "xpu", "mps", ...),
 * or NULL for a value it does not know. */
const char *tp_alloc_device_type_name(int32_t type);

#ifdef __cplusplus
}
#endif
#endif
