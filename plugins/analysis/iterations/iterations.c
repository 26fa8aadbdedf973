/*
 * iterations: one row per iteration (issue 11, item 3).
 *
 *   <id>          iteration, name, start_us (from the trace's window start),
 *                 dur_us (the marker's own time), end_us, count (GPU work
 *                 of the iteration), gpu_busy_us (union over all devices),
 *                 gpu_span_us (its first start to last end), in step order;
 *   <id>.devices  iteration, device, count, busy_us, gpu_start_us,
 *                 gpu_span_us: the same per device.
 *
 * Iterations are host markers matching `marker` (ProfilerStep#N by
 * default; a regex for engines without steps, such as vLLM's execute_model),
 * NVTX-style ranges (`ranges`), or GPU step annotations (`source:
 * gpu_annotation`: gpu_user_annotation events matching `marker`).  The GPU
 * work of a host iteration is what was *launched* in it (the SDK's launch
 * links), wherever it ran; work without a launch in the trace, and the work
 * of a GPU annotation, is what starts inside it.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

#include <tracepipe/tp_sdk_iter.h>
#include <tracepipe/tp_sdk_markers.h>

typedef struct it_config {
    const char *marker;
    int ranges;
    const char *source;
} it_config;

static const char *const it_sources[] = {"host", "gpu_annotation", NULL};

static const tp_option it_options[] = {
    TP_OPTION_STRING("marker", it_config, marker, NULL,
                     "override of the pipeline's iterations: marker for this stage: a regex "
                     "naming the iteration markers"),
    TP_OPTION_BOOL("ranges", it_config, ranges, "false",
                   "override: iterations are NVTX-style ranges (async b/e pairs) named by marker"),
    TP_OPTION_CHOICE("source", it_config, source, NULL, it_sources,
                     "override: host (host markers, or ranges) or gpu_annotation (GPU step "
                     "annotations, gpu_user_annotation) named by marker"),
    TP_OPTION_END};

/* <id>: one row per iteration, in step order. */
#define IT_MAIN_COLS(X, P)                                                                         \
    X(P, iteration, I64, NULL, "the step number: the marker's first capture group if a number, "   \
                               "else the digits after the name's last #, else the ordinal from 0") \
    X(P, name, STR, NULL, "the marker's name")                                                     \
    X(P, start_us, F64, "us", "the marker's start, from the start of the trace's window")          \
    X(P, dur_us, F64, "us", "the marker's own duration (host time; device time for GPU "           \
                            "annotations)")                                                        \
    X(P, end_us, F64, "us", "the marker's end, from the start of the trace's window")              \
    X(P, count, I64, "count", "GPU activities of the iteration (kernels, memcpys, memsets)")       \
    X(P, gpu_busy_us, F64, "us", "union of their intervals over all devices (null without GPU "    \
                                 "work)")                                                          \
    X(P, gpu_span_us, F64, "us", "their first start to last end (null without GPU work)")
TP_COLUMNS(it_main, IT_MAIN_COLS);

/* <id>.devices: one row per iteration and device with GPU work. */
#define IT_DEV_COLS(X, P)                                                                          \
    X(P, iteration, I64, NULL, "the step number, as in the main result")                           \
    X(P, device, I64, NULL, "the GPU device")                                                      \
    X(P, count, I64, "count", "GPU activities of the iteration on the device")                     \
    X(P, busy_us, F64, "us", "union of their intervals")                                           \
    X(P, gpu_start_us, F64, "us", "their first start, from the start of the trace's window")       \
    X(P, gpu_span_us, F64, "us", "their first start to last end")
TP_COLUMNS(it_dev, IT_DEV_COLS);

static const tp_result_decl it_results[] = {
    TP_RESULT("", "series", it_main, "one row per iteration: host time and the GPU work "
                                     "launched in it"),
    TP_RESULT("devices", "series", it_dev, "one row per iteration and device: the GPU work on "
                                           "that device"),
    TP_RESULTS_END};

/* A bad marker regex is a configuration error, reported by `validate`. */
static int it_init(tp_stage *st, const void *config, void **state)
{
    const it_config *cfg = config;
    (void)state;
    if (cfg->marker == NULL)
        return TP_OK;
    tp_markers m;
    int rc = tp_markers_open(st, &m, "marker", cfg->marker);
    tp_markers_close(&m);
    return rc;
}

static int is_gpu_source(const it_config *cfg)
{
    return cfg->source && strcmp(cfg->source, "gpu_annotation") == 0;
}

