/*
 * select: keep events by kind, category, process, thread, stream, device,
 * and the trace's rank.  Options combine with AND; the values of one list
 * with OR; an absent or empty list selects everything.  `invert` keeps the
 * events the selection would drop.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>

typedef struct sel_config {
    tp_strlist kinds, categories, pids, tids, streams, devices;
    int64_t rank;
    int invert;
} sel_config;

static const tp_option sel_options[] = {
    TP_OPTION_LIST("kinds", sel_config, kinds,
                   "event kinds: cpu_op annotation gpu_annotation python runtime kernel memcpy "
                   "memset flow instant counter metadata trace other"),
    TP_OPTION_LIST("categories", sel_config, categories, "exact category strings"),
    TP_OPTION_LIST("pids", sel_config, pids, "process ids (numbers or strings)"),
    TP_OPTION_LIST("tids", sel_config, tids, "thread ids (numbers or strings)"),
    TP_OPTION_LIST("streams", sel_config, streams, "GPU streams (integers)"),
    TP_OPTION_LIST("devices", sel_config, devices, "GPU devices (integers)"),
    TP_OPTION_INT("rank", sel_config, rank, "-1", -1, 1e9,
                  "keep the trace only if distributedInfo.rank is this (-1: any)"),
    TP_OPTION_BOOL("invert", sel_config, invert, "false", "keep what the selection drops"),
    TP_OPTION_END};

/* A list option turned into sorted int64 values; `any` when not given. */
typedef struct i64list {
    int any;
    int64_t *v;
    size_t n;
} i64list;

typedef struct sel_state {
    int any_kind;
    uint8_t kinds[TP_KIND__COUNT];
    i64list cats, pids, tids, streams, devices;
} sel_state;

