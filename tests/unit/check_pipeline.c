/*
 * Option validation, pipeline validation messages, loader refusals and
 * safe output, using the test plugins of tests/testplugins/.
 */
#include "tp_internal.h"
#include "tp_test.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static tp_ctx *probe_ctx(void)
{
    tp_ctx *ctx = tp_ctx_new();
    char path[1024];
    snprintf(path, sizeof path, "%s/testplugins/tp_probe.so", tp_test_build_dir());
    char *err = NULL;
    ck_assert_msg(tp_ctx_load_file(ctx, path, &err) == TP_OK, "%s", err ? err : "");
    return ctx;
}

static tp_pipeline *load(tp_ctx *ctx, const char *yaml, tp_diags *d)
{
    return tp_pipeline_load_string(ctx, yaml, strlen(yaml), "p.yaml", NULL, 0, d);
}

START_TEST(typed_values_reach_the_plugin)
{
    tp_ctx *ctx = probe_ctx();
    tp_diags d = {0};
    tp_pipeline *p = load(ctx,
                          "stages:\n"
                          "  - analysis: probe\n"
                          "    flag: yes\n"
                          "    count: 42\n"
                          "    ratio: 0.25\n"
                          "    label: 17\n"
                          "    mode: exact\n"
                          "    names: [a, b, c]\n",
                          &d);
    ck_assert_msg(p != NULL, "%s", d.n ? d.lines[0] : "");
    tp_run *run = NULL;
    tp_run_opts o = {0};
    ck_assert_int_eq(tp_pipeline_run(p, &o, &run), TP_OK);
    const tp_result *r = tp_run_result(run, "probe");
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(tp_test_i64(r, 0, "flag"), 1);
    ck_assert_int_eq(tp_test_i64(r, 0, "count"), 42);
    ck_assert_double_eq(tp_test_f64(r, 0, "ratio"), 0.25);
    ck_assert_str_eq(tp_test_str(r, 0, "label"), "17");
    ck_assert_str_eq(tp_test_str(r, 0, "mode"), "exact");
    ck_assert_str_eq(tp_test_str(r, 0, "names"), "a,b,c");
    tp_run_free(run);
    tp_pipeline_free(p);
    tp_ctx_free(ctx);
}
END_TEST

START_TEST(defaults_apply)
{
    tp_ctx *ctx = probe_ctx();
    tp_diags d = {0};
    tp_pipeline *p = load(ctx, "stages:\n  - analysis: probe\n    id: pr\n    names: one\n", &d);
    ck_assert_ptr_nonnull(p);
    tp_run *run = NULL;
    tp_run_opts o = {0};
    ck_assert_int_eq(tp_pipeline_run(p, &o, &run), TP_OK);
    const tp_result *r = tp_run_result(run, "pr");
    ck_assert_int_eq(tp_test_i64(r, 0, "flag"), 0);
    ck_assert_int_eq(tp_test_i64(r, 0, "count"), 3);
    ck_assert_double_eq(tp_test_f64(r, 0, "ratio"), 0.5);
    ck_assert_str_eq(tp_test_str(r, 0, "label"), "none");
    ck_assert_str_eq(tp_test_str(r, 0, "mode"), "fast");
    ck_assert_str_eq(tp_test_str(r, 0, "names"), "one");
    tp_run_free(run);
    tp_pipeline_free(p);
    tp_ctx_free(ctx);
}
END_TEST

START_TEST(every_problem_is_reported)
{
    tp_ctx *ctx = probe_ctx();
    tp_diags d = {0};
    const char *yaml = "stages:\n"
                       "  - analysis: probe\n"
                       "    cuont: 4\n"
                       "    count: 0\n"
                       "    ratio: high\n"
                       "    flag: 'true'\n"
                       "    mode: exakt\n"
                       "    label: [x]\n"
                       "  - analysis: need_probe\n"
                       "  - analysis: prbe\n"
                       "  - writer: probe\n"
                       "    input: nosuch\n";
    ck_assert_ptr_null(load(ctx, yaml, &d));
    const char *want[] = {
        "p.yaml:3:5: error: analysis 'probe': unknown option 'cuont' (did you mean 'count'?); "
        "valid options: flag, count, ratio, label, mode, names",
        "p.yaml:4:12: error: analysis 'probe': option 'count' = 0 is out of range [1, 100]",
        "p.yaml:5:12: error: analysis 'probe': option 'ratio' must be a number, not 'high'",
        "p.yaml:6:11: error: analysis 'probe': option 'flag' must be a boolean (true/false), not "
        "'true'",
        "p.yaml:7:11: error: analysis 'probe': option 'mode' = 'exakt' is not one of: fast, "
        "exact (did you mean 'exact'?)",
        "p.yaml:8:12: error: analysis 'probe': option 'label' must be a string, not a list",
        "p.yaml:9:5: error: analysis 'need_probe': missing required option 'need' (a required "
        "string)",
        "p.yaml:10:15: error: unknown analysis 'prbe' (did you mean 'probe'?); known analyses: "
        "probe, need_probe",
        "p.yaml:11:13: error: 'probe' is an analysis, not a writer",
    };
    size_t nwant = sizeof want / sizeof want[0];
    ck_assert_msg(d.n == nwant, "got %zu diagnostics, first: %s", d.n, d.n ? d.lines[0] : "");
    for (size_t i = 0; i < nwant; i++)
        ck_assert_str_eq(d.lines[i], want[i]);
    tp_diags_free(&d);
    tp_ctx_free(ctx);
}
END_TEST

