/* Core-internal, the hand-off module's own (tp_trace_handoff.c writes,
 * tp_trace_handoff_load.c loads): what both sides of the file agree on. */
#ifndef TRACEPIPE_TP_HANDOFF_IMPL_H
#define TRACEPIPE_TP_HANDOFF_IMPL_H

#include <stddef.h>
#include <string.h>

#include "tp_trace_impl.h"

static const char tp_handoff_magic[8] = {'T', 'P', 'H', 'A', 'N', 'D', 'O', 'F'};
#define HANDOFF_VERSION 3u /* 2: the input file's ctime; 3: the own args file's data ranges */
#define BYTE_ORDER_MARK 0x01020304u
#define IO_BUFFER (1u << 20)

/* The row columns in file order (the args columns last, when present):
 * each array and its bytes per row.  The one list both sides follow; the
 * args columns are written a row each also when the trace holds them
 * sparse (put_rows), and loaded dense, then settled. */
typedef struct row_column {
    void *data;
    size_t size;
} row_column;
#define ROW_COLUMNS 12

static inline size_t row_columns(const tp_trace *t, row_column *c)
{
    row_column v[ROW_COLUMNS] = {
        {t->ts, sizeof *t->ts},           {t->dur, sizeof *t->dur},
        {t->ext_id, sizeof *t->ext_id},   {t->corr, sizeof *t->corr},
        {t->flow_id, sizeof *t->flow_id}, {t->name, sizeof *t->name},
        {t->cat, sizeof *t->cat},         {t->track, sizeof *t->track},
        {t->kind, 1},                     {t->phase, 1},
        {t->args_off, sizeof *t->args_off}, {t->args_len, sizeof *t->args_len}};
    size_t n = ROW_COLUMNS - (t->args_off && !t->args_words ? 0 : 2); /* sparse: by rows */
    memcpy(c, v, n * sizeof *v);
    return n;
}

#endif
