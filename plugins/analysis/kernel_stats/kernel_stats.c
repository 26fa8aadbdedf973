/*
 * kernel_stats: the top kernels (issue 13, ANALYSES.md section 3).
 *
 * Over the GPU activities of a trace (kernels, memcpys, memsets):
 *   <id>             per name: count and the SDK's statistics of the
 *                    durations (tp_stats_of) and the share of all device
 *                    time, by total time descending;
 *   <id>.ops         per (op, kernel): the op is the outermost cpu op above
 *                    the launch, below modules and steps (tp_outermost_ops);
 *   <id>.classes     per kernel class: HTA's kernel types, or seed 001's
 *                    legend (classes: seed);
 *   <id>.iterations  per name: mean time per iteration and its coefficient
 *                    of variation across iterations (seed 003).
 * A kernel belongs to the iteration its launch lies in (its own start when
 * it has no launch in the trace).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

#include <tracepipe/tp_sdk_iter.h>
#include <tracepipe/tp_sdk_regex.h>

typedef struct ks_config {
    int short_names;
    int64_t classes;
    tp_strlist module_prefixes;
    const char *step_prefix;
    int64_t top;
    tp_strlist class_map;
} ks_config;

enum { CLASSES_HTA, CLASSES_SEED };
static const char *const ks_class_modes[] = {"hta", "seed", NULL};

/* module_prefixes when the pipeline gives none: the vocabulary's modules,
 * and the iteration markers are never ops either (docs/plugins/kernel_stats.md) */

static const tp_option ks_options[] = {
    TP_OPTION_BOOL("short_names", ks_config, short_names, "false",
                   "shorten kernel names: cut at '<', keep the part after the last '::'"),
    TP_OPTION_ENUM("classes", ks_config, classes, "hta", ks_class_modes,
                   "kernel classes of <id>.classes: HTA's kernel types or seed 001's legend"),
    TP_OPTION_LIST("module_prefixes", ks_config, module_prefixes,
                   "name prefixes of modules and steps, never the op of a kernel (default: the "
                   "vocabulary's modules and ProfilerStep#)"),
    TP_OPTION_STRING("step_prefix", ks_config, step_prefix, NULL,
                     "override of the pipeline's iterations: marker for this stage: a name "
                     "prefix of the iteration markers (<id>.iterations)"),
    TP_OPTION_INT("top", ks_config, top, "0", 0, 1e9,
                  "kernels kept in <id> and <id>.ops, the rest folded into Others (0 = all)"),
    TP_OPTION_LIST("class_map", ks_config, class_map,
                   "your own classes, CLASS=REGEX each, the first match wins, else 'other' "
                   "(replaces `classes`)"),
    TP_OPTION_END};

/*
 * The results.  Durations are the activities' (kernels, memcpys, memsets)
 * in us; time_percent is of the summed duration of all of them.
 */
#define KS_MAIN_COLS(X, P)                                                                     \
    X(P, name, STR, NULL, "activity name (short with short_names); Others: those past top")    \
    X(P, count, I64, "count", "activities of that name")                                       \
    X(P, sum_us, F64, "us", "their summed duration")                                           \
    X(P, mean_us, F64, "us", "mean duration (null in Others, as every statistic)")             \
    X(P, std_us, F64, "us", "population standard deviation (null below two activities)")      \
    X(P, std_sample_us, F64, "us", "sample standard deviation (null below two activities)")   \
    X(P, min_us, F64, "us", "shortest duration")                                               \
    X(P, max_us, F64, "us", "longest duration")                                                \
    X(P, p50_us, F64, "us", "median duration (numpy's linear interpolation)")                  \
    X(P, p90_us, F64, "us", "90th percentile of the durations")                                \
    X(P, p99_us, F64, "us", "99th percentile of the durations")                                \
    X(P, time_percent, F64, "percent", "sum_us as a share of all GPU activity time")
TP_COLUMNS(ks_main, KS_MAIN_COLS);

#define KS_OPS_COLS(X, P)                                                                      \
    X(P, op, STR, NULL, "outermost cpu op above the launch, below modules and steps (a graph's "\
                        "kernels: the op that captured them, else graph <id>); "               \
                        "(no op) without one; Others: the pairs past top")                     \
    X(P, name, STR, NULL, "activity name (short with short_names); null in Others")            \
    X(P, count, I64, "count", "activities of that name launched under that op")                \
    X(P, sum_us, F64, "us", "their summed duration")                                           \
    X(P, mean_us, F64, "us", "their mean duration (null in Others)")                           \
    X(P, time_percent, F64, "percent", "sum_us as a share of all GPU activity time")
