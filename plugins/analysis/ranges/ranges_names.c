/* ranges: the name normaliser (ranges_names.h; docs/plugins/ranges.md). */
#include "ranges_names.h"

#include <string.h>

static int bad_template(tp_stage *st, const char *repl, size_t off)
{
    return tp_fail(st, TP_EINVAL,
                   "normalize: replacement '%s': bad escape at offset %zu (Python's re.sub "
                   "template: \\1, \\g<name>, \\\\, \\n ...)",
                   repl, off);
}

/* PCRE2 refused a substitution: an unknown group, or the engine's limits. */
static int sub_failed(tp_stage *st, const rg_norm *nm, size_t k, const tp_cols *c, size_t row,
                      int code)
{
    char why[128];
    tp_pyre_error_text(code, why, sizeof why);
    const char *source = tp_trace_source(tp_stage_trace(st));
    size_t len = tp_str_len(st, c->name[row]);
    return tp_fail(st, TP_EINVAL, "%s: event %zu: normalize rule %zu ('%s') failed on the name '%.*s%s': %s",
                   source ? source : "trace", row + 1, k + 1, nm->re[k].pattern,
                   len > 80 ? 80 : (int)len, tp_str_text(st, c->name[row]), len > 80 ? "..." : "",
                   why);
}

int rg_norm_open(tp_stage *st, rg_norm *nm, const tp_strlist *pairs)
{
    memset(nm, 0, sizeof *nm);
    if (pairs->n % 2 != 0)
        return tp_fail(st, TP_EINVAL,
                       "normalize: %zu items, an odd number; give pairs of a regex and its replacement, e.g. "
                       "['(, op_id = \\d+|, seq = \\d+)', '']",
                       pairs->n);
    if (pairs->n == 0)
        return TP_OK;
    size_t n = pairs->n / 2;
    nm->re = tp_calloc(n, sizeof *nm->re);
    nm->repl = tp_calloc(n, sizeof *nm->repl);
    if (nm->re == NULL || nm->repl == NULL)
        return TP_ENOMEM;
    nm->n = n;
    for (size_t k = 0; k < n; k++) {
        const char *pattern = pairs->items[2 * k], *repl = pairs->items[2 * k + 1];
        int rc = tp_markers_open(st, &nm->re[k], "normalize", pattern);
        if (rc != TP_OK)
            return rc;
        nm->repl[k] = tp_malloc(2 * strlen(repl) + 1);
        if (nm->repl[k] == NULL)
            return TP_ENOMEM;
        size_t off = 0;
        if (tp_pyre_template(repl, nm->repl[k], &off) != 0)
            return bad_template(st, repl, off);
    }
    return TP_OK;
}

void rg_norm_close(rg_norm *nm)
{
    for (size_t k = 0; k < nm->n; k++) {
        if (nm->re)
            tp_markers_close(&nm->re[k]);
        if (nm->repl)
            tp_free(nm->repl[k]);
    }
    tp_free(nm->re);
    tp_free(nm->repl);
    memset(nm, 0, sizeof *nm);
}

int rg_norm_name(tp_stage *st, const rg_norm *nm, const tp_cols *c, size_t row, tp_str *out)
{
    *out = c->name[row];
    if (nm->n == 0)
        return TP_OK;
    size_t len = tp_str_len(st, *out);
    char *text = tp_malloc(len + 1);
    if (text == NULL)
        return TP_ENOMEM;
    memcpy(text, tp_str_text(st, *out), len + 1);
    for (size_t k = 0; k < nm->n; k++) {
        int err = 0;
        char *next = tp_pyre_sub(nm->re[k].re, nm->repl[k], text, len, &len, &err);
        tp_free(text);
        if (next == NULL)
            return err == PCRE2_ERROR_NOMEMORY ? TP_ENOMEM : sub_failed(st, nm, k, c, row, err);
        text = next;
    }
    *out = tp_intern(st, text, len);
    tp_free(text);
    return *out == TP_STR_ERROR ? TP_ENOMEM : TP_OK;
}
