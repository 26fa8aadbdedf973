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

static int new_result(tp_stage *st, const char *sub, const char *const *names,
                      const tp_coltype *types, int n, tp_result **out)
{
    tp_result *r = tp_result_new(st, sub);
    if (r == NULL)
        return TP_ENOMEM;
    for (int i = 0; i < n; i++)
        if (tp_result_add_col(st, r, names[i], types[i]) != i)
            return TP_ENOMEM;
    *out = r;
    return tp_result_set_kind(st, r, "series");
}

/* One device row of iteration k: acts[from, to) all on one device. */
static int device_row(it_run *r, tp_result *res, int64_t step, size_t from, size_t to)
{
    int64_t busy, lo, hi;
    work_of(r, from, to, &busy, &lo, &hi);
    size_t row;
    int rc = tp_result_add_row(r->st, res, &row);
    rc = rc ? rc : tp_result_set_i64(r->st, res, row, 0, step);
    rc = rc ? rc : tp_result_set_i64(r->st, res, row, 1, tp_ev_device(r->c, r->acts[from]));
    rc = rc ? rc : tp_result_set_i64(r->st, res, row, 2, (int64_t)(to - from));
    rc = rc ? rc : tp_result_set_f64(r->st, res, row, 3, us(busy));
    rc = rc ? rc : tp_result_set_f64(r->st, res, row, 4, us(lo - r->t0));
    return rc ? rc : tp_result_set_f64(r->st, res, row, 5, us(hi - lo));
}

static int iteration_row(it_run *r, tp_result *res, size_t k, int64_t step, size_t from, size_t to)
{
    const tp_iteration *t = &r->it->it[k];
    size_t row;
    int rc = tp_result_add_row(r->st, res, &row);
    rc = rc ? rc : tp_result_set_i64(r->st, res, row, 0, step);
    rc = rc ? rc : tp_result_set_str(r->st, res, row, 1, tp_str_text(r->st, r->c->name[t->row]));
    rc = rc ? rc : tp_result_set_f64(r->st, res, row, 2, us(t->start - r->t0));
    rc = rc ? rc : tp_result_set_f64(r->st, res, row, 3, us(t->end - t->start));
    rc = rc ? rc : tp_result_set_f64(r->st, res, row, 4, us(t->end - r->t0));
    rc = rc ? rc : tp_result_set_i64(r->st, res, row, 5, (int64_t)(to - from));
    if (rc == TP_OK && to > from) { /* no GPU work: busy and span stay null */
        int64_t busy, lo, hi;
        work_of(r, from, to, &busy, &lo, &hi);
        rc = tp_result_set_f64(r->st, res, row, 6, us(busy));
        rc = rc ? rc : tp_result_set_f64(r->st, res, row, 7, us(hi - lo));
    }
    return rc;
}

static int write_results(it_run *r)
{
    static const char *const main_cols[] = {"iteration", "name", "start_us", "dur_us", "end_us",
                                            "count", "gpu_busy_us", "gpu_span_us"};
    static const tp_coltype main_types[] = {TP_COL_I64, TP_COL_STR, TP_COL_F64, TP_COL_F64,
                                            TP_COL_F64, TP_COL_I64, TP_COL_F64, TP_COL_F64};
    static const char *const dev_cols[] = {"iteration", "device", "count", "busy_us",
                                           "gpu_start_us", "gpu_span_us"};
    static const tp_coltype dev_types[] = {TP_COL_I64, TP_COL_I64, TP_COL_I64,
                                           TP_COL_F64, TP_COL_F64, TP_COL_F64};
    tp_result *main_r = NULL, *dev_r = NULL;
    int rc = new_result(r->st, NULL, main_cols, main_types, 8, &main_r);
    rc = rc ? rc : new_result(r->st, "devices", dev_cols, dev_types, 6, &dev_r);
    if (rc != TP_OK)
        return rc;
    tp_result_set_meta(r->st, main_r, "title", "Iterations");
    tp_result_set_meta(r->st, dev_r, "title", "Iterations per device");
    size_t i = 0;
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
    TP_STAGE_FULL(TP_STAGE_ANALYSIS, "iterations",
                  "one row per iteration: host time, GPU work launched in it (busy, span), "
                  "per device",
                  it_options, it_config, "hierarchy", TP_PRODUCES("", "devices"), 0, it_init,
                  it_run_stage, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("iterations", "0.1.0", it_stages);
