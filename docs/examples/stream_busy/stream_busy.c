/*
 * Example third-party analysis built against the installed SDK
 * (docs/plugins.md): per GPU stream, the busy time of its kernels, copies
 * and sets as an interval union, the device's name from the trace info, and
 * how many of its activities carry a "correlation" arg (read with the SDK's
 * JSON access), and the device name's length in characters (the SDK's safe
 * text, tp_sdk_text.h).  It also tags every activity row with its stream's row in
 * the result, as the extension column `stream_busy.row`, for later stages.
 *
 *   cc -std=c11 -shared -fPIC -fvisibility=hidden -Wl,--no-undefined \
 *      $(pkg-config --cflags tracepipe) -o stream_busy.so stream_busy.c \
 *      $(pkg-config --libs tracepipe)
 */
#include <stdio.h>
#include <stdlib.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

typedef struct sb_config {
    int unused;
} sb_config;

/* One stream: its rows are gathered as intervals, then united. */
typedef struct sb_stream {
    int32_t device, stream;
    tp_interval *iv;
    size_t n, cap;
    int64_t correlated;
} sb_stream;

typedef struct sb {
    sb_stream *s;
    size_t n;
} sb;

static sb_stream *stream_of(sb *b, int32_t device, int32_t stream)
{
    for (size_t k = 0; k < b->n; k++)
        if (b->s[k].device == device && b->s[k].stream == stream)
            return &b->s[k];
    sb_stream *s = tp_realloc(b->s, (b->n + 1) * sizeof *s);
    if (s == NULL)
        return NULL;
    b->s = s;
    s[b->n] = (sb_stream){.device = device, .stream = stream};
    return &s[b->n++];
}

static int add_interval(sb_stream *s, int64_t start, int64_t end)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? 2 * s->cap : 64;
        tp_interval *iv = tp_realloc(s->iv, cap * sizeof *iv);
        if (iv == NULL)
            return TP_ENOMEM;
        s->iv = iv;
        s->cap = cap;
    }
    s->iv[s->n++] = (tp_interval){start, end};
    return TP_OK;
}

static int has_correlation(const tp_trace *t, size_t row)
{
    size_t len = 0, vlen = 0;
    int64_t id;
    const char *args = tp_trace_args(t, row, &len);
    const char *v = args ? tp_json_get(args, len, "correlation", &vlen) : NULL;
    return v != NULL && tp_json_i64(v, vlen, &id) == TP_OK;
}

/* Gathers the streams and tags each activity with its stream's index. */
static int gather(tp_stage *st, tp_trace *t, sb *b)
{
    const tp_cols *c = tp_trace_cols(t);
    int col = tp_trace_ext_add(st, t, "stream_busy.row", TP_COL_I32);
    if (col < 0)
        return col;
    for (size_t i = 0; i < c->n; i++) {
        if (!tp_ev_is_activity(c, i))
            continue;
        sb_stream *s = stream_of(b, tp_ev_device(c, i), tp_ev_stream(c, i));
        if (s == NULL || add_interval(s, c->ts[i], c->ts[i] + c->dur[i]) != TP_OK)
            return TP_ENOMEM;
        s->correlated += has_correlation(t, i);
        int rc = tp_trace_ext_set_i32(st, t, col, i, (int32_t)(s - b->s));
        if (rc != TP_OK)
            return rc;
    }
    return TP_OK;
}

/* Characters of UTF-8 text s (NULL: none); an invalid byte counts as one. */
static int64_t text_chars(const char *s)
{
    int64_t chars = 0;
    for (const unsigned char *p = (const unsigned char *)s; p && *p; chars++) {
        size_t n = tp_utf8_len(p);
        p += n ? n : 1;
    }
    return chars;
}

static int emit(tp_stage *st, const tp_trace *t, sb *b)
{
    tp_result *r = tp_result_new(st, NULL);
    if (r == NULL)
        return TP_ENOMEM;
    const char *names[] = {"device", "device_name", "stream",    "count",
                           "busy_us", "correlated", "name_chars"};
    const tp_coltype types[] = {TP_COL_I64, TP_COL_STR, TP_COL_I64, TP_COL_I64,
                                TP_COL_F64, TP_COL_I64, TP_COL_I64};
    for (int k = 0; k < 7; k++)
        if (tp_result_add_col(st, r, names[k], types[k]) != k)
            return TP_ENOMEM;
    for (size_t k = 0; k < b->n; k++) {
        sb_stream *s = &b->s[k];
        size_t count = s->n, row;
        size_t u = tp_intervals_union(s->iv, s->n);
        char key[64];
        snprintf(key, sizeof key, "device.%d.name", (int)s->device);
        int rc = tp_result_add_row(st, r, &row);
        rc = rc ? rc : tp_result_set_i64(st, r, row, 0, s->device);
        const char *device_name = tp_trace_info_str(t, key);
        rc = rc ? rc : tp_result_set_str(st, r, row, 1, device_name);
        rc = rc ? rc : tp_result_set_i64(st, r, row, 2, s->stream);
        rc = rc ? rc : tp_result_set_i64(st, r, row, 3, (int64_t)count);
        rc = rc ? rc : tp_result_set_f64(st, r, row, 4, (double)tp_intervals_length(s->iv, u) / 1e3);
        rc = rc ? rc : tp_result_set_i64(st, r, row, 5, s->correlated);
        rc = rc ? rc : tp_result_set_i64(st, r, row, 6, text_chars(device_name));
        if (rc != TP_OK)
            return rc;
    }
    return TP_OK;
}

static int sb_run(tp_stage *st, const void *config, void *state)
{
    (void)config, (void)state;
    tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    sb b = {0};
    int rc = gather(st, t, &b);
    if (rc == TP_OK)
        rc = emit(st, t, &b);
    for (size_t k = 0; k < b.n; k++)
        tp_free(b.s[k].iv);
    tp_free(b.s);
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "stream_busy failed (%d)", rc);
}

static const tp_stage_desc sb_stages[] = {
    TP_STAGE_FULL(TP_STAGE_ANALYSIS, "stream_busy",
                  "busy time per GPU stream (interval union), device names, correlated activities",
                  NULL, sb_config, NULL, TP_PRODUCES(""), 0, NULL, sb_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("stream_busy", "1.0.0", sb_stages);
