/*
 * writer `csv` over the fixture_results tables (values: see
 * tests/testplugins/tp_fixture_results.c).  Floats are expected in their
 * shortest round-trip form, as Python's repr() prints them.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "writers_util.h"

#define FLAT_CSV                                                          \
    "device,stream,span_us,active_us,idle_us,active_percent\n"            \
    "0,7,1000,250.5,749.5,25.05\n"                                        \
    "9007199254740993,-1,0.30000000000000004,1e-07,,33.333333333333336\n"

#define TREE_CSV                                                                    \
    "id,parent_id,depth,name,time_us,percent_of_parent,percent_of_total,count,path\n"                \
    "0,,0,Host runtime,1000,100,100,,Host runtime\n"                                               \
    "1,0,1,forward,600,60,60,2,Host runtime / forward\n"                                           \
    "2,1,2,aten::mm,45.5,7.583333333333333,4.55,4,Host runtime / forward / aten::mm\n"              \
    "3,1,2,Unaccounted,554.5,92.41666666666667,55.45,,Host runtime / forward / Unaccounted\n"       \
    "4,0,1,backward,300,30,30,1,Host runtime / backward\n"                                         \
    "5,0,1,Unaccounted,100,10,10,,Host runtime / Unaccounted\n"

#define X10 "xxxxxxxxxx"

START_TEST(test_flat_table)
{
    wu_run("  - {analysis: fixture_results, shape: flat}\n"
           "  - {writer: csv, path: '${out}/f.csv'}\n");
    wu_expect_file("f.csv", FLAT_CSV);
    ck_assert_int_eq(wu_dir_entries(), 1); /* no temporary file left */
}
END_TEST

START_TEST(test_tree_written_flat)
{
    /* a tree gets its `path` column (names from the root); tree_path: false
     * writes the columns alone */
    wu_run("  - {analysis: fixture_results, shape: tree}\n"
           "  - {writer: csv, path: '${out}/t.csv'}\n"
           "  - {writer: csv, path: '${out}/u.csv', tree_path: false}\n");
    wu_expect_file("t.csv", TREE_CSV);
    wu_expect_file("u.csv",
                   "id,parent_id,depth,name,time_us,percent_of_parent,percent_of_total,count\n"
                   "0,,0,Host runtime,1000,100,100,\n"
                   "1,0,1,forward,600,60,60,2\n"
                   "2,1,2,aten::mm,45.5,7.583333333333333,4.55,4\n"
                   "3,1,2,Unaccounted,554.5,92.41666666666667,55.45,\n"
                   "4,0,1,backward,300,30,30,1\n"
                   "5,0,1,Unaccounted,100,10,10,\n");
}
END_TEST

START_TEST(test_crlf_without_header)
{
    wu_run("  - {analysis: fixture_results, shape: flat}\n"
           "  - {writer: csv, path: '${out}/f.csv', crlf: true, header: false}\n");
    wu_expect_file("f.csv", "0,7,1000,250.5,749.5,25.05\r\n"
                            "9007199254740993,-1,0.30000000000000004,1e-07,,33.333333333333336\r\n");
}
END_TEST

START_TEST(test_odd_names_quoted)
{
    wu_run("  - {analysis: fixture_results, shape: odd}\n"
           "  - {writer: csv, path: '${out}/o.csv'}\n");
    wu_expect_file("o.csv",
                   "id,parent_id,depth,name,time_us,percent_of_parent,percent_of_total,count,path\n"
                   "10,,0,\"say \"\"hi\"\", ok\",2,,,,\"say \"\"hi\"\", ok\"\n"
                   "11,10,1,\"line1\nline2\r\",,,,3,\"say \"\"hi\"\", ok / line1\nline2\r\"\n"
                   "12,11,2,\xc2\xb5s na\xc3\xafve \xe2\x9c\x93,0.5,25,25,,"
                   "\"say \"\"hi\"\", ok / line1\nline2\r / \xc2\xb5s na\xc3\xafve \xe2\x9c\x93\"\n"
                   "13,10,1," X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 ",1.5,75,75,1,"
                   "\"say \"\"hi\"\", ok / " X10 X10 X10 X10 X10 X10 X10 X10 X10 X10 "\"\n"
                   "14,10,1,,,,,,\"say \"\"hi\"\", ok / \"\n"
                   "15,10,1,bad\xff,0,0,0,0,\"say \"\"hi\"\", ok / bad\xff\"\n");
}
END_TEST

