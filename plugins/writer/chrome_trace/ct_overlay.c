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

static int mark_order(const void *x, const void *y, void *ctx)
{
    const ct_mark *a = x, *b = y;
    (void)ctx;
    if (a->row != b->row)
        return a->row < b->row ? -1 : 1;
    int c = strcmp(a->key, b->key);
    return c ? c : (a->order > b->order) - (a->order < b->order);
}

/* Which rows of a result are about trace k, found once per result: a row
 * whose rank is trace k's; a null rank means the result's own trace (its
 * `trace` note), else the first.  Only t_k is looked at: in a streamed
 * batch asking for another trace would read it again. */
typedef struct ct_whose {
    int64_t rank; /* trace k's rank (ct_trace_rank) */
    int own;      /* trace k is the one the result's `trace` note names */
    int named;    /* the result has a `trace` note */
    size_t k;     /* the trace's place among the writer's */
} ct_whose;

static ct_whose whose(const tp_result *r, const tp_trace *t_k, size_t k, int64_t rank_k)
{
    const char *id = tp_result_meta(r, "trace"), *tid = tp_trace_id(t_k);
    return (ct_whose){rank_k, id && tid && strcmp(id, tid) == 0, id != NULL, k};
}

/* Is row of r (rank column col) about the trace of w?  2 surely: its rank,
 * or a null rank and the result's own trace; 1 only for now: a null rank,
 * the first trace and not the result's own (a flow's end until its own
 * trace comes); 0 not. */
static int row_in(const tp_result *r, size_t row, int col, const ct_whose *w)
{
    if (!tp_result_is_null(r, row, col))
        return tp_result_get_i64(r, row, col) == w->rank ? 2 : 0;
    return w->own ? 2 : w->k == 0 ? 1 : 0;
}

/* The columns of an `arg` overlay, by name. */
typedef struct ct_arg_cols {
    int rank, row, key, value;
} ct_arg_cols;

/* Is r an `arg` overlay with every column?  Its columns into *c. */
static int arg_cols(const tp_result *r, ct_arg_cols *c)
{
    if (strcmp(tp_result_kind(r), "arg") != 0)
        return 0;
    c->rank = tp_result_find_col(r, "rank");
    c->row = tp_result_find_col(r, "row");
    c->key = tp_result_find_col(r, "key");
    c->value = tp_result_find_col(r, "value");
    return c->rank >= 0 && c->row >= 0 && c->key >= 0 && c->value >= 0;
}

/* The marks of trace k (t_k) from every input result of kind `arg`. */
int ct_load_marks(tp_stage *st, const tp_trace *t_k, size_t k, ct_marks *m)
{
    size_t cap = 0;
    memset(m, 0, sizeof *m);
    size_t n = tp_trace_cols(t_k)->n;
    int64_t rank_k = ct_trace_rank(t_k, k);
    for (size_t i = 0; i < tp_input_count(st); i++) {
        const tp_result *r = tp_input(st, i);
        ct_arg_cols col;
        int ok = arg_cols(r, &col);
        ct_whose w = whose(r, t_k, k, rank_k);
        /* a null rank: the result's own trace, or the first when it names none */
        int least = w.named ? 2 : 1;
        for (size_t row = 0; ok && row < tp_result_rows(r); row++) {
            if (tp_result_is_null(r, row, col.row) || tp_result_is_null(r, row, col.key) ||
                tp_result_is_null(r, row, col.value) || row_in(r, row, col.rank, &w) < least)
                continue;
            int64_t ev = tp_result_get_i64(r, row, col.row);
            if (ev < 0 || (uint64_t)ev >= n)
                continue;
            if (m->n == cap) {
                cap = cap ? 2 * cap : 256;
                ct_mark *v = tp_realloc(m->v, cap * sizeof *v);
                if (v == NULL)
                    return TP_ENOMEM;
                m->v = v;
            }
            m->v[m->n] = (ct_mark){(uint32_t)ev, (uint32_t)m->n, tp_result_get_str(r, row, col.key),
                                   tp_result_get_str(r, row, col.value)};
            m->n++;
        }
    }
    return tp_sort(m->v, m->n, sizeof *m->v, mark_order, NULL);
}

/* ------------------------------------------------------------ flows */

/* The columns of a `flow` overlay, by name. */
typedef struct ct_flow_cols {
    int id, name, from_rank, from_row, from_us, to_rank, to_row, to_us;
} ct_flow_cols;

/* Is r a `flow` overlay with every column?  Its columns into *c. */
static int flow_cols(const tp_result *r, ct_flow_cols *c)
{
    if (strcmp(tp_result_kind(r), "flow") != 0)
        return 0;
    c->id = tp_result_find_col(r, "id");
    c->name = tp_result_find_col(r, "name");
    c->from_rank = tp_result_find_col(r, "from_rank");
    c->from_row = tp_result_find_col(r, "from_row");
    c->from_us = tp_result_find_col(r, "from_us");
    c->to_rank = tp_result_find_col(r, "to_rank");
    c->to_row = tp_result_find_col(r, "to_row");
    c->to_us = tp_result_find_col(r, "to_us");
    return c->id >= 0 && c->name >= 0 && c->from_rank >= 0 && c->from_row >= 0 && c->from_us >= 0 &&
           c->to_rank >= 0 && c->to_row >= 0 && c->to_us >= 0;
}

int ct_flows_init(tp_stage *st, ct_flows *f)
{
    memset(f, 0, sizeof *f);
    for (size_t i = 0; i < tp_input_count(st); i++) {
        ct_flow_cols col;
        if (flow_cols(tp_input(st, i), &col))
            f->n += 2 * tp_result_rows(tp_input(st, i));
    }
    if (f->n == 0)
        return TP_OK;
    f->end = tp_calloc(f->n, sizeof *f->end);
    return f->end ? TP_OK : TP_ENOMEM;
}