START_TEST(structure_errors)
{
    tp_ctx *ctx = probe_ctx();
    tp_diags d = {0};
    ck_assert_ptr_null(load(ctx, "name: x\nstage:\n  - analysis: probe\n", &d));
    ck_assert_str_eq(d.lines[0], "p.yaml:2:1: error: unknown top-level key 'stage' (did you mean "
                                 "'stages'?); valid keys: name, description, vars, stages, "
                                 "plugin_path");
    ck_assert_str_eq(d.lines[1], "p.yaml:1:1: error: the pipeline has no 'stages:' list");
    tp_diags_free(&d);
    ck_assert_ptr_null(load(ctx, "stages:\n  - analysis: probe\n    writer: probe\n", &d));
    ck_assert_str_eq(d.lines[0], "p.yaml:3:13: error: a stage names exactly one of reader:, "
                                 "filter:, analysis:, writer:");
    tp_diags_free(&d);
    ck_assert_ptr_null(load(ctx, "stages:\n  - id: x\n  - analysis: probe\n    input: y\n", &d));
    ck_assert_str_eq(d.lines[0],
                     "p.yaml:2:5: error: stage has none of reader:, filter:, analysis:, writer:");
    ck_assert_str_eq(d.lines[1], "p.yaml:4:12: error: input 'y' names no earlier stage; earlier "
                                 "ids: (none)");
    tp_diags_free(&d);
    tp_ctx_free(ctx);
}
END_TEST

START_TEST(vars_and_set)
{
    tp_ctx *ctx = probe_ctx();
    tp_diags d = {0};
    const char *yaml = "vars: {lbl: base, n: 5}\nstages:\n  - analysis: probe\n"
                       "    label: ${lbl}-x\n    count: ${n}\n";
    tp_var sets[] = {{"n", "9"}};
    tp_pipeline *p = tp_pipeline_load_string(ctx, yaml, strlen(yaml), "p.yaml", sets, 1, &d);
    ck_assert_ptr_nonnull(p);
    tp_run *run = NULL;
    tp_run_opts o = {0};
    ck_assert_int_eq(tp_pipeline_run(p, &o, &run), TP_OK);
    const tp_result *r = tp_run_result(run, "probe");
    ck_assert_str_eq(tp_test_str(r, 0, "label"), "base-x");
    ck_assert_int_eq(tp_test_i64(r, 0, "count"), 9);
    tp_run_free(run);
    tp_pipeline_free(p);
    tp_var bad[] = {{"nn", "1"}};
    ck_assert_ptr_null(tp_pipeline_load_string(ctx, yaml, strlen(yaml), "p.yaml", bad, 1, &d));
    ck_assert_str_eq(d.lines[0],
                     "p.yaml: error: --set nn: the pipeline declares no variable 'nn' under vars:");
    tp_diags_free(&d);
    tp_ctx_free(ctx);
}
END_TEST

static void expect_refusal(const char *file, const char *expect)
{
    tp_ctx *ctx = tp_ctx_new();
    char path[1024];
    snprintf(path, sizeof path, "%s/testplugins/bad/%s", tp_test_build_dir(), file);
    char *err = NULL;
    ck_assert_int_ne(tp_ctx_load_file(ctx, path, &err), TP_OK);
    ck_assert_ptr_nonnull(err);
    ck_assert_msg(strstr(err, path) != NULL && strstr(err, expect) != NULL, "got: %s", err);
    ck_assert_uint_eq(tp_ctx_stage_count(ctx), 0);
    free(err);
    tp_ctx_free(ctx);
}

START_TEST(loader_refuses_bad_plugins)
{
    char expect[256];
    snprintf(expect, sizeof expect, "ABI version %d.0, this core has %d.%d", TP_ABI_MAJOR + 1,
             TP_ABI_MAJOR, TP_ABI_MINOR);
    expect_refusal("abi_major.so", expect);
    snprintf(expect, sizeof expect, "ABI version %d.%d, this core has %d.%d", TP_ABI_MAJOR,
             TP_ABI_MINOR + 1, TP_ABI_MAJOR, TP_ABI_MINOR);
    expect_refusal("abi_minor.so", expect);
    expect_refusal("no_descriptor.so", "no 'tp_plugin_descriptor' symbol");
    expect_refusal("no_run.so", "stage 'no_run_probe': stage has no run callback");
    expect_refusal("missing.so", "cannot load");
}
END_TEST

