/* Gates (core/tp_gate*.c, docs/gates.md): the parser's operators,
 * precedence and errors with their columns, and evaluation on hand-made
 * result tables whose trips are counted by hand in each comment. */
#include <math.h>
#include <string.h>

#include "tp_test.h"

#include "tp_gate.h"
#include "tp_result.h"

/* Declared results: k (kernels), k.summary (one row), adv (findings). */
static const tp_col_decl k_cols[] = {{"name", TP_COL_STR, NULL, "kernel"},
                                     {"sum_us", TP_COL_F64, "us", "time"},
                                     {"count", TP_COL_I64, "count", "launches"}};
static const tp_col_decl sum_cols[] = {{"window_us", TP_COL_F64, "us", "window"}};
static const tp_col_decl adv_cols[] = {{"rule", TP_COL_STR, NULL, "rule"},
                                       {"severity", TP_COL_STR, NULL, "info, warn, error"}};
static const tp_result_decl k_decl = {"", "table", k_cols, 3, "kernels"};
static const tp_result_decl sum_decl = {"summary", "table", sum_cols, 1, "summary"};
static const tp_result_decl adv_decl = {"", "table", adv_cols, 2, "findings"};
static tp_gate_result schema_v[] = {{"k", &k_decl}, {"k.summary", &sum_decl}, {"adv", &adv_decl}};
static const tp_gate_schema schema = {schema_v, 3};

/* k: ncclAllReduce 6000 us x3, gemm 2000 us x10, nccl_bcast (null) x1;
 * k.summary: window_us 5; adv: warn, info, error, bogus. */
static tp_result *tables[3];

static const tp_result *find(const void *ctx, const char *id)
{
    (void)ctx;
    for (size_t i = 0; i < 3; i++)
        if (tables[i] && strcmp(tp_result_get_id(tables[i]), id) == 0)
            return tables[i];
    return NULL;
}

static void make_tables(void)
{
    static const char *names[] = {"ncclAllReduce", "gemm", "nccl_bcast"};
    static const double sums[] = {6000, 2000, NAN};
    static const int64_t counts[] = {3, 10, 1};
    tables[0] = tp_result_create("k");
    tp_result_col_add(tables[0], "name", TP_COL_STR);
    tp_result_col_add(tables[0], "sum_us", TP_COL_F64);
    tp_result_col_add(tables[0], "count", TP_COL_I64);
    for (size_t i = 0; i < 3; i++) {
        size_t row;
        tp_result_row_add(tables[0], &row);
        tp_result_put_str(tables[0], row, 0, names[i]);
        if (!isnan(sums[i]))
            tp_result_put_f64(tables[0], row, 1, sums[i]);
        tp_result_put_i64(tables[0], row, 2, counts[i]);
    }
    size_t row;
    tables[1] = tp_result_create("k.summary");
    tp_result_col_add(tables[1], "window_us", TP_COL_F64);
    tp_result_row_add(tables[1], &row);
    tp_result_put_f64(tables[1], row, 0, 5);
    static const char *sev[] = {"warn", "info", "error", "bogus"};
    tables[2] = tp_result_create("adv");
    tp_result_col_add(tables[2], "rule", TP_COL_STR);
    tp_result_col_add(tables[2], "severity", TP_COL_STR);
    for (size_t i = 0; i < 4; i++) {
        tp_result_row_add(tables[2], &row);
        tp_result_put_str(tables[2], row, 0, "r");
        tp_result_put_str(tables[2], row, 1, sev[i]);
    }
}

static void free_tables(void)
{
    for (size_t i = 0; i < 3; i++) {
        tp_result_destroy(tables[i]);
        tables[i] = NULL;
    }
}

/* How many row combinations trip expr; -1 when not evaluated. */
static long trips(const char *expr)
{
    char err[512];
    int col = 0;
    tp_gate *g = tp_gate_compile(expr, &schema, "test", err, sizeof err, &col);
    ck_assert_msg(g != NULL, "%s: column %d: %s", expr, col, err);
    tp_gate_outcome o;
    ck_assert_int_eq(tp_gate_eval(g, find, NULL, &o, err, sizeof err), TP_OK);
    tp_gate_free(g);
    return o.evaluated ? (long)o.trips : -1;
}

