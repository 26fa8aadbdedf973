/*
 * streams: GPU streams and devices over time (issue 13, ANALYSES.md section 2).
 *
 *   <id>          per (device, stream): count, sum_dur_us (sum of durations),
 *                 busy_us (interval union), span_us (first start to last
 *                 end), idle_us = span - busy, window_us (the trace's window);
 *   <id>.devices  per device: the same over all its streams, plus
 *                 concurrent_us (two or more running), overlap_excess_us
 *                 (sum - busy), HTA's temporal breakdown (compute_us: the
 *                 union of computation kernels, non_compute_us = span -
 *                 compute - idle) and communication/computation overlap;
 *                 with compat: seed, seed 001's multistream idle/overlap;
 *   <id>.idle     per stream, HTA's idle-time breakdown: each gap before a
 *                 kernel is host_wait when its launch started after the
 *                 previous kernel ended, else kernel_wait when shorter than
 *                 consecutive_kernel_delay_us, else other.
 * Activities are kernels, memcpys and memsets (tp_ev_is_activity); kernel
 * classes are the SDK's (HTA's rules).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_iter.h>

typedef struct sa_config {
    int64_t compat;
    double kernel_delay_us;
    int exclude_last_step;
    const char *step_prefix;
} sa_config;

enum { COMPAT_NONE, COMPAT_SEED, COMPAT_HTA };
static const char *const sa_compat[] = {"none", "seed", "hta", NULL};

static const tp_option sa_options[] = {
    TP_OPTION_ENUM("compat", sa_config, compat, "none", sa_compat,
                   "seed: add seed 001's multistream idle/overlap; hta: percentages rounded "
                   "to 2 decimals as HTA prints them"),
    TP_OPTION_FLOAT("consecutive_kernel_delay_us", sa_config, kernel_delay_us, "30", 0, 1e12,
                    "a gap shorter than this between kernels launched in time is kernel_wait"),
    TP_OPTION_BOOL("exclude_last_step", sa_config, exclude_last_step, "false",
                   "leave out of <id>.idle the work launched at or after the start of the last "
                   "step (HTA's default: the profiler stops inside it)"),
    TP_OPTION_STRING("step_prefix", sa_config, step_prefix, NULL,
                     "override of the pipeline's iterations: marker for this stage: a name "
                     "prefix of the step markers (exclude_last_step)"),
    TP_OPTION_END};

/*
 * The results.  Activities are kernels, memcpys and memsets; busy is the
 * length of the union of their intervals, span a group's first start to its
 * last end.
 */
/* The figures <id> and <id>.devices share, over a stream or a device (G). */
#define SA_FIGURE_COLS(X, P, G)                                                                \
    X(P, count, I64, "count", "activities on the " G)                                          \
    X(P, sum_dur_us, F64, "us", "their summed duration")                                       \
    X(P, busy_us, F64, "us", "time with at least one of them running (interval union)")        \
    X(P, span_us, F64, "us", "from the " G "'s first start to its last end")                   \
    X(P, idle_us, F64, "us", "span_us - busy_us")
#define SA_STREAM_COLS(X, P)                                                                   \
    X(P, device, I64, NULL, "device")                                                          \
    X(P, stream, I64, NULL, "stream")                                                          \
    SA_FIGURE_COLS(X, P, "stream")                                                             \
    X(P, window_us, F64, "us", "the trace's window (time_window clip, else the trace span), "  \
                               "the same in every row")
TP_COLUMNS(sa_stream, SA_STREAM_COLS);

