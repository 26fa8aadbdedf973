/* SDK Python-style regexes (tp_sdk_regex.h): the \Z and {,n} rewrites,
 * matching with them, Unicode classes, error offsets in the caller's
 * pattern, and an engine error told apart from "no match". */
#include <string.h>

#include "tp_test.h"

#include <tracepipe/tp_sdk_regex.h>

static const char *translated(const char *in)
{
    static char out[128];
    ck_assert_uint_lt(2 * strlen(in) + 1, sizeof out);
    tp_pyre_translate(in, out);
    return out;
}

START_TEST(python_spellings_are_rewritten)
{
    ck_assert_str_eq(translated("step\\Z"), "step\\z");
    ck_assert_str_eq(translated("a{,3}b"), "a{0,3}b");
    ck_assert_str_eq(translated("a{2,3}\\d{,12}"), "a{2,3}\\d{0,12}");
    ck_assert_str_eq(translated("[\\Z{,3}]"), "[\\Z{,3}]"); /* in a class: letters */
    ck_assert_str_eq(translated("[]{,3}]x{,1}"), "[]{,3}]x{0,1}"); /* ']' first is literal */
    ck_assert_str_eq(translated("a{,b}"), "a{,b}");                 /* not a quantifier */
    ck_assert_str_eq(translated("\\\\Z"), "\\\\Z");                 /* an escaped backslash */
    /* offsets map back across the inserted '0's */
    ck_assert_uint_eq(tp_pyre_orig_offset("a{,3}b{,4}(", "a{0,3}b{0,4}(", 13), 11);
    ck_assert_uint_eq(tp_pyre_orig_offset("a{,3}", "a{0,3}", 2), 2);
}
END_TEST

/* 1 match, 0 no match */
static int search(const pcre2_code *re, const char *text)
{
    pcre2_match_data *md = pcre2_match_data_create_from_pattern(re, NULL);
    ck_assert_ptr_nonnull(md);
    int rc = tp_pyre_search(re, text, strlen(text), md);
    pcre2_match_data_free(md);
    return rc;
}

static pcre2_code *compiled(const char *pattern, uint32_t flags)
{
    int err = 0;
    PCRE2_SIZE off = 0;
    tp_host = tp_core_host_api(); /* the translation's buffer comes from the host */
    pcre2_code *re = tp_pyre_compile(pattern, flags, &err, &off);
    ck_assert_msg(re != NULL, "'%s' did not compile: error %d at %zu", pattern, err, (size_t)off);
    return re;
}

START_TEST(translated_patterns_match_as_in_python)
{
    pcre2_code *re = compiled("^ab{,3}\\Z", 0);
    ck_assert_int_eq(search(re, "a"), 1);
    ck_assert_int_eq(search(re, "abbb"), 1);
    ck_assert_int_eq(search(re, "abbbb"), 0);  /* {,3}: at most 3 */
    ck_assert_int_eq(search(re, "abb\n"), 0);  /* \Z: the end, not before a final newline */
    pcre2_code_free(re);

    re = compiled("^\\w+$", 0); /* Unicode-aware \w */
    ck_assert_int_eq(search(re, "caf\xc3\xa9"), 1);
    pcre2_code_free(re);

    re = compiled("step", PCRE2_CASELESS);
    ck_assert_int_eq(search(re, "ProfilerSTEP#3"), 1);
    ck_assert_int_eq(search(re, "bad \xff byte, then step"), 1); /* invalid UTF-8 does not fail */
    ck_assert_int_eq(search(re, "ste\xffp"), 0);
    pcre2_code_free(re);
}
END_TEST

