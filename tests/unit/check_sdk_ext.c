/* Extension columns read as arrays by the SDK (tp_sdk_ext.h) and the parts
 * built on it: a column the trace does not have reads NULL (TP_OK), one it
 * has but the core could not make an array (tp_trace_ext_data's NULL: out
 * of memory) is TP_ENOMEM, reported, never read as absent: memory kinds,
 * launches, graph capture columns, tp_graphs_find.  And launches compared
 * as structs (tp_kernel_launch_cmp) agree with their texts.  Values by
 * hand. */
#include <string.h>

#include "tp_internal.h"
#include "tp_test.h"

#include <tracepipe/tp_sdk_ext.h>
#include <tracepipe/tp_sdk_graphs.h>
#include <tracepipe/tp_sdk_launch.h>
#include <tracepipe/tp_sdk_memkind.h>

typedef struct fixture {
    tp_run run;
    tp_stage st;
    tp_trace *t;
} fixture;

/* A trace of three memcpy rows, no extension column yet. */
static void setup(fixture *f)
{
    memset(f, 0, sizeof *f);
    f->run.pool = tp_strpool_new();
    ck_assert_ptr_nonnull(f->run.pool);
    f->st.run = &f->run;
    tp_host = tp_core_host_api();
    f->t = tp_trace_new(f->run.pool);
    tp_str name = tp_strpool_intern(f->run.pool, "Memcpy HtoD (Pinned -> Device)", 30);
    for (int i = 0; i < 3; i++) {
        tp_event ev = {.ts = 1000 * i, .dur = 10, .name = name, .pid = 1, .tid = 7,
                       .kind = TP_KIND_MEMCPY, .phase = 'X', .ext_id = -1, .corr = -1,
                       .flow_id = -1, .device = 0, .stream = 7};
        ck_assert_int_eq(tp_trace_push(f->t, &ev), TP_OK);
    }
    f->st.trace = f->t;
}

static void teardown(fixture *f)
{
    tp_host = tp_core_host_api();
    tp_trace_free(f->t);
    tp_strpool_free(f->run.pool);
}

/* Column name of type with cell v at row 1 (others null). */
static int add_i64(fixture *f, const char *name, int64_t v)
{
    tp_extcols **x = tp_trace_ext_slot(f->t);
    int col = tp_ext_add(x, name, TP_COL_I64, tp_trace_capacity(f->t));
    ck_assert_int_ge(col, 0);
    ck_assert_int_eq(tp_ext_set(*x, col, 1, 3, TP_COL_I64, &v), TP_OK);
    return col;
}

/* The core's host table but for tp_trace_ext_data, which fails as when
 * making a compact column an array runs out of memory. */
static tp_host_api no_arrays;
static const void *no_data(const tp_trace *t, int col)
{
    (void)t, (void)col;
    return NULL;
}
static void break_arrays(void)
{
    no_arrays = *tp_core_host_api();
    no_arrays.trace_ext_data = no_data;
    tp_host = &no_arrays;
}

START_TEST(absent_present_and_unreadable_columns)
{
    fixture f;
    setup(&f);
    static const int64_t junk = 1;
    const void *cells = &junk; /* overwritten: NULL */
    ck_assert_int_eq(tp_ext_column_cells(f.t, "memcpy.src_kind", TP_COL_I64, &cells), TP_OK);
    ck_assert_ptr_null(cells); /* absent */
    ck_assert_int_eq(tp_ext_column_at(f.t, -1, &cells), TP_OK);
    ck_assert_ptr_null(cells);
    add_i64(&f, "memcpy.src_kind", TP_MEMKIND_PAGEABLE);
    ck_assert_int_eq(tp_ext_column_cells(f.t, "memcpy.src_kind", TP_COL_I64, &cells), TP_OK);
    ck_assert_ptr_nonnull(cells);
    ck_assert_int_eq(((const int64_t *)cells)[1], TP_MEMKIND_PAGEABLE);
    ck_assert_int_eq(((const int64_t *)cells)[0], TP_EXT_NULL_I64);
    /* another type: not that column */
    ck_assert_int_eq(tp_ext_column_cells(f.t, "memcpy.src_kind", TP_COL_F64, &cells), TP_OK);
    ck_assert_ptr_null(cells);
    break_arrays();
    ck_assert_int_eq(tp_ext_column_cells(f.t, "memcpy.src_kind", TP_COL_I64, &cells), TP_ENOMEM);
    ck_assert_ptr_null(cells);
    ck_assert_int_eq(tp_ext_column_cells(f.t, "memcpy.dst_kind", TP_COL_I64, &cells), TP_OK);
    teardown(&f);
}
END_TEST

/* Row 1's source is pageable by the column; rows 0 and 2 have no cell, so
 * their name says (Pinned -> Device).  An unreadable column is an error,
 * not "no column" (which would have read the name on every row). */
START_TEST(memory_kinds_from_columns_read_once)
{
    fixture f;
    setup(&f);
    const char *name = "Memcpy HtoD (Pinned -> Device)";
    tp_memkind_cols m;
    tp_memkind src, dst;
    ck_assert_int_eq(tp_memkind_columns(f.t, &m), TP_OK); /* none yet: names */
    ck_assert_int_eq(tp_memcpy_kinds_at(&m, 1, name, &src, &dst), 1);
    ck_assert_int_eq(src, TP_MEMKIND_PINNED);
    add_i64(&f, TP_EXT_MEMCPY_SRC_KIND, TP_MEMKIND_PAGEABLE);
    ck_assert_int_eq(tp_memkind_columns(f.t, &m), TP_OK);
    ck_assert_int_eq(tp_memcpy_kinds_at(&m, 1, name, &src, &dst), 1);
    ck_assert_int_eq(src, TP_MEMKIND_PAGEABLE);
    ck_assert_int_eq(dst, TP_MEMKIND_UNKNOWN); /* the column knows one side */
    ck_assert_int_eq(tp_memcpy_kinds_at(&m, 0, name, &src, &dst), 1);
    ck_assert_int_eq(src, TP_MEMKIND_PINNED);
    ck_assert_int_eq(dst, TP_MEMKIND_DEVICE);
    ck_assert_int_eq(tp_memcpy_kinds_at(&m, 3, "Memcpy DtoD", &src, &dst), 0); /* past the rows */
    break_arrays();
    ck_assert_int_eq(tp_memkind_columns(f.t, &m), TP_ENOMEM);
    teardown(&f);
}
END_TEST

