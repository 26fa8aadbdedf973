/*
 * kineto reader: whitespace that costs no memory (issue 12, item 7).
 *
 * Whitespace between top-level units (before the document, between events
 * or metadata members, after the document) is consumed by the parse loop
 * before each step, so the window never keeps it.  Whitespace inside a unit
 * (an event, a metadata value) is part of the unit, which must sit whole in
 * the window because a step that runs out of bytes restarts from the unit's
 * start.  When such a unit fills the window, the long runs the failed step
 * met are squeezed out: each becomes a two-space marker, and a gap entry
 * records what the marker stands for:
 *
 *   - the file bytes it replaces, so that window positions still map to
 *     file offsets (messages, args offsets, the split cut);
 *   - the newlines in them and where the last line starts, which kin_ws_run
 *     adds back each time it scans the marker (a restarted step rescans it).
 *
 * Only kin_ws_run ever skips whitespace outside strings, so only it meets
 * markers: the inline kin_ws sends "  " to it, never skipping it itself.
 */
#include <string.h>

#include "kin.h"

/* A run of KIN_GAP_MIN whitespace bytes or more met by the current step. */
struct kin_wsrun {
    size_t a, b;          /* window bytes [a, b) */
    uint64_t lines;       /* newlines in the run (markers included) */
    uint64_t line_start;  /* file offset of the line after the last one */
};

/* A squeezed run: the marker at window byte pos stands for removed + 2
 * file bytes. */
struct kin_gap {
    size_t pos;
    uint64_t removed;
    uint64_t lines, line_start; /* as in kin_wsrun */
    uint64_t cum;               /* removed bytes of this gap and all before it */
};

typedef struct kin_wsrun kin_wsrun;
typedef struct kin_gap kin_gap;

/* Past the spaces at p (a line's indentation), 8 bytes at a time. */
static inline const char *indentation(const char *p, const char *end)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        w ^= UINT64_C(0x2020202020202020);
        if (w != 0)
            return p + __builtin_ctzll(w) / 8;
        p += 8;
    }
#else
    (void)end;
#endif
    return p;
}

/* The original scanner: plain whitespace in [p, end); the file offset of
 * window byte q there is shift + (q - buf). */
static const char *skip_plain(kin_parser *kp, const char *p, const char *end, uint64_t shift)
{
    while (p < end) {
        char c = *p;
        if (c == ' ' || c == '\t' || c == '\r') {
            p++;
        } else if (c == '\n') {
            p++;
            kp->line++;
            kp->line_start = shift + (uint64_t)(p - kp->buf);
            p = indentation(p, end);
        } else {
            break;
        }
    }
    return p;
}

