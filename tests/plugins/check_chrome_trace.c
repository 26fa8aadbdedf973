/*
 * writer `chrome_trace`: the exact text for a hand-made trace (values worked
 * out by hand from tests/data/filters/chrome.json: µs written exactly from
 * the ns integers, absent cat/pid/tid left out, hex flow id as a number,
 * "bp": "e" on 'f' flows, args verbatim), the same through gzip, and round
 * trips: kineto -> chrome_trace -> kineto gives identical columns, args and
 * metadata for corpus traces.
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "tp_test.h"

static char ct_dir[256];

static void ct_setup(void)
{
    snprintf(ct_dir, sizeof ct_dir, "/tmp/tp_chrome_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(ct_dir));
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static void ct_teardown(void)
{
    if (ct_dir[0])
        nftw(ct_dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
    ct_dir[0] = '\0';
}

static const char expected_chrome[] =
    "{\n"
    "  \"schemaVersion\": 1,\n"
    "  \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU \\\"0\\\"\"}],\n"
    "  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0},\n"
    "  \"traceName\": \"x.json\",\n"
    "  \"displayTimeUnit\": \"ms\",\n"
    "  \"traceEvents\": [\n"
    "  {\"ph\": \"M\", \"name\": \"process_name\", \"pid\": 1102, \"tid\": 0, \"ts\": 1712195495502094.5, "
    "\"args\": {\"name\": \"python\"}},\n"
    "  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1102, \"tid\": 1102, "
    "\"ts\": 1712195495505582.988, \"dur\": 35115.869, \"args\": {\"External id\": 7, "
    "\"Input Dims\": [[2, 3], [3, 4]],   \"Ev Idx\": 3}},\n"
    "  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"say \\\"hi\\\"\\\\ \\n\\ttab \xc3\xa9 \\u0001\", "
    "\"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\", \"ts\": 5, \"dur\": 0.001},\n"
    "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, \"tid\": \"stream 7\", \"ts\": 10.5, "
    "\"dur\": 2.25, \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 9}},\n"
    "  {\"ph\": \"s\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"pid\": 1102, \"tid\": 1102, \"ts\": 10, \"id\": 9},\n"
    "  {\"ph\": \"f\", \"cat\": \"ac2g\", \"name\": \"ac2g\", \"pid\": 0, \"tid\": 7, \"ts\": 10.5, \"id\": 31, "
    "\"bp\": \"e\"},\n"
    "  {\"ph\": \"t\", \"cat\": \"misc\", \"name\": \"step\", \"pid\": 1, \"tid\": 1, \"ts\": 11, \"id\": \"abc\"},\n"
    "  {\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"name\": \"mark\", \"pid\": 1102, \"tid\": 1102, "
    "\"ts\": -3.5},\n"
    "  {\"ph\": \"C\", \"name\": \"mem\", \"pid\": 1, \"tid\": \"\", \"ts\": 21, "
    "\"args\": {\"bytes\": 5}},\n"
    "  {\"ph\": \"X\", \"name\": \"bare\", \"pid\": \"\", \"tid\": \"\", \"ts\": 22, \"dur\": 1000000},\n"
    "  {\"ph\": \"B\", \"cat\": \"cpu_op\", \"name\": \"open\", \"pid\": 1, \"tid\": 1, \"ts\": 20}\n"
    "  ]\n"
    "}\n";

static tp_run *run_stages(const char *stages)
{
    char yaml[4096];
    int n = snprintf(yaml, sizeof yaml, "name: chrome-test\nvars: { out: %s }\nstages:\n%s", ct_dir,
                     stages);
    ck_assert_int_lt(n, (int)sizeof yaml);
    return tp_test_run_yaml(yaml);
}

/* Reads a gzip (or plain) file whole through zlib. */
static char *gz_slurp(const char *path, size_t *len)
{
    gzFile gz = gzopen(path, "rb");
    ck_assert_msg(gz != NULL, "cannot open %s", path);
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap + 1);
    int got;
    ck_assert_ptr_nonnull(buf);
    while ((got = gzread(gz, buf + n, (unsigned)(cap - n))) > 0) {
        n += (size_t)got;
        if (n == cap) {
            cap *= 2;
            buf = realloc(buf, cap + 1);
            ck_assert_ptr_nonnull(buf);
        }
    }
    ck_assert_int_eq(got, 0);
    gzclose(gz);
    buf[n] = '\0';
    *len = n;
    return buf;
}

START_TEST(test_exact_text)
{
    tp_run_free(run_stages("  - {reader: kineto, path: tests/data/filters/chrome.json}\n"
                           "  - {writer: chrome_trace, path: '${out}/t.json'}\n"));
    char path[512];
    snprintf(path, sizeof path, "%s/t.json", ct_dir);
    size_t len = 0;
    char *text = tp_test_slurp(path, &len);
    ck_assert_ptr_nonnull(text);
    ck_assert_str_eq(text, expected_chrome);
    ck_assert_uint_eq(len, strlen(expected_chrome));
    free(text);
}
END_TEST

