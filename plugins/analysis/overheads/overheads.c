/*
 * overheads: the CPU overheads T1-T5 of ANALYSES.md section 1 (seed 001 and
 * the research behind it), by default over every launch API of the SDK's
 * vocabulary, or in the three definitions that exist (compat, each with
 * its exact list of launch APIs):
 *   compat: none     (default) every launch call: a vocabulary launch API,
 *                    or a runtime call that launched GPU work; T4 over
 *                    every such call of the trace, keyed by its full name;
 *   compat: seed     what seed 001 computes;
 *   compat: ref2021  ml_perf_model 2021 with the constants C, G, KL;
 *   compat: ml2022   get_overheads of 2022 on (keyed by op name here).
 *
 * Ops: a depth-first walk of the hierarchy's host forest (siblings in start
 * order, longest first); a cpu op or annotation that is not a module is an
 * op and is not descended into, every other node is.  Launches: the runtime
 * *leaves* of an op's subtree, in walk order, that the mode keeps.
 *   T1  gap between consecutive ops of the same parent (< 200 us)
 *   T2  op start to its first launch
 *   T3  its last launch's end to the op's end
 *   T4  the launch calls themselves, per API
 *   T5  between launches of one op (or the whole op without launches)
 * Results: <id> (stats per overhead and key), <id>.t1_histogram (seed 001's
 * buckets), <id>.launches (the API calls of each op name's first launching
 * occurrence), <id>.by_api (launch calls per API: how many the definition
 * counts and leaves out; a compat definition leaving linked launches out
 * says so on stderr too).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

#include "overheads_api.h"
#include "overheads_samples.h"
#include "overheads_shapes.h"

typedef struct oh_config {
    int64_t compat;
    double cpu_event_us, gpu_event_us, launch_us; /* C, G, KL; NaN = the mode's */
    double t1_max_gap_us;
    tp_strlist also_modules;
    const char *notebook;
} oh_config;

enum { MODE_NONE, MODE_SEED, MODE_REF2021, MODE_ML2022 };
static const char *const oh_modes[] = {"none", "seed", "ref2021", "ml2022", NULL};

static const tp_option oh_options[] = {
    TP_OPTION_ENUM("compat", oh_config, compat, "none", oh_modes,
                   "which definition: none (every launch API of the vocabulary), seed (seed "
                   "001), ref2021 or ml2022 (ml_perf_model; each with its own launch APIs)"),
    TP_OPTION_FLOAT("cpu_event_overhead_us", oh_config, cpu_event_us, "-1", -1, 1e9,
                    "C, the profiler's cost per CPU event (ref2021 3.8, ml2022 2; -1 = the "
                    "mode's)"),
    TP_OPTION_FLOAT("gpu_event_overhead_us", oh_config, gpu_event_us, "-1", -1, 1e9,
                    "G, per GPU event (4; -1 = the mode's)"),
    TP_OPTION_FLOAT("kernel_launch_us", oh_config, launch_us, "-1", -1, 1e9,
                    "KL, the length of a kernel launch (10; -1 = the mode's)"),
    TP_OPTION_FLOAT("t1_max_gap_us", oh_config, t1_max_gap_us, "200", 0, 1e12,
                    "gaps between ops this long or longer are not T1"),
    TP_OPTION_LIST("also_modules", oh_config, also_modules,
                   "more name prefixes of modules, descended into (e.g. ProfilerStep#: the "
                   "seeds take steps for ops)"),
    TP_OPTION_OUTPUT_FILE("notebook", oh_config, notebook, NULL,
                     "also write the seed's overheads JSON file here ([mean, std] per entry; "
                     "ml2022: [mean, std, count]), which seed 004's predictor reads"),
    TP_OPTION_END};

/* ------------------------------------------------------ the results */

/* <id>: statistics per overhead and key, overheads in order t1..t5, keys
 * by name; compat: ml2022 adds a last column, shapes (its second key). */
#define OH_STATS_COLS(X, P)                                                                        \
    X(P, overhead, STR, NULL, "t1 (gap between ops), t2 (op start to first launch), t3 (last "     \
                              "launch's end to op end), t4 (launch calls), t5 (between launches)") \
    X(P, key, STR, NULL, "the op name (t2, t3, t5) or launch API (t4: the call's name; compat "   \
                         "modes without cuda/hip); null for t1")                                   \
    X(P, count, I64, "count", "samples (ml2022: after its cleaning)")                              \
    X(P, sum_us, F64, "us", "the samples added")                                                   \
    X(P, mean_us, F64, "us", "their mean")                                                         \
    X(P, std_us, F64, "us", "their population standard deviation (null below two)")              \
    X(P, min_us, F64, "us", "the smallest sample")                                                 \
    X(P, max_us, F64, "us", "the largest sample")                                                  \
    X(P, p50_us, F64, "us", "the median (numpy's linear percentile)")                              \
    X(P, p90_us, F64, "us", "the 90th percentile")                                                 \
    X(P, p99_us, F64, "us", "the 99th percentile")
