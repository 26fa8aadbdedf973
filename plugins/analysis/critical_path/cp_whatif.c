/* critical_path: what-if by replay (docs/plugins/critical_path.md, "What-if"):
 * the same edges, new weights, replayed; per what-if and iteration the
 * replayed time against the measured one, and the new bound-by. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include "cp.h"
#include <tracepipe/tp_sdk_opmodel.h>
#include <tracepipe/tp_sdk_regex.h>

/* What selects the GPU activities a what-if scales (every key given must
 * hold): kernels (name regex), class (kernel class or op category), ops
 * (a regex on the host events above the launch). */
typedef struct cp_select {
    pcre2_code *kernels, *ops;
    pcre2_match_data *md;
    int kclass;          /* tp_kernel_class + 1, 0: none */
    int opcat;           /* tp_op_category + 1, 0: none */
    int any;             /* a selector was given */
    uint8_t *ops_memo;   /* per name: 0 not asked, 1 no, 2 matches */
    uint8_t *cat_memo;   /* per name: op category + 1, 0 not asked */
    size_t nmemo;
    tp_vocab v;
} cp_select;

/* A number value of a what-if key (validated by the option schema). */
static double num(const tp_optmap *m, const char *key, double def)
{
    const char *v = tp_optmap_get(m, key);
    return v ? strtod(v, NULL) : def;
}

/* A regex value compiled, or NULL (absent); fails the stage on a bad one. */
static int regex(tp_stage *st, const tp_optmap *m, size_t i, const char *key, pcre2_code **re)
{
    const char *v = tp_optmap_get(m, key);
    *re = NULL;
    if (v == NULL)
        return TP_OK;
    int err;
    PCRE2_SIZE off;
    if ((*re = tp_pyre_compile(v, 0, &err, &off)) != NULL)
        return TP_OK;
    PCRE2_UCHAR text[256];
    pcre2_get_error_message(err, text, sizeof text);
    return tp_fail(st, TP_EINVAL, "what_if[%zu].%s: bad regex '%s': %s at offset %zu", i, key, v,
                   (const char *)text, (size_t)off);
}

/* communication: overlapped (0) or N times faster (1/N). */
static int comm_factor(tp_stage *st, const tp_optmap *m, size_t i, double *f)
{
    const char *v = tp_optmap_get(m, "communication");
    *f = 1;
    if (v == NULL)
        return TP_OK;
    if (strcmp(v, "overlapped") == 0) {
        *f = 0;
        return TP_OK;
    }
    double n = strtod(v, NULL);
    if (!(n > 0))
        return tp_fail(st, TP_EINVAL, "what_if[%zu].communication: %s is not a speed-up factor "
                       "(> 0) or 'overlapped'", i, v);
    *f = 1 / n;
    return TP_OK;
}

static int matches(const cp_graph *g, pcre2_code *re, pcre2_match_data *md, int32_t k)
{
    const char *name = tp_str_text(g->st, cp_cols_of(g, (size_t)k)->name[g->row[k]]);
    return re != NULL && tp_pyre_search(re, name, strlen(name), md) > 0;
}

/* class: a kernel class (computation, communication, memory, other) or an
 * op category (gemm, attention, moe, norm, conv, elementwise). */
static int class_of(tp_stage *st, const tp_optmap *m, size_t i, cp_select *x)
{
    const char *v = tp_optmap_get(m, "class");
    if (v == NULL)
        return TP_OK;
    for (int k = 0; k <= TP_KCLASS_OTHER; k++)
        if (strcmp(v, tp_kernel_class_name((tp_kernel_class)k)) == 0)
            x->kclass = k + 1;
    for (int c = 0; c < TP_OPCAT_N && x->kclass == 0; c++)
        if (c != TP_OPCAT_COMMUNICATION && c != TP_OPCAT_OTHER &&
            strcmp(v, tp_op_category_name((tp_op_category)c)) == 0)
            x->opcat = c + 1;
    if (x->kclass == 0 && x->opcat == 0)
        return tp_fail(st, TP_EINVAL, "what_if[%zu].class: '%s' is not a kernel class (computation, "
                       "communication, memory, other) or an op category (gemm, attention, moe, "
                       "norm, conv, elementwise)", i, v);
    return TP_OK;
}

/* The op category of name s (memoised). */
static tp_op_category category_of(const cp_graph *g, cp_select *x, tp_str s)
{
    if (s < x->nmemo && x->cat_memo[s] != 0)
        return (tp_op_category)(x->cat_memo[s] - 1);
    tp_op_category c = tp_op_category_of(tp_str_text(g->st, s));
    if (s < x->nmemo)
        x->cat_memo[s] = (uint8_t)(c + 1);
    return c;
}

