/*
 * analysis predict (issue 15): the performance models of ANALYSES.md
 * section 5 (predict_models.h) with a device preset (section 5.1,
 * the SDK's tp_sdk_presets.h), evaluated
 *
 * - on cases written in the pipeline: seed 004's embedding lookups
 *   (forward, SGD and row-wise Adagrad backward), element-wise ops, the
 *   generic roofline, the FC benchmark-table model:
 *
 *     cases:
 *       - "F1: fwd B=4096 E=500000 T=197 L=32 D=32 R=128 shmem=true"
 *       - "R1: elementwise op=relu s=2097152"
 *       - "Q1: fc B=4 M=512 N=1024 K=256"
 *
 *   one row per case: id, model, inputs, predicted_us, or the error (a case
 *   the model refuses, e.g. B > E, is a row with its message, not a failure);
 *
 * - or on the ops of a trace: each op that launched GPU work against the
 *   work's measured time (fbgemm's embedding lookups: predict_embedding.c;
 *   GEMMs by the table model when a table is given: predict_fc.c), per op
 *   type GMAE, and with e2e: true each iteration end to end (section 6).
 *
 * Files: predict.c the options and the stage; predict_cases.c the cases;
 * predict_table.c the FC table's file; predict_occurrences.c a trace's
 * ops and their models; predict_trace.c the trace mode and its results;
 * predict_e2e.c end to end; predict_internal.h what they share;
 * predict_results.h the columns of the results (declared here, below).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

#include "predict_internal.h"
#include "predict_results.h"
#include "predict_calib_results.h"

static const char *const pr_calibrate_choices[] = {"none", "fit", NULL};

static const tp_option pr_options[] = {
    TP_OPTION_STRING("preset", pr_config, preset, NULL,
                     "device preset, a name of docs/presets.md (v100_seed, a100_sxm4_80gb, b200, mi300x ...) "
                     "(default: from the trace's device name, the nearest of its family with a "
                     "warning; cases: v100_seed)"),
    TP_OPTION_INPUT_FILE("preset_file", pr_config, preset_file, NULL,
                     "your device's figures instead of a preset: JSON or flat YAML (dram_gbps, "
                     "l2_gbps, fp32_gflops, tf32_gflops, fp16_gflops, bf16_gflops, sms, l2_bytes, "
                     "launch_floor_us) or a TraceLens arch JSON"),
    TP_OPTION_FLOAT("l2_gbps", pr_config, l2_gbps, "0", 0, 1e9,
                    "L2 bandwidth for the forward embedding model when the preset has none "
                    "(GB/s; 0: the preset's)"),
    TP_OPTION_LIST("cases", pr_config, cases,
                   "model cases, \"ID: MODEL k=v ...\" (fwd, sgd, adagrad: B E T L D R shmem; "
                   "elementwise: op s; roofline: flops bytes; fc: B M N K)"),
    TP_OPTION_INPUT_FILE("fc_table", pr_config, fc_table, NULL,
                     "benchmark table for fc cases: CSV batch_size,M,N,K,kernel_name,"
                     "kernel_runtime (us); on a trace, GEMM ops by this table"),
    TP_OPTION_STRING("fc_table_input", pr_config, fc_table_input, NULL,
                     "the benchmark table is this result of an earlier stage (a csv_table "
                     "reader; list it in input: too) instead of fc_table's file"),
    TP_OPTION_STRING("kernel_prefix", pr_config, kernel_prefix, "",
                     "table rows kept: kernel names starting with this (seed 004: volta)"),
    TP_OPTION_BOOL("e2e", pr_config, e2e, "false",
                   "also predict each iteration end to end (section 6) from the ops' predictions "
                   "and overheads' T1-T5 means (input: the overheads stage)"),
    TP_OPTION_STRING("step_prefix", pr_config, step_prefix, NULL,
                     "e2e: override of the pipeline's iterations: marker for this stage: a name "
                     "prefix of the iteration markers"),
    TP_OPTION_LIST("skip", pr_config, skip,
                   "e2e: ops left out, by a part of their name (default: SliceBackward, "
                   "FusedDropoutBackward)"),
    TP_OPTION_FLOAT("kernel_overhead_us", pr_config, kernel_overhead_us, "0", 0, 1e9,
                    "e2e: added to each predicted kernel (0 as in 2021, 4 in 2022, 5 in 2023)"),
    TP_OPTION_STRING("embedding_forward", pr_config, embedding_forward,
                     "embedding_codegen_lookup_",
                     "a part of the names of fbgemm's forward embedding lookups (5.2 on a trace)"),
    TP_OPTION_STRING("embedding_backward", pr_config, embedding_backward, "LookupFunction_",
                     "a part of the names of their backward autograd nodes (5.3, 5.4)"),
    TP_OPTION_INT("embedding_dim", pr_config, embedding_dim, "0", 0, 1e9,
                  "embedding dimension D of the lookups (0: from the backward node's gradient "
                  "[B, T*D])"),
    TP_OPTION_INT("rows_per_block", pr_config, rows_per_block, "0", 0, 1e9,
                  "R of the forward model (0: block.y of the lookup's longest kernel)"),
    TP_OPTION_CHOICE("calibrate", pr_config, calibrate, "none", pr_calibrate_choices,
                     "fit: fit per device and category the efficiency curve that turns the "
                     "models' bounds into predictions, its error out of sample (leave one trace "
                     "out over several traces, else one iteration out)"),
    TP_OPTION_OUTPUT_FILE("calibration_out", pr_config, calibration_out, NULL,
                          "calibrate: fit: write the fitted curves to this JSON file"),
    TP_OPTION_INPUT_FILE("calibration", pr_config, calibration, NULL,
                         "a calibration file (calibrate: fit's calibration_out) applied to the "
                         "bounds: <id>.calibration and <id>.calibrated"),
    TP_OPTION_END};

/* The results, by mode and options (columns: predict_results.h).  Mode
 * cases makes <id> alone; mode trace <id>, summary, unsupported and
 * embedding, with fc_table or fc_table_input also fc_table, with e2e: true
 * also e2e and e2e_ops. */
