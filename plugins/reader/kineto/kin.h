/*
 * kineto reader: internal declarations shared by its source files.
 *
 * The reader streams the file through a bounded window (kin_parser.buf) fed
 * by a byte source (kin_src: plain read() or gzip inflated on a second
 * thread).  Parsing is split into small retryable steps: a step either
 * completes, reports KIN_MORE (the window ended inside it: refill and run
 * the step again from its start), or records a syntax error.
 */
#ifndef KIN_H
#define KIN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <tracepipe/tp_plugin.h>

/* ---- byte source (kin_input.c) */
typedef struct kin_src kin_src;
/* Opens path; detects gzip by its magic bytes.  On failure returns NULL
 * with a one-line message (without the path) in err. */
kin_src *kin_src_open(const char *path, char *err, size_t err_size);
/* Reads up to n bytes; returns the count, 0 at the end, -1 on error (err). */
long kin_src_read(kin_src *s, char *dst, size_t n, char *err, size_t err_size);
/* The same, but a gzip file is inflated by kin_src_read itself (no thread):
 * for a split worker, which is a thread of its own. */
kin_src *kin_src_open_sync(const char *path, char *err, size_t err_size);
int kin_src_is_gzip(const kin_src *s);
/* Labels the run trace's graph replays with their capturing ops, from the
 * trace's own captures and the capture trace at path (option capture:;
 * NULL: none) (kin_capture.c). */
int kin_capture_apply(tp_stage *st, tp_trace *t, const char *path);
uint64_t kin_src_size(const kin_src *s);     /* file size in bytes */
uint64_t kin_src_consumed(const kin_src *s); /* file bytes consumed so far */
/* Plain files only: reads n bytes at off without moving (-1 on error), and
 * moves the read position to off (0, or -1). */
long kin_src_pread(kin_src *s, char *dst, size_t n, uint64_t off);
int kin_src_seek(kin_src *s, uint64_t off);
void kin_src_close(kin_src *s);

/* ---- step results */
enum { KIN_OK = 0, KIN_MORE = 1, KIN_ERR = 2 };

/* Why an event was dropped under on_error: skip. */
enum {
    KIN_DROP_TYPE = 0,  /* a field of the wrong JSON type */
    KIN_DROP_MISSING,   /* missing ph, or missing ts on a timed event */
    KIN_DROP_NEGDUR,    /* negative duration */
    KIN_DROP_RANGE,     /* ts/dur do not fit int64 nanoseconds */
    KIN_DROP_NOTOBJ,    /* an element of traceEvents that is not an object */
    KIN_DROP_TEXT,      /* a raw control character or invalid UTF-8 in a string, or a
                           NaN/Infinity number (lenient mode only; else a syntax error) */
    KIN_DROP_NUL,       /* \u0000 in a name, category or text id */
    KIN_DROP__COUNT
};

/* A scanned JSON number, as text pieces (kin_json.c). */
typedef struct kin_num {
    int neg;
    const char *ip; size_t il; /* integer digits */
    const char *fp; size_t fl; /* fraction digits (fl 0 if none) */
    int64_t exp;               /* decimal exponent, saturated */
} kin_num;

/* Builds  value * 10^shift  as int64 from the text, rounding to nearest
 * (halves away from zero).  Returns 0, or -1 when it does not fit; *inexact
 * is set when digits were rounded away. */
int kin_num_scaled(const kin_num *n, int shift, int64_t *out, int *inexact);

typedef struct kin_pend kin_pend; /* a "B" event waiting for its "E" */
typedef struct kin_local kin_local; /* a split worker's strings and events */
typedef struct kin_split kin_split;
typedef struct tp_spill kin_spill; /* args texts written to a file (kin_spill.c, tp_sdk_spill.h) */

