/*
 * kineto reader: loads PyTorch profiler (Kineto) Chrome-trace JSON, plain
 * or gzip, object form {"traceEvents": [...], ...} or bare array form, into
 * the run's columnar trace.  See docs/plugins/kineto.md.
 *
 * The file streams through a window of WINDOW_SIZE bytes (grown only when
 * one event or metadata value is larger).  The top level is a small state
 * machine; each state handles one token, one event or one metadata value.
 * When the window ends inside that unit the unit is restarted after the
 * window is refilled, so no parser ever sees a split token.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "kin.h"
#include <tracepipe/tp_sdk_cupti.h>
#include <tracepipe/tp_sdk_rows.h>
#include <tracepipe/tp_sdk_trace.h>

#ifndef KIN_WINDOW_SIZE /* the fuzz build uses a small one (plugin.mk) */
#define KIN_WINDOW_SIZE (4u << 20)
#endif
#define WINDOW_SIZE KIN_WINDOW_SIZE

typedef struct kin_config {
    const char *path;
    int keep_args;
    const char *on_error;
    const char *compat;
    const char *capture;
} kin_config;

static const char *const on_error_choices[] = {"fail", "skip", NULL};
static const char *const compat_choices[] = {"none", "hta", NULL};

static const tp_option kin_options[] = {
    TP_OPTION_REQUIRED_INPUT_FILE("path", kin_config, path, "Kineto trace file (.json, or gzip)"),
    TP_OPTION_BOOL("keep_args", kin_config, keep_args, "true",
                   "keep each event's args object as JSON text"),
    TP_OPTION_CHOICE("on_error", kin_config, on_error, "fail", on_error_choices,
                     "events with bad fields: fail the stage, or skip them with a warning"),
    TP_OPTION_CHOICE("compat", kin_config, compat, "none", compat_choices,
                     "hta: each event rounded inward to whole microseconds (start up, end "
                     "down), as HTA's parser does"),
    TP_OPTION_INPUT_FILE("capture", kin_config, capture, NULL,
                         "a capture trace of the graphs this trace replays (e.g. vLLM's "
                         "graph_capture_rank_N): each replayed kernel gets the op that captured it"),
    TP_OPTION_END};

/* ---- diagnostics */

void kin_where(const kin_parser *kp, const char *at, uint64_t *line, uint64_t *col)
{
    uint64_t off = kin_file_off(kp, at);
    *line = kp->line;
    *col = off >= kp->line_start ? off - kp->line_start + 1 : 1;
}

int kin_syntax(kin_parser *kp, const char *at, const char *fmt, ...)
{
    char msg[200];
    uint64_t line, col;
    va_list ap;
    if (kp->code)
        return KIN_ERR; /* one message per failure */
    if (kp->local) { /* a split worker never reports: it gives up */
        kp->code = TP_EFORMAT;
        return KIN_ERR;
    }
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    kin_where(kp, at, &line, &col);
    kp->code = TP_EFORMAT;
    tp_fail(kp->st, TP_EFORMAT, "%s:%llu:%llu: %s", kp->path, (unsigned long long)line,
            (unsigned long long)col, msg);
    return KIN_ERR;
}

/* ---- the window */

/* Fails with code and a message (a split worker only records the code). */
static int window_fail(kin_parser *kp, int code, const char *msg)
{
    kp->code = code;
    if (kp->local)
        return code;
    return tp_fail(kp->st, code, "%s: %s", kp->path, msg);
}

static void report_progress(kin_parser *kp)
{
    uint64_t done = kin_src_consumed(kp->src), size = kin_src_size(kp->src);
    if (kp->local) {
        kin_split_progress(kp, done);
        return;
    }
    if (kp->stop_at) { /* the worker reads the rest */
        uint64_t cut = kin_split_progress_cut(kp);
        done = (done < cut ? done : cut) + kin_split_worker_done(kp);
    }
    tp_progress(kp->st, done < size ? done : size, size);
}

