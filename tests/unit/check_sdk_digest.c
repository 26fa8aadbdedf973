/* SDK byte digest (issue 32): independent of how the bytes are split, and
 * changed by any one byte, a swap or a length change. */
#include "tp_test.h"

#include <string.h>

#include <tracepipe/tp_sdk_digest.h>

static uint64_t digest_in_pieces(const char *text, size_t len, size_t piece)
{
    tp_digest d;
    tp_digest_init(&d);
    for (size_t i = 0; i < len; i += piece)
        tp_digest_add(&d, text + i, len - i < piece ? len - i : piece);
    return tp_digest_value(&d);
}

START_TEST(split_does_not_matter)
{
    const char *text = "{\"Type\":48,\"TraceProcessEvent\":{\"startNs\":\"375087209\"}}\n"
                       "{\"type\":\"String\",\"id\":\"664\",\"value\":\"cudaMalloc\"}\n";
    size_t len = strlen(text);
    uint64_t whole = digest_in_pieces(text, len, len);
    ck_assert_uint_gt(len, 64); /* two 32-byte stripes and a part */
    for (size_t piece = 1; piece <= 40; piece++)
        ck_assert_uint_eq(digest_in_pieces(text, len, piece), whole);
    tp_digest d;
    tp_digest_init(&d);
    tp_digest_add(&d, text, 5);
    uint64_t part = tp_digest_value(&d); /* a value midway leaves the digest going on */
    tp_digest_add(&d, text + 5, len - 5);
    ck_assert_uint_eq(tp_digest_value(&d), whole);
    ck_assert_uint_ne(part, whole);
}
END_TEST

START_TEST(any_change_shows)
{
    char text[] = "0123456789abcdefghij\n0123456789abcdefghij\n";
    size_t len = strlen(text);
    uint64_t was = digest_in_pieces(text, len, len);
    for (size_t i = 0; i < len; i++) { /* every byte changed by one */
        text[i]++;
        ck_assert_uint_ne(digest_in_pieces(text, len, 7), was);
        text[i]--;
    }
    char swapped[sizeof text];
    memcpy(swapped, text, sizeof text);
    swapped[3] = text[11], swapped[11] = text[3]; /* two bytes of two words swapped */
    ck_assert_uint_ne(digest_in_pieces(swapped, len, len), was);
    ck_assert_uint_ne(digest_in_pieces(text, len - 1, len), was); /* shorter */
    char zeros[16] = {0};
    ck_assert_uint_ne(digest_in_pieces(zeros, 9, 9), digest_in_pieces(zeros, 10, 10));
    ck_assert_uint_ne(digest_in_pieces(zeros, 0, 1), digest_in_pieces(zeros, 8, 8));
}
END_TEST

static Suite *sdk_digest_suite(void)
{
    Suite *s = suite_create("sdk_digest");
    TCase *tc = tcase_create("digest");
    tcase_add_test(tc, split_does_not_matter);
    tcase_add_test(tc, any_change_shows);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_digest_suite)
