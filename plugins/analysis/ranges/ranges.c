/*
 * ranges: time attributed to annotation ranges (issue 13, item 6; seed 002's
 * per-iteration times of annotated regions; issue 24, item 2: host ranges
 * and their GPU projections apart).  Definitions in docs/plugins/ranges.md.
 *
 * A range is a complete annotation event whose (normalised) name matches
 * `include`: a host range (kind annotation: user_annotation,
 * record_function, NVTX push/pop) or a GPU range (kind gpu annotation:
 * gpu_user_annotation, the span on one stream of what a host range
 * launched).  Rows are per (name, kind), so a record_function and its GPU
 * projection are never added together.  A host range's ops are the
 * outermost CPU ops inside it and its GPU work what was launched from
 * inside it (the launch's ancestors include the range), so nested ranges
 * each count their work; a GPU range's work is the GPU activity on its
 * stream (same pid and tid) that starts inside it.
 *   <id>             per range name and kind: count, sum_us (the ranges'
 *                    own time), ops_us (host), gpu_count, gpu_sum_us,
 *                    gpu_busy_us (union);
 *   <id>.iterations  per iteration, range name and kind: count, sum_us,
 *                    gpu_sum_us (a series: seed 002's time per iteration);
 *                    a GPU range belongs to the iteration of the host range
 *                    it projects (same External id and name), else to the
 *                    one holding its start.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

#include <tracepipe/tp_sdk_iter.h>
#include <tracepipe/tp_sdk_markers.h>

#include "ranges_names.h"
#include "ranges_stream.h"
#include "ranges_union.h"

typedef struct rg_config {
    const char *include;
    const char *marker;
    tp_strlist normalize;
} rg_config;

static const tp_option rg_options[] = {
    TP_OPTION_STRING("include", rg_config, include, ".",
                     "regex naming the ranges (searched in the normalised name, like "
                     "re.search; default: every one)"),
    TP_OPTION_STRING("marker", rg_config, marker, NULL,
                     "override of the pipeline's iterations: marker for this stage: a regex "
                     "naming the iteration markers of <id>.iterations"),
    TP_OPTION_LIST("normalize", rg_config, normalize,
                   "name normaliser: pairs of a regex and its replacement, applied in order "
                   "as Python's re.sub, e.g. ['(, op_id = \\d+|, seq = \\d+)', '']"),
    TP_OPTION_END};

/* The kinds of range, the `kind` column's values. */
enum { RG_HOST = 0, RG_GPU = 1, RG_KINDS };
static const char *const rg_kind_names[RG_KINDS] = {"host", "gpu"};

/* <id>: one row per range name and kind, by sum_us descending. */
#define RG_MAIN_COLS(X, P)                                                                         \
    X(P, name, STR, NULL, "the range's name (normalised)")                                        \
    X(P, kind, STR, NULL, "host (an annotation on a thread) or gpu (its projection on a stream)") \
    X(P, count, I64, "count", "ranges of that name and kind")                                      \
    X(P, sum_us, F64, "us", "the ranges' own durations, added")                                    \
    X(P, ops_us, F64, "us", "host ranges: durations of the outermost CPU ops inside them")         \
    X(P, gpu_count, I64, "count", "GPU activities launched from inside the ranges (gpu ranges: "   \
                                  "on their stream, starting inside them)")                        \
    X(P, gpu_sum_us, F64, "us", "those activities' durations, added")                              \
    X(P, gpu_busy_us, F64, "us", "the union of those activities' intervals")
TP_COLUMNS(rg_main, RG_MAIN_COLS);

/* <id>.iterations: one row per iteration, range name and kind, in step order. */
#define RG_IT_COLS(X, P)                                                                           \
    X(P, iteration, I64, NULL, "the step number: the marker's first capture group if a number, "   \
                               "else the digits after the name's last #, else the ordinal from 0") \
    X(P, name, STR, NULL, "the range's name (normalised)")                                        \
    X(P, kind, STR, NULL, "host or gpu")                                                           \
    X(P, count, I64, "count", "ranges of that name and kind in the iteration (gpu ranges: in "     \
                              "the iteration of the host range they project)")                     \
    X(P, sum_us, F64, "us", "their own durations, added")                                          \
    X(P, gpu_sum_us, F64, "us", "durations of their GPU work (host ranges: launched inside them "  \
                                "in the iteration)")
