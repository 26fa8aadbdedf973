/* The SDK's view of the hierarchy analysis' attachments (tp_sdk_hier.h) on a
 * hand-made Kineto trace run through the real pipeline (reader kineto,
 * analysis hierarchy): row links, depths, launchers, the launching op of
 * each GPU activity, and the refusal when hierarchy has not run.  Rows are
 * trace rows in file order; values by hand from the trace below (ts, dur in
 * us). */
#include "tp_test.h"

#include "sdk_kineto.h"

/* tp_sdk_hier.h is header-only plugin code calling the host by the friendly
 * names, which the core's headers (TP_CORE_BUILD) leave undefined: here they
 * reach the core's table through tp_host, as in a plugin. */
#define tp_trace_attached(t, name, type, n) tp_host->trace_attached(t, name, type, n)
#define tp_trace_cols(t) tp_host->trace_cols(t)
#define tp_fail(...) (tp_host->fail)(__VA_ARGS__) /* not Check's fail() macro */
#include <tracepipe/tp_sdk_hier.h>

/* thread 1:
 *  0 ProfilerStep#1 [0, 1000)
 *  1   aten::linear [10, 210)
 *  2     aten::mm [20, 120)
 *  3       cudaLaunchKernel [30, 40)     corr 7
 *  4     inner_range [130, 180)          a user annotation, not a cpu_op
 *  5       cudaLaunchKernel [140, 145)   corr 8
 *  6   cudaMemsetAsync [300, 305)        corr 9, no op above it
 * GPU, stream 7:
 *  7 mm_kernel (corr 7)  8 relu_kernel (corr 8)  9 Memset (corr 9)
 * 10 orphan_kernel (corr 99: nothing launched it) */
static const char *const trace_json =
    "{\"traceEvents\": [\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#1\",\"pid\":1,"
    "\"tid\":1,\"ts\":0,\"dur\":1000},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":1,"
    "\"ts\":10,\"dur\":200},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,"
    "\"ts\":20,\"dur\":100},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
    "\"tid\":1,\"ts\":30,\"dur\":10,\"args\":{\"correlation\":7}},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"inner_range\",\"pid\":1,"
    "\"tid\":1,\"ts\":130,\"dur\":50},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":1,"
    "\"tid\":1,\"ts\":140,\"dur\":5,\"args\":{\"correlation\":8}},\n"
    "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaMemsetAsync\",\"pid\":1,"
    "\"tid\":1,\"ts\":300,\"dur\":5,\"args\":{\"correlation\":9}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"mm_kernel\",\"pid\":0,\"tid\":7,"
    "\"ts\":50,\"dur\":20,\"args\":{\"device\":0,\"stream\":7,\"correlation\":7}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"relu_kernel\",\"pid\":0,\"tid\":7,"
    "\"ts\":150,\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":8}},\n"
    "{\"ph\":\"X\",\"cat\":\"gpu_memset\",\"name\":\"Memset\",\"pid\":0,\"tid\":7,"
    "\"ts\":310,\"dur\":2,\"args\":{\"device\":0,\"stream\":7,\"correlation\":9}},\n"
    "{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"orphan_kernel\",\"pid\":0,\"tid\":7,"
    "\"ts\":400,\"dur\":5,\"args\":{\"device\":0,\"stream\":7,\"correlation\":99}}\n"
    "]}\n";

enum { NROWS = 11 };

typedef kineto_run fixture;

/* The trace read, then `stages` (YAML lines, may be ""). */
static void open_fixture(fixture *f, const char *stages)
{
    kineto_run_open(f, trace_json, "", stages);
    ck_assert_uint_eq(f->c->n, NROWS);
}

static const char *row_name(fixture *f, size_t row)
{
    return tp_host->str(&f->st, f->c->name[row]);
}

