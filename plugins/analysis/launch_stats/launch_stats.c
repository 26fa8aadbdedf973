/*
 * launch_stats: how launches cost and wait (issue 13, item 4; issue 25 item
 * 2: compat: hta).  Definitions, how the default differs from HTA's
 * get_cuda_kernel_launch_stats and queue-length summary, and hand-computed
 * vectors: docs/plugins/launch_stats.md.
 *
 * A launch is a runtime call and the GPU work it launched (the SDK's launch
 * links; a call that launched several activities counts each).  Per launch:
 *   cpu_duration  the call's duration
 *   gpu_duration  the activity's duration
 *   launch_delay  activity start - call end (the default: negative when the
 *                 GPU started before the call returned; hta: clipped at 0)
 * <id>           per measure: the SDK's statistics, and the outlier counts:
 *                slow_launch (cpu > runtime_cutoff_us), short_gpu (gpu <
 *                cpu, among calls of at most runtime_cutoff_us), late_start
 *                (delay > launch_delay_cutoff_us);
 * <id>.launches  per launch (with `per_launch: true`);
 * <id>.queue     per stream: the queue-length summary (launch_stats_queue.c);
 * <id>.by_api    per launch API: calls, activities, means and medians.
 * The default counts every linked launch, whatever its API (overheads' T4
 * under its default); compat: hta only HTA's launch APIs, its clock (sub-us
 * traces rounded to whole us) and its trace (no launch of the last step).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "launch_stats.h"

static const char *const ls_modes[] = {"none", "hta", NULL};

static const tp_option ls_options[] = {
    TP_OPTION_ENUM("compat", ls_config, compat, "none", ls_modes,
                   "which definitions: none (every launch, delay after the call's end) or hta "
                   "(HTA's launch APIs, clipped delays, queue series and last-step filter)"),
    TP_OPTION_FLOAT("runtime_cutoff_us", ls_config, runtime_cutoff_us, "50", 0, 1e12,
                    "a launch call longer than this is a slow launch (HTA's runtime cutoff)"),
    TP_OPTION_FLOAT("launch_delay_cutoff_us", ls_config, delay_cutoff_us, "100", 0, 1e12,
                    "a start this long after its call is a late start (HTA's cutoff)"),
    TP_OPTION_INT("queue_full", ls_config, queue_full, "1024", 1, 1000000000,
                  "a stream's queue this long is full (CUDA's per-stream limit, HTA's default)"),
    TP_OPTION_BOOL("per_launch", ls_config, per_launch, "false",
                   "also make <id>.launches: one row per launch (large on big traces)"),
    TP_OPTION_END};

/* <id>: one row per measure. */
#define LS_SUM_COLS(X, P)                                                                      \
    X(P, measure, STR, NULL, "cpu_duration (the call's), gpu_duration (the activity's) or "    \
                             "launch_delay (activity start - call end; hta: clipped at 0)")                      \
    X(P, count, I64, "count", "launches measured")                                             \
    X(P, mean_us, F64, "us", "mean of the measure (null without launches, as each statistic)") \
    X(P, std_us, F64, "us", "population standard deviation (null below two launches)")        \
    X(P, min_us, F64, "us", "smallest value")                                                  \
    X(P, p50_us, F64, "us", "median (numpy's linear interpolation)")                           \
    X(P, p90_us, F64, "us", "90th percentile")                                                 \
    X(P, p99_us, F64, "us", "99th percentile")                                                 \
    X(P, max_us, F64, "us", "largest value")                                                   \
    X(P, outlier, STR, NULL, "the measure's outlier: slow_launch (cpu > runtime_cutoff_us), "  \
                             "short_gpu (gpu < cpu <= runtime_cutoff_us), late_start (delay > "  \
                             "launch_delay_cutoff_us)") \
    X(P, n_outliers, I64, "count", "launches that are that outlier")
TP_COLUMNS(ls_sum, LS_SUM_COLS);