TP_COLUMNS(ks_ops, KS_OPS_COLS);

#define KS_CLASS_COLS(X, P)                                                                    \
    X(P, kernel_class, STR, NULL,                                                              \
      "class: HTA's kernel type, seed 001's legend (classes: seed) or a class_map class")      \
    X(P, count, I64, "count", "activities of the class")                                       \
    X(P, sum_us, F64, "us", "their summed duration")                                           \
    X(P, time_percent, F64, "percent", "sum_us as a share of all GPU activity time")
TP_COLUMNS(ks_class, KS_CLASS_COLS);

#define KS_ITER_COLS(X, P)                                                                     \
    X(P, name, STR, NULL, "activity name (short with short_names)")                            \
    X(P, n_iterations, I64, "count", "iterations counted (those skip_first/skip_last keep)")   \
    X(P, mean_us, F64, "us", "the name's time summed per iteration, mean over the iterations") \
    X(P, cv_percent, F64, "percent",                                                           \
      "coefficient of variation of that time (population std / mean x 100; 0 if mean is 0; "  \
      "null below two iterations)")
TP_COLUMNS(ks_iter, KS_ITER_COLS);

#define KS_GRAPH_COLS(X, P)                                                                    \
    X(P, graph, I64, NULL, "the graph's id: the trace's graph id, else the ordinal of its "     \
                           "first replay (its kernels' pseudo-op is graph <id>)")               \
    X(P, replays, I64, "count", "graph launches of the graph")                                 \
    X(P, kernels_per_replay, F64, "count", "its activities per replay (mean)")                 \
    X(P, count, I64, "count", "its activities over all replays")                               \
    X(P, sum_us, F64, "us", "their summed duration (GPU time)")                                \
    X(P, time_percent, F64, "percent", "sum_us as a share of all GPU activity time")
TP_COLUMNS(ks_graph, KS_GRAPH_COLS);

static const tp_result_decl ks_results[] = {
    TP_RESULT("", "table", ks_main, "per activity name, by sum_us descending"),
    TP_RESULT("ops", "table", ks_ops, "per (op, activity name), by sum_us descending"),
    TP_RESULT("classes", "table", ks_class, "per kernel class, by sum_us descending"),
    TP_RESULT("iterations", "table", ks_iter,
              "per activity name, in the main result's order: its time per iteration (no rows "
              "without iterations)"),
    TP_RESULT("graphs", "table", ks_graph,
              "per CUDA/HIP graph replayed by graph launches, in order of first replay (no rows "
              "without graph launches)"),
    TP_RESULTS_END};

/* The compiled class_map: a class name and its regex per entry. */
typedef struct ks_state {
    size_t n;
    char **name;
    pcre2_code **re;
    pcre2_match_data *md;
} ks_state;

static void ks_destroy(tp_stage *st, void *state)
{
    (void)st;
    ks_state *s = state;
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->n; i++) {
        tp_free(s->name[i]);
        pcre2_code_free(s->re[i]);
    }
    tp_free(s->name);
    tp_free(s->re);
    pcre2_match_data_free(s->md);
    tp_free(s);
}

static int ks_init(tp_stage *st, const void *config, void **state)
{
    const ks_config *cfg = config;
    ks_state *s = tp_calloc(1, sizeof *s);
    if (s == NULL)
        return TP_ENOMEM;
    *state = s;
    size_t n = cfg->class_map.n;
    s->name = tp_calloc(n ? n : 1, sizeof *s->name);
    s->re = tp_calloc(n ? n : 1, sizeof *s->re);
    s->md = pcre2_match_data_create(4, NULL);
    if (!s->name || !s->re || !s->md)
        return TP_ENOMEM;
    for (size_t i = 0; i < n; i++, s->n++) {
        const char *e = cfg->class_map.items[i], *eq = strchr(e, '=');
        if (eq == NULL || eq == e || eq[1] == '\0')
            return tp_fail(st, TP_EINVAL, "class_map[%zu]: '%s' is not CLASS=REGEX", i, e);
        if ((s->name[i] = tp_malloc((size_t)(eq - e) + 1)) == NULL)
            return TP_ENOMEM;
        memcpy(s->name[i], e, (size_t)(eq - e));
        s->name[i][eq - e] = '\0';
        int err;
        PCRE2_SIZE off;
        if ((s->re[i] = tp_pyre_compile(eq + 1, 0, &err, &off)) == NULL) {
            PCRE2_UCHAR text[256];
            pcre2_get_error_message(err, text, sizeof text);
            return tp_fail(st, TP_EINVAL, "class_map[%zu]: bad regex '%s': %s at offset %zu", i,
                           eq + 1, (const char *)text, (size_t)off);
        }
    }
    return TP_OK;
}