/* Doubles the window. */
static int grow_window(kin_parser *kp)
{
    size_t cap = kp->cap * 2;
    char *b = tp_realloc(kp->buf, cap);
    if (!b) {
        char msg[80];
        snprintf(msg, sizeof msg, "out of memory (an event larger than %zu MiB)", kp->cap >> 20);
        return window_fail(kp, TP_ENOMEM, msg);
    }
    kp->buf = b;
    kp->cap = cap;
    return TP_OK;
}

/* Keeps buf[keep, len) (the unit being parsed), moves it to the front and
 * reads more behind it; grows the window when the unit fills all of it. */
static int refill(kin_parser *kp, size_t keep)
{
    char err[200];
    size_t tail = kp->len - keep;
    if (keep > 0) {
        kin_ws_drop(kp, keep);
        memmove(kp->buf, kp->buf + keep, tail);
        kp->base += keep;
        kp->len = tail;
    }
    if (kp->len == kp->cap && grow_window(kp) != TP_OK)
        return kp->code;
    size_t want = kp->cap - kp->len;
#ifdef KIN_TEST_READ_MAX /* fuzzing: short reads make units straddle refills */
    want = want < KIN_TEST_READ_MAX ? want : KIN_TEST_READ_MAX;
#endif
    if (kp->local && kin_split_abort_requested(kp))
        return window_fail(kp, TP_ERR, "stopped");
    if (kp->split && !kp->stop_at)
        kin_split_poll(kp); /* gzip: has the worker found its cut? */
    long n = kin_src_read(kp->src, kp->buf + kp->len, want, err, sizeof err);
    if (n < 0)
        return window_fail(kp, TP_EIO, err);
    if (n == 0)
        kp->eof = 1;
    kp->len += (size_t)n;
    kp->end = kp->buf + kp->len;
    report_progress(kp);
    return TP_OK;
}

/* ---- the top level */

typedef enum {
    S_START,      /* before the top-level value */
    S_KEY,        /* object form: a key, or '}' when first */
    S_KEY_NEXT,   /* after a member: ',' or '}' */
    S_EV,         /* first element of traceEvents, or ']' */
    S_EV_NEXT,    /* after an event: ',' or ']' */
    S_TRAIL,      /* after the top-level value: only whitespace */
    S_DONE
} top_state;

typedef struct top {
    top_state s;
    int object_form, first, have_events;
} top;

static int expect_char(kin_parser *kp, char c, const char *what)
{
    int r = kin_ws(kp);
    if (r != KIN_OK)
        return r;
    if (*kp->p != c)
        return kin_syntax(kp, kp->p, "%s expected", what);
    kp->p++;
    return KIN_OK;
}

/* One top-level member: "key": value.  traceEvents opens the event array;
 * any other key becomes trace metadata holding the value's JSON text. */
