/* The SDK's tree results (tp_sdk_tree.h): levels, parent rows and roots of a
 * pre-order tree built with the core's result API, and the refusals — a
 * flat table (TP_ENOTFOUND, nothing recorded), a row without an id, a
 * parent after its child, a parent id that does not exist or whose subtree
 * is closed, a self-parent and a cycle (TP_EINVAL with the result and row),
 * out of memory.  Values by hand. */
#include "tp_internal.h"
#include "tp_test.h"

#include <string.h>

#include <tracepipe/tp_sdk_tree.h>

#define NIL INT64_MIN /* a null cell */

/* A result "tree" with columns name, parent_id, id (id last, so the column
 * indexes are not the obvious ones) and rows given as {id, parent}. */
static tp_result *tree_result(const int64_t (*rows)[2], size_t n)
{
    tp_result *r = tp_result_create("tree");
    tp_result_col_add(r, "name", TP_COL_STR);
    int parent = tp_result_col_add(r, "parent_id", TP_COL_I64);
    int id = tp_result_col_add(r, "id", TP_COL_I64);
    for (size_t i = 0; i < n; i++) {
        size_t row;
        ck_assert_int_eq(tp_result_row_add(r, &row), TP_OK);
        tp_result_put_str(r, row, 0, "x");
        if (rows[i][0] != NIL)
            tp_result_put_i64(r, row, id, rows[i][0]);
        if (rows[i][1] != NIL)
            tp_result_put_i64(r, row, parent, rows[i][1]);
    }
    return r;
}

static void stage_init(tp_stage *st)
{
    memset(st, 0, sizeof *st);
    tp_host = tp_core_host_api();
}

START_TEST(levels_parent_rows_and_roots)
{
    /* row id
     *  0   5 ─┬─ 3 ── 9 ── 1      levels 0 1 2 3 1 2 | 0 1 2 1 | 0
     *  4      └─ 7 ── 2           (row 4 climbs back three levels)
     *  6   8 ─┬─ 4 ── 6
     *  9      └─ 10
     * 10  11 */
    static const int64_t rows[][2] = {{5, NIL}, {3, 5}, {9, 3},   {1, 9},  {7, 5},   {2, 7},
                                      {8, NIL}, {4, 8}, {6, 4},   {10, 8}, {11, NIL}};
    static const uint32_t level[] = {0, 1, 2, 3, 1, 2, 0, 1, 2, 1, 0};
    static const int64_t parent_row[] = {-1, 0, 1, 2, 0, 4, -1, 6, 7, 6, -1};
    tp_stage st;
    stage_init(&st);
    tp_result *r = tree_result(rows, 11);
    ck_assert(tp_result_is_tree(r));
    tp_result_tree t;
    ck_assert_int_eq(tp_result_tree_load(&st, r, &t), TP_OK);
    ck_assert_int_eq(t.id_col, 2);
    ck_assert_int_eq(t.parent_col, 1);
    ck_assert_uint_eq(t.nrows, 11);
    ck_assert_uint_eq(t.nroots, 3);
    for (size_t i = 0; i < 11; i++) {
        ck_assert_uint_eq(t.level[i], level[i]);
        ck_assert_int_eq(t.parent_row[i], parent_row[i]);
    }
    ck_assert_int_eq(st.error_code, 0);
    tp_result_tree_free(&t);
    ck_assert_ptr_null(t.level);
    ck_assert_ptr_null(t.parent_row);
    tp_result_tree_free(&t); /* twice is harmless */
    tp_result_destroy(r);
}
END_TEST

START_TEST(empty_tree)
{
    tp_stage st;
    stage_init(&st);
    tp_result *r = tree_result(NULL, 0);
    tp_result_tree t;
    ck_assert_int_eq(tp_result_tree_load(&st, r, &t), TP_OK);
    ck_assert_uint_eq(t.nrows, 0);
    ck_assert_uint_eq(t.nroots, 0);
    tp_result_tree_free(&t);
    tp_result_destroy(r);
}
END_TEST

/* A table with the given I64 columns (and a text column "id" when
 * id_is_text): not a tree. */
