/*
 * writer `json` over the fixture_results tables.  The expected documents
 * were produced independently by Python's json.dumps (indent=2, or
 * separators=(',', ':') for indent 0; ensure_ascii=False) from the fixture
 * values, with trees nested by a few lines of Python: `parent_id` dropped, `children` added.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "writers_util.h"

static const char flat_indent2[] =
    "{\n"
    "  \"f\": [\n"
    "    {\n"
    "      \"device\": 0,\n"
    "      \"stream\": 7,\n"
    "      \"span_us\": 1000.0,\n"
    "      \"active_us\": 250.5,\n"
    "      \"idle_us\": 749.5,\n"
    "      \"active_percent\": 25.05\n"
    "    },\n"
    "    {\n"
    "      \"device\": 9007199254740993,\n"
    "      \"stream\": -1,\n"
    "      \"span_us\": 0.30000000000000004,\n"
    "      \"active_us\": 1e-07,\n"
    "      \"idle_us\": null,\n"
    "      \"active_percent\": 33.333333333333336\n"
    "    }\n"
    "  ]\n"
    "}\n";

static const char tree_indent2[] =
    "{\n"
    "  \"t\": [\n"
    "    {\n"
    "      \"id\": 0,\n"
    "      \"depth\": 0,\n"
    "      \"name\": \"Host runtime\",\n"
    "      \"time_us\": 1000.0,\n"
    "      \"percent_of_parent\": 100.0,\n"
    "      \"percent_of_total\": 100.0,\n"
    "      \"count\": null,\n"
    "      \"children\": [\n"
    "        {\n"
    "          \"id\": 1,\n"
    "          \"depth\": 1,\n"
    "          \"name\": \"forward\",\n"
    "          \"time_us\": 600.0,\n"
    "          \"percent_of_parent\": 60.0,\n"
    "          \"percent_of_total\": 60.0,\n"
    "          \"count\": 2,\n"
    "          \"children\": [\n"
    "            {\n"
    "              \"id\": 2,\n"
    "              \"depth\": 2,\n"
    "              \"name\": \"aten::mm\",\n"
    "              \"time_us\": 45.5,\n"
    "              \"percent_of_parent\": 7.583333333333333,\n"
    "              \"percent_of_total\": 4.55,\n"
    "              \"count\": 4,\n"
    "              \"children\": []\n"
    "            },\n"
    "            {\n"
    "              \"id\": 3,\n"
    "              \"depth\": 2,\n"
    "              \"name\": \"Unaccounted\",\n"
    "              \"time_us\": 554.5,\n"
    "              \"percent_of_parent\": 92.41666666666667,\n"
    "              \"percent_of_total\": 55.45,\n"
    "              \"count\": null,\n"
    "              \"children\": []\n"
    "            }\n"
    "          ]\n"
    "        },\n"
    "        {\n"
    "          \"id\": 4,\n"
    "          \"depth\": 1,\n"
    "          \"name\": \"backward\",\n"
    "          \"time_us\": 300.0,\n"
    "          \"percent_of_parent\": 30.0,\n"
    "          \"percent_of_total\": 30.0,\n"
    "          \"count\": 1,\n"
    "          \"children\": []\n"
    "        },\n"
    "        {\n"
    "          \"id\": 5,\n"
    "          \"depth\": 1,\n"
    "          \"name\": \"Unaccounted\",\n"
    "          \"time_us\": 100.0,\n"
    "          \"percent_of_parent\": 10.0,\n"
    "          \"percent_of_total\": 10.0,\n"
    "          \"count\": null,\n"
    "          \"children\": []\n"
    "        }\n"
    "      ]\n"
    "    }\n"
    "  ]\n"
    "}\n";

static const char odd_compact[] =
    "{\"o\":[{\"id\":10,\"depth\":0,\"name\":\"say \\\"hi\\\", ok\",\"time_us\":2.0,\"per"
    "cent_of_parent\":null,\"percent_of_total\":null,\"count\":null,\"children\":[{\"id\""
    ":11,\"depth\":1,\"name\":\"line1\\nline2\\r\",\"time_us\":null,\"percent_of_parent\""
    ":null,\"percent_of_total\":null,\"count\":3,\"children\":[{\"id\":12,\"depth\":2,\"n"
    "ame\":\"\xc2\xb5s na\xc3\xafve \xe2\x9c\x93\",\"time_us\":0.5,\"percent_of_parent\":"
    "25.0,\"percent_of_total\":25.0,\"count\":null,\"children\":[]}]},{\"id\":13,\"depth\""
    ":1,\"name\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\",\"time_us\":1.5,\"percent_of_parent\":75.0,\"percen"
    "t_of_total\":75.0,\"count\":1,\"children\":[]},{\"id\":14,\"depth\":1,\"name\":null,"
    "\"time_us\":null,\"percent_of_parent\":null,\"percent_of_total\":null,\"count\":null"
    ",\"children\":[]},{\"id\":15,\"depth\":1,\"name\":\"bad\xef\xbf\xbd\",\"time_us\":0."
    "0,\"percent_of_parent\":0.0,\"percent_of_total\":0.0,\"count\":0,\"children\":[]}]}]"
    "}\n";

static const char empty_and_flat_compact[] =
    "{\"e\":[],\"f\":[{\"device\":0,\"stream\":7,\"span_us\":1000.0,\"active_us\":250.5,\""
    "idle_us\":749.5,\"active_percent\":25.05},{\"device\":9007199254740993,\"stream\":-1"
    ",\"span_us\":0.30000000000000004,\"active_us\":1e-07,\"idle_us\":null,\"active_perce"
    "nt\":33.333333333333336}]}\n";

static const char forest_compact[] =
    "{\"forest\":[{\"id\":1,\"depth\":0,\"name\":\"stream 7\",\"time_us\":30.0,\"percent_"
    "of_parent\":100.0,\"percent_of_total\":30.0,\"count\":null,\"children\":[{\"id\":2,\""
    "depth\":1,\"name\":\"gemm\",\"time_us\":20.0,\"percent_of_parent\":66.66666666666667"
    ",\"percent_of_total\":20.0,\"count\":2,\"children\":[]}]},{\"id\":3,\"depth\":0,\"na"
    "me\":\"all streams\",\"time_us\":100.0,\"percent_of_parent\":100.0,\"percent_of_tota"
    "l\":100.0,\"count\":null,\"children\":[]}]}\n";

START_TEST(test_flat_table)
{
    wu_run("  - {analysis: fixture_results, id: f, shape: flat}\n"
           "  - {writer: json, path: '${out}/f.json'}\n");
    wu_expect_file("f.json", flat_indent2);
    ck_assert_int_eq(wu_dir_entries(), 1);
}
END_TEST

START_TEST(test_tree_nested)
{
    wu_run("  - {analysis: fixture_results, id: t, shape: tree}\n"
           "  - {writer: json, path: '${out}/t.json', indent: 2}\n");
    wu_expect_file("t.json", tree_indent2);
}
END_TEST

START_TEST(test_odd_names_compact)
{
    /* quotes and CR/LF escaped, UTF-8 kept, the invalid byte 0xff -> U+FFFD */
    wu_run("  - {analysis: fixture_results, id: o, shape: odd}\n"
           "  - {writer: json, path: '${out}/o.json', indent: 0}\n");
    wu_expect_file("o.json", odd_compact);
}
END_TEST