/* <id>.launches (per_launch: true): one row per launch. */
#define LS_LAUNCH_COLS(X, P)                                                                   \
    X(P, device, I64, NULL, "device of the activity")                                          \
    X(P, stream, I64, NULL, "stream of the activity")                                          \
    X(P, launch, STR, NULL, "the runtime call's name (cudaLaunchKernel ...)")                  \
    X(P, name, STR, NULL, "the activity's name (kernel, memcpy, memset)")                      \
    X(P, cpu_duration_us, F64, "us", "the call's duration")                                    \
    X(P, gpu_duration_us, F64, "us", "the activity's duration")                                \
    X(P, launch_delay_us, F64, "us", "activity start - call end (hta: clipped at 0)")                            \
    X(P, correlation, I64, NULL, "the correlation id linking call and activity (null if none)") \
    X(P, start_us, F64, "us", "the activity's start from the trace's t0")                      \
    X(P, range, STR, NULL,                                                                     \
      "innermost annotation (NVTX range, user_annotation) holding the call; null outside any")
TP_COLUMNS(ls_launch, LS_LAUNCH_COLS);

/* <id>.queue: one row per stream. */
#define LS_QUEUE_COLS(X, P)                                                                    \
    X(P, device, I64, NULL, "device")                                                          \
    X(P, stream, I64, NULL, "stream")                                                          \
    X(P, count, I64, "count", "launches onto the stream")                                      \
    X(P, samples, I64, "count", "values of the queue-length series (one per call and activity)") \
    X(P, max_queue, I64, NULL, "most launches queued at once")                                 \
    X(P, mean_queue, F64, NULL, "launches queued: mean over time from the first call to the "  \
                                "last end (hta: mean of the series' values); null for none")   \
    X(P, std_queue, F64, NULL, "sample standard deviation of the series' values (null below 2)") \
    X(P, min_queue, I64, NULL, "fewest launches queued (a series' value)")                     \
    X(P, p25_queue, F64, NULL, "25th percentile of the series' values")                        \
    X(P, p50_queue, F64, NULL, "median of the series' values")                                 \
    X(P, p75_queue, F64, NULL, "75th percentile of the series' values")                        \
    X(P, full_us, F64, "us", "time with at least queue_full launches queued (blocked on a "    \
                             "full queue)")                                                    \
    X(P, full_ratio, F64, "ratio", "full_us over the trace window (hta: first to last start)")
TP_COLUMNS(ls_queue, LS_QUEUE_COLS);

/* <id>.by_api: one row per launch API. */
#define LS_API_COLS(X, P)                                                                      \
    X(P, api, STR, NULL, "the launch call's name (cudaLaunchKernel, cuLaunchKernel ...)")      \
    X(P, launches, STR, NULL, "what the vocabulary says it launches (kernel, memcpy, memset, " \
                              "graph, sync, host_func); null for a call outside it")          \
    X(P, calls, I64, "count", "calls that launched GPU work")                                  \
    X(P, count, I64, "count", "GPU activities they launched")                                  \
    X(P, cpu_sum_us, F64, "us", "the calls' total duration")                                   \
    X(P, cpu_mean_us, F64, "us", "their mean duration")                                        \
    X(P, cpu_p50_us, F64, "us", "their median duration")                                       \
    X(P, gpu_sum_us, F64, "us", "the activities' total duration")                              \
    X(P, gpu_mean_us, F64, "us", "their mean duration")                                        \
    X(P, gpu_p50_us, F64, "us", "their median duration")                                       \
    X(P, launch_delay_mean_us, F64, "us", "mean launch delay (as in <id>)")                    \
    X(P, launch_delay_p50_us, F64, "us", "median launch delay")
TP_COLUMNS(ls_api, LS_API_COLS);

#define LS_RESULT_SUM TP_RESULT("", "table", ls_sum, "per measure: statistics and outliers")
#define LS_RESULT_LAUNCHES                                                                     \
    TP_RESULT("launches", "table", ls_launch,                                                  \
              "per launch (with per_launch: true), by (device, stream, start)")
#define LS_RESULT_QUEUE                                                                        \
    TP_RESULT("queue", "table", ls_queue, "per (device, stream): the launch queue's length")
#define LS_RESULT_BY_API                                                                       \
    TP_RESULT("by_api", "table", ls_api, "per launch API, most calls first")
/* Every result (the ids `validate` knows), and those of the default
 * options: <id>.launches only with per_launch. */
