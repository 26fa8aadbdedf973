/*
 * analysis ranks (issue 17, item 3): the ranks of one distributed job
 * compared, `trace: [r0, r1, ...]` (one trace per rank), to name the
 * straggler.  Definitions (docs/plugins/ranks.md):
 *
 *   collective k   the k-th communication kernel of every rank (HTA's kernel
 *                  types: nccl..., ncclDevKernel_...), compared up to the
 *                  smallest count; a collective ends on every rank at about
 *                  the same moment, since no rank can finish it alone;
 *   offset         per rank, the median over the k it shares with the first
 *                  rank (its own count against the first's) of (its end of
 *                  k - the first rank's; the SDK's median, numpy's: an even count's is the
 *                  mean of the two middles, so times here are kept in half
 *                  nanoseconds), removed from its times: clocks aligned;
 *   wait           rank r's wait in k: the latest aligned start of k over the
 *                  ranks minus r's own start (0 for the last to arrive);
 *   straggler      the rank that arrives last at the most collectives (ties:
 *                  the smallest total wait, then the lowest rank).  Its
 *                  evidence: how many collectives it was last at, its wait
 *                  against the others' median, and the time the others spent
 *                  waiting for it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_coll.h>
#include <tracepipe/tp_sdk_iter.h>

typedef struct rk_config {
    const char *step_prefix;
} rk_config;

static const tp_option rk_options[] = {
    TP_OPTION_STRING("step_prefix", rk_config, step_prefix, NULL,
                     "override of the pipeline's iterations: marker for this stage: a name "
                     "prefix of the iteration markers (step time: their mean duration)"),
    TP_OPTION_END};

/* <id>: one row per rank, in trace: order.  last_arrivals is a count of
 * collectives; its unit is not declared, as its name implies none (a unit
 * note would change the written results). */
#define RK_MAIN_COLS(X, P)                                                                         \
    X(P, rank, I64, NULL, "trace info rank, else its position in the stage's trace: list")         \
    X(P, step_us, F64, "us", "mean duration of the iteration markers (null without)")              \
    X(P, compute_us, F64, "us", "computation kernels' durations, added")                           \
    X(P, comm_us, F64, "us", "communication kernels' durations, added")                            \
    X(P, wait_us, F64, "us", "waits in the compared collectives, added (latest aligned start of "  \
                             "a collective over the ranks minus the rank's own)")                  \
    X(P, last_arrivals, I64, NULL, "collectives the rank arrived last at (a count)")               \
    X(P, offset_us, F64, "us", "clock offset removed: median over the collectives of the rank's "  \
                               "end minus the first rank's")                                       \
    X(P, straggler, STR, NULL, "yes for the straggler, else no")
TP_COLUMNS(rk_main, RK_MAIN_COLS);

/* <id>.straggler: the straggler's evidence, one row of typed columns (so
 * its counts stay integers in every writer). */
#define RK_STRAGGLER_COLS(X, P)                                                                    \
    X(P, rank, I64, NULL, "the straggler's rank (as in <id>)")                                     \
    X(P, collectives, I64, "count", "collectives compared (the smallest count over the ranks)")    \
    X(P, last_arrivals, I64, "count", "collectives the straggler arrived last at")                  \
    X(P, wait_us, F64, "us", "the straggler's own wait, added over the collectives")               \
    X(P, others_median_wait_us, F64, "us", "the median of the other ranks' wait_us (numpy's)")     \
    X(P, others_waited_for_it_us, F64, "us", "the other ranks' waits at the collectives the "      \
                                             "straggler arrived last at, added")                   \
    X(P, step_us, F64, "us", "the straggler's mean iteration (null without iteration markers)")
TP_COLUMNS(rk_strag, RK_STRAGGLER_COLS);

static const tp_result_decl rk_results[] = {
    TP_RESULT("", "table", rk_main, "one row per rank: step, compute, communication and wait"),
    TP_RESULT("straggler", "table", rk_strag, "one row: the straggler and its evidence"),
    TP_RESULTS_END};

