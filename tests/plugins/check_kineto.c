/*
 * reader `kineto`: exact values from the hand-made inputs in
 * tests/data/kineto/ (computed by hand; see the comments), event counts of
 * every real Kineto trace in tests/data/kineto/corpus/ (counted with
 * python3's json module), and one-line errors for malformed input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

#include "tp_test.h"

#define KDIR "tests/data/kineto/"

static const tp_host_api *api(void) { return tp_core_host_api(); }

static tp_run *load(const char *path, const char *extra)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml, "name: kineto_test\nstages:\n  - reader: kineto\n    path: '%s'\n%s",
             path, extra ? extra : "");
    return tp_test_run_yaml(yaml);
}

static const tp_cols *cols_of(tp_run *run) { return api()->trace_cols(tp_run_trace(run)); }

static const char *S(tp_run *run, tp_str id) { return tp_run_str(run, id); }

/* The text of a pid/tid stored as an interned string, or NULL for numbers. */
static const char *id_text(tp_run *run, int64_t v)
{
    return TP_ID_IS_STR(v) ? tp_run_str(run, TP_ID_STR(v)) : NULL;
}

static const char *args_of(tp_run *run, size_t row, size_t *len)
{
    return api()->trace_args(tp_run_trace(run), row, len);
}

static void expect_args(tp_run *run, size_t row, const char *want)
{
    size_t len = 0;
    const char *a = args_of(run, row, &len);
    if (!want) {
        ck_assert_msg(a == NULL, "row %zu: args present", row);
        return;
    }
    ck_assert_msg(a != NULL, "row %zu: no args", row);
    ck_assert_uint_eq(len, strlen(want));
    ck_assert(memcmp(a, want, len) == 0);
}

static void expect_meta(tp_run *run, const char *key, const char *json)
{
    const char *m = api()->trace_meta(tp_run_trace(run), key);
    ck_assert_msg(m != NULL, "no metadata %s", key);
    ck_assert_str_eq(m, json);
}

/* One row's fixed columns. */
typedef struct row_want {
    int64_t ts, dur;
    const char *name, *cat;
    uint8_t kind, phase;
    int64_t ext, corr, flow;
    int32_t device, stream;
} row_want;

static void expect_row(tp_run *run, size_t i, const row_want *w)
{
    const tp_cols *c = cols_of(run);
    ck_assert_msg(c->ts[i] == w->ts, "row %zu ts %lld", i, (long long)c->ts[i]);
    ck_assert_msg(c->dur[i] == w->dur, "row %zu dur %lld", i, (long long)c->dur[i]);
    ck_assert_str_eq(S(run, c->name[i]), w->name);
    ck_assert_str_eq(S(run, c->cat[i]), w->cat);
    ck_assert_msg(c->kind[i] == w->kind, "row %zu kind %d", i, c->kind[i]);
    ck_assert_msg(c->phase[i] == w->phase, "row %zu phase %c", i, c->phase[i]);
    ck_assert_msg(tp_ev_ext_id(c, i) == w->ext, "row %zu ext %lld", i,
                  (long long)tp_ev_ext_id(c, i));
    ck_assert_msg(tp_ev_corr(c, i) == w->corr, "row %zu corr %lld", i, (long long)tp_ev_corr(c, i));
    ck_assert_msg(tp_ev_flow_id(c, i) == w->flow, "row %zu flow %lld", i,
                  (long long)tp_ev_flow_id(c, i));
    ck_assert_msg(tp_ev_device(c, i) == w->device, "row %zu device %d", i, tp_ev_device(c, i));
    ck_assert_msg(tp_ev_stream(c, i) == w->stream, "row %zu stream %d", i, tp_ev_stream(c, i));
}

enum { N = TP_NONE };

/* basic.json: one event of each current category; ts in µs -> ns. */
static const row_want basic_rows[] = {
    /* ts 1712195495505582.988 µs, dur 4.928 µs */
    {1712195495505582988, 4928, "aten::mm", "cpu_op", TP_KIND_CPU_OP, 'X', 7, N, N, -1, -1},
    {1000000, 500000, "ProfilerStep#2", "user_annotation", TP_KIND_ANNOTATION, 'X', N, N, N, -1, -1},
    /* ts 1.5e3, dur 2.5E+1 */
    {1500000, 25000, "nn.Module: Linear", "python_function", TP_KIND_PYTHON, 'X', N, N, N, -1, -1},
    {1100000, 5000, "cudaLaunchKernel", "cuda_runtime", TP_KIND_RUNTIME, 'X', 7, 42, N, -1, -1},
    {1110000, 3000, "cuLaunchKernel", "cuda_driver", TP_KIND_RUNTIME, 'X', N, 43, N, -1, -1},
    {1100000, -1, "ac2g", "ac2g", TP_KIND_FLOW, 's', N, N, 42, -1, -1},
    {1120000, 30000, "gemm \"fast\"\t\xc3\xa9", "kernel", TP_KIND_KERNEL, 'X', 7, 42, N, 0, 7},
    /* "id": "0x1a" */
    {1120000, -1, "ac2g", "ac2g", TP_KIND_FLOW, 'f', N, N, 26, -1, -1},
    /* tid "stream 3" gives the stream */
    {1200000, 2000, "Memcpy HtoD", "gpu_memcpy", TP_KIND_MEMCPY, 'X', N, 44, N, 1, 3},
    /* numeric tid 7 gives the stream */
    {1210000, 1000, "Memset (Device)", "gpu_memset", TP_KIND_MEMSET, 'X', N, N, N, 0, 7}, /* no device arg: pid 0 */
    {1120000, 100000, "ProfilerStep#2", "gpu_user_annotation", TP_KIND_GPU_ANNOTATION, 'X', 3, N, N, 0, 7}, /* pid 0 */
    {1300000, -1, "fwdbwd", "fwdbwd", TP_KIND_FLOW, 'f', N, N, 5, -1, -1},
    {1400000, -1, "[memory]", "cpu_instant_event", TP_KIND_INSTANT, 'i', N, N, N, -1, -1},
    {900000, 1000000, "PyTorch Profiler (0)", "Trace", TP_KIND_TRACE, 'X', N, N, N, -1, -1},
    {1500000, -1, "mem", "", TP_KIND_COUNTER, 'C', N, N, N, -1, -1},
    {0, -1, "thread_name", "", TP_KIND_METADATA, 'M', N, N, N, -1, -1},
    {1600000, 0, "custom", "my_custom", TP_KIND_OTHER, 'X', N, N, N, -1, -1},
    {900000, -1, "Iteration Start: PyTorch Profiler", "", TP_KIND_INSTANT, 'i', N, N, N, -1, -1},
    /* B at 2000.5 µs + E at 2010.25 µs -> one X event; the stray E is dropped */
    {2000500, 9750, "region", "user_annotation", TP_KIND_ANNOTATION, 'X', 9, N, N, -1, -1},
};
#define N_BASIC (sizeof basic_rows / sizeof basic_rows[0])