static const tp_result_decl ls_results_all[] = {LS_RESULT_SUM, LS_RESULT_LAUNCHES,
                                                LS_RESULT_QUEUE, LS_RESULT_BY_API,
                                                TP_RESULTS_END};
static const tp_result_decl ls_results_default[] = {LS_RESULT_SUM, LS_RESULT_QUEUE,
                                                    LS_RESULT_BY_API, TP_RESULTS_END};

static const tp_result_decl *ls_results_for(const void *config)
{
    return ((const ls_config *)config)->per_launch ? ls_results_all : ls_results_default;
}

static double us(int64_t ns) { return (double)ns / 1000.0; }

/* HTA's launch APIs (compat: hta only; CONVENTIONS' one allowed exception
 * to the vocabulary): cuda_kernel_analysis' launch statistics, and
 * trace_symbol_table's runtime launch events for the queue. */
static const char *const hta_launch_apis[] = {
    "cudaLaunchKernel", "cudaLaunchKernelExC", "runFunction - job_prep_and_submit_for_execution",
    "cudaMemcpyAsync", "cudaMemsetAsync", NULL};
static const char *const hta_queue_apis[] = {
    "cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx",
    "cudaMemcpyAsync", "cudaMemsetAsync", "runFunction - job_prep_and_submit_for_execution",
    "hipLaunchKernel", "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync",
    "hipMemcpyWithStream", NULL};

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }

int64_t ls_start(const ls *l, uint32_t i)
{
    int64_t t = l->c->ts[i];
    return l->round_us ? -floor_div(-t, 1000) * 1000 : t;
}

int64_t ls_end(const ls *l, uint32_t i)
{
    int64_t t = l->c->ts[i] + (l->c->dur[i] > 0 ? l->c->dur[i] : 0);
    return l->round_us ? floor_div(t, 1000) * 1000 : t;
}

static int64_t ls_dur(const ls *l, uint32_t i) { return ls_end(l, i) - ls_start(l, i); }

/* HTA rounds every time to whole microseconds (start up, end down) when
 * any start in the file has a fraction of one (pandas then reads them as
 * floats). */
static int has_sub_us_start(const tp_cols *c)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->ts[i] % 1000 != 0)
            return 1;
    return 0;
}

/* The innermost annotation (user_annotation, NVTX range) holding the host
 * event, or -1: seed 002's "enclosing NVTX range" of a launch. */
static int32_t enclosing_range(const ls *l, int32_t row)
{
    for (int32_t p = l->parent[row]; p >= 0; p = l->parent[p])
        if (l->c->kind[p] == TP_KIND_ANNOTATION)
            return p;
    return -1;
}

static int per_launch_rows(ls *l)
{
    tp_stage *st = l->st;
    const tp_cols *c = l->c;
    tp_result *r = tp_result_declared(st, "launches");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(st, r, "title", "Launches");
    int rc = TP_OK;
    for (size_t i = 0; i < l->n && rc == TP_OK; i++) {
        uint32_t a = l->acts[i];
        int32_t call = l->launcher[a];
        size_t row;
        rc = tp_result_add_row(st, r, &row);
        rc = rc ? rc : tp_result_set_i64(st, r, row, ls_launch_device, tp_ev_device(c, a));
        rc = rc ? rc : tp_result_set_i64(st, r, row, ls_launch_stream, tp_ev_stream(c, a));
        const char *launch = tp_str_text(st, c->name[call]);
        rc = rc ? rc : tp_result_set_str(st, r, row, ls_launch_launch, launch);
        rc = rc ? rc : tp_result_set_str(st, r, row, ls_launch_name, tp_str_text(st, c->name[a]));
        rc = rc ? rc : tp_result_set_f64(st, r, row, ls_launch_cpu_duration_us, l->cpu[i]);
        rc = rc ? rc : tp_result_set_f64(st, r, row, ls_launch_gpu_duration_us, l->gpu[i]);
        rc = rc ? rc : tp_result_set_f64(st, r, row, ls_launch_launch_delay_us, l->delay[i]);
        int64_t corr = tp_ev_corr(c, a);
        if (rc == TP_OK && corr != TP_NONE)
            rc = tp_result_set_i64(st, r, row, ls_launch_correlation, corr);
        rc = rc ? rc : tp_result_set_f64(st, r, row, ls_launch_start_us, us(c->ts[a] - l->t0));
        int32_t range = enclosing_range(l, call);
        if (rc == TP_OK && range >= 0)
            rc = tp_result_set_str(st, r, row, ls_launch_range, tp_str_text(st, c->name[range]));
    }
    return rc;
}

