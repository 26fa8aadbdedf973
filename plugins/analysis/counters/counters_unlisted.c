/*
 * analysis `counters`: <id>.unlisted, the CUPTI counters the trace has that
 * cupti_counters does not name (its default: HTA's FLOP counters), each with
 * the number of events carrying it (docs/plugins/counters.md).  A counter
 * is any numeric arg of a range event, and an arg of a kernel event named as
 * a metric is (tp_cupti_is_counter_name): what a user could add to the list.
 */
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_sdk_cupti.h>

#include "counters.h"

/* Per name id: events carrying the counter (0: none); listed ones -1. */
typedef struct cu {
    cn *k;
    int64_t *n;
    size_t cap;
    tp_str rcat;
} cu;

static int grow(cu *u, size_t id)
{
    if (id < u->cap)
        return TP_OK;
    size_t cap = u->cap ? u->cap : 64;
    while (cap <= id)
        cap *= 2;
    int64_t *v = realloc(u->n, cap * sizeof *v);
    if (v == NULL)
        return TP_ENOMEM;
    memset(v + u->cap, 0, (cap - u->cap) * sizeof *v);
    u->n = v;
    u->cap = cap;
    return TP_OK;
}

/* One arg: counted when it is a counter (any number of a range event, a
 * metric's name on a kernel) and not a listed one. */
static int count_arg(cu *u, int range, const char *key, size_t klen, const char *v, size_t vlen)
{
    char name[256];
    double d;
    long n = tp_json_str(key, klen, name, sizeof name);
    if (n <= 0 || (size_t)n >= sizeof name || tp_json_f64(v, vlen, &d) != TP_OK ||
        (!range && !tp_cupti_is_counter_name(name, (size_t)n)))
        return TP_OK;
    tp_str id = tp_intern(u->k->st, name, (size_t)n);
    int rc = id == TP_STR_ERROR ? TP_ENOMEM : grow(u, id);
    if (rc == TP_OK && u->n[id] >= 0)
        u->n[id]++;
    return rc;
}

static int count_event(cu *u, size_t row)
{
    const tp_cols *c = u->k->c;
    int range = u->rcat != 0 && c->cat[row] == u->rcat;
    size_t len = 0, klen, vlen;
    const char *a, *key, *v;
    tp_json_iter it;
    if ((!range && c->kind[row] != TP_KIND_KERNEL) || (a = tp_trace_args(u->k->t, row, &len)) == NULL ||
        tp_json_object(a, len, &it) != TP_OK)
        return TP_OK;
    int rc = TP_OK;
    while (rc == TP_OK && tp_json_next_member(&it, &key, &klen, &v, &vlen) == 1)
        rc = count_arg(u, range, key, klen, v, vlen);
    return rc;
}

/* The listed names marked -1 (never counted). */
static int mark_listed(cu *u, const char *const *names, size_t n)
{
    int rc = TP_OK;
    for (size_t i = 0; rc == TP_OK && i < n; i++) {
        tp_str id = tp_intern(u->k->st, names[i], strlen(names[i]));
        rc = id == TP_STR_ERROR ? TP_ENOMEM : grow(u, id);
        if (rc == TP_OK)
            u->n[id] = -1;
    }
    return rc;
}

static int most_first(const void *a, const void *b, void *ctx)
{
    const cu *u = ctx;
    tp_str x = *(const tp_str *)a, y = *(const tp_str *)b;
    if (u->n[x] != u->n[y])
        return u->n[x] > u->n[y] ? -1 : 1;
    return strcmp(tp_str_text(u->k->st, x), tp_str_text(u->k->st, y));
}

static int write_unlisted(cu *u, tp_result *r)
{
    size_t m = 0;
    tp_str *ids = malloc((u->cap ? u->cap : 1) * sizeof *ids);
    if (ids == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < u->cap; i++)
        if (u->n[i] > 0)
            ids[m++] = (tp_str)i;
    int rc = tp_sort(ids, m, sizeof *ids, most_first, u);
    for (size_t i = 0; rc == TP_OK && i < m; i++) {
        size_t row;
        rc = tp_result_add_row(u->k->st, r, &row);
        rc = rc ? rc : tp_result_set_str(u->k->st, r, row, cn_u_name, tp_str_text(u->k->st, ids[i]));
        rc = rc ? rc : tp_result_set_i64(u->k->st, r, row, cn_u_count, u->n[ids[i]]);
    }
    if (rc == TP_OK && m > 0)
        tp_log(u->k->st, TP_LOG_INFO, "%zu CUPTI counter(s) in the trace not in cupti_counters "
               "(<id>.unlisted)", m);
    free(ids);
    return rc;
}

int cn_write_unlisted(cn *k, const char *const *names, size_t n)
{
    tp_result *r = tp_result_declared(k->st, "unlisted");
    const char *cat = tp_cupti_range_cat();
    cu u = {k, NULL, 0, 0};
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(k->st, r, "title", "CUPTI counters the trace has, not in cupti_counters");
    if (tp_str_lookup(k->st, cat, strlen(cat), &u.rcat) != 1)
        u.rcat = 0;
    int rc = mark_listed(&u, names, n);
    for (size_t i = 0; rc == TP_OK && i < k->c->n; i++)
        rc = count_event(&u, i);
    rc = rc ? rc : write_unlisted(&u, r);
    free(u.n);
    return rc;
}
