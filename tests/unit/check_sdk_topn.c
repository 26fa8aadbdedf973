/* SDK top-N trees (tp_sdk_topn.h): one root whose children form 5 groups
 * (one of two items), cut to 3 + "Others" with the summed time and count,
 * and the "Unaccounted" rest; hand-computed times and percentages. */
#include <string.h>

#include "tp_internal.h"
#include "tp_test.h"

#include <tracepipe/tp_sdk_topn.h>

/* Item 0 is the root (100 us); items 1..6 its children, keyed by name:
 *   a 30 us + a 10 us = 40 (2 items), b 20, c 15, d 5, e 2 (82 in all) */
static const char *const names[] = {"root", "a", "b", "c", "d", "e"};
static const int64_t time_ns[] = {100000, 30000, 20000, 10000, 15000, 5000, 2000};
static const uint64_t key_of[] = {0, 1, 2, 1, 3, 4, 5};

static int children(void *ctx, int64_t item, tp_agg_buf *out)
{
    (void)ctx;
    for (int64_t k = 1; item == 0 && k <= 6; k++)
        if (tp_agg_push(out, k) != TP_OK)
            return TP_ENOMEM;
    return TP_OK;
}

static int64_t time_of(void *ctx, int64_t item)
{
    (void)ctx;
    return time_ns[item];
}

static uint64_t key(void *ctx, int64_t item)
{
    (void)ctx;
    return key_of[item];
}

static const char *label(void *ctx, uint64_t k)
{
    (void)ctx;
    return names[k];
}

static int64_t unaccounted(void *ctx, int64_t item)
{
    (void)ctx;
    return item == 0 ? 100000 - 82000 : time_ns[item];
}

typedef struct want_row {
    int64_t parent; /* -1: null */
    int64_t depth;
    const char *name;
    double time_us, pp, pt;
    int64_t count; /* -1: null */
} want_row;

static void check_rows(const tp_result *r, const want_row *w, size_t n)
{
    ck_assert_uint_eq(tp_result_nrows(r), n);
    int c_parent = tp_result_colfind(r, "parent_id"), c_count = tp_result_colfind(r, "count");
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq(tp_test_i64(r, i, "id"), (int64_t)i);
        if (w[i].parent < 0)
            ck_assert(tp_result_null(r, i, c_parent));
        else
            ck_assert_int_eq(tp_test_i64(r, i, "parent_id"), w[i].parent);
        ck_assert_int_eq(tp_test_i64(r, i, "depth"), w[i].depth);
        ck_assert_str_eq(tp_test_str(r, i, "name"), w[i].name);
        ck_assert_double_eq_tol(tp_test_f64(r, i, "time_us"), w[i].time_us, 1e-12);
        ck_assert_double_eq_tol(tp_test_f64(r, i, "percent_of_parent"), w[i].pp, 1e-12);
        ck_assert_double_eq_tol(tp_test_f64(r, i, "percent_of_total"), w[i].pt, 1e-12);
        if (w[i].count < 0)
            ck_assert(tp_result_null(r, i, c_count));
        else
            ck_assert_int_eq(tp_test_i64(r, i, "count"), w[i].count);
    }
}

static tp_result *tree(tp_stage *st, int64_t truncate, int64_t max_depth, int with_unaccounted)
{
    const tp_agg_src src = {NULL, children, time_of, key, label,
                            with_unaccounted ? unaccounted : NULL};
    memset(st, 0, sizeof *st);
    tp_host = tp_core_host_api();
    tp_result *r = tp_result_create("breakdown");
    tp_agg_out o;
    ck_assert_int_eq(tp_agg_out_init(&o, st, r), TP_OK);
    ck_assert_str_eq(tp_result_meta_get(r, "kind"), "tree");
    o.truncate = truncate;
    o.max_depth = max_depth;
    ck_assert_int_eq(tp_agg_top(&src, &o, 0, "root", 1), TP_OK);
    return r;
}

START_TEST(five_groups_fold_into_three_and_others)
{
    tp_stage st;
    tp_result *r = tree(&st, 3, 1, 1);
    const want_row w[] = {
        {-1, 0, "root", 100, 100, 100, 1},
        {0, 1, "a", 40, 40, 40, 2},
        {0, 1, "b", 20, 20, 20, 1},
        {0, 1, "c", 15, 15, 15, 1},
        {0, 1, "Others", 7, 7, 7, 2},       /* d 5 + e 2, two items */
        {0, 1, "Unaccounted", 18, 18, 18, -1}, /* 100 - 82 */
    };
    check_rows(r, w, sizeof w / sizeof *w);
    tp_result_destroy(r);
}
END_TEST

START_TEST(no_truncation_no_unaccounted_and_depth_0)
{
    tp_stage st;
    tp_result *r = tree(&st, 0, 1, 0); /* truncate 0: every group */
    const want_row w[] = {
        {-1, 0, "root", 100, 100, 100, 1}, {0, 1, "a", 40, 40, 40, 2},
        {0, 1, "b", 20, 20, 20, 1},        {0, 1, "c", 15, 15, 15, 1},
        {0, 1, "d", 5, 5, 5, 1},           {0, 1, "e", 2, 2, 2, 1},
    };
    check_rows(r, w, sizeof w / sizeof *w);
    tp_result_destroy(r);

    r = tree(&st, 3, 0, 1); /* depth 0: the root alone */
    check_rows(r, w, 1);
    tp_result_destroy(r);
}
END_TEST

static Suite *sdk_topn_suite(void)
{
    Suite *s = suite_create("sdk_topn");
    TCase *tc = tcase_create("topn");
    tcase_add_test(tc, five_groups_fold_into_three_and_others);
    tcase_add_test(tc, no_truncation_no_unaccounted_and_depth_0);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_topn_suite)
