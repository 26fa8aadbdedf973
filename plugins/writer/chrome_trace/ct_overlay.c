/* chrome_trace: arg and flow overlays (docs/plugins/chrome_trace.md, "Arg and
 * flow overlays"): input results of kind `arg` become members of the marked
 * events' args, of kind `flow` flow events ("ph": "s"/"f"). */
#include <math.h>
#include <string.h>

#include "ct.h"
#include <tracepipe/tp_sdk_sort.h>
#include <tracepipe/tp_sdk_trace.h>

/* Arg and flow overlays name events by (rank, row): the trace whose rank
 * (trace info, else its place) is `rank`, or, when null, the result's own. */
int64_t ct_trace_rank(const tp_trace *t, size_t k)
{
    int64_t rank;
    return tp_trace_info_i64(t, "rank", &rank) == TP_OK ? rank : (int64_t)k;
}

static size_t trace_by_rank(tp_stage *st, const tp_result *r, size_t row, int col, size_t ntraces)
{
    if (tp_result_is_null(r, row, col))
        return ct_trace_of(st, r, ntraces);
    int64_t rank = tp_result_get_i64(r, row, col);
    for (size_t k = 0; k < ntraces; k++)
        if (ct_trace_rank(tp_stage_trace_at(st, k), k) == rank)
            return k;
    return SIZE_MAX;
}

