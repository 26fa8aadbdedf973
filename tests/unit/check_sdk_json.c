/* SDK JSON access without a DOM: keys, numbers, strings, nested arrays,
 * malformed text, all on hand-written args objects. */
#include "tp_test.h"

#include <string.h>
#include <tracepipe/tp_sdk_json.h>
#include <tracepipe/tp_types.h>

static const char ARGS[] =
    "{\"External id\": 12, \"Input Dims\": [[64, 128], [128,256], []], "
    "\"Input type\": [\"float\", \"c10::Half\"], \"name\": \"a\\\"b\\u00e9\\ud83d\\ude00\", "
    "\"scale\": -2.5e-3, \"flag\": true, \"none\": null, \"External id\": 13}";

START_TEST(keys_numbers_strings)
{
    size_t n = strlen(ARGS), vl;
    int64_t i;
    double d;
    int b;
    const char *v = tp_json_get(ARGS, n, "External id", &vl);
    ck_assert_int_eq(tp_json_i64(v, vl, &i), TP_OK);
    ck_assert_int_eq(i, 13); /* the last of a repeated key */
    v = tp_json_get(ARGS, n, "scale", &vl);
    ck_assert_int_eq(tp_json_f64(v, vl, &d), TP_OK);
    ck_assert_double_eq(d, -2.5e-3);
    ck_assert_int_eq(tp_json_i64(v, vl, &i), TP_EFORMAT); /* not an integer */
    v = tp_json_get(ARGS, n, "flag", &vl);
    ck_assert_int_eq(tp_json_bool(v, vl, &b), TP_OK);
    ck_assert_int_eq(b, 1);
    v = tp_json_get(ARGS, n, "none", &vl);
    ck_assert(tp_json_is_null(v, vl));
    char buf[32];
    v = tp_json_get(ARGS, n, "name", &vl);
    ck_assert_int_eq(tp_json_str(v, vl, buf, sizeof buf), 9); /* a " b é(2) 😀(4) */
    ck_assert_str_eq(buf, "a\"b\xc3\xa9\xf0\x9f\x98\x80");
    ck_assert_int_eq(tp_json_str(v, vl, buf, 3), 9); /* too small: truncated, says so */
    ck_assert_str_eq(buf, "a\"");
    ck_assert_ptr_null(tp_json_get(ARGS, n, "missing", &vl));
    ck_assert_int_eq(tp_json_i64("007", 3, &i), TP_EFORMAT);
    ck_assert_int_eq(tp_json_f64("1e999", 5, &d), TP_EFORMAT);
    ck_assert_int_eq(tp_json_f64("0x10", 4, &d), TP_EFORMAT);
    ck_assert_int_eq(tp_json_i64("99999999999999999999", 20, &i), TP_EFORMAT);
    ck_assert_int_eq(tp_json_str("\"a\\x\"", 5, buf, sizeof buf), -1);
}
END_TEST

START_TEST(nested_arrays)
{
    size_t n = strlen(ARGS), vl, el, il;
    const char *v = tp_json_get(ARGS, n, "Input Dims", &vl), *e, *x;
    tp_json_iter outer, inner;
    ck_assert_int_eq(tp_json_array(v, vl, &outer), TP_OK);
    int64_t want[2][2] = {{64, 128}, {128, 256}}, got;
    size_t k = 0;
    while (tp_json_next(&outer, &e, &el) == 1) {
        ck_assert_int_eq(tp_json_array(e, el, &inner), TP_OK);
        size_t j = 0;
        while (tp_json_next(&inner, &x, &il) == 1) {
            ck_assert_int_eq(tp_json_i64(x, il, &got), TP_OK);
            ck_assert_int_eq(got, want[k][j]);
            j++;
        }
        ck_assert_uint_eq(j, k < 2 ? 2 : 0); /* the third is [] */
        k++;
    }
    ck_assert_uint_eq(k, 3);
    char buf[16];
    v = tp_json_get(ARGS, n, "Input type", &vl);
    ck_assert_int_eq(tp_json_array(v, vl, &outer), TP_OK);
    ck_assert_int_eq(tp_json_next(&outer, &e, &el), 1);
    ck_assert_int_eq(tp_json_next(&outer, &e, &el), 1);
    ck_assert_int_eq(tp_json_str(e, el, buf, sizeof buf), 9);
    ck_assert_str_eq(buf, "c10::Half");
    ck_assert_int_eq(tp_json_next(&outer, &e, &el), 0);
}
END_TEST