/* ------------------------------------------------------------ the work */

typedef struct it_run {
    tp_stage *st;
    const tp_cols *c;
    const int32_t *launcher;
    const tp_iterations *it;
    const int64_t *steps; /* the view's step numbers, one per iteration */
    int gpu_source;
    int64_t t0;
    uint32_t *acts; /* activities grouped by iteration, then device, then start */
    int32_t *iter;  /* per row of acts' rows: the iteration, -1 none */
    size_t nacts;
    tp_interval *iv;
} it_run;

/* Whether activity a runs on the device of GPU annotation g: by device id,
 * or, as Kineto writes annotations without one, by the device's process. */
static int same_device(const tp_cols *c, size_t a, size_t g)
{
    int32_t dg = tp_ev_device(c, g);
    return dg >= 0 ? tp_ev_device(c, a) == dg : tp_ev_pid(c, a) == tp_ev_pid(c, g);
}

/* The iteration each activity belongs to (see the header comment). */
static int assign(it_run *r)
{
    const tp_cols *c = r->c;
    int32_t *index = tp_malloc((c->n ? c->n : 1) * sizeof *index);
    if (index == NULL)
        return TP_ENOMEM;
    tp_iterations_index(c, r->it, index);
    for (size_t i = 0; i < c->n; i++) {
        if (!tp_ev_is_activity(c, i)) {
            r->iter[i] = -1;
            continue;
        }
        int32_t l = r->launcher[i];
        int32_t k = !r->gpu_source && l >= 0 ? index[l] : index[i];
        if (k >= 0 && r->gpu_source && !same_device(c, i, r->it->it[k].row))
            k = -1; /* a GPU annotation covers its own device */
        r->iter[i] = k;
        if (k >= 0)
            r->acts[r->nacts++] = (uint32_t)i;
    }
    tp_free(index);
    return TP_OK;
}

