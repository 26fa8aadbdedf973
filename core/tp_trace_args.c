/*
 * Traces: where each row's args text is, as an (offset, length) slot
 * (issue 31).
 *
 * Dense, a slot per row (12 bytes a row), while nearly every row has args
 * (a Kineto trace); sparse, a slot per row with args and a bit per row
 * (64 rows a word, with the count of slots before it: a row's slot is that
 * count plus the bits set below its own), when many rows have none (an
 * nsys export: a million kernels without args beside a million API calls
 * with them, 12 MB of offsets instead of 24).  The layout is chosen when the
 * rows grow and when a hand-off is loaded (tp_trace_args_settle), by what
 * takes less memory; tp_trace_args_text reads either the same way.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "tp_trace_impl.h"

/* Rows with args at or below this share of all rows go sparse, at or above
 * the second share back dense (apart, so a trace never flips at each
 * growth); and traces smaller than SETTLE_ROWS keep what they started with. */
#define SPARSE_PERCENT 96
#define DENSE_PERCENT 98
#define SETTLE_ROWS 1024

static size_t words_for(size_t rows) { return (rows + 63) / 64; }

/* (Without -mpopcnt the builtin is a call into libgcc.) */
static int popcount64(uint64_t x)
{
    x -= (x >> 1) & UINT64_C(0x5555555555555555);
    x = (x & UINT64_C(0x3333333333333333)) + ((x >> 2) & UINT64_C(0x3333333333333333));
    x = (x + (x >> 4)) & UINT64_C(0x0F0F0F0F0F0F0F0F);
    return (int)((x * UINT64_C(0x0101010101010101)) >> 56);
}

uint32_t tp_trace_args_ref(const tp_trace *t, size_t row, uint64_t *off)
{
    *off = 0;
    if (t->args_off == NULL || row >= t->cols.n)
        return 0;
    size_t slot = row;
    if (t->args_words != NULL) {
        const args_word *w = &t->args_words[row / 64];
        uint64_t bit = UINT64_C(1) << (row % 64);
        if (!(w->bits & bit))
            return 0;
        slot = (size_t)w->rank + (size_t)popcount64(w->bits & (bit - 1));
    }
    *off = t->args_off[slot];
    return t->args_len[slot];
}

size_t tp_trace_args_memory(const tp_trace *t)
{
    if (t->args_off == NULL)
        return 0;
    size_t each = sizeof *t->args_off + sizeof *t->args_len;
    if (t->args_words == NULL)
        return t->cap * each;
    return t->args_slot_cap * each + words_for(t->cap) * sizeof *t->args_words;
}

void tp_trace_args_free(tp_trace *t)
{
    free(t->args_off);
    free(t->args_len);
    free(t->args_words);
    t->args_off = NULL;
    t->args_len = NULL;
    t->args_words = NULL;
    t->args_slots = t->args_slot_cap = 0;
}

static int grow(void **p, size_t elem, size_t cap) { return tp_trace_grow(p, elem, cap ? cap : 1); }

int tp_trace_args_grow(tp_trace *t, size_t cap)
{
    if (t->args_off == NULL)
        return TP_OK;
    if (t->args_words != NULL)
        return grow((void **)&t->args_words, sizeof *t->args_words, words_for(cap)) ? TP_ENOMEM
                                                                                     : TP_OK;
    return grow((void **)&t->args_off, sizeof *t->args_off, cap) ||
                   grow((void **)&t->args_len, sizeof *t->args_len, cap)
               ? TP_ENOMEM
               : TP_OK;
}

int tp_trace_args_make(tp_trace *t)
{
    size_t cap = t->cap ? t->cap : 1;
    if (t->cols.n == 0) { /* args from the first row: dense, until settled */
        t->args_off = calloc(cap, sizeof *t->args_off);
        t->args_len = calloc(cap, sizeof *t->args_len);
    } else { /* rows without args before it: sparse, until settled */
        t->args_words = calloc(words_for(cap), sizeof *t->args_words);
        t->args_off = malloc(sizeof *t->args_off); /* slots come with the rows */
        t->args_len = malloc(sizeof *t->args_len);
        t->args_slot_cap = 1;
    }
    if (t->args_off == NULL || t->args_len == NULL || (t->cols.n > 0 && t->args_words == NULL)) {
        tp_trace_args_free(t);
        return TP_ENOMEM;
    }
    return TP_OK;
}

/* Room for need slots: doubled, but never past the rows' own capacity. */
static int slot_room(tp_trace *t, size_t need)
{
    if (need <= t->args_slot_cap)
        return TP_OK;
    size_t cap = t->args_slot_cap * 2 > 1024 ? t->args_slot_cap * 2 : 1024;
    cap = cap < need ? need : cap > t->cap && t->cap >= need ? t->cap : cap;
    if (grow((void **)&t->args_off, sizeof *t->args_off, cap) ||
        grow((void **)&t->args_len, sizeof *t->args_len, cap))
        return TP_ENOMEM;
    t->args_slot_cap = cap;
    return TP_OK;
}

/* Row's slot in the sparse layout (rows written in order; a row written
 * again drops the slots from it on), its word started on its first row. */
