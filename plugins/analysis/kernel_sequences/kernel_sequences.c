/*
 * kernel_sequences: the most frequent contiguous kernel sequences per
 * stream (issue 30, item 4; HTA's frequent-pattern analysis), with their
 * count, kernel time and the ops that launch them.  Counting:
 * kseq_count.c; definitions and a hand-counted vector:
 * docs/plugins/kernel_sequences.md.
 */
#include <stdio.h>
#include <string.h>

#include "kseq.h"

static const tp_option kseq_options[] = {
    TP_OPTION_INT("length", kseq_config, length, "3", 2, 1000,
                  "kernels in a sequence (contiguous, on one stream)"),
    TP_OPTION_INT("min_count", kseq_config, min_count, "2", 1, 1000000000,
                  "minimum support: occurrences a sequence needs to be reported"),
    TP_OPTION_INT("top", kseq_config, top, "20", 0, 1000000000,
                  "sequences kept, most frequent first, the rest folded into Others (0 = all)"),
    TP_OPTION_LIST("module_prefixes", kseq_config, module_prefixes,
                   "name prefixes of modules and steps, never an op (default: the "
                   "vocabulary's modules and the iteration markers)"),
    TP_OPTION_END};

#define KSEQ_COLS(X, P)                                                                         \
    X(P, device, I64, NULL, "device of the stream (null in Others)")                           \
    X(P, stream, I64, NULL, "the stream (null in Others)")                                     \
    X(P, sequence, STR, NULL, "the kernels' names in launch order, joined by ' -> '; Others: " \
                              "the sequences past top")                                        \
    X(P, length, I64, "count", "kernels in the sequence")                                      \
    X(P, count, I64, "count", "occurrences on the stream, none overlapping another")           \
    X(P, sum_dur_us, F64, "us", "the kernels' total time over those occurrences")              \
    X(P, mean_us, F64, "us", "kernel time per occurrence (null in Others)")                    \
    X(P, stream_percent, F64, "percent", "share of the stream's kernel time (null in Others)") \
    X(P, n_ops, I64, "count", "distinct ops launching the kernels of its occurrences (null "   \
                              "in Others)")                                                    \
    X(P, ops, STR, NULL, "those ops (outermost cpu op above each launch, below modules and "   \
                         "steps), most kernels first, joined by '; '; null when none")
TP_COLUMNS(kseq_r, KSEQ_COLS);

static const tp_result_decl kseq_results[] = {
    TP_RESULT("", "table", kseq_r, "per (stream, sequence): count, kernel time, launching ops"),
    TP_RESULTS_END};

/* -------------------------------------------------------------- ops */

#define NO_NAME UINT32_MAX
typedef struct op_pair {
    uint32_t entry, name;
} op_pair;

static int by_pair(const void *a, const void *b, void *ctx)
{
    (void)ctx;
    const op_pair *x = a, *y = b;
    if (x->entry != y->entry)
        return x->entry < y->entry ? -1 : 1;
    return (x->name > y->name) - (x->name < y->name);
}

/* The op (name) of every kernel of the reported entries' occurrences. */
static int op_pairs(kseq *q, const uint8_t *keep, op_pair **out, size_t *n)
{
    tp_hier_view hv;
    int rc = tp_hier_view_require(q->st, tp_stage_trace(q->st), &hv);
    if (rc != TP_OK)
        return rc;
    size_t len = (size_t)q->cfg->length, cells = q->c->n ? q->c->n : 1;
    tp_vocab v;
    uint8_t *memo = NULL;
    size_t nmemo = 0, m = 0, npairs = 1;
    for (size_t i = 0; i < q->nk; i++) /* occurrences of different sequences overlap */
        if (q->occ[i] >= 0 && keep[q->occ[i]])
            npairs += len;
    int32_t *top = tp_malloc(cells * sizeof *top), *chain = tp_malloc(cells * sizeof *chain);
    op_pair *p = tp_malloc(npairs * sizeof *p);
    tp_graphs g = {0};
    rc = top && chain && p ? tp_vocab_get(q->st, &v) : TP_ENOMEM;
    if (rc == TP_OK) {
        const tp_strlist *mods = &q->cfg->module_prefixes;
        rc = tp_op_names_memo(q->st, &v, mods->items, mods->n, &memo, &nmemo);
        /* a graph-replayed kernel's op is the op that captured it (the SDK's rule) */
        rc = rc ? rc : tp_graphs_find(q->st, tp_stage_trace(q->st), &v, hv.launcher, &g);
        tp_vocab_free(&v);
    }
    for (size_t i = 0; rc == TP_OK && i < cells; i++)
        top[i] = TP_OP_UNKNOWN;
    for (size_t i = 0; rc == TP_OK && i < q->nk; i++) {
        if (q->occ[i] < 0 || !keep[q->occ[i]])
            continue;
        for (size_t j = 0; j < len; j++) {
            uint32_t a = q->k[i + j];
            int32_t l = hv.launcher[a];
            if (tp_graph_replayed(&g, a)) {
                p[m++] = (op_pair){(uint32_t)q->occ[i], tp_graph_op_of(&g, a, 0)};
                continue;
            }
            int32_t op = l >= 0 ? tp_outermost_op(q->c, hv.parent, memo, nmemo, top, chain, l) : -1;
            if (op >= 0)
                p[m++] = (op_pair){(uint32_t)q->occ[i], q->c->name[op]};
        }
    }
    rc = rc ? rc : tp_sort(p, m, sizeof *p, by_pair, NULL);
    tp_graphs_free(&g);
    tp_free(memo);
    tp_free(top);
    tp_free(chain);
    *out = p;
    *n = m;
    return rc;
}