typedef struct ks {
    tp_stage *st;
    const ks_config *cfg;
    const ks_state *map;
    tp_vocab vocab; /* the SDK's vocabulary with the pipeline's additions */
    const tp_cols *c;
    tp_hier_cview hv; /* launches by the compact view (no wide arrays) */
    tp_graphs graphs; /* the graph replays (tp_sdk_graphs.h) */
    uint32_t *acts; /* activity rows */
    size_t nacts;
    uint32_t *lab;  /* per activity (aligned with acts): its label's string id (per_name) */
    uint32_t *op;   /* per activity: its op's name id + 1, 0 for none (op_keys) */
    int32_t *iter;  /* per activity (aligned with acts): its iteration, or NULL */
    size_t niters;
    tp_str *label;  /* per name id: the kernel's label (short name), 0 = not yet */
    size_t nnames;
    double total_us; /* all device time */
    double *vals;   /* scratch: nacts durations */
} ks;

/* A group of activities sharing a key: rows acts[first .. first + n). */
typedef struct ks_group {
    size_t first, n;
    double sum_us;
    const char *name, *name2;
} ks_group;

static double dur_us(const ks *k, uint32_t row) { return (double)k->c->dur[row] / 1000.0; }

/* The kernel's label: its name, or its short name. */
static tp_str kernel_label(ks *k, uint32_t row)
{
    tp_str name = k->c->name[row];
    return k->cfg->short_names ? tp_kernel_short_id(k->st, name, k->label, k->nnames) : name;
}

/* *a (n cells, or NULL) replaced by its copy in the order of a stable
 * counting sort by `by`: cell i goes to next[by[i]]++, next starting as
 * start (bound cells); 0, or -1 out of memory (*a kept). */
static int scatter(uint32_t **a, const uint32_t *by, const uint32_t *start, uint32_t *next,
                   size_t bound, size_t n)
{
    uint32_t *to = *a ? tp_malloc((n ? n : 1) * sizeof *to) : NULL;
    if (*a != NULL && to == NULL)
        return -1;
    memcpy(next, start, bound * sizeof *next);
    for (size_t i = 0; to && i < n; i++)
        to[next[by[i]]++] = (*a)[i];
    tp_free(*a);
    *a = to;
    return 0;
}

/* Stable counting sort of the activities (acts, lab, op and iter together)
 * by *by (lab or op), values in [0, bound): the keys are string ids, so
 * this is O(n + bound) where a comparison sort cost a third of the analysis
 * on a 1 GB trace; keys travel with the rows so no pass reads a row-indexed
 * table at random.  One array is moved at a time, the key sorted by last:
 * a copy of one 4-byte array at most beside them. */
static int counting_sort(ks *k, uint32_t **by, size_t bound)
{
    size_t n = k->nacts;
    /* 4-byte counts: the activities are uint32 row numbers, fewer than 2^32
     * (the counts are sized by the string pool, which may be far larger) */
    uint32_t *start = n < UINT32_MAX ? tp_calloc(bound + 1, sizeof *start) : NULL;
    uint32_t *next = start ? tp_malloc((bound + 1) * sizeof *next) : NULL;
    int rc = start && next ? TP_OK : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < n; i++)
        start[(*by)[i] + 1]++;
    for (size_t b = 1; rc == TP_OK && b <= bound; b++)
        start[b] += start[b - 1];
    uint32_t **other = by == &k->lab ? &k->op : &k->lab;
    uint32_t *iter = (uint32_t *)k->iter; /* int32 cells, moved as their unsigned type */
    if (rc == TP_OK && (scatter(&k->acts, *by, start, next, bound, n) ||
                        scatter(&iter, *by, start, next, bound, n) ||
                        scatter(other, *by, start, next, bound, n) ||
                        scatter(by, *by, start, next, bound, n)))
        rc = TP_ENOMEM;
    k->iter = (int32_t *)iter;
    tp_free(start);
    tp_free(next);
    return rc;
}

/* Whether activities i and j fall in one group: the same label, and with
 * ops the same op. */
static int same_group(const ks *k, int ops, size_t i, size_t j)
{
    return k->lab[i] == k->lab[j] && (!ops || k->op[i] == k->op[j]);
}

/* The groups of acts by label, or with ops by (op, label): sorted by label,
 * or, when the activities are grouped by label already (per_name), by op
 * only when some has one; bound exceeds every id.  The groups are counted
 * before they are made. */