START_TEST(test_gzip_by_extension)
{
    tp_run_free(run_stages("  - {reader: kineto, path: tests/data/filters/chrome.json}\n"
                           "  - {writer: chrome_trace, path: '${out}/t.json.gz', level: 9}\n"));
    char path[512];
    snprintf(path, sizeof path, "%s/t.json.gz", ct_dir);
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    unsigned char magic[2] = {0, 0};
    ck_assert_uint_eq(fread(magic, 1, 2, f), 2);
    fclose(f);
    ck_assert(magic[0] == 0x1f && magic[1] == 0x8b);
    size_t len;
    char *text = gz_slurp(path, &len);
    ck_assert_str_eq(text, expected_chrome);
    free(text);
}
END_TEST

/* Async slices pair by id (b/n/e), and empty pid/tid stay "" (Kineto's
 * global instants): both survive the writer. */
START_TEST(test_async_ids_and_empty_ids)
{
    tp_run_free(run_stages("  - {reader: kineto, path: tests/data/filters/async.json}\n"
                           "  - {writer: chrome_trace, path: '${out}/a.json'}\n"));
    char path[512];
    snprintf(path, sizeof path, "%s/a.json", ct_dir);
    char *text = tp_test_slurp(path, NULL);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, "{\"ph\": \"b\", \"cat\": \"async\", \"name\": \"load\", "
                                       "\"pid\": 1, \"tid\": 1, \"ts\": 1, \"id\": 5}"));
    ck_assert_ptr_nonnull(strstr(text, "\"ph\": \"n\", \"cat\": \"async\", \"name\": \"load\", "
                                       "\"pid\": 1, \"tid\": 1, \"ts\": 2, \"id\": 5}"));
    /* "0x5" is read as the number 5, so the three pair up */
    ck_assert_ptr_nonnull(strstr(text, "\"ph\": \"e\", \"cat\": \"async\", \"name\": \"load\", "
                                       "\"pid\": 1, \"tid\": 1, \"ts\": 3, \"id\": 5}"));
    ck_assert_ptr_nonnull(strstr(text, "{\"ph\": \"i\", \"name\": \"Record Window End\", "
                                       "\"pid\": \"\", \"tid\": \"\", \"ts\": 4}"));
    free(text);
}
END_TEST

START_TEST(test_unwritable_path)
{
    char msg[1024] = "";
    char yaml[512];
    snprintf(yaml, sizeof yaml,
             "name: t\nstages:\n  - {reader: kineto, path: tests/data/filters/chrome.json}\n"
             "  - {writer: chrome_trace, path: %s/no/such/dir/t.json}\n", ct_dir);
    /* missing folders are created */
    ck_assert_int_eq(tp_test_run_yaml_fails(yaml, msg, sizeof msg), TP_EXIT_OK);
    /* a path through a regular file cannot be: a configuration error */
    snprintf(yaml, sizeof yaml,
             "name: t\nstages:\n  - {reader: kineto, path: tests/data/filters/chrome.json}\n"
             "  - {writer: chrome_trace, path: /etc/passwd/t.json}\n");
    ck_assert_int_eq(tp_test_run_yaml_fails(yaml, msg, sizeof msg), TP_EXIT_USAGE);
    ck_assert_msg(strstr(msg, "'/etc/passwd' is not a folder") != NULL, "message: %s", msg);
}
END_TEST

/* ---- round trips */
static int same_text_id(tp_run *ra, int64_t a, tp_run *rb, int64_t b)
{
    if (TP_ID_IS_STR(a) != TP_ID_IS_STR(b))
        return 0;
    if (!TP_ID_IS_STR(a))
        return a == b;
    return strcmp(tp_run_str(ra, TP_ID_STR(a)), tp_run_str(rb, TP_ID_STR(b))) == 0;
}

static void assert_same_row(tp_run *ra, const tp_cols *a, tp_run *rb, const tp_cols *b, size_t i)
{
    ck_assert_msg(a->ts[i] == b->ts[i] && a->dur[i] == b->dur[i], "row %zu: ts/dur differ", i);
    ck_assert_msg(a->kind[i] == b->kind[i] && a->phase[i] == b->phase[i], "row %zu: kind", i);
    ck_assert_msg(tp_ev_ext_id(a, i) == tp_ev_ext_id(b, i), "row %zu: ext id", i);
    ck_assert_msg(tp_ev_corr(a, i) == tp_ev_corr(b, i), "row %zu: corr", i);
    ck_assert_msg(tp_ev_device(a, i) == tp_ev_device(b, i), "row %zu: device", i);
    ck_assert_msg(tp_ev_stream(a, i) == tp_ev_stream(b, i), "row %zu: stream", i);
    ck_assert_msg(same_text_id(ra, tp_ev_pid(a, i), rb, tp_ev_pid(b, i)), "row %zu: pid", i);
    ck_assert_msg(same_text_id(ra, tp_ev_tid(a, i), rb, tp_ev_tid(b, i)), "row %zu: tid", i);
    ck_assert_msg(same_text_id(ra, tp_ev_flow_id(a, i), rb, tp_ev_flow_id(b, i)),
                  "row %zu: flow id", i);
    ck_assert_msg(strcmp(tp_run_str(ra, a->name[i]), tp_run_str(rb, b->name[i])) == 0,
                  "row %zu: name", i);
    ck_assert_msg(strcmp(tp_run_str(ra, a->cat[i]), tp_run_str(rb, b->cat[i])) == 0, "row %zu: cat",
                  i);
}