int tp_trace_args_put_sparse(tp_trace *t, size_t row, uint64_t off, uint32_t len)
{
    args_word *w = &t->args_words[row / 64];
    uint64_t bit = UINT64_C(1) << (row % 64);
    if (row % 64 == 0) {
        w->rank = row == 0 ? 0 : w[-1].rank + (uint64_t)popcount64(w[-1].bits);
        w->bits = 0;
        t->args_slots = (size_t)w->rank;
    } else if ((w->bits & ~(bit - 1)) != 0) { /* written again (a block that failed) */
        w->bits &= bit - 1;
        t->args_slots = (size_t)w->rank + (size_t)popcount64(w->bits);
    }
    size_t slot = t->args_slots;
    if (len == 0)
        return TP_OK;
    if (slot_room(t, slot + 1) != TP_OK)
        return TP_ENOMEM;
    t->args_off[slot] = off;
    t->args_len[slot] = len;
    w->bits |= bit;
    t->args_slots = slot + 1;
    return TP_OK;
}

int tp_trace_args_put_block(tp_trace *t, size_t at, size_t n, const uint64_t *off,
                            const uint32_t *len)
{
    if (t->args_words == NULL) {
        for (size_t i = 0; i < n; i++) {
            uint32_t l = len ? len[i] : 0;
            t->args_off[at + i] = l ? off[i] | ARGS_IN_FILE : 0;
            t->args_len[at + i] = l;
        }
        return TP_OK;
    }
    uint32_t first = n > 0 && len ? len[0] : 0;
    if (n == 0 || tp_trace_args_put_sparse(t, at, first ? off[0] | ARGS_IN_FILE : 0, first))
        return n == 0 ? TP_OK : TP_ENOMEM;
    /* sparse: the first row placed above; the rest in order, the running
     * count of slots in a local */
    size_t slot = t->args_slots, more = 0;
    for (size_t i = 1; len && i < n; i++)
        more += len[i] != 0;
    if (slot_room(t, slot + more) != TP_OK)
        return TP_ENOMEM;
    for (size_t i = 1; i < n; i++) {
        size_t row = at + i;
        args_word *w = &t->args_words[row / 64];
        if (row % 64 == 0) {
            w->rank = slot;
            w->bits = 0;
        }
        if (len == NULL || len[i] == 0)
            continue;
        t->args_off[slot] = off[i] | ARGS_IN_FILE;
        t->args_len[slot++] = len[i];
        w->bits |= UINT64_C(1) << (row % 64);
    }
    t->args_slots = slot;
    return TP_OK;
}

/* The slot arrays cut or grown to cap slots.  Failing leaves the slots
 * usable: when the offsets were resized and the lengths were not, the slot
 * count is the smaller of the two arrays (a cut offsets array must never be
 * written past its new end). */
static int resize_slots(tp_trace *t, size_t cap)
{
    size_t want = cap ? cap : 1;
    if (grow((void **)&t->args_off, sizeof *t->args_off, cap))
        return TP_ENOMEM;
    if (grow((void **)&t->args_len, sizeof *t->args_len, cap)) {
        t->args_slot_cap = want < t->args_slot_cap ? want : t->args_slot_cap;
        return TP_ENOMEM;
    }
    t->args_slot_cap = want;
    return TP_OK;
}

/* The dense slots made sparse in place (a row's slot is never past the
 * row), then cut to the rows with args: no second copy at any time. */
static void to_sparse(tp_trace *t)
{
    size_t n = t->cols.n, slot = 0;
    args_word *w = calloc(words_for(t->cap ? t->cap : 1), sizeof *w);
    if (w == NULL)
        return; /* stays dense */
    for (size_t row = 0; row < n; row++) {
        if (row % 64 == 0)
            w[row / 64].rank = slot;
        if (t->args_len[row] == 0)
            continue;
        w[row / 64].bits |= UINT64_C(1) << (row % 64);
        t->args_off[slot] = t->args_off[row];
        t->args_len[slot++] = t->args_len[row];
    }
    t->args_words = w;
    t->args_slots = slot;
    t->args_slot_cap = t->cap ? t->cap : 1;
    resize_slots(t, slot);
}

/* The sparse slots made dense in place: grown to a slot per row, then
 * filled from the last row down (row r's slot is at or below r, and below
 * the slots of the rows after it, so no slot is overwritten before it is
 * read). */
static void to_dense(tp_trace *t)
{
    if (resize_slots(t, t->cap) != TP_OK)
        return; /* stays sparse (with room to spare) */
    for (size_t row = t->cols.n; row-- > 0;) {
        uint64_t off;
        uint32_t len = tp_trace_args_ref(t, row, &off);
        t->args_off[row] = off;
        t->args_len[row] = len;
    }
    free(t->args_words);
    t->args_words = NULL;
    t->args_slots = t->args_slot_cap = 0;
}

/* Dense or sparse as the rows so far say; complete: no room for more slots
 * is kept. */
static void settle(tp_trace *t, bool complete)
{
    size_t n = t->cols.n, with = 0;
    if (t->args_off == NULL || n < SETTLE_ROWS)
        return;
    if (t->args_words != NULL && t->args_slots * 100 >= n * DENSE_PERCENT)
        to_dense(t);
    else if (t->args_words != NULL && complete && t->args_slot_cap > t->args_slots)
        resize_slots(t, t->args_slots);
    if (t->args_words != NULL)
        return;
    for (size_t row = 0; row < n; row++)
        with += t->args_len[row] != 0;
    if (with * 100 <= n * SPARSE_PERCENT)
        to_sparse(t);
}

void tp_trace_args_settle(tp_trace *t) { settle(t, true); }

void tp_trace_args_grown(tp_trace *t) { settle(t, false); }
