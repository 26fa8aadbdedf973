/* The SDK's stable sorts (tp_sdk_sort.h): equal keys keep their input order
 * on arrays long enough to merge (more than TP_MSORT_MIN_RUN = 32 elements,
 * sdk/tp_sdk_msort.h), the context pointer reaches the comparator, 0 and 1
 * elements, row numbers by key with ties by row, and TP_ENOMEM with the
 * input unchanged when an allocation fails (sorted input allocates
 * nothing).  Expected orders by hand. */
#include "tp_internal.h"
#include "tp_test.h"

#include <string.h>

#include <tracepipe/tp_sdk_sort.h>

/* An element wider than a word, so the generic sort's final permutation
 * moves whole records. */
typedef struct rec {
    int key, seq;
    char pad[24];
} rec;

typedef struct cmp_ctx {
    struct cmp_ctx *self; /* what every call must receive */
    int sign;             /* +1 ascending, -1 descending */
    size_t calls, wrong_ctx;
} cmp_ctx;

static int rec_cmp(const void *a, const void *b, void *ctx)
{
    cmp_ctx *c = ctx;
    c->calls++;
    if (c->self != c)
        c->wrong_ctx++;
    int x = ((const rec *)a)->key, y = ((const rec *)b)->key;
    return c->sign * ((x > y) - (x < y));
}

static void cmp_ctx_init(cmp_ctx *c, int sign)
{
    memset(c, 0, sizeof *c);
    c->self = c;
    c->sign = sign;
}

/* key = 7i mod 5 for i < 100: each key 20 times, scattered over every run */
enum { NREC = 100 };
static void fill_recs(rec *r)
{
    memset(r, 0, NREC * sizeof *r);
    for (int i = 0; i < NREC; i++) {
        r[i].key = (7 * i) % 5;
        r[i].seq = i;
    }
}

START_TEST(equal_keys_keep_input_order_through_merges)
{
    tp_host = tp_core_host_api();
    rec r[NREC];
    fill_recs(r);
    cmp_ctx c;
    cmp_ctx_init(&c, 1);
    ck_assert_int_eq(tp_sort(r, NREC, sizeof *r, rec_cmp, &c), TP_OK);
    /* 7i = k (mod 5) <=> i = first[k] (mod 5): key k's inputs are
     * first[k], first[k] + 5, ... and must come out in that order */
    static const int first[5] = {0, 3, 1, 4, 2};
    for (int k = 0; k < 5; k++)
        for (int j = 0; j < 20; j++) {
            ck_assert_int_eq(r[20 * k + j].key, k);
            ck_assert_int_eq(r[20 * k + j].seq, first[k] + 5 * j);
        }
}
END_TEST

START_TEST(context_reaches_the_comparator)
{
    tp_host = tp_core_host_api();
    rec r[NREC];
    fill_recs(r);
    cmp_ctx c;
    cmp_ctx_init(&c, -1); /* the context turns the order round */
    ck_assert_int_eq(tp_sort(r, NREC, sizeof *r, rec_cmp, &c), TP_OK);
    ck_assert_uint_gt(c.calls, 0);
    ck_assert_uint_eq(c.wrong_ctx, 0);
    /* descending keys 4, 3, 2, 1, 0; still stable inside a key */
    ck_assert_int_eq(r[0].key, 4);
    ck_assert_int_eq(r[0].seq, 2);
    ck_assert_int_eq(r[1].seq, 7);
    ck_assert_int_eq(r[19].seq, 97);
    ck_assert_int_eq(r[20].key, 3);
    ck_assert_int_eq(r[20].seq, 4);
    ck_assert_int_eq(r[99].key, 0);
    ck_assert_int_eq(r[99].seq, 95);
}
END_TEST

START_TEST(zero_and_one_element)
{
    tp_host = tp_core_host_api();
    cmp_ctx c;
    cmp_ctx_init(&c, 1);
    ck_assert_int_eq(tp_sort(NULL, 0, sizeof(rec), rec_cmp, &c), TP_OK);
    rec one = {.key = 5, .seq = 9};
    ck_assert_int_eq(tp_sort(&one, 1, sizeof one, rec_cmp, &c), TP_OK);
    ck_assert_int_eq(one.key, 5);
    ck_assert_int_eq(one.seq, 9);
    ck_assert_uint_eq(c.calls, 0); /* nothing to compare */

    ck_assert_int_eq(tp_sort_rows_by_key(NULL, 0, NULL), TP_OK);
    uint32_t row = 3;
    static const int64_t key[4] = {0, 0, 0, -1};
    ck_assert_int_eq(tp_sort_rows_by_key(&row, 1, key), TP_OK);
    ck_assert_uint_eq(row, 3);
}
END_TEST