typedef struct kin_parser {
    tp_stage *st;
    tp_trace *trace;
    const char *path;
    int keep_args, skip_bad;
    int round_inward;     /* compat: hta: times rounded inward to whole us */
    int args_ref;         /* plain regular file: args stay in it (trace_append_ref) */
    kin_spill *spill;     /* otherwise, with args kept: where they are written, or NULL */
    kin_src *src;

    char *buf;            /* window: buf[0, len) holds file bytes */
    size_t cap, len;
    const char *p, *end;  /* scan cursor and end of the valid bytes */
    uint64_t base;        /* file offset of buf[0] */
    uint64_t line;        /* 1-based line of the cursor */
    uint64_t line_start;  /* file offset of that line's first byte */
    int eof;              /* no bytes beyond end */

    char *tmp;            /* scratch for unescaped strings */
    size_t tmp_cap;
    uint8_t *cat_kind;    /* per cat id: 0 = not yet known, else kind + 1 */
    size_t cat_kind_n;

    kin_pend *pend;       /* "B" events in file order, open or closed */
    size_t n_pend, cap_pend, n_closed;
    struct kin_open *open; /* per (pid, tid): stack of open pend indices */
    size_t n_open_slots, n_open_used;

    size_t n_events, n_dropped[KIN_DROP__COUNT], n_unmatched_e, n_unmatched_b;
    size_t n_big_int;     /* ids too large for int64 (kept in args only) */
    int code;             /* set by kin_fail */

    /* on_error: skip, inside an event: problems that strict JSON calls
     * syntax errors but that leave the structure intact (kin_soft_bad) */
    int in_event;
    int soft_bad;
    uint64_t soft_line, soft_col;
    char soft_msg[96];

    /* two-core parsing (kin_split.c) */
    kin_split *split;     /* main parser: the running worker, or NULL */
    uint64_t stop_at;     /* main parser: the worker's start offset (0 = none) */
    kin_local *local;     /* worker: strings and events go here, not to the run */
    int object_form;      /* worker: the file is {..., "traceEvents": [...], ...} */
    atomic_int *split_abort;            /* worker: stop, the guess was wrong */
    atomic_uint_fast64_t *split_done;   /* worker: bytes consumed */

    /* whitespace that costs no memory (kin_ws.c): long runs seen by the
     * current step, and runs already squeezed out of the window */
    struct kin_wsrun *runs;
    size_t n_runs, cap_runs;
    struct kin_gap *gaps;
    size_t n_gaps, cap_gaps;
} kin_parser;

/* ---- diagnostics (kineto.c) */
/* Reports "path:line:col: msg" for a problem at byte `at` of the window and
 * returns KIN_ERR. */
int kin_syntax(kin_parser *kp, const char *at, const char *fmt, ...) TP_PRINTF(3, 4);
/* The line/column of byte `at` (must not precede the cursor's line). */
void kin_where(const kin_parser *kp, const char *at, uint64_t *line, uint64_t *col);

/* ---- whitespace (kin_ws.c)
 *
 * A whitespace run outside strings must not cost memory, wherever it is.
 * Between top-level units the parse loop simply consumes it (kineto.c).
 * Inside a unit (an event, a metadata value) that outgrows the window, the
 * runs of KIN_GAP_MIN bytes or more that the failed step met are squeezed
 * to a two-space marker (kin_ws_squeeze); a gap records what the marker
 * stands for (file bytes, newlines), so positions in messages and args
 * offsets stay those of the file, and rescanning the marker restores the
 * line count. */
#define KIN_GAP_MIN 256
int kin_ws_run(kin_parser *kp);
/* File offset of window byte `at`. */
uint64_t kin_file_off(const kin_parser *kp, const char *at);
/* 1 if a squeezed run lies in window bytes [a, b). */
int kin_has_gap(const kin_parser *kp, const char *a, const char *b);
/* Squeezes the runs recorded since kin_ws_step_start out of buf[from, len);
 * returns the bytes freed (kp->len and kp->end shrink). */
