/* The SDK's iteration view (tp_sdk_iter.h) on a hand-made trace read by the
 * kineto reader: the pipeline's `iterations:` setting, step numbers, skips,
 * publishing once per trace, stage overrides, GPU annotations and ranges.
 * Values by hand from the trace below (ts and dur in us). */
#include "tp_test.h"

#include <string.h>

#include <tracepipe/tp_sdk_iter.h>

#include "sdk_kineto.h"

/* steps 7, 8, 9 on thread 1 (a nested train_step_99 is no iteration), a
 * ProfilerStep#12 on thread 2, GPU annotations gstep on stream 7, async
 * ranges "range_a" (b/e). */
static const char *const trace_json =
    "{\"traceEvents\": [\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"train_step_7\",\"pid\":1,\"tid\":1,"
    "\"ts\":0,\"dur\":100},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"train_step_99\",\"pid\":1,\"tid\":1,"
    "\"ts\":10,\"dur\":5},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm\",\"pid\":1,\"tid\":1,\"ts\":20,"
    "\"dur\":10},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"train_step_8\",\"pid\":1,\"tid\":1,"
    "\"ts\":100,\"dur\":100},\n"
    "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::add\",\"pid\":1,\"tid\":1,\"ts\":150,"
    "\"dur\":10},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"train_step_9\",\"pid\":1,\"tid\":1,"
    "\"ts\":200,\"dur\":100},\n"
    "{\"ph\":\"X\",\"cat\":\"user_annotation\",\"name\":\"ProfilerStep#12\",\"pid\":1,"
    "\"tid\":2,\"ts\":0,\"dur\":300},\n"
    "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"gstep\",\"pid\":0,\"tid\":7,"
    "\"ts\":50,\"dur\":40,\"args\":{\"device\":0,\"stream\":7}},\n"
    "{\"ph\":\"X\",\"cat\":\"gpu_user_annotation\",\"name\":\"gstep\",\"pid\":0,\"tid\":7,"
    "\"ts\":150,\"dur\":40,\"args\":{\"device\":0,\"stream\":7}},\n"
    "{\"ph\":\"b\",\"cat\":\"nvtx\",\"name\":\"range_a\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":5},\n"
    "{\"ph\":\"e\",\"cat\":\"nvtx\",\"name\":\"range_a\",\"id\":1,\"pid\":1,\"tid\":1,\"ts\":95}\n"
    "]}\n";

typedef kineto_run fixture;

/* Reads the trace under a pipeline whose top holds `iterations` (YAML
 * lines, or "" for none), and a stage of that run to ask the view with. */
static void open_fixture(fixture *f, const char *iterations)
{
    kineto_run_open(f, trace_json, iterations, "");
}

static size_t row_named(fixture *f, const char *name)
{
    for (size_t i = 0; i < f->c->n; i++)
        if (strcmp(tp_host->str(&f->st, f->c->name[i]), name) == 0)
            return i;
    ck_abort_msg("no row %s", name);
    return 0;
}

START_TEST(pipeline_marker_capture_group_and_skips)
{
    fixture f;
    open_fixture(&f, "iterations:\n  marker: '^train_step_(\\d)$'\n  skip_first: 1\n");
    tp_iter_view v;
    ck_assert_int_eq(tp_iter_view_get(&f.st, NULL, NULL, &v), TP_OK);
    ck_assert_uint_eq(v.n, 3); /* train_step_99 does not match (one digit) */
    ck_assert_int_eq(v.step[0], 7);
    ck_assert_int_eq(v.step[2], 9); /* the capture group */
    ck_assert_int_eq(v.it[1].start, 100000);
    ck_assert_int_eq(v.it[1].end, 200000);
    ck_assert_uint_eq(v.first, 1);
    ck_assert_uint_eq(v.last, 3);
    ck_assert_ptr_null(v.row); /* rows only on demand */
    ck_assert_int_eq(tp_iter_view_rows(&f.st, NULL, &v), TP_OK);
    ck_assert_int_eq(v.row[row_named(&f, "aten::add")], 1);
    ck_assert_int_eq(v.row[row_named(&f, "aten::mm")], 0);
    ck_assert_int_eq(v.overridden, 0);
    /* published: a second stage reads the same row index */
    tp_iter_view w;
    ck_assert_int_eq(tp_iter_view_get(&f.st, NULL, NULL, &w), TP_OK);
    ck_assert_int_eq(tp_iter_view_rows(&f.st, NULL, &w), TP_OK);
    ck_assert_ptr_eq(w.row, v.row);
    ck_assert_uint_eq(w.n, 3);
    ck_assert_int_eq(w.step[1], 8);
    ck_assert(tp_iter_is_marker(&w, tp_host->trace_cols(f.st.trace)->name[row_named(&f, "train_step_8")]));
    tp_iter_view_release(&v);
    tp_iter_view_release(&w);
    kineto_run_close(&f);
}
END_TEST