static ks_group *group_by_key(ks *k, size_t bound, int ops, size_t *ng)
{
    int any = 0;
    for (size_t i = 0; i < k->nacts && ops && !any; i++)
        any = k->op[i] != 0;
    if ((!ops && counting_sort(k, &k->lab, bound) != TP_OK) ||
        (any && counting_sort(k, &k->op, bound) != TP_OK))
        return NULL;
    size_t n = 0;
    for (size_t i = 0; i < k->nacts; i++)
        n += i == 0 || !same_group(k, ops, i, i - 1);
    ks_group *g = tp_malloc((n ? n : 1) * sizeof *g);
    if (g == NULL)
        return NULL;
    n = 0;
    for (size_t i = 0; i < k->nacts; i++) {
        if (n == 0 || !same_group(k, ops, i, g[n - 1].first))
            g[n++] = (ks_group){.first = i};
        g[n - 1].n++;
        g[n - 1].sum_us += dur_us(k, k->acts[i]);
    }
    *ng = n;
    return g;
}

/* By total time descending, then by name (and second name). */
static int group_cmp(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const ks_group *x = a, *y = b;
    if (x->sum_us != y->sum_us)
        return x->sum_us > y->sum_us ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->name2 ? x->name2 : "", y->name2 ? y->name2 : "");
}

static const char *text_of(ks *k, tp_str id)
{
    const char *s = tp_str_text(k->st, id);
    return s ? s : "";
}

static double percent(const ks *k, double us) { return k->total_us > 0 ? 100.0 * us / k->total_us : 0.0; }

/* Sets a double cell, or leaves it null when NaN (CONVENTIONS: missing is null). */
static int set_num(ks *k, tp_result *r, size_t row, int col, double v)
{
    return isnan(v) ? TP_OK : tp_result_set_f64(k->st, r, row, col, v);
}

/* ----------------------------------------------------------- per name */

static int name_row(ks *k, tp_result *r, const ks_group *g)
{
    for (size_t i = 0; i < g->n; i++)
        k->vals[i] = dur_us(k, k->acts[g->first + i]);
    tp_stats s;
    if (tp_stats_of(k->vals, g->n, &s) != TP_OK)
        return TP_ENOMEM;
    size_t row;
    int rc = tp_result_add_row(k->st, r, &row);
    rc = rc ? rc : tp_result_set_str(k->st, r, row, ks_main_name, g->name);
    rc = rc ? rc : tp_result_set_i64(k->st, r, row, ks_main_count, (int64_t)s.count);
    const struct {
        int col;
        double v;
    } cells[] = {{ks_main_sum_us, s.sum},       {ks_main_mean_us, s.mean},
                 {ks_main_std_us, s.std},       {ks_main_std_sample_us, s.std_sample},
                 {ks_main_min_us, s.min},       {ks_main_max_us, s.max},
                 {ks_main_p50_us, s.p50},       {ks_main_p90_us, s.p90},
                 {ks_main_p99_us, s.p99},       {ks_main_time_percent, percent(k, s.sum)}};
    for (size_t i = 0; i < sizeof cells / sizeof cells[0] && rc == TP_OK; i++)
        rc = set_num(k, r, row, cells[i].col, cells[i].v);
    return rc;
}

/* The columns of an Others row: its label, count, sum and share. */
typedef struct ks_others_cols {
    int label, count, sum_us, percent;
} ks_others_cols;

/* The Others row of the groups past `top`: count, sum and share. */
static int others_row(ks *k, tp_result *r, const ks_group *g, size_t from, size_t n,
                      ks_others_cols col)
{
    if (from >= n)
        return TP_OK;
    double sum = 0;
    size_t count = 0;
    for (size_t i = from; i < n; i++) {
        sum += g[i].sum_us;
        count += g[i].n;
    }
    size_t row;
    int rc = tp_result_add_row(k->st, r, &row);
    rc = rc ? rc : tp_result_set_str(k->st, r, row, col.label, "Others");
    rc = rc ? rc : tp_result_set_i64(k->st, r, row, col.count, (int64_t)count);
    rc = rc ? rc : tp_result_set_f64(k->st, r, row, col.sum_us, sum);
    return rc ? rc : tp_result_set_f64(k->st, r, row, col.percent, percent(k, sum));
}

static size_t kept(const ks *k, size_t n)
{
    return k->cfg->top > 0 && (size_t)k->cfg->top < n ? (size_t)k->cfg->top : n;
}

/* Writes <id>; leaves acts grouped by kernel and the groups (sorted by
 * time) in *out for per_iteration. */
