/*
 * analysis `advice` (issue 29 item 1): rules engineers check by hand, run
 * on any trace: PyTorch's pattern matcher (TorchTidy), Nsight Systems'
 * expert rules, TraceLens' agent thresholds and HTA's launch outliers.
 * One row per finding: rule, severity, finding, evidence, where, fix, and
 * the numbers as typed columns; a rule the trace cannot support says why
 * in one info row.  The rules are one table (advice_rules.c); their
 * definitions: docs/plugins/advice.md.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advice.h"

static const tp_option adv_options[] = {
    TP_OPTION_FLOAT("idle_percent", adv_config, idle_percent, "15", 0, 100,
                    "gpu_idle fires when a device is idle more than this percent of its span "
                    "(TraceLens)"),
    TP_OPTION_FLOAT("exposed_comm_percent", adv_config, exposed_comm_percent, "5", 0, 100,
                    "exposed_comm fires when communication no computation hides exceeds this "
                    "percent of the device's span (TraceLens)"),
    TP_OPTION_FLOAT("overlap_percent", adv_config, overlap_percent, "70", 0, 100,
                    "comm_overlap fires when less than this percent of communication overlaps "
                    "computation (TraceLens)"),
    TP_OPTION_FLOAT("memcpy_percent", adv_config, memcpy_percent, "5", 0, 100,
                    "memcpy_share fires when memory copies take more than this percent of the "
                    "device's span (TraceLens)"),
    TP_OPTION_INT("memcpy_count", adv_config, memcpy_count, "10", 0, 1000000000,
                  "... or when an iteration (the trace without iterations) holds more copies "
                  "than this (TraceLens)"),
    TP_OPTION_FLOAT("gap_us", adv_config, gap_us, "500000", 0, 1e15,
                    "gpu_gaps fires for each gap of at least this long without GPU activity on "
                    "a device (Nsight Systems: 500 ms)"),
    TP_OPTION_INT("util_chunks", adv_config, util_chunks, "30", 1, 100000,
                  "low_utilization cuts each device's span into this many chunks (Nsight Systems)"),
    TP_OPTION_FLOAT("util_percent", adv_config, util_percent, "50", 0, 100,
                    "... and reports chunks a device is busy less than this percent of "
                    "(Nsight Systems)"),
    TP_OPTION_FLOAT("runtime_cutoff_us", adv_config, runtime_cutoff_us, "50", 0, 1e12,
                    "launch_outliers: a launch call longer than this is slow (HTA)"),
    TP_OPTION_FLOAT("launch_delay_cutoff_us", adv_config, launch_delay_cutoff_us, "100", 0, 1e12,
                    "launch_outliers: GPU work starting this long after its call's end is late "
                    "(HTA)"),
    TP_OPTION_INT("loop_repeats", adv_config, loop_repeats, "10", 2, 1000000,
                  "for_loop_indexing: repeats of one indexing sequence that make a loop "
                  "(PyTorch)"),
    TP_OPTION_LIST("optimizers", adv_config, optimizers,
                   "optimizer_single_tensor: the optimizers with a foreach form (default: adam, "
                   "sgd, adamw as PyTorch's pattern matcher)"),
    TP_OPTION_LIST("rules", adv_config, rules, "the rules to run, by id (default: every rule)"),
    TP_OPTION_END};

/* <id>: one row per finding. */
#define ADV_COLS(X, P)                                                                         \
    X(P, rule, STR, NULL, "the rule's id (docs/plugins/advice.md)")                            \
    X(P, severity, STR, NULL, "info, warn or error (info: also a rule the trace cannot run)")  \
    X(P, finding, STR, NULL, "what was found, one line")                                       \
    X(P, evidence, STR, NULL, "the numbers behind it")                                         \
    X(P, where, STR, NULL, "where: device, stream, op, kernel, iteration or time range")       \
    X(P, fix, STR, NULL, "the fix the rule suggests")                                          \
    X(P, count, I64, "count", "events or intervals the finding counts (null when none)")      \
    X(P, value_us, F64, "us", "the time the finding measures (null when none)")               \
    X(P, percent, F64, "percent", "the share the rule compares with its threshold")           \
    X(P, start_us, F64, "us", "start of the time range from the trace's t0 (null: none)")     \
    X(P, end_us, F64, "us", "end of the time range from the trace's t0 (null: none)")
