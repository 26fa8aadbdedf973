/*
 * analysis predict: kernels no op launched (their launch call fell before
 * the trace window, or a graph replay's), modelled by an identical launch
 * (issue 27): the same kernel with the same grid, block and, where the
 * trace records them, registers and shared memory, launched elsewhere in
 * the trace by an op whose model predicted it and which owns that kernel
 * alone (no copy or set beside it), did the same work; the kernel inherits that op's FLOPs, bytes and
 * bound (model "identical_launch", counted apart in <id>.categories).  When
 * identical launches come from ops of different names or shapes, the kernel
 * stays unmodelled.
 */
#include <string.h>

#include <tracepipe/tp_sdk_launch.h>

#include "predict_internal.h"

const char pr_model_launch[] = "identical_launch";

/* A modelled op owning one kernel: its kernel's name and launch, and its
 * occurrence. */
typedef struct pr_donor {
    tp_str kernel;
    tp_kernel_launch launch;
    size_t occ;
    int ambiguous; /* another donor of the same key has another op name or shape */
} pr_donor;

/* Orders (kernel, launch) keys. */
static int key_cmp(tp_str kernel, const tp_kernel_launch *launch, const pr_donor *d)
{
    if (kernel != d->kernel)
        return kernel < d->kernel ? -1 : 1;
    return tp_kernel_launch_cmp(launch, &d->launch);
}

static int by_key(const void *a, const void *b, void *ctx)
{
    const pr_donor *x = a, *y = b;
    (void)ctx;
    int d = key_cmp(x->kernel, &x->launch, y);
    return d ? d : (x->occ > y->occ) - (x->occ < y->occ);
}

/* The donors among o[0, n) (kernel_row[i]: occurrence i's only kernel's
 * row, -1 for none), sorted by key, each marked ambiguous when its key's
 * donors disagree on the op's name or shape. */
static pr_donor *donors_of(const tp_trace *t, const tp_launch_source *src, const pr_occ *o,
                           size_t n, const int32_t *kernel_row, size_t *nd)
{
    const tp_cols *c = tp_trace_cols(t);
    pr_donor *d = tp_malloc((n ? n : 1) * sizeof *d);
    *nd = 0;
    for (size_t i = 0; d && i < n; i++) {
        if (o[i].model == NULL || kernel_row[i] < 0 || o[i].category == TP_OPCAT_COMMUNICATION)
            continue;
        tp_kernel_launch k;
        if (tp_kernel_launch_of(t, src, (size_t)kernel_row[i], &k))
            d[(*nd)++] = (pr_donor){c->name[kernel_row[i]], k, i, 0};
    }
    if (d == NULL || tp_sort(d, *nd, sizeof *d, by_key, NULL) != TP_OK) {
        tp_free(d);
        return NULL;
    }
    for (size_t i = 0; i < *nd;) {
        size_t j = i;
        int amb = 0;
        for (; j < *nd && key_cmp(d[j].kernel, &d[j].launch, &d[i]) == 0; j++)
            amb |= o[d[j].occ].name != o[d[i].occ].name || o[d[j].occ].dims != o[d[i].occ].dims;
        for (; i < j; i++)
            d[i].ambiguous = amb;
    }
    return d;
}

/* The first donor of kernel row a's (kernel, launch), or NULL (also when
 * the trace records no launch for it). */
static const pr_donor *find_donor(const pr_donor *d, size_t nd, const tp_trace *t,
                                  const tp_launch_source *src, size_t a)
{
    tp_kernel_launch k;
    if (!tp_kernel_launch_of(t, src, a, &k))
        return NULL;
    tp_str kernel = tp_trace_cols(t)->name[a];
    size_t lo = 0, hi = nd;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (key_cmp(kernel, &k, &d[mid]) > 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nd && key_cmp(kernel, &k, &d[lo]) == 0 ? &d[lo] : NULL;
}

/* The occurrence of kernel row a inheriting donor x's model. */
static pr_occ inherit(const tp_cols *c, size_t a, const pr_occ *x, const tp_preset *p)
{
    pr_occ y = *x;
    y.row = (int32_t)a;
    y.name = c->name[a];
    y.kernel = c->name[a];
    y.model = pr_model_launch;
    y.measured_us = (double)c->dur[a] / 1000.0;
    y.kernels = 1;
    y.predicted_us = pm_floor(x->bound_us, 1, p);
    y.why = NULL;
    return y;
}

int pr_identical_launches(tp_stage *st, const tp_trace *t, const tp_preset *p,
                          tp_coll_memo *coll, const int32_t *kernel_row, pr_occ **o, size_t *n,
                          size_t ndonors, pr_gpu_time *gpu)
{
    const tp_cols *c = tp_trace_cols(t);
    if (gpu->unowned == NULL || gpu->n_unowned == 0)
        return TP_OK;
    tp_launch_source src;
    if (tp_kernel_launch_source(t, &src) != TP_OK)
        return tp_fail(st, TP_ENOMEM, "out of memory reading the kernel launch columns");
    size_t nd = 0;
    pr_donor *d = donors_of(t, &src, *o, ndonors, kernel_row, &nd);
    pr_occ *grown = d ? tp_realloc(*o, (*n + gpu->n_unowned) * sizeof **o) : NULL;
    if (grown == NULL) {
        tp_free(d);
        return TP_ENOMEM;
    }
    *o = grown;
    size_t kept = 0;
    for (size_t k = 0; k < gpu->n_unowned; k++) {
        size_t a = gpu->unowned[k];
        const pr_donor *x = NULL;
        if (nd > 0 && c->kind[a] == TP_KIND_KERNEL &&
            tp_coll_memo_type(coll, c->name[a]) == TP_COLL_NONE)
            x = find_donor(d, nd, t, &src, a);
        if (x == NULL || x->ambiguous) {
            gpu->unowned[kept++] = (uint32_t)a;
            continue;
        }
        (*o)[(*n)++] = inherit(c, a, &(*o)[x->occ], p);
        gpu->unowned_us[TP_OPCAT_OTHER] -= (double)c->dur[a] / 1000.0;
    }
    gpu->n_unowned = kept;
    tp_free(d);
    return TP_OK;
}
