/*
 * tracepipe SDK: a trace's extension columns as arrays, read once per
 * stage and trace.  tp_trace_ext_data makes a compact column an array the
 * first time a stage asks (issue 31) and returns NULL when that allocation
 * fails; these helpers tell that apart from a column the trace does not
 * have, so a stage reports it (TP_ENOMEM) instead of reading "absent".
 * Ask once, keep the pointer for the rows (tp_trace_ext_data takes a lock):
 * it stays valid until the trace grows.
 */
#ifndef TRACEPIPE_TP_SDK_EXT_H
#define TRACEPIPE_TP_SDK_EXT_H

#include <stddef.h>

#include "tp_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Column col's cells (an array of its type): TP_OK and *cells, *cells
 * NULL when col < 0 (absent); TP_ENOMEM (*cells NULL) when the column
 * exists but could not be made an array. */
int tp_ext_column_at(const tp_trace *t, int col, const void **cells);

/* The cells of the column named name when it has type type: TP_OK and
 * *cells (NULL when the trace has no such column, or has it with another
 * type), or TP_ENOMEM as tp_ext_column_at. */
int tp_ext_column_cells(const tp_trace *t, const char *name, tp_coltype type,
                        const void **cells);

#ifdef __cplusplus
}
#endif

#endif