#define OH_STATS_ML2022_COLS(X, P)                                                                 \
    OH_STATS_COLS(X, P)                                                                            \
    X(P, shapes, STR, NULL, "ml2022's second key of t2, t3, t5: str((input_shape, "                \
                            "output_shape)) as Python prints it; null for t1 and t4")
TP_COLUMNS(oh_stats, OH_STATS_COLS);
TP_COLUMNS(oh_stats_ml, OH_STATS_ML2022_COLS);

/* <id>.t1_histogram: seed 001's buckets of the T1 samples. */
#define OH_HIST_COLS(X, P)                                                                         \
    X(P, lo_us, F64, "us", "the bucket's lower edge (included)")                                   \
    X(P, hi_us, F64, "us", "the bucket's upper edge (excluded)")                                   \
    X(P, count, I64, "count", "T1 samples in the bucket")                                          \
    X(P, percent, F64, "percent", "count as a percentage of all T1 samples (those outside the "    \
                                  "buckets too; null without samples)")
TP_COLUMNS(oh_hist, OH_HIST_COLS);

/* <id>.launches: the launch calls of each op name's first launching
 * occurrence, by op name then position. */
#define OH_LAUNCH_COLS(X, P)                                                                       \
    X(P, key, STR, NULL, "the op name")                                                            \
    X(P, position, I64, NULL, "the call's 0-based position among the op's launches")               \
    X(P, api, STR, NULL, "the launch API: the call's name (compat modes: without cuda/hip, "     \
                         "LaunchKernel, MemcpyAsync, ...)")
TP_COLUMNS(oh_launch, OH_LAUNCH_COLS);
TP_COLUMNS(oh_api, OH_API_COLS);

#define OH_RESULTS(STATS)                                                                          \
    TP_RESULT("", "table", STATS, "one row per overhead (t1..t5) and key: statistics of its "      \
                                  "samples"),                                                      \
    TP_RESULT("t1_histogram", "histogram", oh_hist, "one row per bucket of the T1 gaps"),          \
    TP_RESULT("launches", "table", oh_launch, "one row per launch call of each op name's first "   \
                                              "launching occurrence"),                             \
    TP_RESULT("by_api", "table", oh_api, "one row per launch API: its calls, those linked to GPU " \
                                         "work, those T4 counts and the linked ones it leaves "    \
                                         "out"),                                                   \
    TP_RESULTS_END
static const tp_result_decl oh_results[] = {OH_RESULTS(oh_stats)};
static const tp_result_decl oh_results_ml2022[] = {OH_RESULTS(oh_stats_ml)};

static const tp_result_decl *oh_results_for(const void *config)
{
    const oh_config *cfg = config;
    return cfg->compat == MODE_ML2022 ? oh_results_ml2022 : oh_results;
}

/* ------------------------------------------------------------ the modes */

typedef struct oh_mode {
    const char *kept[4];    /* launch APIs kept (names without cuda/hip) */
    const char *ignored[6]; /* runtime leaves that count in y but launch nothing */
    int ignored_in_s;       /* ignored leaves count in S */
    int no_t4[2];           /* indexes into kept giving no T4 and left out of launches */
    double c, g, kl;
} oh_mode;

static const oh_mode modes[] = {
    [MODE_NONE] = {{NULL}, {NULL}, 1, {-1, -1}, 0, 0, 0}, /* launches: the vocabulary's */
    [MODE_SEED] = {{"LaunchKernel", "MemcpyAsync", "StreamSynchronize", NULL},
                   {NULL}, 1, {-1, -1}, 0, 0, 0},
    [MODE_REF2021] = {{"LaunchKernel", "MemcpyAsync", NULL},
                      {"OccupancyMaxActiveBlocksPerMultiprocessorWithFlags", "StreamSynchronize",
                       "PeakAtLastError", NULL},
                      1, {-1, -1}, 3.8, 4, 10},
    [MODE_ML2022] = {{"LaunchKernel", "MemcpyAsync", "StreamSynchronize", NULL},
                     {"OccupancyMaxActiveBlocksPerMultiprocessorWithFlags", "PeakAtLastError",
                      "StreamGetCaptureInfo", "EventQuery", "EventRecord", NULL},
                     0, {2, -1}, 2, 4, 10},
};