size_t kin_ws_squeeze(kin_parser *kp, size_t from);
/* The window drops buf[0, keep): gaps there fold into kp->base. */
void kin_ws_drop(kin_parser *kp, size_t keep);
static inline void kin_ws_step_start(kin_parser *kp) { kp->n_runs = 0; }
void kin_ws_free(kin_parser *kp);

/* ---- JSON scanning (kin_json.c); all advance kp->p */

static inline int kin_is_ws(char c)
{
    return c == ' ' || c == '\n' || c == '\t' || c == '\r';
}

/* Skips whitespace.  Inline for the common cases, no whitespace or one
 * space (after ':' or ','), which are most of the calls; runs (indentation,
 * newlines) go to kin_ws_run. */
static inline int kin_ws(kin_parser *kp)
{
    const char *p = kp->p;
    if (kp->end - p >= 2) {
        if (!kin_is_ws(p[0]))
            return KIN_OK;
        if (p[0] == ' ' && !kin_is_ws(p[1])) {
            kp->p = p + 1;
            return KIN_OK;
        }
    }
    return kin_ws_run(kp);
}
/* Lenient mode inside an event: records a recoverable problem at `at` (the
 * first one wins) and returns 1; otherwise returns 0 and the caller reports
 * a syntax error. */
int kin_soft_bad(kin_parser *kp, const char *at, const char *msg);
/* String at kp->p (which is '"'): raw bytes between the quotes; *esc set if
 * it holds escapes.  Validates escapes, control characters and UTF-8. */
int kin_string(kin_parser *kp, const char **s, size_t *len, int *esc);
/* kin_string for object keys, which are short: up to 24 plain ASCII bytes
 * and the closing quote are read inline, anything else by kin_string. */
static inline int kin_key(kin_parser *kp, const char **s, size_t *len, int *esc)
{
    const char *start = kp->p + 1, *q = start;
    const char *lim = kp->end - start > 24 ? start + 24 : kp->end;
    for (; q < lim; q++) {
        unsigned char c = (unsigned char)*q;
        if (c == '"') {
            *s = start;
            *len = (size_t)(q - start);
            *esc = 0;
            kp->p = q + 1;
            return KIN_OK;
        }
        if (c == '\\' || c < 0x20 || c >= 0x80)
            break;
    }
    return kin_string(kp, s, len, esc);
}
/* Unescapes a validated raw string into kp->tmp (NUL-terminated). */
int kin_unescape(kin_parser *kp, const char *s, size_t len, const char **out, size_t *out_len);
int kin_number(kin_parser *kp, kin_num *n);
/* The common number in one pass: [-]digits[.digits], no exponent, at most
 * `shift` (0..6) fraction digits and 18 digits once scaled, followed in the
 * window by a byte that ends it.  Sets *out to value * 10^shift, moves
 * kp->p past it and returns 1; returns 0 (nothing moved) for anything else,
 * which kin_number and kin_num_scaled then read (and report) as before. */
int kin_number_scaled_fast(kin_parser *kp, int shift, int64_t *out);
/* Validates and skips any value. */
int kin_skip_value(kin_parser *kp, int depth);

/* Worker: parses from kp->base (just after a comma inside traceEvents) to
 * the end of the file; returns TP_OK or a code (never reported). */
int kin_parse_events(kin_parser *kp);

/* ---- two-core parsing (kin_split.c) */
/* Main parser: for a big plain file, guesses a cut at SPLIT_MAIN_PERCENT
 * of the file (45 %: it also appends the worker's events) and starts a worker on the rest (sets kp->split,
 * kp->stop_at).  Any problem just means no split.  Returns TP_OK. */
int kin_split_start(kin_parser *kp);
/* Main parser at (met = 1) or past (met = 0) kp->stop_at: stops or joins
 * the worker; when met and the worker succeeded, appends its events.
 * Returns 1 when merged (the file is done), 0 to go on parsing, -1 on an
 * error (reported). */