static int per_name(ks *k, ks_group **out, size_t *nout)
{
    tp_result *r = tp_result_declared(k->st, NULL);
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(k->st, r, "title", "Kernels by total time");
    for (size_t i = 0; i < k->nacts; i++)
        k->lab[i] = kernel_label(k, k->acts[i]);
    size_t ng = 0;
    ks_group *g = group_by_key(k, tp_str_count(k->st), 0, &ng);
    if (g == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < ng; i++)
        g[i].name = text_of(k, (tp_str)k->lab[g[i].first]);
    int rc = tp_sort(g, ng, sizeof *g, group_cmp, NULL);
    size_t keep = kept(k, ng), most = 1;
    for (size_t i = 0; i < keep; i++) /* the durations of the largest group kept */
        most = g[i].n > most ? g[i].n : most;
    if (rc == TP_OK && (k->vals = tp_malloc(most * sizeof *k->vals)) == NULL)
        rc = TP_ENOMEM;
    for (size_t i = 0; i < keep && rc == TP_OK; i++)
        rc = name_row(k, r, &g[i]);
    if (rc == TP_OK)
        rc = others_row(k, r, g, keep, ng,
                        (ks_others_cols){ks_main_name, ks_main_count, ks_main_sum_us,
                                         ks_main_time_percent});
    *out = g;
    *nout = ng;
    return rc;
}

/* ----------------------------------------------------------- per op */

static int per_op(ks *k)
{
    tp_result *r = tp_result_declared(k->st, "ops");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(k->st, r, "title", "Kernels per op (the outermost op that launched them)");
    size_t ng = 0; /* acts are grouped by label (per_name): now by op too */
    ks_group *g = group_by_key(k, tp_str_count(k->st) + 1, 1, &ng);
    if (g == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < ng; i++) {
        uint32_t op = k->op[g[i].first];
        g[i].name = op == 0 ? "(no op)" : text_of(k, (tp_str)(op - 1));
        g[i].name2 = text_of(k, (tp_str)k->lab[g[i].first]);
    }
    int rc = tp_sort(g, ng, sizeof *g, group_cmp, NULL);
    size_t keep = kept(k, ng);
    for (size_t i = 0; i < keep && rc == TP_OK; i++) {
        size_t row;
        rc = tp_result_add_row(k->st, r, &row);
        double sum = g[i].sum_us;
        rc = rc ? rc : tp_result_set_str(k->st, r, row, ks_ops_op, g[i].name);
        rc = rc ? rc : tp_result_set_str(k->st, r, row, ks_ops_name, g[i].name2);
        rc = rc ? rc : tp_result_set_i64(k->st, r, row, ks_ops_count, (int64_t)g[i].n);
        rc = rc ? rc : tp_result_set_f64(k->st, r, row, ks_ops_sum_us, sum);
        rc = rc ? rc : tp_result_set_f64(k->st, r, row, ks_ops_mean_us, sum / (double)g[i].n);
        rc = rc ? rc : tp_result_set_f64(k->st, r, row, ks_ops_time_percent, percent(k, sum));
    }
    if (rc == TP_OK)
        rc = others_row(k, r, g, keep, ng,
                        (ks_others_cols){ks_ops_op, ks_ops_count, ks_ops_sum_us,
                                         ks_ops_time_percent});
    tp_free(g);
    return rc;
}

/* ---------------------------------------------------------- per class */

/* The class label of a kernel name, interned once per name. */
static tp_str class_of(ks *k, tp_str name, tp_str *memo)
{
    if (name < k->nnames && memo[name] != 0)
        return memo[name] - 1;
    char buf[16];
    const char *text = text_of(k, name);
    const char *label = k->cfg->classes == CLASSES_SEED
                            ? tp_kernel_legend_seed(text, buf)
                            : tp_kernel_class_name(
                                  tp_vocab_kernel_class(&k->vocab, TP_KIND_OTHER, text));
    if (k->map->n > 0) { /* the user's classes: the first regex that matches */
        label = "other";
        for (size_t i = 0; i < k->map->n; i++) {
            int m = tp_pyre_search(k->map->re[i], text, strlen(text), k->map->md);
            if (m < 0)
                return TP_STR_ERROR; /* the engine gave up: reported as an error */
            if (m > 0) {
                label = k->map->name[i];
                break;
            }
        }
    }
    tp_str id = tp_intern(k->st, label, strlen(label));
    if (id != TP_STR_ERROR && name < k->nnames)
        memo[name] = id + 1;
    return id;
}

