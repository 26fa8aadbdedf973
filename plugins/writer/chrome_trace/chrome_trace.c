/*
 * chrome_trace: writes the current trace as Chrome-trace JSON in Kineto's
 * object form, which Perfetto UI and chrome://tracing open:
 *
 *   {
 *     "schemaVersion": 1,            <- the trace's metadata keys, verbatim
 *     "traceEvents": [
 *       {"ph": "X", "cat": "...", "name": "...", "pid": 1, "tid": 2, "ts": 1.5, ...},
 *       ...
 *     ]
 *   }
 *
 * Times are written exactly from the nanosecond integers as decimal µs
 * (1712195495505582988 ns -> 1712195495505582.988), so reading the output
 * back gives the same columns.  A path ending in .gz is gzip-compressed.
 * Output goes through one fixed buffer: nothing is allocated per event.
 * Input results of the overlay kind `counter` (the `counters` analysis)
 * are written after the events as counter events ("ph": "C"); of kind
 * `arg` (rank, row, key, value) as members of the marked events' args; of
 * kind `flow` (critical_path's path) as flow events ("ph": "s"/"f").
 */
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_json.h>
#include <tracepipe/tp_sdk_output.h>
#include <tracepipe/tp_sdk_sort.h>
#include <tracepipe/tp_sdk_text.h>
#include <tracepipe/tp_sdk_trace.h>
#include <zlib.h>

typedef struct ct_config {
    const char *path;
    int64_t level;
} ct_config;

static const tp_option ct_options[] = {
    TP_OPTION_REQUIRED_OUTPUT_FILE("path", ct_config, path, "output file (.json, or .json.gz to compress)"),
    TP_OPTION_INT("level", ct_config, level, "6", 1, 9, "gzip compression level for .gz output"),
    TP_OPTION_END};

#include "ct.h"

static void out_flush(ct_out *o)
{
    if (o->len == 0 || o->err)
        return;
    if (o->gz) {
        if (gzwrite(o->gz, o->buf, (unsigned)o->len) != (int)o->len)
            o->err = errno ? errno : EIO;
    } else if (fwrite(o->buf, 1, o->len, o->f) != o->len) {
        o->err = errno ? errno : EIO;
    }
    o->len = 0;
}

static void out_bytes(ct_out *o, const char *s, size_t n)
{
    while (n > 0) {
        if (o->len == CT_BUF)
            out_flush(o);
        size_t k = CT_BUF - o->len < n ? CT_BUF - o->len : n;
        memcpy(o->buf + o->len, s, k);
        o->len += k;
        s += k;
        n -= k;
    }
}

void out_str(ct_out *o, const char *s)
{
    out_bytes(o, s, strlen(s));
}

static void out_u64(ct_out *o, uint64_t v)
{
    char tmp[24];
    size_t i = sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    out_bytes(o, tmp + i, sizeof tmp - i);
}

void out_i64(ct_out *o, int64_t v)
{
    if (v < 0) {
        out_bytes(o, "-", 1);
        out_u64(o, (uint64_t)0 - (uint64_t)v);
    } else {
        out_u64(o, (uint64_t)v);
    }
}

/* ns as exact decimal µs: 1500 -> 1.5, 2000 -> 2, -1 -> -0.001. */
void out_us(ct_out *o, int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0)
        out_bytes(o, "-", 1);
    out_u64(o, a / 1000);
    unsigned frac = (unsigned)(a % 1000);
    if (frac == 0)
        return;
    char d[4] = {'.', (char)('0' + frac / 100), (char)('0' + frac / 10 % 10), (char)('0' + frac % 10)};
    size_t n = 4;
    while (d[n - 1] == '0')
        n--;
    out_bytes(o, d, n);
}

/* The length of the valid UTF-8 sequence at s[i] within n bytes, or 0. */
static size_t utf8_at(const char *s, size_t i, size_t n)
{
    unsigned char c = (unsigned char)s[i];
    if (c < 0x80)
        return 1;
    size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2, k = 1;
    while (k < need && i + k < n && s[i + k] != '\0')
        k++;
    if (k < need)
        return 0; /* cut by the end of the string (or a NUL) */
    unsigned char seq[5] = {0};
    memcpy(seq, s + i, need);
    return tp_utf8_len(seq) == need ? need : 0;
}

