/* overheads: the launch calls of a trace per API (overheads_api.h). */
#include <stdio.h>
#include <string.h>

#include "overheads_api.h"

enum { OH_API_COLS(TP_COL_ENUM_, oh_api) oh_api__n };

static tp_launch_what what_of(oh_apis *a, tp_str name)
{
    if (name >= a->nnames)
        return tp_vocab_launch_api(&a->vocab, tp_str_text(a->st, name));
    if (a->what[name] == 0)
        a->what[name] = (uint8_t)(tp_vocab_launch_api(&a->vocab, tp_str_text(a->st, name)) + 1);
    return (tp_launch_what)(a->what[name] - 1);
}

int oh_apis_is_launch(oh_apis *a, int32_t row)
{
    if (a->c->kind[row] != TP_KIND_RUNTIME)
        return 0;
    return a->linked[row] || what_of(a, a->c->name[row]) != TP_LAUNCHES_NOTHING;
}

/* The API entry of a name, made on first use (NULL: out of memory). */
static oh_api *api_of(oh_apis *a, tp_str name)
{
    if (name < a->nnames && a->api_of[name] != 0)
        return &a->api[a->api_of[name] - 1];
    for (size_t i = 0; name >= a->nnames && i < a->napi; i++)
        if (a->api[i].name == name)
            return &a->api[i];
    oh_api *grown = tp_realloc(a->api, (a->napi + 1) * sizeof *grown);
    if (grown == NULL)
        return NULL;
    a->api = grown;
    a->api[a->napi] = (oh_api){.name = name, .what = what_of(a, name)};
    if (name < a->nnames)
        a->api_of[name] = (uint32_t)(a->napi + 1);
    return &a->api[a->napi++];
}

/* A launch call with no launch call above it. */
static int outermost(oh_apis *a, const int32_t *parent, int32_t row)
{
    for (int32_t p = parent[row]; p >= 0; p = parent[p])
        if (oh_apis_is_launch(a, p))
            return 0;
    return 1;
}

int oh_apis_find(oh_apis *a, tp_stage *st, const tp_cols *c, const int32_t *launcher,
                 const int32_t *parent)
{
    memset(a, 0, sizeof *a);
    a->st = st;
    a->c = c;
    a->nnames = tp_str_count(st);
    size_t n = c->n ? c->n : 1, nn = a->nnames ? a->nnames : 1;
    int rc = tp_vocab_get(st, &a->vocab);
    a->linked = tp_calloc(n, 1);
    a->what = tp_calloc(nn, 1);
    a->api_of = tp_calloc(nn, sizeof *a->api_of);
    a->calls = tp_malloc(n * sizeof *a->calls);
    if (rc != TP_OK || !a->linked || !a->what || !a->api_of || !a->calls)
        return TP_ENOMEM;
    for (size_t i = 0; i < c->n; i++)
        if (tp_ev_is_activity(c, i) && launcher[i] >= 0)
            a->linked[launcher[i]] = 1;
    for (size_t i = 0; i < c->n; i++) {
        if (!tp_ev_is_host(c, i) || !oh_apis_is_launch(a, (int32_t)i) ||
            !outermost(a, parent, (int32_t)i))
            continue;
        oh_api *api = api_of(a, c->name[i]);
        if (api == NULL)
            return TP_ENOMEM;
        api->count++;
        api->linked += a->linked[i];
        api->sum_ns += c->dur[i];
        a->calls[a->ncalls++] = (uint32_t)i;
    }
    return TP_OK;
}

void oh_apis_free(oh_apis *a)
{
    tp_vocab_free(&a->vocab);
    tp_free(a->linked);
    tp_free(a->what);
    tp_free(a->api_of);
    tp_free(a->calls);
    tp_free(a->api);
    memset(a, 0, sizeof *a);
}

void oh_apis_counted(oh_apis *a, int32_t row)
{
    oh_api *api = api_of(a, a->c->name[row]);
    if (api == NULL)
        return; /* out of memory: the count stays short, the run fails later */
    api->counted++;
    api->counted_linked += a->linked[row];
}

static int by_count(const void *x, const void *y, void *ctx)
{
    oh_apis *a = ctx;
    const oh_api *p = x, *q = y;
    if (p->count != q->count)
        return p->count > q->count ? -1 : 1;
    return strcmp(tp_str_text(a->st, p->name), tp_str_text(a->st, q->name));
}

static int api_row(oh_apis *a, tp_result *r, const oh_api *api)
{
    tp_stage *st = a->st;
    size_t row;
    int rc = tp_result_add_row(st, r, &row);
    rc = rc ? rc : tp_result_set_str(st, r, row, oh_api_api, tp_str_text(st, api->name));
    if (rc == TP_OK && api->what != TP_LAUNCHES_NOTHING)
        rc = tp_result_set_str(st, r, row, oh_api_launches, tp_launch_what_name(api->what));
    rc = rc ? rc : tp_result_set_i64(st, r, row, oh_api_count, api->count);
    rc = rc ? rc : tp_result_set_i64(st, r, row, oh_api_linked, api->linked);
    rc = rc ? rc : tp_result_set_i64(st, r, row, oh_api_counted, api->counted);
    rc = rc ? rc : tp_result_set_i64(st, r, row, oh_api_left_out, api->linked - api->counted_linked);
    rc = rc ? rc : tp_result_set_f64(st, r, row, oh_api_sum_us, (double)api->sum_ns / 1000.0);
    if (rc == TP_OK && api->count > 0)
        rc = tp_result_set_f64(st, r, row, oh_api_mean_us,
                               (double)api->sum_ns / 1000.0 / (double)api->count);
    return rc;
}

/* "cudaLaunchKernelExC 150, cuLaunchKernel 22" for the (first five) APIs
 * leaving launches out, the most calls first (the rows are sorted so). */
static void left_out_text(oh_apis *a, char *buf, size_t size)
{
    size_t at = 0, listed = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < a->napi && at < size; i++) {
        int64_t out = a->api[i].linked - a->api[i].counted_linked;
        if (out > 0 && listed++ == 5) {
            snprintf(buf + at, size - at, ", ...");
            break;
        }
        if (out > 0) {
            int k = snprintf(buf + at, size - at, "%s%s %lld", at ? ", " : "",
                             tp_str_text(a->st, a->api[i].name), (long long)out);
            at += k > 0 ? (size_t)k : 0;
        }
    }
}

int oh_apis_write(oh_apis *a, const char *compat, int is_compat)
{
    tp_result *r = tp_result_declared(a->st, "by_api");
    if (r == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(a->st, r, "title", "Launch calls per API");
    int rc = tp_sort(a->api, a->napi, sizeof *a->api, by_count, a);
    int64_t linked = 0, left_out = 0;
    for (size_t i = 0; i < a->napi && rc == TP_OK; i++) {
        rc = api_row(a, r, &a->api[i]);
        linked += a->api[i].linked;
        left_out += a->api[i].linked - a->api[i].counted_linked;
    }
    char note[64];
    snprintf(note, sizeof note, "%lld", (long long)left_out);
    tp_result_set_meta(a->st, r, "left_out", note);
    if (rc == TP_OK && is_compat && left_out > 0) {
        char apis[512];
        left_out_text(a, apis, sizeof apis);
        tp_log(a->st, TP_LOG_WARN,
               "compat: %s counts %lld of %lld linked launches in T4; its definition leaves out "
               "%lld (%s)",
               compat, (long long)(linked - left_out), (long long)linked, (long long)left_out,
               apis);
    }
    return rc;
}