/* Statistics of a copy of v[0, n) (the SDK sorts in place). */
static int stats_copy(const double *v, size_t n, tp_stats *s)
{
    double *w = tp_malloc((n ? n : 1) * sizeof *w);
    if (w == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < n; i++)
        w[i] = v[i];
    int rc = tp_stats_of(w, n, s);
    tp_free(w);
    return rc;
}

/* One summary row: statistics of v and an outlier count. */
static int summary_row(ls *l, tp_result *r, const char *measure, const double *v, const char *outlier,
                       size_t outliers)
{
    tp_stats s;
    if (stats_copy(v, l->n, &s) != TP_OK)
        return TP_ENOMEM;
    size_t row;
    int rc = tp_result_add_row(l->st, r, &row);
    rc = rc ? rc : tp_result_set_str(l->st, r, row, ls_sum_measure, measure);
    rc = rc ? rc : tp_result_set_i64(l->st, r, row, ls_sum_count, (int64_t)s.count);
    const struct {
        int col;
        double v;
    } x[] = {{ls_sum_mean_us, s.mean}, {ls_sum_std_us, s.std}, {ls_sum_min_us, s.min},
             {ls_sum_p50_us, s.p50},   {ls_sum_p90_us, s.p90}, {ls_sum_p99_us, s.p99},
             {ls_sum_max_us, s.max}};
    for (size_t i = 0; i < sizeof x / sizeof x[0] && rc == TP_OK; i++)
        if (!isnan(x[i].v))
            rc = tp_result_set_f64(l->st, r, row, x[i].col, x[i].v);
    rc = rc ? rc : tp_result_set_str(l->st, r, row, ls_sum_outlier, outlier);
    rc = rc ? rc : tp_result_set_i64(l->st, r, row, ls_sum_n_outliers, (int64_t)outliers);
    return rc;
}

/* Per launch: cpu, gpu and delay in us, in the mode's definitions. */
static int measure(ls *l)
{
    size_t n = l->n ? l->n : 1;
    l->cpu = tp_malloc(n * sizeof *l->cpu);
    l->gpu = tp_malloc(n * sizeof *l->gpu);
    l->delay = tp_malloc(n * sizeof *l->delay);
    if (!l->cpu || !l->gpu || !l->delay)
        return TP_ENOMEM;
    for (size_t i = 0; i < l->n; i++) {
        uint32_t a = l->acts[i], call = (uint32_t)l->launcher[a];
        l->cpu[i] = us(ls_dur(l, call));
        l->gpu[i] = us(ls_dur(l, a));
        l->delay[i] = us(ls_start(l, a) - ls_end(l, call));
        if (l->cfg->compat == LS_HTA && l->delay[i] < 0)
            l->delay[i] = 0;
    }
    return TP_OK;
}

static int summary(ls *l)
{
    tp_result *r = tp_result_declared(l->st, NULL);
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(l->st, r, "title", "Kernel launches: cost, delay and outliers");
    tp_result_set_meta(l->st, r, "compat", ls_modes[l->cfg->compat]);
    double cut = l->cfg->runtime_cutoff_us;
    size_t short_gpu = 0, slow = 0, late = 0;
    for (size_t i = 0; i < l->n; i++) {
        unsigned k = tp_launch_outliers(l->cpu[i], l->gpu[i], l->delay[i], cut,
                                        l->cfg->delay_cutoff_us);
        short_gpu += (k & TP_LAUNCH_SHORT_GPU) != 0;
        slow += (k & TP_LAUNCH_SLOW) != 0;
        late += (k & TP_LAUNCH_LATE) != 0;
    }
    int rc = summary_row(l, r, "cpu_duration", l->cpu, "slow_launch", slow);
    if (rc == TP_OK)
        rc = summary_row(l, r, "gpu_duration", l->gpu, "short_gpu", short_gpu);
    if (rc == TP_OK)
        rc = summary_row(l, r, "launch_delay", l->delay, "late_start", late);
    return rc;
}

