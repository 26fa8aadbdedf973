/* SDK safe text (tp_sdk_text.h): UTF-8 sequence lengths, hand-checked
 * against the Unicode table of well-formed byte sequences. */
#include "tp_test.h"

#include <tracepipe/tp_sdk_text.h>

static size_t len_of(const char *s)
{
    return tp_utf8_len((const unsigned char *)s);
}

START_TEST(valid_sequences_have_their_length)
{
    ck_assert_uint_eq(len_of("a"), 1);
    ck_assert_uint_eq(len_of(""), 1);                    /* the NUL is ASCII */
    ck_assert_uint_eq(len_of("\xc3\xa9"), 2);            /* U+00E9 e acute */
    ck_assert_uint_eq(len_of("\xc2\x80"), 2);            /* U+0080, the lowest 2-byte */
    ck_assert_uint_eq(len_of("\xe2\x82\xac"), 3);        /* U+20AC euro sign */
    ck_assert_uint_eq(len_of("\xef\xbf\xbf"), 3);        /* U+FFFF */
    ck_assert_uint_eq(len_of("\xf0\x9f\x98\x80"), 4);    /* U+1F600 */
    ck_assert_uint_eq(len_of("\xf4\x8f\xbf\xbf"), 4);    /* U+10FFFF, the highest */
    ck_assert_uint_eq(len_of("\xe2\x82\xac" "abc"), 3);  /* only the first sequence */
}
END_TEST

START_TEST(invalid_sequences_are_length_0)
{
    ck_assert_uint_eq(len_of("\x80"), 0);                /* a lone continuation byte */
    ck_assert_uint_eq(len_of("\xff"), 0);                /* never in UTF-8 */
    ck_assert_uint_eq(len_of("\xc0\xaf"), 0);            /* overlong '/' */
    ck_assert_uint_eq(len_of("\xc1\xbf"), 0);            /* overlong U+007F */
    ck_assert_uint_eq(len_of("\xe0\x80\xaf"), 0);        /* overlong 3-byte */
    ck_assert_uint_eq(len_of("\xf0\x8f\xbf\xbf"), 0);    /* overlong 4-byte (U+FFFF) */
    ck_assert_uint_eq(len_of("\xed\xa0\x80"), 0);        /* U+D800, a surrogate */
    ck_assert_uint_eq(len_of("\xed\xbf\xbf"), 0);        /* U+DFFF, a surrogate */
    ck_assert_uint_eq(len_of("\xf4\x90\x80\x80"), 0);    /* U+110000, above the range */
    ck_assert_uint_eq(len_of("\xf5\x80\x80\x80"), 0);    /* lead byte above F4 */
    ck_assert_uint_eq(len_of("\xe2\x82"), 0);            /* cut by the NUL */
    ck_assert_uint_eq(len_of("\xc3" "a"), 0);            /* continuation missing */
}
END_TEST

static Suite *sdk_text_suite(void)
{
    Suite *s = suite_create("sdk_text");
    TCase *tc = tcase_create("utf8");
    tcase_add_test(tc, valid_sequences_have_their_length);
    tcase_add_test(tc, invalid_sequences_are_length_0);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_text_suite)
