/* advice: what the plugin's files share (private to the plugin).  The
 * rules are one table (advice_rules.c); each rule's check reads the trace
 * through the SDK and reports findings with adv_emit, or why it cannot run
 * with adv_skip.  docs/plugins/advice.md documents every rule. */
#ifndef TRACEPIPE_ADVICE_H
#define TRACEPIPE_ADVICE_H

#include <math.h>
#include <stdint.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_hier.h>
#include <tracepipe/tp_sdk_intervals.h>
#include <tracepipe/tp_sdk_iter.h>
#include <tracepipe/tp_sdk_vocab.h>

typedef enum adv_severity { ADV_INFO, ADV_WARN, ADV_ERROR } adv_severity;

typedef struct adv_config {
    double idle_percent, exposed_comm_percent, overlap_percent;
    double memcpy_percent;
    int64_t memcpy_count;
    double gap_us;
    int64_t util_chunks;
    double util_percent;
    double runtime_cutoff_us, launch_delay_cutoff_us;
    int64_t loop_repeats;
    tp_strlist optimizers;
    tp_strlist rules; /* the rules to run; empty: all */
} adv_config;

/* A device's communication: its union's length, the part no computation
 * hides, the kernels and the device's span; computed once per trace for
 * the rules that read it (advice_gpu.c). */
typedef struct adv_comm {
    int64_t comm, exposed, lo, hi;
    size_t count;
} adv_comm;

/* One GPU device's launched activities (kernels, memcpys, memsets). */
typedef struct adv_device {
    int64_t device;
    uint32_t *rows; /* by start */
    size_t n;
    adv_comm comm;
    int comm_done; /* comm computed */
    tp_interval *busy; /* the union of its activities, built once (advice_gpu.c) */
    size_t nbusy;
} adv_device;

/* One finding, held until the rows are sorted. */
typedef struct adv_finding {
    size_t rule;  /* index in the table */
    size_t order; /* emission order */
    adv_severity severity;
    char *finding, *evidence, *where;
    int64_t count;                         /* -1: null */
    double value_us, percent, start_us, end_us; /* NaN: null */
} adv_finding;

/* Room for the op names the PyTorch patterns compare (advice_torch.c). */
#define ADV_OP_IDS 16

typedef struct adv {
    tp_stage *st;
    const adv_config *cfg;
    tp_trace *t;
    const tp_cols *c;
    tp_hier_view hv;
    tp_vocab vocab;
    tp_iter_view iter;     /* the pipeline's iterations */
    tp_iterations iters;   /* the same, for tp_iteration_of */
    int64_t w0, w1; /* the trace window (ns) */
    adv_device *dev;
    size_t ndev;
    uint8_t *klass; /* per name id: tp_kernel_class + 1, 0 = not yet */
    uint8_t *memcpy_name; /* per name id: a memcpy of the vocabulary? 1 no, 2 yes, 0 = not yet */
    size_t nnames;
    adv_finding *f;
    size_t nf, capf;
    size_t rule; /* the rule being checked */
    int shapes;  /* does an op record its input types: -1 not yet known, 0, 1 */
    tp_str op_ids[ADV_OP_IDS]; /* advice_torch.c's op names by id (TP_STR_ERROR: absent) */
    int op_ids_ready;
} adv;

typedef struct adv_rule {
    const char *id;
    adv_severity severity; /* of its findings */
    const char *source;    /* where the rule comes from */
    const char *fix;       /* the fix it suggests */
    int (*check)(adv *a);
} adv_rule;

extern const adv_rule adv_rules[];
extern const size_t adv_nrules;

/* Numbers a finding carries as typed columns; NaN / -1 leave them null. */
typedef struct adv_figs {
    int64_t count;
    double value_us, percent, start_us, end_us;
} adv_figs;
#define ADV_FIGS(COUNT, VALUE_US, PERCENT, START_US, END_US) \
    ((adv_figs){COUNT, VALUE_US, PERCENT, START_US, END_US})
#define ADV_NO_FIGS ADV_FIGS(-1, NAN, NAN, NAN, NAN)

/* A finding of the current rule: its one-line text, its evidence and
 * where (printf formats), with typed figures. */
int adv_emit(adv *a, adv_figs figs, const char *where, const char *finding, const char *evidence_fmt,
             ...) TP_PRINTF(5, 6);
/* The current rule cannot run on this trace: one info row saying why. */
int adv_skip(adv *a, const char *why);

double adv_us(int64_t ns);
double adv_rel_us(const adv *a, int64_t ts); /* from the trace's t0 */
tp_kernel_class adv_class(adv *a, uint32_t row);
/* Appends ", iteration N" to buf (of size bytes) when ts is inside one of
 * the pipeline's iterations. */
void adv_add_iteration(const adv *a, int64_t ts, char *buf, size_t size);
/* The innermost cpu op at or above host row x in hierarchy's forest, or -1. */
int32_t adv_op_above(const adv *a, int32_t x);
const char *adv_name(const adv *a, uint32_t row);
int adv_is_memcpy(adv *a, uint32_t row); /* kind memcpy, or a memcpy of the vocabulary */

/* Rules (advice_gpu.c, advice_api.c, advice_torch.c). */
int adv_gpu_idle(adv *a);
int adv_exposed_comm(adv *a);
int adv_comm_overlap(adv *a);
int adv_memcpy_share(adv *a);
int adv_gpu_gaps(adv *a);
int adv_low_utilization(adv *a);
int adv_pageable_memcpy(adv *a);
int adv_sync_memcpy(adv *a);
int adv_sync_api(adv *a);
int adv_launch_outliers(adv *a);
int adv_extra_cuda_copy(adv *a);
int adv_for_loop_indexing(adv *a);
int adv_fp32_matmul(adv *a);
int adv_optimizer_single_tensor(adv *a);
int adv_sync_dataloader(adv *a);
int adv_grad_not_none(adv *a);
int adv_conv_bias_bn(adv *a);
int adv_matmul_fp16_dims(adv *a);

#endif