START_TEST(nested_markers_and_ordinals)
{
    fixture f;
    open_fixture(&f, "iterations:\n  marker: '^train_step_'\n  skip_last: 5\n");
    tp_iter_view v;
    ck_assert_int_eq(tp_iter_view_get(&f.st, NULL, NULL, &v), TP_OK);
    ck_assert_uint_eq(v.n, 3);
    ck_assert_uint_eq(v.nested, 1); /* train_step_99 inside train_step_7 */
    ck_assert_int_eq(v.step[0], 0);  /* no group, no '#': the ordinal */
    ck_assert_int_eq(v.step[2], 2);
    ck_assert_uint_eq(v.first, 0); /* skip_last past the count: none left */
    ck_assert_uint_eq(v.last, 0);
    tp_iter_view_release(&v);
    kineto_run_close(&f);
}
END_TEST

START_TEST(default_marker_and_override)
{
    fixture f;
    open_fixture(&f, "");
    tp_iter_view v;
    ck_assert_int_eq(tp_iter_view_get(&f.st, NULL, NULL, &v), TP_OK);
    ck_assert_uint_eq(v.n, 1); /* ProfilerStep#12 on thread 2 */
    ck_assert_int_eq(v.step[0], 12); /* the digits after '#' */
    ck_assert_int_eq(v.tid, 2);
    ck_assert_int_eq(tp_iter_view_rows(&f.st, NULL, &v), TP_OK);
    /* a stage's prefix override: literal text, never published */
    tp_iter_override ov = {.prefix = "train_step_", .option = "step_prefix"};
    tp_iter_view o;
    ck_assert_int_eq(tp_iter_view_get(&f.st, NULL, &ov, &o), TP_OK);
    ck_assert_uint_eq(o.n, 3);
    ck_assert_int_eq(o.overridden, 1);
    ck_assert_int_eq(tp_iter_view_rows(&f.st, NULL, &o), TP_OK);
    ck_assert_ptr_ne(o.row, v.row); /* its own, never published */
    ck_assert_int_eq(o.row[row_named(&f, "aten::add")], 1);
    ck_assert_str_eq(o.marker, "^train_step_");
    tp_iter_view again;
    ck_assert_int_eq(tp_iter_view_get(&f.st, NULL, NULL, &again), TP_OK);
    ck_assert_uint_eq(again.n, 1); /* the pipeline's, as published */
    ck_assert_int_eq(tp_iter_view_rows(&f.st, NULL, &again), TP_OK);
    ck_assert_ptr_eq(again.row, v.row);
    /* a prefix with regex characters is matched literally */
    tp_iter_override dot = {.prefix = "train.step", .option = "step_prefix"};
    tp_iter_view none;
    ck_assert_int_eq(tp_iter_view_get(&f.st, NULL, &dot, &none), TP_OK);
    ck_assert_uint_eq(none.n, 0);
    ck_assert_str_eq(none.marker, "^train\\.step");
    tp_iter_view_release(&v);
    tp_iter_view_release(&o);
    tp_iter_view_release(&again);
    tp_iter_view_release(&none);
    kineto_run_close(&f);
}
END_TEST

START_TEST(gpu_annotations_and_ranges)
{
    fixture f;
    open_fixture(&f, "iterations:\n  marker: '^gstep$'\n  source: gpu_annotation\n");
    tp_iter_view v;
    ck_assert_int_eq(tp_iter_view_get(&f.st, NULL, NULL, &v), TP_OK);
    ck_assert_uint_eq(v.n, 2);
    ck_assert_int_eq(v.it[1].start, 150000);
    ck_assert_int_eq(v.it[1].end, 190000);
    ck_assert_int_eq(tp_iter_view_rows(&f.st, NULL, &v), TP_OK);
    ck_assert_int_eq(v.row[row_named(&f, "aten::add")], 1); /* starts at 150 */
    ck_assert_int_eq(v.source, TP_ITER_SOURCE_GPU_ANNOTATION);
    tp_iter_override ov = {.marker = "^range_a$", .ranges = 1, .option = "marker"};
    tp_iter_view r;
    ck_assert_int_eq(tp_iter_view_get(&f.st, NULL, &ov, &r), TP_OK);
    ck_assert_uint_eq(r.n, 1);
    ck_assert_int_eq(r.it[0].start, 5000);
    ck_assert_int_eq(r.it[0].end, 95000);
    tp_iter_view_release(&v);
    tp_iter_view_release(&r);
    kineto_run_close(&f);
}
END_TEST

START_TEST(bad_override_regex_fails_the_stage)
{
    fixture f;
    open_fixture(&f, "");
    tp_iter_override ov = {.marker = "(", .option = "marker"};
    tp_iter_view v;
    ck_assert_int_eq(tp_iter_view_get(&f.st, NULL, &ov, &v), TP_EINVAL);
    ck_assert_ptr_nonnull(strstr(f.st.error, "marker: bad regex '('"));
    ck_assert_uint_eq(v.n, 0);
    kineto_run_close(&f);
}
END_TEST

static Suite *sdk_iter_suite(void)
{
    Suite *s = suite_create("sdk_iter");
    TCase *tc = tcase_create("view");
    tcase_add_test(tc, pipeline_marker_capture_group_and_skips);
    tcase_add_test(tc, nested_markers_and_ordinals);
    tcase_add_test(tc, default_marker_and_override);
    tcase_add_test(tc, gpu_annotations_and_ranges);
    tcase_add_test(tc, bad_override_regex_fails_the_stage);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(sdk_iter_suite)
