/*
 * analysis predict: what its source files share (predict.c, predict_cases.c,
 * predict_table.c, predict_occurrences.c, predict_trace.c, predict_e2e.c).
 * Private to plugins/analysis/predict.
 */
#ifndef TP_PREDICT_INTERNAL_H
#define TP_PREDICT_INTERNAL_H

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_opmodel.h>
#include <tracepipe/tp_sdk_calib.h>

#include <string.h>

#include "predict_embedding_index.h"
#include "predict_fc.h"
#include "predict_models.h"

/* The options of the stage (pr_options, predict.c). */
typedef struct pr_config {
    const char *preset;
    const char *preset_file;
    double l2_gbps;
    tp_strlist cases;
    const char *fc_table;
    const char *fc_table_input;
    const char *kernel_prefix;
    int e2e;
    const char *step_prefix;
    tp_strlist skip;
    double kernel_overhead_us;
    const char *embedding_forward, *embedding_backward;
    int64_t embedding_dim, rows_per_block;
    const char *calibrate;       /* "none" or "fit" (predict_calib.c) */
    const char *calibration_out; /* fit: the calibration file written */
    const char *calibration;     /* a calibration file read and applied */
} pr_config;

/* ---- mode cases (predict_cases.c) */
int pr_cases_mode(tp_stage *st, const tp_preset *p, const pr_config *cfg);

/* ---- the FC benchmark table (predict_table.c) */
typedef struct pr_table {
    pm_fc_row *rows;
    size_t n;
} pr_table;

/* The fc table: fc_table's file or fc_table_input's result (TP_OK and no
 * rows without either). */
int pr_load_table(tp_stage *st, const pr_config *cfg, pr_table *t);

/* ---- a trace's ops and their models (predict_occurrences.c) */
/* Per op occurrence that launched GPU work: its model's prediction. */
typedef struct pr_occ {
    int32_t row;
    tp_str name, dims;
    const char *model; /* NULL: unsupported */
    double predicted_us, measured_us;
    tp_op_category category; /* its name's, communication when it owns a collective kernel */
    double bound_us;         /* the model's value before the launch floor (calibration) */
    int32_t kernels;         /* kernels it owns */
    int32_t trace;           /* the stage's trace it is on (tp_stage_trace_at) */
    const char *device;      /* its preset's name */
    tp_str kernel;           /* its longest kernel's name (0: none): the calibration's type */
    double fp32_flops, bytes; /* the model's FLOPs at the FP32 rate and bytes (0: not known):
                               * the calibration's bound of a TF32 kernel */
    const char *why; /* no model: what its own args lack (tp_op_cost.why, static text), or NULL */
} pr_occ;

/* A trace's GPU activity time: all of it, and what no op owns by category
 * (communication: collective kernels; other: the rest). */
typedef struct pr_gpu_time {
    double all_us;
    double unowned_us[TP_OPCAT_N];
    uint32_t *unowned; /* the rows of those activities (n_unowned), for <id>.unmodelled */
    size_t n_unowned;
} pr_gpu_time;

/* An embedding op met on the trace: its inputs, or why no model took it. */
typedef struct pr_emb_row {
    pr_occ occ; /* its model: occ.model */
    pe_emb_inputs x;
    char why[160];
} pr_emb_row;

/* The models other plugins registered on a trace (predict_occurrences.c):
 * its "predict.MODEL" F64 columns, in column order, read once per trace. */
typedef struct pr_registered {
    size_t n;
    const char **model;   /* MODEL */
    const double **cells; /* per row: the prediction in us (NaN: none) */
} pr_registered;

/* What predict_op needs besides the op: the preset, the trace's
 * embedding ops, the FC benchmark table (NULL: none) and the models
 * registered on the trace. */
typedef struct pr_models {
    const tp_preset *p;
    pe_options emb_opt;
    pe_index emb;
    pf_ops *fc;
    pr_registered reg;
} pr_models;

/* Each op occurrence owning GPU work (the innermost cpu_op above the
 * launch) with its measured time: the sum of that work's durations; the
 * embedding ops among them in *emb. */
int pr_occurrences(tp_stage *st, const tp_trace *t, pr_models *m, pr_occ **out,
                   size_t *nout, pr_gpu_time *gpu, pr_emb_row **emb, size_t *nemb);

