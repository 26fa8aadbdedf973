/* critical_path: replay (docs/plugins/critical_path.md, "Replay"): each
 * point at the latest end of its typed in-edges, in topological order
 * (Kahn's algorithm over the in-edges turned around once). */
#include "cp.h"

#include <math.h>

/* Edge e's weight under ch; -1 for an edge left out. */
static int64_t weight(const cp_edge *e, const cp_change *ch)
{
    if (ch == NULL)
        return e->w;
    switch (e->type) {
    case CP_SELF:
        return llround((double)e->w * ch->self_scale[e->owner]);
    case CP_NESTING:
    case CP_HOST_ORDER:
        return llround((double)e->w * ch->piece_scale[e->owner]);
    case CP_LAUNCH:
        return llround((double)e->w * ch->launch);
    case CP_SYNC:
        return ch->drop[e->owner] ? -1 : e->w;
    default:
        return e->w;
    }
}

/* rt[p] and bind[p] from p's in-edges (rt of their sources known). */
static void settle_replayed(cp_graph *g, uint32_t p, const cp_change *ch)
{
    int32_t best = -1;
    int64_t at = g->t[p]; /* a source keeps its measured time */
    for (uint32_t i = g->off[p]; i < g->off[p + 1]; i++) {
        int64_t w = weight(&g->e[i], ch);
        if (w < 0)
            continue;
        int64_t x = g->rt[g->e[i].src] + w;
        if (best < 0 || x > at) {
            best = (int32_t)i;
            at = x;
        }
    }
    g->rt[p] = at;
    g->bind[p] = best;
}

int cp_replay(cp_graph *g, const cp_change *ch)
{
    size_t np = g->np ? g->np : 1;
    uint32_t *outoff = tp_calloc(np + 1, sizeof *outoff);
    uint32_t *outdst = tp_malloc((g->ne ? g->ne : 1) * sizeof *outdst);
    uint32_t *indeg = tp_malloc(np * sizeof *indeg);
    uint32_t *queue = tp_malloc(np * sizeof *queue);
    if (g->rt == NULL)
        g->rt = tp_malloc(np * sizeof *g->rt);
    if (g->bind == NULL)
        g->bind = tp_malloc(np * sizeof *g->bind);
    int rc = outoff && outdst && indeg && queue && g->rt && g->bind ? TP_OK : TP_ENOMEM;
    if (rc == TP_OK) {
        for (size_t i = 0; i < g->ne; i++)
            outoff[g->e[i].src + 1]++;
        for (size_t p = 0; p < g->np; p++)
            outoff[p + 1] += outoff[p];
        for (size_t p = 0; p < g->np; p++) { /* outdst by source, using indeg as cursor */
            indeg[p] = outoff[p];
        }
        for (size_t p = 0; p < g->np; p++)
            for (uint32_t i = g->off[p]; i < g->off[p + 1]; i++)
                outdst[indeg[g->e[i].src]++] = (uint32_t)p;
        size_t head = 0, tail = 0;
        for (size_t p = 0; p < g->np; p++) {
            indeg[p] = g->off[p + 1] - g->off[p];
            if (indeg[p] == 0)
                queue[tail++] = (uint32_t)p;
        }
        while (head < tail) {
            uint32_t p = queue[head++];
            settle_replayed(g, p, ch);
            for (uint32_t i = outoff[p]; i < outoff[p + 1]; i++)
                if (--indeg[outdst[i]] == 0)
                    queue[tail++] = outdst[i];
        }
        g->n_cyclic = (int64_t)(g->np - tail);
        for (size_t p = 0; p < g->np && tail < g->np; p++)
            if (indeg[p] != 0) { /* on a cycle of ties: measured */
                g->rt[p] = g->t[p];
                g->bind[p] = -1;
            }
    }
    tp_free(outoff);
    tp_free(outdst);
    tp_free(indeg);
    tp_free(queue);
    return rc;
}