/* A JSON string: quotes, backslashes and control characters escaped; valid
 * UTF-8 passes through, each byte of an invalid sequence becomes U+FFFD. */
void out_json_str(ct_out *o, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    out_bytes(o, "\"", 1);
    size_t run = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        size_t u = c >= 0x80 ? utf8_at(s, i, n) : 1;
        if (u > 1) {
            i += u - 1;
            continue;
        }
        if (c >= 0x20 && c != '"' && c != '\\' && u == 1)
            continue;
        out_bytes(o, s + run, i - run);
        run = i + 1;
        if (u == 0) {
            out_str(o, "\\ufffd");
            continue;
        }
        char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        if (c == '"' || c == '\\') {
            esc[1] = (char)c;
            out_bytes(o, esc, 2);
        } else if (c == '\n' || c == '\t' || c == '\r') {
            esc[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
            out_bytes(o, esc, 2);
        } else {
            out_bytes(o, esc, 6);
        }
    }
    out_bytes(o, s + run, n - run);
    out_bytes(o, "\"", 1);
}

static void out_interned(ct_out *o, tp_stage *st, tp_str id)
{
    out_json_str(o, tp_str_text(st, id), tp_str_len(st, id));
}

/* pid / tid / flow id: a number, or the text it was (TP_ID_IS_STR). */
void out_id(ct_out *o, tp_stage *st, int64_t v, size_t n_str)
{
    if (TP_ID_IS_STR(v) && TP_ID_STR(v) < n_str)
        out_interned(o, st, TP_ID_STR(v));
    else
        out_i64(o, v);
}

/* A pid; with several traces, in the trace's own range (text pids get
 * "rank R: " in front). */
void out_pid(ct_out *o, tp_stage *st, int64_t v, size_t n_str)
{
    if (!o->multi) {
        out_id(o, st, v, n_str);
    } else if (TP_ID_IS_STR(v) && TP_ID_STR(v) < n_str) {
        char text[512];
        int len = snprintf(text, sizeof text, "rank %lld: %s", (long long)o->rank,
                           tp_str_text(st, TP_ID_STR(v)));
        out_json_str(o, text, len > 0 && (size_t)len < sizeof text ? (size_t)len : 0);
    } else {
        out_i64(o, o->pid_base + v);
    }
}

/* The trace's extension columns, written back into each event's args,
 * read a window of rows at a time (tp_trace_ext_read): a compact column
 * stays compact (asking for its array would make it dense for good). */
#define CT_EXT_WINDOW 4096

typedef struct ct_ext {
    size_t n;
    const char **name;
    tp_coltype *type;
    void **cells;      /* per column: the window's cells, of its type */
    size_t base, rows; /* the window: rows [base, base + rows) */
    int rc;            /* a failed read (TP_EINVAL: a plugin bug) */
} ct_ext;

static int ext_load(const tp_trace *t, ct_ext *x)
{
    x->n = tp_trace_ext_count(t);
    if (x->n == 0)
        return TP_OK;
    x->name = tp_calloc(x->n, sizeof *x->name);
    x->type = tp_calloc(x->n, sizeof *x->type);
    x->cells = tp_calloc(x->n, sizeof *x->cells);
    if (!x->name || !x->type || !x->cells)
        return TP_ENOMEM;
    for (size_t k = 0; k < x->n; k++) {
        x->name[k] = tp_trace_ext_name(t, (int)k);
        x->type[k] = tp_trace_ext_type(t, (int)k);
        x->cells[k] = tp_malloc(CT_EXT_WINDOW * sizeof(int64_t)); /* the widest cell */
        if (x->cells[k] == NULL)
            return TP_ENOMEM;
    }
    return TP_OK;
}

static void ext_free(ct_ext *x)
{
    for (size_t k = 0; x->cells && k < x->n; k++)
        tp_free(x->cells[k]);
    tp_free(x->name);
    tp_free(x->type);
    tp_free(x->cells);
}

/* Moves the window to hold row i (rows are written in order). */
static void ext_window(const tp_trace *t, ct_ext *x, size_t i, size_t nrows)
{
    if (x->n == 0 || (i >= x->base && i < x->base + x->rows))
        return;
    x->base = i;
    x->rows = nrows - i < CT_EXT_WINDOW ? nrows - i : CT_EXT_WINDOW;
    for (size_t k = 0; k < x->n && x->rc == TP_OK; k++)
        x->rc = tp_trace_ext_read(t, (int)k, x->base, x->rows, x->cells[k]);
}