static int step_member(kin_parser *kp, top *t)
{
    const char *k, *v;
    size_t kl;
    int esc, r;
    if (*kp->p != '"')
        return kin_syntax(kp, kp->p, "object key (string) expected");
    const char *key_at = kp->p;
    if ((r = kin_string(kp, &k, &kl, &esc)) != KIN_OK)
        return r;
    if ((r = expect_char(kp, ':', "':'")) != KIN_OK || (r = kin_ws(kp)) != KIN_OK)
        return r;
    if (!esc && kl == 11 && memcmp(k, "traceEvents", 11) == 0) {
        if (t->have_events)
            return kin_syntax(kp, key_at, "duplicate \"traceEvents\" key");
        if (*kp->p != '[')
            return kin_syntax(kp, kp->p, "\"traceEvents\" must be an array, not %s",
                              *kp->p == '{' ? "an object" : "a scalar");
        kp->p++;
        t->have_events = 1;
        t->first = 1;
        t->s = S_EV;
        return KIN_OK;
    }
    v = kp->p;
    if ((r = kin_skip_value(kp, 1)) != KIN_OK)
        return r;
    char *key = tp_malloc(kl + 1); /* the key is needed NUL-terminated */
    if (!key)
        return kin_syntax(kp, key_at, "out of memory");
    if (esc) {
        size_t ul;
        const char *u;
        if (kin_unescape(kp, k, kl, &u, &ul) != TP_OK) {
            tp_free(key);
            return kin_syntax(kp, key_at, "out of memory");
        }
        if (memchr(u, '\0', ul) != NULL) {
            tp_free(key);
            return kin_syntax(kp, key_at, "metadata key holds \\u0000 (a NUL character)");
        }
        memcpy(key, u, ul + 1);
    } else {
        memcpy(key, k, kl);
        key[kl] = '\0';
    }
    size_t vlen = (size_t)(kp->p - v);
    int rc = kp->local ? kin_local_meta(kp->local, key, v, vlen)
                       : tp_trace_set_meta(kp->st, kp->trace, key, v, vlen);
    tp_free(key);
    if (rc != TP_OK) {
        kp->code = rc;
        if (!kp->local)
            tp_fail(kp->st, rc, "%s: cannot store metadata", kp->path);
        return KIN_ERR;
    }
    t->s = S_KEY_NEXT;
    return KIN_OK;
}

/* The first line is an Nsight Systems JSON-lines event or table record
 * (FORMATS.md 2.1): one message per line, so no traceEvents. */
static int nsys_json_lines(const kin_parser *kp)
{
    static const char *const marks[] = {"{\"Type\":", "{\"type\":\"String\"", "{\"data\":[\""};
    for (size_t i = 0; i < sizeof marks / sizeof *marks; i++) {
        size_t n = strlen(marks[i]);
        if (kp->len >= n && memcmp(kp->buf, marks[i], n) == 0)
            return 1;
    }
    return 0;
}

static int step(kin_parser *kp, top *t)
{
    int r = kin_ws(kp);
    if (t->s == S_TRAIL) {
        if (r == KIN_OK)
            return kin_syntax(kp, kp->p, "unexpected data after the end of the JSON value");
        return KIN_MORE;
    }
    if (r != KIN_OK)
        return r;
    char c = *kp->p;
    switch (t->s) {
    case S_START:
        if (c == '{') {
            t->object_form = 1;
            t->s = S_KEY;
        } else if (c == '[') {
            t->have_events = 1;
            t->s = S_EV;
        } else {
            size_t n = strlen(kp->path);
            int gz = n > 3 && strcmp(kp->path + n - 3, ".gz") == 0 && !kin_src_is_gzip(kp->src);
            int bom = kp->end - kp->p >= 3 && memcmp(kp->p, "\xef\xbb\xbf", 3) == 0;
            int gz2 = kin_src_is_gzip(kp->src) && kp->end - kp->p >= 2 &&
                      memcmp(kp->p, "\x1f\x8b", 2) == 0;
            int sqlite = kp->end - kp->p >= 16 && memcmp(kp->p, "SQLite format 3", 16) == 0;
            return kin_syntax(kp, kp->p, "not a Kineto trace: expected '{' or '[' at the start%s",
                              gz    ? " (the name ends in .gz but the data is not gzip)"
                              : bom ? " (found a UTF-8 byte-order mark, which JSON does not allow; "
                                      "remove it)"
                              : gz2 ? " (gzip inside gzip: the file was compressed twice; "
                                      "gunzip it once)"
                              : sqlite ? " (this is an SQLite database, e.g. an Nsight Systems "
                                         "export: read it with the nsys reader)"
                                       : "");
        }
        kp->p++;
        t->first = 1;
        return KIN_OK;
    case S_KEY:
        if (t->first && c == '}') {
            kp->p++;
            t->s = S_TRAIL;
            return kin_syntax(kp, kp->p - 1, "no \"traceEvents\" key in the top-level object");
        }
        t->first = 0;
        return step_member(kp, t);
    case S_KEY_NEXT:
        if (c == ',') {
            kp->p++;
            t->s = S_KEY;
            return KIN_OK;
        }
        if (c != '}')
            return kin_syntax(kp, kp->p, "',' or '}' expected");
        if (!t->have_events)
            return kin_syntax(kp, kp->p, "no \"traceEvents\" key in the top-level object%s",
                              nsys_json_lines(kp) ? " (this is an Nsight Systems JSON-lines "
                                                    "export: read it with the nsys_json reader)"
                                                  : "");
        kp->p++;
        t->s = S_TRAIL;
        return KIN_OK;
    case S_EV:
        if (t->first && c == ']') {
            kp->p++;
            t->s = t->object_form ? S_KEY_NEXT : S_TRAIL;
            return KIN_OK;
        }
        t->first = 0;
        if ((r = kin_event(kp)) != KIN_OK)
            return r;
        t->s = S_EV_NEXT;
        return KIN_OK;
    case S_EV_NEXT:
        if (c == ',') {
            kp->p++;
            t->s = S_EV;
            return KIN_OK;
        }
        if (c != ']')
            return kin_syntax(kp, kp->p, "',' or ']' expected after an event");
        kp->p++;
        t->s = t->object_form ? S_KEY_NEXT : S_TRAIL;
        return KIN_OK;
    default:
        return KIN_ERR;
    }
}

