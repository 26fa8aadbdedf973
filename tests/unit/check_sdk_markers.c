/* SDK iteration markers (tp_sdk_markers.h) on hand-made tables: the
 * regex picks the marker names among host events (not a kernel named
 * alike), iterations from markers and from ranges, a bad pattern and a
 * regex PCRE2 gives up on reported against the option and the event. */
#include <string.h>

#include "tp_internal.h"
#include "tp_test.h"

#include <tracepipe/tp_sdk_markers.h>

#include "sdk_table.h"

typedef struct fixture {
    tp_run run;
    tp_stage st;
    tp_str step1, step2, step9, mm, other;
} fixture;

static void setup_names(fixture *f)
{
    memset(f, 0, sizeof *f);
    f->run.pool = tp_strpool_new();
    ck_assert_ptr_nonnull(f->run.pool);
    f->st.run = &f->run;
    tp_host = tp_core_host_api();
    f->step1 = tp_strpool_intern(f->run.pool, "ProfilerStep#1", 14);
    f->step2 = tp_strpool_intern(f->run.pool, "ProfilerStep#2", 14);
    f->step9 = tp_strpool_intern(f->run.pool, "ProfilerStep#9", 14);
    f->mm = tp_strpool_intern(f->run.pool, "aten::mm", 8);
    f->other = tp_strpool_intern(f->run.pool, "ProfilerStep#2 warmup", 21);
}

#define ROW(ph, kind, ts, dur, flow, name) {ph, kind, 1, 1, ts, dur, -1, flow, name, 0}

START_TEST(iterations_from_marker_events)
{
    fixture f;
    setup_names(&f);
    /* two steps on thread (1, 1), ops inside them, a kernel named like a
     * step (not a host event) and a name the \Z keeps out */
    const spec rows[] = {
        ROW('X', TP_KIND_ANNOTATION, 0, 1000, -1, f.step1),
        ROW('X', TP_KIND_CPU_OP, 100, 200, -1, f.mm),
        ROW('X', TP_KIND_KERNEL, 500, 100, -1, f.step9),
        ROW('X', TP_KIND_ANNOTATION, 1000, 1500, -1, f.step2),
        ROW('X', TP_KIND_CPU_OP, 1200, 100, -1, f.mm),
        ROW('X', TP_KIND_ANNOTATION, 3000, 10, -1, f.other),
    };
    table t;
    sdk_table_fill(&t, rows, 6);
    tp_markers m;
    ck_assert_int_eq(tp_markers_open(&f.st, &m, "marker", "ProfilerStep#\\d{,3}\\Z"), TP_OK);

    size_t nstr = tp_strpool_count(f.run.pool);
    uint8_t memo[16] = {0};
    ck_assert_uint_le(nstr, sizeof memo);
    ck_assert_int_eq(tp_markers_memo(&f.st, &m, 0, &t.c, memo, nstr), TP_OK);
    ck_assert_uint_eq(memo[f.step1], 1);
    ck_assert_uint_eq(memo[f.step2], 1);
    ck_assert_uint_eq(memo[f.mm], 2);
    ck_assert_uint_eq(memo[f.other], 2);
    ck_assert_uint_eq(memo[f.step9], 0); /* a kernel: no candidate */

    tp_iterations it;
    ck_assert_int_eq(tp_markers_iterations(&f.st, &m, 0, &t.c, &it), TP_OK);
    ck_assert_uint_eq(it.n, 2);
    ck_assert_int_eq(it.pid, 1);
    ck_assert_int_eq(it.tid, 1);
    ck_assert_uint_eq(it.threads, 1);
    ck_assert_int_eq(it.it[0].start, 0);
    ck_assert_int_eq(it.it[0].end, 1000);
    ck_assert_uint_eq(it.it[1].row, 3);
    ck_assert_int_eq(it.it[1].start, 1000);
    ck_assert_int_eq(it.it[1].end, 2500);
    int32_t index[6];
    tp_iterations_index(&t.c, &it, index);
    const int32_t want[] = {0, 0, 0, 1, 1, -1};
    for (size_t i = 0; i < 6; i++)
        ck_assert_int_eq(index[i], want[i]);
    tp_iterations_free(&it);
    tp_markers_close(&m);
    ck_assert_ptr_null(m.re);
    tp_strpool_free(f.run.pool);
}
END_TEST

