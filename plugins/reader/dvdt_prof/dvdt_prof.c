/*
 * reader dvdt_prof: dividiti's dvdt-prof OpenCL profiles (cjson mode,
 * FORMATS.md section 3; seed 000).
 *
 * The file is a JSON array of intercepted calls in call order.  Every call
 * is a runtime event on the host clock (its ISO-8601 UTC start and end, us
 * resolution); each clEnqueueNDRangeKernel is also a kernel event on the
 * device clock (profiling start/end, ns) moved onto the host clock by the
 * median of (host start - profiling.queued) over the enqueues, the two
 * sharing a synthetic correlation id (the enqueue's ordinal), so launch
 * links, streams and kernel statistics work as for CUDA.  Device and stream
 * are the queue's device and the queue, numbered by first appearance.
 * Kernel arguments are sticky: an enqueue gets, per index, the latest
 * clSetKernelArg of its kernel handle (reset when clCreateKernel returns
 * the handle again), written into its args with gws, lws, gwo and the
 * profiling counters; queued/submit times and work sizes are also
 * extension columns.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_rows.h>

typedef struct dv_config {
    const char *path;
} dv_config;

static const tp_option dv_options[] = {
    TP_OPTION_REQUIRED_INPUT_FILE("path", dv_config, path, "the dvdt-prof JSON profile"),
    TP_OPTION_END};

enum { X_QUEUED, X_SUBMIT, X_GWS0, X_GWS1, X_GWS2, X_LWS0, X_LWS1, X_LWS2, N_X };
static const char *const ext_names[N_X] = {"opencl.queued_ns", "opencl.submit_ns",
                                           "opencl.gws_0", "opencl.gws_1", "opencl.gws_2",
                                           "opencl.lws_0", "opencl.lws_1", "opencl.lws_2"};

/* Sticky kernel arguments: the latest value per (kernel handle, index).
 * Handles and (kernel, index) keys are found through the string pool's
 * hash (issue 32: a list scanned per call was quadratic); a kernel's
 * current args are a chain through dv_arg.next, forgotten in O(1) by
 * starting a new generation. */
typedef struct dv_arg {
    int64_t index;
    const char *value; /* borrowed from the DOM */
    uint32_t next;     /* the kernel's previously linked arg + 1; 0 ends */
    uint32_t gen;      /* the kernel's generation it was set in */
} dv_arg;

typedef struct dv_kernel {
    uint32_t head; /* its latest linked arg + 1 */
    uint32_t gen;
} dv_kernel;

/* Per string id, an index + 1 (0: none). */
typedef struct dv_slots {
    uint32_t *at;
    size_t n;
} dv_slots;

typedef struct dv {
    tp_stage *st;
    tp_trace *t;
    const char *path;
    json_t *doc;
    int ext[N_X];
    tp_str cat_api, cat_kernel;
    dv_arg *args;
    size_t nargs, cap;
    dv_kernel *kernels;
    size_t nkernels, kcap;
    dv_slots kslot, aslot; /* handle id -> kernel; key id -> arg */
    const char *queues[64], *devices[64]; /* queue handle -> its device handle */
    size_t nqueues;
    const char *device_ids[64];
    size_t ndevices;
    size_t beyond; /* queues or devices past the 64th, sharing the last index */
    size_t rows;
    int offset_ok;       /* the device clock's offset fits in int64 ns */
    tp_rows_tally drop; /* damaged rows dropped (tp_sdk_rows.h) */
} dv;

/* "2018-02-09T10:36:48.553314" (UTC) -> ns since the epoch; 0 when not in
 * that shape. */
