/*
 * kernel_sequences: counting.  The kernels of each stream in start order;
 * every window of `length` kernels is hashed over its interned name ids
 * and looked up in one open-addressing table (O(kernels x length)).  An
 * occurrence counts when it does not overlap the last counted occurrence
 * of the same sequence (AAAA holds AA twice, not three times), so counts
 * and kernel time are never counted twice.
 */
#include <string.h>

#include "kseq.h"

static int collect(kseq *q)
{
    const tp_cols *c = q->c;
    size_t n = c->n ? c->n : 1;
    q->k = tp_malloc(n * sizeof *q->k);
    q->group = tp_malloc(n * sizeof *q->group);
    q->occ = tp_malloc(n * sizeof *q->occ);
    if (!q->k || !q->group || !q->occ)
        return TP_ENOMEM;
    for (size_t i = 0; i < c->n; i++)
        if (c->kind[i] == TP_KIND_KERNEL && tp_ev_is_complete(c, i))
            q->k[q->nk++] = (uint32_t)i;
    int rc = tp_sort(q->k, q->nk, sizeof *q->k, tp_rows_cmp_stream_start, (void *)c);
    for (size_t i = 0; rc == TP_OK && i < q->nk; i++) {
        uint32_t r = q->k[i], p = i ? q->k[i - 1] : r;
        int same = i > 0 && tp_ev_device(c, r) == tp_ev_device(c, p) &&
                   tp_ev_stream(c, r) == tp_ev_stream(c, p);
        q->group[i] = i == 0 ? 0 : q->group[i - 1] + (same ? 0 : 1);
        q->occ[i] = -1;
    }
    return rc;
}

static uint64_t window_hash(const kseq *q, size_t i, size_t len)
{
    uint64_t h = 1469598103934665603ull ^ q->group[i];
    for (size_t j = 0; j < len; j++)
        h = (h ^ q->c->name[q->k[i + j]]) * 1099511628211ull;
    return h ^ (h >> 31);
}

static int same_window(const kseq *q, size_t a, size_t b, size_t len)
{
    for (size_t j = 0; j < len; j++)
        if (q->c->name[q->k[a + j]] != q->c->name[q->k[b + j]])
            return 0;
    return 1;
}

/* The entry of the window at i (added when new). */
static kseq_entry *entry_of(kseq *q, size_t i, size_t len)
{
    uint64_t h = window_hash(q, i, len);
    for (size_t s = h & (q->cap - 1);; s = (s + 1) & (q->cap - 1)) {
        kseq_entry *e = &q->e[s];
        if (e->count < 0) { /* empty */
            *e = (kseq_entry){h, q->group[i], (uint32_t)i, 0, 0, 0};
            return e;
        }
        if (e->hash == h && e->group == q->group[i] && same_window(q, e->first, i, len))
            return e;
    }
}

static void count_window(kseq *q, size_t i, size_t len)
{
    kseq_entry *e = entry_of(q, i, len);
    if ((int64_t)i < e->next_free)
        return;
    e->count++;
    e->next_free = (int64_t)(i + len);
    for (size_t j = 0; j < len; j++)
        e->sum_ns += q->c->dur[q->k[i + j]];
    q->occ[i] = (int32_t)(e - q->e);
}

int kseq_count(kseq *q)
{
    int rc = collect(q);
    size_t len = (size_t)q->cfg->length;
    q->cap = 16;
    while (q->cap < 2 * q->nk)
        q->cap *= 2;
    q->e = rc ? NULL : tp_malloc(q->cap * sizeof *q->e);
    if (rc != TP_OK || q->e == NULL)
        return TP_ENOMEM;
    for (size_t s = 0; s < q->cap; s++)
        q->e[s].count = -1;
    for (size_t i = 0; i + len <= q->nk; i++)
        if (q->group[i] == q->group[i + len - 1]) /* the window lies in one stream */
            count_window(q, i, len);
    return TP_OK;
}