/* The main parser reached the split worker's start offset: it must be
 * exactly there, inside traceEvents after a comma, for the worker's
 * parse to be valid.  Returns 1 when the worker's events were merged (the
 * file is done), 0 to go on, -1 on an error. */
static int at_cut(kin_parser *kp, const top *t)
{
    uint64_t pos = kin_file_off(kp, kp->p);
    if (pos < kp->stop_at)
        return 0;
    return kin_split_join(kp, pos == kp->stop_at && t->s == S_EV && !t->first);
}

/* Runs steps until the end of the file; a step that runs out of window is
 * rolled back (cursor and line count) and run again after a refill. */
static int parse(kin_parser *kp, top t)
{
    if (refill(kp, 0) != TP_OK)
        return kp->code;
    if (kp->len == 0) {
        kp->code = TP_EFORMAT;
        return kp->local ? kp->code
                         : tp_fail(kp->st, TP_EFORMAT, "%s:1:1: empty file", kp->path);
    }
    for (;;) {
        /* whitespace between units is consumed, never kept in the window */
        if (kin_ws(kp) == KIN_MORE && !kp->eof) {
            if (refill(kp, kp->len) != TP_OK)
                return kp->code;
            kp->p = kp->buf;
            continue;
        }
        const char *p0 = kp->p;
        uint64_t line0 = kp->line, ls0 = kp->line_start;
        top t0 = t;
        kin_ws_step_start(kp);
        int r = step(kp, &t);
        if (r == KIN_OK && kp->stop_at) {
            int m = at_cut(kp, &t);
            if (m != 0)
                return m > 0 ? TP_OK : kp->code;
        }
        if (r == KIN_OK)
            continue;
        if (r == KIN_ERR)
            return kp->code ? kp->code : TP_EFORMAT;
        if (kp->eof) {
            if (t.s == S_TRAIL)
                return TP_OK;
            kin_syntax(kp, kp->end, "unexpected end of file (truncated JSON)");
            return kp->code;
        }
        kp->p = p0;
        kp->line = line0;
        kp->line_start = ls0;
        t = t0;
        size_t keep = (size_t)(p0 - kp->buf);
        /* a unit that fills the window: squeeze its long whitespace runs
         * out first, and grow only if that frees too little */
        if (keep == 0 && kp->len == kp->cap && kp->n_runs &&
            kin_ws_squeeze(kp, 0) < kp->cap / 8 && grow_window(kp) != TP_OK)
            return kp->code;
        if (refill(kp, keep) != TP_OK)
            return kp->code;
        kp->p = kp->buf;
    }
}

