/*
 * Memory kinds of a copy's source and destination (issue 29: advice's
 * pageable_memcpy): one vocabulary for every format.  Kineto names them in
 * the copy's name ("Memcpy HtoD (Pageable -> Device)"); Nsight Systems
 * exports record them as numbers (CUPTI_ACTIVITY_KIND_MEMCPY srcKind,
 * dstKind, labelled by the export's ENUM_CUDA_MEM_KIND), which the nsys
 * readers translate into the extension columns below.
 */
#ifndef TRACEPIPE_TP_SDK_MEMKIND_H
#define TRACEPIPE_TP_SDK_MEMKIND_H

#include <stddef.h>
#include <stdint.h>

#include "tp_plugin.h"

typedef enum tp_memkind {
    TP_MEMKIND_UNKNOWN = 0,
    TP_MEMKIND_PAGEABLE,
    TP_MEMKIND_PINNED,
    TP_MEMKIND_DEVICE,
    TP_MEMKIND_ARRAY,
    TP_MEMKIND_MANAGED,
    TP_MEMKIND_DEVICE_STATIC,
    TP_MEMKIND_MANAGED_STATIC
} tp_memkind;

/* Extension columns (TP_COL_I64, a tp_memkind; null when not recorded)
 * a reader fills for the copies it knows the memory kinds of. */
#define TP_EXT_MEMCPY_SRC_KIND "memcpy.src_kind"
#define TP_EXT_MEMCPY_DST_KIND "memcpy.dst_kind"

/* A kind's word, case and spaces or underscores ignored: "Pageable",
 * "pinned", "Device Static", "MANAGED_STATIC"; TP_MEMKIND_UNKNOWN for any
 * other. */
tp_memkind tp_memkind_of_word(const char *s, size_t len);

/* An Nsight Systems export's memory kind number as ENUM_CUDA_MEM_KIND
 * numbers them when the export carries no such table (0 pageable, 1
 * pinned, 2 device, 3 array, 4 managed, 5 device static, 6 managed static,
 * 7 unknown: FORMATS.md 1.4; CUPTI's own enum starts at 1 for pageable). */
tp_memkind tp_memkind_of_nsys(int64_t id);

/* The word of a kind ("pageable", ..., "unknown"). */
const char *tp_memkind_name(tp_memkind k);

/* A trace's memory kind columns (TP_EXT_MEMCPY_SRC_KIND's and _DST_KIND's
 * cells, NULL when absent), read once per stage and trace by
 * tp_memkind_columns: TP_OK, or TP_ENOMEM when a column exists but could
 * not be read as an array (tp_sdk_ext.h; the stage reports it). */
typedef struct tp_memkind_cols {
    const int64_t *src, *dst;
    size_t n; /* rows */
} tp_memkind_cols;
int tp_memkind_columns(const tp_trace *t, tp_memkind_cols *m);

/* A copy's memory kinds: from the columns m when the trace has them for
 * this row, else from its name's "(SRC -> DST)".  1 when either is known,
 * else 0 (both TP_MEMKIND_UNKNOWN). */
int tp_memcpy_kinds_at(const tp_memkind_cols *m, size_t row, const char *name, tp_memkind *src,
                    tp_memkind *dst);

#endif