TP_COLUMNS(rg_it, RG_IT_COLS);

static const tp_result_decl rg_results[] = {
    TP_RESULT("", "table", rg_main,
              "one row per range name and kind: its time, its ops and its GPU work"),
    TP_RESULT("iterations", "series", rg_it, "one row per iteration, range name and kind"),
    TP_RESULTS_END};

typedef struct rg_state {
    tp_markers include;
    rg_norm norm;
} rg_state;

static int rg_init(tp_stage *st, const void *config, void **state)
{
    const rg_config *cfg = config;
    rg_state *s = tp_calloc(1, sizeof *s);
    if (s == NULL)
        return TP_ENOMEM;
    *state = s;
    int rc = tp_markers_open(st, &s->include, "include", cfg->include);
    if (rc == TP_OK)
        rc = rg_norm_open(st, &s->norm, &cfg->normalize);
    if (rc != TP_OK || cfg->marker == NULL)
        return rc;
    tp_markers check; /* a bad marker regex is a configuration error */
    rc = tp_markers_open(st, &check, "marker", cfg->marker);
    tp_markers_close(&check);
    return rc;
}

static void rg_destroy(tp_stage *st, void *state)
{
    (void)st;
    rg_state *s = state;
    if (s) {
        tp_markers_close(&s->include);
        rg_norm_close(&s->norm);
    }
    tp_free(s);
}

/* Per range name and kind (and iteration): sums, and the GPU intervals for
 * the union. */
typedef struct rg_acc {
    tp_str name;
    int32_t iteration;
    uint8_t kind;
    int64_t count, sum, ops, gpu_count, gpu_sum, busy;
} rg_acc;

#define RG_NOT_RANGE UINT32_MAX

typedef struct rg {
    tp_stage *st;
    const tp_cols *c;
    const int32_t *parent, *first_child, *next_sibling, *launcher;
    uint32_t *key;     /* per name id of the trace: normalised name + 1, RG_NOT_RANGE, 0 unknown */
    size_t nkey;       /* name ids of the trace (those before normalising) */
    uint8_t *is_range; /* per row */
    rg_acc *acc;       /* per (name, kind): the totals */
    uint32_t *slot;    /* per normalised name id and kind: acc index + 1 */
    size_t nacc, cap;
    rg_acc *it;        /* per (iteration, name, kind), iteration by iteration */
    size_t nit, itcap;
    int32_t *stack;    /* scratch: c->n cells */
    uint32_t *ranges, *gpu; /* range rows; the GPU ones */
    size_t nr, ng;
    int64_t *gwork;    /* per GPU range (index in gpu): its work's durations, added */
    int64_t *ops_below; /* per row: its outermost CPU ops' durations, added */
    uint32_t *hact;    /* host ranges' GPU work: the activities in pre-order of their launch */
    size_t nhact;
    int64_t *hpre;     /* nhact + 1: their durations added */
    uint32_t *hlo, *hhi; /* per row, a host range: its work hact[lo, hi) */
} rg;

static tp_str key_of(const rg *r, size_t row) { return (tp_str)(r->key[r->c->name[row]] - 1); }

static uint8_t kind_of(const rg *r, size_t row)
{
    return r->c->kind[row] == TP_KIND_GPU_ANNOTATION ? RG_GPU : RG_HOST;
}

static rg_acc *acc_of(rg *r, uint8_t kind, tp_str name)
{
    uint32_t *slot = &r->slot[(size_t)name * RG_KINDS + kind];
    if (*slot != 0)
        return &r->acc[*slot - 1];
    if (r->nacc == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        rg_acc *a = tp_realloc(r->acc, cap * sizeof *a);
        if (a == NULL)
            return NULL;
        r->acc = a;
        r->cap = cap;
    }
    r->acc[r->nacc] = (rg_acc){.name = name, .iteration = -1, .kind = kind};
    *slot = (uint32_t)(r->nacc + 1);
    return &r->acc[r->nacc++];
}

/* The ranges' own time and, for host ranges, their outermost ops
 * (r->ops_below). */
static int range_times(rg *r, size_t row)
{
    rg_acc *a = acc_of(r, kind_of(r, row), key_of(r, row));
    if (a == NULL)
        return TP_ENOMEM;
    a->count++;
    a->sum += r->c->dur[row];
    if (a->kind == RG_HOST)
        a->ops += r->ops_below[row];
    return TP_OK;
}

