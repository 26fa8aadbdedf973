/* critical_path: what-if by replay (docs/plugins/critical_path.md, "What-if"):
 * the same edges, new weights, replayed; per what-if and iteration the
 * replayed time against the measured one, and the new bound-by. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include "cp.h"
#include <tracepipe/tp_sdk_regex.h>

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
    const char *name = tp_str_text(g->st, g->c->name[g->row[k]]);
    return re != NULL && tp_pyre_search(re, name, strlen(name), md) > 0;
}

/* The weights' factors of what-if m on every node. */
int cp_change_of(const cp_graph *g, const tp_optmap *m, size_t i, cp_change *ch)
{
    tp_stage *st = g->st;
    pcre2_code *kre = NULL, *sre = NULL;
    pcre2_match_data *md = pcre2_match_data_create(4, NULL);
    double scale = num(m, "scale", 1), host = num(m, "host", 1), comm = 1;
    ch->launch = num(m, "launch_overhead", 1);
    int rc = md ? regex(st, m, i, "kernels", &kre) : TP_ENOMEM;
    rc = rc ? rc : regex(st, m, i, "drop_sync", &sre);
    rc = rc ? rc : comm_factor(st, m, i, &comm);
    for (size_t k = 0; k < g->nn && rc == TP_OK; k++) {
        int32_t n = (int32_t)k;
        double s = 1, piece = 1;
        if (tp_kind_is_activity(g->c->kind[g->row[k]])) {
            s = matches(g, kre, md, n) ? scale : 1;
            s *= g->cat[k] == CP_COMMUNICATION ? comm : 1;
        } else if (g->cat[k] == CP_HOST_CPU) {
            s = piece = host;
        } else if (g->cat[k] == CP_LAUNCH_OVERHEAD) {
            s = piece = ch->launch;
        }
        ch->self_scale[k] = s;
        ch->piece_scale[k] = piece;
        ch->drop[k] = g->cat[k] == CP_SYNC_WAIT && matches(g, sre, md, n);
    }
    pcre2_code_free(kre);
    pcre2_code_free(sre);
    pcre2_match_data_free(md);
    return rc;
}
