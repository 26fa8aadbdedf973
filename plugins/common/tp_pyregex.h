/*
 * Python-re-style regexes on PCRE2, for filters whose patterns come from
 * notebooks.  Header-only; the plugin links libpcre2-8.
 *
 * Compiled with PCRE2_UTF | PCRE2_UCP (so \w \d \s \b are Unicode-aware,
 * as in Python 3 str patterns) and PCRE2_MATCH_INVALID_UTF (invalid bytes
 * never match but do not fail).  Two spellings are rewritten first:
 *   \Z     Python: end of text only  -> PCRE2 \z (PCRE2's \Z also matches
 *          before a final newline)
 *   {,n}   Python: {0,n}             -> {0,n} (PCRE2 10.42 reads it as text)
 * Error offsets are given in the caller's pattern.
 *
 * Matching: tp_pyre_search() tells a match, no match and an engine error
 * apart.  When PCRE2 gives up (match, depth or heap limit, typically on a
 * catastrophically backtracking pattern) it has not found that the text does
 * not match, so callers must report the error, never take it for "no match".
 */
#ifndef TRACEPIPE_PLUGINS_TP_PYREGEX_H
#define TRACEPIPE_PLUGINS_TP_PYREGEX_H

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
/* re.search: 1 when the pattern matches somewhere in text, 0 when it does
 * not, or the negative PCRE2 error code when the engine gave up. */
static inline int tp_pyre_search(const pcre2_code *re, const char *text, size_t len,
                                 pcre2_match_data *md)
{
    int rc = pcre2_match(re, (PCRE2_SPTR)text, len, 0, 0, md, NULL);
    if (rc >= 0)
        return 1;
    return rc == PCRE2_ERROR_NOMATCH ? 0 : rc;
}

/* The text of a PCRE2 error code ("match limit exceeded", ...). */
static inline void tp_pyre_error_text(int code, char *buf, size_t size)
{
    if (pcre2_get_error_message(code, (PCRE2_UCHAR *)buf, size) < 0 && size > 0)
        snprintf(buf, size, "PCRE2 error %d", code);
}

#endif
#include <pcre2.h>
#include <stdio.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>

/* True when p (just after a '{') reads ",digits}". */
static inline int tp_pyre_open_min(const char *p)
{
    if (*p++ != ',')
        return 0;
    while (*p >= '0' && *p <= '9')
        p++;
    return *p == '}';
}

/* Writes the PCRE2 form of pattern into out (room for 2 * strlen + 1). */
static inline void tp_pyre_translate(const char *in, char *out)
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
        } else if (ch == '{' && tp_pyre_open_min(in + i + 1)) {
            out[o++] = '0';
        }
    }
    out[o] = '\0';
}

/* The offset in the caller's pattern of offset off of its translation:
 * translations only insert '0' before ',' and turn 'Z' into 'z'. */
static inline size_t tp_pyre_orig_offset(const char *in, const char *out, size_t off)
{
    size_t i = 0;
    for (size_t o = 0; o < off && out[o]; o++)
        if (!(out[o] == '0' && in[i] == ','))
            i++;
    return i;
}

/* Compiles a Python-style pattern; NULL on error with *err (a PCRE2 error
 * code for pcre2_get_error_message) and *off set. */
static inline pcre2_code *tp_pyre_compile(const char *pattern, uint32_t flags, int *err,
                                          PCRE2_SIZE *off)
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

/* re.search: 1 when the pattern matches somewhere in text, 0 when it does
 * not, or the negative PCRE2 error code when the engine gave up. */
static inline int tp_pyre_search(const pcre2_code *re, const char *text, size_t len,
                                 pcre2_match_data *md)
{
    int rc = pcre2_match(re, (PCRE2_SPTR)text, len, 0, 0, md, NULL);
    if (rc >= 0)
        return 1;
    return rc == PCRE2_ERROR_NOMATCH ? 0 : rc;
}

/* The text of a PCRE2 error code ("match limit exceeded", ...). */
static inline void tp_pyre_error_text(int code, char *buf, size_t size)
{
    if (pcre2_get_error_message(code, (PCRE2_UCHAR *)buf, size) < 0 && size > 0)
        snprintf(buf, size, "PCRE2 error %d", code);
}

#endif
