/* advice: the rules over runtime calls and copies (Nsight Systems'
 * pageable, synchronous memcpy/memset and synchronisation rules; HTA's
 * launch outliers over the SDK's launch links, hierarchy.launcher). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "advice.h"

/* ----------------------------------------------------- pageable_memcpy */

/* Copies whose source or destination is pageable host memory, by the
 * SDK's memory kinds (the nsys readers' srcKind/dstKind, Kineto's
 * "(Pageable -> Device)"). */
int adv_pageable_memcpy(adv *a)
{
    int known = 0;
    tp_memkind_cols kinds;
    int rc = tp_memkind_columns(a->t, &kinds);
    if (rc != TP_OK)
        return tp_fail(a->st, rc, "out of memory reading the memory kind columns");
    for (size_t k = 0; k < a->ndev; k++) {
        const adv_device *d = &a->dev[k];
        int64_t count = 0, sum = 0, lo = INT64_MAX, hi = INT64_MIN;
        for (size_t i = 0; i < d->n; i++) {
            uint32_t r = d->rows[i];
            tp_memkind src, dst;
            if (!adv_is_memcpy(a, r) || !tp_memcpy_kinds_at(&kinds, r, adv_name(a, r), &src, &dst))
                continue;
            known = 1;
            if (src != TP_MEMKIND_PAGEABLE && dst != TP_MEMKIND_PAGEABLE)
                continue;
            count++;
            sum += a->c->dur[r];
            lo = a->c->ts[r] < lo ? a->c->ts[r] : lo;
            hi = a->c->ts[r] + a->c->dur[r] > hi ? a->c->ts[r] + a->c->dur[r] : hi;
        }
        if (count == 0)
            continue;
        char where[64];
        snprintf(where, sizeof where, "device %lld", (long long)d->device);
        rc = adv_emit(a, ADV_FIGS(count, adv_us(sum), NAN, adv_rel_us(a, lo), adv_rel_us(a, hi)),
                      where, "copies from or to pageable host memory",
                      "%lld copies from or to pageable memory, %.1f us in all", (long long)count,
                      adv_us(sum));
        if (rc != TP_OK)
            return rc;
    }
    if (!known)
        return adv_skip(a, "no memcpy records the memory kinds it copies between (a name's "
                           "\"Pageable -> Device\", an Nsight Systems export's srcKind/dstKind)");
    return rc;
}

/* ----------------------------------------- calls by name: sync rules */

typedef struct per_name {
    int64_t count, sum, first, last;
    uint32_t longest; /* the row of the longest call */
} per_name;

typedef int (*call_filter)(adv *a, const char *name);

/* Counts the complete runtime calls the filter takes, by name (the filter
 * asked once per name id); *runtime: whether the trace has runtime calls. */
static int calls_by_name(adv *a, call_filter take, per_name **out, int *runtime)
{
    const tp_cols *c = a->c;
    per_name *p = tp_calloc(a->nnames ? a->nnames : 1, sizeof *p);
    uint8_t *taken = tp_calloc(a->nnames ? a->nnames : 1, 1); /* 1 no, 2 yes, 0 not yet */
    if (p == NULL || taken == NULL) {
        tp_free(p);
        tp_free(taken);
        return TP_ENOMEM;
    }
    *runtime = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (c->kind[i] != TP_KIND_RUNTIME || !tp_ev_is_complete(c, i) || c->name[i] >= a->nnames)
            continue;
        *runtime = 1;
        if (taken[c->name[i]] == 0)
            taken[c->name[i]] = take(a, adv_name(a, (uint32_t)i)) ? 2 : 1;
        if (taken[c->name[i]] != 2)
            continue;
        per_name *n = &p[c->name[i]];
        if (n->count++ == 0)
            n->first = c->ts[i];
        if (n->count == 1 || c->dur[i] > c->dur[n->longest])
            n->longest = (uint32_t)i;
        n->sum += c->dur[i];
        n->last = c->ts[i] + c->dur[i] > n->last ? c->ts[i] + c->dur[i] : n->last;
    }
    tp_free(taken);
    *out = p;
    return TP_OK;
}

/* "NAME; the longest under OP at T us, iteration N": the API, and the op
 * (innermost cpu op above it) and time of its longest call. */
static void call_where(const adv *a, const char *name, uint32_t longest, char *buf, size_t size)
{
    int32_t op = adv_op_above(a, (int32_t)longest);
    int n = snprintf(buf, size, "%.120s; the longest%s%.160s at %.1f us", name,
                     op >= 0 ? " under " : "", op >= 0 ? adv_name(a, (uint32_t)op) : "",
                     adv_rel_us(a, a->c->ts[longest]));
    if (n > 0 && (size_t)n < size)
        adv_add_iteration(a, a->c->ts[longest], buf, size);
}

