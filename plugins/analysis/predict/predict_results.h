/*
 * analysis predict: the columns of every result it makes, declared once
 * (predict.c gathers them into the stage's declarations, pr_results_for)
 * and written by name through the constants TP_COLUMNS makes: <id> of mode
 * cases (predict_cases.c); <id>, <id>.summary, <id>.unsupported and
 * <id>.embedding of mode trace (predict_trace.c); <id>.fc_table with a
 * benchmark table (predict_fc.c); <id>.e2e and <id>.e2e_ops with e2e: true
 * (predict_e2e.c).  Units only where the column's name implies them: the
 * results carry no other unit notes.
 * Private to plugins/analysis/predict.
 */
#ifndef TP_PREDICT_RESULTS_H
#define TP_PREDICT_RESULTS_H

#include <tracepipe/tp_plugin.h>

/* Mode cases, <id>: one row per case. */
#define PR_CASES_COLS(X, P)                                                                     \
    X(P, id, STR, NULL, "the case's ID (the text before ':'), else its model")                  \
    X(P, model, STR, NULL, "the case's model: fwd, sgd, adagrad, elementwise, roofline or fc")  \
    X(P, inputs, STR, NULL, "the case's inputs as written (k=v ...)")                           \
    X(P, predicted_us, F64, "us", "the model's prediction (null when it refuses the case)")     \
    X(P, error, STR, NULL, "why the model refuses the case (null when it predicts)")
TP_COLUMNS(pr_cases, PR_CASES_COLS);

/* Mode trace, <id>: one row per supported (op name, input dims). */
#define PR_OPS_COLS(X, P)                                                                       \
    X(P, name, STR, NULL, "the op's name")                                                      \
    X(P, input_dims, STR, NULL, "its Input Dims as the trace writes them (null without)")       \
    X(P, model, STR, NULL, "the model that predicted it: fwd, sgd, adagrad, fc_table, "         \
                           "roofline, elementwise or another plugin's")                         \
    X(P, count, I64, "count", "occurrences: calls of the op that own GPU work")                 \
    X(P, measured_us, F64, "us", "the GPU work the occurrences own (durations summed), mean "   \
                                 "per occurrence")                                              \
    X(P, predicted_us, F64, "us", "the prediction per occurrence (the first occurrence's)")     \
    X(P, error_percent, F64, "percent", "abs(predicted - measured) / measured x 100, mean over " \
                                        "the occurrences")
TP_COLUMNS(pr_ops, PR_OPS_COLS);

/* <id>.summary: one row per supported op name, then (all). */
#define PR_SUMMARY_COLS(X, P)                                                                   \
    X(P, op, STR, NULL, "the op's name, or (all) for every supported occurrence")               \
    X(P, count, I64, "count", "its occurrences")                                                \
    X(P, measured_us, F64, "us", "their measured GPU time, total")                              \
    X(P, gmae_percent, F64, "percent", "geometric mean of their relative errors x 100 (eps "    \
                                       "4e-4 inside the log when an error is 0)")               \
    X(P, mean_error_percent, F64, "percent", "mean relative error x 100")                       \
    X(P, std_error_percent, F64, "percent", "population std of the relative errors x 100 "      \
                                            "(null below two)")                                 \
    X(P, coverage_percent, F64, "percent", "measured_us / all GPU activity time x 100 (null "   \
                                           "when the trace has none)")
TP_COLUMNS(pr_summary, PR_SUMMARY_COLS);

/* <id>.unsupported: one row per op name with GPU work and no model. */
#define PR_UNSUPPORTED_COLS(X, P)                                                               \
    X(P, name, STR, NULL, "the op's name")                                                      \
    X(P, count, I64, "count", "its occurrences (calls that own GPU work)")                      \
    X(P, measured_us, F64, "us", "their GPU time, total")
TP_COLUMNS(pr_unsupported, PR_UNSUPPORTED_COLS);

