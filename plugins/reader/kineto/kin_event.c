/*
 * kineto reader: one trace event object -> one tp_event.
 *
 * The extractor reads the few top-level fields it needs (ph, cat, name, ts,
 * dur, pid, tid, id, args) and, inside args, the ids (External id,
 * correlation, device, stream); every other value is validated and skipped.
 * The args object itself is kept as its raw JSON text.  Nothing here
 * allocates per event except for "B" events waiting for their "E"
 * (kin_begin_end.c).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "kin.h"

typedef struct ev_fields {
    tp_event ev;
    const char *args;
    size_t args_len;
    int have_ph, have_ts, have_dur;
    int nkeys;            /* members seen, to tell an empty {} */
    int have_call;        /* a "call" member: dvdt-prof's OpenCL calls */
    int tid_queue;        /* the category's tid is no stream (kin_cat_tid_is_queue) */
    int64_t id; /* "id", applied to flows only */
    int bad, reason;
    uint64_t line, col;   /* of the first problem */
    char msg[128];
} ev_fields;

static const char *json_type(char c)
{
    switch (c) {
    case '"': return "a string";
    case '{': return "an object";
    case '[': return "an array";
    case 't': case 'f': return "a boolean";
    case 'n': return "null";
    default: return "a number";
    }
}

static void mark_bad(kin_parser *kp, ev_fields *f, const char *at, int reason, const char *fmt, ...)
    TP_PRINTF(5, 6);
static void mark_bad(kin_parser *kp, ev_fields *f, const char *at, int reason, const char *fmt, ...)
{
    if (f->bad)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->msg, sizeof f->msg, fmt, ap);
    va_end(ap);
    f->bad = 1;
    f->reason = reason;
    if (at)
        kin_where(kp, at, &f->line, &f->col);
}

tp_kind kin_kind_of_cat(const char *c, size_t n)
{
#define IS(lit) (n == sizeof(lit) - 1 && memcmp(c, lit, n) == 0)
#define ENDS(lit) (n >= sizeof(lit) - 1 && memcmp(c + n - (sizeof(lit) - 1), lit, sizeof(lit) - 1) == 0)
    if (IS("cpu_op") || IS("Operator"))
        return TP_KIND_CPU_OP;
    if (IS("kernel") || IS("Kernel") || IS("mtia_ccp_events")) /* MTIA device events */
        return TP_KIND_KERNEL;
    if (IS("cuda_runtime") || IS("cuda_driver") || IS("Runtime") || ENDS("_runtime") ||
        ENDS("_driver"))
        return TP_KIND_RUNTIME;
    if (IS("user_annotation"))
        return TP_KIND_ANNOTATION;
    if (IS("gpu_user_annotation"))
        return TP_KIND_GPU_ANNOTATION;
    if (IS("python_function"))
        return TP_KIND_PYTHON;
    if (IS("gpu_memcpy") || IS("Memcpy"))
        return TP_KIND_MEMCPY;
    if (IS("gpu_memset") || IS("Memset"))
        return TP_KIND_MEMSET;
    if (IS("ac2g") || IS("async_cpu_to_gpu") || IS("async_gpu") || IS("fwdbwd"))
        return TP_KIND_FLOW;
    if (IS("cpu_instant_event"))
        return TP_KIND_INSTANT;
    if (IS("cuda_sync")) /* CUDA event / stream waits, on the device timeline */
        return TP_KIND_SYNC;
    if (IS("Trace"))
        return TP_KIND_TRACE;
    return TP_KIND__COUNT; /* unknown */
#undef IS
#undef ENDS
}

/* Device activity whose `tid` is a hardware queue, never a stream: MTIA's
 * events name their stream in args only (HTA likewise leaves one without it
 * off every stream), so the reader does not take the tid for it. */
int kin_cat_tid_is_queue(const char *c, size_t n)
{
    static const char mtia[] = "mtia_ccp_events";
    return n == sizeof mtia - 1 && memcmp(c, mtia, n) == 0;
}