int kin_split_join(kin_parser *kp, int met);
int kin_split_abort_requested(const kin_parser *kp);
/* Main parser, gzip: takes the cut once the worker has published it (sets
 * kp->stop_at), or ends the split if the worker found none. */
void kin_split_poll(kin_parser *kp);
/* Where the main parser's share of the progress ends, in progress units
 * (file bytes; compressed bytes for gzip). */
uint64_t kin_split_progress_cut(const kin_parser *kp);
void kin_split_progress(kin_parser *kp, uint64_t consumed);
uint64_t kin_split_worker_done(const kin_parser *kp); /* bytes past the cut */
/* Main parser, about to write its args file up to offset end: stops the
 * worker first when that passes the worker's cut (where its texts go). */
void kin_split_spill_flushing(kin_parser *kp, uint64_t end);
/* Worker-aware string table access (the run's pool, or the worker's). */
int kin_local_intern(kin_local *l, const char *s, size_t len, tp_str *out);
const char *kin_local_text(const kin_local *l, tp_str id, size_t *len);
/* file_off: where ev's args text lies in the source file, or KIN_NO_REF to
 * copy it. */
int kin_local_push(kin_local *l, const tp_event *ev, uint64_t file_off);
#define KIN_NO_REF UINT64_MAX
int kin_local_meta(kin_local *l, const char *key, const char *json, size_t len);

/* ---- args without a file to stay in (kin_spill.c) */
/* Main parser: an unlinked temporary file becomes the trace's args file
 * (kp->spill; left NULL, args then copied, when none can be made).  TP_OK
 * or TP_ENOMEM. */
int kin_spill_open(kin_parser *kp);
/* A second writer into s's file from offset at (a split worker's), or NULL. */
kin_spill *kin_spill_at(const kin_spill *s, uint64_t at);
/* Before each write of s's buffer: kin_split_spill_flushing(kp, end);
 * kp NULL: nothing. */
void kin_spill_guard(kin_spill *s, kin_parser *kp);
/* Buffers text; *off is where it will lie in the file.  TP_OK or TP_EIO. */
int kin_spill_put(kin_spill *s, const char *text, size_t len, uint64_t *off);
int kin_spill_flush(kin_spill *s);   /* NULL: nothing to do */
const char *kin_spill_error(const kin_spill *s); /* of the last failed write */
void kin_spill_free(kin_spill *s);

/* ---- events (kin_event.c) */
/* Parses the event object at kp->p and appends it (or drops it). */
int kin_event(kin_parser *kp);
/* Appends ev with its args text (in the window, or a copy) to the trace,
 * or to a split worker's events. */
int kin_event_append(kin_parser *kp, tp_event *ev, const char *args, size_t args_len);
/* ---- "B"/"E" pairs (kin_begin_end.c) */
/* Keeps a "B" event, with a copy of its args, open on its thread. */
int kin_begin_event(kin_parser *kp, const tp_event *ev, const char *args, size_t args_len);
/* An "E" event (at line:col): closes the innermost open "B" of its thread
 * as one complete event. */
int kin_end_event(kin_parser *kp, const tp_event *end_ev, const char *args, size_t args_len,
                  uint64_t line, uint64_t col);
/* Flushes unmatched "B" events at the end of the file. */
int kin_events_finish(kin_parser *kp);
/* Frees the pairs' state and the category kinds' cache. */
void kin_events_free(kin_parser *kp);
/* Trace info from the file's metadata (kin_info.c). */
int kin_fill_info(kin_parser *kp);
/* TensorFlow / JAX Chrome traces: events of kind other placed on the host
 * or device side by process and thread names (kin_producers.c). */
int kin_refine_producers(kin_parser *kp);
tp_kind kin_kind_of_cat(const char *cat, size_t len);
int kin_cat_tid_is_queue(const char *cat, size_t len);

#endif
