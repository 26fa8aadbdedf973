/* YAML loading: locations, refused aliases, duplicate keys, ${var} substitution. */
#include "tp_internal.h"
#include "tp_test.h"

#include <string.h>

static tp_ynode *parse(const char *text, tp_diags *d)
{
    return tp_yaml_parse(text, strlen(text), "p.yaml", d);
}

START_TEST(locations_are_one_based)
{
    tp_diags d = {0};
    tp_ynode *root = parse("name: x\nstages:\n  - reader: kineto\n    path: a.json\n", &d);
    ck_assert_ptr_nonnull(root);
    const tp_ynode *stages = tp_ymap_get(root, "stages");
    ck_assert_int_eq(stages->type, TP_YNODE_SEQ);
    const tp_ynode *path = tp_ymap_get(stages->items[0], "path");
    ck_assert_str_eq(path->text, "a.json");
    ck_assert_int_eq(path->line, 4);
    ck_assert_int_eq(path->col, 11);
    ck_assert_int_eq(stages->items[0]->line, 3);
    ck_assert_int_eq(stages->items[0]->col, 5);
    tp_ynode_free(root);
    tp_diags_free(&d);
}
END_TEST

START_TEST(syntax_error_has_line_and_col)
{
    tp_diags d = {0};
    ck_assert_ptr_null(parse("stages:\n  - reader: kineto\n   path: [unclosed\n", &d));
    ck_assert_uint_eq(d.n, 1);
    ck_assert_msg(strncmp(d.lines[0], "p.yaml:3:", 9) == 0, "got %s", d.lines[0]);
    ck_assert(strstr(d.lines[0], "YAML syntax") != NULL);
    tp_diags_free(&d);
}
END_TEST

START_TEST(duplicate_keys_reported)
{
    tp_diags d = {0};
    ck_assert_ptr_null(parse("a: 1\nb: 2\na: 3\n", &d));
    ck_assert_uint_eq(d.n, 1);
    ck_assert_str_eq(d.lines[0], "p.yaml:3:1: error: duplicate key 'a' (first at line 1)");
    tp_diags_free(&d);
}
END_TEST

START_TEST(alias_bomb_refused)
{
    const char *bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n"
                       "b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                       "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n"
                       "d: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n";
    tp_diags d = {0};
    ck_assert_ptr_null(parse(bomb, &d));
    ck_assert_uint_ge(d.n, 1);
    ck_assert_msg(strncmp(d.lines[0], "p.yaml:1:4: error: YAML anchors (&a)", 36) == 0, "got %s",
                  d.lines[0]);
    tp_diags_free(&d);
}
END_TEST

START_TEST(empty_and_multi_document)
{
    tp_diags d = {0};
    ck_assert_ptr_null(parse("", &d));
    ck_assert_str_eq(d.lines[0], "p.yaml:1:1: error: the pipeline file is empty");
    tp_diags_free(&d);
    ck_assert_ptr_null(parse("a: 1\n---\nb: 2\n", &d));
    ck_assert_str_eq(d.lines[0], "p.yaml:2:1: error: a pipeline file holds one YAML document");
    tp_diags_free(&d);
}
END_TEST

START_TEST(substitution)
{
    tp_diags d = {0};
    tp_ynode *root = parse("path: ${dir}/x-${n}.json\nkeep: '$notavar'\nbad: ${nope}\n", &d);
    tp_var vars[] = {{"dir", "/tmp"}, {"n", "1"}, {"n", "2"}};
    ck_assert(!tp_yaml_substitute(root, vars, 3, "p.yaml", &d));
    ck_assert_str_eq(tp_ymap_get(root, "path")->text, "/tmp/x-2.json"); /* later wins */
    ck_assert_str_eq(tp_ymap_get(root, "keep")->text, "$notavar");
    ck_assert_uint_eq(d.n, 1);
    ck_assert_msg(strncmp(d.lines[0], "p.yaml:3:6: error: unknown variable 'nope'", 42) == 0,
                  "got %s", d.lines[0]);
    tp_ynode_free(root);
    tp_diags_free(&d);
}
END_TEST

static Suite *yaml_suite(void)
{
    Suite *s = suite_create("yaml");
    TCase *tc = tcase_create("parse");
    tcase_add_test(tc, locations_are_one_based);
    tcase_add_test(tc, syntax_error_has_line_and_col);
    tcase_add_test(tc, duplicate_keys_reported);
    tcase_add_test(tc, alias_bomb_refused);
    tcase_add_test(tc, empty_and_multi_document);
    tcase_add_test(tc, substitution);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(yaml_suite)
