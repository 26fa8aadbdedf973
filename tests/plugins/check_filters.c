/*
 * filters trim_iterations, regex_select, time_window and select.
 *
 * Hand-made traces (tests/data/filters/NAME.json) are checked by the names of
 * the kept events in row order (flows as name#id), computed by hand from
 * the files.  Corpus counts were computed independently by
 * tests/plugins/filters_reference.py (plain Python over the raw JSON, exact
 * ns times via Decimal, Python's re): run it from the repository root and
 * compare with the CORPUS_* values below.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_test.h"

#define FD "tests/data/filters/"
#define CORPUS "tests/data/kineto/corpus/"
#define RESNET CORPUS "kineto_tbplugin_resnet50_profapi_nw0_2021-01.pt.trace.json.gz"
#define NSRES CORPUS "hta_ns_resolution_rank0.pt.trace.json.gz"
#define DLRM "tests/data/dlrm_worker0_step12.pt.trace.json.gz"

/* from filters_reference.py */
enum {
    CORPUS_RESNET_EVENTS = 73639,
    CORPUS_RESNET_TRIM_SKIP1_KEEP2 = 24581,
    CORPUS_NSRES_EVENTS = 68692,
    CORPUS_NSRES_TRIM_DEFAULT = 12803,
    CORPUS_NSRES_TRIM_SKIP2_KEEP3 = 42938,
    CORPUS_RESNET_CONV_BN_DESC = 7910,
    CORPUS_NSRES_NCCL_ANC = 181,
    CORPUS_DLRM_LAST_TENTH = 492,
    CORPUS_DLRM_LAST_TENTH_CONTAINED = 486,
    CORPUS_NSRES_KERNELS_STREAM7 = 5950,
    CORPUS_DLRM_RANK0_KERNELS = 245
};

static const char *yaml_for(const char *trace, const char *stages)
{
    static char yaml[4096];
    int n = snprintf(yaml, sizeof yaml,
                     "name: filter-test\nstages:\n  - reader: kineto\n    path: %s\n%s", trace,
                     stages);
    ck_assert_int_lt(n, (int)sizeof yaml);
    return yaml;
}

static size_t kept_count(tp_run *run)
{
    return tp_core_host_api()->trace_cols(tp_run_trace(run))->n;
}

/* Names of the trace's events in row order, comma-separated; flows as
 * name#id.  Static buffer. */
static const char *kept_names(tp_run *run)
{
    static char buf[4096];
    const tp_cols *c = tp_core_host_api()->trace_cols(tp_run_trace(run));
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < c->n; i++) {
        int w = snprintf(buf + len, sizeof buf - len, "%s%s", i ? "," : "",
                         tp_run_str(run, c->name[i]));
        ck_assert(w >= 0 && (size_t)w < sizeof buf - len);
        len += (size_t)w;
        if (c->kind[i] == TP_KIND_FLOW) {
            w = snprintf(buf + len, sizeof buf - len, "#%lld", (long long)c->flow_id[i]);
            ck_assert(w >= 0 && (size_t)w < sizeof buf - len);
            len += (size_t)w;
        }
    }
    return buf;
}

static void expect_names(const char *trace, const char *stages, const char *expected)
{
    tp_run *run = tp_test_run_yaml(yaml_for(trace, stages));
    ck_assert_str_eq(kept_names(run), expected);
    tp_run_free(run);
}

static void expect_count(const char *trace, const char *stages, size_t expected)
{
    tp_run *run = tp_test_run_yaml(yaml_for(trace, stages));
    ck_assert_uint_eq(kept_count(run), expected);
    tp_run_free(run);
}

static void expect_failure(const char *trace, const char *stages, const char *text)
{
    char msg[1024] = "";
    ck_assert_int_eq(tp_test_run_yaml_fails(yaml_for(trace, stages), msg, sizeof msg),
                     TP_EXIT_FAIL);
    ck_assert_msg(strstr(msg, text) != NULL, "message '%s' lacks '%s'", msg, text);
}

/* ---- trim_iterations over trim.json: ProfilerStep#1..#4 at 0, 100, 200,
 * 310 µs (#3 ends at 300) */

/* skip 1, keep 2: window [100, 300].  Kept: the steps, their ops, the
 * dataloader overlapping 100, k2/k3 (k3 runs past 300 but was launched
 * inside), orphan_in and gpu_range (inside, no launcher), ac2g#2 (runtime
 * kept), fwdbwd#7 (both ends inside; fwdbwd#2 ends at 350), metadata, the
 * Trace span.  Dropped: k1/k4 (launched outside), orphan_cross (crosses
 * 300), ac2g#4, the instant at 400. */