/* The API of a runtime call: its name without the "cuda"/"hip" prefix. */
static const char *api_of(const char *name)
{
    if (strncmp(name, "cuda", 4) == 0)
        return name + 4;
    if (strncmp(name, "hip", 3) == 0)
        return name + 3;
    return name;
}

/* Index of api in list (NULL-terminated), or -1. */
static int find_api(const char *const *list, const char *api)
{
    for (int i = 0; list[i]; i++)
        if (strcmp(list[i], api) == 0)
            return i;
    return -1;
}

/* ------------------------------------------------------------- samples */

enum { T1, T2, T3, T4, T5, N_T };
static const char *const t_names[] = {"t1", "t2", "t3", "t4", "t5"};

/* --------------------------------------------------------------- walk */

typedef struct oh {
    tp_stage *st;
    const oh_config *cfg;
    const oh_mode *m;
    int mode;
    double c, g, kl;
    const tp_cols *c_;
    const tp_trace *trace;
    const int32_t *parent, *first_child, *next_sibling, *roots;
    size_t nroots;
    uint8_t *module; /* per name id: 1 module, 2 not, 0 unknown */
    size_t nnames;
    oh_set t[N_T];
    oh_set launches; /* per op name: the API names' ids, as "samples" */
    uint8_t *has_launches; /* per name id: its first launching occurrence recorded */
    int32_t prev_op, prev_parent;
    int have_prev;
    uint32_t *stack; /* scratch for the walks */
    int32_t *op_index; /* attachment overheads.op: the op's DFS position, -1 for other rows */
    int32_t n_ops;
    oh_apis apis; /* the trace's launch calls per API (<id>.by_api) */
    tp_str api_id[4]; /* the mode's kept APIs, interned once */
    tp_str api_raw[4]; /* the first full call name seen per API (notebook keys) */
} oh;

static const char *text(oh *h, tp_str id)
{
    const char *s = tp_str_text(h->st, id);
    return s ? s : "";
}

/* A module: seed 001 looks for these anywhere in the name, the later code
 * at its start (and knows DistributedDataParallel). */
static int is_module(oh *h, tp_str name)
{
    if (name >= h->nnames)
        return 0;
    if (h->module[name] == 0 && h->mode == MODE_NONE) {
        const char *s = text(h, name);
        int found = tp_vocab_is_module(&h->apis.vocab, s);
        for (size_t i = 0; i < h->cfg->also_modules.n && !found; i++) {
            const char *p = h->cfg->also_modules.items[i];
            found = p[0] && strncmp(s, p, strlen(p)) == 0;
        }
        h->module[name] = found ? 1 : 2;
    }
    if (h->module[name] == 0) { /* the compat modes' own marks, as they were */
        static const char *const marks[] = {"##", "__", "module::", "DLRM ",
                                            "DistributedDataParallel"};
        const char *s = text(h, name);
        int found = 0;
        for (size_t i = 0; i < h->cfg->also_modules.n && !found; i++) {
            const char *p = h->cfg->also_modules.items[i];
            found = p[0] && strncmp(s, p, strlen(p)) == 0;
        }
        for (int i = 0; i < 5 && !found; i++) {
            if (h->mode == MODE_SEED)
                found = i < 4 && strstr(s, marks[i]) != NULL;
            else
                found = strncmp(s, marks[i], strlen(marks[i])) == 0;
        }
        h->module[name] = found ? 1 : 2;
    }
    return h->module[name] == 1;
}

static int is_op(oh *h, int32_t r)
{
    uint8_t k = h->c_->kind[r];
    return (k == TP_KIND_CPU_OP || k == TP_KIND_ANNOTATION) && !is_module(h, h->c_->name[r]);
}

static double us(int64_t ns) { return (double)ns / 1000.0; }
static int64_t end_of(const oh *h, int32_t r) { return h->c_->ts[r] + h->c_->dur[r]; }

/* One launch of an op: its row and the nodes walked since the previous. */
typedef struct oh_launch {
    int32_t row;
    int api; /* index in the mode's kept list (compat), 0 otherwise */
    size_t y;
} oh_launch;

/* Is runtime row r a launch the mode keeps (its index in kept, 0 for every
 * launch call by default), and is it ignored (counts in y but launches
 * nothing)? */
