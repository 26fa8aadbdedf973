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