static void check_basic(tp_run *run, const char *path)
{
    const tp_cols *c = cols_of(run);
    ck_assert_uint_eq(c->n, N_BASIC);
    for (size_t i = 0; i < N_BASIC; i++)
        expect_row(run, i, &basic_rows[i]);
    /* pid/tid: numbers as they are, text interned */
    ck_assert_int_eq(tp_ev_pid(c, 0), 100);
    ck_assert_int_eq(tp_ev_tid(c, 0), 101);
    ck_assert_str_eq(id_text(run, tp_ev_tid(c, 8)), "stream 3");
    ck_assert_int_eq(tp_ev_tid(c, 8), TP_ID_FROM_STR(TP_ID_STR(tp_ev_tid(c, 8))));
    ck_assert_str_eq(id_text(run, tp_ev_pid(c, 13)), "Spans");
    ck_assert_str_eq(id_text(run, tp_ev_tid(c, 13)), "PyTorch Profiler");
    ck_assert_str_eq(id_text(run, tp_ev_pid(c, 17)), "Traces");
    ck_assert_int_eq(tp_ev_pid(c, 18), 100);
    ck_assert_int_eq(tp_ev_tid(c, 18), 103);
    expect_args(run, 0, "{\"External id\": 7, \"Ev Idx\": 0}");
    expect_args(run, 1, NULL);
    expect_args(run, 6, "{\"External id\": 7, \"device\": 0, \"stream\": 7, \"correlation\": 42}");
    expect_args(run, 18, "{\"External id\": 9}");
    /* every top-level key but traceEvents, as raw JSON text */
    const tp_trace *t = tp_run_trace(run);
    ck_assert_uint_eq(api()->trace_meta_count(t), 5);
    expect_meta(run, "schemaVersion", "1");
    expect_meta(run, "deviceProperties", "[{\"id\": 0, \"name\": \"Tesla V100-SXM2-32GB\", \"numSms\": 80}]");
    expect_meta(run, "distributedInfo", "{\"rank\": 3, \"world_size\": 8}");
    expect_meta(run, "displayTimeUnit", "\"ms\"");
    expect_meta(run, "traceName", "\"basic\"");
    ck_assert_str_eq(api()->trace_source(t), path);
}

START_TEST(test_basic)
{
    tp_run *run = load(KDIR "basic.json", NULL);
    check_basic(run, KDIR "basic.json");
    tp_run_free(run);
}
END_TEST

START_TEST(test_gzip_equals_plain)
{
    tp_run *a = load(KDIR "basic.json", NULL);
    tp_run *b = load(KDIR "basic.json.gz", NULL);
    check_basic(b, KDIR "basic.json.gz");
    const tp_cols *x = cols_of(a), *y = cols_of(b);
    ck_assert_uint_eq(x->n, y->n);
    for (size_t i = 0; i < x->n; i++) {
        size_t la = 0, lb = 0;
        const char *aa = args_of(a, i, &la), *ab = args_of(b, i, &lb);
        ck_assert(x->ts[i] == y->ts[i] && x->dur[i] == y->dur[i]);
        ck_assert_str_eq(S(a, x->name[i]), S(b, y->name[i]));
        ck_assert(x->kind[i] == y->kind[i] && tp_ev_corr(x, i) == tp_ev_corr(y, i));
        ck_assert_uint_eq(la, lb);
        ck_assert((!aa && !ab) || (aa && ab && memcmp(aa, ab, la) == 0));
    }
    tp_run_free(a);
    tp_run_free(b);
}
END_TEST

/* gzip headers with optional fields (FEXTRA, FNAME, FCOMMENT) and files of
 * several concatenated members read as the plain text. */
START_TEST(test_gzip_header_fields_and_members)
{
    static const char *const files[] = {KDIR "basic_fields.json.gz", KDIR "basic_members.json.gz"};
    for (size_t f = 0; f < 2; f++) {
        tp_run *run = load(files[f], NULL);
        check_basic(run, files[f]);
        tp_run_free(run);
    }
}
END_TEST

/* A member that ends one byte past the reader's 256 KiB input buffer: the
 * next member's magic straddles two reads (it was taken for trailing
 * garbage, and the trace cut short). 1500 events, "ts": 10 * i us. */
START_TEST(test_gzip_member_at_buffer_edge)
{
    tp_run *run = load(KDIR "members_boundary.json.gz", NULL);
    const tp_cols *c = cols_of(run);
    ck_assert_uint_eq(c->n, 1500);
    ck_assert_int_eq(c->ts[1499], INT64_C(14990000));
    ck_assert_str_eq(S(run, c->name[1002]), "op1002");
    tp_run_free(run);
}
END_TEST

START_TEST(test_legacy_array)
{
    tp_run *run = load(KDIR "legacy_array.json", NULL);
    const tp_cols *c = cols_of(run);
    static const row_want rows[] = {
        /* an Operator named ProfilerStep#3 keeps its category's kind */
        {10000, 100000, "ProfilerStep#3", "Operator", TP_KIND_CPU_OP, 'X', 1, N, N, -1, -1},
        {20000, 5000, "cudaLaunchKernel", "Runtime", TP_KIND_RUNTIME, 'X', 1, 8, N, -1, -1},
        {20000, -1, "launch", "async", TP_KIND_FLOW, 's', N, N, 8, -1, -1},
        {30000, 40000, "k", "Kernel", TP_KIND_KERNEL, 'X', 1, 8, N, 0, 7},
        {80000, 4000, "Memcpy HtoD (Pageable -> Device)", "Memcpy", TP_KIND_MEMCPY, 'X', 1, 9, N, 0, 7},
        /* no args.stream: "stream 5" from the tid */
        {90000, 1000, "Memset (Device)", "Memset", TP_KIND_MEMSET, 'X', 0, 10, N, 0, 5},
    };
    ck_assert_uint_eq(c->n, 6);
    for (size_t i = 0; i < 6; i++)
        expect_row(run, i, &rows[i]);
    /* "1890023232" (text) and 1890023232 (number) are one thread */
    ck_assert_int_eq(tp_ev_tid(c, 0), 1890023232);
    ck_assert_int_eq(tp_ev_tid(c, 2), 1890023232);
    ck_assert_str_eq(id_text(run, tp_ev_tid(c, 3)), "stream 7");
    expect_args(run, 0, "{\"Input dims\": [[2, 3]], \"External id\": 1}");
    ck_assert_uint_eq(api()->trace_meta_count(tp_run_trace(run)), 0);
    tp_run_free(run);
}
END_TEST

START_TEST(test_units)
{
    tp_run *run = load(KDIR "units.json", NULL);
    const tp_cols *c = cols_of(run);
    /* 0.0004 µs = 0.4 ns -> 0; 0.0005 -> 1 (halves round up); 1.0015 ->
     * 1002, dur 4.9285 -> 4929; -0.5 -> -500; 1e-3 -> 1;
     * 17121954955055829885e-4 µs = 1712195495505582988.5 ns -> ...989
     * (beyond a double's precision); 1610366662254362 µs; 0.25E1 -> 2500. */
    static const int64_t ts[] = {0, 1, 1002, -500, 1, 1712195495505582989, 1610366662254362000, 2500};
    ck_assert_uint_eq(c->n, 8);
    for (size_t i = 0; i < 8; i++)
        ck_assert_msg(c->ts[i] == ts[i], "row %zu ts %lld", i, (long long)c->ts[i]);
    ck_assert_int_eq(c->dur[2], 4929);
    ck_assert_int_eq(c->dur[5], 0);
    ck_assert_int_eq(c->dur[0], -1);
    /* displayTimeUnit does not change the unit: only metadata */
    expect_meta(run, "displayTimeUnit", "\"ns\"");
    /* absent pid/tid are the empty string */
    ck_assert_int_eq(tp_ev_pid(c, 0), TP_ID_FROM_STR(0));
    tp_run_free(run);
}
END_TEST