int kin_parse_events(kin_parser *kp)
{
    top t = {S_EV, kp->object_form, 0, 1};
    return parse(kp, t);
}

static void report(kin_parser *kp)
{
    static const char *const why[KIN_DROP__COUNT] = {
        "a field of the wrong type", "a missing ph or ts", "a negative duration",
        "a time beyond int64 ns", "not an object",
        "a raw control character or invalid UTF-8 in a string, or a NaN/Infinity number",
        "\\u0000 (a NUL character) in a name, category or text id"};
    for (int i = 0; i < KIN_DROP__COUNT; i++) {
        if (kp->n_dropped[i])
            tp_log(kp->st, TP_LOG_WARN, "%s: skipped %zu event(s) with %s", kp->path,
                   kp->n_dropped[i], why[i]);
    }
    if (kp->n_unmatched_e)
        tp_log(kp->st, TP_LOG_WARN, "%s: dropped %zu \"E\" event(s) without a matching \"B\"",
               kp->path, kp->n_unmatched_e);
    if (kp->n_unmatched_b)
        tp_log(kp->st, TP_LOG_WARN, "%s: %zu \"B\" event(s) without an \"E\" kept as phase 'B'",
               kp->path, kp->n_unmatched_b);
    if (kp->n_big_int)
        tp_log(kp->st, TP_LOG_INFO, "%s: %zu id(s) beyond int64 stored as none (text kept in args)",
               kp->path, kp->n_big_int);
    tp_log(kp->st, TP_LOG_INFO, "%s: %zu events", kp->path, kp->n_events);
}

/* Analyses subtract times (end - start, a window over the whole trace), so
 * the latest end minus the earliest start must fit in int64 ns: the SDK's
 * one span rule (tp_sdk_rows.h), checked once here. */
static int check_span(kin_parser *kp)
{
    return tp_rows_span_check(kp->st, kp->trace, kp->path);
}

/* The most unrecognised categories named in the warning. */
#define KIN_MAX_UNKNOWN_CATS 4

/* Complete events whose category the reader does not know (MTIA's
 * mtia_ccp_events, a TensorFlow timeline's "Op") are kept as kind `other`,
 * which no analysis reads: say so, naming the biggest categories, rather
 * than leave a user with empty tables.  One pass over the kind column.
 * The CUPTI range profiler's events (tp_sdk_cupti.h) are kind `other` too,
 * but known: `counters` reads them. */
static int warn_unknown_categories(kin_parser *kp)
{
    const tp_cols *c = tp_trace_cols(kp->trace);
    size_t nnames = tp_str_count(kp->st), unknown = 0, known = 0;
    uint32_t *count = NULL;
    const char *rcat = tp_cupti_range_cat();
    tp_str ranges = 0;
    if (tp_str_lookup(kp->st, rcat, strlen(rcat), &ranges) != 1)
        ranges = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (c->phase[i] != 'X' || (ranges != 0 && c->cat[i] == ranges))
            continue;
        if (c->kind[i] != TP_KIND_OTHER) {
            known += tp_kind_is_host(c->kind[i]) || tp_kind_is_activity(c->kind[i]);
            continue;
        }
        if (count == NULL && (count = tp_calloc(nnames ? nnames : 1, sizeof *count)) == NULL)
            return TP_ENOMEM;
        if (c->cat[i] < nnames)
            count[c->cat[i]]++;
        unknown++;
    }
    if (unknown == 0)
        return TP_OK;
    char list[512] = "";
    size_t len = 0;
    for (int k = 0; k < KIN_MAX_UNKNOWN_CATS; k++) {
        size_t best = 0;
        for (size_t j = 1; j < nnames; j++) /* id 0 is "", an event without "cat" */
            if (count[j] > count[best])
                best = j;
        if (count[best] == 0 && (best != 0 || k > 0))
            break;
        const char *name = best ? tp_str_text(kp->st, (tp_str)best) : "(no cat)";
        int w = snprintf(list + len, sizeof list - len, "%s%s: %u", k ? ", " : "", name,
                         count[best]);
        len = w > 0 && (size_t)w < sizeof list - len ? len + (size_t)w : sizeof list - 1;
        count[best] = 0;
    }
    tp_free(count);
    tp_log(kp->st, TP_LOG_WARN,
           "%s: %zu complete event(s) of categories the reader does not know (%s): analyses "
           "leave them out%s", kp->path, unknown, list,
           known == 0 ? "; no host op, runtime call or GPU activity was recognised at all" : "");
    return TP_OK;
}