/* Room for one more class in *g and *ids (*cap of each, doubled). */
static int class_room(ks_group **g, tp_str **ids, size_t ng, size_t *cap)
{
    if (ng < *cap)
        return TP_OK;
    size_t c = *cap ? *cap * 2 : 16;
    ks_group *g2 = tp_realloc(*g, c * sizeof **g);
    tp_str *ids2 = g2 ? tp_realloc(*ids, c * sizeof **ids) : NULL;
    *g = g2 ? g2 : *g;
    *ids = ids2 ? ids2 : *ids;
    *cap = ids2 ? c : *cap;
    return ids2 ? TP_OK : TP_ENOMEM;
}

/* Adds every activity to its class's group: a handful of classes, found
 * by a linear search, so no sort over the activities. */
static int class_groups(ks *k, ks_group **g, size_t *ng, tp_str **ids)
{
    tp_str *memo = tp_calloc(k->nnames ? k->nnames : 1, sizeof *memo);
    if (memo == NULL)
        return TP_ENOMEM;
    int rc = TP_OK;
    size_t cap = 0;
    for (size_t i = 0; i < k->nacts && rc == TP_OK; i++) {
        tp_str c = class_of(k, k->c->name[k->acts[i]], memo);
        size_t j = 0;
        while (j < *ng && (*ids)[j] != c)
            j++;
        if (c == TP_STR_ERROR) {
            rc = TP_ENOMEM;
            break;
        }
        if (j == *ng && (rc = class_room(g, ids, *ng, &cap)) != TP_OK)
            break;
        if (j == *ng) {
            (*ids)[j] = c;
            (*g)[(*ng)++] = (ks_group){.name = text_of(k, c)};
        }
        (*g)[j].n++;
        (*g)[j].sum_us += dur_us(k, k->acts[i]);
    }
    tp_free(memo);
    return rc;
}

static int per_class(ks *k)
{
    tp_result *r = tp_result_declared(k->st, "classes");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(k->st, r, "title", "Device time per kernel class");
    size_t ng = 0;
    ks_group *g = NULL;
    tp_str *ids = NULL;
    int rc = class_groups(k, &g, &ng, &ids);
    if (rc == TP_OK)
        rc = tp_sort(g, ng, sizeof *g, group_cmp, NULL);
    for (size_t i = 0; i < ng && rc == TP_OK; i++) {
        size_t row;
        rc = tp_result_add_row(k->st, r, &row);
        rc = rc ? rc : tp_result_set_str(k->st, r, row, ks_class_kernel_class, g[i].name);
        rc = rc ? rc : tp_result_set_i64(k->st, r, row, ks_class_count, (int64_t)g[i].n);
        rc = rc ? rc : tp_result_set_f64(k->st, r, row, ks_class_sum_us, g[i].sum_us);
        rc = rc ? rc
                : tp_result_set_f64(k->st, r, row, ks_class_time_percent, percent(k, g[i].sum_us));
    }
    tp_free(g);
    tp_free(ids);
    return rc;
}

/* ------------------------------------------------------ per iteration */

/* Each kernel's iteration (that of its launch, else its own start), in
 * k->iter beside acts, computed while acts are in row order (launches and
 * kernels near each other in memory); NULL when the trace has none. */
static int act_iterations(ks *k)
{
    tp_iter_override ov = {.prefix = k->cfg->step_prefix, .option = "step_prefix"};
    tp_iter_view v;
    int rc = tp_iter_view_get(k->st, NULL, &ov, &v);
    tp_iterations it = tp_iter_as_iterations(&v);
    if (rc == TP_OK && it.n > 0) {
        k->iter = tp_malloc((k->nacts ? k->nacts : 1) * sizeof *k->iter);
        if (k->iter == NULL)
            rc = TP_ENOMEM;
        for (size_t i = 0; rc == TP_OK && i < k->nacts; i++) {
            uint32_t a = k->acts[i];
            int32_t l = tp_hier_launcher(&k->hv, a);
            int32_t at = tp_iteration_of(&it, k->c->ts[l >= 0 ? (uint32_t)l : a]);
            /* skip_first / skip_last leave iterations out of the statistics */
            k->iter[i] = at >= (int32_t)v.first && at < (int32_t)v.last ? at - (int32_t)v.first
                                                                         : -1;
        }
        k->niters = v.last - v.first;
    }
    tp_iter_view_release(&v);
    return rc;
}

/* One row per kernel: its time per iteration, mean and cv.  acts are
 * grouped by kernel (per_name), iter holds each one's iteration. */