START_TEST(test_empty_events_and_no_args)
{
    tp_run *run = load(KDIR "empty_events.json", NULL);
    ck_assert_uint_eq(cols_of(run)->n, 0);
    ck_assert_uint_eq(api()->trace_meta_count(tp_run_trace(run)), 2);
    expect_meta(run, "traceName", "\"none\"");
    tp_run_free(run);

    run = load(KDIR "basic.json", "    keep_args: false\n");
    ck_assert_uint_eq(cols_of(run)->n, N_BASIC);
    for (size_t i = 0; i < N_BASIC; i++)
        expect_args(run, i, NULL);
    ck_assert_int_eq(tp_ev_ext_id(cols_of(run), 0), 7); /* ids are still read */
    tp_run_free(run);
}
END_TEST

/* Counted with: python3 -c "import json,gzip,sys; d=json.load(gzip.open(sys.argv[1]));
 *   print(len(d if isinstance(d, list) else d['traceEvents']))" FILE */
static const struct {
    const char *file;
    size_t events;
} corpus[] = {
    {"hta_cpu_only_rank34.pt.trace.json.gz", 30},
    {"hta_cuda_event_sync_multistream.json.gz", 149},
    {"hta_gpu_user_annotation_step_based.json.gz", 1344},
    {"hta_inference_rank1_small.json.gz", 54},
    {"hta_large_integer_rank70.pt.trace.json.gz", 2},
    {"hta_nccl_data.json.gz", 40573},
    {"hta_ns_resolution_rank0.pt.trace.json.gz", 68692},
    {"hta_trace_diff_control.json.gz", 109123},
    {"kineto_tbplugin_resnet50_profapi_nw0_2021-01.pt.trace.json.gz", 73639},
    {"tracelens_h100_bert_small.json.gz", 2551},
    {"tracelens_mi210_gpu_only.json.gz", 2443},
    {"dlrm_worker1_step12.pt.trace.json.gz", 3424},
    {"dlrm_worker2_step12.pt.trace.json.gz", 3268},
    {"dlrm_worker3_step12.pt.trace.json.gz", 3474},
    {"dlrm_worker4_step12.pt.trace.json.gz", 3310},
    {"dlrm_worker5_step12.pt.trace.json.gz", 3250},
    {"dlrm_worker6_step12.pt.trace.json.gz", 3272},
    {"dlrm_worker7_step12.pt.trace.json.gz", 3250},
};

START_TEST(test_corpus_counts)
{
    char path[256];
    snprintf(path, sizeof path, KDIR "corpus/%s", corpus[_i].file);
    tp_run *run = load(path, NULL);
    ck_assert_msg(cols_of(run)->n == corpus[_i].events, "%s: %zu events", corpus[_i].file,
                  cols_of(run)->n);
    tp_run_free(run);
}
END_TEST

static void kind_counts(tp_run *run, size_t *k)
{
    const tp_cols *c = cols_of(run);
    memset(k, 0, TP_KIND__COUNT * sizeof *k);
    for (size_t i = 0; i < c->n; i++)
        k[c->kind[i]]++;
}

START_TEST(test_corpus_kinds)
{
    size_t k[TP_KIND__COUNT];
    tp_run *run = load("tests/data/dlrm_worker0_step12.pt.trace.json.gz", NULL);
    kind_counts(run, k);
    ck_assert_uint_eq(cols_of(run)->n, 3290);
    ck_assert_uint_eq(k[TP_KIND_CPU_OP], 1633);
    ck_assert_uint_eq(k[TP_KIND_ANNOTATION], 40);
    ck_assert_uint_eq(k[TP_KIND_RUNTIME], 525);
    ck_assert_uint_eq(k[TP_KIND_FLOW], 786); /* ac2g: 261 s + 525 f */
    ck_assert_uint_eq(k[TP_KIND_KERNEL], 245);
    ck_assert_uint_eq(k[TP_KIND_MEMCPY], 16);
    ck_assert_uint_eq(k[TP_KIND_METADATA], 42);
    ck_assert_uint_eq(k[TP_KIND_TRACE], 1);
    ck_assert_uint_eq(k[TP_KIND_INSTANT], 2);
    expect_meta(run, "distributedInfo", "{\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 8}");
    tp_run_free(run);

    run = load(KDIR "corpus/tracelens_h100_bert_small.json.gz", NULL);
    kind_counts(run, k);
    ck_assert_uint_eq(k[TP_KIND_PYTHON], 1385);
    ck_assert_uint_eq(k[TP_KIND_INSTANT], 238); /* 236 cpu_instant_event + 2 ph i */
    ck_assert_uint_eq(k[TP_KIND_RUNTIME], 132); /* 110 cuda_runtime + 22 cuda_driver */
    ck_assert_uint_eq(k[TP_KIND_GPU_ANNOTATION], 1);
    tp_run_free(run);

    /* ns-resolution timestamps: "ts": 1712195495519689.047, "dur": 63.813 */
    run = load(KDIR "corpus/hta_ns_resolution_rank0.pt.trace.json.gz", NULL);
    ck_assert(cols_of(run)->ts[0] == 1712195495519689047);
    ck_assert_int_eq(cols_of(run)->dur[0], 63813);
    ck_assert_int_eq(tp_ev_ext_id(cols_of(run), 0), 2049);
    tp_run_free(run);

    /* legacy: "tid": "1890023232" normalised; lowercase "external id" */
    run = load(KDIR "corpus/kineto_tbplugin_resnet50_profapi_nw0_2021-01.pt.trace.json.gz", NULL);
    kind_counts(run, k);
    ck_assert_uint_eq(k[TP_KIND_CPU_OP], 33384);
    ck_assert_uint_eq(k[TP_KIND_KERNEL], 9564);
    ck_assert_uint_eq(k[TP_KIND_RUNTIME], 10920);
    ck_assert_uint_eq(k[TP_KIND_FLOW], 19297);
    ck_assert_int_eq(tp_ev_tid(cols_of(run), 0), 1890023232);
    tp_run_free(run);
}
END_TEST

START_TEST(test_large_integer)
{
    tp_run *run = load(KDIR "corpus/hta_large_integer_rank70.pt.trace.json.gz", NULL);
    const tp_cols *c = cols_of(run);
    ck_assert_uint_eq(c->n, 2);
    ck_assert_int_eq(c->ts[1], 200000);
    ck_assert_int_eq(c->dur[1], 100000);
    ck_assert_int_eq(tp_ev_stream(c, 0), 0); /* kernel on tid 0 */
    expect_args(run, 1, "{\"Comms Id\": 10159970886766084423}");
    tp_run_free(run);
}
END_TEST

/* ---- errors */

static char tmpdir[64];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/tp_kineto_XXXXXX");
    ck_assert(mkdtemp(tmpdir) != NULL);
}

static void write_file(const char *path, const char *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    ck_assert(f != NULL);
    ck_assert_uint_eq(fwrite(data, 1, len, f), len);
    fclose(f);
}