static void set_f64(tp_stage *st, tp_result *r, size_t row, int col, double v, int *rc)
{
    if (*rc == TP_OK && !isnan(v))
        *rc = tp_result_set_f64(st, r, row, col, v);
}

static int queue_row(ls *l, tp_result *r, size_t from, size_t to, double window_us)
{
    ls_queue_stats q;
    int rc = ls_queue_of(l, from, to, &q);
    if (rc != TP_OK)
        return rc;
    tp_stage *st = l->st;
    uint32_t a0 = l->acts[from];
    size_t row;
    rc = tp_result_add_row(st, r, &row);
    rc = rc ? rc : tp_result_set_i64(st, r, row, ls_queue_device, tp_ev_device(l->c, a0));
    rc = rc ? rc : tp_result_set_i64(st, r, row, ls_queue_stream, tp_ev_stream(l->c, a0));
    rc = rc ? rc : tp_result_set_i64(st, r, row, ls_queue_count, (int64_t)(to - from));
    rc = rc ? rc : tp_result_set_i64(st, r, row, ls_queue_samples, q.samples);
    rc = rc ? rc : tp_result_set_i64(st, r, row, ls_queue_max_queue, q.max);
    set_f64(st, r, row, ls_queue_mean_queue, q.mean, &rc);
    set_f64(st, r, row, ls_queue_std_queue, q.std, &rc);
    rc = rc ? rc : tp_result_set_i64(st, r, row, ls_queue_min_queue, q.min);
    set_f64(st, r, row, ls_queue_p25_queue, q.p25, &rc);
    set_f64(st, r, row, ls_queue_p50_queue, q.p50, &rc);
    set_f64(st, r, row, ls_queue_p75_queue, q.p75, &rc);
    set_f64(st, r, row, ls_queue_full_us, us(q.full_ns), &rc);
    set_f64(st, r, row, ls_queue_full_ratio, window_us > 0 ? us(q.full_ns) / window_us : NAN,
            &rc);
    return rc;
}

/* The window full_ratio divides by: the trace window, or HTA's trace
 * duration (first to last start). */
static double queue_window_us(const ls *l, const tp_trace *t)
{
    int64_t lo = 0, hi = 0;
    if (l->cfg->compat == LS_HTA)
        tp_trace_span(l->c, TP_SPAN_STARTS, &lo, &hi);
    else
        tp_trace_window(t, &lo, &hi);
    return us(hi - lo);
}

static int same_place(const ls *l, uint32_t a, uint32_t b)
{
    return tp_ev_device(l->c, a) == tp_ev_device(l->c, b) &&
           tp_ev_stream(l->c, a) == tp_ev_stream(l->c, b);
}

static int queues(ls *l, const tp_trace *t)
{
    tp_result *r = tp_result_declared(l->st, "queue");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(l->st, r, "title", "Launch queue per stream");
    double window = queue_window_us(l, t);
    int rc = TP_OK;
    for (size_t i = 0; i < l->n && rc == TP_OK;) {
        size_t j = i;
        while (j < l->n && same_place(l, l->acts[j], l->acts[i]))
            j++;
        rc = queue_row(l, r, i, j, window);
        i = j;
    }
    return rc;
}

/* ---------------------------------------------------------- per API */

