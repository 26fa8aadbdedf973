/*
 * Host functions, trace access: the traces of a stage, trace info
 * (facts), extension columns, clipping filters, readers refining rows.
 * tp_host.c puts them into the host table.
 */
#include "tp_host.h"
#include "tp_result.h"
#include "tp_run.h"
#include "tp_trace.h"
#include "tp_schema.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ traces */

size_t tp_host_stage_trace_count(tp_stage *st) { return st->n_traces; }

tp_trace *tp_host_stage_trace_at(tp_stage *st, size_t i)
{
    if (i >= st->n_traces)
        return NULL;
    tp_run_stage_trace_ready(st, i); /* a batch's trace read late; on failure a husk */
    return st->traces[i];
}

const char *tp_host_trace_id(const tp_trace *t) { return t ? tp_trace_id(t) : ""; }

/* ------------------------------------------------------------ trace info */

static int info_put(tp_stage *st, tp_trace *t, const char *key, tp_coltype type, int64_t i,
                    double f, const char *s)
{
    int rc = tp_info_put(tp_trace_info_slot(t), key, type, i, f, s);
    if (rc == TP_EINVAL && st->error_code == 0)
        snprintf(st->error, sizeof st->error, "plugin bug: trace info key '%s' is empty or its "
                 "value NULL", key ? key : "(null)");
    return rc;
}

int tp_host_info_set_i64(tp_stage *st, tp_trace *t, const char *key, int64_t v)
{
    return info_put(st, t, key, TP_COL_I64, v, 0, NULL);
}

int tp_host_info_set_f64(tp_stage *st, tp_trace *t, const char *key, double v)
{
    return info_put(st, t, key, TP_COL_F64, 0, v, NULL);
}

int tp_host_info_set_str(tp_stage *st, tp_trace *t, const char *key, const char *v)
{
    return info_put(st, t, key, TP_COL_STR, 0, 0, v);
}

tp_coltype tp_host_info_type(const tp_trace *t, const char *key)
{
    return tp_info_type(tp_trace_info_of(t), key);
}

int tp_host_info_i64(const tp_trace *t, const char *key, int64_t *out)
{
    return tp_info_i64(tp_trace_info_of(t), key, out);
}

int tp_host_info_f64(const tp_trace *t, const char *key, double *out)
{
    return tp_info_f64(tp_trace_info_of(t), key, out);
}

const char *tp_host_info_str(const tp_trace *t, const char *key)
{
    return tp_info_str(tp_trace_info_of(t), key);
}

size_t tp_host_info_count(const tp_trace *t) { return tp_info_count(tp_trace_info_of(t)); }

const char *tp_host_info_key(const tp_trace *t, size_t i)
{
    return tp_info_key(tp_trace_info_of(t), i);
}

/* ------------------------------------------------------ extension columns */

int tp_host_ext_add(tp_stage *st, tp_trace *t, const char *name, tp_coltype type)
{
    int col = tp_ext_add(tp_trace_ext_slot(t), name, type, tp_trace_capacity(t));
    if (col == TP_EINVAL && st->error_code == 0)
        snprintf(st->error, sizeof st->error,
                 "plugin bug: extension column '%s' is empty, of another type already, or of a "
                 "type columns cannot have", name ? name : "(null)");
    return col;
}

static int ext_set(tp_stage *st, tp_trace *t, int col, size_t row, tp_coltype type,
                   const void *v)
{
    int rc = tp_ext_set(*tp_trace_ext_slot(t), col, row, tp_trace_columns(t)->n, type, v);
    if (rc == TP_EINVAL && st->error_code == 0)
        snprintf(st->error, sizeof st->error,
                 "plugin bug: extension column %d, row %zu: no such cell of that type", col, row);
    return rc;
}

int tp_host_ext_set_i32(tp_stage *st, tp_trace *t, int col, size_t row, int32_t v)
{
    return ext_set(st, t, col, row, TP_COL_I32, &v);
}

int tp_host_ext_set_i64(tp_stage *st, tp_trace *t, int col, size_t row, int64_t v)
{
    return ext_set(st, t, col, row, TP_COL_I64, &v);
}

int tp_host_ext_set_f64(tp_stage *st, tp_trace *t, int col, size_t row, double v)
{
    return ext_set(st, t, col, row, TP_COL_F64, &v);
}

int tp_host_ext_set_sid(tp_stage *st, tp_trace *t, int col, size_t row, tp_str v)
{
    return ext_set(st, t, col, row, TP_COL_SID, &v);
}

size_t tp_host_ext_count(const tp_trace *t) { return tp_ext_count(tp_trace_ext_of(t)); }
int tp_host_ext_find(const tp_trace *t, const char *name)
{
    return tp_ext_find(tp_trace_ext_of(t), name);
}
const char *tp_host_ext_name(const tp_trace *t, int col)
{
    return tp_ext_name(tp_trace_ext_of(t), col);
}
tp_coltype tp_host_ext_type(const tp_trace *t, int col)
{
    return tp_ext_type(tp_trace_ext_of(t), col);
}
const void *tp_host_ext_data(const tp_trace *t, int col)
{
    return tp_ext_data(tp_trace_ext_of(t), col);
}

int tp_host_ext_read(const tp_trace *t, int col, size_t row, size_t n, void *out)
{
    const tp_cols *c = tp_trace_columns(t);
    if (row > c->n || n > c->n - row)
        return TP_EINVAL;
    return tp_ext_read(tp_trace_ext_of(t), col, row, n, out);
}

/* ------------------------------------------------------------ clipping */

/* A filter cuts kept row `row` to [ts, ts + dur), inside its own interval. */
int tp_host_clip(tp_stage *st, size_t row, int64_t ts, int64_t dur)
{
    const tp_cols *c = st->trace ? tp_trace_columns(st->trace) : NULL;
    if (st->keep == NULL || c == NULL || row >= c->n)
        return TP_EINVAL;
    int64_t end0 = c->dur[row] >= 0 ? c->ts[row] + c->dur[row] : c->ts[row];
    if (dur < 0 || ts < c->ts[row] || ts > end0 || dur > end0 - ts) {
        if (st->error_code == 0)
            snprintf(st->error, sizeof st->error,
                     "plugin bug: clip of row %zu to [%lld, +%lld] ns leaves its interval", row,
                     (long long)ts, (long long)dur);
        return TP_EINVAL;
    }
    if (st->clipped == NULL) {
        st->clipped = calloc(c->n ? c->n : 1, 1);
        st->clip_ts = malloc((c->n ? c->n : 1) * sizeof *st->clip_ts);
        st->clip_dur = malloc((c->n ? c->n : 1) * sizeof *st->clip_dur);
        if (st->clipped == NULL || st->clip_ts == NULL || st->clip_dur == NULL)
            return TP_ENOMEM;
    }
    st->clipped[row] = 1;
    st->clip_ts[row] = ts;
    st->clip_dur[row] = dur;
    return TP_OK;
}

/* ------------------------------------------------------ readers refining */

int tp_host_trace_refine(tp_stage *st, tp_trace *t, size_t row, tp_kind kind, int32_t device,
                         int32_t stream)
{
    if (st == NULL || st->desc->kind != TP_STAGE_READER || t == NULL || t != st->trace) {
        if (st && st->error_code == 0)
            snprintf(st->error, sizeof st->error,
                     "plugin bug: trace_refine is for readers, on the trace they fill");
        return TP_EINVAL;
    }
    return tp_trace_refine_row(t, row, (uint8_t)kind, device, stream);
}
