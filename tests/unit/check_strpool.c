/* String pool: ids are dense, stable, and equal texts share one id. */
#include "tp_internal.h"
#include "tp_test.h"

#include <stdio.h>
#include <string.h>

START_TEST(empty_string_is_id_zero)
{
    tp_strpool *p = tp_strpool_new();
    ck_assert_uint_eq(tp_strpool_intern(p, "", 0), 0);
    ck_assert_str_eq(tp_strpool_text(p, 0), "");
    ck_assert_uint_eq(tp_strpool_count(p), 1);
    tp_strpool_free(p);
}
END_TEST

START_TEST(equal_texts_share_an_id)
{
    tp_strpool *p = tp_strpool_new();
    tp_str a = tp_strpool_intern(p, "aten::mm", 8);
    tp_str b = tp_strpool_intern(p, "aten::mmXYZ", 8); /* same first 8 bytes */
    tp_str c = tp_strpool_intern(p, "aten::addmm", 11);
    ck_assert_uint_eq(a, 1);
    ck_assert_uint_eq(b, 1);
    ck_assert_uint_eq(c, 2);
    ck_assert_str_eq(tp_strpool_text(p, c), "aten::addmm");
    ck_assert_uint_eq(tp_strpool_len(p, c), 11);
    tp_str found;
    ck_assert(tp_strpool_lookup(p, "aten::addmm", 11, &found));
    ck_assert_uint_eq(found, c);
    ck_assert(!tp_strpool_lookup(p, "aten::relu", 10, &found));
    ck_assert_uint_eq(tp_strpool_count(p), 3);
    tp_strpool_free(p);
}
END_TEST

START_TEST(many_strings_survive_growth)
{
    tp_strpool *p = tp_strpool_new();
    char buf[32];
    const char *first = NULL;
    for (int i = 0; i < 100000; i++) {
        int n = snprintf(buf, sizeof buf, "kernel_%d", i);
        tp_str id = tp_strpool_intern(p, buf, (size_t)n);
        ck_assert_uint_eq(id, (tp_str)i + 1);
        if (i == 0)
            first = tp_strpool_text(p, id);
    }
    /* pointers handed out earlier stay valid */
    ck_assert_str_eq(first, "kernel_0");
    ck_assert_str_eq(tp_strpool_text(p, 77778), "kernel_77777");
    ck_assert_uint_eq(tp_strpool_intern(p, "kernel_31337", 12), 31338);
    ck_assert_uint_eq(tp_strpool_count(p), 100001);
    /* an id out of range reads as empty, never out of bounds */
    ck_assert_str_eq(tp_strpool_text(p, 5000000), "");
    tp_strpool_free(p);
}
END_TEST

START_TEST(embedded_bytes_and_long_text)
{
    tp_strpool *p = tp_strpool_new();
    char big[200000];
    memset(big, 'x', sizeof big);
    tp_str id = tp_strpool_intern(p, big, sizeof big);
    ck_assert_uint_eq(tp_strpool_len(p, id), sizeof big);
    ck_assert_uint_eq(tp_strpool_intern(p, big, sizeof big), id);
    ck_assert_uint_ne(tp_strpool_intern(p, big, sizeof big - 1), id);
    tp_strpool_free(p);
}
END_TEST

static Suite *strpool_suite(void)
{
    Suite *s = suite_create("strpool");
    TCase *tc = tcase_create("intern");
    tcase_add_test(tc, empty_string_is_id_zero);
    tcase_add_test(tc, equal_texts_share_an_id);
    tcase_add_test(tc, many_strings_survive_growth);
    tcase_add_test(tc, embedded_bytes_and_long_text);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(strpool_suite)
