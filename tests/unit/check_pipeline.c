/*
 * Option validation, pipeline validation messages, loader refusals and
 * safe output, using the test plugins of tests/testplugins/.
 */
#include "tp_internal.h"
#include "tp_pipeline.h"
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

/* A stage requiring two analyses (requires_list): both run first, under
 * "<id>.<name>", and `input:` may name their results. */
START_TEST(required_analyses_run_first)
{
    tp_ctx *ctx = tp_test_ctx();
    char path[1024];
    snprintf(path, sizeof path, "%s/testplugins/tp_reqs.so", tp_test_build_dir());
    char *err = NULL;
    ck_assert_msg(tp_ctx_load_file(ctx, path, &err) == TP_OK, "%s", err ? err : "");
    tp_diags d = {0};
    tp_pipeline *p = load(ctx,
                          "stages:\n"
                          "  - reader: kineto\n"
                          "    path: tests/data/hand/kernel_steps.json\n"
                          "  - analysis: reqs_probe\n"
                          "    id: rq\n"
                          "  - writer: json\n"
                          "    input: [rq, rq.trace_info, rq.hierarchy]\n"
                          "    path: /dev/null\n",
                          &d);
    ck_assert_msg(p != NULL, "%s", d.n ? d.lines[0] : "");
    tp_run *run = NULL;
    tp_run_opts o = {0};
    ck_assert_int_eq(tp_pipeline_run(p, &o, &run), TP_OK);
    ck_assert_int_eq(tp_test_i64(tp_run_result(run, "rq"), 0, "hierarchy_ran"), 1);
    ck_assert_ptr_nonnull(tp_run_result(run, "rq.trace_info"));
    ck_assert_ptr_nonnull(tp_run_result(run, "rq.hierarchy"));
    tp_run_free(run);
    tp_pipeline_free(p);
    tp_diags_free(&d);
    tp_ctx_free(ctx);
}
END_TEST

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
                          "    names: [a, b, c]\n"
                          "    ints: [-10, 0, 1000]\n"
                          "    floats: [0.25, 1]\n"
                          "    level: high\n",
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
    ck_assert_str_eq(tp_test_str(r, 0, "ints"), "-10,0,1000");
    ck_assert_str_eq(tp_test_str(r, 0, "floats"), "0.25,1");
    ck_assert_int_eq(tp_test_i64(r, 0, "level"), 2);
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
    ck_assert_str_eq(tp_test_str(r, 0, "ints"), "");
    ck_assert_int_eq(tp_test_i64(r, 0, "level"), 1);
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
        "valid options: flag, count, ratio, label, mode, names, ints, floats, level",
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
        "probe, need_probe, mismatch_probe",
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
                                 "plugin_path, iterations, vocabulary, fail_if");
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
                     "p.yaml: error: --set nn: the pipeline declares no variable 'nn' under vars: (did you mean 'n'?)");
    tp_diags_free(&d);
    tp_ctx_free(ctx);
}
END_TEST

/* A type mismatch keeps its own code and says what it was, whatever code
 * the plugin then returns. */
START_TEST(type_mismatch_is_not_out_of_memory)
{
    tp_ctx *ctx = probe_ctx();
    tp_diags d = {0};
    tp_pipeline *p = load(ctx, "stages:\n  - analysis: mismatch_probe\n", &d);
    ck_assert_ptr_nonnull(p);
    tp_run *run = NULL;
    tp_run_opts o = {0};
    FILE *log = tmpfile();
    o.log = log;
    ck_assert_int_eq(tp_pipeline_run(p, &o, &run), TP_EINVAL);
    const char *err = tp_run_error(run);
    ck_assert_msg(strstr(err, "plugin bug: setting an int64 cell on column 'name' (text) of "
                              "result 'mismatch_probe'") != NULL,
                  "%s", err);
    ck_assert_ptr_null(strstr(err, "out of memory"));
    fclose(log);
    tp_run_free(run);
    tp_pipeline_free(p);
    tp_ctx_free(ctx);
}
END_TEST