/* Text of a string id: the run's pool, or a split worker's own table. */
static const char *str_text(kin_parser *kp, tp_str id, size_t *len)
{
    if (kp->local)
        return kin_local_text(kp->local, id, len);
    *len = tp_str_len(kp->st, id);
    return tp_str_text(kp->st, id);
}

/* In the per-category cache, beside kind + 1: the tid is not a stream. */
#define KIN_CAT_TID_QUEUE 0x80

/* Kind of an interned category, cached per string id; *tid_queue as
 * kin_cat_tid_is_queue. */
static int cat_kind(kin_parser *kp, tp_str cat, tp_kind *out, int *tid_queue)
{
    if (cat >= kp->cat_kind_n) {
        size_t n = cat + 64 > kp->cat_kind_n * 2 ? cat + 64 : kp->cat_kind_n * 2;
        uint8_t *a = tp_realloc(kp->cat_kind, n);
        if (!a)
            return TP_ENOMEM;
        memset(a + kp->cat_kind_n, 0, n - kp->cat_kind_n);
        kp->cat_kind = a;
        kp->cat_kind_n = n;
    }
    if (!kp->cat_kind[cat]) {
        size_t len;
        const char *text = str_text(kp, cat, &len);
        kp->cat_kind[cat] = (uint8_t)((1 + kin_kind_of_cat(text, len)) |
                                      (kin_cat_tid_is_queue(text, len) ? KIN_CAT_TID_QUEUE : 0));
    }
    *out = (tp_kind)((kp->cat_kind[cat] & ~KIN_CAT_TID_QUEUE) - 1);
    *tid_queue = (kp->cat_kind[cat] & KIN_CAT_TID_QUEUE) != 0;
    return TP_OK;
}

static tp_kind event_kind(kin_parser *kp, ev_fields *f, int *err)
{
    tp_kind k = TP_KIND__COUNT;
    char ph = (char)f->ev.phase;
    *err = TP_OK;
    if (ph == 'M')
        return TP_KIND_METADATA;
    if (ph == 'C')
        return TP_KIND_COUNTER;
    if (f->ev.cat && (*err = cat_kind(kp, f->ev.cat, &k, &f->tid_queue)) != TP_OK)
        return TP_KIND_OTHER;
    if (k != TP_KIND__COUNT)
        return k;
    if (ph == 's' || ph == 't' || ph == 'f')
        return TP_KIND_FLOW;
    if (ph == 'i' || ph == 'I')
        return TP_KIND_INSTANT;
    return TP_KIND_OTHER;
}

static int intern_raw(kin_parser *kp, const char *s, size_t len, tp_str *out)
{
    if (kp->local)
        return kin_local_intern(kp->local, s, len, out);
    *out = tp_intern(kp->st, s, len);
    return *out == TP_STR_ERROR ? TP_ENOMEM : TP_OK;
}

/* Interns the text of field `key` (the string at `at`).  Text holding
 * \u0000 is a bad field: names are C strings to every consumer, so
 * "a\u0000b" and "a\u0000c" would both become "a". */
static int intern_field(kin_parser *kp, ev_fields *f, const char *at, const char *key,
                        const char *s, size_t len, int esc, tp_str *out)
{
    if (esc) {
        if (kin_unescape(kp, s, len, &s, &len) != TP_OK)
            return kin_syntax(kp, at, "out of memory");
        if (memchr(s, '\0', len) != NULL) {
            mark_bad(kp, f, at, KIN_DROP_NUL, "\"%s\" holds \\u0000 (a NUL character), which "
                     "text fields cannot hold", key);
            *out = 0;
            return KIN_OK;
        }
    }
    if (intern_raw(kp, s, len, out) != TP_OK)
        return kin_syntax(kp, at, "out of memory");
    return KIN_OK;
}

/* A canonical unsigned decimal ("0", "7", "1890023232"), as profilers
 * write numeric thread ids as strings. */
static int parse_decimal(const char *s, size_t len, int64_t *v)
{
    if (len == 0 || len > 18 || (s[0] == '0' && len > 1))
        return 0;
    int64_t x = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        x = x * 10 + (s[i] - '0');
    }
    *v = x;
    return 1;
}