static int parse_iso(const char *s, int64_t *ns)
{
    int y, mo, d, h, mi;
    double sec;
    if (s == NULL || sscanf(s, "%d-%d-%d%*c%d:%d:%lf", &y, &mo, &d, &h, &mi, &sec) != 6)
        return 0;
    /* a date whose nanoseconds since 1970 fit in int64 (years 1678-2261) */
    if (y < 1678 || y > 2261 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 24 ||
        mi < 0 || mi > 59 || !(sec >= 0 && sec < 62))
        return 0;
    /* days from the civil date (proleptic Gregorian) */
    y -= mo <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    int64_t days = era * 146097 + doe - 719468;
    int64_t whole = (int64_t)sec;
    int64_t us = (int64_t)((sec - (double)whole) * 1e6 + 0.5);
    *ns = (((days * 24 + h) * 60 + mi) * 60 + whole) * 1000000000LL + us * 1000;
    return 1;
}

static int64_t int_of(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? json_integer_value(v) : json_is_real(v) ? tp_f64_to_i64(json_real_value(v)) : 0;
}

static const char *str_of(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);
    return json_is_string(v) ? json_string_value(v) : NULL;
}

static int host_span(json_t *rec, int64_t *start, int64_t *end)
{
    json_t *ts = json_object_get(rec, "timestamp");
    return json_is_object(ts) && parse_iso(str_of(ts, "start"), start) &&
           parse_iso(str_of(ts, "end"), end);
}

/* A device-clock time of the profiling object (integer ns, or a real one
 * when finite and in int64 range): TP_ROWS_N_REASONS and *ns, or why not;
 * an absent one is 0 as before. */
static tp_rows_reason prof_time(json_t *prof, const char *key, int64_t *ns)
{
    json_t *v = json_object_get(prof, key);
    *ns = json_is_integer(v) ? json_integer_value(v) : 0;
    return json_is_real(v) ? tp_rows_ns(json_real_value(v), 1, ns) : TP_ROWS_N_REASONS;
}

/* The index of handle `key` in list, added at the end when new (a NULL
 * handle is one more handle); at most 64, the last one shared beyond (and
 * counted in *beyond, which the reader warns about). */
static int index_of(const char **list, size_t *n, const char *key, size_t *beyond)
{
    for (size_t i = 0; i < *n; i++)
        if (key == list[i] || (key && list[i] && strcmp(list[i], key) == 0))
            return (int)i;
    if (*n == 64) {
        ++*beyond;
        return 63;
    }
    list[*n] = key;
    return (int)(*n)++;
}

/* ------------------------------------------------------- sticky args */

/* Doubles *p (n elements of size bytes, *cap allocated) until need fit. */
static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return TP_OK;
    size_t c = *cap ? *cap : 64;
    while (c < need)
        c *= 2;
    void *g = tp_realloc(*p, c * size);
    if (g == NULL)
        return TP_ENOMEM;
    *p = g;
    *cap = c;
    return TP_OK;
}

/* The slot of string id `id`, the table grown (zeroed) to hold it. */
static uint32_t *slot_of(dv *d, dv_slots *t, tp_str id)
{
    if (id >= t->n) {
        size_t n = t->n, want = (size_t)id + 1 > tp_str_count(d->st) ? (size_t)id + 1
                                                                    : tp_str_count(d->st);
        if (grow((void **)&t->at, &n, want, sizeof *t->at) != TP_OK)
            return NULL;
        memset(t->at + t->n, 0, (n - t->n) * sizeof *t->at);
        t->n = n;
    }
    return &t->at[id];
}

/* Kernel handle -> its record; NULL when unknown (create 0) or out of memory. */
static dv_kernel *kernel_of(dv *d, const char *handle, int create)
{
    tp_str id;
    if (create)
        id = tp_intern(d->st, handle, strlen(handle));
    else if (!tp_str_lookup(d->st, handle, strlen(handle), &id))
        return NULL;
    uint32_t *slot = slot_of(d, &d->kslot, id);
    if (slot == NULL || (*slot == 0 && !create))
        return NULL;
    if (*slot == 0) {
        if (grow((void **)&d->kernels, &d->kcap, d->nkernels + 1, sizeof *d->kernels) != TP_OK)
            return NULL;
        d->kernels[d->nkernels++] = (dv_kernel){0, 0};
        *slot = (uint32_t)d->nkernels;
    }
    return &d->kernels[*slot - 1];
}

