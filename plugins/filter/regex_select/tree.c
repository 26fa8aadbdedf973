/*
 * regex_select: keeping hierarchies whole.  The parent links come from the
 * hierarchy analysis when it ran on this trace, else from nesting complete
 * events by time per (pid, tid) with one sort and a stack (O(n log n)).
 */
#include <stdlib.h>
#include <string.h>

#include "regex_select.h"

typedef struct nest_ev {
    int64_t pid, tid, ts, end;
    size_t row;
} nest_ev;

static int nest_cmp(const void *a, const void *b)
{
    const nest_ev *x = a, *y = b;
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1; /* longest first: parents before children */
    return x->row < y->row ? -1 : x->row > y->row;
}

static int nestable(const tp_cols *c, size_t i)
{
    uint8_t k = c->kind[i];
    return c->phase[i] == 'X' && c->dur[i] >= 0 && k != TP_KIND_FLOW && k != TP_KIND_METADATA &&
           k != TP_KIND_COUNTER;
}

/* An event is the child of the innermost open event of its thread that
 * contains it; partial overlaps close the open event. */
static void nest_sorted(const nest_ev *e, size_t n, size_t *stack, int64_t *parent)
{
    size_t depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && (e[i].pid != e[i - 1].pid || e[i].tid != e[i - 1].tid))
            depth = 0;
        while (depth > 0) {
            const nest_ev *top = &e[stack[depth - 1]];
            if (e[i].end <= top->end && e[i].ts < top->end)
                break;
            depth--;
        }
        parent[e[i].row] = depth ? (int64_t)e[stack[depth - 1]].row : -1;
        stack[depth++] = i;
    }
}

static int64_t *nest_by_time(const tp_cols *c)
{
    int64_t *parent = tp_malloc((c->n ? c->n : 1) * sizeof *parent);
    nest_ev *e = tp_malloc((c->n ? c->n : 1) * sizeof *e);
    size_t *stack = tp_malloc((c->n ? c->n : 1) * sizeof *stack);
    if (parent == NULL || e == NULL || stack == NULL) {
        tp_free(parent);
        tp_free(e);
        tp_free(stack);
        return NULL;
    }
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        parent[i] = -1;
        if (nestable(c, i))
            e[k++] = (nest_ev){c->pid[i], c->tid[i], c->ts[i], c->ts[i] + c->dur[i], i};
    }
    qsort(e, k, sizeof *e, nest_cmp);
    nest_sorted(e, k, stack, parent);
    tp_free(e);
    tp_free(stack);
    return parent;
}

static int64_t parent_of(const int64_t *parent, size_t n, size_t i)
{
    int64_t p = parent[i];
    return p >= 0 && (uint64_t)p < n ? p : -1;
}

/* Keeps every event lying under a matched one.  state: 0 unknown, 1 under
 * a match, 2 not; each chain is walked once and its nodes resolved. */
static int add_descendants(const int64_t *parent, size_t n, const uint8_t *matched, uint8_t *keep)
{
    uint8_t *state = tp_calloc(n ? n : 1, 1);
    size_t *path = tp_malloc((n ? n : 1) * sizeof *path);
    if (state == NULL || path == NULL) {
        tp_free(state);
        tp_free(path);
        return TP_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        size_t len = 0;
        int64_t j = (int64_t)i;
        uint8_t v = 2;
        while (j >= 0 && len < n) {
            if (state[j]) {
                v = state[j];
                break;
            }
            if (matched[j]) {
                v = 1;
                break;
            }
            path[len++] = (size_t)j;
            j = parent_of(parent, n, (size_t)j);
        }
        if (j >= 0 && state[j] == 0)
            state[j] = v; /* the matched node itself */
        for (size_t p = 0; p < len; p++)
            state[path[p]] = v;
    }
    for (size_t i = 0; i < n; i++)
        if (state[i] == 1)
            keep[i] = 1;
    tp_free(state);
    tp_free(path);
    return TP_OK;
}

/* Keeps every ancestor of a matched event; each node is climbed once. */
static int add_ancestors(const int64_t *parent, size_t n, const uint8_t *matched, uint8_t *keep)
{
    uint8_t *seen = tp_calloc(n ? n : 1, 1);
    if (seen == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        if (!matched[i])
            continue;
        for (int64_t j = parent_of(parent, n, i); j >= 0 && !seen[j];
             j = parent_of(parent, n, (size_t)j)) {
            seen[j] = 1;
            keep[j] = 1;
        }
    }
    tp_free(seen);
    return TP_OK;
}

int rs_extend(tp_stage *st, const tp_trace *t, uint8_t *keep, int desc, int anc,
              const char **source)
{
    (void)st;
    const tp_cols *c = tp_trace_cols(t);
    size_t n_att = 0;
    const int64_t *parent = tp_trace_attached(t, "hierarchy.parent", TP_COL_I64, &n_att);
    int64_t *own = NULL;
    if (parent != NULL && n_att == c->n) {
        *source = " (hierarchy.parent)";
    } else {
        if ((own = nest_by_time(c)) == NULL)
            return TP_ENOMEM;
        parent = own;
        *source = " (nested by time)";
    }
    uint8_t *matched = tp_malloc(c->n ? c->n : 1);
    int rc = matched ? TP_OK : TP_ENOMEM;
    if (rc == TP_OK) {
        memcpy(matched, keep, c->n);
        if (desc)
            rc = add_descendants(parent, c->n, matched, keep);
        if (rc == TP_OK && anc)
            rc = add_ancestors(parent, c->n, matched, keep);
    }
    tp_free(matched);
    tp_free(own);
    return rc;
}