/* r->ops_below[x]: the durations of the outermost CPU ops under row x (not
 * below another op), bottom-up over one pre-order walk: linear, where a
 * walk of each range's subtree was quadratic in nested ranges (issue 32). */
static int outermost_ops(rg *r)
{
    const tp_cols *c = r->c;
    int32_t *order = tp_malloc((c->n ? c->n : 1) * sizeof *order);
    r->ops_below = tp_calloc(c->n ? c->n : 1, sizeof *r->ops_below);
    if (order == NULL || r->ops_below == NULL) {
        tp_free(order);
        return TP_ENOMEM;
    }
    size_t n = 0, sp = 0;
    for (size_t root = 0; root < c->n; root++) {
        if (r->parent[root] >= 0)
            continue;
        r->stack[sp++] = (int32_t)root;
        while (sp > 0) {
            int32_t x = r->stack[--sp];
            order[n++] = x;
            for (int32_t k = r->first_child[x]; k >= 0; k = r->next_sibling[k])
                r->stack[sp++] = k;
        }
    }
    for (size_t i = n; i-- > 0;) { /* children before their parent */
        int32_t x = order[i], p = r->parent[x];
        if (p >= 0)
            r->ops_below[p] += c->kind[x] == TP_KIND_CPU_OP ? c->dur[x] : r->ops_below[x];
    }
    tp_free(order);
    return TP_OK;
}

/* The acc index of range row x's (name, kind). */
static uint32_t acc_index(rg *r, size_t x)
{
    return r->slot[(size_t)key_of(r, x) * RG_KINDS + kind_of(r, x)] - 1;
}

/* Per launching row: the activities it launched, as lists. */
static int launches_of(rg *r, int32_t **first, int32_t **next)
{
    size_t n = r->c->n ? r->c->n : 1;
    *first = tp_malloc(n * sizeof **first);
    *next = tp_malloc(n * sizeof **next);
    if (*first == NULL || *next == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < r->c->n; i++)
        (*first)[i] = -1;
    for (size_t a = r->c->n; a-- > 0;) {
        int32_t l = r->launcher[a];
        if (!tp_ev_is_activity(r->c, a) || l < 0)
            continue;
        (*next)[a] = (*first)[l];
        (*first)[l] = (int32_t)a;
    }
    return TP_OK;
}

static int is_host_range(const rg *r, size_t x)
{
    return r->is_range[x] && kind_of(r, x) == RG_HOST;
}

/* One walk of the host tree: the launched activities in pre-order of their
 * launching row (r->hact), so the work launched inside host range x is one
 * segment hact[hlo[x], hhi[x]); outer[]: the ranges with no range of their
 * name above them (a name's work is the union of their segments). */
static int host_order(rg *r, const int32_t *first_act, const int32_t *next_act, rg_seg *outer,
                      size_t *nouter)
{
    const tp_cols *c = r->c;
    int32_t *todo = tp_malloc((2 * c->n + 1) * sizeof *todo);
    uint32_t *open = tp_calloc(r->nacc + 1, sizeof *open); /* per acc: ranges open */
    int rc = todo && open ? TP_OK : TP_ENOMEM;
    for (size_t root = 0; root < c->n && rc == TP_OK; root++) {
        if (r->parent[root] >= 0)
            continue;
        size_t sp = 0;
        todo[sp++] = (int32_t)root;
        while (sp > 0) {
            int32_t x = todo[--sp];
            if (x < 0) { /* leaving range ~x */
                r->hhi[~x] = (uint32_t)r->nhact;
                open[acc_index(r, (size_t)~x)]--;
                continue;
            }
            for (int32_t a = first_act[x]; a >= 0; a = next_act[a])
                r->hact[r->nhact++] = (uint32_t)a;
            if (is_host_range(r, (size_t)x)) {
                uint32_t k = acc_index(r, (size_t)x);
                r->hlo[x] = (uint32_t)r->nhact;
                if (open[k]++ == 0)
                    outer[(*nouter)++] = (rg_seg){k, (uint32_t)x, 0};
                todo[sp++] = ~x;
            }
            for (int32_t k = r->first_child[x]; k >= 0; k = r->next_sibling[k])
                todo[sp++] = k;
        }
    }
    tp_free(todo);
    tp_free(open);
    for (size_t i = 0; i < *nouter; i++) /* rows to segments */
        outer[i] = (rg_seg){outer[i].set, r->hlo[outer[i].lo], r->hhi[outer[i].lo]};
    return rc;
}