static int set_arg(dv *d, const char *kernel, int64_t index, const char *value)
{
    dv_kernel *k = kernel_of(d, kernel, 1);
    if (k == NULL)
        return TP_ENOMEM;
    char key[48]; /* "<kernel number>:<index>" */
    int len = snprintf(key, sizeof key, "%zu:%lld", (size_t)(k - d->kernels), (long long)index);
    uint32_t *slot = slot_of(d, &d->aslot, tp_intern(d->st, key, (size_t)len));
    if (slot == NULL)
        return TP_ENOMEM;
    if (*slot == 0) {
        if (grow((void **)&d->args, &d->cap, d->nargs + 1, sizeof *d->args) != TP_OK)
            return TP_ENOMEM;
        d->args[d->nargs++] = (dv_arg){index, value, 0, k->gen + 1}; /* linked below */
        *slot = (uint32_t)d->nargs;
    }
    dv_arg *a = &d->args[*slot - 1];
    if (a->gen != k->gen) { /* new, or set before the kernel was created again */
        a->gen = k->gen;
        a->next = k->head;
        k->head = *slot;
    }
    a->value = value;
    return TP_OK;
}

static void forget_kernel(dv *d, const char *kernel)
{
    dv_kernel *k = kernel_of(d, kernel, 0);
    if (k != NULL) {
        k->gen++;
        k->head = 0;
    }
}

/* The args object of an enqueue: work sizes, counters, its kernel's args. */
static char *enqueue_args(dv *d, json_t *rec)
{
    json_t *o = json_object();
    if (o == NULL)
        return NULL;
    static const char *const copy[] = {"gws", "lws", "gwo", "kernel", "queue", "errcode"};
    for (size_t i = 0; i < 6; i++) {
        json_t *v = json_object_get(rec, copy[i]);
        if (v)
            json_object_set(o, copy[i], v);
    }
    json_t *prof = json_object_get(rec, "profiling");
    if (json_is_object(prof)) {
        json_object_set(o, "queued", json_object_get(prof, "queued"));
        json_object_set(o, "submit", json_object_get(prof, "submit"));
    }
    const char *kernel = str_of(rec, "kernel");
    json_t *args = json_object();
    const dv_kernel *k = kernel ? kernel_of(d, kernel, 0) : NULL;
    for (uint32_t i = k ? k->head : 0; args && i != 0; i = d->args[i - 1].next) {
        char key[32];
        snprintf(key, sizeof key, "%lld", (long long)d->args[i - 1].index);
        json_object_set_new(args, key, json_string(d->args[i - 1].value));
    }
    if (args)
        json_object_set_new(o, "args", args);
    char *text = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
    json_decref(o);
    return text;
}

/* ------------------------------------------------------------ records */

/* The median of (host start - profiling.queued) over the enqueues, in
 * doubles (a damaged queued time may be anywhere in int64); d->offset_ok
 * says whether it fits in int64 ns. */
static int64_t clock_offset(dv *d)
{
    size_t n = json_array_size(d->doc), m = 0;
    double *v = tp_malloc((n ? n : 1) * sizeof *v);
    if (v == NULL)
        return 0;
    for (size_t i = 0; i < n; i++) {
        json_t *rec = json_array_get(d->doc, i);
        json_t *prof = json_object_get(rec, "profiling");
        int64_t s, e, q;
        const char *call = str_of(rec, "call");
        if (call && strcmp(call, "clEnqueueNDRangeKernel") == 0 && json_is_object(prof) &&
            host_span(rec, &s, &e) && prof_time(prof, "queued", &q) == TP_ROWS_N_REASONS)
            v[m++] = (double)s - (double)q;
    }
    tp_stats st;
    int64_t off = 0;
    d->offset_ok = m == 0 || (tp_stats_of(v, m, &st) == TP_OK &&
                              tp_rows_ns(st.p50, 1, &off) == TP_ROWS_N_REASONS);
    tp_free(v);
    return off;
}