static int iteration_rows(ks *k, tp_result *r, const ks_group *g, size_t ng, const int32_t *iter,
                          size_t nit)
{
    double *per = tp_malloc((nit ? nit : 1) * sizeof *per);
    if (per == NULL)
        return TP_ENOMEM;
    int rc = TP_OK;
    for (size_t i = 0; i < ng && rc == TP_OK; i++) {
        memset(per, 0, nit * sizeof *per);
        for (size_t at = g[i].first; at < g[i].first + g[i].n; at++)
            if (iter[at] >= 0)
                per[iter[at]] += dur_us(k, k->acts[at]);
        double sum = 0;
        for (size_t t = 0; t < nit; t++)
            sum += per[t];
        size_t row;
        rc = tp_result_add_row(k->st, r, &row);
        rc = rc ? rc : tp_result_set_str(k->st, r, row, ks_iter_name, g[i].name);
        rc = rc ? rc : tp_result_set_i64(k->st, r, row, ks_iter_n_iterations, (int64_t)nit);
        rc = rc ? rc : tp_result_set_f64(k->st, r, row, ks_iter_mean_us, sum / (double)nit);
        rc = rc ? rc : set_num(k, r, row, ks_iter_cv_percent, tp_cv_percent(per, nit));
    }
    tp_free(per);
    return rc;
}

/* Must run while acts are still grouped by kernel (right after per_name). */
static int per_iteration(ks *k, const ks_group *g, size_t ng)
{
    tp_result *r = tp_result_declared(k->st, "iterations");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(k->st, r, "title", "Kernel time per iteration: mean and variation");
    if (k->iter == NULL) /* no iterations: no rows */
        return TP_OK;
    int rc = iteration_rows(k, r, g, ng, k->iter, k->niters);
    tp_free(k->iter); /* later regroupings need not carry it */
    k->iter = NULL;
    return rc;
}

/* ------------------------------------------------------------- stage */

static int collect(ks *k)
{
    const tp_cols *c = k->c;
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++) /* counted first: the arrays are the activities' */
        n += tp_ev_is_activity(c, i) != 0;
    k->acts = tp_malloc((n ? n : 1) * sizeof *k->acts);
    k->lab = tp_malloc((n ? n : 1) * sizeof *k->lab);
    k->op = tp_malloc((n ? n : 1) * sizeof *k->op);
    k->nnames = tp_str_count(k->st);
    k->label = tp_calloc(k->nnames ? k->nnames : 1, sizeof *k->label);
    if (!k->acts || !k->lab || !k->op || !k->label)
        return TP_ENOMEM;
    for (size_t i = 0; i < c->n; i++)
        if (tp_ev_is_activity(c, i)) {
            k->acts[k->nacts++] = (uint32_t)i;
            k->total_us += dur_us(k, (uint32_t)i);
        }
    return TP_OK;
}

/* ------------------------------------------------------- per graph */

static int per_graph(ks *k)
{
    tp_result *r = tp_result_declared(k->st, "graphs");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(k->st, r, "title", "CUDA/HIP graphs: replays and their kernels");
    int rc = TP_OK;
    for (size_t i = 0; i < k->graphs.ngraphs && rc == TP_OK; i++) {
        const tp_graph *g = &k->graphs.graphs[i];
        double sum = (double)g->gpu_ns / 1000.0;
        size_t row;
        rc = tp_result_add_row(k->st, r, &row);
        rc = rc ? rc : tp_result_set_i64(k->st, r, row, ks_graph_graph, g->id);
        rc = rc ? rc : tp_result_set_i64(k->st, r, row, ks_graph_replays, g->replays);
        rc = rc ? rc
                : tp_result_set_f64(k->st, r, row, ks_graph_kernels_per_replay,
                                    (double)g->activities / (double)g->replays);
        rc = rc ? rc : tp_result_set_i64(k->st, r, row, ks_graph_count, g->activities);
        rc = rc ? rc : tp_result_set_f64(k->st, r, row, ks_graph_sum_us, sum);
        rc = rc ? rc : tp_result_set_f64(k->st, r, row, ks_graph_time_percent, percent(k, sum));
    }
    return rc;
}

/* The iteration markers (the pipeline's, or step_prefix) are steps, never
 * the op of a kernel: marked like modules in memo. */
static int mark_steps(ks *k, uint8_t *memo, size_t nmemo)
{
    tp_iter_override ov = {.prefix = k->cfg->step_prefix, .option = "step_prefix"};
    tp_iter_view v;
    int rc = tp_iter_view_get(k->st, NULL, &ov, &v);
    for (size_t name = 0; rc == TP_OK && name < nmemo; name++)
        if (tp_iter_is_marker(&v, (tp_str)name))
            memo[name] = 1;
    tp_iter_view_release(&v);
    return rc;
}