static void assert_same_trace(tp_run *ra, tp_run *rb)
{
    const tp_host_api *h = tp_core_host_api();
    const tp_trace *ta = tp_run_trace(ra), *tb = tp_run_trace(rb);
    const tp_cols *a = h->trace_cols(ta), *b = h->trace_cols(tb);
    ck_assert_uint_eq(a->n, b->n);
    for (size_t i = 0; i < a->n; i++) {
        assert_same_row(ra, a, rb, b, i);
        size_t la = 0, lb = 0;
        const char *xa = h->trace_args(ta, i, &la), *xb = h->trace_args(tb, i, &lb);
        ck_assert_msg((xa == NULL) == (xb == NULL) && la == lb && (la == 0 || memcmp(xa, xb, la) == 0),
                      "row %zu: args differ", i);
    }
    ck_assert_uint_eq(h->trace_meta_count(ta), h->trace_meta_count(tb));
    for (size_t k = 0; k < h->trace_meta_count(ta); k++) {
        const char *key = h->trace_meta_key(ta, k);
        ck_assert_ptr_nonnull(h->trace_meta(tb, key));
        ck_assert_str_eq(h->trace_meta(ta, key), h->trace_meta(tb, key));
    }
}

static void round_trip(const char *trace, const char *filter, const char *out, size_t want_n)
{
    char stages[1024];
    snprintf(stages, sizeof stages,
             "  - {reader: kineto, path: '%s'}\n%s  - {writer: chrome_trace, path: '${out}/%s'}\n",
             trace, filter, out);
    tp_run *first = run_stages(stages);
    snprintf(stages, sizeof stages, "  - {reader: kineto, path: '${out}/%s'}\n", out);
    tp_run *second = run_stages(stages);
    ck_assert_uint_eq(tp_core_host_api()->trace_cols(tp_run_trace(second))->n, want_n);
    assert_same_trace(first, second);
    tp_run_free(first);
    tp_run_free(second);
}

#define CORPUS "tests/data/kineto/corpus/"

START_TEST(test_round_trip_corpus)
{
    /* event counts: len(traceEvents) by python3's json module */
    round_trip(CORPUS "hta_ns_resolution_rank0.pt.trace.json.gz", "", "ns.json.gz", 68692);
    round_trip(CORPUS "kineto_tbplugin_resnet50_profapi_nw0_2021-01.pt.trace.json.gz", "",
               "resnet.json", 73639);
    round_trip("tests/data/dlrm_worker0_step12.pt.trace.json.gz", "", "dlrm.json", 3290);
    round_trip(CORPUS "tracelens_h100_bert_small.json.gz", "", "bert.json.gz", 2551);
    round_trip(CORPUS "hta_inference_rank1_small.json.gz", "", "inf.json", 54);
    round_trip("tests/data/filters/chrome.json", "", "hand.json", 11);
}
END_TEST

START_TEST(test_round_trip_trimmed)
{
    /* 24067: tests/plugins/filters_reference.py (CORPUS_RESNET_TRIM_SKIP1_KEEP2;
     * 24581 before the trim_iterations review fixes) */
    round_trip(CORPUS "kineto_tbplugin_resnet50_profapi_nw0_2021-01.pt.trace.json.gz",
               "  - {filter: trim_iterations, skip: 1, iterations: 2}\n", "trim.json.gz", 24067);
}
END_TEST

static Suite *chrome_trace_suite(void)
{
    Suite *s = suite_create("chrome_trace");
    TCase *tc = tcase_create("output");
    tcase_add_checked_fixture(tc, ct_setup, ct_teardown);
    tcase_add_test(tc, test_exact_text);
    tcase_add_test(tc, test_gzip_by_extension);
    tcase_add_test(tc, test_async_ids_and_empty_ids);
    tcase_add_test(tc, test_unwritable_path);
    suite_add_tcase(s, tc);
    tc = tcase_create("round_trip");
    tcase_add_checked_fixture(tc, ct_setup, ct_teardown);
    tcase_add_test(tc, test_round_trip_corpus);
    tcase_add_test(tc, test_round_trip_trimmed);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return s;
}

TP_TEST_SUITE(chrome_trace_suite)
