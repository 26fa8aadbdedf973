/* device_breakdown plugin: state shared by its source files. */
#ifndef TP_DEVB_INTERNAL_H
#define TP_DEVB_INTERNAL_H

#include <tracepipe/tp_plugin.h>

typedef struct db_config {
    int64_t depth;
    int64_t truncate;
    int short_names;
    int merge_ops;
} db_config;

typedef struct db_stream {
    int32_t device, stream;
    size_t first, count; /* its activities: by_stream[first .. first + count) */
    int64_t active;      /* ns covered by at least one of them */
} db_stream;

/* An activity, grouped by stream, with the host op it is shown under (-1:
 * directly under the stream node). */
typedef struct db_act {
    int32_t row, owner;
} db_act;

/*
 * Memory: everything per host event is indexed by the event's position in
 * the forest's pre-order (pos[row]), everything per activity by its index
 * in by_stream, so only pos[] has one cell per trace row.  int32 rows and
 * positions: the plugin refuses traces of 2^31 rows or more.
 */
typedef struct db {
    tp_stage *st;
    const db_config *cfg;
    const tp_trace *t; /* the trace (its window) */
    const tp_cols *c;
    const int32_t *parent, *first_child, *next_sibling, *roots, *launcher; /* hierarchy */
    size_t nroots;
    size_t nacts;
    int32_t *pre; /* host forest rows in pre-order */
    size_t npre;
    int32_t *pos; /* per row: its index in pre (host rows only), -1 elsewhere */
    db_act *by_stream; /* activities sorted by (device, stream, row) */
    int32_t *touched; /* pre-order positions whose dt the current stream set */
    size_t ntouched;
    uint8_t *mark; /* per position: in touched */
    /* per pass, for touched positions only: their touched host children
     * (positions) and the activities they own on this stream (by_stream
     * indexes), as linked lists (-1 = end) */
    int32_t *tfirst, *tnext; /* per position */
    int32_t *ofirst;         /* per position */
    int32_t *onext;          /* per activity */
    int32_t top_first; /* activities owned by the stream node */
    db_stream *streams; /* distinct (device, stream), sorted */
    size_t nstreams;
    int multi_device;
    tp_str *short_memo; /* per name id: shortened id + 1, 0 = not yet */
    uint8_t *module_memo; /* per name id: 0 unknown, 1 module-like, 2 not */
    size_t nnames;
    /* the stream being written */
    int all;
    int32_t dev, stream;
    size_t cur_first, cur_count; /* its activities in by_stream (all: every one) */
    int64_t *dt; /* device time per position */
    int64_t total_ns, unlinked_ns, count;
} db;

/* With merge_ops: row r is an op that gathers its subtree's activities. */
int db_is_merge_op(db *d, int64_t r);

/* Collects activities, owners, the pre-order and the stream list. */
int db_prepare(db *d);

/* Writes <id>.streams. */
int db_write_streams(db *d);
int db_write_devices(db *d);

#endif
