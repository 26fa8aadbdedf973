/* SDK: stable sorts (tp_sdk_sort.h). */
#include <tracepipe/tp_sdk_sort.h>
#include <tracepipe/tp_plugin.h>

#include <string.h>

#include "tp_sdk_msort.h"

static int key_less(const int64_t *key, const uint32_t *a, const uint32_t *b)
{
    return key[*a] != key[*b] ? key[*a] < key[*b] : *a < *b;
}

TP_MSORT_DEFINE(sort_rows_by_key, uint32_t, const int64_t *, key_less)

/* The same order without scratch memory (heapsort): a few rows, which need
 * no allocation, and the fallback when the merge sort's scratch cannot be
 * had, so sorting rows never fails. */
static void sift_down(uint32_t *rows, size_t at, size_t n, const int64_t *key)
{
    for (size_t child; (child = 2 * at + 1) < n; at = child) {
        if (child + 1 < n && key_less(key, &rows[child], &rows[child + 1]))
            child++;
        if (!key_less(key, &rows[at], &rows[child]))
            return;
        uint32_t t = rows[at];
        rows[at] = rows[child];
        rows[child] = t;
    }
}

static void sort_rows_in_place(uint32_t *rows, size_t n, const int64_t *key)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(rows, i, n, key);
    for (size_t end = n; end-- > 1;) {
        uint32_t t = rows[0];
        rows[0] = rows[end];
        rows[end] = t;
        sift_down(rows, 0, end, key);
    }
}

int tp_sort_rows_by_key(uint32_t *rows, size_t n, const int64_t *key)
{
    if (n <= 32 || sort_rows_by_key(key, rows, n) != TP_OK)
        sort_rows_in_place(rows, n, key);
    return TP_OK;
}

/* The generic sort moves element indices (one word, whatever the element
 * size) and permutes the elements once at the end. */
typedef struct generic_ctx {
    const char *base;
    size_t size;
    int (*cmp)(const void *, const void *, void *);
    void *ctx;
} generic_ctx;

static int generic_less(const generic_ctx *g, const size_t *a, const size_t *b)
{
    int c = g->cmp(g->base + *a * g->size, g->base + *b * g->size, g->ctx);
    return c != 0 ? c < 0 : *a < *b;
}

TP_MSORT_DEFINE(sort_indices, size_t, const generic_ctx *, generic_less)

int tp_sort(void *base, size_t n, size_t size,
            int (*cmp)(const void *a, const void *b, void *ctx), void *ctx)
{
    if (n < 2 || size == 0)
        return TP_OK;
    if (n > SIZE_MAX / size)
        return TP_ENOMEM;
    size_t *idx = tp_malloc(n * sizeof *idx);
    char *copy = tp_malloc(n * size);
    generic_ctx g = {base, size, cmp, ctx};
    int rc = idx && copy ? TP_OK : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < n; i++)
        idx[i] = i;
    if (rc == TP_OK)
        rc = sort_indices(&g, idx, n);
    if (rc == TP_OK) {
        for (size_t i = 0; i < n; i++)
            memcpy(copy + i * size, (const char *)base + idx[i] * size, size);
        memcpy(base, copy, n * size);
    }
    tp_free(idx);
    tp_free(copy);
    return rc;
}

size_t tp_lower_bound_i64(const void *base, size_t n, size_t size, size_t off, int64_t key)
{
    const char *b = base;
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t k;
        memcpy(&k, b + mid * size + off, sizeof k);
        if (k < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