START_TEST(rows_by_key_ties_by_row_number)
{
    tp_host = tp_core_host_api();
    /* row:                   0   1   2   3   4   5 */
    static const int64_t ts[6] = {50, 10, 30, 10, 50, 20};
    uint32_t rows[6] = {4, 3, 2, 1, 0, 5};
    ck_assert_int_eq(tp_sort_rows_by_key(rows, 6, ts), TP_OK);
    /* 10: rows 1, 3 (by row number, not by input position); 20: 5; 30: 2;
     * 50: rows 0, 4 */
    static const uint32_t want[6] = {1, 3, 5, 2, 0, 4};
    for (size_t i = 0; i < 6; i++)
        ck_assert_uint_eq(rows[i], want[i]);

    uint32_t some[3] = {4, 0, 5}; /* a subset of the rows */
    ck_assert_int_eq(tp_sort_rows_by_key(some, 3, ts), TP_OK);
    ck_assert_uint_eq(some[0], 5);
    ck_assert_uint_eq(some[1], 0);
    ck_assert_uint_eq(some[2], 4);
}
END_TEST

START_TEST(rows_by_key_merges_long_input)
{
    tp_host = tp_core_host_api();
    /* 99 rows given last to first, key = row mod 3: rows 0, 3, ..., 96,
     * then 1, 4, ..., 97, then 2, 5, ..., 98 */
    int64_t key[99];
    uint32_t rows[99];
    for (uint32_t i = 0; i < 99; i++) {
        key[i] = i % 3;
        rows[i] = 98 - i;
    }
    ck_assert_int_eq(tp_sort_rows_by_key(rows, 99, key), TP_OK);
    for (uint32_t k = 0; k < 3; k++)
        for (uint32_t j = 0; j < 33; j++)
            ck_assert_uint_eq(rows[33 * k + j], k + 3 * j);
}
END_TEST

/* The SDK allocates through tp_host: a copy of the core's table whose
 * malloc fails at call `fail_at` (1-based; 0 never) and counts calls. */
static tp_host_api failing_host;
static int malloc_calls, fail_at;

static void *failing_malloc(size_t n)
{
    if (++malloc_calls == fail_at)
        return NULL;
    return tp_core_host_api()->malloc(n);
}

static void use_failing_host(int at)
{
    failing_host = *tp_core_host_api();
    failing_host.malloc = failing_malloc;
    malloc_calls = 0;
    fail_at = at;
    tp_host = &failing_host;
}

START_TEST(allocation_failure_leaves_input_unchanged)
{
    rec orig[NREC], r[NREC];
    fill_recs(orig);
    cmp_ctx c;
    cmp_ctx_init(&c, 1);
    /* tp_sort allocates 4 blocks on this input (indices, copy, run ends,
     * merge scratch): each failure gives TP_ENOMEM and the input as it was */
    for (int at = 1; at <= 4; at++) {
        memcpy(r, orig, sizeof r);
        use_failing_host(at);
        ck_assert_int_eq(tp_sort(r, NREC, sizeof *r, rec_cmp, &c), TP_ENOMEM);
        ck_assert_int_eq(memcmp(r, orig, sizeof r), 0);
    }
    memcpy(r, orig, sizeof r);
    use_failing_host(0);
    ck_assert_int_eq(tp_sort(r, NREC, sizeof *r, rec_cmp, &c), TP_OK);
    ck_assert_int_eq(malloc_calls, 4);

    /* rows by key: run ends, then scratch (several runs: reversed input);
     * without them the rows are sorted in place, in the same order (keys
     * tied in threes: ties by row) */
    int64_t key[99];
    uint32_t rows[99], orig_rows[99], merged[99];
    for (uint32_t i = 0; i < 99; i++) {
        key[i] = i / 3;
        orig_rows[i] = 98 - i;
    }
    memcpy(merged, orig_rows, sizeof merged);
    use_failing_host(0);
    ck_assert_int_eq(tp_sort_rows_by_key(merged, 99, key), TP_OK);
    ck_assert_int_eq(malloc_calls, 2);
    for (uint32_t i = 0; i < 99; i++)
        ck_assert_uint_eq(merged[i], i);
    for (int at = 1; at <= 2; at++) {
        memcpy(rows, orig_rows, sizeof rows);
        use_failing_host(at);
        ck_assert_int_eq(tp_sort_rows_by_key(rows, 99, key), TP_OK);
        ck_assert_int_eq(memcmp(rows, merged, sizeof rows), 0);
    }
    /* input already in order: one pass, no allocation, so no failure */
    use_failing_host(1);
    ck_assert_int_eq(tp_sort_rows_by_key(rows, 99, key), TP_OK);
    ck_assert_int_eq(malloc_calls, 0);
    tp_host = tp_core_host_api();
}
END_TEST

static Suite *sdk_sort_suite(void)
{
    Suite *s = suite_create("sdk_sort");
    TCase *tc = tcase_create("sort");
    tcase_add_test(tc, equal_keys_keep_input_order_through_merges);
    tcase_add_test(tc, context_reaches_the_comparator);
    tcase_add_test(tc, zero_and_one_element);
    tcase_add_test(tc, rows_by_key_ties_by_row_number);
    tcase_add_test(tc, rows_by_key_merges_long_input);
    tcase_add_test(tc, allocation_failure_leaves_input_unchanged);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_sort_suite)