static int kept_launch(oh *h, int32_t r, int runtime_leaf, int *ignored)
{
    *ignored = 0;
    if (h->mode == MODE_NONE)
        return oh_apis_is_launch(&h->apis, r) ? 0 : -1;
    const char *api = runtime_leaf ? api_of(text(h, h->c_->name[r])) : NULL;
    int kept = api ? find_api(h->m->kept, api) : -1;
    *ignored = api && kept < 0 && find_api(h->m->ignored, api) >= 0;
    return kept;
}

/* Walks op's subtree (pre-order, op excluded), collecting its kept
 * launches and y counts; *s_count = the subtree's node count with op. */
static size_t walk_op(oh *h, int32_t op, oh_launch *out, size_t *s_count)
{
    const tp_cols *c = h->c_;
    size_t sp = 0, n = 0, y = 0, s = 1;
    for (int32_t k = h->first_child[op]; k >= 0; k = h->next_sibling[k])
        sp++;
    /* push children in reverse so the first child is walked first */
    size_t at = sp;
    for (int32_t k = h->first_child[op]; k >= 0; k = h->next_sibling[k])
        h->stack[--at] = (uint32_t)k;
    while (sp > 0) {
        int32_t r = (int32_t)h->stack[--sp];
        int leaf = h->first_child[r] < 0;
        int runtime_leaf = leaf && c->kind[r] == TP_KIND_RUNTIME;
        int ignored;
        int kept = kept_launch(h, r, runtime_leaf, &ignored);
        if (kept >= 0) {
            out[n++] = (oh_launch){r, kept, y};
            y = 0;
        } else if (!runtime_leaf || ignored) {
            y++; /* leaves neither kept nor ignored are not counted */
        }
        s += !ignored || h->m->ignored_in_s;
        if (kept >= 0 && h->mode == MODE_NONE)
            continue; /* the calls inside a launch call are part of it */
        size_t before = sp;
        for (int32_t k = h->first_child[r]; k >= 0; k = h->next_sibling[k])
            sp++;
        at = sp;
        for (int32_t k = h->first_child[r]; k >= 0; k = h->next_sibling[k])
            h->stack[--at] = (uint32_t)k;
        (void)before;
    }
    *s_count = s;
    return n;
}

/* ------------------------------------------------ ml2022's shape keys */

/* ml2022 keys T2, T3 and T5 by op name, then str((input_shape,
 * output_shape)): the list key is "name<US>shapes", interned. */
static int op_key(oh *h, int32_t op, tp_str *key, tp_str *shapes)
{
    *key = h->c_->name[op];
    *shapes = 0;
    if (h->mode != MODE_ML2022)
        return TP_OK;
    size_t alen = 0, at = 0;
    const char *args = tp_trace_args(h->trace, (size_t)op, &alen);
    char buf[2048];
    const char *name = text(h, *key);
    size_t nlen = strlen(name);
    if (nlen + 64 > sizeof buf)
        nlen = sizeof buf - 64;
    memcpy(buf, name, nlen);
    buf[nlen] = '\x1f';
    at = nlen + 1;
    buf[at++] = '(';
    oh_shape_text(args, alen, "Input Dims", buf, sizeof buf - 4, &at);
    buf[at++] = ',';
    buf[at++] = ' ';
    oh_shape_text(args, alen, "Output Dims", buf, sizeof buf - 2, &at);
    buf[at++] = ')';
    *shapes = tp_intern(h->st, buf + nlen + 1, at - nlen - 1);
    *key = tp_intern(h->st, buf, at);
    return *key == TP_STR_ERROR || *shapes == TP_STR_ERROR ? TP_ENOMEM : TP_OK;
}

/* Pushes x for op under its key (with ml2022's shapes). */
static int push_op(oh *h, int t, int32_t op, double x)
{
    tp_str key, shapes;
    int rc = op_key(h, op, &key, &shapes);
    if (rc != TP_OK)
        return rc;
    oh_list *l = oh_list_of(&h->t[t], key);
    if (l == NULL)
        return TP_ENOMEM;
    l->name = h->c_->name[op];
    l->shapes = shapes;
    return oh_push(&h->t[t], key, x);
}

static int gives_t4(const oh *h, int api)
{
    return h->mode == MODE_NONE || (api != h->m->no_t4[0] && api != h->m->no_t4[1]);
}

/* The API a launch is listed under: its call's name by default, the
 * mode's name without cuda/hip under compat. */