TP_COLUMNS(adv_main, ADV_COLS);

static const tp_result_decl adv_results[] = {
    TP_RESULT("", "table", adv_main,
              "one row per finding, errors first, then warnings, then infos; within a severity "
              "in the rules' order"),
    TP_RESULTS_END};

static const char *const severity_names[] = {"info", "warn", "error"};

double adv_us(int64_t ns) { return (double)ns / 1000.0; }
double adv_rel_us(const adv *a, int64_t ts) { return adv_us(ts - a->w0); }
const char *adv_name(const adv *a, uint32_t row) { return tp_str_text(a->st, a->c->name[row]); }

tp_kernel_class adv_class(adv *a, uint32_t row)
{
    tp_str name = a->c->name[row];
    tp_kind kind = (tp_kind)a->c->kind[row];
    if (name >= a->nnames)
        return tp_vocab_kernel_class(&a->vocab, kind, adv_name(a, row));
    if (a->klass[name] == 0)
        a->klass[name] = (uint8_t)(tp_vocab_kernel_class(&a->vocab, kind, adv_name(a, row)) + 1);
    return (tp_kernel_class)(a->klass[name] - 1);
}

int adv_is_memcpy(adv *a, uint32_t row)
{
    if (a->c->kind[row] == TP_KIND_MEMCPY)
        return 1;
    if (a->c->kind[row] == TP_KIND_MEMSET)
        return 0;
    tp_str name = a->c->name[row];
    if (name >= a->nnames)
        return tp_vocab_memory(&a->vocab, adv_name(a, row)) == TP_MEM_MEMCPY;
    if (a->memcpy_name[name] == 0) /* the vocabulary asked once per name */
        a->memcpy_name[name] =
            tp_vocab_memory(&a->vocab, adv_name(a, row)) == TP_MEM_MEMCPY ? 2 : 1;
    return a->memcpy_name[name] == 2;
}

void adv_add_iteration(const adv *a, int64_t ts, char *buf, size_t size)
{
    int32_t k = tp_iteration_of(&a->iters, ts);
    size_t len = strlen(buf);
    if (k >= 0 && len < size)
        snprintf(buf + len, size - len, ", iteration %lld", (long long)a->iter.step[k]);
}

int32_t adv_op_above(const adv *a, int32_t x) { return tp_hier_op_above(a->c, &a->hv, x); }

static char *dup_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = tp_malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

static adv_finding *new_finding(adv *a)
{
    if (a->nf == a->capf) {
        size_t cap = a->capf ? 2 * a->capf : 16;
        adv_finding *f = tp_realloc(a->f, cap * sizeof *f);
        if (f == NULL)
            return NULL;
        a->f = f;
        a->capf = cap;
    }
    adv_finding *f = &a->f[a->nf];
    memset(f, 0, sizeof *f);
    return f;
}

static int add_finding(adv *a, adv_severity sev, adv_figs figs, const char *where,
                       const char *finding, const char *evidence)
{
    adv_finding *f = new_finding(a);
    if (f == NULL)
        return TP_ENOMEM;
    f->rule = a->rule;
    f->order = a->nf;
    f->severity = sev;
    f->count = figs.count;
    f->value_us = figs.value_us;
    f->percent = figs.percent;
    f->start_us = figs.start_us;
    f->end_us = figs.end_us;
    f->finding = dup_text(finding);
    f->evidence = dup_text(evidence);
    f->where = dup_text(where);
    a->nf++;
    return f->finding && f->evidence && f->where ? TP_OK : TP_ENOMEM;
}

