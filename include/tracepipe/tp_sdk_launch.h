/*
 * tracepipe SDK: a kernel's launch configuration (issue 27, kernels without
 * an op): grid, block, registers per thread and shared memory, from
 * Kineto's args ("grid": [x, y, z], "block": [x, y, z], "registers per
 * thread", "shared memory") or the nsys readers' extension columns
 * (kernel.grid_x ... kernel.dynamic_shared_bytes).  Two launches of one
 * kernel with the same configuration did the same work when the kernel's
 * work follows its grid (predict's "identical launch").
 */
#ifndef TRACEPIPE_TP_SDK_LAUNCH_H
#define TRACEPIPE_TP_SDK_LAUNCH_H

#include <stddef.h>
#include <stdint.h>

#include "tp_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_kernel_launch {
    int64_t grid[3], block[3];
    int64_t registers;    /* per thread; -1: not recorded */
    int64_t shared_bytes; /* static + dynamic; -1: not recorded */
} tp_kernel_launch;

/* Where a trace keeps launches: its extension columns (-1: absent) and
 * their cells, found once per trace by tp_kernel_launch_source: TP_OK, or
 * TP_ENOMEM when a column exists but could not be read as an array
 * (tp_sdk_ext.h; the stage reports it, the source then reads none). */
typedef struct tp_launch_source {
    int ext[9]; /* grid x y z, block x y z, registers, static and dynamic shared bytes */
    const void *cells[9]; /* their cells (NULL: absent); since 3.4 */
    int i64[9];           /* 1: TP_COL_I64 cells, 0: TP_COL_I32; since 3.4 */
} tp_launch_source;

int tp_kernel_launch_source(const tp_trace *t, tp_launch_source *s);

/* 1 and *k filled when the trace records kernel row's grid and block,
 * else 0. */
int tp_kernel_launch_of(const tp_trace *t, const tp_launch_source *s, size_t row,
                        tp_kernel_launch *k);

/* Orders launches (grid, block, registers, shared bytes; a field not
 * recorded, any negative value, equals another not recorded): 0 when they
 * are identical, as their texts (tp_kernel_launch_text) are equal. */
int tp_kernel_launch_cmp(const tp_kernel_launch *a, const tp_kernel_launch *b);

/* The launch as text ("grid 1x2x3 block 128x1x1 regs 32 smem 0", the
 * fields not recorded left out), for a key or a reason; the length
 * written (snprintf's). */
int tp_kernel_launch_text(const tp_kernel_launch *k, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
