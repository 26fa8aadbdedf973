/*
 * A set of trace rows with a rank directory: a bit per row and, per 64
 * rows, the members before them (~1.5 bits per row).  A member's rank (its
 * index among the members in row order) indexes arrays that have a cell
 * per member only: the hierarchy's compact attachments (tp_sdk_hier.h),
 * device_breakdown's shown host events.  Part of the SDK (tp_sdk.h);
 * header-only.
 */
#ifndef TRACEPIPE_TP_SDK_ROWSET_H
#define TRACEPIPE_TP_SDK_ROWSET_H

#include <stddef.h>
#include <stdint.h>

typedef struct tp_rowset {
    const uint64_t *bits; /* n / 64 + 1 words: bit r & 63 of word r >> 6 */
    const uint32_t *dir;  /* n / 64 + 1 counts: members in the words before */
} tp_rowset;

/* Words of a set over n rows (bits and dir each). */
static inline size_t tp_rowset_words(size_t n) { return n / 64 + 1; }

/* Set bits of w, inline (the builtin is a library call without -mpopcnt). */
static inline uint32_t tp_popcount64(uint64_t w)
{
    w = w - ((w >> 1) & 0x5555555555555555u);
    w = (w & 0x3333333333333333u) + ((w >> 2) & 0x3333333333333333u);
    w = (w + (w >> 4)) & 0x0f0f0f0f0f0f0f0fu;
    return (uint32_t)((w * 0x0101010101010101u) >> 56);
}

/* Fills dir from bits (nwords words); returns the members. */
static inline uint32_t tp_rowset_index(const uint64_t *bits, uint32_t *dir, size_t nwords)
{
    uint32_t members = 0;
    for (size_t w = 0; w < nwords; w++) {
        dir[w] = members;
        members += tp_popcount64(bits[w]);
    }
    return members;
}

static inline int tp_bits_has(const uint64_t *bits, int64_t r)
{
    return (int)((bits[r >> 6] >> (r & 63)) & 1);
}

/* The rank of member r of the set (bits, dir). */
static inline uint32_t tp_bits_rank(const uint64_t *bits, const uint32_t *dir, int64_t r)
{
    uint64_t below = ((uint64_t)1 << (r & 63)) - 1;
    return dir[r >> 6] + tp_popcount64(bits[r >> 6] & below);
}

static inline int tp_rowset_has(const tp_rowset *s, int64_t r) { return tp_bits_has(s->bits, r); }

/* cells[rank of r] for a member r, else -1 (also for r < 0). */
static inline int32_t tp_rowset_cell(const tp_rowset *s, const int32_t *cells, int64_t r)
{
    if (r < 0 || !tp_bits_has(s->bits, r))
        return -1;
    return cells[tp_bits_rank(s->bits, s->dir, r)];
}

/* Cells indexed by row, or (set given) by rank of a member of set, rows
 * outside it reading -1: what an SDK function reads the hierarchy's wide
 * or compact arrays through. */
typedef struct tp_rowcells {
    const int32_t *cells;
    const tp_rowset *set; /* NULL: a cell per row */
} tp_rowcells;

static inline int32_t tp_rowcells_at(const tp_rowcells *a, int64_t r)
{
    return a->set ? tp_rowset_cell(a->set, a->cells, r) : a->cells[r];
}

#endif