static int kin_run(tp_stage *st, const void *config, void *state)
{
    const kin_config *cfg = config;
    kin_parser kp;
    char err[200];
    (void)state;
    memset(&kp, 0, sizeof kp);
    kp.st = st;
    kp.path = cfg->path;
    kp.keep_args = cfg->keep_args;
    kp.skip_bad = cfg->on_error && strcmp(cfg->on_error, "skip") == 0;
    kp.round_inward = cfg->compat && strcmp(cfg->compat, "hta") == 0;
    kp.line = 1;
    if (!(kp.trace = tp_stage_trace(st)))
        return tp_fail(st, TP_ERR, "%s: no trace to fill", cfg->path);
    if (!(kp.src = kin_src_open(cfg->path, err, sizeof err))) {
        return tp_fail(st, TP_EIO, "%s: %s", cfg->path, err);
    }
    int rc = tp_trace_set_source(st, kp.trace, cfg->path);
    /* args of a plain regular file stay in it: the core maps the file if a
     * stage reads them, so the trace never holds a second copy */
    struct stat sb;
    kp.args_ref = kp.keep_args && !kin_src_is_gzip(kp.src) && stat(cfg->path, &sb) == 0 &&
                  S_ISREG(sb.st_mode);
    if (rc == TP_OK && !kin_src_is_gzip(kp.src) && kin_src_size(kp.src) > (64u << 20))
        rc = tp_trace_reserve(st, kp.trace, (size_t)(kin_src_size(kp.src) / 400));
    if (rc != TP_OK) {
        kin_src_close(kp.src);
        return tp_fail(st, rc, "%s: cannot prepare the trace", cfg->path);
    }
    kp.cap = WINDOW_SIZE;
    if (!(kp.buf = tp_malloc(kp.cap))) {
        kin_src_close(kp.src);
        return tp_fail(st, TP_ENOMEM, "%s: out of memory", cfg->path);
    }
    kp.p = kp.end = kp.buf;
    if (kp.keep_args && !kp.args_ref && kin_spill_open(&kp) != TP_OK) {
        kin_src_close(kp.src);
        tp_free(kp.buf);
        return tp_fail(st, TP_ENOMEM, "%s: out of memory", cfg->path);
    }
    kin_split_start(&kp);
    rc = parse(&kp, (top){S_START, 0, 0, 0});
    if (kp.split) /* the parse ended before the cut (an error) */
        kin_split_join(&kp, 0);
    if (rc == TP_OK)
        rc = kin_events_finish(&kp);
    if (rc == TP_OK && kin_spill_flush(kp.spill) != TP_OK) /* before any args read */
        rc = tp_fail(st, TP_EIO, "%s: cannot write its args to a temporary file: %s", cfg->path,
                     kin_spill_error(kp.spill));
    if (rc == TP_OK && kp.keep_args && (rc = kin_refine_producers(&kp)) != TP_OK)
        rc = tp_fail(st, rc, "%s: out of memory", cfg->path);
    if (rc == TP_OK)
        rc = check_span(&kp);
    if (rc == TP_OK)
        rc = kin_capture_apply(st, kp.trace, cfg->capture && cfg->capture[0] ? cfg->capture : NULL);
    if (rc == TP_OK)
        rc = kin_fill_info(&kp);
    if (rc == TP_OK)
        report(&kp);
    if (rc == TP_OK && (rc = warn_unknown_categories(&kp)) != TP_OK)
        rc = tp_fail(st, rc, "%s: out of memory", cfg->path);
    kin_src_close(kp.src);
    kin_events_free(&kp);
    kin_spill_free(kp.spill);
    tp_free(kp.buf);
    tp_free(kp.tmp);
    kin_ws_free(&kp);
    return rc;
}