/* <id>.categories: one row per category of op (issue 27), then the totals. */
#define PR_CATEGORY_COLS(X, P)                                                                  \
    X(P, category, STR, NULL, "gemm, attention, moe, norm, conv, elementwise, communication, "  \
                              "other; then (all) and (without communication)")                  \
    X(P, count, I64, "count", "op occurrences of the category (calls that own GPU work)")       \
    X(P, n_modelled, I64, "count", "of them, occurrences a model predicted")                    \
    X(P, gpu_us, F64, "us", "GPU activity time of the category: its ops' work, and for "        \
                            "communication and other the work no op owns")                      \
    X(P, share_percent, F64, "percent", "gpu_us / all GPU activity time x 100")                 \
    X(P, modelled_us, F64, "us", "the measured time of the occurrences a model predicted")      \
    X(P, coverage_percent, F64, "percent", "modelled_us / gpu_us x 100 (null when gpu_us is 0)") \
    X(P, gmae_percent, F64, "percent", "GMAE of the predicted occurrences x 100, as in "         \
                                       "<id>.summary (null when none)")                         \
    X(P, mean_error_percent, F64, "percent", "mean relative error x 100 (null when none)")     \
    X(P, n_calibrated, I64, "count", "calibrating (calibrate: fit or calibration:): of the "     \
                                     "predicted occurrences, those with an out-of-sample "      \
                                     "calibrated prediction (null when not calibrating)")       \
    X(P, calibrated_gmae_percent, F64, "percent", "their GMAE x 100, as <id>.calibration's "    \
                                                  "gmae_percent over the category's types "     \
                                                  "(null when none)")                            \
    X(P, identical_launch_us, F64, "us", "of modelled_us, the time of kernels no op launched "   \
                                         "that an identical launch modelled (same kernel, "      \
                                         "grid, block, registers, shared memory as an op's "     \
                                         "only kernel)")
TP_COLUMNS(pr_category, PR_CATEGORY_COLS);

/* <id>.unmodelled: the GPU time no model predicted, one row per reason (issue 27). */
#define PR_UNMODELLED_COLS(X, P)                                                                \
    X(P, reason, STR, NULL, "why no model predicted it: the op's args do not say enough (a "    \
                            "tensor list, no Input Dims, ...), no model for the op, or a "      \
                            "kernel no op launched; a GEMM kernel's library, type and tile "    \
                            "from its name")                                                    \
    X(P, count, I64, "count", "op occurrences (GPU activities where no op launched them)")      \
    X(P, gpu_us, F64, "us", "their GPU activity time")                                          \
    X(P, share_percent, F64, "percent", "gpu_us / all GPU activity time x 100")
TP_COLUMNS(pr_unmodelled, PR_UNMODELLED_COLS);

/* <id>.embedding: one row per embedding lookup occurrence. */
#define PR_EMBEDDING_COLS(X, P)                                                                 \
    X(P, name, STR, NULL, "the forward lookup's or backward node's name")                       \
    X(P, model, STR, NULL, "fwd, sgd or adagrad (null: no model could take it)")                \
    X(P, B, I64, NULL, "batch size, from offsets (null when not read)")                         \
    X(P, E, I64, NULL, "rows per table, from the weights (null when not read)")                 \
    X(P, T, I64, NULL, "tables, from D_offsets (null when not read)")                           \
    X(P, L, I64, NULL, "indices per bag, rounded (null when not read)")                         \
    X(P, D, I64, NULL, "embedding dimension (null when not read)")                              \
    X(P, R, I64, NULL, "rows per block of the forward model (null when not read)")              \
    X(P, measured_us, F64, "us", "the GPU work it owns, durations summed")                      \
    X(P, predicted_us, F64, "us", "the model's prediction (null without a model)")              \
    X(P, error_percent, F64, "percent", "abs(predicted - measured) / measured x 100 (null "     \
                                        "without a model)")                                     \
    X(P, reason, STR, NULL, "why no model took it (null when one did)")
TP_COLUMNS(pr_embedding, PR_EMBEDDING_COLS);