/* ---- kernels no op launched, by an identical launch (predict_launch.c) */
/* The model of such a kernel ("identical_launch"). */
extern const char pr_model_launch[];
/* Each kernel among gpu's unowned activities whose identical launch (same
 * name, grid, block, registers, shared memory) is the only kernel of a
 * modelled occurrence among (*o)[0, ndonors) (kernel_row[i]: occurrence
 * i's only kernel's row, -1 for none or when it owns other activity too), and of no op of another name or
 * shape, appended to *o (*n of them) with that occurrence's model, and
 * taken out of gpu's unowned time and rows (coll: the vocabulary's
 * collectives, which are never modelled so). */
int pr_identical_launches(tp_stage *st, const tp_trace *t, const tp_preset *p,
                          tp_coll_memo *coll, const int32_t *kernel_row, pr_occ **o, size_t *n,
                          size_t ndonors, pr_gpu_time *gpu);

/* ---- coverage and accuracy per category (predict_categories.c) */
/* <id>.categories: per category the GPU time, the modelled share and GMAE
 * (and, calibrating, cal[i]: occurrence i's calibrated prediction, the
 * calibrated GMAE out of sample); the summary's notes say the share
 * without communication. */
int pr_category_results(tp_stage *st, const pr_occ *o, size_t n, const pr_gpu_time *gpu,
                        const double *cal);

/* ---- the GPU time no model predicted, by reason (predict_unmodelled.c) */
/* <id>.unmodelled: per reason the occurrences or activities and their GPU
 * time (emb: the embedding ops met, whose refusals have their own reason),
 * of the stage's first trace t: occurrences of other traces are skipped. */
int pr_unmodelled_results(tp_stage *st, const tp_trace *t, const pr_occ *o, size_t n,
                          const pr_gpu_time *gpu, const pr_emb_row *emb, size_t nemb);

/* ---- mode trace (predict_trace.c) */
/* Error statistics of occurrences o[from, to): GMAE (eps 0 unless an error
 * is 0, then 4e-4), mean, population std (NaN below two). */
void pr_error_stats(const pr_occ *o, size_t from, size_t to, double *gmae, double *mean,
                    double *sd);
typedef struct pr_calib pr_calib;
int pr_trace_mode(tp_stage *st, const tp_preset *p, const pr_config *cfg, const pr_calib *calib);

/* ---- end to end (predict_e2e.c) */
/* Section 6 for each iteration: <id>.e2e, and the ops it used as <id>.e2e_ops. */
int pr_e2e_results(tp_stage *st, const pr_config *cfg, const tp_trace *t, pr_occ *o, size_t n);

/* ---- calibrated predictions (predict_calib.c, predict_calib_file.c) */
/* One curve of a calibration file: per device and category. */
typedef struct pr_curve {
    char device[64];
    tp_op_category category;
    char dtype[16]; /* the kernels' element type (tp_gemm_kernel_decode); "": all types */
    tp_calib_curve c;
    int64_t n_groups;
} pr_curve;

/* A calibration: read from a file (calibration:) or fitted (calibrate: fit). */
struct pr_calib {
    pr_curve *curves;
    size_t n;
    char **traces; /* the labels of the traces it was fitted on */
    size_t ntraces;
    char holdout[16];
};

/* Is the stage calibrating (calibrate: fit, or a calibration file)? */
static inline int pr_calibrating(const pr_config *cfg)
{
    return cfg->calibration != NULL || (cfg->calibrate && strcmp(cfg->calibrate, "fit") == 0);
}
/* Reads a calibration file; a malformed one fails the stage with the file
 * and the place (line:column, or the curve's index and key). */
int pr_calib_read(tp_stage *st, const char *path, pr_calib *c);
/* Writes c as a calibration file at path. */
int pr_calib_write(tp_stage *st, const char *path, const pr_calib *c);
void pr_calib_free(pr_calib *c);
/* The calibration of occurrences o[0, n): the fit (calibrate: fit, errors
 * out of sample: leave one trace out over several traces, else one
 * iteration out), or the file's curves applied (calib); *out to free with
 * pr_calib_done.  pr_calib_values: each occurrence's calibrated
 * prediction (NaN: none); pr_calib_emit: <id>.calibration, <id>.calibrated
 * and calibration_out. */
typedef struct cal_run pr_cal_run;
int pr_calib_compute(tp_stage *st, const pr_calib *calib, const pr_occ *o, size_t n,
                     pr_cal_run **out);
const double *pr_calib_values(const pr_cal_run *r);
int pr_calib_emit(pr_cal_run *r, const pr_config *cfg, const pr_calib *calib);
void pr_calib_done(pr_cal_run *r);

#endif
