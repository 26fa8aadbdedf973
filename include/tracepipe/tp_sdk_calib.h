/*
 * tracepipe SDK: calibrated predictions (issue 27 item 4).  A roofline is
 * a lower bound; the time a kernel really takes is the bound divided by
 * the efficiency it reaches, and that efficiency grows with the size of
 * the work.  The curve fitted here, per device and category of op:
 *
 *     measured_us ~= t0_us * kernels + slope * bound_us
 *
 * a fixed cost per kernel (launch, ramp-up, tail: what dominates small
 * kernels) plus the bound stretched by 1/efficiency at large sizes.  The
 * achieved efficiency as a function of size is then the saturating curve
 * eff(bound) = bound / (t0_us * kernels + slope * bound): near 0 for
 * kernels far below t0, reaching 1/slope for large ones.  Two parameters,
 * monotone, bounded at both ends when extrapolated: robust on the tens of
 * samples a trace gives per category.  The fit minimises the sum of the
 * absolute relative errors |pred - m| / m (the errors GMAE summarises;
 * robust to the outliers real traces have): weighted least squares of the
 * relative errors (weights 1/m^2, closed form), then iteratively
 * reweighted (weights 1/(m^2 max(|r|, 1e-3)), r the relative error of the
 * previous curve) until neither parameter moves by 1e-12 relatively or
 * TP_CALIB_IRLS_MAX rounds.  docs/prediction.md, "Calibrated predictions".
 */
#ifndef TRACEPIPE_TP_SDK_CALIB_H
#define TRACEPIPE_TP_SDK_CALIB_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TP_CALIB_IRLS_MAX 200

typedef struct tp_calib_curve {
    double t0_us;  /* fixed cost per kernel, >= 0 */
    double slope;  /* measured time per µs of bound at large sizes (1/efficiency), >= 0 */
    size_t n;      /* samples the curve was fitted on */
} tp_calib_curve;

/* One sample: the model's bound, the kernels the op launched (at least 1
 * counts), the measured time. */
typedef struct tp_calib_sample {
    double bound_us, measured_us;
    double kernels;
} tp_calib_sample;

/* Fits c on the samples s[i] with keep == NULL or keep[i] != 0 (samples
 * with a measured time <= 0 or a bound < 0 are left out).  Each weighted
 * solve: unconstrained first; a negative t0 refits the slope alone
 * (t0 = 0), a negative slope the fixed cost alone (slope = 0).  Returns 1 when fitted,
 * 0 when fewer than 2 samples (c->n says how many). */
int tp_calib_fit(const tp_calib_sample *s, size_t n, const unsigned char *keep,
                 tp_calib_curve *c);

/* The calibrated prediction of a sample's time. */
double tp_calib_predict(const tp_calib_curve *c, double bound_us, double kernels);

/* Geometric mean of the absolute relative errors |p - m| / m, the GMAE of
 * predict (eps 4e-4 inside the log when one error is 0), as a ratio; NaN
 * for no values. */
double tp_calib_gmae(const double *pred, const double *meas, size_t n);

#ifdef __cplusplus
}
#endif

#endif
