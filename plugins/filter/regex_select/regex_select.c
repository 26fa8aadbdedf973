/*
 * regex_select: keep events whose name, category or one args value matches
 * regexes, optionally with their hierarchy (descendants, ancestors).
 *
 * Regexes are PCRE2 read the Python way (Unicode \w \d \s \b, \Z and {,n}
 * rewritten, see tp_pyregex.h) and search anywhere in the text, like
 * re.search.  Each pattern is
 * compiled once per run (JIT when available), and names and categories are
 * interned, so each distinct string id is matched once and its verdict
 * cached.  Metadata events are always kept.
 */
#include "regex_select.h"

#include <tracepipe/tp_sdk_regex.h>
#include <stdlib.h>
#include <string.h>

static const char *const rs_fields[] = {"name", "category", "arg", NULL};
static const char *const rs_keeps[] = {"matches", "with_descendants", "with_ancestors", "with_both",
                                       NULL};

static const tp_option rs_options[] = {
    TP_OPTION_LIST("include", rs_config, include,
                   "regexes: keep events matching any (all events when empty)"),
    TP_OPTION_LIST("exclude", rs_config, exclude, "regexes: drop events matching any"),
    TP_OPTION_CHOICE("field", rs_config, field, "name", rs_fields, "what the regexes are matched against"),
    TP_OPTION_STRING("arg", rs_config, arg, NULL, "args key to match when field is arg"),
    TP_OPTION_BOOL("ignore_case", rs_config, ignore_case, "false", "match case-insensitively"),
    TP_OPTION_CHOICE("keep", rs_config, keep, "matches", rs_keeps,
                     "also keep the descendants and/or ancestors of matching events"),
    TP_OPTION_END};

/* ---- patterns */
static int compile_list(tp_stage *st, const char *what, const tp_strlist *l, uint32_t flags,
                        rs_pattern **out)
{
    *out = tp_calloc(l->n ? l->n : 1, sizeof **out);
    if (*out == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < l->n; i++) {
        int err;
        PCRE2_SIZE off;
        rs_pattern *p = &(*out)[i];
        p->re = tp_pyre_compile(l->items[i], flags, &err, &off);
        if (p->re == NULL) {
            PCRE2_UCHAR text[256];
            pcre2_get_error_message(err, text, sizeof text);
            return tp_fail(st, TP_EINVAL, "%s[%zu]: bad regex '%s': %s at offset %zu", what, i,
                           l->items[i], (const char *)text, (size_t)off);
        }
        tp_pyre_jit(p->re); /* falls back to the interpreter */
        if ((p->md = pcre2_match_data_create_from_pattern(p->re, NULL)) == NULL)
            return TP_ENOMEM;
    }
    return TP_OK;
}

static void free_list(rs_pattern *p, size_t n)
{
    for (size_t i = 0; p && i < n; i++) {
        pcre2_match_data_free(p[i].md);
        pcre2_code_free(p[i].re);
    }
    tp_free(p);
}

static int rs_init(tp_stage *st, const void *config, void **state)
{
    const rs_config *cfg = config;
    rs_state *s = tp_calloc(1, sizeof *s);
    if (s == NULL)
        return TP_ENOMEM;
    *state = s;
    s->n_inc = cfg->include.n;
    s->n_exc = cfg->exclude.n;
    if (strcmp(cfg->field, "arg") == 0 && (cfg->arg == NULL || cfg->arg[0] == '\0'))
        return tp_fail(st, TP_EINVAL, "field: arg needs the option 'arg' (the args key to match)");
    uint32_t flags = cfg->ignore_case ? PCRE2_CASELESS : 0;
    int rc = compile_list(st, "include", &cfg->include, flags, &s->inc);
    if (rc == TP_OK)
        rc = compile_list(st, "exclude", &cfg->exclude, flags, &s->exc);
    return rc;
}

static void rs_destroy(tp_stage *st, void *state)
{
    (void)st;
    rs_state *s = state;
    if (s == NULL)
        return;
    free_list(s->inc, s->n_inc);
    free_list(s->exc, s->n_exc);
    tp_free(s->memo);
    tp_free(s->buf);
    tp_free(s);
}

/* 1 if a pattern of the list matches, 0 if none does, -1 if PCRE2 gave up
 * on one (recorded in s for the error message). */
