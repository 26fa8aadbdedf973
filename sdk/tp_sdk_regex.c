/* SDK: Python-style regexes on PCRE2 (tp_sdk_regex.h). */
#include <tracepipe/tp_sdk_regex.h>
#include <tracepipe/tp_plugin.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* True when p (just after a '{') reads ",digits}". */
static int open_min(const char *p)
{
    if (*p++ != ',')
        return 0;
    while (*p >= '0' && *p <= '9')
        p++;
    return *p == '}';
}

void tp_pyre_translate(const char *in, char *out)
{
    int in_class = 0;
    size_t o = 0;
    for (size_t i = 0; in[i]; i++) {
        char ch = in[i];
        if (ch == '\\' && in[i + 1]) {
            out[o++] = ch;
            ch = in[++i];
            out[o++] = ch == 'Z' && !in_class ? 'z' : ch;
            continue;
        }
        out[o++] = ch;
        if (in_class) {
            in_class = ch != ']';
        } else if (ch == '[') {
            in_class = 1;
            if (in[i + 1] == '^') /* a ']' right after [ or [^ is literal */
                out[o++] = in[++i];
            if (in[i + 1] == ']')
                out[o++] = in[++i];
        } else if (ch == '{' && open_min(in + i + 1)) {
            out[o++] = '0';
        }
    }
    out[o] = '\0';
}

size_t tp_pyre_orig_offset(const char *in, const char *out, size_t off)
{
    size_t i = 0;
    for (size_t o = 0; o < off && out[o]; o++)
        if (!(out[o] == '0' && in[i] == ','))
            i++;
    return i;
}

pcre2_code *tp_pyre_compile(const char *pattern, uint32_t flags, int *err, PCRE2_SIZE *off)
{
    size_t len = strlen(pattern);
    char *pcre = tp_malloc(2 * len + 1);
    if (pcre == NULL) {
        *err = PCRE2_ERROR_NOMEMORY;
        *off = 0;
        return NULL;
    }
    tp_pyre_translate(pattern, pcre);
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)pcre, PCRE2_ZERO_TERMINATED,
                                   flags | PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, err,
                                   off, NULL);
    if (re == NULL)
        *off = tp_pyre_orig_offset(pattern, pcre, *off);
    tp_free(pcre);
    return re;
}

int tp_pyre_search(const pcre2_code *re, const char *text, size_t len, pcre2_match_data *md)
{
    int rc = pcre2_match(re, (PCRE2_SPTR)text, len, 0, 0, md, NULL);
    if (rc >= 0)
        return 1;
    return rc == PCRE2_ERROR_NOMATCH ? 0 : rc;
}

void tp_pyre_error_text(int code, char *buf, size_t size)
{
    if (pcre2_get_error_message(code, (PCRE2_UCHAR *)buf, size) < 0 && size > 0)
        snprintf(buf, size, "PCRE2 error %d", code);
}

void tp_pyre_jit(pcre2_code *re)
{
    const char *off = getenv("TRACEPIPE_NO_JIT");
    if (off == NULL || *off == '\0')
        (void)pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
}

/* A group reference of a template at in[i] (just after "\g<" or the first
 * digit's backslash) copied as ${...} into out; returns the offset past it
 * in in, or 0 when it is not one. */
static size_t template_group(const char *in, size_t i, char *out, size_t *o)
{
    size_t j = i;
    if (in[i] == 'g') {
        if (in[i + 1] != '<')
            return 0;
        for (j = i + 2; in[j] && in[j] != '>'; j++)
            ;
        if (in[j] != '>' || j == i + 2)
            return 0;
        i += 2;
    } else { /* \1 .. \99 */
        j = i + 1 + (in[i + 1] >= '0' && in[i + 1] <= '9');
    }
    out[(*o)++] = '$';
    out[(*o)++] = '{';
    memcpy(out + *o, in + i, j - i);
    *o += j - i;
    out[(*o)++] = '}';
    return in[j] == '>' ? j + 1 : j;
}

int tp_pyre_template(const char *in, char *out, size_t *bad)
{
    static const char esc[] = "\\\\n\nt\tr\rf\fv\va\a"; /* pairs: escape, character */
    size_t o = 0;
    for (size_t i = 0; in[i];) {
        char ch = in[i];
        if (ch != '\\') {
            if (ch == '$')
                out[o++] = '$';
            out[o++] = ch;
            i++;
            continue;
        }
        char e = in[i + 1];
        const char *p = e ? strchr(esc, e) : NULL;
        if (p != NULL && (p - esc) % 2 == 0) {
            out[o++] = p[1];
            i += 2;
        } else if ((e >= '1' && e <= '9') || e == 'g') {
            size_t next = template_group(in, i + 1, out, &o);
            if (next == 0) {
                *bad = i;
                return -1;
            }
            i = next;
        } else if (e == '\0' || e == '0' || (e >= 'a' && e <= 'z') || (e >= 'A' && e <= 'Z')) {
            *bad = i;
            return -1;
        } else { /* \& and the like: kept as written */
            out[o++] = '\\';
            if (e == '$')
                out[o++] = '$';
            out[o++] = e;
            i += 2;
        }
    }
    out[o] = '\0';
    return 0;
}

char *tp_pyre_sub(const pcre2_code *re, const char *repl, const char *text, size_t len,
                  size_t *outlen, int *err)
{
    const uint32_t opts =
        PCRE2_SUBSTITUTE_GLOBAL | PCRE2_SUBSTITUTE_OVERFLOW_LENGTH | PCRE2_SUBSTITUTE_UNSET_EMPTY;
    PCRE2_SIZE cap = 2 * len + 64;
    for (int attempt = 0; attempt < 2; attempt++) {
        char *out = tp_malloc(cap);
        if (out == NULL) {
            *err = PCRE2_ERROR_NOMEMORY;
            return NULL;
        }
        PCRE2_SIZE n = cap;
        int rc = pcre2_substitute(re, (PCRE2_SPTR)text, len, 0, opts, NULL, NULL,
                                  (PCRE2_SPTR)repl, PCRE2_ZERO_TERMINATED, (PCRE2_UCHAR *)out, &n);
        if (rc >= 0) {
            *outlen = n;
            return out;
        }
        tp_free(out);
        if (rc != PCRE2_ERROR_NOMEMORY) {
            *err = rc;
            return NULL;
        }
        cap = n; /* the length needed, terminator included */
    }
    *err = PCRE2_ERROR_NOMEMORY;
    return NULL;
}