/* Index of the first gap whose marker is at window byte i or later. */
static size_t gap_from(const kin_parser *kp, size_t i)
{
    size_t lo = 0, hi = kp->n_gaps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (kp->gaps[mid].pos < i)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static void record_run(kin_parser *kp, const char *a, const char *b, uint64_t line0)
{
    if (kp->n_runs == kp->cap_runs) {
        size_t cap = kp->cap_runs ? kp->cap_runs * 2 : 16;
        kin_wsrun *r = tp_realloc(kp->runs, cap * sizeof *r);
        if (r == NULL)
            return; /* not squeezed: it only costs window space */
        kp->runs = r;
        kp->cap_runs = cap;
    }
    kp->runs[kp->n_runs++] = (kin_wsrun){(size_t)(a - kp->buf), (size_t)(b - kp->buf),
                                         kp->line - line0, kp->line_start};
}

int kin_ws_run(kin_parser *kp)
{
    const char *start = kp->p, *p = start, *end = kp->end;
    uint64_t line0 = kp->line;
    if (kp->n_gaps == 0) {
        p = skip_plain(kp, p, end, kp->base);
    } else {
        size_t g = gap_from(kp, (size_t)(p - kp->buf));
        for (;;) {
            const char *mark = g < kp->n_gaps ? kp->buf + kp->gaps[g].pos : end;
            uint64_t shift = kp->base + (g > 0 ? kp->gaps[g - 1].cum : 0);
            p = skip_plain(kp, p, mark < end ? mark : end, shift);
            if (p != mark || mark >= end)
                break;
            if (kp->gaps[g].lines) {
                kp->line += kp->gaps[g].lines;
                kp->line_start = kp->gaps[g].line_start;
            }
            p += 2;
            g++;
        }
    }
    kp->p = p;
    if (p - start >= KIN_GAP_MIN)
        record_run(kp, start, p, line0);
    return p < end ? KIN_OK : KIN_MORE;
}

uint64_t kin_file_off(const kin_parser *kp, const char *at)
{
    size_t i = (size_t)(at - kp->buf);
    uint64_t off = kp->base + i;
    if (kp->n_gaps) {
        size_t g = gap_from(kp, i); /* gaps[0, g) lie before i */
        if (g > 0)
            off += kp->gaps[g - 1].cum;
    }
    return off;
}

int kin_has_gap(const kin_parser *kp, const char *a, const char *b)
{
    if (kp->n_gaps == 0)
        return 0;
    size_t g = gap_from(kp, (size_t)(a - kp->buf));
    return g < kp->n_gaps && kp->gaps[g].pos < (size_t)(b - kp->buf);
}

static void set_cum(kin_gap *gaps, size_t n)
{
    uint64_t cum = 0;
    for (size_t i = 0; i < n; i++) {
        cum += gaps[i].removed;
        gaps[i].cum = cum;
    }
}

size_t kin_ws_squeeze(kin_parser *kp, size_t from)
{
    if (kp->n_runs == 0)
        return 0;
    kin_gap *out = tp_malloc((kp->n_gaps + kp->n_runs) * sizeof *out);
    if (out == NULL)
        return 0;
    char *buf = kp->buf;
    size_t n_out = 0, gi = 0, r = from, w = from;
    while (gi < kp->n_gaps && kp->gaps[gi].pos < from)
        out[n_out++] = kp->gaps[gi++];
    for (size_t k = 0; k < kp->n_runs; k++) {
        const kin_wsrun *run = &kp->runs[k];
        if (run->a < r || run->b > kp->len)
            continue; /* not in this unit (cannot happen) */
        memmove(buf + w, buf + r, run->a - r);
        for (; gi < kp->n_gaps && kp->gaps[gi].pos < run->a; gi++) {
            out[n_out] = kp->gaps[gi];
            out[n_out++].pos = kp->gaps[gi].pos - r + w;
        }
        w += run->a - r;
        uint64_t removed = run->b - run->a - 2;
        for (; gi < kp->n_gaps && kp->gaps[gi].pos < run->b; gi++)
            removed += kp->gaps[gi].removed; /* an older marker inside the run */
        out[n_out++] = (kin_gap){w, removed, run->lines, run->line_start, 0};
        buf[w] = buf[w + 1] = ' ';
        w += 2;
        r = run->b;
    }
    memmove(buf + w, buf + r, kp->len - r);
    for (; gi < kp->n_gaps; gi++) {
        out[n_out] = kp->gaps[gi];
        out[n_out++].pos = kp->gaps[gi].pos - r + w;
    }
    w += kp->len - r;
    size_t freed = kp->len - w;
    set_cum(out, n_out);
    tp_free(kp->gaps);
    kp->gaps = out;
    kp->n_gaps = kp->cap_gaps = n_out;
    kp->len = w;
    kp->end = buf + w;
    kp->n_runs = 0;
    return freed;
}

void kin_ws_drop(kin_parser *kp, size_t keep)
{
    size_t k = 0;
    uint64_t folded = 0;
    while (k < kp->n_gaps && kp->gaps[k].pos < keep)
        folded += kp->gaps[k++].removed;
    if (k == 0 && kp->n_gaps == 0)
        return;
    kp->base += folded;
    kp->n_gaps -= k;
    memmove(kp->gaps, kp->gaps + k, kp->n_gaps * sizeof *kp->gaps);
    for (size_t i = 0; i < kp->n_gaps; i++) {
        kp->gaps[i].pos -= keep;
        kp->gaps[i].cum -= folded;
    }
}

void kin_ws_free(kin_parser *kp)
{
    tp_free(kp->runs);
    tp_free(kp->gaps);
    kp->runs = NULL;
    kp->gaps = NULL;
    kp->n_runs = kp->cap_runs = kp->n_gaps = kp->cap_gaps = 0;
}
