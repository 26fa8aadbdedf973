/* critical_path: replay (docs/plugins/critical_path.md, "Replay"): each
 * point at the latest end of its typed in-edges, in one topological order
 * made once (Kahn's algorithm over the in-edges turned around) and reused by
 * the measured replay and every what-if. */
#include "cp.h"

#include <math.h>

/* Edge i's weight under ch; -1 for an edge left out. */
static int64_t weight(const cp_graph *g, uint32_t i, const cp_change *ch)
{
    int64_t w = g->w[i];
    if (ch == NULL)
        return w;
    switch (g->type[i]) {
    case CP_SELF:
    case CP_COLLECTIVE: /* the transfer after the last rank arrived: the collective's own time */
        return llround((double)w * ch->self_scale[g->owner[i]]);
    case CP_NESTING:
    case CP_HOST_ORDER:
        return llround((double)w * ch->piece_scale[g->owner[i]]);
    case CP_LAUNCH:
        return llround((double)w * ch->launch);
    case CP_SYNC:
        return ch->drop[g->owner[i]] ? -1 : w;
    default:
        return w;
    }
}

/* rt[p] and bind[p] from p's in-edges (rt of their sources known). */
static void settle_replayed(cp_graph *g, uint32_t p, const cp_change *ch)
{
    uint8_t best = CP_NO_BIND;
    int64_t at = g->t[p]; /* a source keeps its measured time */
    for (uint32_t i = g->off[p]; i < g->off[p + 1]; i++) {
        int64_t w = weight(g, i, ch);
        if (w < 0)
            continue;
        int64_t x = g->rt[g->src[i]] + w;
        if (best == CP_NO_BIND || x > at) {
            best = (uint8_t)(i - g->off[p]);
            at = x;
        }
    }
    g->rt[p] = at;
    g->bind[p] = best;
}

/* The points' successors (CSR by source) and in-degrees. */
static int successors(const cp_graph *g, uint32_t **outoff, uint32_t **outdst, uint8_t **indeg)
{
    size_t np = g->np ? g->np : 1;
    *outoff = tp_calloc(np + 1, sizeof **outoff);
    *outdst = tp_malloc((g->ne ? g->ne : 1) * sizeof **outdst);
    *indeg = tp_malloc(np);
    if (!*outoff || !*outdst || !*indeg)
        return TP_ENOMEM;
    uint32_t *o = *outoff;
    for (size_t i = 0; i < g->ne; i++)
        o[g->src[i] + 1]++;
    for (size_t p = 0; p < g->np; p++)
        o[p + 1] += o[p];
    for (size_t p = 0; p < g->np; p++) /* fill by source, o[p] moving as a cursor */
        for (uint32_t i = g->off[p]; i < g->off[p + 1]; i++)
            (*outdst)[o[g->src[i]]++] = (uint32_t)p;
    for (size_t p = g->np; p > 0; p--) /* the cursors back to the starts */
        o[p] = o[p - 1];
    o[0] = 0;
    for (size_t p = 0; p < g->np; p++)
        (*indeg)[p] = (uint8_t)(g->off[p + 1] - g->off[p]);
    return TP_OK;
}

int cp_order(cp_graph *g)
{
    size_t np = g->np ? g->np : 1;
    uint32_t *outoff = NULL, *outdst = NULL;
    uint8_t *indeg = NULL;
    g->order = tp_malloc(np * sizeof *g->order);
    g->rt = tp_malloc(np * sizeof *g->rt);
    g->bind = tp_malloc(np);
    int rc = g->order && g->rt && g->bind ? successors(g, &outoff, &outdst, &indeg) : TP_ENOMEM;
    if (rc == TP_OK) {
        size_t head = 0, tail = 0;
        for (size_t p = 0; p < g->np; p++)
            if (indeg[p] == 0)
                g->order[tail++] = (uint32_t)p;
        while (head < tail) {
            uint32_t p = g->order[head++];
            for (uint32_t i = outoff[p]; i < outoff[p + 1]; i++)
                if (--indeg[outdst[i]] == 0)
                    g->order[tail++] = outdst[i];
        }
        g->n_cyclic = (int64_t)(g->np - tail);
        for (size_t p = 0; p < g->np && tail < g->np; p++)
            if (indeg[p] != 0) /* on a cycle of ties: last, kept at its measured time */
                g->order[tail++] = (uint32_t)p;
    }
    tp_free(outoff);
    tp_free(outdst);
    tp_free(indeg);
    return rc;
}

int cp_replay(cp_graph *g, const cp_change *ch)
{
    size_t acyclic = g->np - (size_t)g->n_cyclic;
    for (size_t i = 0; i < acyclic; i++)
        settle_replayed(g, g->order[i], ch);
    for (size_t i = acyclic; i < g->np; i++) {
        g->rt[g->order[i]] = g->t[g->order[i]];
        g->bind[g->order[i]] = CP_NO_BIND;
    }
    return TP_OK;
}
