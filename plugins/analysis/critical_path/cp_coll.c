/* critical_path: collectives matched across the ranks of a job
 * (docs/plugins/critical_path.md, "Ranks"): the SDK's one matcher
 * (tp_sdk_coll.h) pairs each rank's collective kernels by the SDK's key
 * (process group and type, tp_coll_key) and sequence within it, and gives
 * each rank's clock offset and each collective's last arrival; a collective
 * ends on every rank only when the last rank has arrived, so each member's
 * end gets an edge from the last arrival's start. */
#include <math.h>

#include "cp.h"
#include <tracepipe/tp_sdk_coll.h>
#include <tracepipe/tp_sdk_vocab.h>

/* One rank's collective kernels in start order. */
typedef struct cp_calls {
    uint32_t *row;
    int64_t *start, *end;
    uint64_t *key;
    size_t n;
} cp_calls;

static int by_start(const void *x, const void *y, void *ctx)
{
    const tp_cols *c = ctx;
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    if (c->ts[a] != c->ts[b])
        return c->ts[a] < c->ts[b] ? -1 : 1;
    return (a > b) - (a < b);
}

/* Trace tr's collective kernels (nodes), keyed by process group and type, in start order. */
static int calls_of(const cp_trace *tr, tp_coll_memo *memo, cp_calls *k)
{
    const tp_cols *c = tr->c;
    size_t n = 0;
    k->row = tp_malloc((c->n ? c->n : 1) * sizeof *k->row);
    if (k->row == NULL)
        return TP_ENOMEM;
    for (size_t r = 0; r < c->n; r++)
        if (tr->node_of[r] >= 0 && tp_ev_is_activity(c, r) &&
            tp_coll_memo_type(memo, c->name[r]) != TP_COLL_NONE)
            k->row[n++] = (uint32_t)r;
    k->n = n;
    k->start = tp_malloc((n ? n : 1) * sizeof *k->start);
    k->end = tp_malloc((n ? n : 1) * sizeof *k->end);
    k->key = tp_malloc((n ? n : 1) * sizeof *k->key);
    if (!k->start || !k->end || !k->key)
        return TP_ENOMEM;
    int rc = tp_sort(k->row, n, sizeof *k->row, by_start, (void *)c);
    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        uint32_t r = k->row[i];
        char group[64];
        tp_coll_group_of_ranked(tr->t, &tr->h, (int32_t)r, group, sizeof group);
        k->start[i] = c->ts[r];
        k->end[i] = c->ts[r] + c->dur[r];
        k->key[i] = tp_coll_key(group, tp_coll_memo_type(memo, c->name[r]));
    }
    return rc;
}

static void calls_free(cp_calls *k)
{
    tp_free(k->row);
    tp_free(k->start);
    tp_free(k->end);
    tp_free(k->key);
}

/* Per matched collective, each member's end after the last arrival's start. */
static void last_arrivals(const cp_graph *g, const tp_coll_match *m, const cp_calls *k,
                          int32_t *coll_src)
{
    for (size_t s = 0; s < m->nsets; s++) {
        if (tp_coll_set_size(m, s) < 2)
            continue;
        size_t last = m->latest[s];
        const tp_coll_member *l = &m->member[last];
        int32_t from = 2 * g->tr[l->rank].node_of[k[l->rank].row[l->call]];
        for (size_t j = m->first[s]; j < m->first[s + 1]; j++) {
            const tp_coll_member *x = &m->member[j];
            if (j != last)
                coll_src[g->tr[x->rank].node_of[k[x->rank].row[x->call]]] = from;
        }
    }
}

int cp_match_collectives(cp_graph *g, const tp_vocab *v, int32_t **coll_src)
{
    *coll_src = NULL;
    if (g->nt < 2)
        return TP_OK;
    tp_coll_memo memo;
    if (tp_coll_memo_init(&memo, g->st, v) != TP_OK)
        return TP_ENOMEM;
    cp_calls *k = tp_calloc(g->nt, sizeof *k);
    tp_coll_rank *ranks = tp_calloc(g->nt, sizeof *ranks);
    tp_coll_match m = {0};
    *coll_src = tp_malloc((g->nn ? g->nn : 1) * sizeof **coll_src);
    int rc = k && ranks && *coll_src ? TP_OK : TP_ENOMEM;
    for (size_t i = 0; i < g->nn && rc == TP_OK; i++)
        (*coll_src)[i] = -1;
    for (size_t i = 0; i < g->nt && rc == TP_OK; i++) {
        rc = calls_of(&g->tr[i], &memo, &k[i]);
        ranks[i] = (tp_coll_rank){k[i].start, k[i].end, k[i].key, k[i].n};
    }
    rc = rc ? rc : tp_coll_match_ranks(ranks, g->nt, &m);
    if (rc == TP_OK) {
        for (size_t i = 0; i < g->nt; i++) /* half nanoseconds to nanoseconds */
            g->tr[i].offset = (int64_t)llround((double)m.offset_hns[i] / 2.0);
        last_arrivals(g, &m, k, *coll_src);
    }
    tp_coll_match_free(&m);
    for (size_t i = 0; k != NULL && i < g->nt; i++)
        calls_free(&k[i]);
    tp_free(k);
    tp_free(ranks);
    tp_coll_memo_free(&memo);
    return rc;
}
