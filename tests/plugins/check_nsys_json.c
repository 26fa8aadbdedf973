/*
 * reader `nsys_json`: the line scanner (issue 31) and jansson, which reads
 * the lines the scanner does not take, give the same events.  Each test
 * writes one export twice: as plain lines the scanner takes, and with a
 * field it leaves to jansson (an escape, a non-ASCII byte, a real) on
 * every line; both must give the values worked out by hand below.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tp_test.h"

static const tp_host_api *api(void) { return tp_core_host_api(); }

/* The export: strings, an API call, a kernel whose keys come in an order
 * the reader does not ask them in, startNs given twice (the last wins, as
 * in jansson), numbers quoted and bare.  extra is added to each event. */
static void write_export(const char *path, const char *extra)
{
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "{\"type\":\"String\",\"id\":\"1\",\"value\":\"kern_a\"}\n");
    fprintf(f, "{\"type\":\"String\",\"id\":\"2\",\"value\":\"cudaLaunchKernel_v7000\"}\n");
    fprintf(f, "{\"Type\":48,\"TraceProcessEvent\":{\"startNs\":\"100\",\"endNs\":\"150\","
               "\"correlationId\":7,\"eventClass\":0,\"name\":\"2\",\"globalTid\":\"16777217\"%s}}\n",
            extra);
    fprintf(f, "{\"Type\":79,\"CudaEvent\":{\"kernel\":{\"gridX\":4,\"shortName\":\"1\","
               "\"demangledName\":\"1\"},\"globalPid\":\"16777216\",\"streamId\":\"7\","
               "\"deviceId\":0,\"correlationId\":7,\"endNs\":\"400\",\"startNs\":\"200\","
               "\"startNs\":\"300\",\"contextId\":\"1\"%s}}\n",
            extra);
    fclose(f);
}

static void check_export(const char *extra)
{
    char path[] = "/tmp/tp_nsys_json_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    write_export(path, extra);
    char yaml[512];
    snprintf(yaml, sizeof yaml, "name: nsys_json_test\nstages:\n  - reader: nsys_json\n    path: '%s'\n",
             path);
    tp_run *run = tp_test_run_yaml(yaml);
    const tp_trace *t = tp_run_trace(run);
    const tp_cols *c = api()->trace_cols(t);
    ck_assert_uint_eq(c->n, 2);
    size_t api_row = c->kind[0] == TP_KIND_RUNTIME ? 0 : 1, k = 1 - api_row;
    /* the call: 100..150 ns, its _v7000 stripped, pid 1 tid 1 (globalTid 2^24 + 1) */
    ck_assert_int_eq(c->kind[api_row], TP_KIND_RUNTIME);
    ck_assert_int_eq(c->ts[api_row], 100);
    ck_assert_int_eq(c->dur[api_row], 50);
    ck_assert_str_eq(tp_run_str(run, c->name[api_row]), "cudaLaunchKernel");
    ck_assert_int_eq(tp_ev_corr(c, api_row), 7);
    ck_assert_int_eq(c->tracks[c->track[api_row]].tid, 1);
    /* the kernel: the second startNs (300) to 400, stream 7, named by string 1 */
    ck_assert_int_eq(c->kind[k], TP_KIND_KERNEL);
    ck_assert_int_eq(c->ts[k], 300);
    ck_assert_int_eq(c->dur[k], 100);
    ck_assert_str_eq(tp_run_str(run, c->name[k]), "kern_a");
    ck_assert_int_eq(tp_ev_corr(c, k), 7);
    ck_assert_int_eq(c->tracks[c->track[k]].tid, 7);
    int grid = api()->trace_ext_find(t, "kernel.grid_x");
    ck_assert_int_ge(grid, 0);
    ck_assert_int_eq(((const int64_t *)api()->trace_ext_data(t, grid))[k], 4);
    ck_assert_int_eq(((const int64_t *)api()->trace_ext_data(t, grid))[api_row], TP_EXT_NULL_I64);
    tp_run_free(run);
    unlink(path);
}

START_TEST(scanned_lines)
{
    check_export("");
}
END_TEST

START_TEST(jansson_lines)
{
    check_export(",\"note\":\"a\\u00e9\\\"b\"");          /* an escape */
    check_export(",\"note\":\"\xc3\xa9\"");               /* a byte >= 0x80 */
    check_export(",\"weight\":1.5,\"big\":[1e300,-0.5]"); /* reals */
}
END_TEST

/* A kernel named by string 1, value as written in the export (JSON text
 * between the quotes): its name must be want. */
static void check_kernel_name(const char *value, const char *want)
{
    char path[] = "/tmp/tp_nsys_json_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    FILE *f = fdopen(fd, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "{\"type\":\"String\",\"id\":\"1\",\"value\":\"%s\"}\n", value);
    fprintf(f, "{\"Type\":79,\"CudaEvent\":{\"startNs\":\"200\",\"endNs\":\"400\",\"deviceId\":0,"
               "\"streamId\":\"7\",\"globalPid\":\"16777216\",\"kernel\":{\"shortName\":\"1\"}}}\n");
    fclose(f);
    char yaml[512];
    snprintf(yaml, sizeof yaml, "name: nsys_json_test\nstages:\n  - reader: nsys_json\n    path: '%s'\n",
             path);
    tp_run *run = tp_test_run_yaml(yaml);
    const tp_cols *c = api()->trace_cols(tp_run_trace(run));
    ck_assert_uint_eq(c->n, 1);
    ck_assert_str_eq(tp_run_str(run, c->name[0]), want);
    tp_run_free(run);
    unlink(path);
}

/* The scanner finds a string's end 8 bytes at a time: a quote, a
 * backslash (an escape: jansson's line) or the end at every offset of the
 * 8-byte window, after bytes that borrow in the test ('!' = 0x21, just
 * above the control bytes; '"' + 1; '\\' + 1). */
START_TEST(string_ends_at_every_offset)
{
    static const char fill[] = "!#]!#]!#]!#]!#]!#]!#]";
    char value[64], want[64];
    for (int k = 0; k <= 17; k++) {
        snprintf(value, sizeof value, "%.*s", k, fill);
        check_kernel_name(value, value);                  /* plain: scanned */
        snprintf(value, sizeof value, "%.*s\\u0041z", k, fill);
        snprintf(want, sizeof want, "%.*sAz", k, fill);
        check_kernel_name(value, want);                   /* an escape at offset k */
        snprintf(value, sizeof value, "%.*s\xc3\xa9", k, fill);
        check_kernel_name(value, value);                  /* a byte >= 0x80 at offset k */
    }
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("nsys_json");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, scanned_lines);
    tcase_add_test(tc, jansson_lines);
    tcase_add_test(tc, string_ends_at_every_offset);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(suite)
