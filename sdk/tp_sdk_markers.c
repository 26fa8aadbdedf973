/* SDK: iteration markers by regex (tp_sdk_markers.h). */
#include <tracepipe/tp_sdk_markers.h>

#include <stdio.h>

int tp_markers_open(tp_stage *st, tp_markers *m, const char *option, const char *pattern)
{
    int err;
    PCRE2_SIZE off;
    m->pattern = pattern;
    m->md = NULL;
    m->re = tp_pyre_compile(pattern, 0, &err, &off); /* Unicode classes, \Z -> \z */
    if (m->re == NULL) {
        PCRE2_UCHAR text[256];
        pcre2_get_error_message(err, text, sizeof text);
        return tp_fail(st, TP_EINVAL, "%s: bad regex '%s': %s at offset %zu", option, pattern,
                       (const char *)text, (size_t)off);
    }
    tp_pyre_jit(m->re); /* interpreter if no JIT */
    m->md = pcre2_match_data_create_from_pattern(m->re, NULL);
    return m->md ? TP_OK : TP_ENOMEM;
}

void tp_markers_close(tp_markers *m)
{
    pcre2_match_data_free(m->md);
    pcre2_code_free(m->re);
    m->md = NULL;
    m->re = NULL;
}

int tp_markers_error(tp_stage *st, const tp_markers *m, const tp_cols *c, size_t row, int code)
{
    char why[128];
    tp_pyre_error_text(code, why, sizeof why);
    const char *source = tp_trace_source(tp_stage_trace(st));
    const char *name = tp_str_text(st, c->name[row]);
    size_t len = tp_str_len(st, c->name[row]);
    return tp_fail(st, TP_EINVAL,
                   "%s: event %zu: marker regex '%s' failed on the name '%.*s%s': %s (the "
                   "pattern backtracks too much; simplify it)",
                   source ? source : "trace", row + 1, m->pattern, len > 80 ? 80 : (int)len, name,
                   len > 80 ? "..." : "", why);
}

int tp_markers_candidate(const tp_cols *c, size_t i, int where)
{
    switch (where) {
    case TP_MARKERS_RANGES:
        return c->phase[i] == 'b';
    case TP_MARKERS_GPU:
        return c->kind[i] == TP_KIND_GPU_ANNOTATION;
    default:
        return tp_ev_is_host(c, i);
    }
}

int tp_markers_memo(tp_stage *st, const tp_markers *m, int ranges, const tp_cols *c,
                    uint8_t *memo, size_t nstr)
{
    for (size_t i = 0; i < c->n; i++) {
        tp_str name = c->name[i];
        if (!tp_markers_candidate(c, i, ranges) || name >= nstr || memo[name] != 0)
            continue;
        int rc = tp_pyre_search(m->re, tp_str_text(st, name), tp_str_len(st, name), m->md);
        if (rc < 0)
            return tp_markers_error(st, m, c, i, rc);
        memo[name] = rc ? 1 : 2;
    }
    return TP_OK;
}

int tp_markers_iterations(tp_stage *st, const tp_markers *m, int ranges, const tp_cols *c,
                          tp_iterations *it)
{
    size_t nstr = tp_str_count(st);
    uint8_t *memo = tp_calloc(nstr ? nstr : 1, 1);
    if (memo == NULL)
        return TP_ENOMEM;
    int rc = tp_markers_memo(st, m, ranges, c, memo, nstr);
    if (rc == TP_OK)
        rc = ranges ? tp_iterations_from_ranges(st, c, memo, nstr, it)
                    : tp_iterations_from_markers(st, c, memo, nstr, TP_NEST_CLAMP_NS, it);
    tp_free(memo);
    return rc;
}
