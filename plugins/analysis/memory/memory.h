/*
 * memory: the allocator's events replayed (memory.c: options, results;
 * memory_replay.c: events, attribution to ops, the replay).
 */
#ifndef TP_MEMORY_H
#define TP_MEMORY_H

#include <stdint.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_iter.h>
#include <tracepipe/tp_sdk_ops.h>

typedef struct mem_config {
    int64_t max_points;
    tp_strlist module_prefixes;
} mem_config;

/* One allocator event, in time order (ts, then row). */
typedef struct mem_ev {
    int64_t ts, bytes, addr;
    int64_t allocated, reserved; /* after the event: the profiler's totals (else replayed) */
    int64_t freed_ts;            /* an allocation: when it was freed, INT64_MAX never */
    uint32_t row;
    int32_t dev;                 /* index into mem.devs */
    int32_t op, top;             /* innermost cpu op and its op (rows), -1 none */
    int32_t iter;                /* iteration index, -1 outside */
    int32_t freed_at;            /* an allocation: the free's event index, -1 never */
    uint8_t kind;                /* tp_alloc_kind */
    uint8_t has_reserved, has_addr, pre_trace; /* pre_trace: a free of an earlier block */
} mem_ev;

/* One device's figures. */
typedef struct mem_dev {
    int32_t type, id;
    char name[48];                 /* "cuda:0", "cpu" */
    int64_t n_allocs, n_frees, allocated, freed, n_pre_frees, pre_freed, n_oom;
    int64_t peak, peak_reserved;   /* -1 before any event */
    int64_t peak_ts, peak_reserved_ts;
    int32_t peak_ev;               /* event index of the peak, -1 none */
    int64_t last;                  /* level after its last event */
    int64_t live_at_peak, n_unfreed, unfreed;
    uint8_t has_reserved;
} mem_dev;

typedef struct mem {
    tp_stage *st;
    const mem_config *cfg;
    tp_trace *t;
    const tp_cols *c;
    tp_iter_view iv;
    int64_t t0;
    mem_ev *ev;
    size_t nev;
    mem_dev *devs;
    size_t ndevs;
} mem;

/* Collects the allocator events of the trace in time order, their devices
 * and iterations, and attributes them to ops (needs hierarchy). */
int mem_collect(mem *m);
/* Replays them: totals, peaks, frees paired with allocations by address. */
int mem_replay(mem *m);

/* <id>.iterations' columns (declared in memory_results.c, written in memory_iter.c). */
#define MEM_ITER_COLS(X, P)                                                                     \
    X(P, iteration, I64, NULL, "the iteration (step number)")                                  \
    X(P, device_name, STR, NULL, "the device")                                                 \
    X(P, peak_allocated_bytes, I64, "bytes", "most bytes allocated at once in the iteration "  \
                                             "(the level it began with included)")            \
    X(P, peak_us, F64, "us", "when, from the trace's t0 (the iteration's start when it "       \
                             "began at its peak)")                                             \
    X(P, n_allocs, I64, "count", "allocations in the iteration")                               \
    X(P, allocated_bytes, I64, "bytes", "their bytes")                                         \
    X(P, freed_bytes, I64, "bytes", "bytes freed in the iteration")

/* The results every configuration makes (memory_results.c). */
extern const tp_result_decl mem_results[];
/* Writes every result. */
int mem_write_results(mem *m);
/* <id>.iterations (memory_iter.c); order: the devices in output order. */
int mem_write_iterations(mem *m, tp_result *r, const uint32_t *order);

/* Is allocation i live at its device's peak (after mem_replay)? */
int mem_is_live_at_peak(const mem *m, size_t i);

static inline double mem_us(int64_t ns) { return (double)ns / 1000.0; }

#endif