/* busy[k], per acc, to the accs. */
static int add_busy(rg *r, const tp_cols *c, const uint32_t *act, size_t nact, rg_seg *seg,
                    size_t nseg)
{
    int64_t *busy = tp_calloc(r->nacc + 1, sizeof *busy);
    int rc = busy ? rg_union_lengths(c, act, nact, seg, nseg, busy) : TP_ENOMEM;
    for (size_t k = 0; rc == TP_OK && k < r->nacc; k++)
        r->acc[k].busy += busy[k];
    tp_free(busy);
    return rc;
}

/* Host ranges' GPU work: what was launched inside each, nested ranges each
 * counting it, from prefix sums over one segment per range; a name's busy
 * time the union over its outermost ranges' segments (rg_union_lengths).
 * No list per activity and name open above it: deep nesting of ever-new
 * names was depth x activities in time and memory (issue 32). */
static int host_work(rg *r)
{
    size_t n = r->c->n ? r->c->n : 1, nouter = 0;
    int32_t *first = NULL, *next = NULL;
    rg_seg *outer = tp_malloc((r->nr ? r->nr : 1) * sizeof *outer);
    r->hact = tp_malloc(n * sizeof *r->hact);
    r->hpre = tp_malloc((n + 1) * sizeof *r->hpre);
    r->hlo = tp_malloc(n * sizeof *r->hlo);
    r->hhi = tp_malloc(n * sizeof *r->hhi);
    int rc = outer && r->hact && r->hpre && r->hlo && r->hhi ? launches_of(r, &first, &next)
                                                              : TP_ENOMEM;
    rc = rc ? rc : host_order(r, first, next, outer, &nouter);
    for (size_t p = 0; rc == TP_OK && p <= r->nhact; p++)
        r->hpre[p] = p == 0 ? 0 : r->hpre[p - 1] + r->c->dur[r->hact[p - 1]];
    for (size_t i = 0; rc == TP_OK && i < r->nr; i++) {
        size_t x = r->ranges[i];
        if (!is_host_range(r, x))
            continue;
        rg_acc *acc = &r->acc[acc_index(r, x)];
        acc->gpu_count += r->hhi[x] - r->hlo[x];
        acc->gpu_sum += r->hpre[r->hhi[x]] - r->hpre[r->hlo[x]];
    }
    rc = rc ? rc : add_busy(r, r->c, r->hact, r->nhact, outer, nouter);
    tp_free(first);
    tp_free(next);
    tp_free(outer);
    return rc;
}

static int by_seg(const void *x, const void *y, void *ctx)
{
    (void)ctx;
    const rg_seg *a = x, *b = y;
    if (a->set != b->set)
        return a->set < b->set ? -1 : 1;
    return (a->lo > b->lo) - (a->lo < b->lo);
}

/* Each acc's spans merged where they overlap (nested ranges of one name),
 * so its segments are disjoint: each activity once per (name, kind); then
 * their unions. */
static int span_busy(rg *r, const rg_stream_acts *sa, rg_seg *sp, size_t n)
{
    int rc = tp_sort(sp, n, sizeof *sp, by_seg, NULL);
    size_t m = 0;
    for (size_t i = 0; i < n && rc == TP_OK;) {
        rg_seg s = sp[i];
        size_t j = i + 1;
        for (; j < n && sp[j].set == s.set && sp[j].lo <= s.hi; j++)
            s.hi = sp[j].hi > s.hi ? sp[j].hi : s.hi;
        sp[m++] = s;
        i = j;
    }
    return rc ? rc : add_busy(r, r->c, sa->act, sa->n, sp, m);
}

/* GPU ranges' work: the activities on their stream starting inside them,
 * two binary searches and a prefix sum per range, a name's busy time by
 * rg_union_lengths: nested GPU ranges were depth x activities (issue 32). */