int adv_emit(adv *a, adv_figs figs, const char *where, const char *finding, const char *fmt, ...)
{
    char evidence[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(evidence, sizeof evidence, fmt, ap);
    va_end(ap);
    return add_finding(a, adv_rules[a->rule].severity, figs, where, finding, evidence);
}

int adv_skip(adv *a, const char *why)
{
    char line[400];
    snprintf(line, sizeof line, "not checked: %s", why);
    return add_finding(a, ADV_INFO, ADV_NO_FIGS, "", line, "");
}

/* ------------------------------------------------------------ devices */

static int64_t device_of(const tp_cols *c, uint32_t row) { return tp_ev_device(c, row); }

static int by_device(const void *x, const void *y, void *ctx)
{
    const tp_cols *c = ctx;
    int64_t a = device_of(c, *(const uint32_t *)x), b = device_of(c, *(const uint32_t *)y);
    return (a > b) - (a < b);
}

/* The launched activities grouped by device, by start within one. */
static int gather_devices(adv *a)
{
    const tp_cols *c = a->c;
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++)
        n += tp_ev_is_activity(c, i) != 0;
    uint32_t *rows = tp_malloc((n ? n : 1) * sizeof *rows);
    a->dev = tp_calloc(n ? n : 1, sizeof *a->dev);
    if (rows == NULL || a->dev == NULL) {
        tp_free(rows);
        return TP_ENOMEM;
    }
    n = 0;
    for (size_t i = 0; i < c->n; i++)
        if (tp_ev_is_activity(c, i))
            rows[n++] = (uint32_t)i;
    int rc = tp_sort_rows_by_key(rows, n, c->ts);
    rc = rc ? rc : tp_sort(rows, n, sizeof *rows, by_device, (void *)c); /* stable */
    for (size_t i = 0; rc == TP_OK && i < n; i++) {
        if (i == 0 || device_of(c, rows[i]) != device_of(c, rows[i - 1]))
            a->dev[a->ndev++] = (adv_device){.device = device_of(c, rows[i]), .rows = rows + i};
        a->dev[a->ndev - 1].n++;
    }
    if (rc != TP_OK || a->ndev == 0)
        tp_free(rows);
    return rc;
}

static void free_all(adv *a)
{
    for (size_t k = 0; k < a->ndev; k++)
        tp_free(a->dev[k].busy);
    if (a->ndev > 0)
        tp_free(a->dev[0].rows);
    tp_free(a->dev);
    tp_free(a->klass);
    tp_free(a->memcpy_name);
    for (size_t i = 0; i < a->nf; i++) {
        tp_free(a->f[i].finding);
        tp_free(a->f[i].evidence);
        tp_free(a->f[i].where);
    }
    tp_free(a->f);
    tp_vocab_free(&a->vocab);
    tp_iter_view_release(&a->iter);
}

/* ------------------------------------------------------------ results */

static int by_severity(const void *x, const void *y, void *ctx)
{
    (void)ctx;
    const adv_finding *a = x, *b = y;
    if (a->severity != b->severity)
        return a->severity > b->severity ? -1 : 1;
    if (a->rule != b->rule)
        return a->rule < b->rule ? -1 : 1;
    return (a->order > b->order) - (a->order < b->order);
}

static int set_f64(adv *a, tp_result *r, size_t row, int col, double v)
{
    return isnan(v) ? TP_OK : tp_result_set_f64(a->st, r, row, col, v);
}