START_TEST(gate_evaluates_on_tables)
{
    make_tables();
    /* a filter keeps the nccl rows (1 and 3); row 3's null never trips */
    ck_assert_int_eq(trips("k[name=~\"nccl\"].sum_us > 5000"), 1);
    ck_assert_int_eq(trips("k[name=~\"nccl\"].sum_us > 7000"), 0);
    /* aggregates: sum skips nulls; count(result) counts rows */
    ck_assert_int_eq(trips("sum(k[name=~\"nccl\"].sum_us) == 6000"), 1);
    ck_assert_int_eq(trips("max(k.sum_us) == 6000 and min(k.sum_us) == 2000"), 1);
    ck_assert_int_eq(trips("count(k) == 3 and count(k.sum_us) == 2"), 1);
    ck_assert_int_eq(trips("mean(k.sum_us) == 4000"), 1);
    ck_assert_int_eq(trips("count(k[count > 2]) == 2"), 1);
    /* three-valued logic: not null is null; null or true is true */
    ck_assert_int_eq(trips("not (k.sum_us > 0)"), 0);
    ck_assert_int_eq(trips("k.sum_us > 0 or k.count > 0"), 3);
    ck_assert_int_eq(trips("k.sum_us > 0 and k.count > 0"), 2);
    /* arithmetic between columns: 2000, 200, null; x / 0 is null */
    ck_assert_int_eq(trips("k.sum_us / k.count > 1000"), 1);
    ck_assert_int_eq(trips("k.sum_us / (k.count - k.count) > 0"), 0);
    /* precedence: and before or (0 trips if or came first), * before + */
    ck_assert_int_eq(trips("k.count == 3 or k.count == 10 and k.count == 1"), 1);
    ck_assert_int_eq(trips("k.count == 1 and 2 * 3 + 1 == 7"), 1);
    ck_assert_int_eq(trips("k.count == 1 and 2 + 3 * 2 == 8"), 1);
    /* left associative: (c - 1) - 1 == 1 for 3 only; (c / 2) / 3 > 0.4 for 3 and 10 */
    ck_assert_int_eq(trips("k.count - 1 - 1 == 1"), 1);
    ck_assert_int_eq(trips("k.count / 2 / 3 > 0.4"), 2);
    ck_assert_int_eq(trips("-k.count < -5"), 1);
    /* every comparison */
    ck_assert_int_eq(trips("k.count < 3"), 1);
    ck_assert_int_eq(trips("k.count <= 3"), 2);
    ck_assert_int_eq(trips("k.count > 3"), 1);
    ck_assert_int_eq(trips("k.count >= 3"), 2);
    ck_assert_int_eq(trips("k.count == 3"), 1);
    ck_assert_int_eq(trips("k.count != 3"), 2);
    ck_assert_int_eq(trips("k.name == \"gemm\""), 1);
    ck_assert_int_eq(trips("k.name != 'gemm'"), 2);
    ck_assert_int_eq(trips("k.name =~ \"^nccl_\""), 1);
    /* severities: info < warn < error; other text is null */
    ck_assert_int_eq(trips("adv.severity >= warn"), 2);
    ck_assert_int_eq(trips("adv.severity == error"), 1);
    ck_assert_int_eq(trips("adv.severity < warn"), 1);
    ck_assert_int_eq(trips("not adv.severity >= info"), 0);
    /* a bare name is a column of the row of the result named before it */
    ck_assert_int_eq(trips("k[name=~\"gemm\"].count >= 10 and sum_us < 3000"), 1);
    ck_assert_int_eq(trips("count > 5 and k.name == 'gemm'"), 1);
    /* the longest declared prefix: k.summary, column window_us; two
     * results: every combination of their rows */
    ck_assert_int_eq(trips("k.count > k.summary.window_us"), 1);
    ck_assert_int_eq(trips("k.sum_us / 1000 > k.summary.window_us and window_us > 0"), 1);
    free_tables();
    /* a result this run did not make: not evaluated */
    ck_assert_int_eq(trips("adv.severity >= warn"), -1);
}
END_TEST