static int gpu_work(rg *r)
{
    const tp_cols *c = r->c;
    rg_stream_acts sa;
    rg_seg *sp = tp_malloc((r->ng ? r->ng : 1) * sizeof *sp);
    int rc = rg_stream_acts_open(c, &sa);
    rc = rc ? rc : sp ? TP_OK : TP_ENOMEM;
    size_t ns = 0;
    for (size_t g = 0; g < r->ng && rc == TP_OK; g++) {
        size_t x = r->gpu[g], lo, hi;
        rg_stream_acts_inside(c, &sa, x, &lo, &hi);
        if (hi <= lo)
            continue;
        r->gwork[g] = sa.pre[hi] - sa.pre[lo];
        rg_acc *acc = acc_of(r, RG_GPU, key_of(r, x));
        if (acc == NULL) {
            rc = TP_ENOMEM;
            break;
        }
        acc->gpu_count += (int64_t)(hi - lo);
        acc->gpu_sum += r->gwork[g];
        sp[ns++] = (rg_seg){acc_index(r, x), (uint32_t)lo, (uint32_t)hi};
    }
    rc = rc ? rc : span_busy(r, &sa, sp, ns);
    rg_stream_acts_close(&sa);
    tp_free(sp);
    return rc;
}

static double us(int64_t ns) { return (double)ns / 1000.0; }

static int by_name(const void *x, const void *y, void *ctx)
{
    rg *r = ctx;
    const rg_acc *a = x, *b = y;
    if (a->iteration != b->iteration)
        return a->iteration < b->iteration ? -1 : 1;
    if (a->sum != b->sum)
        return a->sum > b->sum ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return strcmp(tp_str_text(r->st, a->name), tp_str_text(r->st, b->name));
}