START_TEST(errors_in_the_callers_terms)
{
    int err = 0;
    PCRE2_SIZE off = 0;
    tp_host = tp_core_host_api();
    /* PCRE2 sees "a{0,3}(" and stops at its end, 7: the user's pattern is 6 long */
    ck_assert_ptr_null(tp_pyre_compile("a{,3}(", 0, &err, &off));
    ck_assert_uint_eq(off, 6);
    char why[128];
    tp_pyre_error_text(err, why, sizeof why);
    ck_assert_str_eq(why, "missing closing parenthesis");

    /* an engine that gives up is an error, never "no match" */
    pcre2_code *re = compiled("(*LIMIT_MATCH=50)^(a+)+$", 0);
    int rc = search(re, "aaaaaaaaaaaaaaaaaaaaaaaac");
    ck_assert_int_eq(rc, PCRE2_ERROR_MATCHLIMIT);
    tp_pyre_error_text(rc, why, sizeof why);
    ck_assert_str_eq(why, "match limit exceeded");
    pcre2_code_free(re);
    tp_pyre_error_text(12345, why, sizeof why); /* not a PCRE2 code */
    ck_assert_str_eq(why, "PCRE2 error 12345");
}
END_TEST

/* re.sub: a template's Python spellings, and the result Python gives */
static void sub_is(const char *pattern, const char *template, const char *text, const char *want)
{
    pcre2_code *re = compiled(pattern, 0);
    char repl[128];
    size_t bad = 0, n = 0;
    ck_assert_uint_lt(2 * strlen(template) + 1, sizeof repl);
    ck_assert_int_eq(tp_pyre_template(template, repl, &bad), 0);
    int err = 0;
    char *got = tp_pyre_sub(re, repl, text, strlen(text), &n, &err);
    ck_assert_msg(got != NULL, "re.sub('%s', '%s') failed: %d", pattern, template, err);
    ck_assert_str_eq(got, want);
    ck_assert_uint_eq(n, strlen(want));
    tp_host->free(got); /* the SDK allocates through the host */
    pcre2_code_free(re);
}

START_TEST(sub_as_in_python)
{
    /* the values python3's re.sub gives */
    sub_is("(, op_id = \\d+|, seq = \\d+)", "", "aten::mm, seq = 12, op_id = 7", "aten::mm");
    sub_is("(\\w+)-(\\w+)", "\\2+\\g<1>\\\\$\\t", "ab-cd ef-gh", "cd+ab\\$\t gh+ef\\$\t");
    sub_is("(a)|b", "[\\1]", "ab", "[a][]"); /* a group that did not take part: empty */
    sub_is("x*", "-", "abc", "-a-b-c-");
    sub_is("a", "\\$\\&", "a", "\\$\\&"); /* other escapes stay as written */
    sub_is("(?P<w>o+)", "<\\g<w>$>", "foo", "f<oo$>");
    char long_text[300]; /* longer than the first buffer: the retry */
    memset(long_text, 'a', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    sub_is("a", "bbb", "a", "bbb");
    pcre2_code *re = compiled("a", 0);
    size_t n = 0;
    int err = 0;
    char *got = tp_pyre_sub(re, "bbbbbbbb", long_text, strlen(long_text), &n, &err);
    ck_assert_ptr_nonnull(got);
    ck_assert_uint_eq(n, 8 * strlen(long_text));
    tp_host->free(got); /* the SDK allocates through the host */
    pcre2_code_free(re);
    /* escapes Python refuses, at their offset */
    char out[64];
    size_t bad = 99;
    ck_assert_int_eq(tp_pyre_template("ab\\q", out, &bad), -1);
    ck_assert_uint_eq(bad, 2);
    ck_assert_int_eq(tp_pyre_template("\\g1", out, &bad), -1);
    ck_assert_uint_eq(bad, 0);
    ck_assert_int_eq(tp_pyre_template("x\\", out, &bad), -1);
    ck_assert_uint_eq(bad, 1);
    ck_assert_int_eq(tp_pyre_template("\\g<>", out, &bad), -1);
}
END_TEST

static Suite *sdk_regex_suite(void)
{
    Suite *s = suite_create("sdk_regex");
    TCase *tc = tcase_create("regex");
    tcase_add_test(tc, python_spellings_are_rewritten);
    tcase_add_test(tc, translated_patterns_match_as_in_python);
    tcase_add_test(tc, errors_in_the_callers_terms);
    tcase_add_test(tc, sub_as_in_python);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_regex_suite)