static int append(dv *d, tp_event *e)
{
    int rc = tp_trace_append(d->st, d->t, e);
    if (rc == TP_OK)
        d->rows++;
    return rc;
}

static int set_ext(dv *d, int which, int64_t v)
{
    return tp_trace_ext_set_i64(d->st, d->t, d->ext[which], d->rows - 1, v);
}

/* A device time moved onto the host clock: why not, or TP_ROWS_N_REASONS. */
static tp_rows_reason host_time(const dv *d, json_t *prof, const char *key, int64_t offset,
                                int64_t *ns)
{
    int64_t raw;
    tp_rows_reason why = prof_time(prof, key, &raw);
    if (why == TP_ROWS_N_REASONS && !(d->offset_ok && tp_rows_add(raw, offset, ns)))
        why = TP_ROWS_RANGE;
    return why;
}

/* A profiling counter as an extension column; left null when damaged. */
static int set_prof_ext(dv *d, int which, json_t *prof, const char *key, int64_t offset)
{
    int64_t ns;
    return host_time(d, prof, key, offset, &ns) == TP_ROWS_N_REASONS ? set_ext(d, which, ns)
                                                                     : TP_OK;
}

static int kernel_event(dv *d, json_t *rec, size_t rec_no, int64_t corr, int64_t offset)
{
    json_t *prof = json_object_get(rec, "profiling");
    if (!json_is_object(prof) || json_object_get(rec, "output profiling_error"))
        return TP_OK; /* no reliable device times: the host call stays */
    tp_event e;
    memset(&e, 0, sizeof e);
    int64_t end;
    tp_rows_reason why = host_time(d, prof, "start", offset, &e.ts);
    why = why != TP_ROWS_N_REASONS ? why : host_time(d, prof, "end", offset, &end);
    why = why != TP_ROWS_N_REASONS ? why : tp_rows_dur(e.ts, end, &e.dur);
    if (why != TP_ROWS_N_REASONS) {
        tp_rows_drop(&d->drop, why, "record %zu", rec_no);
        return TP_OK; /* the host call stays */
    }
    e.phase = 'X';
    e.kind = TP_KIND_KERNEL;
    e.cat = d->cat_kernel;
    const char *name = str_of(rec, "name");
    e.name = tp_intern(d->st, name ? name : "", name ? strlen(name) : 0);
    const char *queue = str_of(rec, "queue");
    int q = index_of(d->queues, &d->nqueues, queue, &d->beyond);
    e.stream = (int32_t)q;
    e.device = (int32_t)index_of(d->device_ids, &d->ndevices, d->devices[q], &d->beyond);
    e.pid = e.device;
    e.tid = e.stream;
    e.corr = corr;
    e.ext_id = e.flow_id = TP_NONE;
    char *args = enqueue_args(d, rec);
    e.args = args;
    e.args_len = args ? strlen(args) : 0;
    int rc = append(d, &e);
    free(args);
    rc = rc ? rc : set_prof_ext(d, X_QUEUED, prof, "queued", offset);
    rc = rc ? rc : set_prof_ext(d, X_SUBMIT, prof, "submit", offset);
    json_t *gws = json_object_get(rec, "gws"), *lws = json_object_get(rec, "lws");
    for (int i = 0; i < 3 && rc == TP_OK; i++) {
        rc = set_ext(d, X_GWS0 + i, json_integer_value(json_array_get(gws, (size_t)i)));
        rc = rc ? rc : set_ext(d, X_LWS0 + i, json_integer_value(json_array_get(lws, (size_t)i)));
    }
    return rc;
}