static int any_match(rs_state *s, const char *list, rs_pattern *p, size_t n, const char *text,
                     size_t len)
{
    for (size_t i = 0; i < n; i++) {
        int rc = tp_pyre_search(p[i].re, text, len, p[i].md);
        if (rc > 0)
            return 1;
        if (rc < 0) {
            s->err = rc;
            s->err_list = list;
            s->err_index = i;
            return -1;
        }
    }
    return 0;
}

/* The verdict for a text: 1 when included (or no include list) and not
 * excluded, 0 otherwise, -1 on a regex engine error.  NULL text (an absent
 * args key) matches no regex. */
static int verdict(rs_state *s, const char *text, size_t len)
{
    if (text == NULL)
        return s->n_inc == 0;
    if (s->n_inc) {
        int m = any_match(s, "include", s->inc, s->n_inc, text, len);
        if (m <= 0)
            return m;
    }
    int m = any_match(s, "exclude", s->exc, s->n_exc, text, len);
    return m < 0 ? -1 : !m;
}

static int str_verdict(tp_stage *st, rs_state *s, tp_str id)
{
    if (id >= s->n_memo)
        return verdict(s, tp_str_text(st, id), tp_str_len(st, id));
    if (s->memo[id] == 0) {
        int v = verdict(s, tp_str_text(st, id), tp_str_len(st, id));
        if (v < 0)
            return v; /* not cached: the run stops */
        s->memo[id] = v ? 1 : 2;
    }
    return s->memo[id] == 1;
}

/* ---- args values */
static int buf_reserve(rs_state *s, size_t n)
{
    if (n <= s->buf_cap)
        return TP_OK;
    char *b = tp_realloc(s->buf, n);
    if (b == NULL)
        return TP_ENOMEM;
    s->buf = b;
    s->buf_cap = n;
    return TP_OK;
}

static unsigned hex4(const char *p)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = p[i];
        v = v * 16 + (unsigned)(c >= '0' && c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10);
    }
    return v;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Unescapes the JSON string body v[0, n) (already validated by the reader)
 * into s->buf. */
static int unescape(rs_state *s, const char *v, size_t n, size_t *out_len)
{
    if (buf_reserve(s, n + 1) != TP_OK)
        return TP_ENOMEM;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] != '\\' || i + 1 >= n) {
            s->buf[o++] = v[i];
            continue;
        }
        char e = v[++i];
        if (e == 'u' && i + 4 < n) {
            unsigned cp = hex4(v + i + 1);
            i += 4;
            unsigned lo = i + 6 < n && v[i + 1] == '\\' && v[i + 2] == 'u' ? hex4(v + i + 3) : 0;
            if (cp >= 0xD800 && cp < 0xDC00 && lo >= 0xDC00 && lo < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i += 6;
            } else if (cp >= 0xD800 && cp < 0xE000) {
                cp = 0xFFFD; /* a lone surrogate has no UTF-8 form (as the reader does) */
            }
            o += put_utf8(s->buf + o, cp); /* never longer than its escape */
            continue;
        }
        s->buf[o++] = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e == 'b' ? '\b'
                    : e == 'f' ? '\f' : e;
    }
    s->buf[o] = '\0';
    *out_len = o;
    return TP_OK;
}

/* The raw value text of args[key] (strings unquoted), or NULL. */
static int arg_text(rs_state *s, const tp_trace *t, size_t row, const char *key, const char **out,
                    size_t *len)
{
    size_t alen, vlen;
    const char *args = tp_trace_args(t, row, &alen);
    const char *v = args ? tp_json_find(args, alen, key, &vlen) : NULL;
    *out = NULL;
    if (v == NULL)
        return TP_OK;
    if (vlen >= 2 && v[0] == '"') {
        if (memchr(v + 1, '\\', vlen - 2) == NULL) {
            *out = v + 1;
            *len = vlen - 2;
            return TP_OK;
        }
        if (unescape(s, v + 1, vlen - 2, len) != TP_OK)
            return TP_ENOMEM;
        *out = s->buf;
        return TP_OK;
    }
    *out = v;
    *len = vlen;
    return TP_OK;
}

/* ---- run */

/* Stops the run when PCRE2 gave up on event `row`: keeping or dropping it
 * would be a guess. */