static tp_str launch_key(const oh *h, const oh_launch *l)
{
    return h->mode == MODE_NONE ? h->c_->name[l->row] : h->api_id[l->api];
}

/* T4 by default: every launch call of the trace, wherever it is. */
static int t4_every_call(oh *h)
{
    int rc = TP_OK;
    for (size_t i = 0; i < h->apis.ncalls && rc == TP_OK; i++) {
        int32_t r = (int32_t)h->apis.calls[i];
        oh_apis_counted(&h->apis, r);
        rc = oh_push(&h->t[T4], h->c_->name[r], us(h->c_->dur[r]));
    }
    return rc;
}

static int op_with_launches(oh *h, int32_t op, const oh_launch *l, size_t n, size_t s)
{
    const tp_cols *c = h->c_;
    tp_str name = c->name[op];
    double c_ = h->c;
    int rc = push_op(h, T2, op, us(c->ts[l[0].row] - c->ts[op]) - (double)l[0].y * c_);
    size_t ysum = 0;
    for (size_t i = 0; i < n; i++)
        ysum += l[i].y + 1;
    double t3 = us(end_of(h, op) - end_of(h, l[n - 1].row)) - (double)(s - ysum) * c_;
    if (h->mode == MODE_ML2022 && t3 < 0)
        t3 = 0;
    rc = rc ? rc : push_op(h, T3, op, t3);
    if (n == 1)
        rc = rc ? rc : push_op(h, T5, op, 0);
    for (size_t i = 1; i < n && rc == TP_OK; i++)
        rc = push_op(h, T5, op,
                     us(c->ts[l[i].row] - end_of(h, l[i - 1].row)) - (double)l[i].y * c_);
    for (size_t i = 0; i < n && rc == TP_OK && h->mode != MODE_NONE; i++) {
        if (!gives_t4(h, l[i].api))
            continue;
        oh_apis_counted(&h->apis, l[i].row);
        double x = h->mode == MODE_SEED ? us(c->dur[l[i].row]) : h->kl - h->c - h->g;
        if (h->api_raw[l[i].api] == 0)
            h->api_raw[l[i].api] = c->name[l[i].row];
        rc = oh_push(&h->t[T4], h->api_id[l[i].api], x);
    }
    if (rc == TP_OK && name < h->nnames && !h->has_launches[name]) {
        h->has_launches[name] = 1; /* the first occurrence with launches names them */
        for (size_t i = 0; i < n && rc == TP_OK; i++)
            if (gives_t4(h, l[i].api))
                rc = oh_push(&h->launches, name, (double)launch_key(h, &l[i]));
    }
    return rc;
}

static int visit_op(oh *h, int32_t op, oh_launch *l)
{
    const tp_cols *c = h->c_;
    size_t s = 0, n = walk_op(h, op, l, &s);
    int skip = h->mode > MODE_SEED && n == 0 && strcmp(text(h, c->name[op]), "aten::to") == 0;
    if (skip)
        return TP_OK; /* ref2021 and ml2022 leave launchless aten::to out, T1 too */
    h->op_index[op] = h->n_ops++;
    int rc = n > 0 ? op_with_launches(h, op, l, n, s)
                   : push_op(h, T5, op, us(c->dur[op]) - (double)s * h->c);
    int32_t parent = h->parent[op];
    if (rc == TP_OK && h->have_prev && parent == h->prev_parent) {
        double gap = us(c->ts[op] - end_of(h, h->prev_op));
        int take = gap < h->cfg->t1_max_gap_us && (h->mode != MODE_ML2022 || gap > h->c);
        if (take)
            rc = oh_push(&h->t[T1], 0, gap - h->c);
    }
    h->prev_op = op;
    h->prev_parent = parent;
    h->have_prev = 1;
    return rc;
}

/* The forest in pre-order; ops are visited, not descended into. */
static int walk_forest(oh *h)
{
    const tp_cols *c = h->c_;
    size_t n = c->n ? c->n : 1;
    uint32_t *todo = tp_malloc(n * sizeof *todo);
    oh_launch *l = tp_malloc(n * sizeof *l);
    h->stack = tp_malloc(n * sizeof *h->stack);
    int rc = todo && l && h->stack ? TP_OK : TP_ENOMEM;
    size_t sp = 0;
    for (size_t i = h->nroots; i-- > 0 && rc == TP_OK;)
        todo[sp++] = (uint32_t)h->roots[i];
    while (sp > 0 && rc == TP_OK) {
        int32_t r = (int32_t)todo[--sp];
        if (is_op(h, r)) {
            rc = visit_op(h, r, l);
            continue;
        }
        size_t at = sp;
        for (int32_t k = h->first_child[r]; k >= 0; k = h->next_sibling[k])
            sp++;
        size_t end = sp;
        for (int32_t k = h->first_child[r]; k >= 0; k = h->next_sibling[k])
            todo[--end] = (uint32_t)k;
        (void)at;
    }
    tp_free(todo);
    tp_free(l);
    tp_free(h->stack);
    h->stack = NULL;
    return rc;
}