/* <id>.fc_table: one row per (GEMM op, input dims) the table was asked about. */
#define PR_FC_COLS(X, P)                                                                        \
    X(P, name, STR, NULL, "the GEMM op's name")                                                 \
    X(P, input_dims, STR, NULL, "its Input Dims as the trace writes them")                      \
    X(P, batch_size, I64, NULL, "the table query's batch (null when the shape is not mapped)")  \
    X(P, M, I64, NULL, "the query's M (null when not mapped)")                                  \
    X(P, N, I64, NULL, "the query's N (null when not mapped)")                                  \
    X(P, K, I64, NULL, "the query's K (null when not mapped)")                                  \
    X(P, count, I64, "count", "occurrences with these dims")                                    \
    X(P, model, STR, NULL, "the model that predicted them: fc_table, or roofline when the "     \
                           "table did not answer (none: no prediction)")                        \
    X(P, measured_us, F64, "us", "their measured GPU time, mean per occurrence")                \
    X(P, predicted_us, F64, "us", "the prediction per occurrence (null without a model)")       \
    X(P, error_percent, F64, "percent", "abs(predicted - measured) / measured x 100, mean over " \
                                        "the occurrences (null without a model)")               \
    X(P, fallback_reason, STR, NULL, "why the table did not answer (null when it did)")
TP_COLUMNS(pr_fc, PR_FC_COLS);

/* <id>.e2e (series): one row per iteration. */
#define PR_E2E_COLS(X, P)                                                                       \
    X(P, iteration, I64, NULL, "the iteration's step number: the marker's first capture "       \
                               "group, else the digits after its last '#', else the ordinal")   \
    X(P, measured_us, F64, "us", "the iteration marker's duration")                             \
    X(P, predicted_us, F64, "us", "section 6's prediction: the later of cpu_us and gpu_us")     \
    X(P, cpu_us, F64, "us", "the simulated host timeline's end: overheads T1-T5 and launches")  \
    X(P, gpu_us, F64, "us", "the simulated stream's end: kernels after their launches")         \
    X(P, gpu_active_us, F64, "us", "the predicted kernel times summed (with "                   \
                                   "kernel_overhead_us each)")                                  \
    X(P, ops, I64, NULL, "ops the simulation ran over (skip entries left out)")                 \
    X(P, unsupported_ops, I64, NULL, "of them, ops with launches and GPU work no model covers") \
    X(P, error_percent, F64, "percent", "abs(predicted - measured) / measured x 100 (null when " \
                                        "measured is 0)")
TP_COLUMNS(pr_e2e, PR_E2E_COLS);

/* <id>.e2e_ops: one row per op of each iteration's simulation. */
#define PR_E2E_OPS_COLS(X, P)                                                                   \
    X(P, iteration, I64, NULL, "the iteration, as in <id>.e2e")                                 \
    X(P, position, I64, NULL, "the op's place among the iteration's simulated ops (0-based)")   \
    X(P, name, STR, NULL, "the op's name")                                                      \
    X(P, launches, I64, NULL, "its launches: the rows of overheads' <id>.launches for its name") \
    X(P, supported, I64, NULL, "1 when models cover all its GPU work (or it has none), else 0") \
    X(P, predicted_us, F64, "us", "its calls' predictions summed")                              \
    X(P, t2_us, F64, "us", "overheads' mean T2 of the op's name (0 when absent)")               \
    X(P, t3_us, F64, "us", "overheads' mean T3 of the op's name (0 when absent)")               \
    X(P, t5_us, F64, "us", "overheads' mean T5 of the op's name (0 when absent)")               \
    X(P, leaf, I64, NULL, "1 when the op has no children (section 6's aten::to rule), else 0")  \
    X(P, call_us_list, STR, NULL, "its calls' predictions t_1..t_m in time order, "             \
                                  "';'-separated, exact (null when none)")
TP_COLUMNS(pr_e2e_ops, PR_E2E_OPS_COLS);

#endif