/* <id>.devices; compat: seed appends seed 001's two multistream columns. */
#define SA_DEV_COLS(X, P)                                                                      \
    X(P, device, I64, NULL, "device")                                                          \
    SA_FIGURE_COLS(X, P, "device")                                                             \
    X(P, concurrent_us, F64, "us", "time with two or more running (touching ones do not count)") \
    X(P, overlap_excess_us, F64, "us", "sum_dur_us - busy_us")                                 \
    X(P, compute_us, F64, "us", "union of the computation activities (HTA's kernel types)")    \
    X(P, non_compute_us, F64, "us", "span_us - compute_us - idle_us")                          \
    X(P, comm_us, F64, "us", "union of the communication activities")                          \
    X(P, comm_comp_overlap_percent, F64, "percent",                                            \
      "percent of comm_us during which computation runs (null without communication)")          \
    X(P, idle_percent, F64, "percent",                                                         \
      "100 x idle_us / span_us (null for an empty span; compat: hta rounds every percent to 2 " \
      "decimals)")                                                                             \
    X(P, compute_percent, F64, "percent", "100 x compute_us / span_us")                        \
    X(P, non_compute_percent, F64, "percent", "100 x non_compute_us / span_us")                \
    X(P, window_us, F64, "us", "the trace's window, the same in every row")                    \
    X(P, host_runtime_us, F64, "us",                                                           \
      "first start to last end of the host events (null without host events)")                \
    X(P, host_idle_us, F64, "us",                                                              \
      "host_runtime_us minus the time within it with an activity running (interval union; "   \
      "null without host events)")
#define SA_DEV_SEED_COLS(X, P)                                                                 \
    SA_DEV_COLS(X, P)                                                                          \
    X(P, seed_idle_us, F64, "us", "seed 001's multistream idle: gaps past the running end, "   \
                                  "over activities with a launch, by start")                   \
    X(P, seed_overlapped_us, F64, "us",                                                        \
      "seed 001's 'overlapped': whole durations of activities starting before the running end")
TP_COLUMNS(sa_dev, SA_DEV_COLS);
TP_COLUMNS(sa_dev_seed, SA_DEV_SEED_COLS);

#define SA_IDLE_COLS(X, P)                                                                     \
    X(P, device, I64, NULL, "device")                                                          \
    X(P, stream, I64, NULL, "stream")                                                          \
    X(P, category, STR, NULL, "host_wait (launched after the previous activity ended), "       \
                              "kernel_wait (gap < consecutive_kernel_delay_us) or other")      \
    X(P, idle_us, F64, "us", "the stream's gaps of that category, summed")                     \
    X(P, idle_ratio, F64, "ratio", "their share of the stream's idle time")
TP_COLUMNS(sa_idle, SA_IDLE_COLS);

#define SA_RESULTS(DEV)                                                                        \
    {TP_RESULT("", "table", sa_stream, "per (device, stream): activity, busy and idle time"), \
     TP_RESULT("devices", "table", DEV,                                                        \
               "per device: busy, concurrency, compute and communication time"),              \
     TP_RESULT("idle", "table", sa_idle,                                                       \
               "per stream and cause: HTA's idle-time breakdown (causes without gaps left out)"), \
     TP_RESULTS_END}
static const tp_result_decl sa_results[] = SA_RESULTS(sa_dev);
static const tp_result_decl sa_results_seed[] = SA_RESULTS(sa_dev_seed);

static const tp_result_decl *sa_results_for(const void *config)
{
    return ((const sa_config *)config)->compat == COMPAT_SEED ? sa_results_seed : sa_results;
}

typedef struct sa {
    tp_stage *st;
    const sa_config *cfg;
    tp_vocab vocab; /* the SDK's vocabulary with the pipeline's additions */
    const tp_cols *c;
    const int32_t *launcher;
    uint32_t *acts; /* activity rows by (device, stream, start, row) */
    size_t nacts;
    uint8_t *klass; /* per name id: tp_kernel_class + 1, 0 = not yet */
    size_t nnames;
    tp_interval *iv; /* scratch: nacts intervals */
    int64_t w0, w1;  /* the trace's window */
    int64_t h0, h1;  /* the host events' extent; h1 < h0 without any */
    int64_t cut;     /* idle breakdown: work launched at or after this is left out */
} sa;

/* A run of acts[first .. first + n): one stream or one device. */
typedef struct sa_run {
    size_t first, n;
} sa_run;

