/*
 * tracepipe SDK: summary statistics, the one definition every analysis
 * reports (CONVENTIONS: count, sum, mean, std, std_sample, min, max, p50,
 * p90, p99).  std is the population deviation (ddof 0, as the seed
 * notebooks), std_sample the sample one (ddof 1); percentiles interpolate
 * linearly at rank p/100 * (n - 1) of the sorted values (numpy's default
 * "linear" method, reproduced operation by operation: the median of an even
 * count is the mean of the two middle values).
 *
 * The convention (docs/architecture.md, semantics layer): a figure that
 * needs two samples -- std, std_sample, the coefficient of variation -- is
 * NaN (written as null) below two, never 0: a CV of 0 from one sample would
 * read as "perfectly steady".  Count, sum, mean, min, max and the
 * percentiles are those of numpy for any n >= 1 (one value is its own
 * median and p99); every figure is NaN for no values.
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
     * std and std_sample are NaN below two values */
} tp_stats;

/* Sorts v[0, n) ascending and fills s.  Sums in sorted order, so the
 * result does not depend on the order the values came in.  TP_OK, or
 * TP_ENOMEM (v unchanged, s not filled). */
int tp_stats_of(double *v, size_t n, tp_stats *s);

/* The p-th percentile (0..100) of sorted values v[0, n), NaN when n = 0. */
double tp_percentile_sorted(const double *v, size_t n, double p);

/* The median of v[0, n) as np.median: the middle value, or the mean of the
 * two middle values of an even count ((a + b) / 2, which can differ from
 * tp_percentile_sorted(v, n, 50) in the last bit, as np.percentile does);
 * NaN when n = 0.  Sorts v ascending.  TP_OK or TP_ENOMEM. */
int tp_median_of(double *v, size_t n, double *median);

/* Coefficient of variation in percent, std / mean * 100 with the population
 * std (seed 003); 0 when the mean is 0 (0/0), NaN below two values. */
double tp_cv_percent(const double *v, size_t n);

#ifdef __cplusplus
}
#endif

#endif