START_TEST(iterations_from_ranges)
{
    fixture f;
    setup_names(&f);
    /* NVTX-style b/e pairs by flow id: steps 1 and 2 (ids 1, 2), an
     * unmarked range (id 3) inside step 2 */
    const spec rows[] = {
        ROW('b', TP_KIND_ANNOTATION, 0, -1, 1, f.step1),
        ROW('e', TP_KIND_ANNOTATION, 900, -1, 1, 0),
        ROW('b', TP_KIND_ANNOTATION, 1000, -1, 2, f.step2),
        ROW('b', TP_KIND_ANNOTATION, 1100, -1, 3, f.mm),
        ROW('e', TP_KIND_ANNOTATION, 1200, -1, 3, 0),
        ROW('e', TP_KIND_ANNOTATION, 1800, -1, 2, 0),
    };
    table t;
    sdk_table_fill(&t, rows, 6);
    tp_markers m;
    ck_assert_int_eq(tp_markers_open(&f.st, &m, "marker", "^ProfilerStep"), TP_OK);
    tp_iterations it;
    ck_assert_int_eq(tp_markers_iterations(&f.st, &m, 1, &t.c, &it), TP_OK);
    ck_assert_uint_eq(it.n, 2);
    ck_assert_int_eq(it.it[0].start, 0);
    ck_assert_int_eq(it.it[0].end, 900);
    ck_assert_int_eq(it.it[1].start, 1000);
    ck_assert_int_eq(it.it[1].end, 1800);
    tp_iterations_free(&it);
    tp_markers_close(&m);
    tp_strpool_free(f.run.pool);
}
END_TEST

START_TEST(errors_name_the_option_and_the_event)
{
    fixture f;
    setup_names(&f);
    tp_markers m;
    ck_assert_int_eq(tp_markers_open(&f.st, &m, "marker", "Step(#"), TP_EINVAL);
    ck_assert_str_eq(f.st.error,
                     "marker: bad regex 'Step(#': missing closing parenthesis at offset 6");
    tp_markers_close(&m);

    /* catastrophic backtracking under a small match limit */
    memset(f.st.error, 0, sizeof f.st.error);
    f.st.error_code = 0;
    tp_str slow = tp_strpool_intern(f.run.pool, "aaaaaaaaaaaaaaaaaaaaaaaac", 25);
    const spec rows[] = {ROW('X', TP_KIND_CPU_OP, 0, 10, -1, f.mm),
                         ROW('X', TP_KIND_CPU_OP, 20, 10, -1, slow)};
    table t;
    sdk_table_fill(&t, rows, 2);
    f.st.trace = tp_trace_new(f.run.pool); /* the error names the trace's source */
    ck_assert_ptr_nonnull(f.st.trace);
    ck_assert_int_eq(tp_markers_open(&f.st, &m, "marker", "(*LIMIT_MATCH=50)^(a+)+$"), TP_OK);
    tp_iterations it;
    ck_assert_int_eq(tp_markers_iterations(&f.st, &m, 0, &t.c, &it), TP_EINVAL);
    ck_assert_msg(strstr(f.st.error, "event 2: marker regex '(*LIMIT_MATCH=50)^(a+)+$' failed on "
                                     "the name 'aaaaaaaaaaaaaaaaaaaaaaaac': match limit "
                                     "exceeded") != NULL,
                  "%s", f.st.error);
    tp_markers_close(&m);
    tp_trace_free(f.st.trace);
    tp_strpool_free(f.run.pool);
}
END_TEST

static Suite *sdk_markers_suite(void)
{
    Suite *s = suite_create("sdk_markers");
    TCase *tc = tcase_create("markers");
    tcase_add_test(tc, iterations_from_marker_events);
    tcase_add_test(tc, iterations_from_ranges);
    tcase_add_test(tc, errors_name_the_option_and_the_event);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_markers_suite)
