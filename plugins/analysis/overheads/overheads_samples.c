/* overheads: samples per key (overheads_samples.h). */
#include <string.h>

#include "overheads_samples.h"

/* The list of key, found through a table indexed by string id (a trace has
 * thousands of op names: a scan per sample was quadratic). */
oh_list *oh_list_of(oh_set *s, tp_str key)
{
    if (key >= s->index_cap) {
        size_t cap = (size_t)key * 2 + 64;
        uint32_t *ix = tp_realloc(s->index, cap * sizeof *ix);
        if (ix == NULL)
            return NULL;
        memset(ix + s->index_cap, 0, (cap - s->index_cap) * sizeof *ix);
        s->index = ix;
        s->index_cap = cap;
    }
    if (s->index[key] != 0)
        return &s->l[s->index[key] - 1];
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        oh_list *l = tp_realloc(s->l, cap * sizeof *l);
        if (l == NULL)
            return NULL;
        s->l = l;
        s->cap = cap;
    }
    s->l[s->n] = (oh_list){.key = key};
    s->index[key] = (uint32_t)(s->n + 1);
    return &s->l[s->n++];
}

int oh_push(oh_set *s, tp_str key, double x)
{
    oh_list *l = oh_list_of(s, key);
    if (l == NULL)
        return TP_ENOMEM;
    if (l->name == 0)
        l->name = key;
    if (l->n == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        double *v = tp_realloc(l->v, cap * sizeof *v);
        if (v == NULL)
            return TP_ENOMEM;
        l->v = v;
        l->cap = cap;
    }
    l->v[l->n++] = x;
    return TP_OK;
}

void oh_set_free(oh_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        tp_free(s->l[i].v);
    tp_free(s->l);
    tp_free(s->index);
}