/* ---------------------------------------------------------- results */

typedef struct op_count {
    uint32_t name;
    size_t n;
} op_count;

static int by_op_count(const void *a, const void *b, void *ctx)
{
    const op_count *x = a, *y = b;
    if (x->n != y->n)
        return x->n > y->n ? -1 : 1;
    return strcmp(tp_str_text(ctx, x->name), tp_str_text(ctx, y->name));
}

/* Writes the ops of one entry (pairs p[0, n), sorted by name). */
static int set_ops(kseq *q, tp_result *r, size_t row, const op_pair *p, size_t n)
{
    op_count *oc = tp_malloc((n ? n : 1) * sizeof *oc);
    if (oc == NULL)
        return TP_ENOMEM;
    size_t k = 0, bytes = 1;
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && oc[k - 1].name == p[i].name)
            oc[k - 1].n++;
        else
            oc[k++] = (op_count){p[i].name, 1};
    }
    int rc = tp_sort(oc, k, sizeof *oc, by_op_count, q->st);
    for (size_t i = 0; i < k; i++)
        bytes += strlen(tp_str_text(q->st, oc[i].name)) + 3;
    char *text = rc ? NULL : tp_malloc(bytes);
    if (rc == TP_OK && text == NULL)
        rc = TP_ENOMEM;
    if (rc == TP_OK) {
        text[0] = '\0';
        for (size_t i = 0, at = 0; i < k; i++)
            at += (size_t)snprintf(text + at, bytes - at, "%s%s", i ? "; " : "",
                                   tp_str_text(q->st, oc[i].name));
        rc = tp_result_set_i64(q->st, r, row, kseq_r_n_ops, (int64_t)k);
        if (rc == TP_OK && k > 0)
            rc = tp_result_set_str(q->st, r, row, kseq_r_ops, text);
    }
    tp_free(text);
    tp_free(oc);
    return rc;
}

static char *sequence_text(kseq *q, const kseq_entry *e)
{
    size_t len = (size_t)q->cfg->length, bytes = 1;
    for (size_t j = 0; j < len; j++)
        bytes += strlen(tp_str_text(q->st, q->c->name[q->k[e->first + j]])) + 4;
    char *s = tp_malloc(bytes);
    for (size_t j = 0, at = 0; s && j < len; j++)
        at += (size_t)snprintf(s + at, bytes - at, "%s%s", j ? " -> " : "",
                               tp_str_text(q->st, q->c->name[q->k[e->first + j]]));
    return s;
}

static int write_entry(kseq *q, tp_result *r, const kseq_entry *e, const int64_t *stream_ns,
                       const op_pair *p, size_t np)
{
    uint32_t row0 = q->k[e->first];
    char *seq = sequence_text(q, e);
    size_t row;
    int rc = seq ? tp_result_add_row(q->st, r, &row) : TP_ENOMEM;
    rc = rc ? rc : tp_result_set_i64(q->st, r, row, kseq_r_device, tp_ev_device(q->c, row0));
    rc = rc ? rc : tp_result_set_i64(q->st, r, row, kseq_r_stream, tp_ev_stream(q->c, row0));
    rc = rc ? rc : tp_result_set_str(q->st, r, row, kseq_r_sequence, seq);
    rc = rc ? rc : tp_result_set_i64(q->st, r, row, kseq_r_length, q->cfg->length);
    rc = rc ? rc : tp_result_set_i64(q->st, r, row, kseq_r_count, e->count);
    rc = rc ? rc : tp_result_set_f64(q->st, r, row, kseq_r_sum_dur_us, (double)e->sum_ns / 1000.0);
    rc = rc ? rc : tp_result_set_f64(q->st, r, row, kseq_r_mean_us,
                                     (double)e->sum_ns / 1000.0 / (double)e->count);
    if (rc == TP_OK && stream_ns[e->group] > 0)
        rc = tp_result_set_f64(q->st, r, row, kseq_r_stream_percent,
                               100.0 * (double)e->sum_ns / (double)stream_ns[e->group]);
    rc = rc ? rc : set_ops(q, r, row, p, np);
    tp_free(seq);
    return rc;
}