/* Does the ops regex match host event name s (memoised)? */
static int op_matches(const cp_graph *g, cp_select *x, tp_str s)
{
    if (s < x->nmemo && x->ops_memo[s] != 0)
        return x->ops_memo[s] == 2;
    const char *name = tp_str_text(g->st, s);
    int yes = tp_pyre_search(x->ops, name, strlen(name), x->md) > 0;
    if (s < x->nmemo)
        x->ops_memo[s] = (uint8_t)(yes + 1);
    return yes;
}

/* GPU activity node k's class: its kernel class; its innermost CPU op's
 * category (above its launch), else its own name's. */
static int class_matches(const cp_graph *g, cp_select *x, int32_t k)
{
    const cp_trace *tr = cp_trace_of(g, (size_t)k);
    uint32_t row = g->row[k];
    if (x->kclass)
        return (int)tp_vocab_kernel_class(&x->v, (tp_kind)tr->c->kind[row],
                                          tp_str_text(g->st, tr->c->name[row])) == x->kclass - 1;
    int32_t a = tp_hier_launching_op_ranked(tr->c, &tr->h, row);
    return (int)category_of(g, x, tr->c->name[a >= 0 ? (uint32_t)a : row]) == x->opcat - 1;
}

/* Is a host event above node k's launch matched by the ops regex? */
static int under_ops(const cp_graph *g, cp_select *x, int32_t k)
{
    const cp_trace *tr = cp_trace_of(g, (size_t)k);
    for (int32_t a = tp_hier_launcher(&tr->h, g->row[k]); a >= 0;
         a = tp_hier_parent(&tr->h, a))
        if (op_matches(g, x, tr->c->name[a]))
            return 1;
    return 0;
}

/* Does the what-if select GPU activity node k (every selector given holds)? */
static int selected(const cp_graph *g, cp_select *x, int32_t k)
{
    return x->any && (x->kernels == NULL || matches(g, x->kernels, x->md, k)) &&
           (x->kclass == 0 && x->opcat == 0 ? 1 : class_matches(g, x, k)) &&
           (x->ops == NULL || under_ops(g, x, k));
}

static int select_of(const cp_graph *g, const tp_optmap *m, size_t i, cp_select *x)
{
    x->md = pcre2_match_data_create(4, NULL);
    x->nmemo = tp_str_count(g->st);
    x->ops_memo = tp_calloc(x->nmemo + 1, 1);
    x->cat_memo = tp_calloc(x->nmemo + 1, 1);
    if (!x->md || !x->ops_memo || !x->cat_memo || tp_vocab_get(g->st, &x->v) != TP_OK)
        return TP_ENOMEM;
    int rc = regex(g->st, m, i, "kernels", &x->kernels);
    rc = rc ? rc : regex(g->st, m, i, "ops", &x->ops);
    rc = rc ? rc : class_of(g->st, m, i, x);
    x->any = x->kernels != NULL || x->ops != NULL || x->kclass || x->opcat;
    return rc;
}

static void select_free(cp_select *x)
{
    pcre2_code_free(x->kernels);
    pcre2_code_free(x->ops);
    pcre2_match_data_free(x->md);
    tp_free(x->ops_memo);
    tp_free(x->cat_memo);
    tp_vocab_free(&x->v);
}

/* The weights' factors of what-if m on every node. */
int cp_change_of(const cp_graph *g, const tp_optmap *m, size_t i, cp_change *ch)
{
    tp_stage *st = g->st;
    pcre2_code *sre = NULL;
    cp_select x = {0};
    double scale = num(m, "scale", 1), host = num(m, "host", 1), comm = 1;
    ch->launch = num(m, "launch_overhead", 1);
    int rc = select_of(g, m, i, &x);
    rc = rc ? rc : regex(st, m, i, "drop_sync", &sre);
    rc = rc ? rc : comm_factor(st, m, i, &comm);
    for (size_t k = 0; k < g->nn && rc == TP_OK; k++) {
        int32_t n = (int32_t)k;
        double s = 1, piece = 1;
        if (tp_kind_is_activity(cp_cols_of(g, k)->kind[g->row[k]])) {
            s = selected(g, &x, n) ? scale : 1;
            s *= g->cat[k] == CP_COMMUNICATION ? comm : 1;
        } else if (g->cat[k] == CP_HOST_CPU) {
            s = piece = host;
        } else if (g->cat[k] == CP_LAUNCH_OVERHEAD) {
            s = piece = ch->launch;
        }
        ch->self_scale[k] = s;
        ch->piece_scale[k] = piece;
        ch->drop[k] = g->cat[k] == CP_SYNC_WAIT && matches(g, sre, x.md, n);
    }
    select_free(&x);
    pcre2_code_free(sre);
    return rc;
}