static int mark_order(const void *x, const void *y, void *ctx)
{
    const ct_mark *a = x, *b = y;
    (void)ctx;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

/* Is row of r (rank column col) about trace t_k, the k-th?  Only t_k is
 * looked at: in a streamed batch asking for another trace would read it
 * again.  A null rank means the result's own trace (its `trace` note). */
static int row_is_trace(const tp_result *r, size_t row, int col, const tp_trace *t_k, size_t k)
{
    if (tp_result_is_null(r, row, col)) {
        const char *id = tp_result_meta(r, "trace"), *tid = tp_trace_id(t_k);
        return id ? tid && strcmp(id, tid) == 0 : k == 0;
    }
    return tp_result_get_i64(r, row, col) == ct_trace_rank(t_k, k);
}

/* The marks of trace k (t_k) from every input result of kind `arg`. */
int ct_load_marks(tp_stage *st, const tp_trace *t_k, size_t k, ct_marks *m)
{
    static const char *const names[] = {"rank", "row", "key", "value"};
    size_t cap = 0;
    memset(m, 0, sizeof *m);
    size_t n = tp_trace_cols(t_k)->n;
    for (size_t i = 0; i < tp_input_count(st); i++) {
        const tp_result *r = tp_input(st, i);
        int col[4], ok = strcmp(tp_result_kind(r), "arg") == 0;
        for (size_t j = 0; ok && j < 4; j++)
            ok = (col[j] = tp_result_find_col(r, names[j])) >= 0;
        for (size_t row = 0; ok && row < tp_result_rows(r); row++) {
            if (tp_result_is_null(r, row, col[1]) || tp_result_is_null(r, row, col[2]) ||
                tp_result_is_null(r, row, col[3]) || !row_is_trace(r, row, col[0], t_k, k))
                continue;
            int64_t ev = tp_result_get_i64(r, row, col[1]);
            if (ev < 0 || (uint64_t)ev >= n)
                continue;
            if (m->n == cap) {
                cap = cap ? 2 * cap : 256;
                ct_mark *v = tp_realloc(m->v, cap * sizeof *v);
                if (v == NULL)
                    return TP_ENOMEM;
                m->v = v;
            }
            m->v[m->n] = (ct_mark){(uint32_t)ev, (uint32_t)m->n, tp_result_get_str(r, row, col[2]),
                                   tp_result_get_str(r, row, col[3])};
            m->n++;
        }
    }
    return tp_sort(m->v, m->n, sizeof *m->v, mark_order, NULL);
}

/* The largest numeric flow id of the traces (overlay flows are numbered above it). */
static int64_t max_flow_id(tp_stage *st, size_t ntraces)
{
    int64_t most = 0;
    for (size_t k = 0; k < ntraces; k++) {
        const tp_cols *c = tp_trace_cols(tp_stage_trace_at(st, k));
        for (size_t i = 0; i < c->n; i++) {
            int64_t id = tp_ev_flow_id(c, i);
            if (id != TP_NONE && !TP_ID_IS_STR(id) && id > most)
                most = id;
        }
    }
    return most;
}

/* One end of an overlay flow: "s" at (trace k's event ev, t us), or "f"
 * bound to the enclosing slice. */
static void write_flow_end(ct_out *o, tp_stage *st, const char *cat, const char *name, char ph,
                           int64_t id, size_t k, size_t ev, double t, int64_t t0)
{
    const tp_trace *t_k = tp_stage_trace_at(st, k);
    const tp_cols *c = tp_trace_cols(t_k);
    size_t n_str = tp_str_count(st);
    o->pid_base = ((int64_t)k + 1) * CT_PID_STRIDE;
    o->rank = ct_trace_rank(t_k, k);
    out_str(o, ph == 's' ? "  {\"ph\": \"s\", \"cat\": " : "  {\"ph\": \"f\", \"bp\": \"e\", \"cat\": ");
    out_json_str(o, cat, strlen(cat));
    out_str(o, ", \"name\": ");
    out_json_str(o, name, strlen(name));
    out_str(o, ", \"id\": ");
    out_i64(o, id);
    out_str(o, ", \"pid\": ");
    out_pid(o, st, tp_ev_pid(c, ev), n_str);
    out_str(o, ", \"tid\": ");
    out_id(o, st, tp_ev_tid(c, ev), n_str);
    out_str(o, ", \"ts\": ");
    out_us(o, t0 + llround(t * 1000.0));
    out_str(o, "}");
}

/* The event (trace, row) of a flow's end (cols rank, row, us), or 0. */
static int flow_event(tp_stage *st, const tp_result *r, size_t row, const int *col, size_t ntraces,
                      size_t *k, size_t *ev)
{
    if (tp_result_is_null(r, row, col[1]) || tp_result_is_null(r, row, col[2]))
        return 0;
    *k = trace_by_rank(st, r, row, col[0], ntraces);
    int64_t e = tp_result_get_i64(r, row, col[1]);
    if (*k == SIZE_MAX || e < 0 || (uint64_t)e >= tp_trace_cols(tp_stage_trace_at(st, *k))->n)
        return 0;
    *ev = (size_t)e;
    return 1;
}

/* Flow overlays: each input result of kind `flow` (id, name, from_rank,
 * from_row, from_us, to_rank, to_row, to_us) as an "s" and an "f" event,
 * category the result's id, ids above the traces' own. */
size_t ct_write_flows(ct_out *o, tp_stage *st, size_t ntraces, const int64_t *t0, int *first)
{
    static const char *const names[] = {"id", "name", "from_rank", "from_row", "from_us",
                                        "to_rank", "to_row", "to_us"};
    size_t written = 0, flows = 0;
    for (size_t i = 0; i < tp_input_count(st); i++)
        flows += strcmp(tp_result_kind(tp_input(st, i)), "flow") == 0;
    if (flows == 0)
        return 0; /* no trace asked for again */
    int64_t base = max_flow_id(st, ntraces);
    for (size_t i = 0; i < tp_input_count(st) && !o->err; i++) {
        const tp_result *r = tp_input(st, i);
        int col[8], ok = strcmp(tp_result_kind(r), "flow") == 0;
        for (size_t j = 0; ok && j < 8; j++)
            ok = (col[j] = tp_result_find_col(r, names[j])) >= 0;
        int64_t most = 0;
        for (size_t row = 0; ok && row < tp_result_rows(r); row++) {
            size_t kf, ef, kt, et;
            if (tp_result_is_null(r, row, col[0]) || tp_result_is_null(r, row, col[1]) ||
                !flow_event(st, r, row, col + 2, ntraces, &kf, &ef) ||
                !flow_event(st, r, row, col + 5, ntraces, &kt, &et))
                continue;
            int64_t id = tp_result_get_i64(r, row, col[0]);
            const char *name = tp_result_get_str(r, row, col[1]), *cat = tp_result_id(r);
            most = id > most ? id : most;
            out_str(o, *first ? "" : ",\n");
            *first = 0;
            write_flow_end(o, st, cat, name, 's', base + id, kf, ef, tp_result_get_f64(r, row, col[4]),
                           t0[kf]);
            out_str(o, ",\n");
            write_flow_end(o, st, cat, name, 'f', base + id, kt, et, tp_result_get_f64(r, row, col[7]),
                           t0[kt]);
            written++;
        }
        base += most;
    }
    return written;
}