/* A list item out of range or of the wrong type is reported at its own line. */
START_TEST(number_lists_and_enums_are_checked)
{
    tp_ctx *ctx = probe_ctx();
    tp_diags d = {0};
    tp_pipeline *p = load(ctx,
                          "stages:\n"
                          "  - analysis: probe\n"
                          "    ints:\n"
                          "      - 5\n"
                          "      - 1001\n"
                          "    floats: [0.5, x]\n"
                          "    level: highest\n",
                          &d);
    ck_assert_ptr_null(p);
    ck_assert_uint_eq(d.n, 3);
    ck_assert_msg(strstr(d.lines[0], "p.yaml:5:9:") && strstr(d.lines[0], "'ints' = 1001 is out of range"),
                  "%s", d.lines[0]);
    ck_assert_msg(strstr(d.lines[1], "p.yaml:6:19:") && strstr(d.lines[1], "'floats' must be a number, not 'x'"),
                  "%s", d.lines[1]);
    ck_assert_msg(strstr(d.lines[2], "'level' = 'highest' is not one of: low, mid, high (did you mean 'high'?)"),
                  "%s", d.lines[2]);
    tp_diags_free(&d);
    tp_ctx_free(ctx);
}
END_TEST

/* A list of mappings (TP_OPT_MAP_LIST): keys and value types as the
 * option's choices declare them, values kept as written, clones deep. */
typedef struct maps_config {
    tp_maplist m;
} maps_config;

START_TEST(lists_of_mappings_are_checked)
{
    static const char *const keys[] = {"name!", "scale:float", "mode:float|off", "on:bool", NULL};
    static const tp_option schema[] = {
        TP_OPTION_MAP_LIST("changes", maps_config, m, keys, 0, 10, "changes"), TP_OPTION_END};
    const char *good = "changes:\n  - {name: a, scale: 0.5, mode: off}\n  - {name: b, on: true, mode: 2}\n";
    const char *bad = "changes:\n  - {name: a, scal: 1}\n  - {scale: 11, mode: x}\n  - 3\n";
    tp_diags d = {0};
    tp_ynode *y = tp_yaml_parse(good, strlen(good), "p.yaml", &d);
    maps_config *c = tp_options_build(schema, sizeof *c, y, NULL, "p.yaml", "test", &d);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(c->m.n, 2);
    ck_assert_str_eq(tp_optmap_get(&c->m.items[0], "scale"), "0.5");
    ck_assert_str_eq(tp_optmap_get(&c->m.items[0], "mode"), "off");
    ck_assert_str_eq(tp_optmap_get(&c->m.items[1], "name"), "b");
    ck_assert_ptr_null(tp_optmap_get(&c->m.items[1], "scale"));
    maps_config *copy = tp_options_clone(schema, sizeof *c, c, NULL, NULL);
    tp_options_free(schema, c);
    ck_assert_str_eq(tp_optmap_get(&copy->m.items[1], "mode"), "2");
    tp_options_free(schema, copy);
    tp_ynode_free(y);
    y = tp_yaml_parse(bad, strlen(bad), "p.yaml", &d);
    ck_assert_ptr_null(tp_options_build(schema, sizeof *c, y, NULL, "p.yaml", "test", &d));
    ck_assert_uint_eq(d.n, 5);
    ck_assert_msg(strstr(d.lines[0], "p.yaml:2:15:") && strstr(d.lines[0], "unknown key 'scal' (did you mean 'scale'?)"), "%s", d.lines[0]);
    ck_assert_msg(strstr(d.lines[1], "'changes[1].scale' = 11 is out of range"), "%s", d.lines[1]);
    ck_assert_msg(strstr(d.lines[2], "'changes[1].mode' must be a number or one of: off, not 'x'"), "%s", d.lines[2]);
    ck_assert_msg(strstr(d.lines[3], "item 1 lacks the required key 'name'"), "%s", d.lines[3]);
    ck_assert_msg(strstr(d.lines[4], "p.yaml:4:5:") && strstr(d.lines[4], "must be a list of mappings"), "%s", d.lines[4]);
    tp_ynode_free(y);
    tp_diags_free(&d);
}
END_TEST

/* A plugin built against the smaller 3.0 prefix of every descriptor loads:
 * its second stage is found (the stride is the plugin's), its options are
 * read with their own size, and the fields it predates read as zero. */