static double us(int64_t ns) { return (double)ns / 1000.0; }

/* Tracks by (device, stream): the order of places. */
static int by_place(const void *a, const void *b, void *ctx)
{
    const tp_cols *c = ctx;
    const tp_track *x = &c->tracks[*(const uint32_t *)a], *y = &c->tracks[*(const uint32_t *)b];
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return (x->stream > y->stream) - (x->stream < y->stream);
}

/* place[track] = rank of its (device, stream) among the tracks (tracks of
 * one place share it); returns the number of places, or 0 on no memory. */
static size_t rank_places(const tp_cols *c, uint32_t *place)
{
    size_t n = c->n_tracks ? c->n_tracks : 1;
    uint32_t *order = tp_malloc(n * sizeof *order);
    if (order == NULL)
        return 0;
    for (uint32_t t = 0; t < c->n_tracks; t++)
        order[t] = t;
    size_t places = 0;
    if (tp_sort(order, c->n_tracks, sizeof *order, by_place, (void *)c) == TP_OK) {
        for (size_t i = 0; i < c->n_tracks; i++) {
            if (i == 0 || by_place(&order[i - 1], &order[i], (void *)c) != 0)
                places++;
            place[order[i]] = (uint32_t)(places - 1);
        }
    }
    tp_free(order);
    return c->n_tracks ? places : 1;
}

/* Orders the activities by (device, stream), then start, then row: a sort
 * by start (a trace is nearly in time order: one merge pass or a few),
 * then a stable counting sort by place.  O(n) for the usual input. */
static int order_by_place(sa *s)
{
    const tp_cols *c = s->c;
    uint32_t *place = tp_malloc((c->n_tracks ? c->n_tracks : 1) * sizeof *place);
    size_t np = place ? rank_places(c, place) : 0;
    size_t *count = np ? tp_calloc(np + 1, sizeof *count) : NULL;
    uint32_t *out = tp_malloc((s->nacts ? s->nacts : 1) * sizeof *out);
    int rc = count && out ? tp_sort_rows_by_key(s->acts, s->nacts, c->ts) : TP_ENOMEM;
    if (rc == TP_OK) {
        for (size_t i = 0; i < s->nacts; i++)
            count[place[c->track[s->acts[i]]] + 1]++;
        for (size_t p = 1; p <= np; p++)
            count[p] += count[p - 1];
        for (size_t i = 0; i < s->nacts; i++)
            out[count[place[c->track[s->acts[i]]]]++] = s->acts[i];
        memcpy(s->acts, out, s->nacts * sizeof *out);
    }
    tp_free(place);
    tp_free(count);
    tp_free(out);
    return rc;
}

static tp_kernel_class class_of(sa *s, uint32_t row)
{
    tp_str name = s->c->name[row];
    tp_kind kind = (tp_kind)s->c->kind[row];
    if (name >= s->nnames)
        return tp_vocab_kernel_class(&s->vocab, kind, tp_str_text(s->st, name));
    if (s->klass[name] == 0)
        s->klass[name] =
            (uint8_t)(tp_vocab_kernel_class(&s->vocab, kind, tp_str_text(s->st, name)) + 1);
    return (tp_kernel_class)(s->klass[name] - 1);
}

/* The intervals of run r whose class is `only` (any when only < 0) into
 * s->iv; returns how many. */
static size_t gather(sa *s, sa_run r, int only)
{
    size_t n = 0;
    for (size_t i = r.first; i < r.first + r.n; i++) {
        uint32_t a = s->acts[i];
        if (only < 0 || (int)class_of(s, a) == only)
            s->iv[n++] = (tp_interval){s->c->ts[a], s->c->ts[a] + s->c->dur[a]};
    }
    return n;
}

/* Common figures of a run: sum of durations, busy (union), span. */
typedef struct sa_fig {
    int64_t sum, busy, first, last;
} sa_fig;

