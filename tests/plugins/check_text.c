/*
 * writer `text` over the fixture_results tables.  Expected layouts worked
 * out by hand from the rules in plugins/writer/text/text.c: tuples start one
 * column after the widest "name:" (indent included, names wider than 60
 * excluded), times and percents right-aligned to their widest entry; table
 * columns as wide as their widest cell, numbers right, text left.
 */
#include <stdlib.h>
#include <string.h>

#include "writers_util.h"

#define X10 "xxxxxxxxxx"

static const char tree_p2[] =
    "Fixture tree: 1000.00 us\n"
    "  forward:       (600.00 us, 60.00%, 2)\n"
    "    aten::mm:    ( 45.50 us,  7.58%, 4)\n"
    "    Unaccounted: (554.50 us, 92.42%)\n"
    "  backward:      (300.00 us, 30.00%, 1)\n"
    "  Unaccounted:   (100.00 us, 10.00%)\n";

static const char flat_p2[] =
    "Fixture streams\n"
    "          device  stream  span_us  active_us  idle_us  active_percent\n"
    "----------------  ------  -------  ---------  -------  --------------\n"
    "               0       7  1000.00     250.50   749.50           25.05\n"
    "9007199254740993      -1     0.30       0.00        -           33.33\n";

START_TEST(test_tree)
{
    wu_run("  - {analysis: fixture_results, shape: tree}\n"
           "  - {writer: text, path: '${out}/t.txt'}\n");
    wu_expect_file("t.txt", tree_p2);
    ck_assert_int_eq(wu_dir_entries(), 1);
}
END_TEST

START_TEST(test_tree_precision_1)
{
    wu_run("  - {analysis: fixture_results, shape: tree}\n"
           "  - {writer: text, path: '${out}/t.txt', precision: 1}\n");
    wu_expect_file("t.txt", "Fixture tree: 1000.0 us\n"
                            "  forward:       (600.0 us, 60.0%, 2)\n"
                            "    aten::mm:    ( 45.5 us,  7.6%, 4)\n"
                            "    Unaccounted: (554.5 us, 92.4%)\n"
                            "  backward:      (300.0 us, 30.0%, 1)\n"
                            "  Unaccounted:   (100.0 us, 10.0%)\n");
}
END_TEST

START_TEST(test_odd_tree)
{
    /* no title: the single root's name heads it; control characters and
     * the invalid byte escaped, UTF-8 counted as one column per character,
     * the 100-character name too wide to set the tuple column (kept
     * whole with max_name: 0) */
    wu_run("  - {analysis: fixture_results, shape: odd}\n"
           "  - {writer: text, path: '${out}/o.txt', max_name: 0}\n");
    wu_expect_file("o.txt", "say \"hi\", ok: 2.00 us\n"
                            "  line1\\nline2\\r: (      -,      -, 3)\n"
                            "    \xc2\xb5s na\xc3\xafve \xe2\x9c\x93:   (0.50 us, 25.00%)\n"
                            "  " X10 X10 X10 X10 X10 X10 X10 X10 X10 X10
                            ": (1.50 us, 75.00%, 1)\n"
                            "  -:              (      -,      -)\n"
                            "  bad\\xff:        (0.00 us,  0.00%, 0)\n");
}
END_TEST

START_TEST(test_long_names_shortened)
{
    /* by default (max_name: 80) the 100-character name keeps its first 52
     * and last 27 characters around an ellipsis; with max_name: 5 every
     * text cell keeps 2 + 2 characters, UTF-8 counted by character, and the
     * tuple column follows the widest shortened label (10 columns) */
    wu_run("  - {analysis: fixture_results, shape: odd}\n"
           "  - {writer: text, path: '${out}/o.txt'}\n"
           "  - {writer: text, path: '${out}/p.txt', max_name: 5}\n");
    wu_expect_file("o.txt", "say \"hi\", ok: 2.00 us\n"
                            "  line1\\nline2\\r: (      -,      -, 3)\n"
                            "    \xc2\xb5s na\xc3\xafve \xe2\x9c\x93:   (0.50 us, 25.00%)\n"
                            "  " X10 X10 X10 X10 X10 "xx\xe2\x80\xa6" X10 X10 "xxxxxxx"
                            ": (1.50 us, 75.00%, 1)\n"
                            "  -:              (      -,      -)\n"
                            "  bad\\xff:        (0.00 us,  0.00%, 0)\n");
    wu_expect_file("p.txt", "sa\xe2\x80\xa6ok: 2.00 us\n"
                            "  li\xe2\x80\xa6\\r:   (      -,      -, 3)\n"
                            "    \xc2\xb5s\xe2\x80\xa6 \xe2\x9c\x93: (0.50 us, 25.00%)\n"
                            "  xx\xe2\x80\xa6xx:   (1.50 us, 75.00%, 1)\n"
                            "  -:       (      -,      -)\n"
                            "  ba\xe2\x80\xa6" "ff:   (0.00 us,  0.00%, 0)\n");
}
END_TEST

