/*
 * analysis predict: the columns of the calibration's results (issue 27
 * item 4, predict_calib.c): <id>.calibration and <id>.calibrated, declared
 * with calibrate: fit or a calibration file.
 * Private to plugins/analysis/predict.
 */
#ifndef TP_PREDICT_CALIB_RESULTS_H
#define TP_PREDICT_CALIB_RESULTS_H

#include <tracepipe/tp_plugin.h>

/* <id>.calibration: one row per (device, category) of the modelled occurrences. */
#define PR_CALIBRATION_COLS(X, P)                                                               \
    X(P, device, STR, NULL, "the preset the curve belongs to")                                  \
    X(P, category, STR, NULL, "the category of op: gemm, attention, moe, norm, conv, "          \
                              "elementwise, other")                                             \
    X(P, dtype, STR, NULL, "the kernels' element type the curve is for (their names decoded: "  \
                           "fp32, tf32, bf16 ...) when the category's types have curves of "   \
                           "their own; null: the category's other or undecoded types")          \
    X(P, holdout, STR, NULL, "how the calibrated error is out of sample: trace (leave one "     \
                             "trace out), iteration (leave one iteration out), file (fitted "   \
                             "on other traces); in_sample when the file's fit saw this trace; " \
                             "null: no figure")                                                 \
    X(P, count, I64, "count", "the category's modelled occurrences here")                       \
    X(P, n_fit, I64, "count", "samples the curve was fitted on (all of count with "             \
                              "calibrate: fit; the file's otherwise)")                          \
    X(P, n_groups, I64, "count", "traces or iterations the fit saw (each held out in turn)")    \
    X(P, t0_us, F64, "us", "the curve's fixed cost per kernel")                                 \
    X(P, slope, F64, NULL, "measured us per us of bound at large sizes")                        \
    X(P, efficiency, F64, "ratio", "1 / slope: the fraction of the bound reached at large "     \
                                   "sizes (null when slope is 0); not clamped: above 1 the "    \
                                   "kernels beat the model's bound, which is then no lower "    \
                                   "bound for them (bytes counted that caches or broadcasts "   \
                                   "never move)")                                               \
    X(P, bound_gmae_percent, F64, "percent", "GMAE of the uncalibrated predictions (roofline "  \
                                             "and floor), as in <id>.categories")               \
    X(P, n_predicted, I64, "count", "occurrences with an out-of-sample calibrated prediction")  \
    X(P, gmae_percent, F64, "percent", "GMAE of the calibrated predictions, out of sample "     \
                                       "(null when none)")                                      \
    X(P, mean_error_percent, F64, "percent", "their mean relative error x 100 (null when "      \
                                             "none)")                                           \
    X(P, median_error_percent, F64, "percent", "their median relative error x 100 (null when "  \
                                               "none)")                                         \
    X(P, reason, STR, NULL, "why there is no out-of-sample figure (null when there is)")
TP_COLUMNS(pr_calibration, PR_CALIBRATION_COLS);

/* <id>.calibrated: one row per (device, op name, input dims) modelled. */
#define PR_CALIBRATED_COLS(X, P)                                                                \
    X(P, device, STR, NULL, "the preset")                                                       \
    X(P, name, STR, NULL, "the op's name")                                                      \
    X(P, input_dims, STR, NULL, "its Input Dims (null without)")                                \
    X(P, category, STR, NULL, "its category")                                                   \
    X(P, count, I64, "count", "occurrences")                                                    \
    X(P, measured_us, F64, "us", "measured GPU time, mean per occurrence")                      \
    X(P, predicted_us, F64, "us", "the uncalibrated prediction (bound and floor), mean")        \
    X(P, calibrated_us, F64, "us", "the calibrated prediction, out of sample, mean over the "   \
                                   "occurrences that have one (null when none)")                \
    X(P, error_percent, F64, "percent", "abs(calibrated - measured) / measured x 100, mean "    \
                                        "(null when none)")
TP_COLUMNS(pr_calibrated, PR_CALIBRATED_COLS);

#endif
