/*
 * SDK-private: a typed natural merge sort, instantiated per element type and
 * order with TP_MSORT_DEFINE(name, type, ctx_type, less); less(ctx, x, y)
 * gets the context pointer handed to name(ctx, a, n) (the trace columns,
 * when the elements are row numbers).
 *
 * Why not qsort: the events come nearly sorted (a trace is written in time
 * order, thread by thread or interleaved), and glibc's qsort copies 32- and
 * 40-byte elements through memmove with an indirect compare, which made the
 * sorts most of the hierarchy's time on a 1 GB trace.  Sorting 4-byte row
 * numbers with the keys read from the columns needs 8 bytes per event
 * (array + scratch) where a struct of keys would need 48.  This one finds the
 * ascending runs (so sorted input costs one pass), extends short runs to
 * TP_MSORT_MIN_RUN with insertion sort, then merges runs pairwise, ping-ponging
 * between the array and one scratch buffer.  O(n log n) worst case, O(n)
 * for sorted input, which allocates nothing; otherwise both buffers are
 * allocated before the array is touched, so TP_ENOMEM leaves it unchanged.
 * The orders used are total (the row breaks ties), so the result is the
 * same as any other sort's.
 */
#ifndef TP_SDK_MSORT_H
#define TP_SDK_MSORT_H

#include <stddef.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>

#define TP_MSORT_MIN_RUN 32

/* name(ctx, a, n) sorts a[0, n); returns TP_OK or TP_ENOMEM (a unchanged). */
#define TP_MSORT_DEFINE(name, type, ctx_t, less)                                           \
    static size_t name##_ascent(ctx_t ctx, const type *a, size_t lo, size_t n)             \
    {                                                                                       \
        size_t hi = lo + 1;                                                                 \
        while (hi < n && !less(ctx, &a[hi], &a[hi - 1]))                                    \
            hi++;                                                                           \
        return hi;                                                                          \
    }                                                                                       \
    static size_t name##_run(ctx_t ctx, type *a, size_t lo, size_t hi, size_t n)            \
    {                                                                                       \
        size_t want = lo + TP_MSORT_MIN_RUN < n ? lo + TP_MSORT_MIN_RUN : n;                        \
        for (; hi < want; hi++) { /* insertion sort up to the minimum run */                \
            type x = a[hi];                                                                 \
            size_t j = hi;                                                                  \
            while (j > lo && less(ctx, &x, &a[j - 1])) {                                    \
                a[j] = a[j - 1];                                                            \
                j--;                                                                        \
            }                                                                               \
            a[j] = x;                                                                       \
        }                                                                                   \
        return hi;                                                                          \
    }                                                                                       \
    static void name##_merge(ctx_t ctx, const type *src, type *dst, size_t lo, size_t mid,  \
                            size_t hi)                                                      \
    {                                                                                       \
        size_t i = lo, j = mid, k = lo;                                                     \
        while (i < mid && j < hi)                                                           \
            dst[k++] = less(ctx, &src[j], &src[i]) ? src[j++] : src[i++];                   \
        memcpy(dst + k, src + i, (mid - i) * sizeof *src);                                  \
        k += mid - i;                                                                       \
        memcpy(dst + k, src + j, (hi - j) * sizeof *src);                                   \
    }                                                                                       \
    static int name(ctx_t ctx, type *a, size_t n)                                           \
    {                                                                                       \
        size_t first = n < 2 ? n : name##_ascent(ctx, a, 0, n);                              \
        if (first == n) /* already sorted: nothing to allocate */                          \
            return TP_OK;                                                                   \
        /* both buffers before a is touched, so TP_ENOMEM leaves it as it was */            \
        size_t nruns = 0, cap = n / TP_MSORT_MIN_RUN + 2;                                       \
        size_t *ends = tp_malloc(cap * sizeof *ends);                                       \
        type *tmp = ends != NULL ? tp_malloc(n * sizeof *tmp) : NULL;                       \
        if (tmp == NULL) {                                                                  \
            tp_free(ends);                                                                  \
            return TP_ENOMEM;                                                               \
        }                                                                                   \
        for (size_t lo = 0; lo < n;)                                                        \
            ends[nruns++] = lo =                                                            \
                name##_run(ctx, a, lo, lo ? name##_ascent(ctx, a, lo, n) : first, n);       \
        type *src = a, *dst = tmp;                                                          \
        while (nruns > 1) {                                                                 \
            size_t out = 0, lo = 0;                                                         \
            for (size_t r = 0; r < nruns; r += 2) {                                         \
                if (r + 1 < nruns) {                                                        \
                    name##_merge(ctx, src, dst, lo, ends[r], ends[r + 1]);                  \
                    lo = ends[out++] = ends[r + 1];                                         \
                } else {                                                                    \
                    memcpy(dst + lo, src + lo, (ends[r] - lo) * sizeof *src);               \
                    lo = ends[out++] = ends[r];                                             \
                }                                                                           \
            }                                                                               \
            nruns = out;                                                                    \
            type *t = src;                                                                  \
            src = dst;                                                                      \
            dst = t;                                                                        \
        }                                                                                   \
        if (src != a)                                                                       \
            memcpy(a, src, n * sizeof *a);                                                  \
        tp_free(tmp);                                                                       \
        tp_free(ends);                                                                      \
        return TP_OK;                                                                       \
    }

#endif