static int ext_is_null(const ct_ext *x, size_t k, size_t i)
{
    i -= x->base;
    switch (x->type[k]) {
    case TP_COL_I32:
        return ((const int32_t *)x->cells[k])[i] == TP_EXT_NULL_I32;
    case TP_COL_I64:
        return ((const int64_t *)x->cells[k])[i] == TP_EXT_NULL_I64;
    case TP_COL_F64:
        return !isfinite(((const double *)x->cells[k])[i]); /* NaN is null; JSON has no inf */
    case TP_COL_SID:
        return ((const tp_str *)x->cells[k])[i] == 0;
    case TP_COL_STR:
        break;
    }
    return 1;
}

static int ext_row_has_cells(const ct_ext *x, size_t i)
{
    for (size_t k = 0; k < x->n; k++)
        if (!ext_is_null(x, k, i))
            return 1;
    return 0;
}

/* `"name": value` of a non-null cell. */
static void out_ext_cell(ct_out *o, tp_stage *st, const ct_ext *x, size_t k, size_t i)
{
    char num[40];
    out_json_str(o, x->name[k], strlen(x->name[k]));
    out_str(o, ": ");
    i -= x->base;
    switch (x->type[k]) {
    case TP_COL_I32:
        snprintf(num, sizeof num, "%" PRId32, ((const int32_t *)x->cells[k])[i]);
        break;
    case TP_COL_I64:
        snprintf(num, sizeof num, "%" PRId64, ((const int64_t *)x->cells[k])[i]);
        break;
    case TP_COL_F64:
        tp_fmt_f64(num, sizeof num, ((const double *)x->cells[k])[i]);
        break;
    case TP_COL_SID:
        out_interned(o, st, ((const tp_str *)x->cells[k])[i]);
        return;
    case TP_COL_STR:
        return;
    }
    out_str(o, num);
}

/* Args are JSON text a reader stored, possibly built from raw names
 * (snprintf): written as they are only when they are a valid JSON object
 * (jansson checks UTF-8 and control characters; big integers read as
 * reals), else as {"text": "<the bytes, escaped>"}. */
static int args_utf8_only(const char *args, size_t alen)
{
    for (size_t i = 0; i < alen; i++) {
        if ((unsigned char)args[i] < 0x80)
            continue;
        size_t u = utf8_at(args, i, alen);
        if (u == 0)
            return 0;
        i += u - 1;
    }
    return 1;
}

/* Args a JSON reader parsed (Kineto) are JSON already: only their bytes are
 * checked (one pass); others are parsed, once per event. */
static int args_valid(const ct_out *o, const char *args, size_t alen)
{
    if (o->args_parsed && args_utf8_only(args, alen))
        return 1;
    json_error_t err;
    json_t *v = json_loadb(args, alen, JSON_DECODE_INT_AS_REAL | JSON_ALLOW_NUL, &err);
    int ok = json_is_object(v);
    json_decref(v);
    return ok;
}

static void out_args_text(ct_out *o, const char *args, size_t alen)
{
    out_str(o, ", \"args\": {\"text\": ");
    out_json_str(o, args, alen);
}


/* The marks of row i (advancing the cursor): [*from, return). */
static size_t marks_of(ct_marks *m, size_t i, size_t *from)
{
    while (m->at < m->n && m->v[m->at].row < i)
        m->at++;
    *from = m->at;
    size_t to = m->at;
    while (to < m->n && m->v[to].row == i)
        to++;
    return to;
}

/* `, "key": value` of each mark of row i, after members already written. */
static void out_marks(ct_out *o, const ct_marks *m, size_t from, size_t to, int *members)
{
    for (size_t j = from; j < to; j++) {
        if (j > from && strcmp(m->v[j].key, m->v[j - 1].key) == 0)
            continue; /* sorted by (row, key, order): the first wins */
        if ((*members)++)
            out_str(o, ", ");
        out_json_str(o, m->v[j].key, strlen(m->v[j].key));
        out_str(o, ": ");
        out_str(o, m->v[j].value);
    }
}

/* The args object of event i with its non-null extension cells and the
 * marks [from, to) appended. */
