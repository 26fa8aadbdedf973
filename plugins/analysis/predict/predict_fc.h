/*
 * predict's FC/GEMM table model (ANALYSES.md 5.5) beyond `cases`: the
 * benchmark table taken from a result among the stage's inputs (a
 * `csv_table` reader's), and the model applied to a trace's GEMM ops, with
 * the ops the table cannot answer falling back to the roofline and listed
 * in the result <id>.fc_table.  predict_occurrences.c calls these from its
 * GEMM branch, predict_trace.c from the trace mode; no one else.
 */
#ifndef TRACEPIPE_PREDICT_FC_H
#define TRACEPIPE_PREDICT_FC_H

#include <tracepipe/tp_plugin.h>

#include <tracepipe/tp_sdk_gemm.h>
#include "predict_models.h"

/* The model name of ops the table predicted. */
#define PF_MODEL "fc_table"

/* The benchmark table from input result `id` (columns batch_size, M, N, K
 * as int64, kernel_name text, kernel_runtime numbers in us), checked as the
 * file form is: rows with a null field dropped, kernels starting with
 * prefix kept, runtimes positive.  A new array (tp_free) in *rows. */
int pf_table_from_input(tp_stage *st, const char *id, const char *prefix, pm_fc_row **rows,
                        size_t *n);

/* One GEMM op occurrence the table was asked about. */
typedef struct pf_call {
    int32_t row;
    tp_str name, dims;
    int64_t q[4];
    int mapped, answered;
    char why[96]; /* why the table did not answer */
    double measured_us, predicted_us;
    const char *model; /* the model that predicted it in the end */
} pf_call;

typedef struct pf_ops {
    const pm_fc_row *rows;
    size_t n;
    pf_call *calls;
    size_t ncalls, cap;
    size_t next; /* pf_measured's place */
} pf_ops;

/* The table's prediction for a GEMM op occurrence (row, its shape sh):
 * 1 and *us, or 0 (the caller's roofline takes it); the call is recorded
 * for <id>.fc_table either way.  -1: out of memory. */
int pf_predict_op(tp_stage *st, pf_ops *fc, int32_t row, tp_str name, tp_str dims,
                  const tp_gemm_shape *sh, const tp_preset *p, double *us);

/* What the occurrence of `row` measured and the model that took it; called
 * for the occurrences in row order. */
void pf_measured(pf_ops *fc, int32_t row, double measured_us, double predicted_us,
                 const char *model);

/* <id>.fc_table: per (GEMM op, input dims) the table's query, the model,
 * measured and predicted time and why the table did not answer; notes
 * with the counts and the table model's GMAE. */
int pf_results(tp_stage *st, pf_ops *fc);

void pf_free(pf_ops *fc);

#endif
