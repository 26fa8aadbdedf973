/* Core-internal: the host functions plugins call through tp_host_api, by
 * area: diagnostics, memory and strings (tp_host.c), trace access
 * (tp_host_trace.c), results and outputs (tp_host_result.c); the table is
 * tp_core_host_api() (tp_core.h). */
#ifndef TRACEPIPE_TP_HOST_H
#define TRACEPIPE_TP_HOST_H

#include "tp_core.h"

size_t tp_host_stage_trace_count(tp_stage *st);
tp_trace *tp_host_stage_trace_at(tp_stage *st, size_t i);
const char *tp_host_trace_id(const tp_trace *t);
int tp_host_info_set_i64(tp_stage *st, tp_trace *t, const char *key, int64_t v);
int tp_host_info_set_f64(tp_stage *st, tp_trace *t, const char *key, double v);
int tp_host_info_set_str(tp_stage *st, tp_trace *t, const char *key, const char *v);
tp_coltype tp_host_info_type(const tp_trace *t, const char *key);
int tp_host_info_i64(const tp_trace *t, const char *key, int64_t *out);
int tp_host_info_f64(const tp_trace *t, const char *key, double *out);
const char *tp_host_info_str(const tp_trace *t, const char *key);
size_t tp_host_info_count(const tp_trace *t);
const char *tp_host_info_key(const tp_trace *t, size_t i);
int tp_host_ext_add(tp_stage *st, tp_trace *t, const char *name, tp_coltype type);
int tp_host_ext_set_i32(tp_stage *st, tp_trace *t, int col, size_t row, int32_t v);
int tp_host_ext_set_i64(tp_stage *st, tp_trace *t, int col, size_t row, int64_t v);
int tp_host_ext_set_f64(tp_stage *st, tp_trace *t, int col, size_t row, double v);
int tp_host_ext_set_sid(tp_stage *st, tp_trace *t, int col, size_t row, tp_str v);
size_t tp_host_ext_count(const tp_trace *t);
int tp_host_ext_find(const tp_trace *t, const char *name);
const char *tp_host_ext_name(const tp_trace *t, int col);
tp_coltype tp_host_ext_type(const tp_trace *t, int col);
const void *tp_host_ext_data(const tp_trace *t, int col);
int tp_host_ext_read(const tp_trace *t, int col, size_t row, size_t n, void *out);
int tp_host_clip(tp_stage *st, size_t row, int64_t ts, int64_t dur);
size_t tp_host_run_output_count(tp_stage *st);
const char *tp_host_run_output(tp_stage *st, size_t i);
int tp_host_trace_refine(tp_stage *st, tp_trace *t, size_t row, tp_kind kind, int32_t device,
                         int32_t stream);
int tp_host_result_set_kind(tp_stage *st, tp_result *r, const char *kind);
const char *tp_host_result_kind(const tp_result *r);
int tp_host_result_set_unit(tp_stage *st, tp_result *r, int col, const char *unit);
const char *tp_host_result_col_unit(const tp_result *r, int col);

/* tp_host.c: the stage's error, one line (a plugin's message may hold a
 * newline); returns code (TP_ERR when not negative). */
int tp_host_fail(tp_stage *st, int code, const char *fmt, ...) TP_PRINTF(3, 4);
/* tp_host.c: host_api.threads, and what it answers in this process from
 * now on (a batch's trace process: the cores divided among the traces the
 * batch runs at once; 0: the cores the process may run on). */
int tp_host_threads(tp_stage *st);
void tp_host_set_threads(int n);
/* The stage running on the calling thread: whom a lazy attachment's failed
 * filler fails.  Entered before a stage's init and left after its run,
 * restoring what was before (a batch stage runs other stages inside its
 * own when it reads a trace late). */
typedef struct tp_host_stage_mark {
    tp_stage *stage, *failed;
} tp_host_stage_mark;
tp_host_stage_mark tp_host_enter_stage(tp_stage *st);
void tp_host_leave_stage(tp_host_stage_mark before);
/* tp_host_output.c: host_api.output_begin. */
const char *tp_host_output_begin(tp_stage *st, const char *path);

#endif