static void assert_flat(const char *col_a, const char *col_b, int id_is_text)
{
    tp_stage st;
    stage_init(&st);
    tp_result *r = tp_result_create("flat");
    tp_result_col_add(r, col_a, TP_COL_I64);
    if (col_b != NULL)
        tp_result_col_add(r, col_b, TP_COL_I64);
    if (id_is_text)
        tp_result_col_add(r, "id", TP_COL_STR);
    size_t row;
    tp_result_row_add(r, &row);
    tp_result_put_i64(r, row, 0, 1);
    ck_assert(!tp_result_is_tree(r));
    tp_result_tree t;
    ck_assert_int_eq(tp_result_tree_load(&st, r, &t), TP_ENOTFOUND);
    ck_assert_ptr_null(t.level);
    ck_assert_ptr_null(t.parent_row);
    ck_assert_str_eq(st.error, ""); /* nothing recorded */
    ck_assert_int_eq(st.error_code, 0);
    tp_result_destroy(r);
}

START_TEST(flat_tables_are_not_trees)
{
    assert_flat("parent_id", NULL, 0);   /* no id */
    assert_flat("id", NULL, 0);          /* no parent_id */
    assert_flat("parent_id", "rank", 1); /* id, but text */
}
END_TEST

/* Loads rows and expects TP_EINVAL with message msg recorded on the stage
 * and nothing left to free. */
static void assert_refused(const int64_t (*rows)[2], size_t n, const char *msg)
{
    tp_stage st;
    stage_init(&st);
    tp_result *r = tree_result(rows, n);
    tp_result_tree t;
    ck_assert_int_eq(tp_result_tree_load(&st, r, &t), TP_EINVAL);
    ck_assert_int_eq(st.error_code, TP_EINVAL);
    ck_assert_str_eq(st.error, msg);
    ck_assert_ptr_null(t.level);
    ck_assert_ptr_null(t.parent_row);
    tp_result_destroy(r);
}

#define NOT_ANCESTOR(row, parent)                                                               \
    "result 'tree' row " #row ": parent_id " #parent                                            \
    " is not an earlier ancestor (tree rows must be in pre-order)"

START_TEST(malformed_trees_are_refused_with_the_row)
{
    static const int64_t child_first[][2] = {{2, 1}, {1, NIL}};
    assert_refused(child_first, 2, NOT_ANCESTOR(0, 1));

    static const int64_t unknown[][2] = {{1, NIL}, {2, 1}, {3, 42}};
    assert_refused(unknown, 3, NOT_ANCESTOR(2, 42));

    /* 13's parent 11 exists, but its subtree closed when 12 (a child of
     * 10) came */
    static const int64_t closed[][2] = {{10, NIL}, {11, 10}, {12, 10}, {13, 11}};
    assert_refused(closed, 4, NOT_ANCESTOR(3, 11));

    /* a parent in the previous tree: a root closes everything before it */
    static const int64_t other_tree[][2] = {{1, NIL}, {2, 1}, {3, NIL}, {4, 2}};
    assert_refused(other_tree, 4, NOT_ANCESTOR(3, 2));

    static const int64_t self[][2] = {{1, NIL}, {4, 4}};
    assert_refused(self, 2, NOT_ANCESTOR(1, 4));

    /* a cycle has no root: its first row names a parent not seen yet */
    static const int64_t cycle[][2] = {{1, 3}, {2, 1}, {3, 2}};
    assert_refused(cycle, 3, NOT_ANCESTOR(0, 3));

    static const int64_t no_id[][2] = {{1, NIL}, {2, 1}, {NIL, 1}};
    assert_refused(no_id, 3, "result 'tree' row 2: tree row without an id");
}
END_TEST

/* The SDK allocates through tp_host: a copy of the core's table whose
 * malloc always fails. */
static void *no_malloc(size_t n)
{
    (void)n;
    return NULL;
}

START_TEST(out_of_memory_is_reported)
{
    static const int64_t rows[][2] = {{1, NIL}, {2, 1}};
    tp_stage st;
    stage_init(&st);
    tp_result *r = tree_result(rows, 2);
    tp_host_api broke = *tp_core_host_api();
    broke.malloc = no_malloc;
    tp_host = &broke;
    tp_result_tree t;
    int rc = tp_result_tree_load(&st, r, &t);
    tp_host = tp_core_host_api();
    ck_assert_int_eq(rc, TP_ENOMEM);
    ck_assert_str_eq(st.error, "out of memory");
    ck_assert_ptr_null(t.level);
    tp_result_destroy(r);
}
END_TEST

static Suite *sdk_tree_suite(void)
{
    Suite *s = suite_create("sdk_tree");
    TCase *tc = tcase_create("tree");
    tcase_add_test(tc, levels_parent_rows_and_roots);
    tcase_add_test(tc, empty_tree);
    tcase_add_test(tc, flat_tables_are_not_trees);
    tcase_add_test(tc, malformed_trees_are_refused_with_the_row);
    tcase_add_test(tc, out_of_memory_is_reported);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_tree_suite)