static int record(dv *d, json_t *rec, size_t i, int64_t *ordinal, int64_t offset)
{
    const char *call = str_of(rec, "call");
    int64_t s, end;
    if (call == NULL || !host_span(rec, &s, &end))
        return tp_fail(d->st, TP_EFORMAT, "%s: record %zu: needs \"call\" and "
                       "\"timestamp\": {\"start\", \"end\"} (ISO 8601, years 1678-2261)", d->path, i);
    if (strcmp(call, "clSetKernelArg") == 0) {
        const char *k = str_of(rec, "kernel"), *v = str_of(rec, "arg_value");
        if (k && v && set_arg(d, k, int_of(rec, "arg_index"), v) != TP_OK)
            return TP_ENOMEM;
    } else if (strcmp(call, "clCreateKernel") == 0 && str_of(rec, "kernel")) {
        forget_kernel(d, str_of(rec, "kernel"));
    } else if (strcmp(call, "clCreateCommandQueue") == 0 && str_of(rec, "queue")) {
        int q = index_of(d->queues, &d->nqueues, str_of(rec, "queue"), &d->beyond);
        d->devices[q] = str_of(rec, "device");
    }
    int enqueue = strcmp(call, "clEnqueueNDRangeKernel") == 0;
    tp_event e;
    memset(&e, 0, sizeof e);
    e.phase = 'X';
    e.kind = TP_KIND_RUNTIME;
    e.cat = d->cat_api;
    e.name = tp_intern(d->st, call, strlen(call));
    e.ts = s;
    e.device = e.stream = -1;
    e.pid = e.tid = 1; /* the one profiled host thread */
    e.ext_id = e.flow_id = TP_NONE;
    e.corr = enqueue ? ++*ordinal : TP_NONE;
    tp_rows_reason why = tp_rows_dur(s, end, &e.dur);
    int rc = TP_OK;
    if (why == TP_ROWS_N_REASONS)
        rc = append(d, &e);
    else
        tp_rows_drop(&d->drop, why, "record %zu", i); /* its kernel, if sound, stays */
    return rc == TP_OK && enqueue ? kernel_event(d, rec, i, *ordinal, offset) : rc;
}

static int dv_read(dv *d)
{
    static const char *const cats[] = {"opencl_api", "opencl_kernel"};
    d->cat_api = tp_intern(d->st, cats[0], strlen(cats[0]));
    d->cat_kernel = tp_intern(d->st, cats[1], strlen(cats[1]));
    for (int i = 0; i < N_X; i++)
        if ((d->ext[i] = tp_trace_ext_add(d->st, d->t, ext_names[i], TP_COL_I64)) < 0)
            return TP_ENOMEM;
    int rc = tp_trace_info_set_str(d->st, d->t, "format", "dvdt-prof");
    int64_t offset = clock_offset(d), ordinal = 0;
    size_t n = json_array_size(d->doc);
    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        json_t *rec = json_array_get(d->doc, i);
        rc = json_is_object(rec) ? record(d, rec, i, &ordinal, offset)
                                 : tp_fail(d->st, TP_EFORMAT, "%s: record %zu is not an object",
                                           d->path, i);
    }
    if (rc == TP_OK && d->beyond)
        tp_log(d->st, TP_LOG_WARN, "%s: more than 64 command queues or devices: %zu uses of "
               "the later ones share stream or device 63", d->path, d->beyond);
    tp_rows_warn(d->st, d->path, "records dropped", &d->drop);
    if (rc == TP_OK)
        rc = tp_rows_span_check(d->st, d->t, d->path);
    if (rc == TP_OK)
        tp_log(d->st, TP_LOG_INFO, "%s: %zu records, %lld kernel enqueues, device clock moved "
               "by %lld ns", d->path, n, (long long)ordinal, (long long)offset);
    return rc;
}

