/*
 * reader `csv_table` (docs/plugins/csv_table.md): RFC 4180 quoting, column
 * types inferred from every non-empty cell (int64, double, text), empty
 * cells null, `types:` overrides, `comment:` lines, and each error as one
 * line naming FILE:LINE with nothing written.
 */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "tp_internal.h"
#include "tp_test.h"
#include "writers_util.h"

static void write_csv(const char *text) { wu_write("t.csv", text, strlen(text)); }

/* Runs csv_table (id t) over wu_dir/t.csv with extra options. */
static tp_run *read_csv(const char *opts)
{
    char stages[512];
    snprintf(stages, sizeof stages, "  - {reader: csv_table, id: t, path: '${out}/t.csv'%s%s}\n",
             opts[0] ? ", " : "", opts);
    return tp_test_run_yaml(wu_yaml(stages));
}

/* The message of a run that fails (exit 1), with a csv writer after the
 * reader: no output file may be left. */
static const char *fails_file(const char *file, const char *opts)
{
    static char msg[1024];
    char stages[512];
    snprintf(stages, sizeof stages,
             "  - {reader: csv_table, id: t, path: '${out}/%s'%s%s}\n"
             "  - {writer: csv, path: '${out}/out.csv'}\n",
             file, opts[0] ? ", " : "", opts);
    msg[0] = '\0';
    ck_assert_int_eq(tp_test_run_yaml_fails(wu_yaml(stages), msg, sizeof msg), TP_EXIT_FAIL);
    char path[300];
    struct stat sb;
    snprintf(path, sizeof path, "%s/out.csv", wu_dir);
    ck_assert_msg(stat(path, &sb) != 0, "output written after a failure");
    return msg;
}

static const char *fails(const char *opts) { return fails_file("t.csv", opts); }

#define HAS(msg, text) ck_assert_msg(strstr(msg, text) != NULL, "message: %s", msg)

START_TEST(test_types_and_nulls)
{
    write_csv("\xef\xbb\xbf" "i,d,s,e,q,big\r\n"
              "1,2.5,x,,\"12\",9223372036854775807\r\n"
              "+5,1e3,\"a, \"\"b\"\"\",,\" 7 \",9223372036854775808\r\n"
              "\r\n"
              " -3 ,.5,\"two\nlines\",,,1\r\n"
              ",-1.,0x10,,8,2");
    tp_run *run = read_csv("");
    const tp_result *r = tp_test_result(run, "t");
    ck_assert_uint_eq(tp_result_nrows(r), 4);
    static const tp_coltype want[] = {TP_COL_I64, TP_COL_F64, TP_COL_STR, TP_COL_STR,
                                      TP_COL_I64, TP_COL_F64};
    for (int c = 0; c < 6; c++)
        ck_assert_msg(tp_result_coltype(r, c) == want[c], "column %d: type %d", c,
                      (int)tp_result_coltype(r, c));
    ck_assert_str_eq(tp_result_colname(r, 0), "i"); /* the byte order mark is not a name */
    ck_assert(tp_test_i64(r, 0, "i") == 1 && tp_test_i64(r, 1, "i") == 5 &&
              tp_test_i64(r, 2, "i") == -3);
    ck_assert(tp_result_null(r, 3, 0));
    ck_assert(tp_test_f64(r, 1, "d") == 1000 && tp_test_f64(r, 2, "d") == 0.5 &&
              tp_test_f64(r, 3, "d") == -1);
    ck_assert_str_eq(tp_test_str(r, 1, "s"), "a, \"b\"");
    ck_assert_str_eq(tp_test_str(r, 2, "s"), "two\nlines");
    ck_assert_str_eq(tp_test_str(r, 3, "s"), "0x10");
    for (size_t row = 0; row < 4; row++)
        ck_assert(tp_result_null(r, row, 3)); /* a column without a value: text, all null */
    ck_assert(tp_test_i64(r, 0, "q") == 12 && tp_test_i64(r, 1, "q") == 7);
    ck_assert(tp_result_null(r, 2, 4));
    ck_assert(tp_test_f64(r, 1, "big") == 9223372036854775808.0); /* beyond int64: double */
    tp_run_free(run);
}
END_TEST

