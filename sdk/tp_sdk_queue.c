/* SDK: the launch queue series (tp_sdk_queue.h). */
#include <tracepipe/tp_sdk_queue.h>

#include <stdlib.h>

#include <tracepipe/tp_sdk_sort.h>
#include <tracepipe/tp_types.h>

static int leaves_first(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const tp_queue_point *x = a, *y = b; /* depth holds the change (+1, -1) while sorting */
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->depth > y->depth) - (x->depth < y->depth);
}

static int entries_first(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const tp_queue_point *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->depth < y->depth) - (x->depth > y->depth);
}

int tp_queue_series(const int64_t *in, const int64_t *out, size_t n, tp_queue_ties ties,
                    tp_queue_point **pts)
{
    *pts = NULL;
    if (n == 0)
        return TP_OK;
    tp_queue_point *p = malloc(2 * n * sizeof *p);
    if (p == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        p[2 * i] = (tp_queue_point){in[i], +1};
        p[2 * i + 1] = (tp_queue_point){out[i], -1};
    }
    if (tp_sort(p, 2 * n, sizeof *p, ties == TP_QUEUE_ENTRIES_FIRST ? entries_first : leaves_first,
                NULL) != TP_OK) {
        free(p);
        return TP_ENOMEM;
    }
    int64_t depth = 0;
    for (size_t i = 0; i < 2 * n; i++) {
        depth += p[i].depth;
        p[i].depth = depth;
    }
    *pts = p;
    return TP_OK;
}

int64_t tp_queue_time_at_least(const tp_queue_point *p, size_t m, int64_t limit)
{
    int64_t t = 0;
    for (size_t i = 0; i + 1 < m; i++)
        if (p[i].depth >= limit)
            t += p[i + 1].t - p[i].t;
    return t;
}
