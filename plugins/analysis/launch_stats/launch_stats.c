/*
 * launch_stats: how launches cost and wait (issue 13, item 4; after HTA's
 * get_cuda_kernel_launch_stats and queue-length summary; definitions and a
 * hand-computed vector in docs/plugins/launch_stats.md).
 *
 * A launch is a runtime call and the GPU work it launched (the SDK's launch
 * links; a call that launched several activities counts each).  Per launch:
 *   cpu_duration  the call's duration
 *   gpu_duration  the activity's duration
 *   launch_delay  activity start - call start
 * <id>           per measure: the SDK's statistics, and the outlier counts:
 *                short_gpu (gpu < cpu duration), slow_launch (cpu >
 *                runtime_cutoff_us), late_start (delay > launch_delay_cutoff_us);
 * <id>.launches  per launch (with `per_launch: true`);
 * <id>.queue    per stream: the queue length (launched, not yet finished:
 *               call start <= t < activity end), its maximum and its mean
 *               over the stream's time from first call to last end;
 * <id>.by_api   per launch API (the call's name, and what the SDK's
 *               vocabulary says it launches): calls, activities, times.
 * Every linked launch counts, whatever its API: the same launches as
 * overheads' T4 (its <id>.by_api `linked`).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

typedef struct ls_config {
    double runtime_cutoff_us, delay_cutoff_us;
    int per_launch;
} ls_config;

static const tp_option ls_options[] = {
    TP_OPTION_FLOAT("runtime_cutoff_us", ls_config, runtime_cutoff_us, "50", 0, 1e12,
                    "a launch call longer than this is a slow launch (HTA's runtime cutoff)"),
    TP_OPTION_FLOAT("launch_delay_cutoff_us", ls_config, delay_cutoff_us, "100", 0, 1e12,
                    "a start this long after its call is a late start (HTA's cutoff)"),
    TP_OPTION_BOOL("per_launch", ls_config, per_launch, "false",
                   "also make <id>.launches: one row per launch (large on big traces)"),
    TP_OPTION_END};

/* <id>: one row per measure. */
#define LS_SUM_COLS(X, P)                                                                      \
    X(P, measure, STR, NULL, "cpu_duration (the call's), gpu_duration (the activity's) or "    \
                             "launch_delay (activity start - call start)")                      \
    X(P, count, I64, "count", "launches measured")                                             \
    X(P, mean_us, F64, "us", "mean of the measure (null without launches, as each statistic)") \
    X(P, std_us, F64, "us", "population standard deviation (null below two launches)")        \
    X(P, min_us, F64, "us", "smallest value")                                                  \
    X(P, p50_us, F64, "us", "median (numpy's linear interpolation)")                           \
    X(P, p90_us, F64, "us", "90th percentile")                                                 \
    X(P, p99_us, F64, "us", "99th percentile")                                                 \
    X(P, max_us, F64, "us", "largest value")                                                   \
    X(P, outlier, STR, NULL, "the measure's outlier: slow_launch (cpu > runtime_cutoff_us), "  \
                             "short_gpu (gpu < cpu), late_start (delay > launch_delay_cutoff_us)") \
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
    X(P, launch_delay_us, F64, "us", "activity start - call start")                            \
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
    X(P, max_queue, I64, NULL, "most launches queued at once (call started, activity not ended)") \
    X(P, mean_queue, F64, NULL, "launches queued, time-weighted mean from the first call to "  \
                                "the last end (null for an empty span)")
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
    X(P, gpu_sum_us, F64, "us", "the activities' total duration")                              \
    X(P, launch_delay_mean_us, F64, "us", "mean of activity start - call start")
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

typedef struct ls {
    tp_stage *st;
    const ls_config *cfg;
    const tp_cols *c;
    const int32_t *launcher;
    const int32_t *parent; /* host nesting (hierarchy) */
    int64_t t0;            /* start of the trace's span, for start_us */
    uint32_t *acts; /* launched activities, by (device, stream, start) */
    size_t n;
} ls;

static double us(int64_t ns) { return (double)ns / 1000.0; }