START_TEST(malformed_text_fails_cleanly)
{
    tp_json_iter it;
    const char *e;
    size_t el;
    static const char *const bad[] = {"[1,", "[1 2]", "[,1]", "[1,]", "[[1,2]", "{1}"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        int rc = tp_json_array(bad[k], strlen(bad[k]), &it);
        int got = 0;
        if (rc == TP_OK)
            while ((rc = tp_json_next(&it, &e, &el)) == 1)
                got++;
        ck_assert_msg(rc == TP_EFORMAT, "'%s' gave %d after %d elements", bad[k], rc, got);
    }
    /* a value cut off by len is not read past len */
    ck_assert_int_eq(tp_json_array("[1, 2]", 4, &it), TP_EFORMAT);
    ck_assert_ptr_null(tp_json_get("{\"a\": 1}", 5, "a", &el));
}
END_TEST

START_TEST(object_members)
{
    tp_json_iter it;
    const char *k, *v;
    size_t kl, vl;
    char key[32];
    const char *o = " {\"a\": 1, \"b\\\"c\": {\"x\": [1, 2]}, \"a\": \"s\" } ";
    ck_assert_int_eq(tp_json_object(o, strlen(o), &it), TP_OK);
    ck_assert_int_eq(tp_json_next_member(&it, &k, &kl, &v, &vl), 1);
    ck_assert(kl == 3 && memcmp(k, "\"a\"", 3) == 0 && vl == 1 && v[0] == '1');
    ck_assert_int_eq(tp_json_next_member(&it, &k, &kl, &v, &vl), 1);
    ck_assert_int_eq(tp_json_str(k, kl, key, sizeof key), 3);
    ck_assert_str_eq(key, "b\"c");
    ck_assert(vl == 13 && memcmp(v, "{\"x\": [1, 2]}", 13) == 0);
    ck_assert_int_eq(tp_json_next_member(&it, &k, &kl, &v, &vl), 1); /* both "a"s */
    ck_assert(vl == 3 && memcmp(v, "\"s\"", 3) == 0);
    ck_assert_int_eq(tp_json_next_member(&it, &k, &kl, &v, &vl), 0);
    ck_assert_int_eq(tp_json_object("{}", 2, &it), TP_OK);
    ck_assert_int_eq(tp_json_next_member(&it, &k, &kl, &v, &vl), 0);
    static const char *const bad[] = {"{\"a\" 1}", "{\"a\": }", "{1: 2}", "{\"a\": 1,}",
                                      "{\"a\": 1 2}", "{,\"a\": 1}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = tp_json_object(bad[i], strlen(bad[i]), &it);
        if (rc == TP_OK)
            while ((rc = tp_json_next_member(&it, &k, &kl, &v, &vl)) == 1)
                ;
        ck_assert_msg(rc == TP_EFORMAT, "'%s' gave %d", bad[i], rc);
    }
    ck_assert_int_eq(tp_json_object("[1]", 3, &it), TP_EFORMAT);
}
END_TEST

static Suite *sdk_json_suite(void)
{
    Suite *s = suite_create("sdk_json");
    TCase *tc = tcase_create("json");
    tcase_add_test(tc, keys_numbers_strings);
    tcase_add_test(tc, nested_arrays);
    tcase_add_test(tc, malformed_text_fails_cleanly);
    tcase_add_test(tc, object_members);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_json_suite)