static void out_args_ext(ct_out *o, tp_stage *st, const char *args, size_t alen, const ct_ext *x,
                         size_t i, const ct_marks *m, size_t from, size_t to)
{
    if (alen > 0 && !args_valid(o, args, alen)) {
        int one = 1;
        out_args_text(o, args, alen);
        for (size_t k = 0; k < x->n; k++)
            if (!ext_is_null(x, k, i)) {
                out_str(o, ", ");
                out_ext_cell(o, st, x, k, i);
            }
        out_marks(o, m, from, to, &one);
        out_str(o, "}");
        return;
    }
    size_t close = alen; /* the object's closing brace */
    while (close > 0 && args[close - 1] != '}')
        close--;
    int members = 0;
    for (size_t j = 1; j + 1 < close && !members; j++)
        members = args[j] != ' ' && args[j] != '\n' && args[j] != '\t' && args[j] != '\r';
    out_str(o, ", \"args\": ");
    if (close > 0)
        out_bytes(o, args, close - 1);
    else
        out_str(o, "{");
    for (size_t k = 0; k < x->n; k++) {
        if (ext_is_null(x, k, i))
            continue;
        if (members++)
            out_str(o, ", ");
        out_ext_cell(o, st, x, k, i);
    }
    out_marks(o, m, from, to, &members);
    out_str(o, "}");
}

static void write_event(ct_out *o, tp_stage *st, const tp_trace *t, const tp_cols *c, size_t i,
                        size_t n_str, const ct_ext *x, ct_marks *m)
{
    char ph = (char)c->phase[i];
    out_str(o, "  {\"ph\": ");
    out_json_str(o, &ph, 1);
    /* absent fields read back as "" (id 0), so "" is left out */
    if (c->cat[i] != 0) {
        out_str(o, ", \"cat\": ");
        out_interned(o, st, c->cat[i]);
    }
    out_str(o, ", \"name\": ");
    out_interned(o, st, c->name[i]);
    /* always written: an empty pid/tid ("" as Kineto writes for global
     * instants, or absent) reads back the same */
    out_str(o, ", \"pid\": ");
    out_pid(o, st, tp_ev_pid(c, i), n_str);
    out_str(o, ", \"tid\": ");
    out_id(o, st, tp_ev_tid(c, i), n_str);
    out_str(o, ", \"ts\": ");
    out_us(o, c->ts[i]);
    if (c->dur[i] >= 0) {
        out_str(o, ", \"dur\": ");
        out_us(o, c->dur[i]);
    }
    if ((ph == 's' || ph == 't' || ph == 'f' || ph == 'b' || ph == 'e' || ph == 'n') &&
        tp_ev_flow_id(c, i) != TP_NONE) {
        out_str(o, ", \"id\": ");
        out_id(o, st, tp_ev_flow_id(c, i), n_str);
        if (ph == 'f')
            out_str(o, ", \"bp\": \"e\""); /* bind to the enclosing slice, as Kineto writes */
    }
    size_t alen = 0;
    const char *args = tp_trace_args(t, i, &alen);
    if (args == NULL)
        alen = 0;
    size_t from, to = marks_of(m, i, &from);
    if ((x->n > 0 && ext_row_has_cells(x, i)) || to > from) {
        out_args_ext(o, st, args, alen, x, i, m, from, to);
    } else if (alen > 0 && !args_valid(o, args, alen)) {
        out_args_text(o, args, alen);
        out_str(o, "}");
    } else if (alen > 0) {
        out_str(o, ", \"args\": ");
        out_bytes(o, args, alen);
    }
    out_str(o, "}");
}

static void write_header(ct_out *o, const tp_trace *t)
{
    out_str(o, "{\n");
    for (size_t k = 0; k < tp_trace_meta_count(t); k++) {
        const char *key = tp_trace_meta_key(t, k);
        if (strcmp(key, "traceEvents") == 0)
            continue;
        out_str(o, "  ");
        out_json_str(o, key, strlen(key));
        out_str(o, ": ");
        out_str(o, tp_trace_meta(t, key));
        out_str(o, ",\n");
    }
    out_str(o, "  \"traceEvents\": [\n");
}

static int is_process_name(tp_stage *st, const tp_cols *c, size_t i)
{
    const char *n = c->phase[i] == 'M' ? tp_str_text(st, c->name[i]) : NULL;
    return n && strcmp(n, "process_name") == 0;
}