START_TEST(test_forest)
{
    wu_run("  - {analysis: fixture_results, id: forest, shape: forest}\n"
           "  - {writer: json, path: '${out}/forest.json', indent: 0}\n");
    wu_expect_file("forest.json", forest_compact);
}
END_TEST

START_TEST(test_several_results_one_object)
{
    wu_run("  - {analysis: fixture_results, id: e, shape: empty}\n"
           "  - {analysis: fixture_results, id: f, shape: flat}\n"
           "  - {writer: json, input: [e, f], path: '${out}/all.json', indent: 0}\n");
    wu_expect_file("all.json", empty_and_flat_compact);
}
END_TEST

START_TEST(test_stdout)
{
    char *out = wu_run_stdout("  - {analysis: fixture_results, id: e, shape: empty}\n"
                              "  - {writer: json, indent: 4}\n");
    ck_assert_str_eq(out, "{\n    \"e\": []\n}\n");
    free(out);
}
END_TEST

START_TEST(test_indent_out_of_range)
{
    char msg[512] = "";
    int rc = tp_test_run_yaml_fails(wu_yaml("  - {analysis: fixture_results, shape: empty}\n"
                                            "  - {writer: json, indent: 9}\n"),
                                    msg, sizeof msg);
    ck_assert_int_eq(rc, TP_EXIT_USAGE);
    ck_assert_msg(strstr(msg, "indent") != NULL, "message: %s", msg);
}
END_TEST

START_TEST(test_tree_not_in_preorder_leaves_no_file)
{
    const char *msg = wu_run_fails("  - {analysis: fixture_results, id: bad, shape: badtree}\n"
                                   "  - {writer: json, path: '${out}/b.json'}\n");
    ck_assert_msg(strstr(msg, "result 'bad' row 0: parent_id 2") != NULL, "message: %s", msg);
    ck_assert_msg(strstr(msg, "pre-order") != NULL, "message: %s", msg);
    ck_assert_int_eq(wu_dir_entries(), 0); /* the temporary file is gone too */
}
END_TEST

START_TEST(test_missing_directory)
{
    /* missing folders are created */
    wu_run("  - {analysis: fixture_results, shape: flat}\n"
           "  - {writer: json, path: '${out}/nodir/f.json'}\n");
    ck_assert_int_eq(wu_dir_entries(), 1);
    char path[512];
    snprintf(path, sizeof path, "%s/nodir/f.json", wu_dir);
    ck_assert_int_eq(access(path, R_OK), 0);
}
END_TEST

static Suite *json_suite(void)
{
    Suite *s = suite_create("json");
    TCase *tc = tcase_create("write");

    tcase_add_checked_fixture(tc, wu_setup, wu_teardown);
    tcase_add_test(tc, test_flat_table);
    tcase_add_test(tc, test_tree_nested);
    tcase_add_test(tc, test_odd_names_compact);
    tcase_add_test(tc, test_forest);
    tcase_add_test(tc, test_several_results_one_object);
    tcase_add_test(tc, test_stdout);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_checked_fixture(tc, wu_setup, wu_teardown);
    tcase_add_test(tc, test_indent_out_of_range);
    tcase_add_test(tc, test_tree_not_in_preorder_leaves_no_file);
    tcase_add_test(tc, test_missing_directory);
    suite_add_tcase(s, tc);
    return s;
}

TP_TEST_SUITE(json_suite)