/* ----------------------------------------------------------- outputs */

/* ml2022's post-processing of a list: negatives to 0, then only the values
 * within 1.5 IQR of the quartiles (numpy's quartiles). */
static void ml2022_clean(oh_list *l)
{
    if (l->n == 0)
        return;
    for (size_t i = 0; i < l->n; i++)
        l->v[i] = l->v[i] < 0 ? 0 : l->v[i];
    tp_stats s;
    double *sorted = tp_malloc(l->n * sizeof *sorted);
    if (sorted == NULL)
        return;
    memcpy(sorted, l->v, l->n * sizeof *sorted);
    tp_stats_of(sorted, l->n, &s);
    double q1 = tp_percentile_sorted(sorted, l->n, 25), q3 = tp_percentile_sorted(sorted, l->n, 75);
    double lo = q1 - 1.5 * (q3 - q1), hi = q3 + 1.5 * (q3 - q1);
    tp_free(sorted);
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++)
        if (l->v[i] >= lo && l->v[i] <= hi)
            l->v[k++] = l->v[i];
    l->n = k;
}

static int stats_row_plain(oh *h, tp_result *r, const char *overhead, const char *key, oh_list *l)
{
    tp_stats s;
    double *v = tp_malloc((l->n ? l->n : 1) * sizeof *v);
    if (v == NULL)
        return TP_ENOMEM;
    memcpy(v, l->v, l->n * sizeof *v);
    int rc = tp_stats_of(v, l->n, &s);
    tp_free(v);
    size_t row;
    rc = rc ? rc : tp_result_add_row(h->st, r, &row);
    rc = rc ? rc : tp_result_set_str(h->st, r, row, oh_stats_overhead, overhead);
    if (rc == TP_OK && key)
        rc = tp_result_set_str(h->st, r, row, oh_stats_key, key);
    rc = rc ? rc : tp_result_set_i64(h->st, r, row, oh_stats_count, (int64_t)s.count);
    const double x[] = {s.sum, s.mean, s.std, s.min, s.max, s.p50, s.p90, s.p99};
    static const int col[] = {oh_stats_sum_us, oh_stats_mean_us, oh_stats_std_us,
                              oh_stats_min_us, oh_stats_max_us, oh_stats_p50_us,
                              oh_stats_p90_us, oh_stats_p99_us};
    for (int i = 0; i < 8 && rc == TP_OK; i++)
        if (!isnan(x[i]))
            rc = tp_result_set_f64(h->st, r, row, col[i], x[i]);
    return rc;
}


static int stats_row(oh *h, tp_result *r, const char *overhead, const char *key, oh_list *l)
{
    if (h->mode == MODE_ML2022 && l->shapes != 0) {
        size_t row0 = tp_result_rows(r); /* the row added below */
        int rc0 = stats_row_plain(h, r, overhead, key, l);
        return rc0 ? rc0
                   : tp_result_set_str(h->st, r, row0, oh_stats_ml_shapes, text(h, l->shapes));
    }
    return stats_row_plain(h, r, overhead, key, l);
}

static int by_key_text(const void *a, const void *b, void *ctx)
{
    oh *h = ctx;
    const oh_list *x = a, *y = b;
    return strcmp(text(h, x->key), text(h, y->key));
}

static int write_stats(oh *h)
{
    tp_result *r = tp_result_declared(h->st, NULL); /* with ml2022: shapes */
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(h->st, r, "title", "CPU overheads T1-T5");
    tp_result_set_meta(h->st, r, "compat", oh_modes[h->mode]);
    int rc = TP_OK;
    for (int t = 0; t < N_T && rc == TP_OK; t++) {
        oh_set *s = &h->t[t];
        rc = tp_sort(s->l, s->n, sizeof *s->l, by_key_text, h);
        for (size_t i = 0; i < s->n && rc == TP_OK; i++) {
            if (h->mode == MODE_ML2022 && t != T4)
                ml2022_clean(&s->l[i]);
            rc = stats_row(h, r, t_names[t], t == T1 ? NULL : text(h, s->l[i].name), &s->l[i]);
        }
    }
    return rc;
}

