/*
 * tracepipe SDK: summary statistics, the one definition every analysis
 * reports (CONVENTIONS: count, sum, mean, std, std_sample, min, max, p50,
 * p90, p99).  std is the population deviation (ddof 0, as the seed
 * notebooks), std_sample the sample one (ddof 1); percentiles interpolate
 * linearly at rank p/100 * (n - 1) of the sorted values (numpy's default
 * "linear" method, reproduced operation by operation).
 */
#ifndef TRACEPIPE_TP_SDK_STATS_H
#define TRACEPIPE_TP_SDK_STATS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_stats {
    size_t count;
    double sum, mean, std, std_sample, min, max, p50, p90, p99;
    /* an empty sample has count 0 and every figure NaN (write it as null);
     * std_sample is NaN below two values */
} tp_stats;

/* Sorts v[0, n) ascending and fills s.  Sums in sorted order, so the
 * result does not depend on the order the values came in.  TP_OK, or
 * TP_ENOMEM (v unchanged, s not filled). */
int tp_stats_of(double *v, size_t n, tp_stats *s);

/* The p-th percentile (0..100) of sorted values v[0, n), NaN when n = 0. */
double tp_percentile_sorted(const double *v, size_t n, double p);

/* Coefficient of variation in percent, std / mean * 100 with the population
 * std (seed 003); 0 when the mean is 0 (0/0), NaN for no values. */
double tp_cv_percent(const double *v, size_t n);

#ifdef __cplusplus
}
#endif

#endif