START_TEST(view_links_depths_and_launchers)
{
    fixture f;
    open_fixture(&f, "  - analysis: hierarchy\n");
    /* the rows are the file's events in order */
    ck_assert_str_eq(row_name(&f, 0), "ProfilerStep#1");
    ck_assert_str_eq(row_name(&f, 2), "aten::mm");
    ck_assert_str_eq(row_name(&f, 4), "inner_range");
    ck_assert_str_eq(row_name(&f, 10), "orphan_kernel");

    tp_hier_view v;
    ck_assert_int_eq(tp_hier_view_load(f.st.trace, NROWS, &v), TP_OK);
    static const int32_t parent[NROWS] = {-1, 0, 1, 2, 1, 4, 0, -1, -1, -1, -1};
    static const int32_t first_child[NROWS] = {1, 2, 3, -1, 5, -1, -1, -1, -1, -1, -1};
    static const int32_t next_sibling[NROWS] = {-1, 6, 4, -1, -1, -1, -1, -1, -1, -1, -1};
    static const int32_t depth[NROWS] = {0, 1, 2, 3, 2, 3, 1, -1, -1, -1, -1};
    static const int32_t launcher[NROWS] = {-1, -1, -1, -1, -1, -1, -1, 3, 5, 6, -1};
    for (size_t i = 0; i < NROWS; i++) {
        ck_assert_int_eq(v.parent[i], parent[i]);
        ck_assert_int_eq(v.first_child[i], first_child[i]);
        ck_assert_int_eq(v.next_sibling[i], next_sibling[i]);
        ck_assert_int_eq(v.depth[i], depth[i]);
        ck_assert_int_eq(v.launcher[i], launcher[i]);
    }
    ck_assert_uint_eq(v.nroots, 1);
    ck_assert_int_eq(v.roots[0], 0);

    /* require: the same arrays, nothing recorded */
    tp_hier_view w;
    ck_assert_int_eq(tp_hier_view_require(&f.st, f.st.trace, &w), TP_OK);
    ck_assert_ptr_eq(w.parent, v.parent);
    ck_assert_ptr_eq(w.launcher, v.launcher);
    ck_assert_int_eq(f.st.error_code, 0);

    /* a row count other than the trace's: the sizes do not match */
    ck_assert_int_eq(tp_hier_view_load(f.st.trace, NROWS - 1, &w), TP_ENOTFOUND);
    ck_assert_ptr_null(w.parent);
    kineto_run_close(&f);
}
END_TEST

START_TEST(launching_op_is_the_innermost_cpu_op)
{
    fixture f;
    open_fixture(&f, "  - analysis: hierarchy\n");
    tp_hier_view v;
    ck_assert_int_eq(tp_hier_view_load(f.st.trace, NROWS, &v), TP_OK);
    static const struct {
        size_t row;
        int32_t op;
    } want[] = {
        {7, 2},   /* mm_kernel: launch 3 in aten::mm in aten::linear -> aten::mm */
        {8, 1},   /* relu_kernel: launch 5 in inner_range (an annotation) in
                   * aten::linear -> aten::linear */
        {9, -1},  /* Memset: its launch sits right under ProfilerStep#1 */
        {10, -1}, /* orphan_kernel: no launch link */
        {2, -1},  /* a host row has no launcher */
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_msg(tp_hier_launching_op(f.c, &v, want[i].row) == want[i].op,
                      "row %zu: launching op %d, want %d", want[i].row,
                      (int)tp_hier_launching_op(f.c, &v, want[i].row), (int)want[i].op);
    ck_assert_str_eq(row_name(&f, 2), "aten::mm");
    ck_assert_str_eq(row_name(&f, 1), "aten::linear");
    kineto_run_close(&f);
}
END_TEST

START_TEST(view_before_hierarchy_ran_is_refused)
{
    fixture f;
    open_fixture(&f, "");
    tp_hier_view v;
    ck_assert_int_eq(tp_hier_view_load(f.st.trace, NROWS, &v), TP_ENOTFOUND);
    ck_assert_ptr_null(v.parent);
    ck_assert_ptr_null(v.roots);
    ck_assert_str_eq(f.st.error, ""); /* load records nothing */
    ck_assert_int_eq(tp_hier_view_require(&f.st, f.st.trace, &v), TP_ENOTFOUND);
    ck_assert_int_eq(f.st.error_code, TP_ENOTFOUND);
    ck_assert_str_eq(f.st.error, "hierarchy attachments missing (run hierarchy first)");
    kineto_run_close(&f);
}
END_TEST

static Suite *sdk_hier_suite(void)
{
    Suite *s = suite_create("sdk_hier");
    TCase *tc = tcase_create("view");
    tcase_add_test(tc, view_links_depths_and_launchers);
    tcase_add_test(tc, launching_op_is_the_innermost_cpu_op);
    tcase_add_test(tc, view_before_hierarchy_ran_is_refused);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_hier_suite)
