/*
 * hierarchy: publishing the forest and launch links compactly (issue 31).
 *
 * parent, first_child, next_sibling and depth mean something for the host
 * events of the forest only, launcher for GPU activities only: each is
 * published with a cell per member of its set (hierarchy.host_rows /
 * gpu_rows, a bit per row, with a count per 64 rows in host_rank /
 * gpu_rank), read through the SDK's compact view (tp_sdk_hier.h).  The
 * wide arrays of earlier releases (hierarchy.parent ... a cell per row)
 * stay, as lazy attachments filled from the compact ones the first time a
 * stage asks for them: byte for byte what they were, paid only by a
 * pipeline that reads them.
 */
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_hier.h>

#include "hier_internal.h"

/* A published int32 array of k cells, all -1, or NULL. */
static int32_t *member_array(hier *h, const char *name, size_t k)
{
    int32_t *a = tp_trace_attach(h->st, tp_stage_trace(h->st), name, TP_COL_I32, k);
    if (a != NULL)
        memset(a, 0xff, (k ? k : 1) * sizeof *a);
    return a;
}

/* A published set over the trace's rows: its bits (zeroed) and counts. */
static int publish_set(hier *h, const char *bits_name, const char *dir_name, uint64_t **bits,
                       uint32_t **dir)
{
    tp_trace *tr = tp_stage_trace(h->st);
    size_t words = tp_rowset_words(h->c->n);
    *bits = tp_trace_attach(h->st, tr, bits_name, TP_COL_I64, words);
    *dir = *bits ? tp_trace_attach(h->st, tr, dir_name, TP_COL_I32, words) : NULL;
    return *dir ? TP_OK : TP_ENOMEM;
}

/* The host events' set: the forest's rows (h->ev), before nesting. */
int hier_publish_host_set(hier *h)
{
    if (publish_set(h, TP_HIER_HOST_ROWS, TP_HIER_HOST_RANK, &h->hbits, &h->hdir) != TP_OK)
        return TP_ENOMEM;
    for (size_t i = 0; i < h->nev; i++)
        h->hbits[h->ev[i] >> 6] |= (uint64_t)1 << (h->ev[i] & 63);
    tp_rowset_index(h->hbits, h->hdir, tp_rowset_words(h->c->n));
    return TP_OK;
}

/* The host events' links, by rank: parent copied from the working array
 * (given back), the others -1 for link_children and the depth walk. */
int hier_publish_host_links(hier *h)
{
    h->cparent = member_array(h, "hierarchy.host_parent", h->nev);
    h->cfirst = member_array(h, "hierarchy.host_first_child", h->nev);
    h->cnext = member_array(h, "hierarchy.host_next_sibling", h->nev);
    h->cdepth = member_array(h, "hierarchy.host_depth", h->nev);
    if (!h->cparent || !h->cfirst || !h->cnext || !h->cdepth)
        return TP_ENOMEM;
    for (size_t i = 0; i < h->nev; i++)
        h->cparent[hier_ix(h, (int32_t)h->ev[i])] = h->parent[h->ev[i]];
    tp_free(h->parent);
    h->parent = NULL;
    return TP_OK;
}

/* The GPU activities' set and their launchers, from the working array
 * (given back).  The linker sets launchers on activity rows only. */
int hier_publish_launchers(hier *h)
{
    const tp_cols *c = h->c;
    uint64_t *bits;
    uint32_t *dir;
    if (publish_set(h, TP_HIER_GPU_ROWS, TP_HIER_GPU_RANK, &bits, &dir) != TP_OK)
        return TP_ENOMEM;
    for (size_t i = 0; i < c->n; i++)
        if (tp_kind_is_activity(c->kind[i]))
            bits[i >> 6] |= (uint64_t)1 << (i & 63);
    size_t ngpu = tp_rowset_index(bits, dir, tp_rowset_words(c->n));
    int32_t *l = member_array(h, "hierarchy.gpu_launcher", ngpu);
    if (l == NULL)
        return TP_ENOMEM;
    for (size_t i = 0, k = 0; i < c->n; i++)
        if (tp_kind_is_activity(c->kind[i]))
            l[k++] = h->launcher[i];
    tp_free(h->launcher);
    h->launcher = NULL;
    return TP_OK;
}

/* The wide arrays, in the order of their names below. */
enum { WIDE_PARENT, WIDE_FIRST_CHILD, WIDE_NEXT_SIBLING, WIDE_DEPTH, WIDE_LAUNCHER, NWIDE };
static const char *const wide_names[NWIDE] = {"hierarchy.parent", "hierarchy.first_child",
                                              "hierarchy.next_sibling", "hierarchy.depth",
                                              "hierarchy.launcher"};
static const int wide_which[NWIDE] = {WIDE_PARENT, WIDE_FIRST_CHILD, WIDE_NEXT_SIBLING,
                                      WIDE_DEPTH, WIDE_LAUNCHER};

/* Fills a wide array (user: its wide_which cell) from the compact view. */
static int fill_wide(const tp_trace *t, void *user, void *cells, size_t n)
{
    tp_hier_cview v;
    if (tp_hier_cview_load(t, n, &v) != TP_OK)
        return TP_ENOTFOUND;
    int which = *(const int *)user;
    const tp_rowset *set = which == WIDE_LAUNCHER ? &v.gpu : &v.host;
    const int32_t *by_rank[NWIDE] = {v.parent, v.first_child, v.next_sibling, v.depth,
                                     v.launcher};
    const int32_t *from = by_rank[which];
    int32_t *out = cells;
    size_t k = 0;
    for (size_t r = 0; r < n; r++)
        out[r] = tp_rowset_has(set, (int64_t)r) ? from[k++] : -1;
    return TP_OK;
}

/* Registers the wide arrays' names as lazy attachments. */
int hier_register_wide(hier *h)
{
    tp_trace *tr = tp_stage_trace(h->st);
    for (size_t a = 0; a < NWIDE; a++)
        if (tp_trace_attach_lazy(h->st, tr, wide_names[a], TP_COL_I32, h->c->n, fill_wide,
                                 (void *)&wide_which[a], NULL) != TP_OK)
            return TP_ENOMEM;
    return TP_OK;
}