/* One API's launches: acts[idx[from, to)] (acts order within). */
static int api_row(ls *l, tp_result *r, const tp_vocab *v, const uint32_t *idx, size_t from,
                   size_t to, uint8_t *seen)
{
    tp_stage *st = l->st;
    size_t n = to - from, ncalls = 0;
    double *cpu = tp_malloc(n * sizeof *cpu), *gpu = tp_malloc(n * sizeof *gpu),
           *delay = tp_malloc(n * sizeof *delay);
    int rc = cpu && gpu && delay ? TP_OK : TP_ENOMEM;
    for (size_t k = from; k < to && rc == TP_OK; k++) {
        size_t i = idx[k];
        int32_t call = l->launcher[l->acts[i]];
        gpu[k - from] = l->gpu[i];
        delay[k - from] = l->delay[i];
        if (!seen[call]) { /* a call once, at its first activity */
            seen[call] = 1;
            cpu[ncalls++] = l->cpu[i];
        }
    }
    tp_stats sc, sg, sd;
    rc = rc ? rc : tp_stats_of(cpu, ncalls, &sc);
    rc = rc ? rc : tp_stats_of(gpu, n, &sg);
    rc = rc ? rc : tp_stats_of(delay, n, &sd);
    const char *name = tp_str_text(st, l->c->name[l->launcher[l->acts[idx[from]]]]);
    tp_launch_what what = tp_vocab_launch_api(v, name);
    size_t row;
    rc = rc ? rc : tp_result_add_row(st, r, &row);
    rc = rc ? rc : tp_result_set_str(st, r, row, ls_api_api, name);
    if (rc == TP_OK && what != TP_LAUNCHES_NOTHING)
        rc = tp_result_set_str(st, r, row, ls_api_launches, tp_launch_what_name(what));
    rc = rc ? rc : tp_result_set_i64(st, r, row, ls_api_calls, (int64_t)ncalls);
    rc = rc ? rc : tp_result_set_i64(st, r, row, ls_api_count, (int64_t)n);
    if (rc == TP_OK) {
        set_f64(st, r, row, ls_api_cpu_sum_us, sc.sum, &rc);
        set_f64(st, r, row, ls_api_cpu_mean_us, sc.mean, &rc);
        set_f64(st, r, row, ls_api_cpu_p50_us, sc.p50, &rc);
        set_f64(st, r, row, ls_api_gpu_sum_us, sg.sum, &rc);
        set_f64(st, r, row, ls_api_gpu_mean_us, sg.mean, &rc);
        set_f64(st, r, row, ls_api_gpu_p50_us, sg.p50, &rc);
        set_f64(st, r, row, ls_api_launch_delay_mean_us, sd.mean, &rc);
        set_f64(st, r, row, ls_api_launch_delay_p50_us, sd.p50, &rc);
    }
    tp_free(cpu);
    tp_free(gpu);
    tp_free(delay);
    return rc;
}

typedef struct ls_api_sort {
    const ls *l;
    const int64_t *calls; /* per name id: calls of that API */
} ls_api_sort;

static tp_str api_of(const ls *l, uint32_t i) { return l->c->name[l->launcher[l->acts[i]]]; }

/* Most calls first, then by name, then acts order. */
static int api_order(const void *a, const void *b, void *ctx)
{
    const ls_api_sort *o = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    tp_str nx = api_of(o->l, x), ny = api_of(o->l, y);
    if (nx != ny) {
        if (o->calls[nx] != o->calls[ny])
            return o->calls[nx] > o->calls[ny] ? -1 : 1;
        return strcmp(tp_str_text(o->l->st, nx), tp_str_text(o->l->st, ny));
    }
    return (x > y) - (x < y);
}

static int per_api(ls *l)
{
    tp_result *r = tp_result_declared(l->st, "by_api");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(l->st, r, "title", "Launches per API");
    size_t nnames = tp_str_count(l->st);
    int64_t *calls = tp_calloc(nnames ? nnames : 1, sizeof *calls);
    uint8_t *seen = tp_calloc(l->c->n ? l->c->n : 1, 1);
    uint32_t *idx = tp_malloc((l->n ? l->n : 1) * sizeof *idx);
    tp_vocab v;
    int rc = calls && seen && idx ? tp_vocab_get(l->st, &v) : TP_ENOMEM;
    for (size_t i = 0; i < l->n && rc == TP_OK; i++) {
        int32_t call = l->launcher[l->acts[i]];
        idx[i] = (uint32_t)i;
        if (!seen[call] && l->c->name[call] < nnames)
            calls[l->c->name[call]]++;
        seen[call] = 1;
    }
    ls_api_sort o = {l, calls};
    rc = rc ? rc : tp_sort(idx, l->n, sizeof *idx, api_order, &o);
    if (seen)
        memset(seen, 0, l->c->n ? l->c->n : 1);
    for (size_t i = 0; i < l->n && rc == TP_OK;) {
        size_t j = i;
        while (j < l->n && api_of(l, idx[j]) == api_of(l, idx[i]))
            j++;
        rc = api_row(l, r, &v, idx, i, j, seen);
        i = j;
    }
    if (calls && seen && idx)
        tp_vocab_free(&v);
    tp_free(calls);
    tp_free(seen);
    tp_free(idx);
    return rc;
}