static void write_events(ct_out *o, tp_stage *st, const tp_trace *t, ct_ext *x, ct_marks *m,
                         int *first)
{
    const tp_cols *c = tp_trace_cols(t);
    size_t n_str = tp_str_count(st);
    const char *format = tp_trace_info_str(t, "format");
    o->args_parsed = format && strcmp(format, "kineto") == 0;
    for (size_t i = 0; i < c->n && !o->err; i++) {
        if (o->multi && is_process_name(st, c, i))
            continue; /* written again with the rank (process_names) */
        if (!*first)
            out_str(o, ",\n");
        *first = 0;
        ext_window(t, x, i, c->n);
        if (x->rc != TP_OK)
            break;
        write_event(o, st, t, c, i, n_str, x, m);
        if ((i & 0xFFFF) == 0xFFFF && !o->multi)
            tp_progress(st, i + 1, c->n);
    }
}

/* Several traces: each process of trace k named "rank R: <its name>". */
static void process_names(ct_out *o, tp_stage *st, const tp_trace *t, int *first)
{
    const tp_cols *c = tp_trace_cols(t);
    for (size_t k = 0; k < c->n_tracks; k++) {
        int64_t pid = c->tracks[k].pid;
        int seen = 0;
        for (size_t j = 0; j < k && !seen; j++)
            seen = c->tracks[j].pid == pid;
        if (seen || TP_ID_IS_STR(pid))
            continue;
        char name[600];
        int len = snprintf(name, sizeof name, "rank %lld: pid %lld", (long long)o->rank,
                           (long long)pid);
        for (size_t i = 0; i < c->n; i++) { /* its own process_name, if any */
            size_t alen = 0, vlen = 0;
            const char *args = is_process_name(st, c, i) && tp_ev_pid(c, i) == pid
                                   ? tp_trace_args(t, i, &alen)
                                   : NULL;
            const char *v = args ? tp_json_get(args, alen, "name", &vlen) : NULL;
            char text[512];
            long tl = v ? tp_json_str(v, vlen, text, sizeof text) : -1;
            if (tl >= 0 && (size_t)tl < sizeof text) {
                len = snprintf(name, sizeof name, "rank %lld: %s", (long long)o->rank, text);
                break;
            }
        }
        if (!*first)
            out_str(o, ",\n");
        *first = 0;
        out_str(o, "  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": ");
        out_i64(o, o->pid_base + pid);
        out_str(o, ", \"args\": {\"name\": ");
        out_json_str(o, name, len > 0 && (size_t)len < sizeof name ? (size_t)len : 0);
        out_str(o, "}}");
    }
}

/* ------------------------------------------------------------ overlays */

/* Counter overlays (CONVENTIONS, "Chrome-trace overlays"): each input
 * result of kind `counter` (series, pid, device, stream, start_us, value:
 * docs/plugins/counters.md) as counter events of the trace it was made
 * from, one track per (pid, series, stream): "<series> stream <s>".  What
 * they need of each trace, its id and window start, is kept while the
 * events are written: the traces come one at a time (TP_STAGE_F_STREAM). */
typedef struct ct_seen {
    tp_str *id; /* each trace's id, interned */
    int64_t *t0;
} ct_seen;

static int seen_keep(tp_stage *st, ct_seen *seen, size_t k, const tp_trace *t)
{
    const char *id = tp_trace_id(t);
    int64_t hi;
    seen->t0[k] = 0;
    tp_trace_window(t, &seen->t0[k], &hi);
    seen->id[k] = tp_intern(st, id ? id : "", id ? strlen(id) : 0);
    return seen->id[k] == TP_STR_ERROR ? TP_ENOMEM : TP_OK;
}

static size_t trace_of(tp_stage *st, const tp_result *r, const ct_seen *seen, size_t ntraces)
{
    const char *id = tp_result_meta(r, "trace");
    for (size_t k = 0; id && k < ntraces; k++)
        if (strcmp(tp_str_text(st, seen->id[k]), id) == 0)
            return k;
    return 0;
}

/* The columns of a `counter` overlay, by name. */
typedef struct ct_counter_cols {
    int series, pid, device, stream, start_us, value;
} ct_counter_cols;

/* Is r a `counter` overlay with every column?  Its columns into *c. */
static int counter_cols(const tp_result *r, ct_counter_cols *c)
{
    if (strcmp(tp_result_kind(r), "counter") != 0)
        return 0;
    c->series = tp_result_find_col(r, "series");
    c->pid = tp_result_find_col(r, "pid");
    c->device = tp_result_find_col(r, "device");
    c->stream = tp_result_find_col(r, "stream");
    c->start_us = tp_result_find_col(r, "start_us");
    c->value = tp_result_find_col(r, "value");
    return c->series >= 0 && c->pid >= 0 && c->device >= 0 && c->stream >= 0 && c->start_us >= 0 &&
           c->value >= 0;
}

static void write_counter(ct_out *o, const tp_result *r, size_t row, const ct_counter_cols *col,
                          int64_t t0, int64_t pid_base)
{
    const char *series = tp_result_get_str(r, row, col->series);
    int64_t pid = tp_result_is_null(r, row, col->pid)
                      ? (tp_result_is_null(r, row, col->device) ? 0 : tp_result_get_i64(r, row, col->device))
                      : tp_result_get_i64(r, row, col->pid);
    char name[300], value[40];
    int n = tp_result_is_null(r, row, col->stream)
                ? snprintf(name, sizeof name, "%s", series)
                : snprintf(name, sizeof name, "%s stream %lld", series,
                           (long long)tp_result_get_i64(r, row, col->stream));
    int vn = snprintf(value, sizeof value, "%.17g", tp_result_get_f64(r, row, col->value));
    out_str(o, "  {\"ph\": \"C\", \"name\": ");
    out_json_str(o, name, n > 0 && (size_t)n < sizeof name ? (size_t)n : 0);
    out_str(o, ", \"pid\": ");
    out_i64(o, pid_base + pid);
    out_str(o, ", \"ts\": ");
    out_us(o, t0 + llround(tp_result_get_f64(r, row, col->start_us) * 1000.0));
    out_str(o, ", \"args\": {");
    out_json_str(o, series, strlen(series));
    out_str(o, ": ");
    out_bytes(o, value, (size_t)(vn > 0 && (size_t)vn < sizeof value ? vn : 0));
    out_str(o, "}}");
}

static size_t write_overlays(ct_out *o, tp_stage *st, const ct_seen *seen, size_t ntraces,
                             int *first)
{
    size_t written = 0;
    for (size_t i = 0; i < tp_input_count(st) && !o->err; i++) {
        const tp_result *r = tp_input(st, i);
        ct_counter_cols col;
        if (!counter_cols(r, &col))
            continue;
        size_t k = trace_of(st, r, seen, ntraces);
        int64_t t0 = seen->t0[k];
        int64_t pid_base = o->multi ? ((int64_t)k + 1) * CT_PID_STRIDE : 0;
        for (size_t row = 0; row < tp_result_rows(r); row++) {
            if (tp_result_is_null(r, row, col.series) || tp_result_is_null(r, row, col.start_us) ||
                tp_result_is_null(r, row, col.value))
                continue;
            if (!*first)
                out_str(o, ",\n");
            *first = 0;
            write_counter(o, r, row, &col, t0, pid_base);
            written++;
        }
    }
    return written;
}

static void write_footer(ct_out *o, int first)
{
    out_str(o, first ? "  ]\n}\n" : "\n  ]\n}\n");
    out_flush(o);
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

static int open_out(ct_out *o, const char *tmp, int gz, int64_t level)
{
    errno = 0;
    if (gz) {
        char mode[4] = {'w', 'b', (char)('0' + level), '\0'};
        if ((o->gz = gzopen(tmp, mode)) == NULL)
            return errno ? errno : EIO;
        gzbuffer(o->gz, 1u << 17);
    } else if ((o->f = fopen(tmp, "wb")) == NULL) {
        return errno ? errno : EIO;
    }
    return 0;
}

/* Closes the file; the first error of writing or closing, or 0. */
static int close_out(ct_out *o)
{
    int err = o->err;
    errno = 0;
    if (o->gz && gzclose(o->gz) != Z_OK && !err)
        err = errno ? errno : EIO;
    if (o->f && fclose(o->f) != 0 && !err)
        err = errno ? errno : EIO;
    o->gz = NULL;
    o->f = NULL;
    return err;
}

/* Trace k's events (with several, its processes named by rank), with its
 * marks and flow ends (from t alone: in a streamed batch, asking for
 * another trace would let t go).  Added to *events: its event count. */
static int write_trace(ct_out *o, tp_stage *st, size_t k, ct_seen *seen, ct_flows *flows,
                       int *first, size_t *events)
{
    ct_ext x = {0};
    ct_marks m = {0};
    const tp_trace *t = tp_stage_trace_at(st, k);
    int rc = t == NULL ? TP_EIO : ct_load_marks(st, t, k, &m);
    rc = rc ? rc : ext_load(t, &x);
    rc = rc ? rc : seen_keep(st, seen, k, t);
    if (rc == TP_OK) {
        o->rank = ct_trace_rank(t, k);
        o->pid_base = ((int64_t)k + 1) * CT_PID_STRIDE;
        write_events(o, st, t, &x, &m, first);
        rc = x.rc != TP_OK ? tp_fail(st, x.rc, "plugin bug: reading extension columns") : TP_OK;
        if (o->multi)
            process_names(o, st, t, first);
        ct_flows_keep(st, flows, t, k);
        *events += tp_trace_cols(t)->n;
    }
    ext_free(&x);
    tp_free(m.v);
    return rc;
}

static int ct_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const ct_config *cfg = config;
    size_t ntraces = tp_stage_trace_count(st);
    const tp_trace *t0 = tp_stage_trace(st);
    if (t0 == NULL)
        return tp_fail(st, TP_EINVAL, "no trace to write: put a reader first");
    const char *tmp = tp_output_begin(st, cfg->path);
    if (tmp == NULL)
        return TP_EIO;
    ct_out *o = tp_calloc(1, sizeof *o);
    ct_seen seen = {tp_calloc(ntraces ? ntraces : 1, sizeof *seen.id),
                    tp_calloc(ntraces ? ntraces : 1, sizeof *seen.t0)};
    int err = o && seen.id && seen.t0 ? open_out(o, tmp, ends_with(cfg->path, ".gz"), cfg->level)
                                      : ENOMEM;
    if (err != 0) {
        tp_free(o);
        tp_free(seen.id);
        tp_free(seen.t0);
        return err == ENOMEM ? tp_fail(st, TP_ENOMEM, "out of memory")
                             : tp_fail(st, TP_EIO, "%s: cannot create: %s", cfg->path,
                                       strerror(err));
    }
    o->multi = ntraces > 1;
    write_header(o, t0);
    int first = 1;
    ct_flows flows;
    int rc = ct_flows_init(st, &flows);
    size_t total = 0;
    /* one trace at a time, in order: each is let go when the next is asked for */
    for (size_t k = 0; k < ntraces && rc == TP_OK && !o->err; k++) {
        rc = write_trace(o, st, k, &seen, &flows, &first, &total);
        if (o->multi)
            tp_progress(st, k + 1, ntraces);
    }
    size_t overlays = rc == TP_OK ? write_overlays(o, st, &seen, ntraces, &first) : 0;
    overlays += rc == TP_OK ? ct_write_flows(o, st, &flows, seen.t0, &first) : 0;
    ct_flows_free(&flows);
    write_footer(o, first);
    err = close_out(o);
    tp_free(o);
    tp_free(seen.id);
    tp_free(seen.t0);
    if (rc != TP_OK)
        return tp_fail(st, rc, "out of memory");
    if (err != 0)
        return tp_fail(st, TP_EIO, "%s: cannot write: %s", cfg->path, strerror(err));
    tp_log(st, TP_LOG_INFO, "wrote %zu events of %zu trace(s)%s to %s", total, ntraces,
           overlays ? " and overlays" : "", cfg->path);
    return TP_OK;
}

static const tp_stage_desc ct_stages[] = {
    TP_STAGE_FULL(TP_STAGE_WRITER, "chrome_trace",
                  "write the trace as Chrome-trace JSON (Perfetto UI, chrome://tracing), .gz by extension",
                  ct_options, ct_config, NULL, TP_PRODUCES_NONE,
                  TP_STAGE_F_TRACES | TP_STAGE_F_STREAM | TP_STAGE_F_OVERLAYS,
                  NULL, ct_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("chrome_trace", "0.1.0", ct_stages);