START_TEST(test_header_only_comments_overrides)
{
    write_csv("a,b\n");
    tp_run *run = read_csv("");
    ck_assert_uint_eq(tp_result_nrows(tp_test_result(run, "t")), 0);
    ck_assert_uint_eq(tp_result_ncols(tp_test_result(run, "t")), 2);
    tp_run_free(run);

    write_csv("# a benchmark\n#x,y\nk,v\n# inside\n1,\"# not a comment\"\n2,3\n");
    run = read_csv("comment: '#'");
    const tp_result *r = tp_test_result(run, "t");
    ck_assert_uint_eq(tp_result_nrows(r), 2);
    ck_assert_str_eq(tp_test_str(r, 0, "v"), "# not a comment");
    tp_run_free(run);

    write_csv("k,v,w\n1,2,x\n3,4.5,y\n");
    run = read_csv("types: ['k: double', 'v : text', 'w: text']");
    r = tp_test_result(run, "t");
    ck_assert(tp_result_coltype(r, 0) == TP_COL_F64 && tp_result_coltype(r, 1) == TP_COL_STR);
    ck_assert_str_eq(tp_test_str(r, 1, "v"), "4.5");
    tp_run_free(run);
}
END_TEST

START_TEST(test_errors)
{
    static const struct {
        const char *csv, *opts, *want;
    } cases[] = {
        {"a,b\n1,2\n\"x\ny\",2\n3\n", "", "t.csv:5: 1 field, the header has 2 (ragged row)"},
        {"a,b\n1,2,3\n", "", "t.csv:2: 3 fields, the header has 2 (ragged row)"},
        {"a,b\n1,2\n3,\"open\n4,5\n", "", "t.csv:3: a quoted field is not closed (unterminated quote)"},
        {"", "", "t.csv: empty file (a header row is needed)"},
        {"# only a comment\n\n", "comment: '#'", "t.csv: empty file"},
        {"a,b,a\n1,2,3\n", "", "t.csv:1: duplicate header name 'a' (columns 1 and 3)"},
        {"a,,c\n1,2,3\n", "", "t.csv:1: column 2 has no name"},
        {"a,b\n\"x\"y,2\n", "", "t.csv:2: text after a closing quote"},
        {"a,b\nx\"y,2\n", "", "t.csv:2: a quote inside an unquoted field"},
        {"k,v\n1,2\n3,x\n", "types: ['v: int64']", "t.csv:3: column 'v': 'x' is not a whole number (int64)"},
        {"k,v\n1,2\n3,x\n", "types: ['nope: int64']", "t.csv:1: types: no column 'nope' in the header"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        write_csv(cases[i].csv);
        HAS(fails(cases[i].opts), cases[i].want);
    }
    wu_write("t.csv", "a,b\n1,2\nx\0,2\n", 13);
    HAS(fails(""), "t.csv:3: a NUL byte");
    const char *msg = fails_file("missing.csv", "");
    HAS(msg, "missing.csv: cannot open: No such file or directory");
    char dir[300];
    snprintf(dir, sizeof dir, "%s/d.csv", wu_dir);
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    HAS(fails_file("d.csv", ""), "d.csv: cannot read: Is a directory");
}
END_TEST

START_TEST(test_bad_options)
{
    static const char *const opts[] = {"types: ['k double']", "types: ['k: float']",
                                       "comment: ''"};
    static const char *const want[] = {"types[0]: 'k double' is not", "types[0]: 'k: float'",
                                       "comment: give the text"};
    write_csv("k\n1\n");
    for (size_t i = 0; i < 3; i++) {
        char stages[256], msg[1024] = "";
        snprintf(stages, sizeof stages, "  - {reader: csv_table, path: '${out}/t.csv', %s}\n",
                 opts[i]);
        ck_assert_int_eq(tp_test_run_yaml_fails(wu_yaml(stages), msg, sizeof msg),
                         TP_EXIT_USAGE);
        HAS(msg, want[i]);
    }
}
END_TEST

static Suite *csv_table_suite(void)
{
    Suite *s = suite_create("csv_table");
    TCase *tc = tcase_create("read");
    tcase_add_checked_fixture(tc, wu_setup, wu_teardown);
    tcase_add_test(tc, test_types_and_nulls);
    tcase_add_test(tc, test_header_only_comments_overrides);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_bad_options);
    suite_add_tcase(s, tc);
    return s;
}

TP_TEST_SUITE(csv_table_suite)