/* The whole file (new, NUL-terminated), or NULL. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0, got;
    while (f) {
        if (n + 1 >= cap) {
            char *nb = tp_realloc(buf, cap = cap ? cap * 2 : 1 << 16);
            if (nb == NULL) {
                tp_free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
        }
        if ((got = fread(buf + n, 1, cap - n - 1, f)) == 0)
            break;
        n += got;
    }
    if (f && ferror(f)) {
        tp_free(buf);
        buf = NULL;
    }
    if (f)
        fclose(f);
    if (buf)
        buf[n] = '\0';
    *len = n;
    return buf;
}

/* Raw profiler stdout wraps the array between the lines "[dv/dt] <<" and
 * "[dv/dt] >>" among the program's own output (FORMATS.md section 3): the
 * text between them, and how many lines come before it; else all of it. */
static const char *unwrap(const char *text, size_t len, size_t *out_len, int *lines_before)
{
    const char *open = strstr(text, "[dv/dt] <<");
    *lines_before = 0;
    *out_len = len;
    if (open == NULL)
        return text;
    const char *start = strchr(open, '\n');
    start = start ? start + 1 : text + len;
    const char *close = strstr(start, "[dv/dt] >>");
    for (const char *p = text; p < start; p++)
        *lines_before += *p == '\n';
    *out_len = (size_t)((close ? close : text + len) - start);
    return start;
}

static int dv_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const dv_config *cfg = config;
    dv d = {.st = st, .t = tp_stage_trace(st), .path = cfg->path};
    json_error_t err;
    /* a profile is a few MB (the kernel sources it embeds are most of it) */
    size_t len = 0, jlen;
    int before;
    char *text = slurp(cfg->path, &len);
    if (text == NULL)
        return tp_fail(st, TP_EIO, "%s: cannot read: %s", cfg->path, strerror(errno ? errno : EIO));
    const char *json = unwrap(text, len, &jlen, &before);
    d.doc = json_loadb(json, jlen, 0, &err);
    tp_free(text);
    if (d.doc == NULL)
        return tp_fail(st, TP_EFORMAT, "%s:%d:%d: %s", cfg->path, err.line + before, err.column,
                       err.text);
    int rc;
    if (!json_is_array(d.doc))
        rc = tp_fail(st, TP_EFORMAT, "%s: not a dvdt-prof profile: expected a JSON array of "
                     "OpenCL calls (a Kineto trace needs the kineto reader)", cfg->path);
    else
        rc = dv_read(&d);
    json_decref(d.doc);
    tp_free(d.args);
    tp_free(d.kernels);
    tp_free(d.kslot.at);
    tp_free(d.aslot.at);
    return rc == TP_ENOMEM ? tp_fail(st, rc, "%s: out of memory", cfg->path) : rc;
}

/* A JSON array whose first object has an OpenCL "call", or the profiler's
 * raw stdout with the array between its markers. */
static int dv_probe(const unsigned char *head, size_t n, const char *path)
{
    (void)path;
    if (memmem(head, n, "[dv/dt] <<", 10) != NULL)
        return 85; /* the profiler's raw stdout */
    size_t i = 0;
    while (i < n && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
        i++;
    if (i == n || head[i] != '[')
        return 0;
    char buf[4096];
    size_t m = n - i < sizeof buf - 1 ? n - i : sizeof buf - 1;
    memcpy(buf, head + i, m);
    buf[m] = '\0';
    return strstr(buf, "\"call\": \"cl") || strstr(buf, "\"call\":\"cl") ? 90 : 0;
}

static const tp_stage_desc dv_stages[] = {
    TP_STAGE_READER_PROBED("dvdt_prof",
                           "dividiti dvdt-prof OpenCL profile (JSON array of calls, cjson mode)",
                           dv_options, dv_config, TP_PRODUCES_NONE, 0, NULL, dv_run, NULL,
                           dv_probe),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("dvdt_prof", "0.1.0", dv_stages);