static sa_fig figures(sa *s, sa_run r)
{
    sa_fig f = {0, 0, INT64_MAX, INT64_MIN};
    for (size_t i = r.first; i < r.first + r.n; i++) {
        uint32_t a = s->acts[i];
        f.sum += s->c->dur[a];
        f.first = s->c->ts[a] < f.first ? s->c->ts[a] : f.first;
        int64_t end = s->c->ts[a] + s->c->dur[a];
        f.last = end > f.last ? end : f.last;
    }
    size_t n = gather(s, r, -1);
    f.busy = tp_intervals_length(s->iv, tp_intervals_union(s->iv, n));
    return f;
}

static double pct(const sa *s, double part, double whole)
{
    if (whole <= 0)
        return NAN;
    double p = 100.0 * part / whole;
    return s->cfg->compat == COMPAT_HTA ? round(p * 100.0) / 100.0 : p;
}

/* A double cell: its column and value (NaN: left null). */
typedef struct sa_cell {
    int col;
    double v;
} sa_cell;

static int set_cells(sa *s, tp_result *r, size_t row, const sa_cell *cells, size_t n)
{
    int rc = TP_OK;
    for (size_t i = 0; i < n && rc == TP_OK; i++)
        if (!isnan(cells[i].v))
            rc = tp_result_set_f64(s->st, r, row, cells[i].col, cells[i].v);
    return rc;
}

/* ------------------------------------------------------------ streams */

static int stream_rows(sa *s, const sa_run *runs, size_t nruns)
{
    tp_result *r = tp_result_declared(s->st, NULL);
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(s->st, r, "title", "GPU streams");
    int rc = TP_OK;
    for (size_t k = 0; k < nruns && rc == TP_OK; k++) {
        sa_fig f = figures(s, runs[k]);
        uint32_t a = s->acts[runs[k].first];
        size_t row;
        rc = tp_result_add_row(s->st, r, &row);
        rc = rc ? rc : tp_result_set_i64(s->st, r, row, sa_stream_device, tp_ev_device(s->c, a));
        rc = rc ? rc : tp_result_set_i64(s->st, r, row, sa_stream_stream, tp_ev_stream(s->c, a));
        rc = rc ? rc : tp_result_set_i64(s->st, r, row, sa_stream_count, (int64_t)runs[k].n);
        const sa_cell v[] = {{sa_stream_sum_dur_us, us(f.sum)},
                             {sa_stream_busy_us, us(f.busy)},
                             {sa_stream_span_us, us(f.last - f.first)},
                             {sa_stream_idle_us, us(f.last - f.first - f.busy)},
                             {sa_stream_window_us, us(s->w1 - s->w0)}};
        rc = rc ? rc : set_cells(s, r, row, v, sizeof v / sizeof v[0]);
    }
    return rc;
}

/* ------------------------------------------------------------ devices */

/* Seed 001's multistream rule (ANALYSES.md section 2), exactly: over the
 * activities linked to a launch, by start; "overlapped" adds the whole
 * duration of every event starting at or before the running end. */