#define TRIM_SKIP1_KEEP2                                                               \
    "process_name,ProfilerStep#2,aten::mm,cudaLaunchKernel,ProfilerStep#3,aten::relu," \
    "cudaLaunchKernel,dataloader,k2,k3,orphan_in,gpu_range,ac2g#2,ac2g#2,fwdbwd#7,"    \
    "fwdbwd#7,thread_name,PyTorch Profiler (0)"

START_TEST(test_trim_skip_keep)
{
    expect_names(FD "trim.json", "  - {filter: trim_iterations, skip: 1, iterations: 2}\n",
                 TRIM_SKIP1_KEEP2);
}
END_TEST

START_TEST(test_trim_default_first_iteration)
{
    /* window [0, 100]: ProfilerStep#2 starts at 100 and is dropped (no
     * shared time); k1 follows its launch */
    expect_names(FD "trim.json", "  - filter: trim_iterations\n",
                 "process_name,ProfilerStep#1,aten::mm,cudaLaunchKernel,dataloader,k1,"
                 "thread_name,PyTorch Profiler (0)");
}
END_TEST

START_TEST(test_trim_marker_regex)
{
    /* a searched (unanchored) regex picking #2 and #3 as the iterations */
    expect_names(FD "trim.json",
                 "  - {filter: trim_iterations, marker: 'Step#[23]$', iterations: 2}\n",
                 TRIM_SKIP1_KEEP2);
}
END_TEST

START_TEST(test_trim_too_many)
{
    expect_failure(FD "trim.json", "  - {filter: trim_iterations, skip: 2, iterations: 3}\n",
                   "trace has 4 iterations (ProfilerStep#1..#4); cannot skip 2 and keep 3");
    expect_failure(FD "trim.json", "  - {filter: trim_iterations, marker: 'Iteration \\d+'}\n",
                   "trace has no iterations: no complete host event matches marker "
                   "'Iteration \\d+'");
    expect_failure(FD "trim.json", "  - {filter: trim_iterations, marker: 'Step#(\\d+'}\n",
                   "marker: bad regex 'Step#(\\d+': missing closing parenthesis at offset 9");
}
END_TEST

START_TEST(test_trim_corpus)
{
    expect_count(RESNET, "  - {filter: trim_iterations, skip: 1, iterations: 2}\n",
                 CORPUS_RESNET_TRIM_SKIP1_KEEP2);
    expect_count(NSRES, "  - filter: trim_iterations\n", CORPUS_NSRES_TRIM_DEFAULT);
    expect_count(NSRES, "  - {filter: trim_iterations, skip: 2, iterations: 3}\n",
                 CORPUS_NSRES_TRIM_SKIP2_KEEP3);
    expect_failure(NSRES, "  - {filter: trim_iterations, skip: 2, iterations: 4}\n",
                   "trace has 5 iterations (ProfilerStep#101..#105); cannot skip 2 and keep 4");
}
END_TEST

/* ---- regex_select over regex.json */
START_TEST(test_regex_names)
{
    const char *t = FD "regex.json";
    expect_names(t, "  - {filter: regex_select, include: ['^aten::\\w+$']}\n",
                 "process_name,aten::linear,aten::addmm,aten::relu,aten::mm");
    expect_names(t, "  - {filter: regex_select, include: ['^aten::\\w+$'], ignore_case: true}\n",
                 "process_name,aten::linear,aten::addmm,aten::relu,aten::mm,ATEN::MM_custom");
    expect_names(t, "  - {filter: regex_select, include: ['(?i)^ATEN::MM$']}\n",
                 "process_name,aten::mm");
    expect_names(t, "  - {filter: regex_select, include: ['aten::'], exclude: [relu]}\n",
                 "process_name,aten::linear,aten::addmm,aten::mm");
    expect_names(t, "  - {filter: regex_select, include: ['^aten::(?:mm|relu)$']}\n",
                 "process_name,aten::relu,aten::mm");
    expect_names(t, "  - {filter: regex_select, exclude: ['^cuda']}\n",
                 "process_name,forward,aten::linear,aten::addmm,aten::relu,backward,"
                 "AddmmBackward0,aten::mm,ATEN::MM_custom,sgemm,relu_kernel,ac2g#1,gpu_forward");
}
END_TEST

