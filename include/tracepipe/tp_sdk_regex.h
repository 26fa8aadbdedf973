/*
 * tracepipe SDK: Python-re-style regexes on PCRE2, for stages whose
 * patterns come from notebooks (regex_select, kernel_stats, the marker
 * regexes of tp_sdk_markers.h; re.sub for ranges' name normaliser).  A
 * plugin calling these links libpcre2-8 (`pkg-config --libs --static
 * tracepipe`, or -lpcre2-8).
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
#ifndef TRACEPIPE_TP_SDK_REGEX_H
#define TRACEPIPE_TP_SDK_REGEX_H

#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Writes the PCRE2 form of the Python pattern in into out (room for
 * 2 * strlen(in) + 1 bytes). */
void tp_pyre_translate(const char *in, char *out);

/* The offset in the caller's pattern in of offset off of its translation
 * out: translations only insert '0' before ',' and turn 'Z' into 'z'. */
size_t tp_pyre_orig_offset(const char *in, const char *out, size_t off);

/* Compiles a Python-style pattern with PCRE2 flags (PCRE2_CASELESS ...);
 * NULL on error with *err (a PCRE2 error code for tp_pyre_error_text) and
 * *off (in pattern) set.  Free with pcre2_code_free. */
pcre2_code *tp_pyre_compile(const char *pattern, uint32_t flags, int *err, PCRE2_SIZE *off);

/* re.search: 1 when the pattern matches somewhere in text, 0 when it does
 * not, or the negative PCRE2 error code when the engine gave up. */
int tp_pyre_search(const pcre2_code *re, const char *text, size_t len, pcre2_match_data *md);

/* re.sub's replacement: writes the PCRE2 replacement (pcre2_substitute's
 * syntax) of a Python re.sub template in into out (room for
 * 2 * strlen(in) + 1 bytes): \1..\99, \g<n> and \g<name> become ${..};
 * \\, \n, \t, \r, \f, \v, \a the character; '$' is doubled; the escape of
 * any other character that is not an ASCII letter or digit stays as written
 * (as in Python).  Returns 0, or -1 with *bad set to the offset in in of an
 * escape Python refuses (an unknown ASCII letter, \0 octal, \g without
 * <name>, a trailing backslash). */
int tp_pyre_template(const char *in, char *out, size_t *bad);

/* re.sub(pattern, repl, text): every match of re in text[0, len) replaced
 * by repl (tp_pyre_template's output); a group that did not take part is
 * empty, as in Python.  Returns a new NUL-terminated string (tp_free) and
 * its length in *outlen, or NULL with *err set (a PCRE2 error code: an
 * unknown group, the engine's limits, PCRE2_ERROR_NOMEMORY). */
char *tp_pyre_sub(const pcre2_code *re, const char *repl, const char *text, size_t len,
                  size_t *outlen, int *err);

/* The text of a PCRE2 error code ("match limit exceeded", ...). */
void tp_pyre_error_text(int code, char *buf, size_t size);

/* JIT-compiles re for speed (the interpreter stays when JIT is not
 * available), unless the environment sets TRACEPIPE_NO_JIT: for systems
 * that forbid executable memory, and for valgrind, which cannot see into
 * JIT code. */
void tp_pyre_jit(pcre2_code *re);

#ifdef __cplusplus
}
#endif

#endif