static int write_row(adv *a, tp_result *r, const adv_finding *f)
{
    size_t row;
    const adv_rule *rule = &adv_rules[f->rule];
    int skipped = f->severity == ADV_INFO && f->evidence[0] == '\0';
    int rc = tp_result_add_row(a->st, r, &row);
    rc = rc ? rc : tp_result_set_str(a->st, r, row, adv_main_rule, rule->id);
    rc = rc ? rc : tp_result_set_str(a->st, r, row, adv_main_severity, severity_names[f->severity]);
    rc = rc ? rc : tp_result_set_str(a->st, r, row, adv_main_finding, f->finding);
    if (rc == TP_OK && f->evidence[0])
        rc = tp_result_set_str(a->st, r, row, adv_main_evidence, f->evidence);
    if (rc == TP_OK && f->where[0])
        rc = tp_result_set_str(a->st, r, row, adv_main_where, f->where);
    if (rc == TP_OK && !skipped)
        rc = tp_result_set_str(a->st, r, row, adv_main_fix, rule->fix);
    if (rc == TP_OK && f->count >= 0)
        rc = tp_result_set_i64(a->st, r, row, adv_main_count, f->count);
    rc = rc ? rc : set_f64(a, r, row, adv_main_value_us, f->value_us);
    rc = rc ? rc : set_f64(a, r, row, adv_main_percent, f->percent);
    rc = rc ? rc : set_f64(a, r, row, adv_main_start_us, f->start_us);
    rc = rc ? rc : set_f64(a, r, row, adv_main_end_us, f->end_us);
    return rc;
}

static int write_results(adv *a)
{
    tp_result *r = tp_result_declared(a->st, NULL);
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(a->st, r, "title", "Advice: findings and their evidence");
    int rc = tp_sort(a->f, a->nf, sizeof *a->f, by_severity, NULL);
    for (size_t i = 0; rc == TP_OK && i < a->nf; i++)
        rc = write_row(a, r, &a->f[i]);
    return rc;
}

/* ------------------------------------------------------------ running */

static int selected(const adv_config *cfg, const char *id)
{
    if (cfg->rules.n == 0)
        return 1;
    for (size_t i = 0; i < cfg->rules.n; i++)
        if (strcmp(cfg->rules.items[i], id) == 0)
            return 1;
    return 0;
}

static int adv_init(tp_stage *st, const void *config, void **state)
{
    (void)state;
    const adv_config *cfg = config;
    for (size_t i = 0; i < cfg->rules.n; i++) {
        size_t k = 0;
        while (k < adv_nrules && strcmp(adv_rules[k].id, cfg->rules.items[i]) != 0)
            k++;
        if (k == adv_nrules)
            return tp_fail(st, TP_EINVAL, "rules: unknown rule '%s' (docs/plugins/advice.md "
                                          "lists them)", cfg->rules.items[i]);
    }
    return TP_OK;
}

static int run_rules(adv *a)
{
    int rc = TP_OK;
    for (size_t k = 0; rc == TP_OK && k < adv_nrules; k++) {
        if (!selected(a->cfg, adv_rules[k].id))
            continue;
        a->rule = k;
        rc = adv_rules[k].check(a);
    }
    return rc;
}

static int adv_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    adv a = {.st = st, .cfg = config, .t = t, .c = tp_trace_cols(t), .shapes = -1};
    if (tp_hier_view_require(st, t, &a.hv) != TP_OK)
        return TP_ENOTFOUND;
    tp_trace_window(t, &a.w0, &a.w1);
    int rc = tp_vocab_get(st, &a.vocab);
    a.nnames = tp_str_count(st);
    if (rc == TP_OK && ((a.klass = tp_calloc(a.nnames ? a.nnames : 1, 1)) == NULL ||
                        (a.memcpy_name = tp_calloc(a.nnames ? a.nnames : 1, 1)) == NULL))
        rc = TP_ENOMEM;
    rc = rc ? rc : tp_iter_view_get(st, t, NULL, &a.iter);
    a.iters = tp_iter_as_iterations(&a.iter);
    rc = rc ? rc : gather_devices(&a);
    rc = rc ? rc : run_rules(&a);
    rc = rc ? rc : write_results(&a);
    free_all(&a);
    if (rc == TP_ENOMEM)
        return tp_fail(st, rc, "out of memory");
    return rc;
}

static const tp_stage_desc adv_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "advice",
                  "findings with evidence and fixes: TorchTidy patterns, Nsight Systems expert "
                  "rules, TraceLens thresholds, HTA launch outliers",
                  adv_options, adv_config, "hierarchy", adv_results, NULL, 0, adv_init, adv_run,
                  NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("advice", "0.1.0", adv_stages);
