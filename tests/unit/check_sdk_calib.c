/* SDK calibration curves (tp_sdk_calib.h, issue 27 item 4): the fit recovers a
 * known curve, its constraints and degenerate samples, the IRLS fixed point
 * of golden predict_calib_fit computed by hand, the GMAE convention. */
#include <math.h>
#include <stddef.h>

#include "tp_test.h"

#include <tracepipe/tp_sdk_calib.h>

static int near(double a, double b) { return fabs(a - b) <= 1e-9 * (fabs(b) + 1e-9); }

/* measured = 4 us per kernel + 2 x bound: recovered, also with 2 kernels. */
START_TEST(calib_recovers_exact_curve)
{
    tp_calib_sample s[] = {{0.25, 4.5, 1}, {2, 8, 1}, {16, 36, 1}, {128, 264, 2}};
    tp_calib_curve c;
    ck_assert_int_eq(tp_calib_fit(s, 4, NULL, &c), 1);
    ck_assert_uint_eq(c.n, 4);
    ck_assert(near(c.t0_us, 4) && near(c.slope, 2));
    ck_assert(near(tp_calib_predict(&c, 10, 0), 24)); /* 0 kernels count as 1 */
    ck_assert(near(tp_calib_predict(&c, 10, 3), 32));
}
END_TEST

/* Two steps on (4, 2), one at 1.25 x: the IRLS fixed point lambda = 1.0004
 * (8 (lambda - 1) / 1e-3 = 4 / 1.25); keep[] leaves the third step out: the
 * curve exactly. */
START_TEST(calib_irls_fixed_point)
{
    const double b[] = {0.25, 2, 16, 128};
    tp_calib_sample s[12];
    unsigned char keep[12];
    for (int i = 0; i < 12; i++) {
        double m = 4 + 2 * b[i % 4];
        s[i] = (tp_calib_sample){b[i % 4], i < 8 ? m : 1.25 * m, 1};
        keep[i] = i < 8;
    }
    tp_calib_curve c;
    ck_assert_int_eq(tp_calib_fit(s, 12, NULL, &c), 1);
    ck_assert(near(c.t0_us, 4.0016) && near(c.slope, 2.0008));
    ck_assert_int_eq(tp_calib_fit(s, 12, keep, &c), 1);
    ck_assert_uint_eq(c.n, 8);
    ck_assert(near(c.t0_us, 4) && near(c.slope, 2));
}
END_TEST

/* Fewer than 2 usable samples: no curve; one size: the fixed cost alone;
 * time falling with size: no negative slope. */
START_TEST(calib_degenerate)
{
    tp_calib_sample one[] = {{1, 5, 1}, {1, 0, 1}, {-1, 3, 1}};
    tp_calib_curve c;
    ck_assert_int_eq(tp_calib_fit(one, 3, NULL, &c), 0);
    ck_assert_uint_eq(c.n, 1);
    tp_calib_sample same[] = {{2, 4, 1}, {2, 6, 1}};
    ck_assert_int_eq(tp_calib_fit(same, 2, NULL, &c), 1);
    ck_assert(c.t0_us >= 0 && c.slope >= 0);
    ck_assert(near(tp_calib_predict(&c, 2, 1), 4) || near(tp_calib_predict(&c, 2, 1), 6) ||
              (tp_calib_predict(&c, 2, 1) > 4 && tp_calib_predict(&c, 2, 1) < 6));
    tp_calib_sample down[] = {{1, 10, 1}, {100, 5, 1}};
    ck_assert_int_eq(tp_calib_fit(down, 2, NULL, &c), 1);
    ck_assert(c.slope == 0 && c.t0_us > 5 && c.t0_us < 10);
}
END_TEST

/* GMAE: geometric mean of |p - m| / m; eps 4e-4 when one error is 0; NaN for none. */
START_TEST(calib_gmae)
{
    const double p[] = {1.25, 0.8}, m[] = {1, 1};
    ck_assert(near(tp_calib_gmae(p, m, 2), sqrt(0.25 * 0.2)));
    const double p0[] = {1, 0.8};
    ck_assert(near(tp_calib_gmae(p0, m, 2), sqrt(4e-4 * 0.2004)));
    ck_assert(isnan(tp_calib_gmae(p, m, 0)));
}
END_TEST

static Suite *sdk_calib_suite(void)
{
    Suite *s = suite_create("sdk_calib");
    TCase *tc = tcase_create("calib");
    tcase_add_test(tc, calib_recovers_exact_curve);
    tcase_add_test(tc, calib_irls_fixed_point);
    tcase_add_test(tc, calib_degenerate);
    tcase_add_test(tc, calib_gmae);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_calib_suite)