static int ops_of_launches(ks *k, const int32_t *parent, int32_t **top_op)
{
    const tp_strlist *mods = &k->cfg->module_prefixes;
    const char *const *prefixes = mods->n ? mods->items : k->vocab.modules;
    size_t nprefixes = mods->n ? mods->n : k->vocab.n_modules;
    uint8_t *memo = NULL;
    size_t nmemo = 0;
    int32_t *scratch = tp_malloc((k->c->n ? k->c->n : 1) * sizeof *scratch);
    *top_op = tp_malloc((k->c->n ? k->c->n : 1) * sizeof **top_op);
    int rc = scratch && *top_op ? tp_names_with_prefixes(k->st, prefixes, nprefixes, &memo, &nmemo)
                                : TP_ENOMEM;
    if (rc == TP_OK && mods->n == 0)
        rc = mark_steps(k, memo, nmemo);
    if (rc == TP_OK) { /* only the launches' chains are walked */
        for (size_t i = 0; i < k->c->n; i++)
            (*top_op)[i] = TP_OP_UNKNOWN;
        for (size_t i = 0; i < k->nacts; i++) {
            int32_t l = tp_hier_launcher(&k->hv, k->acts[i]);
            if (l >= 0)
                tp_outermost_op(k->c, parent, memo, nmemo, *top_op, scratch, l);
        }
    }
    tp_free(memo);
    tp_free(scratch);
    return rc;
}

/* Each activity's op (op: the op's name id + 1, 0 for none; a graph's
 * kernels are under the op that captured them, else graph <id>), found
 * while acts are in row order; the row-indexed memo is freed before the
 * activities are sorted. */
static int op_keys(ks *k, const int32_t *parent)
{
    int32_t *top_op = NULL;
    int rc = ops_of_launches(k, parent, &top_op);
    for (size_t i = 0; rc == TP_OK && i < k->nacts; i++) {
        uint32_t a = k->acts[i];
        int32_t l = tp_hier_launcher(&k->hv, a), op = l >= 0 ? top_op[l] : -1;
        uint32_t opname = op >= 0 ? k->c->name[op] + 1 : 0;
        if (tp_graph_replayed(&k->graphs, a))
            opname = tp_graph_op_of(&k->graphs, a, 0) + 1;
        k->op[i] = opname;
    }
    tp_free(top_op);
    return rc;
}

static int ks_run(tp_stage *st, const void *config, void *state)
{
    const tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    ks k = {.st = st, .cfg = config, .map = state, .c = tp_trace_cols(t)};
    if (tp_hier_cview_require(st, t, &k.hv) != TP_OK)
        return TP_ENOTFOUND;
    /* the wide parent array alone (tp_outermost_op walks it; filled lazily) */
    const int32_t *parent = tp_hier_parent_array(t);
    if (parent == NULL)
        return tp_hier_missing(st);
    ks_group *by_kernel = NULL;
    size_t nkernels = 0;
    int rc = tp_vocab_get(st, &k.vocab);
    if (rc == TP_OK)
        rc = collect(&k);
    if (rc == TP_OK)
        rc = tp_graphs_find_ranked(st, t, &k.vocab, &k.hv.gpu, k.hv.launcher, &k.graphs);
    if (rc == TP_OK)
        rc = op_keys(&k, parent);
    if (rc == TP_OK)
        rc = act_iterations(&k);
    if (rc == TP_OK)
        rc = per_name(&k, &by_kernel, &nkernels);
    if (rc == TP_OK) /* before per_op regroups the activities */
        rc = per_iteration(&k, by_kernel, nkernels);
    if (rc == TP_OK)
        rc = per_op(&k);
    if (rc == TP_OK)
        rc = per_class(&k);
    if (rc == TP_OK)
        rc = per_graph(&k);
    tp_graphs_free(&k.graphs);
    tp_free(by_kernel);
    tp_free(k.acts);
    tp_free(k.lab);
    tp_free(k.op);
    tp_free(k.iter);
    tp_free(k.vals);
    tp_free(k.label);
    tp_vocab_free(&k.vocab);
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc ks_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "kernel_stats",
                  "top kernels: statistics per kernel name, per (op, kernel), per class, "
                  "variation across iterations",
                  ks_options, ks_config, "hierarchy", ks_results, NULL, 0, ks_init, ks_run,
                  ks_destroy),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("kernel_stats", "0.1.0", ks_stages);