static size_t probe_ws(const unsigned char *h, size_t i, size_t n)
{
    while (i < n && (h[i] == ' ' || h[i] == '\n' || h[i] == '\r' || h[i] == '\t'))
        i++;
    return i;
}

/* The closing quote of the string opening at h[i], or n. */
static size_t probe_string_end(const unsigned char *h, size_t i, size_t n)
{
    for (i++; i < n; i++) {
        if (h[i] == '\\')
            i++;
        else if (h[i] == '"')
            return i;
    }
    return n;
}

/* Where the JSON value starting at h[i] ends (its ',' or '}' for a bare
 * scalar), or n: nesting and strings followed, nothing validated. */
static size_t probe_value_end(const unsigned char *h, size_t i, size_t n)
{
    int depth = 0;
    for (; i < n; i++) {
        unsigned char c = h[i];
        if (c == '"') {
            if ((i = probe_string_end(h, i, n)) >= n)
                return n;
            if (depth == 0)
                return i + 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (--depth <= 0)
                return depth < 0 ? i : i + 1;
        } else if (c == ',' && depth == 0) {
            return i;
        }
    }
    return n;
}

/* The top-level keys of the object opening at h[i]: 1 when one is
 * "traceEvents", 0 when the object (or the JSON) ends without it, -1 when
 * the head ends first. */
static int probe_has_events(const unsigned char *h, size_t i, size_t n)
{
    static const char key[] = "\"traceEvents\"";
    for (i = probe_ws(h, i + 1, n); i < n; i = probe_ws(h, i, n)) {
        if (h[i] != '"')
            return 0;
        size_t end = probe_string_end(h, i, n);
        if (end >= n)
            return -1;
        if (end + 1 - i == sizeof key - 1 && memcmp(h + i, key, sizeof key - 1) == 0)
            return 1;
        i = probe_ws(h, end + 1, n);
        if (i >= n || h[i] != ':')
            return i >= n ? -1 : 0;
        if ((i = probe_value_end(h, probe_ws(h, i + 1, n), n)) >= n)
            return -1;
        i = probe_ws(h, i, n);
        if (i < n && h[i] == ',')
            i++;
    }
    return -1;
}

/* The head as the core hands it (gzip inflated). An object with a
 * top-level "traceEvents" is a Chrome trace; one whose keys end without it
 * (a Chakra execution trace's "nodes") is not; one the head cuts short may
 * be. An array: the bare array form, unless a dvdt profile says more. Gzip
 * again inside: the reader says "compressed twice". */
static int kin_probe(const unsigned char *head, size_t n, const char *path)
{
    (void)path;
    if (n >= 2 && head[0] == 0x1f && head[1] == 0x8b)
        return 60;
    size_t i = probe_ws(head, 0, n);
    if (i < n && head[i] == '{') {
        int events = probe_has_events(head, i, n);
        return events > 0 ? 80 : events < 0 ? 40 : 0;
    }
    return i < n && head[i] == '[' ? 50 : 0;
}

static const tp_stage_desc kin_stages[] = {
    TP_STAGE_READER_PROBED("kineto", "PyTorch profiler (Kineto) Chrome-trace JSON, plain or gzip",
                           kin_options, kin_config, TP_PRODUCES_NONE, 0, NULL, kin_run, NULL,
                           kin_probe),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("kineto", "1.0.0", kin_stages);