#define PR_TRACE_RESULTS                                                                         \
    TP_RESULT("", "table", pr_ops,                                                               \
              "mode trace: one row per (op name, input dims) a model predicted, by name then "   \
              "dims"),                                                                           \
    TP_RESULT("summary", "table", pr_summary,                                                    \
              "mode trace: prediction error per op name a model took, by name, then (all)"),     \
    TP_RESULT("unsupported", "table", pr_unsupported,                                            \
              "mode trace: one row per op name with GPU work and no model, by name"),            \
    TP_RESULT("embedding", "table", pr_embedding,                                                \
              "mode trace: one row per embedding lookup occurrence, largest measured first"),    \
    TP_RESULT("categories", "table", pr_category,                                                \
              "mode trace: coverage and accuracy per category of op, largest GPU time first, "   \
              "then (all) and (without communication)"),                                        \
    TP_RESULT("unmodelled", "table", pr_unmodelled,                                              \
              "mode trace: the GPU time no model predicted, one row per reason, largest first")
#define PR_E2E_RESULTS                                                                           \
    TP_RESULT("e2e", "series", pr_e2e,                                                           \
              "e2e: true: each iteration predicted end to end (section 6) and measured; notes "  \
              "gmae_percent, mean_error_percent"),                                               \
    TP_RESULT("e2e_ops", "table", pr_e2e_ops,                                                    \
              "e2e: true: the ops each iteration's simulation ran over, in order")
#define PR_FC_RESULT                                                                             \
    TP_RESULT("fc_table", "table", pr_fc,                                                        \
              "with a benchmark table: one row per (GEMM op, input dims) it was asked about; "   \
              "notes with the counts and GMAEs")

#define PR_CALIB_RESULTS                                                                         \
    TP_RESULT("calibration", "table", pr_calibration,                                            \
              "calibrate: fit or calibration: per device and category the efficiency curve and " \
              "the calibrated error, out of sample"),                                            \
    TP_RESULT("calibrated", "table", pr_calibrated,                                              \
              "calibrate: fit or calibration: per (device, op name, input dims) the measured, "  \
              "bound and calibrated time")

static const tp_result_decl pr_results_cases[] = {
    TP_RESULT("", "table", pr_cases, "mode cases: one row per case, in the order given"),
    TP_RESULTS_END};
static const tp_result_decl pr_results_trace[] = {PR_TRACE_RESULTS, TP_RESULTS_END};
static const tp_result_decl pr_results_fc[] = {PR_TRACE_RESULTS, PR_FC_RESULT, TP_RESULTS_END};
static const tp_result_decl pr_results_e2e[] = {PR_TRACE_RESULTS, PR_E2E_RESULTS, TP_RESULTS_END};
/* The stage's `results`: every name predict can make, so that `validate`
 * accepts an input such as predict.e2e or predict.fc_table (the core
 * derives `produces` from these names); pr_results_for gives each
 * configuration its exact set. */
static const tp_result_decl pr_results_all[] = {PR_TRACE_RESULTS, PR_E2E_RESULTS, PR_FC_RESULT,
                                                PR_CALIB_RESULTS, TP_RESULTS_END};
static const tp_result_decl pr_results_e2e_fc[] = {PR_TRACE_RESULTS, PR_E2E_RESULTS, PR_FC_RESULT,
                                                   TP_RESULTS_END};
/* with a calibration: the same sets and the calibration's two */
static const tp_result_decl pr_results_trace_c[] = {PR_TRACE_RESULTS, PR_CALIB_RESULTS,
                                                    TP_RESULTS_END};