/* Most occurrences first, then most time, then stream and first start. */
static int by_rank(const void *a, const void *b, void *ctx)
{
    const kseq_entry *x = a, *y = b;
    (void)ctx;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    if (x->sum_ns != y->sum_ns)
        return x->sum_ns > y->sum_ns ? -1 : 1;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return (x->first > y->first) - (x->first < y->first);
}

/* The sequences past top, folded into one row (CONVENTIONS: top-N). */
typedef struct kseq_others {
    size_t n;
    int64_t count, sum_ns;
} kseq_others;

/* The entries reported: min_count or more, the top most frequent.  Marks
 * them in keep (by table slot) and lists their slots in *sel; the rest
 * with min_count or more go to *rest. */
static int select_entries(kseq *q, uint8_t *keep, uint32_t **sel, size_t *n, kseq_others *rest)
{
    kseq_entry *copy = tp_malloc(q->cap * sizeof *copy);
    *sel = tp_malloc(q->cap * sizeof **sel);
    if (copy == NULL || *sel == NULL) {
        tp_free(copy);
        return TP_ENOMEM;
    }
    size_t m = 0;
    for (size_t s = 0; s < q->cap; s++)
        if (q->e[s].count >= q->cfg->min_count) {
            copy[m] = q->e[s];
            copy[m].next_free = (int64_t)s; /* remember the slot */
            m++;
        }
    int rc = tp_sort(copy, m, sizeof *copy, by_rank, NULL);
    size_t all = m;
    if (q->cfg->top > 0 && m > (size_t)q->cfg->top)
        m = (size_t)q->cfg->top;
    *rest = (kseq_others){all - m, 0, 0};
    for (size_t i = m; i < all; i++) {
        rest->count += copy[i].count;
        rest->sum_ns += copy[i].sum_ns;
    }
    for (size_t i = 0; i < m; i++) {
        (*sel)[i] = (uint32_t)copy[i].next_free;
        keep[copy[i].next_free] = 1;
    }
    *n = m;
    tp_free(copy);
    return rc;
}

/* The Others row: the folded sequences' occurrences and time; per-stream
 * and per-occurrence figures null (they span streams and sequences). */
static int write_others(kseq *q, tp_result *r, const kseq_others *rest)
{
    size_t row;
    if (rest->n == 0)
        return TP_OK;
    int rc = tp_result_add_row(q->st, r, &row);
    rc = rc ? rc : tp_result_set_str(q->st, r, row, kseq_r_sequence, "Others");
    rc = rc ? rc : tp_result_set_i64(q->st, r, row, kseq_r_length, q->cfg->length);
    rc = rc ? rc : tp_result_set_i64(q->st, r, row, kseq_r_count, rest->count);
    return rc ? rc
              : tp_result_set_f64(q->st, r, row, kseq_r_sum_dur_us, (double)rest->sum_ns / 1000.0);
}

static int write_results(kseq *q, tp_result *r)
{
    size_t ngroups = q->nk ? q->group[q->nk - 1] + 1 : 1, nsel = 0, np = 0;
    int64_t *stream_ns = tp_calloc(ngroups, sizeof *stream_ns);
    uint8_t *keep = tp_calloc(q->cap, 1);
    uint32_t *sel = NULL;
    op_pair *p = NULL;
    kseq_others rest = {0};
    int rc = stream_ns && keep ? select_entries(q, keep, &sel, &nsel, &rest) : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < q->nk; i++)
        stream_ns[q->group[i]] += q->c->dur[q->k[i]];
    rc = rc ? rc : op_pairs(q, keep, &p, &np);
    for (size_t i = 0; rc == TP_OK && i < nsel; i++) {
        size_t lo = 0, hi = np; /* p is sorted by entry: the first pair of sel[i] */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (p[mid].entry < sel[i])
                lo = mid + 1;
            else
                hi = mid;
        }
        for (hi = lo; hi < np && p[hi].entry == sel[i]; hi++)
            ;
        rc = write_entry(q, r, &q->e[sel[i]], stream_ns, p + lo, hi - lo);
    }
    rc = rc ? rc : write_others(q, r, &rest);
    tp_free(stream_ns);
    tp_free(keep);
    tp_free(sel);
    tp_free(p);
    return rc;
}

static int kseq_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    kseq q = {.st = st, .cfg = config};
    const tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    q.c = tp_trace_cols(t);
    tp_result *r = tp_result_declared(st, NULL);
    int rc = r ? kseq_count(&q) : TP_ENOMEM;
    if (rc == TP_OK) {
        tp_result_set_meta(st, r, "title", "Frequent kernel sequences");
        rc = write_results(&q, r);
    }
    tp_free(q.k);
    tp_free(q.group);
    tp_free(q.occ);
    tp_free(q.e);
    if (rc == TP_OK || rc == TP_ENOTFOUND)
        return rc;
    return tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc kseq_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "kernel_sequences",
                  "the most frequent contiguous kernel sequences per stream, their time and "
                  "launching ops",
                  kseq_options, kseq_config, "hierarchy", kseq_results, NULL, 0, NULL, kseq_run,
                  NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("kernel_sequences", "0.1.0", kseq_stages);