/* Seed 001's T1 histogram: a sample goes to the first bucket lo <= x < hi;
 * samples outside [0, 100000) land nowhere but count in the denominator. */
static int write_histogram(oh *h)
{
    static const double edges[] = {0, 5, 10, 15, 20, 25, 30, 40, 50, 60, 70, 80, 90, 100, 200,
                                   100000};
    enum { NB = sizeof edges / sizeof edges[0] - 1 };
    tp_result *r = tp_result_declared(h->st, "t1_histogram");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(h->st, r, "title", "T1: gaps between ops");
    const oh_list *l = h->t[T1].n ? &h->t[T1].l[0] : NULL;
    size_t total = l ? l->n : 0;
    int rc = TP_OK;
    for (int b = 0; b < NB && rc == TP_OK; b++) {
        size_t count = 0;
        for (size_t i = 0; i < total; i++)
            count += l->v[i] >= edges[b] && l->v[i] < edges[b + 1];
        size_t row;
        rc = tp_result_add_row(h->st, r, &row);
        rc = rc ? rc : tp_result_set_f64(h->st, r, row, oh_hist_lo_us, edges[b]);
        rc = rc ? rc : tp_result_set_f64(h->st, r, row, oh_hist_hi_us, edges[b + 1]);
        rc = rc ? rc : tp_result_set_i64(h->st, r, row, oh_hist_count, (int64_t)count);
        if (rc == TP_OK && total > 0)
            rc = tp_result_set_f64(h->st, r, row, oh_hist_percent,
                                   (double)count / (double)total * 100.0);
    }
    return rc;
}

static int write_launches(oh *h)
{
    tp_result *r = tp_result_declared(h->st, "launches");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(h->st, r, "title", "Launch calls of each op");
    int rc = tp_sort(h->launches.l, h->launches.n, sizeof *h->launches.l, by_key_text, h);
    for (size_t i = 0; i < h->launches.n && rc == TP_OK; i++) {
        const oh_list *l = &h->launches.l[i];
        for (size_t k = 0; k < l->n && rc == TP_OK; k++) {
            size_t row;
            rc = tp_result_add_row(h->st, r, &row);
            rc = rc ? rc : tp_result_set_str(h->st, r, row, oh_launch_key, text(h, l->key));
            rc = rc ? rc : tp_result_set_i64(h->st, r, row, oh_launch_position, (int64_t)k);
            rc = rc ? rc
                    : tp_result_set_str(h->st, r, row, oh_launch_api, text(h, (tp_str)l->v[k]));
        }
    }
    return rc;
}

/* ------------------------------------------------------- the notebook */

/* [mean, std] of a list (ml2022: [mean, std, count]), as the seed dumps it. */
static json_t *mean_std(const oh *h, const oh_list *l)
{
    double sum = 0, ss = 0;
    for (size_t i = 0; i < l->n; i++)
        sum += l->v[i];
    double mean = l->n ? sum / (double)l->n : 0;
    for (size_t i = 0; i < l->n; i++)
        ss += (l->v[i] - mean) * (l->v[i] - mean);
    json_t *a = json_array();
    json_array_append_new(a, json_real(mean));
    json_array_append_new(a, json_real(l->n ? sqrt(ss / (double)l->n) : 0));
    if (h->mode == MODE_ML2022)
        json_array_append_new(a, json_integer((json_int_t)l->n));
    return a;
}

/* The name a notebook keys a T4 entry by: the full call name (cudaLaunchKernel). */
static const char *t4_key(oh *h, tp_str api)
{
    for (int i = 0; h->m->kept[i]; i++)
        if (h->api_id[i] == api && h->api_raw[i] != 0)
            return text(h, h->api_raw[i]);
    return text(h, api);
}