START_TEST(failed_writer_leaves_no_file)
{
    tp_ctx *ctx = probe_ctx();
    char dir[] = "/tmp/tp_out_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char yaml[512], out[300];
    snprintf(out, sizeof out, "%s/result.csv", dir);
    snprintf(yaml, sizeof yaml, "stages:\n  - writer: fail_probe\n    path: %s\n", out);
    tp_diags d = {0};
    tp_pipeline *p = load(ctx, yaml, &d);
    ck_assert_ptr_nonnull(p);
    tp_run *run = NULL;
    FILE *devnull = fopen("/dev/null", "w");
    tp_run_opts o = {.log = devnull};
    ck_assert_int_eq(tp_pipeline_run(p, &o, &run), TP_EFORMAT);
    ck_assert_str_eq(tp_run_error(run),
                     "p.yaml:2:5: writer 'fail_probe': deliberate failure");
    struct stat sb;
    ck_assert_int_ne(stat(out, &sb), 0);
    ck_assert_int_eq(rmdir(dir), 0); /* empty: no temporary left either */
    fclose(devnull);
    tp_run_free(run);
    tp_pipeline_free(p);
    tp_ctx_free(ctx);
}
END_TEST

/* Temporary outputs: created at once, exclusively, beside the target,
 * private while an existing file is replaced, named within NAME_MAX. */
START_TEST(temp_outputs_are_exclusive)
{
    char dir[] = "/tmp/tp_tmp_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char name[245], target[400];
    memset(name, 'n', 240);
    memcpy(name + 240, ".csv", 5); /* 244 bytes: legal */
    snprintf(target, sizeof target, "%s/%s", dir, name);
    FILE *f = fopen(target, "w");
    ck_assert_ptr_nonnull(f);
    fclose(f);
    tp_stage st;
    memset(&st, 0, sizeof st);
    const tp_host_api *api = tp_core_host_api();
    const char *a = api->output_begin(&st, target);
    const char *b = api->output_begin(&st, target);
    ck_assert_msg(a && b, "%s", st.error);
    ck_assert_str_ne(a, b);
    for (size_t i = 0; i < 2; i++) {
        const char *tmp = st.outputs[i].tmp_path;
        const char *base = strrchr(tmp, '/') + 1;
        ck_assert_uint_le(strlen(base), NAME_MAX);
        ck_assert_ptr_nonnull(strstr(base, ".tmp-"));
        ck_assert_int_eq(strncmp(tmp, dir, strlen(dir)), 0);
        struct stat sb;
        ck_assert_int_eq(lstat(tmp, &sb), 0);
        ck_assert(S_ISREG(sb.st_mode));
        ck_assert_int_eq(sb.st_mode & 0777, 0600); /* private until complete */
        unlink(tmp);
        tp_temp_unregister(st.outputs[i].slot);
        close(st.outputs[i].fd);
        free(st.outputs[i].tmp_path);
        free(st.outputs[i].target);
        free(st.outputs[i].final_path);
    }
    free(st.outputs);
    ck_assert_int_eq(unlink(target), 0);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

START_TEST(edit_distance_hints)
{
    ck_assert_uint_eq(tp_edit_distance("hierachy", "hierarchy"), 1);
    ck_assert_uint_eq(tp_edit_distance("", "abc"), 3);
    const char *names[] = {"depth", "truncate", "batch_size"};
    ck_assert_str_eq(tp_closest("trunc", names, 3), "truncate");
    ck_assert_ptr_null(tp_closest("zzzzzz", names, 3));
}
END_TEST

static Suite *pipeline_suite(void)
{
    Suite *s = suite_create("pipeline");
    TCase *tc = tcase_create("options");
    tcase_add_test(tc, typed_values_reach_the_plugin);
    tcase_add_test(tc, defaults_apply);
    tcase_add_test(tc, every_problem_is_reported);
    tcase_add_test(tc, structure_errors);
    tcase_add_test(tc, vars_and_set);
    tcase_add_test(tc, edit_distance_hints);
    suite_add_tcase(s, tc);
    tc = tcase_create("loader");
    tcase_add_test(tc, loader_refuses_bad_plugins);
    suite_add_tcase(s, tc);
    tc = tcase_create("output");
    tcase_add_test(tc, failed_writer_leaves_no_file);
    tcase_add_test(tc, temp_outputs_are_exclusive);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(pipeline_suite)
