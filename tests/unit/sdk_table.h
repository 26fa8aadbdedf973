/* Hand-made event tables for the SDK suites (check_sdk_trace.c,
 * check_sdk_markers.c): rows given as specs, tracks made per (pid, tid). */
#ifndef TRACEPIPE_TESTS_SDK_TABLE_H
#define TRACEPIPE_TESTS_SDK_TABLE_H

#include <tracepipe/tp_plugin.h>

/* One row of a hand-made table. */
typedef struct spec {
    char ph;
    tp_kind kind;
    int64_t pid, tid, ts, dur;
    int32_t corr, flow; /* -1: none */
    tp_str name, cat;
} spec;

#define MAXR 32
typedef struct table {
    tp_cols c;
    int64_t ts[MAXR], dur[MAXR];
    tp_str name[MAXR], cat[MAXR];
    uint32_t track[MAXR];
    uint8_t kind[MAXR], phase[MAXR];
    int32_t ext[MAXR], corr[MAXR], flow[MAXR];
    tp_track tracks[MAXR];
} table;

/* Fills t with rows s[0, n) (n <= MAXR) and points tp_host at the core's
 * host table (the SDK allocates through it). */
void sdk_table_fill(table *t, const spec *s, size_t n);

#endif
