/* SDK output helpers: number text, write errors reported against the
 * user's path (tree results: check_sdk_tree.c). */
#include "tp_internal.h"
#include "tp_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_sdk_output.h>

static const char *fmt(double v)
{
    static char buf[40];
    size_t n = tp_fmt_f64(buf, sizeof buf, v);
    ck_assert_uint_eq(n, strlen(buf));
    return buf;
}

static const char *fmt_json(double v)
{
    static char buf[40];
    size_t n = tp_fmt_f64_json(buf, sizeof buf, v);
    ck_assert_uint_eq(n, strlen(buf));
    return buf;
}

START_TEST(f64_shortest_text_that_reads_back)
{
    ck_assert_str_eq(fmt(0.1), "0.1");             /* %.17g would give 0.10000000000000001 */
    ck_assert_str_eq(fmt(1.0 / 3.0), "0.3333333333333333"); /* needs 16 digits */
    ck_assert_str_eq(fmt(0.1 + 0.2), "0.30000000000000004"); /* needs 17 */
    ck_assert_str_eq(fmt(1234.5), "1234.5");
    ck_assert_str_eq(fmt(3.0), "3");
    ck_assert_str_eq(fmt(-2.5e-300), "-2.5e-300");
    ck_assert_str_eq(fmt(9007199254740993.0), "9007199254740992"); /* 2^53+1 is not a double */
    for (double v = 1e-9; v < 1e12; v *= 7.3) /* round trip */
        ck_assert(strtod(fmt(v), NULL) == v);
    ck_assert_str_eq(fmt(NAN), "nan");
}
END_TEST

START_TEST(f64_json_keeps_a_float_and_has_no_nan)
{
    ck_assert_str_eq(fmt_json(3.0), "3.0");
    ck_assert_str_eq(fmt_json(0.1), "0.1");
    ck_assert_str_eq(fmt_json(1e300), "1e+300"); /* an exponent is already a float */
    ck_assert_str_eq(fmt_json(NAN), "null");
    ck_assert_str_eq(fmt_json(-INFINITY), "null");
    char small[4];
    tp_fmt_f64_json(small, sizeof small, 123456.0); /* cut, still terminated */
    ck_assert_str_eq(small, "123");
}
END_TEST

START_TEST(close_reports_a_full_disk_against_the_path)
{
    tp_stage st;
    memset(&st, 0, sizeof st);
    tp_host = tp_core_host_api();
    FILE *f = fopen("/dev/full", "wb");
    ck_assert_ptr_nonnull(f);
    fputs("some table\n", f);
    ck_assert_int_eq(tp_out_close(&st, f, "out/table.csv", TP_OK), TP_EIO);
    ck_assert_str_eq(st.error, "out/table.csv: write failed: No space left on device");

    /* an error of the writing itself is kept, not replaced */
    memset(&st, 0, sizeof st);
    f = fopen("/dev/full", "wb");
    fputs("x\n", f);
    ck_assert_int_eq(tp_out_close(&st, f, "t.csv", TP_ENOMEM), TP_ENOMEM);
    ck_assert_str_eq(st.error, "");
}
END_TEST

static Suite *sdk_output_suite(void)
{
    Suite *s = suite_create("sdk_output");
    TCase *tc = tcase_create("output");
    tcase_add_test(tc, f64_shortest_text_that_reads_back);
    tcase_add_test(tc, f64_json_keeps_a_float_and_has_no_nan);
    tcase_add_test(tc, close_reports_a_full_disk_against_the_path);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_output_suite)
