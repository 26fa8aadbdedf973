/* Core-internal: traces: columns and rows (tp_trace.c), args and metadata
 * (tp_trace_meta.c), filtered copies (tp_trace_filter.c), facts and extension
 * columns (tp_trace_ext.c). */
#ifndef TRACEPIPE_TP_TRACE_H
#define TRACEPIPE_TP_TRACE_H

#include "tp_core.h"
#include "tp_strpool.h"

#include <stdbool.h>

tp_trace *tp_trace_new(tp_strpool *pool);
void tp_trace_free(tp_trace *t);
const tp_cols *tp_trace_columns(const tp_trace *t);
int tp_trace_reserve_rows(tp_trace *t, size_t n);
/* The args slots dense (a slot per row) or sparse (per row with args),
 * whichever takes less memory for the rows now (tp_trace_args.c): after a
 * reader, a filter or a hand-off load; also as the rows grow. */
void tp_trace_args_settle(tp_trace *t);
int tp_trace_push(tp_trace *t, const tp_event *ev);
/* Row `row` gets kind `kind` and the track of its pid and tid with device
 * and stream replaced. */
int tp_trace_refine_row(tp_trace *t, size_t row, uint8_t kind, int32_t device, int32_t stream);
/* Appends an event whose args text stays in the source file at file_off. */
int tp_trace_push_ref(tp_trace *t, const tp_event *ev, uint64_t file_off);
/* Appends r->n rows given as columns (tp_rows): the same rows as appending
 * them one by one.  TP_EINVAL (nothing appended) for a malformed block. */
int tp_trace_push_rows(tp_trace *t, const tp_rows *r);
const char *tp_trace_args_text(const tp_trace *t, size_t row, size_t *len);
int tp_trace_meta_set(tp_trace *t, const char *key, const char *json, size_t len);
const char *tp_trace_meta_get(const tp_trace *t, const char *key);
size_t tp_trace_meta_n(const tp_trace *t);
const char *tp_trace_meta_key_at(const tp_trace *t, size_t i);
const char *tp_trace_source_path(const tp_trace *t);
int tp_trace_source_set(tp_trace *t, const char *path);
/* Args references from now on are into fd (owned from the call on), a file
 * of the reader's own; the trace keeps its source path. */
int tp_trace_args_file_set(tp_trace *t, int fd);
/* NULL, or a one-line message naming the source file when it changed on
 * disk since it was read (args left in it can no longer be trusted). */
const char *tp_trace_source_problem(const tp_trace *t);
void *tp_trace_attach_array(tp_trace *t, const char *name, tp_coltype type, size_t n);
const void *tp_trace_find_array(const tp_trace *t, const char *name, tp_coltype type, size_t *n);
/* Registers name as a lazy attachment (replacing any of that name): n
 * cells of type that fill writes the first time the name is looked up
 * (tp_trace_find_lazy).  Takes user in every case (free_user, when given,
 * frees it).  TP_OK, TP_EINVAL or TP_ENOMEM. */
int tp_trace_attach_lazy(tp_trace *t, const char *name, tp_coltype type, size_t n,
                         tp_attach_fill_fn fill, void *user, void (*free_user)(void *user));
/* tp_trace_find_array, running a lazy attachment's filler first.  *filled
 * is set when it ran; a filler's failure gives NULL and its code in *rc. */
const void *tp_trace_find_lazy(const tp_trace *t, const char *name, tp_coltype type, size_t *n,
                               bool *filled, int *rc);
/* A new trace holding the rows whose keep byte is non-zero, with the same
 * metadata and source; attachments are not carried over (they describe the
 * old rows). */
tp_trace *tp_trace_filtered(const tp_trace *t, const uint8_t *keep);
/* The same, with kept row i cut to clip_ts[i], clip_dur[i] where clipped[i]
 * is non-zero (a clipping filter); the arrays may be NULL. */
tp_trace *tp_trace_filtered_clipped(const tp_trace *t, const uint8_t *keep,
                                    const uint8_t *clipped, const int64_t *clip_ts,
                                    const int64_t *clip_dur);
/* A trace without rows standing for t once its rows are freed (a batch
 * stage that streams its traces): t's id, metadata and info, no source,
 * no extension columns or attachments.  NULL when out of memory. */
tp_trace *tp_trace_husk(const tp_trace *t);
/* Marks that the named analysis has run on this trace (for `requires`). */
int tp_trace_mark_done(tp_trace *t, const char *analysis);
bool tp_trace_is_done(const tp_trace *t, const char *analysis);
/* Bytes held by the trace (columns, args, metadata). */
size_t tp_trace_memory(const tp_trace *t);
typedef struct tp_info tp_info;
void tp_info_free(tp_info *info);
/* type TP_COL_I64 (i), TP_COL_F64 (f) or TP_COL_STR (s, copied) */
int tp_info_put(tp_info **info, const char *key, tp_coltype type, int64_t i, double f,
                const char *s);
tp_coltype tp_info_type(const tp_info *info, const char *key); /* 0: absent */
int tp_info_i64(const tp_info *info, const char *key, int64_t *out);
int tp_info_f64(const tp_info *info, const char *key, double *out);
const char *tp_info_str(const tp_info *info, const char *key);
size_t tp_info_count(const tp_info *info);
const char *tp_info_key(const tp_info *info, size_t k);
int tp_info_copy(const tp_info *from, tp_info **to);

typedef struct tp_extcols tp_extcols;
void tp_ext_free(tp_extcols *x);
int tp_ext_reserve(tp_extcols *x, size_t cap);
/* The column's index (an existing one of that name and type), or < 0. */
int tp_ext_add(tp_extcols **x, const char *name, tp_coltype type, size_t cap);
int tp_ext_find(const tp_extcols *x, const char *name);
size_t tp_ext_count(const tp_extcols *x);
const char *tp_ext_name(const tp_extcols *x, int col);
tp_coltype tp_ext_type(const tp_extcols *x, int col);
const void *tp_ext_data(const tp_extcols *x, int col);
/* Cells [row, row + n) of column col into out, the column left as stored;
 * TP_OK or TP_EINVAL (no such column, rows past its cells). */
int tp_ext_read(const tp_extcols *x, int col, size_t row, size_t n, void *out);
/* Sets the cell to *v (of type): TP_OK, TP_EINVAL unless col has that type
 * and row < nrows, or TP_ENOMEM. */
int tp_ext_set(tp_extcols *x, int col, size_t row, size_t nrows, tp_coltype type, const void *v);
/* The cell of row (< the column's rows) into *out, of the column's type,
 * without making the column dense (tp_ext_data would). */
void tp_ext_get(const tp_extcols *x, int col, size_t row, void *out);
/* Adds to *to every column of from, holding the kept rows in order. */
int tp_ext_gather(const tp_extcols *from, const uint8_t *keep, size_t n_from, tp_extcols **to,
                  size_t cap);
size_t tp_ext_memory(const tp_extcols *x);

/* the trace's own (tp_trace.c) */
tp_info **tp_trace_info_slot(tp_trace *t);
const tp_info *tp_trace_info_of(const tp_trace *t);
tp_extcols **tp_trace_ext_slot(tp_trace *t);
const tp_extcols *tp_trace_ext_of(const tp_trace *t);
size_t tp_trace_capacity(const tp_trace *t);
/* The id of the reader that made the trace ("" until kept by a run). */
const char *tp_trace_id(const tp_trace *t);
int tp_trace_set_id(tp_trace *t, const char *id);

#endif