static int by_start(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const tp_interval *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

static int seed_multistream(sa *s, sa_run r, int64_t *idle, int64_t *overlapped)
{
    size_t n = 0;
    for (size_t i = r.first; i < r.first + r.n; i++) {
        uint32_t a = s->acts[i];
        if (s->launcher[a] >= 0)
            s->iv[n++] = (tp_interval){s->c->ts[a], s->c->ts[a] + s->c->dur[a]};
    }
    *idle = *overlapped = 0;
    if (n == 0)
        return TP_OK;
    /* by start, as the seed sorts (stable: ties keep their order) */
    if (tp_sort(s->iv, n, sizeof *s->iv, by_start, NULL) != TP_OK)
        return TP_ENOMEM;
    int64_t end = s->iv[0].end;
    for (size_t k = 0; k < n; k++) {
        if (s->iv[k].start > end) {
            *idle += s->iv[k].start - end;
            end = s->iv[k].end;
        } else {
            end = s->iv[k].end > end ? s->iv[k].end : end;
            *overlapped += (s->iv[k].end < end ? s->iv[k].end : end) - s->iv[k].start;
        }
    }
    return TP_OK;
}

/* Communication's overlap with computation: |U_comm ∩ U_comp|, |U_comm|,
 * |U_comp|. */
static int comm_comp(sa *s, sa_run r, int64_t *both, int64_t *comm, int64_t *comp)
{
    size_t nc = gather(s, r, TP_KCLASS_COMPUTATION);
    tp_interval *u = tp_malloc((nc ? nc : 1) * sizeof *u);
    if (u == NULL)
        return TP_ENOMEM;
    memcpy(u, s->iv, nc * sizeof *u);
    nc = tp_intervals_union(u, nc);
    *comp = tp_intervals_length(u, nc);
    size_t nm = gather(s, r, TP_KCLASS_COMMUNICATION);
    nm = tp_intervals_union(s->iv, nm);
    *comm = tp_intervals_length(s->iv, nm);
    *both = tp_intervals_overlap(s->iv, nm, u, nc);
    tp_free(u);
    return TP_OK;
}

/* Idle against the host's runtime [h0, h1): the window minus the part of the
 * run's union inside it, so never negative (activities running past the
 * host's last event, after a trim say, are not in the window). */
static int64_t host_idle(sa *s, sa_run d)
{
    size_t n = tp_intervals_union(s->iv, gather(s, d, -1));
    return (s->h1 - s->h0) - tp_intervals_within(s->iv, n, s->h0, s->h1);
}

static int device_row(sa *s, tp_result *r, sa_run d)
{
    sa_fig f = figures(s, d);
    size_t n = gather(s, d, -1);
    int64_t concurrent = tp_intervals_at_least(s->iv, n, 2), both = 0, comm = 0, comp = 0;
    if (concurrent < 0 || comm_comp(s, d, &both, &comm, &comp) != TP_OK)
        return TP_ENOMEM;
    int64_t span = f.last - f.first, idle = span - f.busy;
    size_t row;
    int rc = tp_result_add_row(s->st, r, &row);
    int64_t device = tp_ev_device(s->c, s->acts[d.first]);
    rc = rc ? rc : tp_result_set_i64(s->st, r, row, sa_dev_device, device);
    rc = rc ? rc : tp_result_set_i64(s->st, r, row, sa_dev_count, (int64_t)d.n);
    int64_t non_compute = span - comp - idle;
    const sa_cell v[] = {
        {sa_dev_sum_dur_us, us(f.sum)},
        {sa_dev_busy_us, us(f.busy)},
        {sa_dev_span_us, us(span)},
        {sa_dev_idle_us, us(idle)},
        {sa_dev_concurrent_us, us(concurrent)},
        {sa_dev_overlap_excess_us, us(f.sum - f.busy)},
        {sa_dev_compute_us, us(comp)},
        {sa_dev_non_compute_us, us(non_compute)},
        {sa_dev_comm_us, us(comm)},
        {sa_dev_comm_comp_overlap_percent, comm > 0 ? pct(s, (double)both, (double)comm) : NAN},
        {sa_dev_idle_percent, pct(s, (double)idle, (double)span)},
        {sa_dev_compute_percent, pct(s, (double)comp, (double)span)},
        {sa_dev_non_compute_percent, pct(s, (double)non_compute, (double)span)},
        {sa_dev_window_us, us(s->w1 - s->w0)}};
    rc = rc ? rc : set_cells(s, r, row, v, sizeof v / sizeof v[0]);
    if (rc == TP_OK && s->h1 >= s->h0) {
        const sa_cell h[] = {{sa_dev_host_runtime_us, us(s->h1 - s->h0)},
                             {sa_dev_host_idle_us, us(host_idle(s, d))}};
        rc = set_cells(s, r, row, h, sizeof h / sizeof h[0]);
    }
    if (rc == TP_OK && s->cfg->compat == COMPAT_SEED) {
        int64_t sidle, sover;
        rc = seed_multistream(s, d, &sidle, &sover);
        const sa_cell m[] = {{sa_dev_seed_seed_idle_us, us(sidle)},
                             {sa_dev_seed_seed_overlapped_us, us(sover)}};
        rc = rc ? rc : set_cells(s, r, row, m, sizeof m / sizeof m[0]);
    }
    return rc;
}

static int device_rows(sa *s, const sa_run *devs, size_t ndevs)
{
    tp_result *r = tp_result_declared(s->st, "devices"); /* the seed columns with compat: seed */
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(s->st, r, "title", "GPU devices: busy, concurrency, compute and communication");
    int rc = TP_OK;
    for (size_t k = 0; k < ndevs && rc == TP_OK; k++)
        rc = device_row(s, r, devs[k]);
    return rc;
}

/* --------------------------------------------------------------- idle */

enum { HOST_WAIT, KERNEL_WAIT, OTHER_WAIT, N_WAITS };
static const char *const wait_names[] = {"host_wait", "kernel_wait", "other"};

/* HTA's rule: gaps between consecutive activities of one stream, in start
 * order, the previous one's end (not the running maximum). */
static void idle_of_stream(sa *s, sa_run r, int64_t *idle)
{
    double delay_ns = s->cfg->kernel_delay_us * 1000.0;
    int have_prev = 0;
    uint32_t prev = 0;
    for (size_t i = r.first; i < r.first + r.n; i++) {
        uint32_t a = s->acts[i];
        int32_t l = s->launcher[a];
        if (l >= 0 && s->c->ts[l] >= s->cut)
            continue; /* launched in the last step: left out (exclude_last_step) */
        int first = !have_prev;
        uint32_t p = prev;
        have_prev = 1;
        prev = a;
        if (first)
            continue;
        int64_t prev_end = s->c->ts[p] + s->c->dur[p], gap = s->c->ts[a] - prev_end;
        if (gap <= 0)
            continue;
        int kind = l >= 0 && s->c->ts[l] > prev_end ? HOST_WAIT
                   : (double)gap < delay_ns        ? KERNEL_WAIT
                                                   : OTHER_WAIT;
        idle[kind] += gap;
    }
}

static int idle_rows(sa *s, const sa_run *runs, size_t nruns)
{
    tp_result *r = tp_result_declared(s->st, "idle");
    int rc = r ? TP_OK : TP_ENOMEM;
    if (rc == TP_OK)
        rc = tp_result_set_meta(s->st, r, "title", "GPU idle time per stream, by cause");
    for (size_t k = 0; k < nruns && rc == TP_OK; k++) {
        int64_t idle[N_WAITS] = {0}, total = 0;
        idle_of_stream(s, runs[k], idle);
        for (int w = 0; w < N_WAITS; w++)
            total += idle[w];
        uint32_t a = s->acts[runs[k].first];
        for (int w = 0; w < N_WAITS && rc == TP_OK; w++) {
            if (idle[w] == 0)
                continue; /* categories without gaps are left out, as HTA does */
            size_t row;
            rc = tp_result_add_row(s->st, r, &row);
            double ratio = (double)idle[w] / (double)total;
            rc = rc ? rc : tp_result_set_i64(s->st, r, row, sa_idle_device, tp_ev_device(s->c, a));
            rc = rc ? rc : tp_result_set_i64(s->st, r, row, sa_idle_stream, tp_ev_stream(s->c, a));
            rc = rc ? rc : tp_result_set_str(s->st, r, row, sa_idle_category, wait_names[w]);
            rc = rc ? rc : tp_result_set_f64(s->st, r, row, sa_idle_idle_us, us(idle[w]));
            rc = rc ? rc : tp_result_set_f64(s->st, r, row, sa_idle_idle_ratio, ratio);
        }
    }
    return rc;
}

/* -------------------------------------------------------------- stage */

/* Cuts acts into runs of one stream (same_device: of one device). */
static size_t cut_runs(const sa *s, sa_run *runs, int same_device_only)
{
    size_t n = 0;
    for (size_t i = 0; i < s->nacts; i++) {
        uint32_t a = s->acts[i];
        int same = n > 0;
        if (same) {
            uint32_t b = s->acts[runs[n - 1].first];
            same = tp_ev_device(s->c, a) == tp_ev_device(s->c, b) &&
                   (same_device_only || tp_ev_stream(s->c, a) == tp_ev_stream(s->c, b));
        }
        if (!same)
            runs[n++] = (sa_run){i, 0};
        runs[n - 1].n++;
    }
    return n;
}

/* The host events' extent, and the start of the last step when its work
 * is to be left out of the idle breakdown. */
static int host_and_cut(sa *s)
{
    const tp_cols *c = s->c;
    s->h0 = INT64_MAX;
    s->h1 = INT64_MIN;
    for (size_t i = 0; i < c->n; i++)
        if (tp_ev_is_host(c, i)) {
            s->h0 = c->ts[i] < s->h0 ? c->ts[i] : s->h0;
            s->h1 = c->ts[i] + c->dur[i] > s->h1 ? c->ts[i] + c->dur[i] : s->h1;
        }
    s->cut = INT64_MAX;
    if (!s->cfg->exclude_last_step)
        return TP_OK;
    tp_iter_override ov = {.prefix = s->cfg->step_prefix, .option = "step_prefix"};
    tp_iter_view v;
    int rc = tp_iter_view_get(s->st, NULL, &ov, &v);
    if (rc == TP_OK && v.n > 0)
        s->cut = v.it[v.n - 1].start;
    tp_iter_view_release(&v);
    return rc;
}

static int analyse(sa *s)
{
    size_t n = s->nacts ? s->nacts : 1;
    sa_run *streams = tp_malloc(n * sizeof *streams), *devs = tp_malloc(n * sizeof *devs);
    int rc = streams && devs ? host_and_cut(s) : TP_ENOMEM;
    if (rc == TP_OK) {
        size_t ns = cut_runs(s, streams, 0), nd = cut_runs(s, devs, 1);
        rc = stream_rows(s, streams, ns);
        rc = rc ? rc : device_rows(s, devs, nd);
        rc = rc ? rc : idle_rows(s, streams, ns);
    }
    tp_free(streams);
    tp_free(devs);
    return rc;
}

static int collect(sa *s)
{
    const tp_cols *c = s->c;
    size_t n = c->n ? c->n : 1;
    s->acts = tp_malloc(n * sizeof *s->acts);
    s->iv = tp_malloc(n * sizeof *s->iv);
    s->nnames = tp_str_count(s->st);
    s->klass = tp_calloc(s->nnames ? s->nnames : 1, 1);
    if (!s->acts || !s->iv || !s->klass)
        return TP_ENOMEM;
    for (size_t i = 0; i < c->n; i++)
        if (tp_ev_is_activity(c, i))
            s->acts[s->nacts++] = (uint32_t)i;
    return order_by_place(s);
}

static int sa_run_stage(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    sa s = {.st = st, .cfg = config, .c = tp_trace_cols(t)};
    tp_hier_view v;
    if (tp_hier_view_require(st, t, &v) != TP_OK)
        return TP_ENOTFOUND;
    s.launcher = v.launcher;
    tp_trace_window(t, &s.w0, &s.w1);
    int rc = tp_vocab_get(st, &s.vocab);
    if (rc == TP_OK)
        rc = collect(&s);
    if (rc == TP_OK)
        rc = analyse(&s);
    tp_free(s.acts);
    tp_free(s.iv);
    tp_free(s.klass);
    tp_vocab_free(&s.vocab);
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc sa_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "streams",
                  "GPU streams and devices: busy, idle, concurrency, compute/communication "
                  "overlap, idle time by cause",
                  sa_options, sa_config, "hierarchy", sa_results, sa_results_for, 0, NULL,
                  sa_run_stage, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("streams", "0.1.0", sa_stages);