START_TEST(test_regex_category_and_arg)
{
    const char *t = FD "regex.json";
    expect_names(t, "  - {filter: regex_select, field: category, include: ['^cuda_runtime$']}\n",
                 "process_name,cudaLaunchKernel,cudaLaunchKernel");
    expect_names(t,
                 "  - {filter: regex_select, field: arg, arg: Sequence number, include: ['^[67]$']}\n",
                 "process_name,aten::addmm,aten::relu");
    /* string values are matched unquoted and unescaped */
    expect_names(t, "  - {filter: regex_select, field: arg, arg: name_hint, include: ['^say \"hi\"$']}\n",
                 "process_name,relu_kernel");
}
END_TEST

START_TEST(test_regex_hierarchy)
{
    const char *t = FD "regex.json";
    expect_names(t, "  - {filter: regex_select, include: ['^forward$'], keep: with_descendants}\n",
                 "process_name,forward,aten::linear,aten::addmm,cudaLaunchKernel,aten::relu,"
                 "cudaLaunchKernel");
    expect_names(t, "  - {filter: regex_select, include: ['^aten::mm$'], keep: with_ancestors}\n",
                 "process_name,backward,AddmmBackward0,aten::mm");
    expect_names(t, "  - {filter: regex_select, include: ['^aten::addmm$'], keep: with_both}\n",
                 "process_name,forward,aten::linear,aten::addmm,cudaLaunchKernel");
    /* nested by time on the GPU stream: the range holds both kernels ... */
    expect_names(t, "  - {filter: regex_select, include: ['^gpu_forward$'], keep: with_descendants}\n",
                 "process_name,sgemm,relu_kernel,gpu_forward");
    /* ... but the hierarchy analysis nests host events only, and wins */
    expect_names(t,
                 "  - analysis: hierarchy\n"
                 "  - {filter: regex_select, include: ['^gpu_forward$'], keep: with_descendants}\n",
                 "process_name,gpu_forward");
    expect_names(t,
                 "  - analysis: hierarchy\n"
                 "  - {filter: regex_select, include: ['^aten::addmm$'], keep: with_both}\n",
                 "process_name,forward,aten::linear,aten::addmm,cudaLaunchKernel");
}
END_TEST

START_TEST(test_regex_errors)
{
    expect_failure(FD "regex.json", "  - {filter: regex_select, include: [ok, '(']}\n",
                   "include[1]: bad regex '(': missing closing parenthesis at offset 1");
    expect_failure(FD "regex.json", "  - {filter: regex_select, exclude: ['a{2,1}']}\n",
                   "exclude[0]: bad regex 'a{2,1}': numbers out of order in {} quantifier at offset 5");
    expect_failure(FD "regex.json", "  - {filter: regex_select, field: arg, include: [x]}\n",
                   "field: arg needs the option 'arg'");
}
END_TEST

START_TEST(test_regex_corpus)
{
    expect_count(RESNET,
                 "  - {filter: regex_select, include: ['^aten::(?:conv|batch_norm)'], keep: with_descendants}\n",
                 CORPUS_RESNET_CONV_BN_DESC);
    expect_count(NSRES, "  - {filter: regex_select, include: ['(?i)nccl'], keep: with_ancestors}\n",
                 CORPUS_NSRES_NCCL_ANC);
}
END_TEST

/* ---- time_window over window.json: span [0, 1000] µs (A starts at 0, C
 * ends at 1000); E, F are instants at 950, 850; G lasts 0 at 900; H is a
 * counter at 920 */
START_TEST(test_window_fractions)
{
    const char *t = FD "window.json";
    /* seed 004's last tenth: [900, 1000] */
    expect_names(t, "  - {filter: time_window, start_fraction: 0.9, end_fraction: 1.0}\n",
                 "process_name,B,C,D,E,G,H");
    expect_names(t, "  - {filter: time_window, start_fraction: 0.9, mode: contained}\n",
                 "process_name,E,G,H");
    /* fraction and µs windows intersect: [500, 1000] and [900, ...] */
    expect_names(t, "  - {filter: time_window, start_fraction: 0.5, start_us: 900}\n",
                 "process_name,B,C,D,E,G,H");
}
END_TEST

START_TEST(test_window_us)
{
    const char *t = FD "window.json";
    /* [100, 860] after the first event: A ends at 100 (no shared time) */
    expect_names(t, "  - {filter: time_window, start_us: 100, end_us: 860}\n",
                 "process_name,B,D,F");
    /* absolute: the trace's clock; [870, 890] ns lies inside A */
    expect_names(t, "  - {filter: time_window, absolute: true, start_us: 0.87, end_us: 0.89}\n",
                 "process_name,A");
    expect_names(t, "  - {filter: time_window, absolute: true, start_us: 870, end_us: 890}\n",
                 "process_name,B,C,D");
    expect_failure(t, "  - {filter: time_window, start_fraction: 0.6, end_fraction: 0.5}\n",
                   "start_fraction 0.6 is after end_fraction 0.5");
}
END_TEST