START_TEST(older_smaller_descriptor_loads_and_runs)
{
    tp_ctx *ctx = tp_ctx_new();
    char path[1024];
    snprintf(path, sizeof path, "%s/testplugins/tp_old_layout.so", tp_test_build_dir());
    char *err = NULL;
    ck_assert_msg(tp_ctx_load_file(ctx, path, &err) == TP_OK, "%s", err ? err : "");
    ck_assert_uint_eq(tp_ctx_stage_count(ctx), 2);
    const tp_plugin_desc *owner = NULL;
    const tp_stage_desc *s0 = tp_ctx_stage_at(ctx, 0, &owner);
    const tp_stage_desc *s1 = tp_ctx_stage_at(ctx, 1, NULL);
    ck_assert_str_eq(s0->name, "old_probe");
    ck_assert_str_eq(s1->name, "old_probe2");
    ck_assert_ptr_null(s0->produces);
    ck_assert_uint_eq(s0->flags, 0);
    ck_assert_str_eq(s0->options[1].name, "label");
    ck_assert_ptr_null(s0->options[2].name);
    ck_assert_ptr_null(owner->reserved[0]);
    ck_assert_str_eq(owner->name, "tp_old_layout");
    tp_diags d = {0};
    tp_pipeline *p = load(ctx, "stages:\n  - analysis: old_probe\n    label: x\n", &d);
    ck_assert_msg(p != NULL, "%s", d.n ? d.lines[0] : "");
    tp_run *run = NULL;
    tp_run_opts o = {0};
    ck_assert_int_eq(tp_pipeline_run(p, &o, &run), TP_OK);
    const tp_result *r = tp_run_result(run, "old_probe");
    ck_assert_int_eq(tp_test_i64(r, 0, "count"), 7);
    ck_assert_str_eq(tp_test_str(r, 0, "label"), "x");
    tp_run_free(run);
    tp_pipeline_free(p);
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

/* Trust: a plugin in a directory others can write to is refused before
 * dlopen, and so is one others can write to itself. */
START_TEST(loader_refuses_writable_places)
{
    char dir[] = "/tmp/tp_trustXXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char src[1024], dst[1100], cmd[2300];
    snprintf(src, sizeof src, "%s/testplugins/tp_probe.so", tp_test_build_dir());
    snprintf(dst, sizeof dst, "%s/tp_probe.so", dir);
    snprintf(cmd, sizeof cmd, "cp '%s' '%s'", src, dst);
    ck_assert_int_eq(system(cmd), 0);
    tp_ctx *ctx = tp_ctx_new();
    char *err = NULL;
    ck_assert_int_eq(chmod(dir, 0777), 0);
    ck_assert_int_ne(tp_ctx_load_file(ctx, dst, &err), TP_OK);
    ck_assert_msg(strstr(err, "is writable by others (mode 0777)") != NULL, "got: %s", err);
    free(err);
    ck_assert_int_eq(chmod(dir, 0755), 0);
    ck_assert_int_eq(chmod(dst, 0620), 0);
    ck_assert_int_ne(tp_ctx_load_file(ctx, dst, &err), TP_OK);
    ck_assert_msg(strstr(err, "plugin refused: writable by its group (mode 0620)") != NULL,
                  "got: %s", err);
    free(err);
    ck_assert_uint_eq(tp_ctx_stage_count(ctx), 0);
    ck_assert_int_eq(chmod(dst, 0644), 0);
    ck_assert_int_eq(tp_ctx_load_file(ctx, dst, &err), TP_OK);
    ck_assert_uint_gt(tp_ctx_stage_count(ctx), 0);
    tp_ctx_free(ctx);
    unlink(dst);
    rmdir(dir);
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

/* Default ids: the plugin name, then the first free _N; explicit ids taken
 * into account, whatever their order. */
START_TEST(default_stage_ids)
{
    tp_ctx *ctx = probe_ctx();
    tp_diags d = {0};
    tp_pipeline *p = load(ctx,
                          "stages:\n"
                          "  - {analysis: probe, names: a, id: probe_3}\n"
                          "  - {analysis: probe, names: a}\n"
                          "  - {analysis: probe, names: a}\n"
                          "  - {analysis: probe, names: a}\n"
                          "  - {analysis: probe, names: a, id: probe_9}\n"
                          "  - {analysis: probe, names: a}\n",
                          &d);
    ck_assert_msg(p != NULL, "%s", d.n ? d.lines[0] : "");
    const char *want[] = {"probe_3", "probe", "probe_2", "probe_4", "probe_9", "probe_5"};
    ck_assert_uint_eq(p->n, 6);
    for (size_t i = 0; i < 6; i++)
        ck_assert_str_eq(p->stages[i].id, want[i]);
    tp_pipeline_free(p);
    tp_diags_free(&d);
    tp_ctx_free(ctx);
}
END_TEST

/* 5000 stages of one plugin (quadratic in ids before: ~45 s) and inputs
 * naming earlier ids and their results (id.name). */
START_TEST(many_default_stage_ids)
{
    enum { N = 5000 };
    size_t cap = (size_t)N * 64 + 64, len = 0;
    char *yaml = malloc(cap);
    ck_assert_ptr_nonnull(yaml);
    len += (size_t)snprintf(yaml + len, cap - len, "stages:\n");
    for (int i = 0; i < N; i++)
        len += (size_t)snprintf(yaml + len, cap - len, "  - {analysis: probe, names: a}\n");
    len += (size_t)snprintf(yaml + len, cap - len,
                            "  - {writer: fail_probe, input: [probe_%d, probe_2.x, probe]}\n", N);
    tp_ctx *ctx = probe_ctx();
    tp_diags d = {0};
    tp_pipeline *p = tp_pipeline_load_string(ctx, yaml, len, "p.yaml", NULL, 0, &d);
    ck_assert_msg(p != NULL, "%s", d.n ? d.lines[0] : "");
    ck_assert_uint_eq(p->n, N + 1);
    ck_assert_str_eq(p->stages[0].id, "probe");
    ck_assert_str_eq(p->stages[1].id, "probe_2");
    ck_assert_str_eq(p->stages[N - 1].id, "probe_5000");
    ck_assert_uint_eq(p->stages[N].n_inputs, 3);
    tp_pipeline_free(p);
    tp_diags_free(&d);
    tp_ctx_free(ctx);
    free(yaml);
}
END_TEST

/* Diagnostics on stderr: control characters, C1 controls and invalid UTF-8
 * escaped, valid UTF-8 kept, truncation never cuts an escape. */
START_TEST(escape_text_for_terminals)
{
    char out[64];
    const char *in = "a\x1b]0;t\x07\r\n\t\x7f\xc2\x9b caf\xc3\xa9 \xff\xc3";
    const char *want = "a\\x1b]0;t\\x07\\r\\n\\t\\x7f\\u009b caf\xc3\xa9 \\xff\\xc3";
    ck_assert_uint_eq(tp_escape_text(in, out, sizeof out), strlen(want));
    ck_assert_str_eq(out, want);
    ck_assert_uint_eq(tp_escape_text("x\x1b", out, 3), 5); /* "x\x1b" needs 5 */
    ck_assert_str_eq(out, "x");
    ck_assert_uint_eq(tp_escape_text("plain", NULL, 0), 5);
    tp_diags d = {0};
    tp_diags_add(&d, "f\x1b.yaml", 1, 2, "error: '%s'", "\x07");
    ck_assert_str_eq(d.lines[0], "f\\x1b.yaml:1:2: error: '\\x07'");
    tp_diags_free(&d);
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

/* The host's pipeline_name (ABI 3.4, issue 29): the pipeline's `name:`,
 * NULL without one or outside a run. */
START_TEST(host_pipeline_name)
{
    tp_ctx *ctx = tp_test_ctx();
    tp_diags d = {0};
    tp_pipeline *named = load(ctx,
                              "name: nightly DLRM\nstages:\n  - reader: kineto\n"
                              "    path: tests/data/hand/kernel_steps.json\n",
                              &d);
    tp_pipeline *anon = load(ctx, "stages:\n  - reader: kineto\n"
                                  "    path: tests/data/hand/kernel_steps.json\n", &d);
    ck_assert_msg(named && anon, "%s", d.n ? d.lines[0] : "");
    const tp_host_api *api = tp_core_host_api();
    tp_run run;
    memset(&run, 0, sizeof run);
    tp_stage st;
    memset(&st, 0, sizeof st);
    ck_assert_ptr_null(api->pipeline_name(&st)); /* no run */
    st.run = &run;
    run.pipeline = named;
    ck_assert_str_eq(api->pipeline_name(&st), "nightly DLRM");
    run.pipeline = anon;
    ck_assert_ptr_null(api->pipeline_name(&st));
    tp_pipeline_free(named);
    tp_pipeline_free(anon);
    tp_diags_free(&d);
    tp_ctx_free(ctx);
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

START_TEST(ranks_from_labels)
{
    int64_t r = -1;
    ck_assert_int_eq(tp_batch_rank_of_label("rank3", &r), 1);
    ck_assert_int_eq(r, 3);
    ck_assert_int_eq(tp_batch_rank_of_label("job/worker_12.pt.trace", &r), 1);
    ck_assert_int_eq(r, 12);
    ck_assert_int_eq(tp_batch_rank_of_label("bert_Worker-7", &r), 1);
    ck_assert_int_eq(r, 7);
    ck_assert_int_eq(tp_batch_rank_of_label("RANK.0", &r), 1);
    ck_assert_int_eq(r, 0);
    ck_assert_int_eq(tp_batch_rank_of_label("rank0/worker5", &r), 1); /* the last one named */
    ck_assert_int_eq(r, 5);
    r = -1;
    ck_assert_int_eq(tp_batch_rank_of_label("ranking", &r), 0);
    ck_assert_int_eq(tp_batch_rank_of_label("step12", &r), 0);
    ck_assert_int_eq(tp_batch_rank_of_label("rank_", &r), 0);
    ck_assert_int_eq(r, -1);
}
END_TEST

/* CONVENTIONS: a run's or batch's status is the worst of its traces',
 * 1 > 2 > 3 > 0; a signal's 128 + N is a failure. */
START_TEST(exit_status_worst_first)
{
    ck_assert_int_eq(tp_exit_worst(TP_EXIT_OK, TP_EXIT_OK), TP_EXIT_OK);
    ck_assert_int_eq(tp_exit_worst(TP_EXIT_OK, TP_EXIT_SLOWER), TP_EXIT_SLOWER);
    ck_assert_int_eq(tp_exit_worst(TP_EXIT_SLOWER, TP_EXIT_OK), TP_EXIT_SLOWER);
    ck_assert_int_eq(tp_exit_worst(TP_EXIT_SLOWER, TP_EXIT_USAGE), TP_EXIT_USAGE);
    ck_assert_int_eq(tp_exit_worst(TP_EXIT_USAGE, TP_EXIT_SLOWER), TP_EXIT_USAGE);
    ck_assert_int_eq(tp_exit_worst(TP_EXIT_USAGE, TP_EXIT_FAIL), TP_EXIT_FAIL);
    ck_assert_int_eq(tp_exit_worst(TP_EXIT_FAIL, TP_EXIT_SLOWER), TP_EXIT_FAIL);
    ck_assert_int_eq(tp_exit_worst(TP_EXIT_SLOWER, 128 + 9), TP_EXIT_FAIL);
    ck_assert_int_eq(tp_exit_worst(130, TP_EXIT_OK), TP_EXIT_FAIL);
}
END_TEST

static Suite *pipeline_suite(void)
{
    Suite *s = suite_create("pipeline");
    TCase *tc = tcase_create("options");
    tcase_add_test(tc, typed_values_reach_the_plugin);
    tcase_add_test(tc, lists_of_mappings_are_checked);
    tcase_add_test(tc, required_analyses_run_first);
    tcase_add_test(tc, defaults_apply);
    tcase_add_test(tc, every_problem_is_reported);
    tcase_add_test(tc, structure_errors);
    tcase_add_test(tc, vars_and_set);
    tcase_add_test(tc, edit_distance_hints);
    tcase_add_test(tc, default_stage_ids);
    tcase_add_test(tc, escape_text_for_terminals);
    tcase_add_test(tc, many_default_stage_ids);
    tcase_add_test(tc, ranks_from_labels);
    tcase_add_test(tc, exit_status_worst_first);
    suite_add_tcase(s, tc);
    tc = tcase_create("loader");
    tcase_add_test(tc, loader_refuses_bad_plugins);
    tcase_add_test(tc, older_smaller_descriptor_loads_and_runs);
    tcase_add_test(tc, number_lists_and_enums_are_checked);
    tcase_add_test(tc, type_mismatch_is_not_out_of_memory);
    tcase_add_test(tc, loader_refuses_writable_places);
    suite_add_tcase(s, tc);
    tc = tcase_create("output");
    tcase_add_test(tc, failed_writer_leaves_no_file);
    tcase_add_test(tc, temp_outputs_are_exclusive);
    tcase_add_test(tc, host_pipeline_name);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(pipeline_suite)