/* The launched activities a mode measures: every linked one, or (hta) those
 * whose call is one of `apis` and, with two iterations or more, starts
 * before the last one (HTA's TraceAnalysis leaves the last step out). */
static int select_acts(ls *l, const char *const *apis, int64_t before, uint32_t **out,
                       size_t *n)
{
    const tp_cols *c = l->c;
    size_t nnames = tp_str_count(l->st);
    uint8_t *named = NULL;
    *n = 0;
    *out = tp_malloc((c->n ? c->n : 1) * sizeof **out);
    if (*out == NULL)
        return TP_ENOMEM;
    if (apis != NULL) {
        if ((named = tp_calloc(nnames ? nnames : 1, 1)) == NULL)
            return TP_ENOMEM;
        for (size_t k = 0; apis[k]; k++) {
            tp_str s;
            if (tp_str_lookup(l->st, apis[k], strlen(apis[k]), &s) == 1 && s < nnames)
                named[s] = 1;
        }
    }
    for (size_t i = 0; i < c->n; i++) {
        int32_t call = l->launcher[i];
        if (!tp_ev_is_activity(c, i) || call < 0)
            continue;
        if (named && (c->name[call] >= nnames || !named[c->name[call]] ||
                      ls_start(l, (uint32_t)call) >= before))
            continue;
        (*out)[(*n)++] = (uint32_t)i;
    }
    tp_free(named);
    return tp_sort(*out, *n, sizeof **out, tp_rows_cmp_stream_start, (void *)c);
}

/* compat: hta: the start of the last iteration when there are two or more
 * (INT64_MAX otherwise). */
static int hta_last_step(ls *l, int64_t *before)
{
    tp_iter_view v;
    *before = INT64_MAX;
    int rc = tp_iter_view_get(l->st, NULL, NULL, &v);
    if (rc != TP_OK)
        return rc;
    if (v.n >= 2)
        *before = ls_start(l, v.it[v.n - 1].row);
    tp_iter_view_release(&v);
    return TP_OK;
}

static int analyse(ls *l, const tp_trace *t)
{
    int hta = l->cfg->compat == LS_HTA;
    int64_t before = INT64_MAX;
    int rc = hta ? hta_last_step(l, &before) : TP_OK;
    rc = rc ? rc : select_acts(l, hta ? hta_launch_apis : NULL, before, &l->acts, &l->n);
    rc = rc ? rc : measure(l);
    if (rc == TP_OK && l->cfg->per_launch)
        rc = per_launch_rows(l);
    rc = rc ? rc : summary(l);
    rc = rc ? rc : per_api(l);
    if (rc == TP_OK && hta) { /* the queue counts HTA's other list of APIs */
        tp_free(l->acts);
        rc = select_acts(l, hta_queue_apis, before, &l->acts, &l->n);
    }
    rc = rc ? rc : queues(l, t);
    return rc;
}

static int ls_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    ls l = {.st = st, .cfg = config, .c = tp_trace_cols(t)};
    tp_hier_view v;
    if (tp_hier_view_require(st, t, &v) != TP_OK)
        return TP_ENOTFOUND;
    l.launcher = v.launcher;
    l.parent = v.parent;
    l.round_us = l.cfg->compat == LS_HTA && has_sub_us_start(l.c);
    int64_t hi;
    tp_trace_window(t, &l.t0, &hi); /* (t0 = 0 for an empty trace) */
    int rc = analyse(&l, t);
    tp_free(l.acts);
    tp_free(l.cpu);
    tp_free(l.gpu);
    tp_free(l.delay);
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc ls_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "launch_stats",
                  "kernel launches: call cost, GPU time, launch delay, outliers, queue length",
                  ls_options, ls_config, "hierarchy", ls_results_all, ls_results_for, 0, NULL,
                  ls_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("launch_stats", "0.1.0", ls_stages);
