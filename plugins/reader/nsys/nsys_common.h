/* nsys readers (SQLite and JSON lines): what both need to map rows alike
 * (FORMATS.md 1.4-1.5, 2.5). */
#ifndef TRACEPIPE_NSYS_COMMON_H
#define TRACEPIPE_NSYS_COMMON_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

/* Extension columns the readers fill. */
enum { X_GRID_X, X_GRID_Y, X_GRID_Z, X_BLOCK_X, X_BLOCK_Y, X_BLOCK_Z, X_REGS, X_SMEM_STATIC,
       X_SMEM_DYNAMIC, X_BYTES, X_COPY_KIND, X_SRC_KIND, X_DST_KIND, N_X };
static const char *const nsys_ext_names[N_X] = {
    "kernel.grid_x", "kernel.grid_y", "kernel.grid_z", "kernel.block_x", "kernel.block_y",
    "kernel.block_z", "kernel.registers", "kernel.static_shared_bytes",
    "kernel.dynamic_shared_bytes", "memory.bytes", "memcpy.kind", TP_EXT_MEMCPY_SRC_KIND,
    TP_EXT_MEMCPY_DST_KIND};

/* An event with every id and place "none": what each row starts from. */
static inline tp_event nsys_base_event(void)
{
    tp_event e;
    memset(&e, 0, sizeof e);
    e.phase = 'X';
    e.ext_id = e.corr = e.flow_id = TP_NONE;
    e.device = e.stream = -1;
    return e;
}

/* globalTid / globalPid: tid in bits 0-23, pid in bits 24-47 (the upper
 * bits, the VM or host, masked off). */
static inline int64_t pid_of(int64_t g) { return (g >> 24) & 0xFFFFFF; }
static inline int64_t tid_of(int64_t g) { return g & 0xFFFFFF; }

/* "cudaLaunchKernel_v7000" -> "cudaLaunchKernel". */
static inline size_t unversioned(const char *s, size_t len)
{
    size_t i = len;
    while (i > 0 && s[i - 1] >= '0' && s[i - 1] <= '9')
        i--;
    if (i >= 2 && i < len && s[i - 1] == 'v' && s[i - 2] == '_')
        return i - 2;
    return len;
}

static inline const char *copy_kind(int64_t k)
{
    switch (k) {
    case 1: return "HtoD";
    case 2: return "DtoH";
    case 3: return "HtoA";
    case 4: return "AtoH";
    case 5: return "AtoA";
    case 6: return "AtoD";
    case 7: return "DtoA";
    case 8: return "DtoD";
    case 9: return "HtoH";
    case 10: return "PtoP";
    default: return "Unknown";
    }
}

/* The trace's label: the file name without its export suffix. */
static inline int nsys_set_label(tp_stage *st, tp_trace *t, const char *path)
{
    const char *base = strrchr(path, '/');
    char label[256];
    snprintf(label, sizeof label, "%s", base ? base + 1 : path);
    static const char *const suffixes[] = {".sqlite", ".json", ".jsonl"};
    for (size_t i = 0; i < sizeof suffixes / sizeof *suffixes; i++) {
        size_t len = strlen(label), k = strlen(suffixes[i]);
        if (len > k && strcmp(label + len - k, suffixes[i]) == 0)
            label[len - k] = '\0';
    }
    return tp_trace_info_set_str(st, t, "label", label);
}

#include "nsys_tables.h"

/* Whether the SQLite export holds a table of that name; a query that
 * cannot run or step sets *broken (when given) and finds none. */
static inline int nsys_has_table(sqlite3 *db, const char *name, int *broken)
{
    sqlite3_stmt *q;
    int step = SQLITE_ERROR;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1, &q,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
        step = sqlite3_step(q);
        sqlite3_finalize(q);
    }
    if (broken != NULL && step != SQLITE_ROW && step != SQLITE_DONE)
        *broken = 1;
    return step == SQLITE_ROW;
}

/* Option kernel_name of both readers: a kernel is named by its demangled
 * signature, as Kineto (CUPTI) names it, so a run profiled both ways compares
 * kernel by kernel, or by nsys's short name (`saxpy`), which merges every
 * instantiation of a template into one row. */
static const char *const nsys_kernel_name_choices[] = {"demangled", "short", NULL};
#define NSYS_KERNEL_NAME_OPTION(config)                                                          \
    TP_OPTION_CHOICE("kernel_name", config, kernel_name, "demangled", nsys_kernel_name_choices, \
                     "name kernels by their demangled signature (as Kineto) or by nsys's "     \
                     "short name")

static inline int nsys_short_names(const char *kernel_name)
{
    return kernel_name != NULL && strcmp(kernel_name, "short") == 0;
}

/* The kernel's name by the option: the demangled one, else (absent or
 * empty) the short one. */
static inline tp_str nsys_kernel_name(int short_names, tp_str demangled, tp_str short_name)
{
    return short_names || demangled == 0 ? short_name : demangled;
}

/* The JSON-lines reader (nsys_json.c), registered beside the SQLite one. */
typedef struct nj_config {
    const char *path;
    const char *kernel_name;
} nj_config;
extern const tp_option nsys_json_options[];
int nsys_json_run(tp_stage *st, const void *config, void *state);
int nsys_json_probe(const unsigned char *head, size_t n, const char *path);

#endif