static int by_iter_device_start(const void *a, const void *b, void *ctx)
{
    const it_run *r = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (r->iter[x] != r->iter[y])
        return r->iter[x] < r->iter[y] ? -1 : 1;
    int32_t dx = tp_ev_device(r->c, x), dy = tp_ev_device(r->c, y);
    if (dx != dy)
        return dx < dy ? -1 : 1;
    if (r->c->ts[x] != r->c->ts[y])
        return r->c->ts[x] < r->c->ts[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* Busy (union), first start and last end of acts[from, to). */
static void work_of(it_run *r, size_t from, size_t to, int64_t *busy, int64_t *lo, int64_t *hi)
{
    size_t n = 0;
    *lo = INT64_MAX;
    *hi = INT64_MIN;
    for (size_t i = from; i < to; i++) {
        uint32_t a = r->acts[i];
        int64_t end = r->c->ts[a] + r->c->dur[a];
        r->iv[n++] = (tp_interval){r->c->ts[a], end};
        *lo = r->c->ts[a] < *lo ? r->c->ts[a] : *lo;
        *hi = end > *hi ? end : *hi;
    }
    *busy = tp_intervals_length(r->iv, tp_intervals_union(r->iv, n));
}

static double us(int64_t ns) { return (double)ns / 1000.0; }

/* One device row of iteration k: acts[from, to) all on one device. */
static int device_row(it_run *r, tp_result *res, int64_t step, size_t from, size_t to)
{
    int64_t busy, lo, hi;
    work_of(r, from, to, &busy, &lo, &hi);
    size_t row;
    int rc = tp_result_add_row(r->st, res, &row);
    rc = rc ? rc : tp_result_set_i64(r->st, res, row, it_dev_iteration, step);
    rc = rc ? rc
            : tp_result_set_i64(r->st, res, row, it_dev_device, tp_ev_device(r->c, r->acts[from]));
    rc = rc ? rc : tp_result_set_i64(r->st, res, row, it_dev_count, (int64_t)(to - from));
    rc = rc ? rc : tp_result_set_f64(r->st, res, row, it_dev_busy_us, us(busy));
    rc = rc ? rc : tp_result_set_f64(r->st, res, row, it_dev_gpu_start_us, us(lo - r->t0));
    return rc ? rc : tp_result_set_f64(r->st, res, row, it_dev_gpu_span_us, us(hi - lo));
}

static int iteration_row(it_run *r, tp_result *res, size_t k, int64_t step, size_t from, size_t to)
{
    const tp_iteration *t = &r->it->it[k];
    size_t row;
    int rc = tp_result_add_row(r->st, res, &row);
    rc = rc ? rc : tp_result_set_i64(r->st, res, row, it_main_iteration, step);
    rc = rc ? rc
            : tp_result_set_str(r->st, res, row, it_main_name,
                                tp_str_text(r->st, r->c->name[t->row]));
    rc = rc ? rc : tp_result_set_f64(r->st, res, row, it_main_start_us, us(t->start - r->t0));
    rc = rc ? rc : tp_result_set_f64(r->st, res, row, it_main_dur_us, us(t->end - t->start));
    rc = rc ? rc : tp_result_set_f64(r->st, res, row, it_main_end_us, us(t->end - r->t0));
    rc = rc ? rc : tp_result_set_i64(r->st, res, row, it_main_count, (int64_t)(to - from));
    if (rc == TP_OK && to > from) { /* no GPU work: busy and span stay null */
        int64_t busy, lo, hi;
        work_of(r, from, to, &busy, &lo, &hi);
        rc = tp_result_set_f64(r->st, res, row, it_main_gpu_busy_us, us(busy));
        rc = rc ? rc : tp_result_set_f64(r->st, res, row, it_main_gpu_span_us, us(hi - lo));
    }
    return rc;
}

static int write_results(it_run *r)
{
    tp_result *main_r = tp_result_declared(r->st, NULL);
    tp_result *dev_r = main_r ? tp_result_declared(r->st, "devices") : NULL;
    if (dev_r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(r->st, main_r, "title", "Iterations");
    tp_result_set_meta(r->st, dev_r, "title", "Iterations per device");
    size_t i = 0;
    int rc = TP_OK;
    for (size_t k = 0; k < r->it->n && rc == TP_OK; k++) {
        size_t from = i;
        while (i < r->nacts && r->iter[r->acts[i]] == (int32_t)k)
            i++;
        int64_t step = r->steps[k];
        rc = iteration_row(r, main_r, k, step, from, i);
        for (size_t d = from; d < i && rc == TP_OK;) {
            size_t e = d;
            while (e < i && tp_ev_device(r->c, r->acts[e]) == tp_ev_device(r->c, r->acts[d]))
                e++;
            rc = device_row(r, dev_r, step, d, e);
            d = e;
        }
    }
    return rc;
}

static int it_run_stage(tp_stage *st, const void *config, void *state)
{
    const it_config *cfg = config;
    (void)state;
    tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    const tp_cols *c = tp_trace_cols(t);
    tp_hier_view v;
    if (tp_hier_view_require(st, t, &v) != TP_OK)
        return TP_ENOTFOUND;
    tp_iter_override ov = {.marker = cfg->marker, .ranges = cfg->ranges,
                           .gpu = is_gpu_source(cfg), .option = "marker"};
    tp_iter_view steps;
    int rc = tp_iter_view_get(st, t, &ov, &steps);
    if (rc != TP_OK)
        return rc == TP_ENOMEM ? tp_fail(st, rc, "out of memory") : rc;
    tp_iterations it = tp_iter_as_iterations(&steps);
    int gpu = steps.source == TP_ITER_SOURCE_GPU_ANNOTATION;
    if (it.n == 0)
        tp_log(st, TP_LOG_WARN, "no iterations: no %s matches marker '%s'",
               gpu ? "GPU annotation"
               : steps.source == TP_ITER_SOURCE_RANGE ? "range (b/e pair)"
                                                       : "host event",
               steps.marker);
    it_run r = {.st = st, .c = c, .launcher = v.launcher, .it = &it, .steps = steps.step,
                .gpu_source = gpu};
    int64_t t1;
    tp_trace_window(t, &r.t0, &t1);
    size_t n = c->n ? c->n : 1;
    r.acts = tp_malloc(n * sizeof *r.acts);
    r.iter = tp_malloc(n * sizeof *r.iter);
    r.iv = tp_malloc(n * sizeof *r.iv);
    rc = r.acts && r.iter && r.iv ? assign(&r) : TP_ENOMEM;
    if (rc == TP_OK)
        rc = tp_sort(r.acts, r.nacts, sizeof *r.acts, by_iter_device_start, &r);
    if (rc == TP_OK)
        rc = write_results(&r);
    tp_free(r.acts);
    tp_free(r.iter);
    tp_free(r.iv);
    tp_iter_view_release(&steps);
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc it_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "iterations",
                  "one row per iteration: host time, GPU work launched in it (busy, span), "
                  "per device",
                  it_options, it_config, "hierarchy", it_results, NULL, 0, it_init,
                  it_run_stage, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("iterations", "0.1.0", it_stages);