START_TEST(gate_reports_the_first_row)
{
    make_tables();
    char err[512];
    int col;
    tp_gate *g = tp_gate_compile("k[name=~\"nccl\"].sum_us > 5000", &schema, "--fail-if 1", err,
                                 sizeof err, &col);
    ck_assert_ptr_nonnull(g);
    tp_gate_outcome o;
    ck_assert_int_eq(tp_gate_eval(g, find, NULL, &o, err, sizeof err), TP_OK);
    ck_assert_uint_eq(o.trips, 1);
    ck_assert_uint_eq(o.rows, 2);
    ck_assert_str_eq(o.detail, "k[name=~\"nccl\"].sum_us = 6000 in k row 1 (name \"ncclAllReduce\")");
    ck_assert(o.first_value == 6000);
    ck_assert_str_eq(tp_gate_where(g), "--fail-if 1");
    tp_gate_free(g);
    free_tables();
}
END_TEST

static void refused(const char *expr, int want_col, const char *want)
{
    char err[512] = "";
    int col = 0;
    tp_gate *g = tp_gate_compile(expr, &schema, "test", err, sizeof err, &col);
    ck_assert_msg(g == NULL, "%s: accepted", expr);
    ck_assert_msg(col == want_col, "%s: column %d, expected %d (%s)", expr, col, want_col, err);
    ck_assert_msg(strstr(err, want) != NULL, "%s: '%s' lacks '%s'", expr, err, want);
}

START_TEST(gate_errors_have_columns)
{
    refused("", 1, "expected a value at the end");
    refused("k.sum_us >", 11, "expected a value at the end");
    refused("k.sum_ms > 1", 1, "result 'k' has no column 'sum_ms' (did you mean 'sum_us'?)");
    refused("kk.sum_us > 1", 1, "no result of the pipeline prefixes 'kk.sum_us' (did you mean 'k'?)");
    refused("k.sum_us > 1 and", 17, "expected a value at the end");
    refused("(k.sum_us > 1", 14, "expected ')'");
    refused("k.sum_us > 1 )", 14, "unbalanced ')'");
    refused("k.sum_us = 1", 10, "compare with ==");
    refused("k.sum_us > 1 && k.count > 1", 14, "join with and");
    refused("k.name =~ \"(\"", 13, "bad regex");
    refused("k.name =~ k.name", 11, "=~ takes a regex in quotes");
    refused("k.name > 1", 1, "order numbers, or severities");
    refused("k.count == \"x\"", 1, "compare like with like");
    refused("k.sum_us > 1 > 2", 14, "comparisons do not chain");
    refused("sum(k.sum_us + adv.rule) > 1", 16, "an aggregate reads the rows of one result (k)");
    refused("k.sum_us > 5us", 13, "without a unit");
    refused("k.sum_us > 'abc", 12, "no closing '");
    refused("k[sum_us].count > 1", 3, "a row filter is a condition");
    refused("k[adv.rule == 'x'].count > 1", 3, "a row filter reads the rows of one result (k)");
    refused("nope > 1", 1, "'nope' is no result of the pipeline");
    refused("avg(k.sum_us) > 1", 1, "unknown function 'avg'");
    refused("sum(k) > 1", 5, "sum() takes a column");
    refused("k > 1", 1, "'k' is a whole result");
    refused("k.sum_us + 1", 1, "a gate is a condition");
    refused("k.sum_us and k.count > 1", 1, "'and' takes conditions");
    refused("k.name + 1 > 2", 1, "arithmetic takes numbers; this is text");
    refused("k.count > 1 or `k.summary", 16, "no closing `");
    refused("k.count > 1 # comment", 13, "unexpected '#'");
    refused("1 > 0", 1, "a gate reads a result");
}
END_TEST

static Suite *gate_suite(void)
{
    Suite *s = suite_create("gate");
    TCase *tc = tcase_create("gate");
    tcase_add_test(tc, gate_evaluates_on_tables);
    tcase_add_test(tc, gate_reports_the_first_row);
    tcase_add_test(tc, gate_errors_have_columns);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(gate_suite)