typedef struct rk_rank {
    int64_t rank;
    int64_t step_ns, comm_ns, compute_ns;
    int64_t wait_hns, offset_hns; /* half nanoseconds: an even count's median ends in .5 */
    int64_t *start, *end;         /* the communication kernels, in start order */
    size_t ncoll;
    size_t last;                  /* collectives it arrived last at */
    int64_t caused_hns;           /* others' wait at those collectives */
} rk_rank;

static int by_start(const void *a, const void *b, void *ctx)
{
    const tp_cols *c = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    if (c->ts[x] != c->ts[y])
        return c->ts[x] < c->ts[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* The mean iteration of trace t (after skip_first/skip_last), -1 without
 * iterations; a marker regex PCRE2 gives up on fails the stage. */
static int mean_step(tp_stage *st, tp_trace *t, const char *prefix, int64_t *mean)
{
    tp_iter_override ov = {.prefix = prefix, .option = "step_prefix"};
    tp_iter_view v;
    int64_t sum = 0, n = 0;
    int rc = tp_iter_view_get(st, t, &ov, &v);
    for (size_t k = v.first; rc == TP_OK && k < v.last; k++, n++)
        sum += v.it[k].end - v.it[k].start;
    tp_iter_view_release(&v);
    *mean = n ? sum / n : -1;
    return rc;
}

/* One rank's figures and its communication kernels. */
static int rank_fill(tp_stage *st, const tp_trace *t, size_t index, const rk_config *cfg,
                     rk_rank *r)
{
    const tp_cols *c = tp_trace_cols(t);
    if (tp_trace_info_i64(t, "rank", &r->rank) != TP_OK)
        r->rank = (int64_t)index;
    int rc = mean_step(st, (tp_trace *)t, cfg->step_prefix, &r->step_ns);
    if (rc != TP_OK)
        return rc;
    tp_vocab vocab;
    if (tp_vocab_get(st, &vocab) != TP_OK)
        return TP_ENOMEM;
    uint32_t *comm = tp_malloc((c->n ? c->n : 1) * sizeof *comm);
    if (comm == NULL) {
        tp_vocab_free(&vocab);
        return TP_ENOMEM;
    }
    /* the class of each name once, not each event's name matched again */
    size_t n = 0, nstr = tp_str_count(st);
    uint8_t *klass = tp_calloc(nstr ? nstr : 1, 1);
    if (klass == NULL) {
        tp_free(comm);
        tp_vocab_free(&vocab);
        return TP_ENOMEM;
    }
    for (size_t i = 0; i < c->n; i++) {
        if (!tp_ev_is_activity(c, i) || c->dur[i] < 0)
            continue;
        tp_str name = c->name[i];
        if (name < nstr && klass[name] == 0)
            klass[name] = (uint8_t)(1 + tp_vocab_kernel_class(&vocab, (tp_kind)c->kind[i],
                                                               tp_str_text(st, name)));
        tp_kernel_class k =
            name < nstr ? (tp_kernel_class)(klass[name] - 1)
                        : tp_vocab_kernel_class(&vocab, (tp_kind)c->kind[i], tp_str_text(st, name));
        if (k == TP_KCLASS_COMMUNICATION) {
            comm[n++] = (uint32_t)i;
            r->comm_ns += c->dur[i];
        } else if (k == TP_KCLASS_COMPUTATION) {
            r->compute_ns += c->dur[i];
        }
    }
    tp_free(klass);
    tp_vocab_free(&vocab);
    rc = tp_sort(comm, n, sizeof *comm, by_start, (void *)c);
    r->start = tp_malloc((n ? n : 1) * sizeof *r->start);
    r->end = tp_malloc((n ? n : 1) * sizeof *r->end);
    if (rc != TP_OK || r->start == NULL || r->end == NULL) {
        tp_free(comm);
        return TP_ENOMEM;
    }
    for (size_t k = 0; k < n; k++) {
        r->start[k] = c->ts[comm[k]];
        r->end[k] = c->ts[comm[k]] + c->dur[comm[k]];
    }
    r->ncoll = n;
    tp_free(comm);
    return TP_OK;
}

/* Offsets, waits and last arrivals over the collectives every rank has
 * (the SDK's matcher, tp_sdk_coll.h: one key, so collective k is every
 * rank's k-th communication kernel); *ncoll gets their count. */
static int compare(rk_rank *r, size_t nr, size_t *ncoll)
{
    tp_coll_rank *cr = tp_calloc(nr, sizeof *cr);
    tp_coll_match m;
    if (cr == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < nr; i++)
        cr[i] = (tp_coll_rank){r[i].start, r[i].end, NULL, r[i].ncoll};
    int rc = tp_coll_match_ranks(cr, nr, &m);
    tp_free(cr);
    if (rc != TP_OK)
        return rc;
    *ncoll = 0;
    for (size_t i = 0; i < nr; i++)
        r[i].offset_hns = m.offset_hns[i];
    for (size_t s = 0; s < m.nsets; s++) {
        if (tp_coll_set_size(&m, s) != nr)
            continue;
        (*ncoll)++;
        size_t last = m.member[m.latest[s]].rank; /* the matcher's last arrival */
        r[last].last++;
        for (size_t k = m.first[s]; k < m.first[s + 1]; k++) {
            int64_t w = m.latest_hns[s] - m.arrival_hns[k];
            r[m.member[k].rank].wait_hns += w;
            r[last].caused_hns += m.member[k].rank == last ? 0 : w;
        }
    }
    tp_coll_match_free(&m);
    return TP_OK;
}

static size_t straggler_of(const rk_rank *r, size_t nr)
{
    size_t s = 0;
    for (size_t i = 1; i < nr; i++)
        if (r[i].last > r[s].last || (r[i].last == r[s].last && r[i].wait_hns < r[s].wait_hns))
            s = i;
    return s;
}

static double us(int64_t ns) { return (double)ns / 1000.0; }

static double us_of_hns(int64_t hns) { return (double)hns / 2000.0; }

static int write_ranks(tp_stage *st, const rk_rank *r, size_t nr, size_t s)
{
    tp_result *res = tp_result_declared(st, NULL);
    if (res == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(st, res, "title", "Ranks of the job: step, compute, communication, wait");
    /* the wait is time inside the communication kernels: a chart stacking
     * both splits comm_us instead of adding the wait twice (svg.md) */
    tp_result_set_meta(st, res, "part_of.wait_us", "comm_us");
    int rc = TP_OK;
    for (size_t i = 0; i < nr && rc == TP_OK; i++) {
        size_t row;
        rc = tp_result_add_row(st, res, &row);
        rc = rc ? rc : tp_result_set_i64(st, res, row, rk_main_rank, r[i].rank);
        if (rc == TP_OK && r[i].step_ns >= 0)
            rc = tp_result_set_f64(st, res, row, rk_main_step_us, us(r[i].step_ns));
        rc = rc ? rc : tp_result_set_f64(st, res, row, rk_main_compute_us, us(r[i].compute_ns));
        rc = rc ? rc : tp_result_set_f64(st, res, row, rk_main_comm_us, us(r[i].comm_ns));
        rc = rc ? rc : tp_result_set_f64(st, res, row, rk_main_wait_us, us_of_hns(r[i].wait_hns));
        rc = rc ? rc : tp_result_set_i64(st, res, row, rk_main_last_arrivals, (int64_t)r[i].last);
        rc = rc ? rc
                : tp_result_set_f64(st, res, row, rk_main_offset_us, us_of_hns(r[i].offset_hns));
        rc = rc ? rc : tp_result_set_str(st, res, row, rk_main_straggler, i == s ? "yes" : "no");
    }
    return rc;
}

static int write_straggler(tp_stage *st, const rk_rank *r, size_t nr, size_t s, size_t ncoll)
{
    tp_result *res = tp_result_declared(st, "straggler");
    if (res == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(st, res, "title", "The straggler and its evidence");
    double *others = tp_malloc((nr ? nr : 1) * sizeof *others);
    if (others == NULL)
        return TP_ENOMEM;
    size_t n = 0, row;
    for (size_t i = 0; i < nr; i++)
        if (i != s)
            others[n++] = us_of_hns(r[i].wait_hns);
    double median;
    int rc = tp_median_of(others, n, &median);
    tp_free(others);
    rc = rc ? rc : tp_result_add_row(st, res, &row);
    rc = rc ? rc : tp_result_set_i64(st, res, row, rk_strag_rank, r[s].rank);
    rc = rc ? rc : tp_result_set_i64(st, res, row, rk_strag_collectives, (int64_t)ncoll);
    rc = rc ? rc : tp_result_set_i64(st, res, row, rk_strag_last_arrivals, (int64_t)r[s].last);
    rc = rc ? rc : tp_result_set_f64(st, res, row, rk_strag_wait_us, us_of_hns(r[s].wait_hns));
    if (rc == TP_OK && !isnan(median))
        rc = tp_result_set_f64(st, res, row, rk_strag_others_median_wait_us, median);
    rc = rc ? rc
            : tp_result_set_f64(st, res, row, rk_strag_others_waited_for_it_us,
                                us_of_hns(r[s].caused_hns));
    if (rc == TP_OK && r[s].step_ns >= 0)
        rc = tp_result_set_f64(st, res, row, rk_strag_step_us, us(r[s].step_ns));
    char text[32];
    snprintf(text, sizeof text, "%lld", (long long)r[s].rank);
    return rc ? rc : tp_result_set_meta(st, res, "straggler_rank", text);
}

static int rk_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const rk_config *cfg = config;
    size_t nr = tp_stage_trace_count(st);
    if (nr < 2)
        return tp_fail(st, TP_EINVAL, "give the ranks' traces: trace: [r0, r1, ...] (got %zu)",
                       nr);
    rk_rank *r = tp_calloc(nr, sizeof *r);
    if (r == NULL)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    int rc = TP_OK;
    size_t ncoll = SIZE_MAX;
    /* one rank at a time (TP_STAGE_F_STREAM): each leaves its summary, the
     * figures and its communication kernels' times */
    for (size_t i = 0; i < nr && rc == TP_OK; i++) {
        rc = rank_fill(st, tp_stage_trace_at(st, i), i, cfg, &r[i]);
        if (rc == TP_OK && r[i].ncoll < ncoll)
            ncoll = r[i].ncoll;
    }
    if (rc == TP_OK && ncoll == 0)
        rc = tp_fail(st, TP_EINVAL, "a rank has no communication kernels (nccl...): nothing "
                     "to align the ranks by");
    for (size_t i = 0; rc == TP_OK && i < nr; i++)
        if (r[i].ncoll != ncoll)
            tp_log(st, TP_LOG_WARN, "rank %lld has %zu communication kernels, another %zu: "
                   "the first %zu are compared", (long long)r[i].rank, r[i].ncoll, ncoll, ncoll);
    size_t s = 0;
    if (rc == TP_OK && (rc = compare(r, nr, &ncoll)) == TP_OK) {
        s = straggler_of(r, nr);
        rc = write_ranks(st, r, nr, s);
    }
    if (rc == TP_OK)
        rc = write_straggler(st, r, nr, s, ncoll);
    for (size_t i = 0; i < nr; i++) {
        tp_free(r[i].start);
        tp_free(r[i].end);
    }
    tp_free(r);
    if (rc == TP_EINVAL)
        return rc;
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc rk_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "ranks",
                  "the ranks of a distributed job compared (trace: [r0, r1, ...]): step, "
                  "compute, communication and wait per rank, the straggler and its evidence",
                  rk_options, rk_config, NULL, rk_results, NULL,
                  TP_STAGE_F_TRACES | TP_STAGE_F_STREAM, NULL, rk_run,
                  NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("ranks", "0.1.0", rk_stages);