static int i64_cmp(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int in_list(const i64list *l, int64_t x)
{
    return l->any || (l->n && bsearch(&x, l->v, l->n, sizeof x, i64_cmp) != NULL);
}

/* A plain decimal integer (optional '-'); 1 when it is one. */
static int parse_int(const char *s, int64_t *out)
{
    char *end;
    if (s[0] == '\0' || s[0] == '+' || s[0] == ' ')
        return 0;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0')
        return 0;
    *out = (int64_t)v;
    return 1;
}

static int list_alloc(i64list *l, size_t n)
{
    l->any = n == 0;
    l->n = 0;
    l->v = tp_malloc((n ? n : 1) * sizeof *l->v);
    return l->v ? TP_OK : TP_ENOMEM;
}

static void list_sort(i64list *l)
{
    qsort(l->v, l->n, sizeof *l->v, i64_cmp);
}

/* pids/tids: numbers as the reader stores them (non-negative), anything
 * else as an interned text; unknown texts match nothing. */
static int ids_from(tp_stage *st, const tp_strlist *src, i64list *l)
{
    if (list_alloc(l, src->n) != TP_OK)
        return TP_ENOMEM;
    for (size_t i = 0; i < src->n; i++) {
        int64_t v;
        tp_str id;
        const char *s = src->items[i];
        if (parse_int(s, &v) && v >= 0 && (s[0] != '0' || s[1] == '\0'))
            l->v[l->n++] = v;
        else if (tp_str_lookup(st, s, strlen(s), &id))
            l->v[l->n++] = TP_ID_FROM_STR(id);
    }
    list_sort(l);
    return TP_OK;
}

static int ints_from(tp_stage *st, const char *what, const tp_strlist *src, i64list *l)
{
    if (list_alloc(l, src->n) != TP_OK)
        return TP_ENOMEM;
    for (size_t i = 0; i < src->n; i++) {
        if (!parse_int(src->items[i], &l->v[l->n]))
            return tp_fail(st, TP_EINVAL, "%s[%zu]: '%s' is not an integer", what, i, src->items[i]);
        l->n++;
    }
    list_sort(l);
    return TP_OK;
}

static int cats_from(tp_stage *st, const tp_strlist *src, i64list *l)
{
    if (list_alloc(l, src->n) != TP_OK)
        return TP_ENOMEM;
    for (size_t i = 0; i < src->n; i++) {
        tp_str id;
        if (tp_str_lookup(st, src->items[i], strlen(src->items[i]), &id))
            l->v[l->n++] = id;
    }
    list_sort(l);
    return TP_OK;
}

static int kinds_from(tp_stage *st, const tp_strlist *src, sel_state *s)
{
    s->any_kind = src->n == 0;
    for (size_t i = 0; i < src->n; i++) {
        tp_kind k = tp_kind_from_name(src->items[i]);
        if (k == TP_KIND_OTHER && strcmp(src->items[i], tp_kind_name(TP_KIND_OTHER)) != 0) {
            char all[256] = "";
            for (unsigned j = 0; j < TP_KIND__COUNT; j++) {
                size_t used = strlen(all);
                snprintf(all + used, sizeof all - used, "%s%s", j ? " " : "", tp_kind_name(j));
            }
            return tp_fail(st, TP_EINVAL, "kinds[%zu]: unknown kind '%s' (kinds: %s)", i,
                           src->items[i], all);
        }
        s->kinds[k] = 1;
    }
    return TP_OK;
}

static void sel_destroy(tp_stage *st, void *state)
{
    (void)st;
    sel_state *s = state;
    if (s == NULL)
        return;
    tp_free(s->cats.v);
    tp_free(s->pids.v);
    tp_free(s->tids.v);
    tp_free(s->streams.v);
    tp_free(s->devices.v);
    tp_free(s);
}

static int sel_init(tp_stage *st, const void *config, void **state)
{
    const sel_config *cfg = config;
    sel_state *s = tp_calloc(1, sizeof *s);
    if (s == NULL)
        return TP_ENOMEM;
    *state = s;
    int rc = kinds_from(st, &cfg->kinds, s);
    if (rc == TP_OK)
        rc = cats_from(st, &cfg->categories, &s->cats);
    if (rc == TP_OK)
        rc = ids_from(st, &cfg->pids, &s->pids);
    if (rc == TP_OK)
        rc = ids_from(st, &cfg->tids, &s->tids);
    if (rc == TP_OK)
        rc = ints_from(st, "streams", &cfg->streams, &s->streams);
    if (rc == TP_OK)
        rc = ints_from(st, "devices", &cfg->devices, &s->devices);
    return rc;
}

/* 1 when the trace's distributedInfo.rank equals want. */
static int rank_matches(const tp_trace *t, int64_t want, char *got, size_t size)
{
    const char *info = tp_trace_meta(t, "distributedInfo");
    size_t vlen = 0;
    const char *v = info ? tp_json_find(info, strlen(info), "rank", &vlen) : NULL;
    if (v == NULL) {
        snprintf(got, size, "no distributedInfo.rank");
        return 0;
    }
    snprintf(got, size, "rank %.*s", (int)(vlen < 32 ? vlen : 32), v);
    char num[32];
    if (vlen >= sizeof num)
        return 0;
    memcpy(num, v, vlen);
    num[vlen] = '\0';
    int64_t r;
    return parse_int(num, &r) && r == want;
}

static int sel_event(const sel_state *s, const tp_cols *c, size_t i)
{
    return (s->any_kind || (c->kind[i] < TP_KIND__COUNT && s->kinds[c->kind[i]])) &&
           in_list(&s->cats, c->cat[i]) && in_list(&s->pids, tp_ev_pid(c, i)) &&
           in_list(&s->tids, tp_ev_tid(c, i)) && in_list(&s->streams, tp_ev_stream(c, i)) &&
           in_list(&s->devices, tp_ev_device(c, i));
}

static int sel_run(tp_stage *st, const void *config, void *state)
{
    const sel_config *cfg = config;
    const sel_state *s = state;
    const tp_trace *t = tp_stage_trace(st);
    const tp_cols *c = tp_trace_cols(t);
    uint8_t *keep = tp_keep_mask(st);
    int rank_ok = 1;
    char got[64] = "";
    if (cfg->rank >= 0) {
        rank_ok = rank_matches(t, cfg->rank, got, sizeof got);
        if (!rank_ok)
            tp_log(st, TP_LOG_INFO, "trace has %s, not rank %lld: its events are not selected", got,
                   (long long)cfg->rank);
    }
    size_t kept = 0;
    for (size_t i = 0; i < c->n; i++) {
        int k = rank_ok && sel_event(s, c, i);
        keep[i] = (uint8_t)(cfg->invert ? !k : k);
        kept += keep[i];
    }
    tp_log(st, TP_LOG_INFO, "selected %zu of %zu events%s", kept, c->n, cfg->invert ? " (inverted)" : "");
    return TP_OK;
}

static const tp_stage_desc sel_stages[] = {
    TP_STAGE_FULL(TP_STAGE_FILTER, "select",
                  "keep events by kind, category, pid, tid, stream, device or rank",
                  sel_options, sel_config, NULL, TP_PRODUCES_NONE, 0,
                  sel_init, sel_run, sel_destroy),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("select", "0.1.0", sel_stages);