static int by_place_then_start(const void *a, const void *b, void *ctx)
{
    const tp_cols *c = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int32_t dx = tp_ev_device(c, x), dy = tp_ev_device(c, y);
    if (dx != dy)
        return dx < dy ? -1 : 1;
    int32_t sx = tp_ev_stream(c, x), sy = tp_ev_stream(c, y);
    if (sx != sy)
        return sx < sy ? -1 : 1;
    if (c->ts[x] != c->ts[y])
        return c->ts[x] < c->ts[y] ? -1 : 1;
    return (x > y) - (x < y);
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
        rc = rc ? rc : tp_result_set_f64(st, r, row, ls_launch_cpu_duration_us, us(c->dur[call]));
        rc = rc ? rc : tp_result_set_f64(st, r, row, ls_launch_gpu_duration_us, us(c->dur[a]));
        double delay = us(c->ts[a] - c->ts[call]);
        rc = rc ? rc : tp_result_set_f64(st, r, row, ls_launch_launch_delay_us, delay);
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

/* One summary row: statistics of v (sorted in place) and an outlier count. */
static int summary_row(ls *l, tp_result *r, const char *measure, double *v, const char *outlier,
                       size_t outliers)
{
    tp_stats s;
    if (tp_stats_of(v, l->n, &s) != TP_OK)
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

static int summary(ls *l)
{
    tp_result *r = tp_result_declared(l->st, NULL);
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(l->st, r, "title", "Kernel launches: cost, delay and outliers");
    double *cpu = tp_malloc((l->n ? l->n : 1) * sizeof *cpu);
    double *gpu = tp_malloc((l->n ? l->n : 1) * sizeof *gpu);
    double *delay = tp_malloc((l->n ? l->n : 1) * sizeof *delay);
    int rc = cpu && gpu && delay ? TP_OK : TP_ENOMEM;
    size_t short_gpu = 0, slow = 0, late = 0;
    for (size_t i = 0; i < l->n && rc == TP_OK; i++) {
        uint32_t a = l->acts[i];
        int32_t call = l->launcher[a];
        cpu[i] = us(l->c->dur[call]);
        gpu[i] = us(l->c->dur[a]);
        delay[i] = us(l->c->ts[a] - l->c->ts[call]);
        short_gpu += gpu[i] < cpu[i];
        slow += cpu[i] > l->cfg->runtime_cutoff_us;
        late += delay[i] > l->cfg->delay_cutoff_us;
    }
    if (rc == TP_OK)
        rc = summary_row(l, r, "cpu_duration", cpu, "slow_launch", slow);
    if (rc == TP_OK)
        rc = summary_row(l, r, "gpu_duration", gpu, "short_gpu", short_gpu);
    if (rc == TP_OK)
        rc = summary_row(l, r, "launch_delay", delay, "late_start", late);
    tp_free(cpu);
    tp_free(gpu);
    tp_free(delay);
    return rc;
}

/* The queue of one stream, acts[from, to): +1 at each call's start, -1 at
 * each activity's end (ends first at equal times); its maximum and its
 * time-weighted mean from the first call to the last end. */
typedef struct ls_edge {
    int64_t t;
    int delta;
} ls_edge;

static int edge_cmp(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const ls_edge *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->delta > y->delta) - (x->delta < y->delta);
}

static int queue_row(ls *l, tp_result *r, size_t from, size_t to, ls_edge *e)
{
    size_t m = 0;
    for (size_t i = from; i < to; i++) {
        uint32_t a = l->acts[i];
        e[m++] = (ls_edge){l->c->ts[l->launcher[a]], +1};
        e[m++] = (ls_edge){l->c->ts[a] + l->c->dur[a], -1};
    }
    if (tp_sort(e, m, sizeof *e, edge_cmp, NULL) != TP_OK)
        return TP_ENOMEM;
    int64_t depth = 0, max = 0;
    double area = 0;
    for (size_t i = 0; i < m; i++) {
        if (i > 0)
            area += (double)depth * (double)(e[i].t - e[i - 1].t);
        depth += e[i].delta;
        max = depth > max ? depth : max;
    }
    int64_t span = m ? e[m - 1].t - e[0].t : 0;
    uint32_t a0 = l->acts[from];
    size_t row;
    int rc = tp_result_add_row(l->st, r, &row);
    rc = rc ? rc : tp_result_set_i64(l->st, r, row, ls_queue_device, tp_ev_device(l->c, a0));
    rc = rc ? rc : tp_result_set_i64(l->st, r, row, ls_queue_stream, tp_ev_stream(l->c, a0));
    rc = rc ? rc : tp_result_set_i64(l->st, r, row, ls_queue_count, (int64_t)(to - from));
    rc = rc ? rc : tp_result_set_i64(l->st, r, row, ls_queue_max_queue, max);
    if (rc == TP_OK && span > 0)
        rc = tp_result_set_f64(l->st, r, row, ls_queue_mean_queue, area / (double)span);
    return rc;
}

static int queues(ls *l)
{
    tp_result *r = tp_result_declared(l->st, "queue");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(l->st, r, "title", "Launch queue per stream (launched, not finished)");
    ls_edge *e = tp_malloc(2 * (l->n ? l->n : 1) * sizeof *e);
    int rc = e ? TP_OK : TP_ENOMEM;
    for (size_t i = 0; i < l->n && rc == TP_OK;) {
        size_t j = i;
        while (j < l->n && tp_ev_device(l->c, l->acts[j]) == tp_ev_device(l->c, l->acts[i]) &&
               tp_ev_stream(l->c, l->acts[j]) == tp_ev_stream(l->c, l->acts[i]))
            j++;
        rc = queue_row(l, r, i, j, e);
        i = j;
    }
    tp_free(e);
    return rc;
}

/* ---------------------------------------------------------- per API */

typedef struct ls_api {
    tp_str name;
    int64_t calls, count, cpu_ns, gpu_ns, delay_ns;
} ls_api;

static int api_by_calls(const void *a, const void *b, void *ctx)
{
    const ls_api *x = a, *y = b;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    return strcmp(tp_str_text(ctx, x->name), tp_str_text(ctx, y->name));
}

/* Adds activity a to its call's API; a call is counted once, at its first
 * activity (seen[call]). */
static void api_add(ls *l, ls_api *api, uint8_t *seen, uint32_t a)
{
    int32_t call = l->launcher[a];
    api->name = l->c->name[call];
    api->count++;
    api->gpu_ns += l->c->dur[a];
    api->delay_ns += l->c->ts[a] - l->c->ts[call];
    if (!seen[call]) {
        seen[call] = 1;
        api->calls++;
        api->cpu_ns += l->c->dur[call];
    }
}

static int api_row(ls *l, tp_result *r, const tp_vocab *v, const ls_api *a)
{
    tp_stage *st = l->st;
    const char *name = tp_str_text(st, a->name);
    tp_launch_what what = tp_vocab_launch_api(v, name);
    size_t row;
    int rc = tp_result_add_row(st, r, &row);
    rc = rc ? rc : tp_result_set_str(st, r, row, ls_api_api, name);
    if (rc == TP_OK && what != TP_LAUNCHES_NOTHING)
        rc = tp_result_set_str(st, r, row, ls_api_launches, tp_launch_what_name(what));
    rc = rc ? rc : tp_result_set_i64(st, r, row, ls_api_calls, a->calls);
    rc = rc ? rc : tp_result_set_i64(st, r, row, ls_api_count, a->count);
    rc = rc ? rc : tp_result_set_f64(st, r, row, ls_api_cpu_sum_us, us(a->cpu_ns));
    rc = rc ? rc : tp_result_set_f64(st, r, row, ls_api_cpu_mean_us,
                                     us(a->cpu_ns) / (double)a->calls);
    rc = rc ? rc : tp_result_set_f64(st, r, row, ls_api_gpu_sum_us, us(a->gpu_ns));
    rc = rc ? rc : tp_result_set_f64(st, r, row, ls_api_launch_delay_mean_us,
                                     us(a->delay_ns) / (double)a->count);
    return rc;
}

static int per_api(ls *l)
{
    tp_result *r = tp_result_declared(l->st, "by_api");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(l->st, r, "title", "Launches per API");
    size_t nnames = tp_str_count(l->st);
    uint32_t *index = tp_calloc(nnames ? nnames : 1, sizeof *index); /* per name: api + 1 */
    uint8_t *seen = tp_calloc(l->c->n ? l->c->n : 1, 1);
    ls_api *apis = tp_calloc(l->n ? l->n : 1, sizeof *apis);
    tp_vocab v;
    int rc = index && seen && apis ? tp_vocab_get(l->st, &v) : TP_ENOMEM;
    size_t n = 0;
    for (size_t i = 0; i < l->n && rc == TP_OK; i++) {
        tp_str name = l->c->name[l->launcher[l->acts[i]]];
        if (name < nnames && index[name] == 0)
            index[name] = (uint32_t)++n;
        api_add(l, &apis[name < nnames ? index[name] - 1 : n++], seen, l->acts[i]);
    }
    rc = rc ? rc : tp_sort(apis, n, sizeof *apis, api_by_calls, l->st);
    for (size_t i = 0; i < n && rc == TP_OK; i++)
        rc = api_row(l, r, &v, &apis[i]);
    if (index && seen && apis)
        tp_vocab_free(&v);
    tp_free(index);
    tp_free(seen);
    tp_free(apis);
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
    int64_t hi;
    tp_trace_window(t, &l.t0, &hi); /* (t0 = 0 for an empty trace) */
    l.acts = tp_malloc((l.c->n ? l.c->n : 1) * sizeof *l.acts);
    if (l.acts == NULL)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    for (size_t i = 0; i < l.c->n; i++)
        if (tp_ev_is_activity(l.c, i) && l.launcher[i] >= 0)
            l.acts[l.n++] = (uint32_t)i;
    int rc = tp_sort(l.acts, l.n, sizeof *l.acts, by_place_then_start, (void *)l.c);
    if (rc == TP_OK && l.cfg->per_launch)
        rc = per_launch_rows(&l);
    if (rc == TP_OK)
        rc = summary(&l);
    if (rc == TP_OK)
        rc = queues(&l);
    if (rc == TP_OK)
        rc = per_api(&l);
    tp_free(l.acts);
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc ls_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "launch_stats",
                  "kernel launches: call cost, GPU time, launch delay, outliers, queue length",
                  ls_options, ls_config, "hierarchy", ls_results_all, ls_results_for, 0, NULL,
                  ls_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("launch_stats", "0.1.0", ls_stages);