/* nsys-style launch columns: row 1 grid 4x1x1 block 128x1x1; unreadable
 * columns are TP_ENOMEM and the source then reads no launch. */
START_TEST(launch_columns_read_once)
{
    fixture f;
    setup(&f);
    add_i64(&f, "kernel.grid_x", 4);
    add_i64(&f, "kernel.grid_y", 1);
    add_i64(&f, "kernel.grid_z", 1);
    add_i64(&f, "kernel.block_x", 128);
    add_i64(&f, "kernel.block_y", 1);
    add_i64(&f, "kernel.block_z", 1);
    tp_launch_source s;
    tp_kernel_launch k;
    ck_assert_int_eq(tp_kernel_launch_source(f.t, &s), TP_OK);
    ck_assert_int_eq(tp_kernel_launch_of(f.t, &s, 1, &k), 1);
    ck_assert_int_eq(k.grid[0], 4);
    ck_assert_int_eq(k.block[0], 128);
    ck_assert_int_eq(k.registers, -1);
    ck_assert_int_eq(k.shared_bytes, -1);
    ck_assert_int_eq(tp_kernel_launch_of(f.t, &s, 0, &k), 0); /* null cells: none */
    break_arrays();
    ck_assert_int_eq(tp_kernel_launch_source(f.t, &s), TP_ENOMEM);
    ck_assert_int_eq(s.ext[0], -1);
    teardown(&f);
}
END_TEST

/* The graph capture columns: graph_captured through its accessor, the
 * op columns through tp_graphs_find (the stage's message says why). */
START_TEST(graph_columns_unreadable_are_reported)
{
    fixture f;
    setup(&f);
    add_i64(&f, TP_GRAPH_CAPTURED_COLUMN, 1);
    const int64_t *captured = NULL;
    ck_assert_int_eq(tp_graph_captured_rows(f.t, &captured), TP_OK);
    ck_assert_int_eq(captured[1], 1);
    tp_vocab v;
    ck_assert_int_eq(tp_vocab_get(&f.st, &v), TP_OK);
    int32_t launcher[3] = {-1, -1, -1};
    tp_graphs g;
    ck_assert_int_eq(tp_graphs_find(&f.st, f.t, &v, launcher, &g), TP_OK);
    tp_graphs_free(&g);
    add_i64(&f, TP_GRAPH_OP_CALL_COLUMN, 2);
    ck_assert_int_eq(tp_graphs_find(&f.st, f.t, &v, launcher, &g), TP_OK);
    ck_assert_int_eq(g.op_call[1], 2);
    tp_graphs_free(&g);
    break_arrays();
    ck_assert_int_eq(tp_graph_captured_rows(f.t, &captured), TP_ENOMEM);
    ck_assert_int_eq(tp_graphs_find(&f.st, f.t, &v, launcher, &g), TP_ENOMEM);
    ck_assert_str_eq(f.st.error, "out of memory reading the graph capture columns");
    tp_host = tp_core_host_api();
    tp_vocab_free(&v);
    teardown(&f);
}
END_TEST

/* Launches compared as structs: equal exactly when their texts are. */
START_TEST(launches_compare_as_their_texts)
{
    tp_kernel_launch a = {{4, 2, 1}, {128, 1, 1}, 32, 0}, b = a;
    ck_assert_int_eq(tp_kernel_launch_cmp(&a, &b), 0);
    b.grid[1] = 3;
    ck_assert_int_lt(tp_kernel_launch_cmp(&a, &b), 0);
    ck_assert_int_gt(tp_kernel_launch_cmp(&b, &a), 0);
    b = a;
    b.block[2] = 2;
    ck_assert_int_lt(tp_kernel_launch_cmp(&a, &b), 0);
    b = a;
    b.registers = -1; /* not recorded: "regs" left out of the text */
    ck_assert_int_ne(tp_kernel_launch_cmp(&a, &b), 0);
    a.registers = -5;
    ck_assert_int_eq(tp_kernel_launch_cmp(&a, &b), 0);
    char ta[160], tb[160];
    tp_kernel_launch_text(&a, ta, sizeof ta);
    tp_kernel_launch_text(&b, tb, sizeof tb);
    ck_assert_str_eq(ta, tb);
    ck_assert_str_eq(ta, "grid 4x2x1 block 128x1x1 smem 0");
    b.shared_bytes = 16;
    ck_assert_int_lt(tp_kernel_launch_cmp(&a, &b), 0);
}
END_TEST

static Suite *sdk_ext_suite(void)
{
    Suite *s = suite_create("sdk_ext");
    TCase *tc = tcase_create("columns");
    tcase_add_test(tc, absent_present_and_unreadable_columns);
    tcase_add_test(tc, memory_kinds_from_columns_read_once);
    tcase_add_test(tc, launch_columns_read_once);
    tcase_add_test(tc, graph_columns_unreadable_are_reported);
    tcase_add_test(tc, launches_compare_as_their_texts);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_ext_suite)