static int calls_rule(adv *a, call_filter take, const char *finding, const char *what)
{
    per_name *p;
    int runtime;
    int rc = calls_by_name(a, take, &p, &runtime);
    if (rc != TP_OK)
        return rc;
    for (size_t k = 0; rc == TP_OK && k < a->nnames; k++) {
        if (p[k].count == 0)
            continue;
        const char *name = tp_str_text(a->st, (tp_str)k);
        char where[400];
        call_where(a, name, p[k].longest, where, sizeof where);
        rc = adv_emit(a, ADV_FIGS(p[k].count, adv_us(p[k].sum), NAN, adv_rel_us(a, p[k].first),
                                  adv_rel_us(a, p[k].last)),
                      where, finding, "%lld %s calls to %s, %.1f us in all (mean %.2f us)",
                      (long long)p[k].count, what, name, adv_us(p[k].sum),
                      adv_us(p[k].sum) / (double)p[k].count);
    }
    tp_free(p);
    if (rc == TP_OK && !runtime)
        rc = adv_skip(a, "no runtime (CUDA, HIP, OpenCL API) calls in the trace");
    return rc;
}

static int is_sync_copy(adv *a, const char *name)
{
    return tp_vocab_launch_blocks(&a->vocab, name);
}

static int is_sync_call(adv *a, const char *name)
{
    tp_launch_what w = tp_vocab_launch_api(&a->vocab, name);
    return w == TP_LAUNCHES_SYNC && tp_launch_api_blocks(name, w);
}

int adv_sync_memcpy(adv *a)
{
    return calls_rule(a, is_sync_copy, "synchronous memcpy or memset calls block the host",
                      "synchronous");
}

int adv_sync_api(adv *a)
{
    return calls_rule(a, is_sync_call, "the host waits for the GPU in synchronisation calls",
                      "blocking");
}

/* ----------------------------------------------------- launch_outliers */

typedef struct outlier {
    int64_t count;
    double worst_us;
    uint32_t worst; /* the activity */
} outlier;

static void note(outlier *o, double v_us, uint32_t act)
{
    if (o->count++ == 0 || v_us > o->worst_us) {
        o->worst_us = v_us;
        o->worst = act;
    }
}

static int outlier_row(adv *a, const outlier *o, int64_t launches, const char *finding,
                       const char *what, double cutoff)
{
    if (o->count == 0)
        return TP_OK;
    const tp_cols *c = a->c;
    uint32_t w = o->worst;
    char where[480];
    int32_t op = tp_hier_launching_op(c, &a->hv, w);
    int n = snprintf(where, sizeof where, "device %lld stream %lld, kernel %.200s at %.1f us%s%.160s",
                     (long long)tp_ev_device(c, w), (long long)tp_ev_stream(c, w), adv_name(a, w),
                     adv_rel_us(a, c->ts[w]), op >= 0 ? ", launched under " : "",
                     op >= 0 ? adv_name(a, (uint32_t)op) : "");
    if (n > 0 && (size_t)n < sizeof where)
        adv_add_iteration(a, c->ts[a->hv.launcher[w]], where, sizeof where);
    return adv_emit(a, ADV_FIGS(o->count, o->worst_us, 100.0 * (double)o->count / (double)launches,
                                adv_rel_us(a, c->ts[w]), adv_rel_us(a, c->ts[w] + c->dur[w])),
                    where, finding, "%lld of %lld launches %s %g us%s; the worst %.1f us",
                    (long long)o->count, (long long)launches, what, cutoff,
                    strchr(what, '(') ? ")" : "", o->worst_us);
}

int adv_launch_outliers(adv *a)
{
    const tp_cols *c = a->c;
    outlier slow = {0, 0, 0}, late = {0, 0, 0}, brief = {0, 0, 0};
    int64_t launches = 0;
    for (size_t i = 0; i < c->n; i++) {
        int32_t l = a->hv.launcher[i];
        if (l < 0 || !tp_ev_is_activity(c, i))
            continue;
        launches++;
        double cpu = adv_us(c->dur[l]), gpu = adv_us(c->dur[i]);
        double delay = adv_us(c->ts[i] - (c->ts[l] + c->dur[l]));
        unsigned k = tp_launch_outliers(cpu, gpu, delay, a->cfg->runtime_cutoff_us,
                                        a->cfg->launch_delay_cutoff_us);
        if (k & TP_LAUNCH_SLOW)
            note(&slow, cpu, (uint32_t)i);
        if (k & TP_LAUNCH_SHORT_GPU)
            note(&brief, cpu - gpu, (uint32_t)i);
        if (k & TP_LAUNCH_LATE)
            note(&late, delay, (uint32_t)i);
    }
    if (launches == 0)
        return adv_skip(a, "no GPU activity linked to the runtime call that launched it");
    int rc = outlier_row(a, &slow, launches, "slow launch calls", "have a call longer than",
                         a->cfg->runtime_cutoff_us);
    rc = rc ? rc
            : outlier_row(a, &brief, launches, "GPU work shorter than the call that launched it",
                          "run shorter on the GPU than their call (calls of at most",
                          a->cfg->runtime_cutoff_us);
    return rc ? rc
              : outlier_row(a, &late, launches, "GPU work starts late after its launch",
                            "start later after their call than", a->cfg->launch_delay_cutoff_us);
}