static int engine_error(tp_stage *st, const rs_config *cfg, const rs_state *s, size_t row,
                        const char *text, size_t len)
{
    char why[128];
    tp_pyre_error_text(s->err, why, sizeof why);
    const tp_strlist *l = strcmp(s->err_list, "include") == 0 ? &cfg->include : &cfg->exclude;
    const char *source = tp_trace_source(tp_stage_trace(st));
    int shown = len > 80 ? 80 : (int)len;
    const char *what = strcmp(cfg->field, "arg") == 0 ? "args value" : cfg->field;
    return tp_fail(st, TP_EINVAL,
                   "%s: event %zu: %s[%zu] regex '%s' failed on the %s '%.*s%s': %s (the "
                   "pattern backtracks too much; simplify it)",
                   source ? source : "trace", row + 1, s->err_list, s->err_index,
                   l->items[s->err_index], what, shown, text, len > 80 ? "..." : "",
                   why);
}

static int mark_matches(tp_stage *st, const rs_config *cfg, rs_state *s, uint8_t *match,
                        size_t *n_match)
{
    const tp_trace *t = tp_stage_trace(st);
    const tp_cols *c = tp_trace_cols(t);
    int by_arg = strcmp(cfg->field, "arg") == 0;
    const tp_str *ids = strcmp(cfg->field, "category") == 0 ? c->cat : c->name;
    s->n_memo = tp_str_count(st);
    if (!by_arg && (s->memo = tp_calloc(s->n_memo ? s->n_memo : 1, 1)) == NULL)
        return TP_ENOMEM;
    *n_match = 0;
    for (size_t i = 0; i < c->n; i++) {
        int m;
        const char *text = NULL;
        size_t len = 0;
        if (by_arg) {
            if (arg_text(s, t, i, cfg->arg, &text, &len) != TP_OK)
                return TP_ENOMEM;
            m = verdict(s, text, len);
        } else {
            m = str_verdict(st, s, ids[i]);
        }
        if (m < 0)
            return engine_error(st, cfg, s, i, by_arg ? text : tp_str_text(st, ids[i]),
                                by_arg ? len : tp_str_len(st, ids[i]));
        match[i] = (uint8_t)m;
        *n_match += (size_t)m;
    }
    return TP_OK;
}

static int rs_run(tp_stage *st, const void *config, void *state)
{
    const rs_config *cfg = config;
    rs_state *s = state;
    const tp_trace *t = tp_stage_trace(st);
    const tp_cols *c = tp_trace_cols(t);
    uint8_t *keep = tp_keep_mask(st);
    size_t n_match;
    int mrc = mark_matches(st, cfg, s, keep, &n_match);
    if (mrc == TP_ENOMEM)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    if (mrc != TP_OK)
        return mrc; /* engine_error reported it */
    int desc = strcmp(cfg->keep, "with_descendants") == 0 || strcmp(cfg->keep, "with_both") == 0;
    int anc = strcmp(cfg->keep, "with_ancestors") == 0 || strcmp(cfg->keep, "with_both") == 0;
    const char *source = "";
    if (desc || anc) {
        int rc = rs_extend(st, t, keep, desc, anc, &source);
        if (rc != TP_OK)
            return tp_fail(st, rc, "out of memory");
    }
    size_t n_meta = 0;
    for (size_t i = 0; i < c->n; i++) {
        if (c->kind[i] == TP_KIND_METADATA && !keep[i]) {
            keep[i] = 1;
            n_meta++;
        }
    }
    size_t kept = 0;
    for (size_t i = 0; i < c->n; i++)
        kept += keep[i];
    tp_log(st, TP_LOG_INFO, "%zu of %zu events match; %zu kept with %s%s (%zu metadata)", n_match,
           c->n, kept, cfg->keep, source, n_meta);
    return TP_OK;
}

static const tp_stage_desc rs_stages[] = {
    TP_STAGE_FULL(TP_STAGE_FILTER, "regex_select",
                  "keep events whose name, category or args value matches regexes (PCRE2)",
                  rs_options, rs_config, NULL, TP_PRODUCES_NONE, 0,
                  rs_init, rs_run, rs_destroy),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("regex_select", "0.1.0", rs_stages);