void ct_flows_free(ct_flows *f)
{
    tp_free(f->end);
    memset(f, 0, sizeof *f);
}

/* End e (columns row_col, us_col of row) if it is in trace k (t_k, w): its
 * event's pid and tid, or CT_END_SKIP when it names none.  A rank names the
 * first trace of that rank; a null rank, the result's own trace, else trace
 * 0 until that trace comes (e->fallback). */
static void keep_end(const tp_result *r, size_t row, int rank_col, int row_col, int us_col,
                     const tp_trace *t_k, const ct_whose *w, ct_flow_end *e)
{
    if (e->state != CT_END_NONE && !e->fallback)
        return;
    int in = row_in(r, row, rank_col, w);
    if (in == 0 || (e->state != CT_END_NONE && in != 2))
        return;
    const tp_cols *c = tp_trace_cols(t_k);
    int64_t ev = tp_result_is_null(r, row, row_col) ? -1 : tp_result_get_i64(r, row, row_col);
    *e = (ct_flow_end){0, 0, w->rank, (uint32_t)w->k, CT_END_SKIP, (uint8_t)(in != 2)};
    if (tp_result_is_null(r, row, us_col) || ev < 0 || (uint64_t)ev >= c->n)
        return;
    e->pid = tp_ev_pid(c, (size_t)ev);
    e->tid = tp_ev_tid(c, (size_t)ev);
    e->state = CT_END_FOUND;
}

void ct_flows_keep(tp_stage *st, ct_flows *f, const tp_trace *t_k, size_t k)
{
    if (f->n == 0)
        return;
    const tp_cols *c = tp_trace_cols(t_k);
    for (size_t i = 0; i < c->n; i++) { /* overlay ids go above the traces' own */
        int64_t id = tp_ev_flow_id(c, i);
        if (id != TP_NONE && !TP_ID_IS_STR(id) && id > f->max_id)
            f->max_id = id;
    }
    int64_t rank_k = ct_trace_rank(t_k, k);
    ct_flow_end *e = f->end;
    for (size_t i = 0; i < tp_input_count(st); i++) {
        const tp_result *r = tp_input(st, i);
        ct_flow_cols col;
        if (!flow_cols(r, &col))
            continue;
        ct_whose w = whose(r, t_k, k, rank_k);
        for (size_t row = 0; row < tp_result_rows(r); row++, e += 2) {
            keep_end(r, row, col.from_rank, col.from_row, col.from_us, t_k, &w, &e[0]);
            keep_end(r, row, col.to_rank, col.to_row, col.to_us, t_k, &w, &e[1]);
        }
    }
}

/* One end of an overlay flow: "s" at (end e's event, t us), or "f" bound
 * to the enclosing slice. */
static void write_flow_end(ct_out *o, tp_stage *st, const char *cat, const char *name, char ph,
                           int64_t id, const ct_flow_end *e, double t, int64_t t0)
{
    size_t n_str = tp_str_count(st);
    o->pid_base = ((int64_t)e->k + 1) * CT_PID_STRIDE;
    o->rank = e->rank;
    out_str(o, ph == 's' ? "  {\"ph\": \"s\", \"cat\": " : "  {\"ph\": \"f\", \"bp\": \"e\", \"cat\": ");
    out_json_str(o, cat, strlen(cat));
    out_str(o, ", \"name\": ");
    out_json_str(o, name, strlen(name));
    out_str(o, ", \"id\": ");
    out_i64(o, id);
    out_str(o, ", \"pid\": ");
    out_pid(o, st, e->pid, n_str);
    out_str(o, ", \"tid\": ");
    out_id(o, st, e->tid, n_str);
    out_str(o, ", \"ts\": ");
    out_us(o, t0 + llround(t * 1000.0));
    out_str(o, "}");
}

/* Flow overlays: each input result of kind `flow` (id, name, from_rank,
 * from_row, from_us, to_rank, to_row, to_us) as an "s" and an "f" event,
 * category the result's id, ids above the traces' own (the ends kept while
 * each trace was written). */
size_t ct_write_flows(ct_out *o, tp_stage *st, const ct_flows *f, const int64_t *t0, int *first)
{
    size_t written = 0;
    if (f->n == 0)
        return 0;
    int64_t base = f->max_id;
    const ct_flow_end *e = f->end;
    for (size_t i = 0; i < tp_input_count(st) && !o->err; i++) {
        const tp_result *r = tp_input(st, i);
        ct_flow_cols col;
        if (!flow_cols(r, &col))
            continue;
        int64_t most = 0;
        for (size_t row = 0; row < tp_result_rows(r); row++, e += 2) {
            if (o->err || tp_result_is_null(r, row, col.id) || tp_result_is_null(r, row, col.name) ||
                e[0].state != CT_END_FOUND || e[1].state != CT_END_FOUND)
                continue;
            int64_t id = tp_result_get_i64(r, row, col.id);
            const char *name = tp_result_get_str(r, row, col.name), *cat = tp_result_id(r);
            most = id > most ? id : most;
            out_str(o, *first ? "" : ",\n");
            *first = 0;
            write_flow_end(o, st, cat, name, 's', base + id, &e[0],
                           tp_result_get_f64(r, row, col.from_us), t0[e[0].k]);
            out_str(o, ",\n");
            write_flow_end(o, st, cat, name, 'f', base + id, &e[1],
                           tp_result_get_f64(r, row, col.to_us), t0[e[1].k]);
            written++;
        }
        base += most;
    }
    return written;
}