/* Runs the reader over path and expects failure with `want` in the message. */
static void expect_fail(const char *path, const char *extra, const char *want)
{
    char yaml[1024], msg[1024] = "";
    snprintf(yaml, sizeof yaml, "name: kineto_test\nstages:\n  - reader: kineto\n    path: '%s'\n%s",
             path, extra ? extra : "");
    ck_assert_int_eq(tp_test_run_yaml_fails(yaml, msg, sizeof msg), TP_EXIT_FAIL);
    ck_assert_msg(strstr(msg, path) && strstr(msg, want), "message '%s' lacks '%s'", msg, want);
    ck_assert_msg(!strchr(msg, '\n') || strchr(msg, '\n')[1] == '\0', "more than one line: %s", msg);
}

#define ARGS_BAD(args) "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"args\": " args "}]}"
static const struct {
    const char *json, *want;
} bad_inputs[] = {
    {"", ":1:1: empty file"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1", ":1:37: unexpected end of file"},
    {"{\"traceEvents\": [\n  {\"ph\": \"X\", \"name\": \"a\\qb\"}]}", ":2:25: invalid escape sequence"},
    {"{\"traceEvents\": [{\"name\": \"a\tb\"}]}", ":1:29: control character (0x09) in string"},
    {"{\"traceEvents\": [{\"name\": \"a\xff\"}]}", ":1:29: invalid UTF-8 byte 0xff"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": \"100\", \"dur\": 1}]}",
     ":1:36: \"ts\" must be a number, not a string"},
    {"{\"traceEvents\": [\n{\"ph\": \"X\", \"ts\": 1, \"pid\": {}}]}",
     ":2:29: \"pid\" must be a number or a string, not an object"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"args\": [1]}]}",
     ":1:47: \"args\" must be an object, not an array"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"dur\": 1}]}", ":1:18: event with ph 'X' has no \"ts\""},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": -2}]}", ":1:18: negative \"dur\""},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 9223372036854775, \"dur\": 100}]}",
     ":1:18: \"ts\" + \"dur\" does not fit in int64 nanoseconds"},
    {"{\"traceEvents\": [7]}", ":1:18: traceEvents element must be an object, not a number"},
    {"{\"schemaVersion\": 1}", ":1:20: no \"traceEvents\" key"},
    /* "traceEvents" as a value is not the key */
    {"{\"name\": \"traceEvents\", \"x\": [{}]}", ":1:34: no \"traceEvents\" key"},
    {"{\"traceEvents\": {}}", ":1:17: \"traceEvents\" must be an array"},
    {"{\"traceEvents\": []} x", ":1:21: unexpected data after the end"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 01}]}", ":1:37: invalid number"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1.}]}", ":1:38: invalid number: digit expected"},
    {"{\"traceEvents\": [{\"ph\": \"X\"]}", ":1:28: ',' or '}' expected"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1}}", ":1:38: ',' or ']' expected"},
    {"{\"traceEvents\": [{\"ph\": \"i\", \"ts\": tru}]}", ":1:39: invalid literal"},
    {"{\"traceEvents\": [{\"ph\": \"i\", \"ts\": 1e99}]}", "\"ts\" does not fit in int64"},
    {"nope", ":1:1: not a Kineto trace: expected '{' or '['"},
    /* issue 12: ph is one character; \u0000 would cut a name short */
    {"{\"traceEvents\": [{\"ph\": \"Xylophone\", \"ts\": 1}]}", ":1:25: \"ph\" must be a one-letter"},
    {"{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"tid\": \"t\\u0000\"}]}",
     ":1:46: \"tid\" holds \\u0000 (a NUL character)"},
    {"{\"a\\u0000\": 1, \"traceEvents\": []}", ":1:2: metadata key holds \\u0000"},
    /* times: |t| <= INT64_MAX ns either way; a span beyond int64 is refused */
    {"{\"traceEvents\": [{\"ph\": \"i\", \"ts\": -9223372036854775.808}]}",
     ":1:36: \"ts\" does not fit in int64 nanoseconds"},
    {"{\"traceEvents\": [{\"ph\": \"i\", \"ts\": 9223372036854775.808}]}",
     ":1:36: \"ts\" does not fit in int64 nanoseconds"},
    {"{\"traceEvents\": [{\"ph\": \"i\", \"ts\": -1}, {\"ph\": \"i\", \"ts\": 9223372036854775.807}]}",
     ": the trace spans more than int64 nanoseconds (earliest start -1000 ns, latest end "
     "9223372036854775807 ns)"},
    /* long whitespace runs (the out-of-line path of kin_ws): every newline
     * counts and columns restart after the last one */
    {"{\"traceEvents\": [\n\n  \n\t\r\n        \n      {\"ph\": \"X\", \"ts\": x}]}",
     ":6:25: value expected"},
    {"{\"traceEvents\": [                    \n                         {\"ph\" 1}]}",
     ":2:32: ':' expected after object key"},
    /* malformed args objects (issue 31, fourth pass) */
    {ARGS_BAD("{\"a\": [1,,2]}"), ":1:56: value expected"},
    {ARGS_BAD("{\"a\" 1}"), ":1:52: ':' expected after object key"},
    {ARGS_BAD("{\"a\": 01}"), ":1:54: invalid number"},
    {ARGS_BAD("{\"a\": [tru]}"), ":1:57: invalid literal (expected 'true')"},
    {ARGS_BAD("{\"a\": \"x\\q\"}"), ":1:55: invalid escape sequence in string"},
    {ARGS_BAD("{\"a\": [1 2]}"), ":1:56: ',' or ']' expected"},
    {ARGS_BAD("{\"a\": {\"b\": 1,}}"), ":1:61: object key (string) expected"},
    {ARGS_BAD("{\"a\": \"\xc3\x28\"}"), ":1:54: invalid UTF-8 byte 0xc3 in string"},
    {ARGS_BAD("{\"a\": \"\\\\\\\\\\\"}"), ":1:64: unexpected end of file"},
    {ARGS_BAD("{\"a\": [1], \"device\": [2}"), ":1:70: ',' or ']' expected"},
};
#undef ARGS_BAD

/* Flow ids: numbers >= 0 as they are; text, and numbers the non-negative
 * range cannot hold, as interned text (the negative range means text). */