START_TEST(test_forest)
{
    /* several roots: the title line alone, the roots as first-level nodes */
    wu_run("  - {analysis: fixture_results, id: forest, shape: forest}\n"
           "  - {writer: text, path: '${out}/f.txt'}\n");
    wu_expect_file("f.txt", "forest\n"
                            "  stream 7:    ( 30.00 us, 100.00%)\n"
                            "    gemm:      ( 20.00 us,  66.67%, 2)\n"
                            "  all streams: (100.00 us, 100.00%)\n");
}
END_TEST

START_TEST(test_flat_table)
{
    wu_run("  - {analysis: fixture_results, shape: flat}\n"
           "  - {writer: text, path: '${out}/f.txt'}\n");
    wu_expect_file("f.txt", flat_p2);
}
END_TEST

START_TEST(test_text_columns_left_aligned)
{
    wu_run("  - {analysis: fixture_results, id: n, shape: names}\n"
           "  - {writer: text, path: '${out}/n.txt'}\n");
    wu_expect_file("n.txt", "n\n"
                            "name      count  share\n"
                            "--------  -----  -----\n"
                            "aten::mm      3   0.50\n"
                            "\xc2\xb5s \xe2\x9c\x93          -  12.25\n"
                            "-            10      -\n");
}
END_TEST

START_TEST(test_empty_table)
{
    wu_run("  - {analysis: fixture_results, id: nothing, shape: empty}\n"
           "  - {writer: text, path: '${out}/e.txt'}\n");
    wu_expect_file("e.txt", "nothing\n"
                            "name  value\n"
                            "----  -----\n"
                            "(no rows)\n");
}
END_TEST

START_TEST(test_file_several_results)
{
    char expected[2048];

    wu_run("  - {analysis: fixture_results, id: t, shape: tree}\n"
           "  - {analysis: fixture_results, id: f, shape: flat}\n"
           "  - {writer: text, input: [f, t], path: '${out}/both.txt'}\n");
    snprintf(expected, sizeof expected, "%s\n%s", flat_p2, tree_p2);
    wu_expect_file("both.txt", expected);
}
END_TEST

START_TEST(test_stdout_several_results)
{
    char *out = wu_run_stdout("  - {analysis: fixture_results, id: t, shape: tree}\n"
                              "  - {analysis: fixture_results, id: f, shape: flat}\n"
                              "  - {writer: text, input: [t, f]}\n");
    char expected[2048];

    /* on stdout each result ends with an empty line */
    snprintf(expected, sizeof expected, "%s\n%s\n", tree_p2, flat_p2);
    ck_assert_str_eq(out, expected);
    free(out);
}
END_TEST

START_TEST(test_tree_not_in_preorder_leaves_no_file)
{
    const char *msg = wu_run_fails("  - {analysis: fixture_results, id: bad, shape: badtree}\n"
                                   "  - {writer: text, path: '${out}/b.txt'}\n");
    ck_assert_msg(strstr(msg, "result 'bad' row 0: parent_id 2 is not an earlier ancestor") !=
                      NULL,
                  "message: %s", msg);
    ck_assert_int_eq(wu_dir_entries(), 0);
}
END_TEST

START_TEST(test_missing_directory)
{
    /* missing folders are created */
    wu_run("  - {analysis: fixture_results, shape: tree}\n"
           "  - {writer: text, path: '${out}/nodir/t.txt'}\n");
    wu_expect_file("nodir/t.txt", tree_p2);
}
END_TEST

static Suite *text_suite(void)
{
    Suite *s = suite_create("text");
    TCase *tc = tcase_create("write");

    tcase_add_checked_fixture(tc, wu_setup, wu_teardown);
    tcase_add_test(tc, test_tree);
    tcase_add_test(tc, test_tree_precision_1);
    tcase_add_test(tc, test_odd_tree);
    tcase_add_test(tc, test_long_names_shortened);
    tcase_add_test(tc, test_forest);
    tcase_add_test(tc, test_flat_table);
    tcase_add_test(tc, test_text_columns_left_aligned);
    tcase_add_test(tc, test_empty_table);
    tcase_add_test(tc, test_file_several_results);
    tcase_add_test(tc, test_stdout_several_results);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_checked_fixture(tc, wu_setup, wu_teardown);
    tcase_add_test(tc, test_tree_not_in_preorder_leaves_no_file);
    tcase_add_test(tc, test_missing_directory);
    suite_add_tcase(s, tc);
    return s;
}

TP_TEST_SUITE(text_suite)