static int write_notebook(oh *h)
{
    json_t *doc = json_object();
    if (doc == NULL)
        return TP_ENOMEM;
    json_object_set_new(doc, "t1", h->t[T1].n ? mean_std(h, &h->t[T1].l[0]) : json_array());
    for (int t = T2; t <= T5; t++) {
        json_t *o = json_object();
        for (size_t i = 0; i < h->t[t].n; i++) {
            const oh_list *l = &h->t[t].l[i];
            if (l->n == 0)
                continue;
            if (l->shapes != 0) { /* ml2022: {name: {shapes: [mean, std, count]}} */
                json_t *by = json_object_get(o, text(h, l->name));
                if (by == NULL)
                    json_object_set_new(o, text(h, l->name), by = json_object());
                json_object_set_new(by, text(h, l->shapes), mean_std(h, l));
            } else {
                json_object_set_new(o, t == T4 ? t4_key(h, l->key) : text(h, l->key),
                                    mean_std(h, l));
            }
        }
        json_object_set_new(doc, t_names[t], o);
    }
    json_t *launches = json_object();
    for (size_t i = 0; i < h->launches.n; i++) {
        const oh_list *l = &h->launches.l[i];
        json_t *a = json_array();
        for (size_t k = 0; k < l->n; k++)
            json_array_append_new(a, json_string(t4_key(h, (tp_str)l->v[k])));
        json_object_set_new(launches, text(h, l->key), a);
    }
    json_object_set_new(doc, "launches", launches);
    FILE *f = tp_out_open(h->st, h->cfg->notebook);
    if (f == NULL) {
        json_decref(doc);
        return TP_EIO;
    }
    int rc = json_dumpf(doc, f, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17)) == 0
                 ? TP_OK
                 : TP_EIO;
    json_decref(doc);
    return tp_out_close(h->st, f, h->cfg->notebook, rc);
}

static double constant(double given, double mode_default) { return given >= 0 ? given : mode_default; }

static int oh_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const oh_config *cfg = config;
    const tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    oh h = {.st = st, .cfg = cfg, .mode = (int)cfg->compat, .c_ = tp_trace_cols(t), .trace = t};
    h.m = &modes[h.mode];
    h.c = constant(cfg->cpu_event_us, h.m->c);
    h.g = constant(cfg->gpu_event_us, h.m->g);
    h.kl = constant(cfg->launch_us, h.m->kl);
    if (h.mode <= MODE_SEED)
        h.c = 0; /* the seed, and the default, subtract nothing */
    tp_hier_view v;
    if (tp_hier_view_require(st, t, &v) != TP_OK)
        return TP_ENOTFOUND;
    h.parent = v.parent;
    h.first_child = v.first_child;
    h.next_sibling = v.next_sibling;
    h.roots = v.roots;
    h.nroots = v.nroots;
    for (int i = 0; h.m->kept[i]; i++)
        if ((h.api_id[i] = tp_intern(st, h.m->kept[i], strlen(h.m->kept[i]))) == TP_STR_ERROR)
            return tp_fail(st, TP_ENOMEM, "out of memory");
    h.nnames = tp_str_count(st);
    /* the ops in walk order, for predict's end-to-end simulation (section 6) */
    h.op_index = tp_trace_attach(st, (tp_trace *)t, "overheads.op", TP_COL_I32, h.c_->n);
    if (h.op_index == NULL && h.c_->n > 0)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    for (size_t i = 0; i < h.c_->n; i++)
        h.op_index[i] = -1;
    h.module = tp_calloc(h.nnames ? h.nnames : 1, 1);
    h.has_launches = tp_calloc(h.nnames ? h.nnames : 1, 1);
    int rc = h.module && h.has_launches ? TP_OK : TP_ENOMEM;
    rc = rc ? rc : oh_apis_find(&h.apis, st, h.c_, v.launcher, v.parent);
    rc = rc ? rc : walk_forest(&h);
    if (rc == TP_OK && h.mode == MODE_NONE)
        rc = t4_every_call(&h);
    if (rc == TP_OK)
        rc = write_histogram(&h); /* before ml2022 cleans T1 */
    if (rc == TP_OK)
        rc = write_stats(&h);
    if (rc == TP_OK)
        rc = write_launches(&h);
    if (rc == TP_OK)
        rc = oh_apis_write(&h.apis, oh_modes[h.mode], h.mode != MODE_NONE);
    if (rc == TP_OK && cfg->notebook) /* after write_stats: ml2022's lists are cleaned */
        rc = write_notebook(&h);
    for (int i = 0; i < N_T; i++)
        oh_set_free(&h.t[i]);
    oh_set_free(&h.launches);
    tp_free(h.module);
    tp_free(h.has_launches);
    oh_apis_free(&h.apis);
    if (rc == TP_EIO)
        return rc; /* reported by the output helpers */
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc oh_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "overheads",
                  "CPU overheads T1-T5 per op and launch API (seed 001, ref2021, ml2022)",
                  oh_options, oh_config, "hierarchy", oh_results, oh_results_for, 0, NULL, oh_run,
                  NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("overheads", "0.1.0", oh_stages);