static int parse_hex(const char *s, size_t len, int64_t *v)
{
    if (len < 3 || len > 17 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X'))
        return 0;
    uint64_t x = 0;
    for (size_t i = 2; i < len; i++) {
        char c = s[i];
        int d = c >= '0' && c <= '9' ? c - '0'
              : c >= 'a' && c <= 'f' ? c - 'a' + 10
              : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (d < 0)
            return 0;
        x = x * 16 + (uint64_t)d;
    }
    if (x > (uint64_t)INT64_MAX)
        return 0;
    *v = (int64_t)x;
    return 1;
}

/* An integer id from a number: TP_NONE if fractional or beyond int64. */
static int64_t num_id(kin_parser *kp, const kin_num *n)
{
    int64_t v;
    int inexact;
    if (kin_num_scaled(n, 0, &v, &inexact) != 0) {
        kp->n_big_int++;
        return TP_NONE;
    }
    return inexact ? TP_NONE : v;
}

/* pid / tid: numbers as they are, text interned (TP_ID_FROM_STR).  Text
 * holding a plain decimal, and numbers the negative range cannot hold, are
 * normalised so one thread never gets two ids. */
static int pid_value(kin_parser *kp, ev_fields *f, const char *key, int64_t *out)
{
    const char *at = kp->p, *s;
    size_t len;
    int esc, r;
    tp_str id;
    if (*at == '"') {
        if ((r = kin_string(kp, &s, &len, &esc)) != KIN_OK)
            return r;
        if (!esc && parse_decimal(s, len, out))
            return KIN_OK;
    } else if (*at == '-' || (*at >= '0' && *at <= '9')) {
        kin_num n;
        int64_t v;
        int inexact;
        if (*at != '-' && kin_number_scaled_fast(kp, 0, out))
            return KIN_OK;
        if ((r = kin_number(kp, &n)) != KIN_OK)
            return r;
        if (kin_num_scaled(&n, 0, &v, &inexact) == 0 && !inexact && v >= 0) {
            *out = v;
            return KIN_OK;
        }
        s = at; /* keep an odd number as its text */
        len = (size_t)(kp->p - at);
        esc = 0;
    } else {
        mark_bad(kp, f, at, KIN_DROP_TYPE, "\"%s\" must be a number or a string, not %s", key,
                 json_type(*at));
        return kin_skip_value(kp, 1);
    }
    if ((r = intern_field(kp, f, at, key, s, len, esc, &id)) != KIN_OK)
        return r;
    *out = TP_ID_FROM_STR(id);
    return KIN_OK;
}

static int str_value(kin_parser *kp, ev_fields *f, const char *key, tp_str *out)
{
    const char *s, *at = kp->p;
    size_t len;
    int esc, r;
    if (*at != '"') {
        mark_bad(kp, f, at, KIN_DROP_TYPE, "\"%s\" must be a string, not %s", key, json_type(*at));
        return kin_skip_value(kp, 1);
    }
    if ((r = kin_string(kp, &s, &len, &esc)) != KIN_OK)
        return r;
    return intern_field(kp, f, at, key, s, len, esc, out);
}

static int time_value(kin_parser *kp, ev_fields *f, const char *key, int64_t *out, int *have)
{
    const char *at = kp->p;
    kin_num n;
    int r, inexact;
    if (*at != '-' && (*at < '0' || *at > '9')) {
        mark_bad(kp, f, at, KIN_DROP_TYPE, "\"%s\" must be a number, not %s", key, json_type(*at));
        return kin_skip_value(kp, 1);
    }
    if (kin_number_scaled_fast(kp, 3, out)) { /* microseconds -> nanoseconds */
        *have = 1;
        return KIN_OK;
    }
    if ((r = kin_number(kp, &n)) != KIN_OK)
        return r;
    /* microseconds -> nanoseconds: shift the decimal point by 3 */
    if (kin_num_scaled(&n, 3, out, &inexact) != 0)
        mark_bad(kp, f, at, KIN_DROP_RANGE, "\"%s\" does not fit in int64 nanoseconds", key);
    *have = 1;
    return KIN_OK;
}

static int flow_id_value(kin_parser *kp, ev_fields *f)
{
    const char *at = kp->p, *s;
    size_t len;
    int esc, r;
    if (*at == '"') {
        tp_str id;
        if ((r = kin_string(kp, &s, &len, &esc)) != KIN_OK)
            return r;
        if (!esc && (parse_decimal(s, len, &f->id) || parse_hex(s, len, &f->id)))
            return KIN_OK;
        if ((r = intern_field(kp, f, at, "id", s, len, esc, &id)) != KIN_OK)
            return r;
        f->id = TP_ID_FROM_STR(id);
        return KIN_OK;
    }
    if (*at == '-' || (*at >= '0' && *at <= '9')) {
        kin_num n;
        int64_t v;
        int inexact;
        tp_str id;
        if (*at != '-' && kin_number_scaled_fast(kp, 0, &f->id))
            return KIN_OK; /* a plain integer, as below */
        if ((r = kin_number(kp, &n)) != KIN_OK)
            return r;
        if (kin_num_scaled(&n, 0, &v, &inexact) == 0 && !inexact && v >= 0) {
            f->id = v;
            return KIN_OK;
        }
        /* negative, fractional or beyond int64: kept as its text, since the
         * negative range of the column holds text ids (as for pid/tid) */
        if (intern_raw(kp, at, (size_t)(kp->p - at), &id) != TP_OK)
            return kin_syntax(kp, at, "out of memory");
        f->id = TP_ID_FROM_STR(id);
        return KIN_OK;
    }
    mark_bad(kp, f, at, KIN_DROP_TYPE, "\"id\" must be a number or a string, not %s", json_type(*at));
    return kin_skip_value(kp, 1);
}

/* Fields of args we extract; anything else (or of another type) is only
 * validated. */
static int args_member(kin_parser *kp, ev_fields *f, const char *k, size_t kl)
{
    enum { A_EXT, A_CORR, A_DEV, A_STREAM, A_NONE } which = A_NONE;
    if (kl == 11 && (memcmp(k, "External id", 11) == 0 || memcmp(k, "external id", 11) == 0))
        which = A_EXT;
    else if (kl == 11 && memcmp(k, "correlation", 11) == 0)
        which = A_CORR;
    else if (kl == 6 && memcmp(k, "device", 6) == 0)
        which = A_DEV;
    else if (kl == 6 && memcmp(k, "stream", 6) == 0)
        which = A_STREAM;
    if (which == A_NONE)
        return kin_skip_value(kp, 2);
    /* A key written twice counts with its last value, whatever its type, as
     * tp_json_find reads it for the other stages. */
    char c = *kp->p;
    int64_t v = TP_NONE;
    int r;
    if (c != '-' && (c < '0' || c > '9')) {
        if ((r = kin_skip_value(kp, 2)) != KIN_OK)
            return r;
    } else if (!kin_number_scaled_fast(kp, 0, &v)) {
        kin_num n;
        if ((r = kin_number(kp, &n)) != KIN_OK)
            return r;
        v = num_id(kp, &n);
    }
    switch (which) {
    case A_EXT: f->ev.ext_id = v; break;
    case A_CORR: f->ev.corr = v; break;
    default: {
        int32_t v32 = (v == TP_NONE || v < INT32_MIN || v > INT32_MAX) ? -1 : (int32_t)v;
        if (which == A_DEV)
            f->ev.device = v32;
        else
            f->ev.stream = v32;
    }
    }
    return KIN_OK;
}

/* Calls member() for each "key": value of the object at kp->p, with the
 * cursor on the value. */
static int each_member(kin_parser *kp, ev_fields *f,
                       int (*member)(kin_parser *, ev_fields *, const char *, size_t))
{
    int r;
    kp->p++;
    if ((r = kin_ws(kp)) != KIN_OK)
        return r;
    if (*kp->p == '}') {
        kp->p++;
        return KIN_OK;
    }
    for (;;) {
        const char *k;
        size_t kl;
        int esc;
        if (*kp->p != '"')
            return kin_syntax(kp, kp->p, "object key (string) expected");
        if ((r = kin_key(kp, &k, &kl, &esc)) != KIN_OK)
            return r;
        if (esc && kin_unescape(kp, k, kl, &k, &kl) != TP_OK)
            return kin_syntax(kp, kp->p, "out of memory");
        if ((r = kin_ws(kp)) != KIN_OK)
            return r;
        if (*kp->p != ':')
            return kin_syntax(kp, kp->p, "':' expected after object key");
        kp->p++;
        if ((r = kin_ws(kp)) != KIN_OK)
            return r;
        if ((r = member(kp, f, k, kl)) != KIN_OK)
            return r;
        if ((r = kin_ws(kp)) != KIN_OK)
            return r;
        if (*kp->p == '}') {
            kp->p++;
            return KIN_OK;
        }
        if (*kp->p != ',')
            return kin_syntax(kp, kp->p, "',' or '}' expected");
        kp->p++;
        if ((r = kin_ws(kp)) != KIN_OK)
            return r;
    }
}

static int args_value(kin_parser *kp, ev_fields *f)
{
    const char *at = kp->p;
    if (*at != '{') {
        mark_bad(kp, f, at, KIN_DROP_TYPE, "\"args\" must be an object, not %s", json_type(*at));
        return kin_skip_value(kp, 1);
    }
    int r = each_member(kp, f, args_member);
    if (r == KIN_OK) {
        f->args = at;
        f->args_len = (size_t)(kp->p - at);
    }
    return r;
}

#define KEY(lit) (kl == sizeof(lit) - 1 && memcmp(k, lit, kl) == 0)

static int event_member(kin_parser *kp, ev_fields *f, const char *k, size_t kl)
{
    f->nkeys++;
    if (KEY("call"))
        f->have_call = 1;
    if (KEY("ph")) {
        const char *at = kp->p, *s;
        size_t len;
        int esc, r;
        if (*at != '"') {
            mark_bad(kp, f, at, KIN_DROP_TYPE, "\"ph\" must be a string, not %s", json_type(*at));
            return kin_skip_value(kp, 1);
        }
        if ((r = kin_string(kp, &s, &len, &esc)) != KIN_OK)
            return r;
        if (len != 1 || esc || (unsigned char)s[0] >= 0x80) { /* "Xylophone" is not 'X' */
            mark_bad(kp, f, at, KIN_DROP_TYPE, "\"ph\" must be a one-letter string");
            return KIN_OK;
        }
        f->ev.phase = (uint8_t)s[0];
        f->have_ph = 1;
        return KIN_OK;
    }
    if (KEY("ts"))
        return time_value(kp, f, "ts", &f->ev.ts, &f->have_ts);
    if (KEY("dur"))
        return time_value(kp, f, "dur", &f->ev.dur, &f->have_dur);
    if (KEY("name"))
        return str_value(kp, f, "name", &f->ev.name);
    if (KEY("cat"))
        return str_value(kp, f, "cat", &f->ev.cat);
    if (KEY("pid"))
        return pid_value(kp, f, "pid", &f->ev.pid);
    if (KEY("tid"))
        return pid_value(kp, f, "tid", &f->ev.tid);
    if (KEY("args"))
        return args_value(kp, f);
    if (KEY("id"))
        return flow_id_value(kp, f);
    return kin_skip_value(kp, 1);
}

static void fields_init(ev_fields *f)
{
    memset(f, 0, sizeof *f);
    f->ev.dur = -1;
    f->ev.pid = f->ev.tid = TP_ID_FROM_STR(0); /* absent = "" */
    f->ev.ext_id = f->ev.corr = f->ev.flow_id = TP_NONE;
    f->ev.device = f->ev.stream = -1;
    f->id = TP_NONE;
}

/* x rounded up (down) to a whole microsecond; left as it is where that
 * would not fit. */
static int64_t us_ceil(int64_t x)
{
    int64_t r = x % 1000;
    return r == 0 ? x : r > 0 ? (x > INT64_MAX - 1000 ? x : x - r + 1000) : x - r;
}

static int64_t us_floor(int64_t x)
{
    int64_t r = x % 1000;
    return r == 0 ? x : r > 0 ? x - r : (x < INT64_MIN + 1000 ? x : x - r - 1000);
}

/* compat: hta: the start rounded up and the end down to whole us, as HTA's
 * parser rounds a trace with fractional times; an event left shorter than
 * nothing lasts 0 (HTA keeps its negative duration). */
static void round_inward(ev_fields *f)
{
    int64_t end = f->have_dur ? us_floor(f->ev.ts + f->ev.dur) : 0;
    f->ev.ts = us_ceil(f->ev.ts);
    if (f->have_dur)
        f->ev.dur = end > f->ev.ts ? end - f->ev.ts : 0;
}

/* Derived fields and the checks that need the whole event. */
static int finish_fields(kin_parser *kp, ev_fields *f)
{
    int err;
    char ph = (char)f->ev.phase;
    if (!f->have_ph)
        mark_bad(kp, f, NULL, KIN_DROP_MISSING, "event has no \"ph\"%s",
                 f->have_call ? " (this looks like a dvdt-prof OpenCL profile, not a "
                                  "Chrome/Kineto trace)"
                                : "");
    else if (!f->have_ts && ph != 'M')
        mark_bad(kp, f, NULL, KIN_DROP_MISSING, "event with ph '%c' has no \"ts\"", ph);
    else if (f->have_dur && f->ev.dur < 0)
        mark_bad(kp, f, NULL, KIN_DROP_NEGDUR, "negative \"dur\"");
    else if (f->have_dur && f->ev.ts > INT64_MAX - f->ev.dur) /* analyses add them */
        mark_bad(kp, f, NULL, KIN_DROP_RANGE, "\"ts\" + \"dur\" does not fit in int64 nanoseconds");
    if (kp->round_inward && !f->bad && f->have_ts)
        round_inward(f);
    f->ev.kind = (uint8_t)event_kind(kp, f, &err);
    if (err != TP_OK)
        return err;
    /* flows pair by id, and so do async slices (b/e/n): keep it for both */
    if (ph == 's' || ph == 't' || ph == 'f' || ph == 'b' || ph == 'e' || ph == 'n')
        f->ev.flow_id = f->id;
    /* Kineto writes device activity under pid = device: MTIA's have no args.device */
    if (TP_KIND_IS_GPU(f->ev.kind) && f->ev.device < 0 && !TP_ID_IS_STR(f->ev.pid) &&
        f->ev.pid <= INT32_MAX)
        f->ev.device = (int32_t)f->ev.pid;
    if (TP_KIND_IS_GPU(f->ev.kind) && f->ev.stream < 0 && !f->tid_queue) {
        int64_t tid = f->ev.tid, v;
        if (!TP_ID_IS_STR(tid) && tid <= INT32_MAX) {
            f->ev.stream = (int32_t)tid;
        } else if (TP_ID_IS_STR(tid)) {
            size_t n;
            const char *s = str_text(kp, TP_ID_STR(tid), &n);
            if (n > 7 && memcmp(s, "stream ", 7) == 0 && parse_decimal(s + 7, n - 7, &v) &&
                v <= INT32_MAX)
                f->ev.stream = (int32_t)v;
        }
    }
    return TP_OK;
}

/* Where args text in the window lies in the file, or KIN_NO_REF (gzip, or
 * a copy such as a pending "B" event's). */
static uint64_t args_file_offset(const kin_parser *kp, const char *args, size_t len)
{
    if (!kp->args_ref || args == NULL || args < kp->buf || args + len > kp->buf + kp->len ||
        kin_has_gap(kp, args, args + len))
        return KIN_NO_REF; /* (with whitespace squeezed out, the copy is not the file's text) */
    return kin_file_off(kp, args);
}

int kin_event_append(kin_parser *kp, tp_event *ev, const char *args, size_t args_len)
{
    ev->args = kp->keep_args ? args : NULL;
    ev->args_len = kp->keep_args && args ? args_len : 0;
    uint64_t off = args_file_offset(kp, ev->args, ev->args_len);
    if (off == KIN_NO_REF && ev->args_len > 0 && kp->spill != NULL &&
        kin_spill_put(kp->spill, ev->args, ev->args_len, &off) != TP_OK) {
        kp->code = TP_EIO;
        if (kp->local) /* a worker gives up; the main parser will say */
            return kp->code;
        return tp_fail(kp->st, TP_EIO, "%s: cannot write its args to a temporary file: %s",
                       kp->path, kin_spill_error(kp->spill));
    }
    if (kp->local) {
        if (kin_local_push(kp->local, ev, off) != TP_OK)
            return kp->code = TP_ENOMEM;
        kp->n_events++;
        return TP_OK;
    }
    int rc = off != KIN_NO_REF ? tp_trace_append_ref(kp->st, kp->trace, ev, off)
                               : tp_trace_append(kp->st, kp->trace, ev);
    if (rc != TP_OK) {
        kp->code = rc;
        return tp_fail(kp->st, rc, "%s: cannot store event %zu", kp->path, kp->n_events + 1);
    }
    kp->n_events++;
    return TP_OK;
}

static int event_inner(kin_parser *kp);

int kin_event(kin_parser *kp)
{
    kp->in_event = 1;
    kp->soft_bad = 0;
    int r = event_inner(kp);
    kp->in_event = 0;
    return r;
}

static int event_inner(kin_parser *kp)
{
    ev_fields f;
    uint64_t line, col;
    int r, rc;
    fields_init(&f);
    kin_where(kp, kp->p, &line, &col);
    if (*kp->p != '{') {
        mark_bad(kp, &f, kp->p, KIN_DROP_NOTOBJ, "traceEvents element must be an object, not %s",
                 json_type(*kp->p));
        if ((r = kin_skip_value(kp, 1)) != KIN_OK)
            return r;
    } else if ((r = each_member(kp, &f, event_member)) != KIN_OK) {
        return r;
    } else if (f.nkeys == 0) {
        return KIN_OK; /* "{}": TensorFlow and JAX traces end their event list with one */
    } else if ((rc = finish_fields(kp, &f)) != TP_OK) {
        return kin_syntax(kp, kp->p, "out of memory");
    }
    if (kp->soft_bad && !f.bad) { /* lenient mode: a bad string or number */
        f.bad = 1;
        f.reason = KIN_DROP_TEXT;
        f.line = kp->soft_line;
        f.col = kp->soft_col;
        snprintf(f.msg, sizeof f.msg, "%s", kp->soft_msg);
    }
    if (kp->local && (f.bad || f.ev.phase == 'B' || f.ev.phase == 'E')) {
        /* a split worker gives up; the main parser will see this event
         * itself, and report it or pair it exactly as without a split */
        kp->code = TP_EFORMAT;
        return KIN_ERR;
    }
    if (f.bad) {
        if (!f.line) {
            f.line = line;
            f.col = col;
        }
        if (!kp->skip_bad) {
            kp->code = TP_EFORMAT;
            tp_fail(kp->st, TP_EFORMAT, "%s:%llu:%llu: %s", kp->path, (unsigned long long)f.line,
                    (unsigned long long)f.col, f.msg);
            return KIN_ERR;
        }
        kp->n_dropped[f.reason]++;
        return KIN_OK;
    }
    if (f.ev.phase == 'B')
        rc = kin_begin_event(kp, &f.ev, f.args, f.args_len);
    else if (f.ev.phase == 'E')
        rc = kin_end_event(kp, &f.ev, f.args, f.args_len, line, col);
    else
        rc = kin_event_append(kp, &f.ev, f.args, f.args_len);
    if (rc == TP_ENOMEM && !kp->code && !kp->local) {
        kp->code = rc;
        tp_fail(kp->st, rc, "%s: out of memory", kp->path);
    }
    if (rc != TP_OK && !kp->code)
        kp->code = rc;
    return rc == TP_OK ? KIN_OK : KIN_ERR;
}
