/* critical_path: replay (docs/plugins/critical_path.md, "Replay"): each
 * point at the latest end of its typed in-edges, in one topological order
 * made once (Kahn's algorithm over the in-edges turned around) and reused by
 * the measured replay and every what-if. */
#include "cp.h"

#include <math.h>

/* Edge i's (into point p) weight under ch; -1 for an edge left out. */
static int64_t weight(const cp_graph *g, uint32_t i, uint32_t p, const cp_change *ch)
{
    int64_t w = g->w[i];
    if (ch == NULL)
        return w;
    uint8_t b = g->type[i];
    switch (CP_TYPE_OF(b)) {
    case CP_SELF:
    case CP_COLLECTIVE: /* the transfer after the last rank arrived: the collective's own time */
        return llround((double)w * ch->self_scale[cp_owner(g, b, g->src[i], (int32_t)p)]);
    case CP_NESTING:
    case CP_HOST_ORDER:
        return llround((double)w * ch->piece_scale[cp_owner(g, b, g->src[i], (int32_t)p)]);
    case CP_LAUNCH:
        return llround((double)w * ch->launch);
    case CP_SYNC:
        return ch->drop[cp_owner(g, b, g->src[i], (int32_t)p)] ? -1 : w;
    default:
        return w;
    }
}

/* rt[p] (when stored) and p's binding in-edge from its in-edges (rt of
 * their sources known): the first of the latest arrivals. */
static void settle_replayed(cp_graph *g, uint32_t p, const cp_change *ch)
{
    int64_t best = -1;
    int64_t at = cp_t(g, p); /* a source keeps its measured time */
    for (uint32_t i = g->off[p]; i < g->off[p + 1]; i++) {
        int64_t w = weight(g, i, p, ch);
        if (w < 0)
            continue;
        int64_t x = cp_rt(g, g->src[i]) + w;
        if (best < 0 || x > at) {
            best = i;
            at = x;
        }
    }
    if (g->rt != NULL)
        g->rt[p] = at;
    g->bsrc[p] = best < 0 ? -1 : g->src[best];
    g->btype[p] = best < 0 ? 0 : g->type[best];
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
    g->bsrc = tp_malloc(np * sizeof *g->bsrc);
    g->btype = tp_malloc(np);
    int rc = g->order && g->bsrc && g->btype ? successors(g, &outoff, &outdst, &indeg) : TP_ENOMEM;
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

/* Without change every point replays at its measured time (each binding
 * edge's weight was made to arrive there), so rt is not stored: only the
 * binding edges are found.  A change stores rt. */
int cp_replay(cp_graph *g, const cp_change *ch)
{
    size_t acyclic = g->np - (size_t)g->n_cyclic;
    if (ch == NULL) {
        tp_free(g->rt);
        g->rt = NULL;
    } else if (g->rt == NULL && (g->rt = tp_malloc((g->np ? g->np : 1) * sizeof *g->rt)) == NULL) {
        return TP_ENOMEM;
    }
    for (size_t i = 0; i < acyclic; i++)
        settle_replayed(g, g->order[i], ch);
    for (size_t i = acyclic; i < g->np; i++) {
        if (g->rt != NULL)
            g->rt[g->order[i]] = cp_t(g, (int32_t)g->order[i]);
        g->bsrc[g->order[i]] = -1;
    }
    return TP_OK;
}