START_TEST(test_flow_id_forms)
{
    make_tmpdir();
    char path[128];
    snprintf(path, sizeof path, "%s/flows.json", tmpdir);
    const char *json = "{\"traceEvents\": ["
                       "{\"ph\": \"s\", \"id\": 7, \"ts\": 1, \"pid\": 1, \"tid\": 1},"
                       "{\"ph\": \"s\", \"id\": -5, \"ts\": 2, \"pid\": 1, \"tid\": 1},"
                       "{\"ph\": \"s\", \"id\": \"abc\", \"ts\": 3, \"pid\": 1, \"tid\": 1},"
                       "{\"ph\": \"s\", \"id\": \"0x1f\", \"ts\": 4, \"pid\": 1, \"tid\": 1},"
                       "{\"ph\": \"s\", \"id\": 2.5, \"ts\": 5, \"pid\": 1, \"tid\": 1}]}";
    write_file(path, json, strlen(json));
    tp_run *run = load(path, NULL);
    const tp_cols *c = cols_of(run);
    ck_assert_uint_eq(c->n, 5);
    ck_assert_int_eq(tp_ev_flow_id(c, 0), 7);
    ck_assert(TP_ID_IS_STR(tp_ev_flow_id(c, 1)));
    ck_assert_str_eq(id_text(run, tp_ev_flow_id(c, 1)), "-5");
    ck_assert_str_eq(id_text(run, tp_ev_flow_id(c, 2)), "abc");
    ck_assert_int_eq(tp_ev_flow_id(c, 3), 31);
    ck_assert_str_eq(id_text(run, tp_ev_flow_id(c, 4)), "2.5");
    tp_run_free(run);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

START_TEST(test_bad_input)
{
    char path[128];
    make_tmpdir();
    snprintf(path, sizeof path, "%s/bad.json", tmpdir);
    write_file(path, bad_inputs[_i].json, strlen(bad_inputs[_i].json));
    expect_fail(path, NULL, bad_inputs[_i].want);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

START_TEST(test_truncated_everywhere)
{
    size_t len = 0, glen = 0;
    char *json = tp_test_slurp(KDIR "basic.json", &len);
    char *gz = tp_test_slurp(KDIR "basic.json.gz", &glen);
    char path[128];
    ck_assert(json && gz);
    make_tmpdir();
    snprintf(path, sizeof path, "%s/cut.json", tmpdir);
    while (len > 0 && (json[len - 1] == '\n' || json[len - 1] == '}'))
        len--; /* the file minus its closing brace */
    for (size_t n = 1; n <= len; n += (n < 64 ? 1 : 7)) {
        write_file(path, json, n);
        expect_fail(path, NULL, "unexpected end of file (truncated JSON)");
    }
    snprintf(path, sizeof path, "%s/cut.json.gz", tmpdir);
    for (size_t n = 10; n < glen; n += 37) {
        write_file(path, gz, n);
        expect_fail(path, NULL, "truncated gzip data");
    }
    unlink(path);
    snprintf(path, sizeof path, "%s/cut.json", tmpdir);
    unlink(path);
    rmdir(tmpdir);
    free(json);
    free(gz);
}
END_TEST

START_TEST(test_file_errors)
{
    char path[128];
    make_tmpdir();
    /* named .gz, but plain text that is not JSON */
    snprintf(path, sizeof path, "%s/trace.json.gz", tmpdir);
    write_file(path, "hello", 5);
    expect_fail(path, NULL, ":1:1: not a Kineto trace: expected '{' or '[' at the start (the name "
                            "ends in .gz but the data is not gzip)");
    /* gzip magic, then garbage */
    write_file(path, "\x1f\x8b\x08\x00garbage-garbage-garbage", 27);
    expect_fail(path, NULL, "corrupt gzip data");
    unlink(path);
    expect_fail(tmpdir, NULL, "is a directory, not a trace file");
    snprintf(path, sizeof path, "%s/missing.json", tmpdir);
    expect_fail(path, NULL, "cannot open: No such file or directory");
    rmdir(tmpdir);
}
END_TEST

/* Events with bad fields: one failure line, or dropped under on_error: skip. */
#define SKIPPABLE                                                             \
    "{\"traceEvents\": [\n"                                                   \
    "{\"ph\": \"X\", \"name\": \"ok1\", \"ts\": 1, \"dur\": 2},\n"            \
    "{\"ph\": \"X\", \"name\": \"t\", \"ts\": \"5\", \"dur\": 2},\n"          \
    "{\"ph\": \"X\", \"name\": \"m\", \"dur\": 2},\n"                         \
    "{\"ph\": \"X\", \"name\": \"n\", \"ts\": 3, \"dur\": -1},\n"             \
    "5,\n"                                                                    \
    "{\"ph\": \"X\", \"name\": \"p\", \"ts\": 3, \"pid\": [1]},\n"            \
    "{\"ph\": \"i\", \"name\": \"ok2\", \"ts\": 4}\n"                         \
    "]}\n"

START_TEST(test_on_error_skip)
{
    char path[128];
    make_tmpdir();
    snprintf(path, sizeof path, "%s/skip.json", tmpdir);
    write_file(path, SKIPPABLE, strlen(SKIPPABLE));
    expect_fail(path, NULL, ":3:32: \"ts\" must be a number, not a string");
    tp_run *run = load(path, "    on_error: skip\n");
    const tp_cols *c = cols_of(run);
    ck_assert_uint_eq(c->n, 2);
    ck_assert_str_eq(S(run, c->name[0]), "ok1");
    ck_assert_str_eq(S(run, c->name[1]), "ok2");
    ck_assert_int_eq(c->ts[1], 4000);
    tp_run_free(run);
    /* a syntax error still fails under skip */
    static const char syntax[] = "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1,}]}";
    write_file(path, syntax, strlen(syntax));
    expect_fail(path, "    on_error: skip\n", ":1:38: object key (string) expected");
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

/* B/E pairing per thread: interleaved threads pair within their own thread,
 * and many pairs (past the compaction of the pending list) all pair up. */
START_TEST(test_begin_end_threads)
{
    char path[128];
    make_tmpdir();
    snprintf(path, sizeof path, "%s/be.json", tmpdir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"traceEvents\": [\n"
          "{\"ph\": \"B\", \"name\": \"a\", \"pid\": 1, \"tid\": 1, \"ts\": 0},\n"
          "{\"ph\": \"B\", \"name\": \"x\", \"pid\": 1, \"tid\": 2, \"ts\": 1},\n"
          "{\"ph\": \"B\", \"name\": \"b\", \"pid\": 1, \"tid\": 1, \"ts\": 2},\n"
          "{\"ph\": \"E\", \"pid\": 1, \"tid\": 2, \"ts\": 3},\n"
          "{\"ph\": \"E\", \"pid\": 1, \"tid\": 1, \"ts\": 4},\n"
          "{\"ph\": \"E\", \"pid\": 1, \"tid\": 1, \"ts\": 5}",
          f);
    /* 300 nested pairs on thread 3, closed in reverse: B i at 100 + i, E at 1000 - i */
    for (int i = 0; i < 300; i++)
        fprintf(f, ",\n{\"ph\": \"B\", \"name\": \"n%d\", \"pid\": 1, \"tid\": 3, \"ts\": %d}", i,
                100 + i);
    for (int i = 299; i >= 0; i--)
        fprintf(f, ",\n{\"ph\": \"E\", \"pid\": 1, \"tid\": 3, \"ts\": %d}", 1000 - i);
    fputs(",\n{\"ph\": \"B\", \"name\": \"open\", \"pid\": 1, \"tid\": 4, \"ts\": 7}\n]}\n", f);
    fclose(f);
    tp_run *run = load(path, NULL);
    const tp_cols *c = cols_of(run);
    ck_assert_uint_eq(c->n, 3 + 300 + 1);
    /* rows appear when each pair closes: x, b, a, then n299 .. n0, then open */
    ck_assert_str_eq(S(run, c->name[0]), "x");
    ck_assert_int_eq(c->dur[0], 2000);
    ck_assert_str_eq(S(run, c->name[1]), "b");
    ck_assert_int_eq(c->dur[1], 2000);
    ck_assert_str_eq(S(run, c->name[2]), "a");
    ck_assert_int_eq(c->dur[2], 5000);
    for (int k = 0; k < 300; k++) {
        int i = 299 - k; /* closed innermost first */
        char want[16];
        snprintf(want, sizeof want, "n%d", i);
        ck_assert_str_eq(S(run, c->name[3 + k]), want);
        ck_assert_int_eq(c->phase[3 + k], 'X');
        ck_assert_int_eq(c->dur[3 + k], (int64_t)(1000 - i - (100 + i)) * 1000);
    }
    ck_assert_str_eq(S(run, c->name[303]), "open");
    ck_assert_int_eq(c->phase[303], 'B');
    ck_assert_int_eq(c->dur[303], -1);
    tp_run_free(run);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

/* Times: every value with |t| <= INT64_MAX ns, the same rule both ways
 * (INT64_MIN ns itself is outside, as +2^63 is); a trace may sit at either
 * end as long as its span fits. */
START_TEST(test_time_limits)
{
    static const char *const ends[] = {
        "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": -9223372036854775.807, \"dur\": 0},"
        " {\"ph\": \"X\", \"ts\": 0, \"dur\": 0}]}",
        "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 9223372036854775.807, \"dur\": 0},"
        " {\"ph\": \"X\", \"ts\": 0, \"dur\": 9223372036854775.807}]}"};
    char path[128];
    make_tmpdir();
    snprintf(path, sizeof path, "%s/t.json", tmpdir);
    for (int k = 0; k < 2; k++) {
        write_file(path, ends[k], strlen(ends[k]));
        tp_run *run = load(path, NULL);
        const tp_cols *c = cols_of(run);
        ck_assert_uint_eq(c->n, 2);
        ck_assert_int_eq(c->ts[0], k ? INT64_MAX : -INT64_MAX);
        ck_assert_int_eq(c->dur[1], k ? INT64_MAX : 0);
        tp_run_free(run);
    }
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

/* Loads JSON text written to a file of the test's folder (its name in path). */
static tp_run *load_text(const char *text, char *path, size_t size)
{
    make_tmpdir();
    snprintf(path, size, "%s/t.json", tmpdir);
    write_file(path, text, strlen(text));
    return load(path, NULL);
}

/* Numbers on either side of the one-pass path's limits (issue 31): at most
 * 18 digits once scaled, no more fraction digits than the unit shift, no
 * exponent; beyond them the general path reads them as before. */
START_TEST(test_number_fast_path_limits)
{
    static const char text[] =
        "{\"traceEvents\": ["
        "{\"ph\": \"X\", \"ts\": 999999999999999.999, \"dur\": 0.25, \"pid\": 7,"
        " \"args\": {\"External id\": 123456789012345678}},"
        "{\"ph\": \"X\", \"ts\": 1000000000000000.001, \"dur\": 12345678,"
        " \"args\": {\"External id\": 1234567890123456789}},"
        "{\"ph\": \"X\", \"ts\": 12345678.12345678, \"dur\": 1e2, \"pid\": -5,"
        " \"args\": {\"External id\": 12.0}},"
        "{\"ph\": \"X\", \"ts\": -0.5, \"dur\": 0, \"pid\": 0,"
        " \"args\": {\"External id\": 12.5}}]}";
    char path[128];
    tp_run *run = load_text(text, path, sizeof path);
    const tp_cols *c = cols_of(run);
    static const int64_t ts[] = {999999999999999999, 1000000000000000001, 12345678123, -500};
    static const int64_t dur[] = {250, 12345678000, 100000, 0};
    static const int64_t ext[] = {123456789012345678, 1234567890123456789, 12, TP_NONE};
    ck_assert_uint_eq(c->n, 4);
    for (size_t i = 0; i < 4; i++) {
        ck_assert_msg(c->ts[i] == ts[i], "row %zu ts %lld", i, (long long)c->ts[i]);
        ck_assert_msg(c->dur[i] == dur[i], "row %zu dur %lld", i, (long long)c->dur[i]);
        ck_assert_msg(tp_ev_ext_id(c, i) == ext[i], "row %zu ext %lld", i,
                      (long long)tp_ev_ext_id(c, i));
    }
    ck_assert_int_eq(tp_ev_pid(c, 0), 7);
    ck_assert_str_eq(id_text(run, tp_ev_pid(c, 2)), "-5"); /* kept as its text */
    ck_assert_int_eq(tp_ev_pid(c, 3), 0);
    tp_run_free(run);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

/* Flow ids and skipped args numbers take the one-pass path when plain and
 * short (issue 31); the others read as before: a 19-digit id exactly, a
 * negative or fractional one as its text; a skipped number with a leading
 * zero is still a syntax error at its place. */
START_TEST(test_number_fast_path_ids_and_skips)
{
    static const char text[] =
        "{\"traceEvents\": ["
        "{\"ph\": \"s\", \"id\": 303784, \"ts\": 1, \"args\": {\"n\": 0.1234567, \"m\": -12}},"
        "{\"ph\": \"f\", \"id\": 1234567890123456789, \"ts\": 2, \"args\": {\"n\": 1e3}},"
        "{\"ph\": \"s\", \"id\": 2.5, \"ts\": 3, \"args\": {\"n\": 123456789012.5}},"
        "{\"ph\": \"f\", \"id\": -3, \"ts\": 4}]}";
    char path[128];
    tp_run *run = load_text(text, path, sizeof path);
    const tp_cols *c = cols_of(run);
    ck_assert_uint_eq(c->n, 4);
    ck_assert_int_eq(tp_ev_flow_id(c, 0), 303784);
    ck_assert_int_eq(tp_ev_flow_id(c, 1), 1234567890123456789);
    ck_assert_str_eq(id_text(run, tp_ev_flow_id(c, 2)), "2.5");
    ck_assert_str_eq(id_text(run, tp_ev_flow_id(c, 3)), "-3");
    tp_run_free(run);
    unlink(path);
    static const char bad[] = "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"args\": {\"n\": 012}}]}";
    write_file(path, bad, strlen(bad));
    char yaml[512], msg[512];
    snprintf(yaml, sizeof yaml, "name: kineto_test\nstages:\n  - reader: kineto\n    path: '%s'\n",
             path);
    ck_assert(tp_test_run_yaml_fails(yaml, msg, sizeof msg));
    ck_assert_msg(strstr(msg, "t.json:1:54: invalid number") != NULL, "%s", msg);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

/* on_error: skip drops events with \u0000 or a long ph under their reason;
 * distinct names stay distinct. */
START_TEST(test_skip_nul_and_long_ph)
{
    static const char json[] =
        "{\"traceEvents\": [\n"
        "{\"ph\": \"X\", \"name\": \"a\\u0000b\", \"ts\": 1, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"name\": \"a\\u0000c\", \"ts\": 2, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"name\": \"a\", \"ts\": 3, \"dur\": 1},\n"
        "{\"ph\": \"Xylophone\", \"name\": \"x\", \"ts\": 4, \"dur\": 1},\n"
        "{\"ph\": \"X\", \"name\": \"a\\u0001\", \"ts\": 5, \"dur\": 1}]}\n";
    char path[128];
    make_tmpdir();
    snprintf(path, sizeof path, "%s/nul.json", tmpdir);
    write_file(path, json, strlen(json));
    expect_fail(path, NULL, ":2:21: \"name\" holds \\u0000");
    tp_run *run = load(path, "    on_error: skip\n");
    const tp_cols *c = cols_of(run);
    ck_assert_uint_eq(c->n, 2);
    ck_assert_str_eq(S(run, c->name[0]), "a");
    ck_assert_int_eq(c->ts[0], 3000);
    ck_assert_str_eq(S(run, c->name[1]), "a\x01");
    ck_assert(c->name[0] != c->name[1]);
    tp_run_free(run);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

/* Reserved gzip flag bits are refused, in any member; a file compressed
 * twice says so. */
START_TEST(test_gzip_flags_and_double)
{
    size_t glen = 0;
    char *gz = tp_test_slurp(KDIR "basic.json.gz", &glen);
    char path[128];
    ck_assert(gz && glen > 10);
    make_tmpdir();
    snprintf(path, sizeof path, "%s/f.json.gz", tmpdir);
    for (int bit = 0x20; bit <= 0x80; bit <<= 1) {
        char want[64];
        gz[3] = (char)((unsigned char)gz[3] | bit);
        write_file(path, gz, glen);
        snprintf(want, sizeof want, "(reserved header flag bits 0x%02x set)", bit);
        expect_fail(path, NULL, want);
        gz[3] = (char)((unsigned char)gz[3] & ~bit);
        /* the same in a second member */
        char *two = malloc(2 * glen);
        ck_assert_ptr_nonnull(two);
        memcpy(two, gz, glen);
        memcpy(two + glen, gz, glen);
        two[glen + 3] = (char)((unsigned char)two[glen + 3] | bit);
        write_file(path, two, 2 * glen);
        expect_fail(path, NULL, want);
        free(two);
    }
    gzFile z = gzopen(path, "wb");
    ck_assert_ptr_nonnull(z);
    ck_assert_int_eq(gzwrite(z, gz, (unsigned)glen), (int)glen);
    ck_assert_int_eq(gzclose(z), Z_OK);
    expect_fail(path, NULL, ":1:1: not a Kineto trace: expected '{' or '[' at the start (gzip "
                            "inside gzip: the file was compressed twice; gunzip it once)");
    unlink(path);
    rmdir(tmpdir);
    free(gz);
}
END_TEST

/* ---- whitespace costs no memory (issue 12, item 7) */

#define WS_RUN (32u << 20)

/* Writes n bytes of whitespace: spaces, or with a newline every 100 bytes
 * of each 64 KiB chunk.  Returns the newlines written; *after gets the bytes
 * after the last one. */
static uint64_t put_ws_lines(gzFile z, FILE *f, size_t n, int newlines, size_t *after)
{
    uint64_t lines = 0;
    size_t since = 0;
    static char chunk[1 << 16];
    memset(chunk, ' ', sizeof chunk);
    if (newlines)
        for (size_t i = 0; i < sizeof chunk; i += 100)
            chunk[i] = '\n';
    for (size_t done = 0; done < n; done += sizeof chunk) {
        size_t k = n - done < sizeof chunk ? n - done : sizeof chunk;
        for (size_t i = 0; i < k; i++) {
            if (chunk[i] == '\n') {
                lines++;
                since = 0;
            } else {
                since++;
            }
        }
        if (z)
            ck_assert_int_eq(gzwrite(z, chunk, (unsigned)k), (int)k);
        else
            ck_assert_uint_eq(fwrite(chunk, 1, k, f), k);
    }
    if (after)
        *after = since;
    return lines;
}

static void put_ws(gzFile z, FILE *f, size_t n, int newlines)
{
    put_ws_lines(z, f, n, newlines, NULL);
}

static void put_text(gzFile z, FILE *f, const char *s)
{
    if (z)
        ck_assert_int_eq(gzputs(z, s), (int)strlen(s));
    else
        ck_assert_int_ne(fputs(s, f), EOF);
}

static long peak_rss_kib(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

/* 32 MiB runs of whitespace before the document, inside a metadata value,
 * between events, inside an event, inside args and after the document,
 * gzip (a few hundred KiB): read in a bounded window, nothing false about
 * an event larger than the window.  Before the fix the window grew to
 * 64 MiB for each run, and a 5 MB .gz of spaces failed. */
START_TEST(test_whitespace_runs_cost_no_memory)
{
    char path[128];
    make_tmpdir();
    snprintf(path, sizeof path, "%s/ws.json.gz", tmpdir);
    gzFile z = gzopen(path, "wb1");
    ck_assert_ptr_nonnull(z);
    put_ws(z, NULL, WS_RUN, 0);
    put_text(z, NULL, "{\"m\": [1,");
    put_ws(z, NULL, WS_RUN, 1);
    put_text(z, NULL, "2], \"traceEvents\": [");
    put_ws(z, NULL, WS_RUN, 1);
    put_text(z, NULL, "{\"ph\": \"X\",");
    put_ws(z, NULL, WS_RUN, 0);
    put_text(z, NULL, "\"name\": \"a\", \"ts\": 1, \"dur\": 2, \"args\": {\"k\":");
    put_ws(z, NULL, WS_RUN, 1);
    put_text(z, NULL, "3}},{\"ph\": \"i\", \"name\": \"b\", \"ts\": 5}");
    put_ws(z, NULL, WS_RUN, 0);
    put_text(z, NULL, "]}");
    put_ws(z, NULL, WS_RUN, 1);
    ck_assert_int_eq(gzclose(z), Z_OK);

    /* a first run of a tiny trace loads the plugins (their pages and, in a
     * sanitizer build, their shadow memory): only the read is measured */
    char small[128];
    snprintf(small, sizeof small, "%s/small.json", tmpdir);
    const char *tiny = "{\"traceEvents\": [{\"ph\": \"X\", \"name\": \"w\", \"ts\": 1, \"dur\": 1}]}";
    write_file(small, tiny, strlen(tiny));
    tp_run_free(load(small, NULL));
    unlink(small);
    long before = peak_rss_kib();
    tp_run *run = load(path, NULL);
    long grew = peak_rss_kib() - before;
    const tp_cols *c = cols_of(run);
    ck_assert_uint_eq(c->n, 2);
    ck_assert_str_eq(S(run, c->name[0]), "a");
    ck_assert_int_eq(c->ts[0], 1000);
    ck_assert_int_eq(c->dur[0], 2000);
    ck_assert_str_eq(S(run, c->name[1]), "b");
    ck_assert_int_eq(c->ts[1], 5000);
    size_t alen, vlen;
    const char *a = args_of(run, 0, &alen);
    const char *v = api()->json_find(a, alen, "k", &vlen);
    ck_assert(v && vlen == 1 && *v == '3');
    const char *m = api()->trace_meta(tp_run_trace(run), "m");
    ck_assert(m && strncmp(m, "[1,", 3) == 0 && strcmp(m + strlen(m) - 2, "2]") == 0);
    ck_assert_uint_eq(strspn(m + 3, " \n"), strlen(m) - 5);
    ck_assert_msg(strlen(m) < (8u << 20), "metadata holds %zu bytes", strlen(m));
    /* 192 MiB of whitespace went through; the window stays at 4 MiB */
    ck_assert_msg(grew < 48 * 1024, "peak RSS grew by %ld KiB", grew);
    tp_run_free(run);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

/* Inside a unit that outgrew the window, the squeezed runs still count:
 * the line and column of an error after them are those of the file, and
 * args left in a plain file are read back exactly. */
START_TEST(test_whitespace_positions_kept)
{
    char path[128];
    make_tmpdir();
    snprintf(path, sizeof path, "%s/ws.json", tmpdir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    size_t after;
    uint64_t lines = 1;
    put_text(NULL, f, "{\"m\": [1,");
    lines += put_ws_lines(NULL, f, 6u << 20, 1, NULL);
    put_text(NULL, f, "2], \"traceEvents\": [{\"ph\": \"X\", \"ts\": 1,");
    lines += put_ws_lines(NULL, f, 5u << 20, 1, NULL);
    put_text(NULL, f, "\"name\": \"a\", \"args\": {\"k\": 3}},\n  {\"ph\": \"X\", \"ts\":");
    lines += 1 + put_ws_lines(NULL, f, 9u << 20, 1, &after);
    put_text(NULL, f, " \"x\"}]}");
    fclose(f);
    char want[96];
    snprintf(want, sizeof want, ":%llu:%zu: \"ts\" must be a number, not a string",
             (unsigned long long)lines, after + 2);
    expect_fail(path, NULL, want);
    unlink(path);

    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    put_text(NULL, f, "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"args\": {\"k\":");
    put_ws(NULL, f, 9u << 20, 0);
    put_text(NULL, f, "3, \"j\": 4}}, {\"ph\": \"X\", \"ts\": 2, \"args\": {\"k\": 5}}]}");
    fclose(f);
    tp_run *run = load(path, NULL);
    const tp_cols *c = cols_of(run);
    ck_assert_uint_eq(c->n, 2);
    size_t alen, vlen;
    const char *a = args_of(run, 0, &alen);
    const char *v = api()->json_find(a, alen, "j", &vlen);
    ck_assert(v && vlen == 1 && *v == '4');
    expect_args(run, 1, "{\"k\": 5}");
    tp_run_free(run);
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

/* ---- args objects at every alignment (issue 31, fourth pass: what a
 * structural scan of them must read exactly as the scanner does) */

/* The args text of event i: its ids, a padding key moving everything else
 * one byte further per event (so each byte meets every position of a
 * 64-byte block), backslash runs of one to four (even runs end the string,
 * odd ones escape a quote), UTF-8, every kind of value, on several lines. */
static int scan_args(char *out, size_t size, unsigned i)
{
    char pad[160];
    unsigned n = i % 150;
    memset(pad, 'x', n);
    pad[n] = '\0';
    return snprintf(out, size,
                    "{\"pad\": \"%s\", \"s1\": \"a\\\\\", \"s2\": \"b\\\\\\\\\","
                    " \"s3\": \"c\\\\\\\"d\", \"s4\": \"e\\\\\\\\\\\\\\\\\\\"\","
                    "\n      \"External id\": %u, \"u\": \"\xc3\xa9\\u00e9\\ud83d\\ude00\","
                    " \"n\": [1, -2.5e3, 0.4, true, false, null, {\"x\": [[], {}]}],\n"
                    "      \"correlation\": %u, \"device\": %u, \"stream\": %u}",
                    pad, 1000 + i, 7000 + i, i % 8, 7 + i % 3);
}

/* Writes `count` events with scan_args to path; a `big` string in some
 * args makes args objects straddle the reader's 4 MiB window refills. */
static void write_scan_trace(const char *path, unsigned count, size_t big)
{
    FILE *f = fopen(path, "wb");
    ck_assert(f != NULL);
    char *filler = malloc(big + 1);
    ck_assert(filler != NULL);
    memset(filler, 'y', big);
    filler[big] = '\0';
    fputs("{\"traceEvents\": [\n", f);
    for (unsigned i = 0; i < count; i++) {
        char args[1024];
        scan_args(args, sizeof args, i);
        if (big && i % 7 == 3) /* a long string before the ids */
            fprintf(f, "  {\"ph\": \"X\", \"ts\": %u, \"dur\": 1, \"name\": \"k\", \"args\": "
                       "{\"long\": \"%s\", \"v\": %s}}%s\n",
                    i, filler, args, i + 1 < count ? "," : "");
        else
            fprintf(f, "  {\"ph\": \"X\", \"ts\": %u, \"dur\": 1, \"name\": \"k\", \"args\": %s}%s\n",
                    i, args, i + 1 < count ? "," : "");
    }
    fputs("]}\n", f);
    fclose(f);
    free(filler);
}

/* Every event's ids and args text as written. */
static void expect_scan_trace(tp_run *run, unsigned count, size_t big)
{
    const tp_cols *c = cols_of(run);
    ck_assert_uint_eq(c->n, count);
    for (unsigned i = 0; i < count; i++) {
        char args[1024];
        int len = scan_args(args, sizeof args, i);
        int nested = big && i % 7 == 3;
        ck_assert_msg(tp_ev_ext_id(c, i) == (nested ? TP_NONE : 1000 + i), "row %u ext", i);
        ck_assert_msg(tp_ev_corr(c, i) == (nested ? TP_NONE : 7000 + i), "row %u corr", i);
        ck_assert_int_eq(tp_ev_device(c, i), nested ? -1 : (int32_t)(i % 8));
        ck_assert_int_eq(tp_ev_stream(c, i), nested ? -1 : (int32_t)(7 + i % 3));
        size_t alen;
        const char *a = args_of(run, i, &alen);
        ck_assert(a != NULL);
        if (nested) {
            ck_assert(alen == (size_t)len + big + 19);
            ck_assert(memcmp(a + big + 18, args, (size_t)len) == 0);
        } else {
            ck_assert_msg(alen == (size_t)len && memcmp(a, args, alen) == 0, "row %u args", i);
        }
    }
}

/* Args objects at every alignment read exact ids and keep their text, in
 * a window and across refills. */
START_TEST(test_args_alignment)
{
    char path[128];
    make_tmpdir();
    snprintf(path, sizeof path, "%s/scan.json", tmpdir);
    static const struct {
        unsigned count;
        size_t big;
    } cases[] = {{600, 0}, {5000, 6000}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        write_scan_trace(path, cases[k].count, cases[k].big);
        tp_run *run = load(path, NULL);
        expect_scan_trace(run, cases[k].count, cases[k].big);
        tp_run_free(run);
    }
    unlink(path);
    rmdir(tmpdir);
}
END_TEST

static Suite *kineto_suite(void)
{
    Suite *s = suite_create("kineto");
    TCase *tc = tcase_create("values");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_basic);
    tcase_add_test(tc, test_gzip_equals_plain);
    tcase_add_test(tc, test_gzip_header_fields_and_members);
    tcase_add_test(tc, test_gzip_member_at_buffer_edge);
    tcase_add_test(tc, test_flow_id_forms);
    tcase_add_test(tc, test_legacy_array);
    tcase_add_test(tc, test_units);
    tcase_add_test(tc, test_empty_events_and_no_args);
    tcase_add_test(tc, test_large_integer);
    tcase_add_loop_test(tc, test_corpus_counts, 0, (int)(sizeof corpus / sizeof corpus[0]));
    tcase_add_test(tc, test_corpus_kinds);
    suite_add_tcase(s, tc);
    tc = tcase_create("errors");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, test_bad_input, 0, (int)(sizeof bad_inputs / sizeof bad_inputs[0]));
    tcase_add_test(tc, test_truncated_everywhere);
    tcase_add_test(tc, test_file_errors);
    tcase_add_test(tc, test_on_error_skip);
    tcase_add_test(tc, test_begin_end_threads);
    suite_add_tcase(s, tc);
    tc = tcase_create("limits");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_whitespace_runs_cost_no_memory);
    tcase_add_test(tc, test_whitespace_positions_kept);
    tcase_add_test(tc, test_time_limits);
    tcase_add_test(tc, test_number_fast_path_limits);
    tcase_add_test(tc, test_number_fast_path_ids_and_skips);
    tcase_add_test(tc, test_skip_nul_and_long_ph);
    tcase_add_test(tc, test_gzip_flags_and_double);
    tcase_add_test(tc, test_args_alignment);
    suite_add_tcase(s, tc);
    return s;
}

TP_TEST_SUITE(kineto_suite)