static int write_totals(rg *r)
{
    tp_result *res = tp_result_declared(r->st, NULL);
    if (res == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(r->st, res, "title", "Annotation ranges");
    int rc = tp_sort(r->acc, r->nacc, sizeof *r->acc, by_name, r);
    for (size_t i = 0; i < r->nacc && rc == TP_OK; i++) {
        rg_acc *a = &r->acc[i];
        size_t row;
        rc = tp_result_add_row(r->st, res, &row);
        rc = rc ? rc
                : tp_result_set_str(r->st, res, row, rg_main_name, tp_str_text(r->st, a->name));
        rc = rc ? rc : tp_result_set_str(r->st, res, row, rg_main_kind, rg_kind_names[a->kind]);
        rc = rc ? rc : tp_result_set_i64(r->st, res, row, rg_main_count, a->count);
        rc = rc ? rc : tp_result_set_f64(r->st, res, row, rg_main_sum_us, us(a->sum));
        if (a->kind == RG_HOST) /* a GPU range has no ops: null */
            rc = rc ? rc : tp_result_set_f64(r->st, res, row, rg_main_ops_us, us(a->ops));
        rc = rc ? rc : tp_result_set_i64(r->st, res, row, rg_main_gpu_count, a->gpu_count);
        rc = rc ? rc : tp_result_set_f64(r->st, res, row, rg_main_gpu_sum_us, us(a->gpu_sum));
        rc = rc ? rc : tp_result_set_f64(r->st, res, row, rg_main_gpu_busy_us, us(a->busy));
    }
    return rc;
}

/* ------------------------------------------------------ per iteration */

/* A range in its iteration (k, an index of the iterations), with its GPU
 * work for a GPU range. */
typedef struct rg_at {
    int32_t k;
    uint32_t row;
    int64_t work;
} rg_at;

static rg_acc *it_acc(rg *r, int32_t k, uint8_t kind, tp_str name)
{
    for (size_t i = r->nit; i-- > 0;) /* rows arrive iteration by iteration */
        if (r->it[i].iteration != k)
            break;
        else if (r->it[i].name == name && r->it[i].kind == kind)
            return &r->it[i];
    if (r->nit == r->itcap) {
        size_t cap = r->itcap ? r->itcap * 2 : 16;
        rg_acc *a = tp_realloc(r->it, cap * sizeof *a);
        if (a == NULL)
            return NULL;
        r->it = a;
        r->itcap = cap;
    }
    r->it[r->nit] = (rg_acc){.name = name, .iteration = k, .kind = kind};
    return &r->it[r->nit++];
}

static int by_iteration(const void *x, const void *y, void *ctx)
{
    const tp_cols *c = ctx;
    const rg_at *a = x, *b = y;
    if (a->k != b->k)
        return a->k < b->k ? -1 : 1;
    if (c->ts[a->row] != c->ts[b->row])
        return c->ts[a->row] < c->ts[b->row] ? -1 : 1;
    return (a->row > b->row) - (a->row < b->row);
}

/* Every range in an iteration, iteration by iteration: a host range in the
 * one holding its start, a GPU range in that of the host range it
 * projects, else in the one holding its own start. */
static int ranges_in_iterations(rg *r, const tp_iterations *it, rg_at *at, size_t *n)
{
    const tp_cols *c = r->c;
    uint32_t *host = tp_malloc((r->nr ? r->nr : 1) * sizeof *host);
    if (host == NULL)
        return TP_ENOMEM;
    size_t nh = 0;
    for (size_t i = 0; i < r->nr; i++)
        if (kind_of(r, r->ranges[i]) == RG_HOST)
            host[nh++] = r->ranges[i];
    int rc = r->ng ? rg_sort_by_ext(c, host, nh) : TP_OK;
    for (size_t i = 0; i < nh; i++) {
        int32_t k = tp_iteration_of(it, c->ts[host[i]]);
        if (k >= 0)
            at[(*n)++] = (rg_at){k, host[i], 0};
    }
    for (size_t g = 0; g < r->ng && rc == TP_OK; g++) {
        size_t x = r->gpu[g], p = rg_projected(c, host, nh, x);
        int32_t k = tp_iteration_of(it, c->ts[p != SIZE_MAX ? p : x]);
        if (k >= 0)
            at[(*n)++] = (rg_at){k, (uint32_t)x, r->gwork[g]};
    }
    tp_free(host);
    return rc ? rc : tp_sort(at, *n, sizeof *at, by_iteration, (void *)c);
}

/* A host entry of r->it: (name, iteration) and its index. */
typedef struct rg_entry {
    tp_str name;
    int32_t k;
    uint32_t idx;
} rg_entry;

static int by_entry(const void *x, const void *y, void *ctx)
{
    (void)ctx;
    const rg_entry *a = x, *b = y;
    if (a->name != b->name)
        return a->name < b->name ? -1 : 1;
    return (a->k > b->k) - (a->k < b->k);
}

/* The host entries of r->it by (name, iteration); *n of them. */
static rg_entry *host_entries(const rg *r, size_t *n)
{
    rg_entry *e = tp_malloc((r->nit ? r->nit : 1) * sizeof *e);
    *n = 0;
    for (size_t i = 0; e != NULL && i < r->nit; i++)
        if (r->it[i].kind == RG_HOST)
            e[(*n)++] = (rg_entry){r->it[i].name, r->it[i].iteration, (uint32_t)i};
    if (e != NULL && tp_sort(e, *n, sizeof *e, by_entry, NULL) != TP_OK) {
        tp_free(e);
        return NULL;
    }
    return e;
}

/* Range x's work in iterations [kmin, kmax] to the host entries of its
 * name in them. */
static void credit_range(rg *r, const rg_by_iter *b, const rg_entry *e, size_t ne, size_t x,
                         int64_t kmin, int64_t kmax)
{
    rg_entry key = {key_of(r, x), (int32_t)kmin, 0};
    size_t lo = 0, hi = ne;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (by_entry(&e[mid], &key, NULL) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (; lo < ne && e[lo].name == key.name && e[lo].k <= kmax; lo++) {
        size_t k = (size_t)e[lo].k;
        size_t from = rg_lower_u32(b->pos, b->begin[k], b->begin[k + 1], r->hlo[x]);
        size_t to = rg_lower_u32(b->pos, from, b->begin[k + 1], r->hhi[x]);
        r->it[e[lo].idx].gpu_sum += b->pre[to] - b->pre[from];
    }
}

/* Host ranges' GPU work per iteration: launched inside the range, in the
 * iteration of its launch, to the iteration's host entry of the range's
 * name.  Per range, the iterations its work spans (range minima over its
 * segment) that have an entry of its name, two binary searches each: no
 * list per activity and name above it (issue 32). */
static int host_work_per_iteration(rg *r, const tp_iterations *it)
{
    rg_by_iter b = {0};
    size_t ne = 0, nq = 0;
    rg_entry *e = host_entries(r, &ne);
    rg_seg *q = tp_malloc((r->nr ? r->nr : 1) * sizeof *q);
    int64_t *kmin = tp_malloc((r->nr ? r->nr : 1) * sizeof *kmin);
    int64_t *kmax = tp_malloc((r->nr ? r->nr : 1) * sizeof *kmax);
    int rc = e && q && kmin && kmax ? TP_OK : TP_ENOMEM;
    rc = rc ? rc : rg_by_iter_open(r->c, r->launcher, r->hact, r->nhact, it, &b);
    for (size_t i = 0; rc == TP_OK && i < r->nr; i++) {
        uint32_t x = r->ranges[i];
        if (is_host_range(r, x) && r->hlo[x] < r->hhi[x])
            q[nq++] = (rg_seg){x, r->hlo[x], r->hhi[x]};
    }
    rc = rc ? rc : rg_range_min(b.k, r->nhact, q, nq, kmin);
    rc = rc ? rc : rg_range_min(b.negk, r->nhact, q, nq, kmax);
    for (size_t i = 0; rc == TP_OK && i < nq; i++)
        if (kmin[i] <= -kmax[i])
            credit_range(r, &b, e, ne, q[i].set, kmin[i], -kmax[i]);
    rg_by_iter_close(&b);
    tp_free(e);
    tp_free(q);
    tp_free(kmin);
    tp_free(kmax);
    return rc;
}

static int write_iterations(rg *r, const int64_t *steps)
{
    tp_result *res = tp_result_declared(r->st, "iterations");
    if (res == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(r->st, res, "title", "Annotation ranges per iteration");
    int rc = tp_sort(r->it, r->nit, sizeof *r->it, by_name, r);
    for (size_t i = 0; i < r->nit && rc == TP_OK; i++) {
        const rg_acc *a = &r->it[i];
        size_t row;
        rc = tp_result_add_row(r->st, res, &row);
        rc = rc ? rc : tp_result_set_i64(r->st, res, row, rg_it_iteration, steps[a->iteration]);
        rc = rc ? rc : tp_result_set_str(r->st, res, row, rg_it_name, tp_str_text(r->st, a->name));
        rc = rc ? rc : tp_result_set_str(r->st, res, row, rg_it_kind, rg_kind_names[a->kind]);
        rc = rc ? rc : tp_result_set_i64(r->st, res, row, rg_it_count, a->count);
        rc = rc ? rc : tp_result_set_f64(r->st, res, row, rg_it_sum_us, us(a->sum));
        rc = rc ? rc : tp_result_set_f64(r->st, res, row, rg_it_gpu_sum_us, us(a->gpu_sum));
    }
    return rc;
}

static int per_iteration(rg *r, const tp_iterations *it, const int64_t *steps)
{
    rg_at *at = tp_malloc((r->nr ? r->nr : 1) * sizeof *at);
    if (at == NULL)
        return TP_ENOMEM;
    size_t n = 0;
    int rc = ranges_in_iterations(r, it, at, &n);
    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        rg_acc *a = it_acc(r, at[i].k, kind_of(r, at[i].row), key_of(r, at[i].row));
        if (a == NULL) {
            rc = TP_ENOMEM;
            break;
        }
        a->count++;
        a->sum += r->c->dur[at[i].row];
        a->gpu_sum += at[i].work;
    }
    tp_free(at);
    rc = rc ? rc : host_work_per_iteration(r, it);
    return rc ? rc : write_iterations(r, steps);
}

/* ------------------------------------------------------------- stage */

static int is_range_row(const tp_cols *c, size_t i)
{
    return tp_ev_is_complete(c, i) &&
           (c->kind[i] == TP_KIND_ANNOTATION || c->kind[i] == TP_KIND_GPU_ANNOTATION);
}

/* r->key of row i's name: its normalised name + 1 when `include` matches
 * that, else RG_NOT_RANGE (each name id once). */
static int classify(rg *r, rg_state *s, size_t i)
{
    tp_str norm;
    int rc = rg_norm_name(r->st, &s->norm, r->c, i, &norm);
    if (rc != TP_OK)
        return rc;
    int m = tp_pyre_search(s->include.re, tp_str_text(r->st, norm), tp_str_len(r->st, norm),
                           s->include.md);
    if (m < 0)
        return tp_markers_error(r->st, &s->include, r->c, i, m);
    r->key[r->c->name[i]] = m > 0 ? norm + 1 : RG_NOT_RANGE;
    return TP_OK;
}

static int find_ranges(rg *r, rg_state *s)
{
    const tp_cols *c = r->c;
    int rc = TP_OK;
    for (size_t i = 0; i < c->n && rc == TP_OK; i++) {
        if (!is_range_row(c, i) || c->name[i] >= r->nkey)
            continue;
        if (r->key[c->name[i]] == 0 && (rc = classify(r, s, i)) != TP_OK)
            break;
        if (r->key[c->name[i]] == RG_NOT_RANGE)
            continue;
        r->is_range[i] = 1;
        r->ranges[r->nr++] = (uint32_t)i;
        if (c->kind[i] == TP_KIND_GPU_ANNOTATION)
            r->gpu[r->ng++] = (uint32_t)i;
    }
    return rc;
}

/* Counts, times and GPU work of every range; then per iteration. */
static int measure(rg *r, rg_state *s, const rg_config *cfg)
{
    int rc = find_ranges(r, s);
    /* normalised names are interned now: a slot per name id and kind */
    r->slot = rc ? NULL : tp_calloc((tp_str_count(r->st) + 1) * RG_KINDS, sizeof *r->slot);
    r->gwork = rc ? NULL : tp_calloc(r->ng ? r->ng : 1, sizeof *r->gwork);
    if (rc == TP_OK && (r->slot == NULL || r->gwork == NULL))
        rc = TP_ENOMEM;
    rc = rc ? rc : outermost_ops(r);
    for (size_t i = 0; i < r->nr && rc == TP_OK; i++)
        rc = range_times(r, r->ranges[i]);
    rc = rc ? rc : host_work(r);
    rc = rc ? rc : gpu_work(r);
    rc = rc ? rc : write_totals(r);
    if (rc != TP_OK)
        return rc;
    tp_iter_view steps = {0};
    tp_iter_override ov = {.marker = cfg->marker, .option = "marker"};
    if ((rc = tp_iter_view_get(r->st, NULL, &ov, &steps)) == TP_OK) {
        tp_iterations it = tp_iter_as_iterations(&steps);
        rc = per_iteration(r, &it, steps.step);
    }
    tp_iter_view_release(&steps);
    return rc;
}

static void rg_free(rg *r)
{
    tp_free(r->acc);
    tp_free(r->it);
    tp_free(r->slot);
    tp_free(r->key);
    tp_free(r->is_range);
    tp_free(r->stack);
    tp_free(r->ranges);
    tp_free(r->gpu);
    tp_free(r->gwork);
    tp_free(r->ops_below);
    tp_free(r->hact);
    tp_free(r->hpre);
    tp_free(r->hlo);
    tp_free(r->hhi);
}

static int rg_run(tp_stage *st, const void *config, void *state)
{
    const tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    rg r = {.st = st, .c = tp_trace_cols(t), .nkey = tp_str_count(st)};
    tp_hier_view v;
    if (tp_hier_view_require(st, t, &v) != TP_OK)
        return TP_ENOTFOUND;
    r.parent = v.parent;
    r.first_child = v.first_child;
    r.next_sibling = v.next_sibling;
    r.launcher = v.launcher;
    size_t n = r.c->n ? r.c->n : 1;
    r.is_range = tp_calloc(n, 1);
    r.stack = tp_malloc(n * sizeof *r.stack);
    r.key = tp_calloc(r.nkey ? r.nkey : 1, sizeof *r.key);
    r.ranges = tp_malloc(n * sizeof *r.ranges);
    r.gpu = tp_malloc(n * sizeof *r.gpu);
    int rc = r.is_range && r.stack && r.key && r.ranges && r.gpu ? measure(&r, state, config)
                                                                 : TP_ENOMEM;
    rg_free(&r);
    if (rc == TP_EINVAL || rc == TP_EFORMAT)
        return rc; /* reported */
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc rg_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "ranges",
                  "time, ops and GPU work of host and GPU ranges, per name and iteration",
                  rg_options, rg_config, "hierarchy", rg_results, NULL, 0, rg_init, rg_run,
                  rg_destroy),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("ranges", "0.1.0", rg_stages);