START_TEST(test_empty_table_header_only)
{
    wu_run("  - {analysis: fixture_results, shape: empty}\n"
           "  - {writer: csv, path: '${out}/e.csv'}\n");
    wu_expect_file("e.csv", "name,value\n");
    wu_run("  - {analysis: fixture_results, shape: empty}\n"
           "  - {writer: csv, path: '${out}/e2.csv', header: false}\n");
    wu_expect_file("e2.csv", "");
}
END_TEST

START_TEST(test_one_file_per_result)
{
    wu_run("  - {analysis: fixture_results, id: a, shape: flat}\n"
           "  - {analysis: fixture_results, id: b, shape: tree}\n"
           "  - {writer: csv, input: [a, b], path: '${out}/r_{id}.csv'}\n");
    wu_expect_file("r_a.csv", FLAT_CSV);
    wu_expect_file("r_b.csv", TREE_CSV);
    ck_assert_int_eq(wu_dir_entries(), 2);
}
END_TEST

START_TEST(test_several_results_need_id_in_path)
{
    const char *msg = wu_run_fails("  - {analysis: fixture_results, id: a, shape: flat}\n"
                                   "  - {analysis: fixture_results, id: b, shape: tree}\n"
                                   "  - {writer: csv, input: [a, b], path: '${out}/r.csv'}\n");
    ck_assert_msg(strstr(msg, "must contain {id}") != NULL, "message: %s", msg);
    ck_assert_int_eq(wu_dir_entries(), 0);
}
END_TEST

START_TEST(test_stdout_blank_line_between_results)
{
    char *out = wu_run_stdout("  - {analysis: fixture_results, id: a, shape: flat}\n"
                              "  - {analysis: fixture_results, id: b, shape: empty}\n"
                              "  - {writer: csv, input: [a, b]}\n");
    ck_assert_str_eq(out, FLAT_CSV "\nname,value\n");
    free(out);
}
END_TEST

START_TEST(test_missing_directory)
{
    /* missing folders are created; the file is complete */
    wu_run("  - {analysis: fixture_results, shape: flat}\n"
           "  - {writer: csv, path: '${out}/nodir/deeper/f.csv'}\n");
    wu_expect_file("nodir/deeper/f.csv", FLAT_CSV);
    ck_assert_int_eq(wu_dir_entries(), 1); /* nodir, and no temporary beside it */
}
END_TEST

START_TEST(test_output_under_a_file)
{
    /* a path through a regular file is a configuration error, before running */
    char msg[1024] = "";
    ck_assert_int_eq(tp_test_run_yaml_fails(wu_yaml("  - {analysis: fixture_results, shape: flat}\n"
                                                    "  - {writer: csv, path: /etc/passwd/f.csv}\n"),
                                            msg, sizeof msg),
                     TP_EXIT_USAGE);
    ck_assert_msg(strstr(msg, "'/etc/passwd' is not a folder") != NULL, "message: %s", msg);
}
END_TEST

START_TEST(test_read_only_directory)
{
    char sub[300];
    const char *msg;

    if (geteuid() == 0)
        return; /* root writes anywhere: nothing to test */
    snprintf(sub, sizeof sub, "%s/ro", wu_dir);
    ck_assert_int_eq(mkdir(sub, 0555), 0);
    msg = wu_run_fails("  - {analysis: fixture_results, shape: flat}\n"
                       "  - {writer: csv, path: '${out}/ro/f.csv'}\n");
    ck_assert_msg(strstr(msg, "ro/f.csv") != NULL, "message: %s", msg);
    ck_assert_msg(strstr(msg, "Permission denied") != NULL, "message: %s", msg);
    chmod(sub, 0755);
    ck_assert_int_eq(wu_dir_entries(), 1); /* just ro/ */
}
END_TEST

static Suite *csv_suite(void)
{
    Suite *s = suite_create("csv");
    TCase *tc = tcase_create("write");

    tcase_add_checked_fixture(tc, wu_setup, wu_teardown);
    tcase_add_test(tc, test_flat_table);
    tcase_add_test(tc, test_tree_written_flat);
    tcase_add_test(tc, test_crlf_without_header);
    tcase_add_test(tc, test_odd_names_quoted);
    tcase_add_test(tc, test_empty_table_header_only);
    tcase_add_test(tc, test_one_file_per_result);
    tcase_add_test(tc, test_several_results_need_id_in_path);
    tcase_add_test(tc, test_stdout_blank_line_between_results);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_checked_fixture(tc, wu_setup, wu_teardown);
    tcase_add_test(tc, test_missing_directory);
    tcase_add_test(tc, test_output_under_a_file);
    tcase_add_test(tc, test_read_only_directory);
    suite_add_tcase(s, tc);
    return s;
}

TP_TEST_SUITE(csv_suite)