static const tp_result_decl pr_results_fc_c[] = {PR_TRACE_RESULTS, PR_FC_RESULT, PR_CALIB_RESULTS,
                                                 TP_RESULTS_END};
static const tp_result_decl pr_results_e2e_c[] = {PR_TRACE_RESULTS, PR_E2E_RESULTS,
                                                  PR_CALIB_RESULTS, TP_RESULTS_END};

static const tp_result_decl *pr_results_for(const void *config)
{
    const pr_config *cfg = config;
    int fc = cfg->fc_table || cfg->fc_table_input;
    if (cfg->cases.n > 0)
        return pr_results_cases;
    if (pr_calibrating(cfg) && cfg->e2e)
        return fc ? pr_results_all : pr_results_e2e_c;
    if (pr_calibrating(cfg))
        return fc ? pr_results_fc_c : pr_results_trace_c;
    if (cfg->e2e)
        return fc ? pr_results_e2e_fc : pr_results_e2e;
    return fc ? pr_results_fc : pr_results_trace;
}

/* A preset read from preset_file, kept from init (so a bad file fails
 * before any trace is read) to run. */
typedef struct pr_state {
    tp_preset file;
    char name[256];
    int have_file;
    pr_calib calib; /* calibration: the file's curves */
    int have_calib;
} pr_state;

/* The calibration options checked, the calibration file read (so that a
 * bad one fails before any trace is read). */
static int pr_calib_init(tp_stage *st, const pr_config *cfg, pr_state *s)
{
    int fit = strcmp(cfg->calibrate, "fit") == 0;
    if (fit && cfg->calibration)
        return tp_fail(st, TP_EINVAL, "give calibrate: fit or calibration, not both");
    if (cfg->calibration_out && !fit)
        return tp_fail(st, TP_EINVAL, "calibration_out is written by calibrate: fit");
    if ((fit || cfg->calibration) && cfg->cases.n > 0)
        return tp_fail(st, TP_EINVAL, "calibration works on a trace's ops, not on cases");
    if (cfg->calibration == NULL)
        return TP_OK;
    int rc = pr_calib_read(st, cfg->calibration, &s->calib);
    s->have_calib = rc == TP_OK;
    return rc;
}

static int pr_init(tp_stage *st, const void *config, void **state)
{
    const pr_config *cfg = config;
    if (cfg->preset && cfg->preset_file)
        return tp_fail(st, TP_EINVAL, "give preset or preset_file, not both");
    if (cfg->fc_table && cfg->fc_table_input)
        return tp_fail(st, TP_EINVAL, "give fc_table or fc_table_input, not both");
    if (cfg->preset && tp_preset_resolve(st, cfg->preset, NULL, 1) == NULL)
        return TP_EINVAL;
    pr_state *s = tp_calloc(1, sizeof *s);
    if (s == NULL)
        return TP_ENOMEM;
    *state = s;
    if (cfg->preset_file) {
        int rc = tp_preset_load(st, cfg->preset_file, &s->file, s->name, sizeof s->name);
        if (rc != TP_OK)
            return rc;
        s->have_file = 1;
    }
    return pr_calib_init(st, cfg, s);
}

static void pr_destroy(tp_stage *st, void *state)
{
    (void)st;
    pr_state *s = state;
    if (s)
        pr_calib_free(&s->calib);
    tp_free(state);
}


/* preset_file's figures; else the option's preset; in mode cases without
 * one the seed's v100_seed; on a trace the SDK's resolver (the device's
 * preset, the nearest of its family with a warning, else NULL after an
 * error listing the presets). */
static const tp_preset *preset_of(tp_stage *st, const pr_config *cfg, const pr_state *s)
{
    if (s && s->have_file)
        return &s->file;
    const tp_trace *t = tp_stage_trace(st);
    if (cfg->preset == NULL && (t == NULL || cfg->cases.n > 0))
        return tp_preset_find("v100_seed");
    return tp_preset_resolve_trace(st, cfg->preset, t, 1);
}

static int pr_run(tp_stage *st, const void *config, void *state)
{
    const pr_config *cfg = config;
    const tp_preset *p = preset_of(st, cfg, state);
    if (p == NULL)
        return TP_EINVAL;
    if (cfg->cases.n == 0)
        return pr_trace_mode(st, p, cfg, ((const pr_state *)state)->have_calib
                                             ? &((const pr_state *)state)->calib
                                             : NULL);
    return pr_cases_mode(st, p, cfg);
}

static const tp_stage_desc pr_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "predict",
                  "performance models (seed 004 embeddings, element-wise, roofline, the FC "
                  "benchmark-table model) on cases or a trace's ops, with device presets",
                  pr_options, pr_config, "hierarchy", pr_results_all, pr_results_for,
                  TP_STAGE_F_TRACES, pr_init,
                  pr_run, pr_destroy),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("predict", "0.1.0", pr_stages);