START_TEST(test_window_corpus)
{
    expect_count(DLRM, "  - {filter: time_window, start_fraction: 0.9}\n", CORPUS_DLRM_LAST_TENTH);
    expect_count(DLRM, "  - {filter: time_window, start_fraction: 0.9, mode: contained}\n",
                 CORPUS_DLRM_LAST_TENTH_CONTAINED);
}
END_TEST

/* ---- select over select.json (distributedInfo.rank 3) */
START_TEST(test_select_lists)
{
    const char *t = FD "select.json";
    expect_names(t, "  - {filter: select, kinds: [kernel, memcpy]}\n", "k1,k2,m1");
    expect_names(t, "  - {filter: select, kinds: [kernel], streams: [7]}\n", "k1");
    expect_names(t, "  - {filter: select, devices: [1]}\n", "k2");
    expect_names(t, "  - {filter: select, tids: ['stream 20']}\n", "k2");
    expect_names(t, "  - {filter: select, pids: [Spans]}\n", "step");
    expect_names(t, "  - {filter: select, pids: [1], tids: [1]}\n",
                 "aten::mm,cudaLaunchKernel,ac2g#1,thread_name");
    expect_names(t, "  - {filter: select, categories: [cpu_op, kernel]}\n", "aten::mm,aten::add,k1,k2");
    expect_names(t, "  - {filter: select, kinds: [metadata], invert: true}\n",
                 "aten::mm,cudaLaunchKernel,aten::add,k1,k2,m1,step,ac2g#1");
}
END_TEST

START_TEST(test_select_rank)
{
    const char *t = FD "select.json";
    expect_count(t, "  - {filter: select, rank: 3}\n", 10);
    expect_count(t, "  - {filter: select, rank: 2}\n", 0);
    expect_count(FD "trim.json", "  - {filter: select, rank: 0}\n", 0); /* no distributedInfo */
    expect_count(DLRM, "  - {filter: select, rank: 0, kinds: [kernel]}\n", CORPUS_DLRM_RANK0_KERNELS);
    expect_count(DLRM, "  - {filter: select, rank: 1, kinds: [kernel]}\n", 0);
}
END_TEST

START_TEST(test_select_errors)
{
    expect_failure(FD "select.json", "  - {filter: select, kinds: [kernel, kernels]}\n",
                   "kinds[1]: unknown kind 'kernels'");
    expect_failure(FD "select.json", "  - {filter: select, streams: [x]}\n",
                   "streams[0]: 'x' is not an integer");
}
END_TEST

START_TEST(test_select_corpus)
{
    expect_count(NSRES, "  - {filter: select, kinds: [kernel, memcpy], streams: [7]}\n",
                 CORPUS_NSRES_KERNELS_STREAM7);
}
END_TEST

START_TEST(test_empty_trace)
{
    const char *t = "tests/data/kineto/empty_events.json";
    expect_count(t, "  - {filter: regex_select, include: [x], keep: with_both}\n", 0);
    expect_count(t, "  - {filter: time_window, start_fraction: 0.5}\n", 0);
    expect_count(t, "  - {filter: select, kinds: [kernel]}\n", 0);
    expect_failure(t, "  - filter: trim_iterations\n", "trace has no iterations");
}
END_TEST

static Suite *filters_suite(void)
{
    Suite *s = suite_create("filters");
    TCase *tc = tcase_create("trim_iterations");
    tcase_add_test(tc, test_trim_skip_keep);
    tcase_add_test(tc, test_trim_default_first_iteration);
    tcase_add_test(tc, test_trim_marker_regex);
    tcase_add_test(tc, test_trim_too_many);
    tcase_add_test(tc, test_trim_corpus);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    tc = tcase_create("regex_select");
    tcase_add_test(tc, test_regex_names);
    tcase_add_test(tc, test_regex_category_and_arg);
    tcase_add_test(tc, test_regex_hierarchy);
    tcase_add_test(tc, test_regex_errors);
    tcase_add_test(tc, test_regex_corpus);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    tc = tcase_create("time_window");
    tcase_add_test(tc, test_window_fractions);
    tcase_add_test(tc, test_window_us);
    tcase_add_test(tc, test_window_corpus);
    suite_add_tcase(s, tc);
    tc = tcase_create("select");
    tcase_add_test(tc, test_select_lists);
    tcase_add_test(tc, test_select_rank);
    tcase_add_test(tc, test_select_errors);
    tcase_add_test(tc, test_select_corpus);
    tcase_add_test(tc, test_empty_trace);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    return s;
}

TP_TEST_SUITE(filters_suite)
