/*
 * reader `nsys` (SQLite): the integer tables decoded on a second thread
 * (issue 31) give the trace the in-line decoding gives, row for row, and
 * the API calls' args texts, kept in a temporary file, read back as made.
 *
 * The export: the corpus saxpy export with 5000 launches appended by
 * tests/tools/gen_nsys.py (seed 1), so the runtime and kernel tables span
 * many blocks (1024 rows) and more than the four blocks in flight.  Its
 * figures, from sqlite3 on the file: 5095 runtime rows of which 38 are
 * backtrace copies (class 67, dropped), 5005 kernels, 15 copies; the
 * appended kernels (bench_kernel_00 .. 47) last 229382482 ns in all
 * (SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds
 * s ON s.id = k.shortName WHERE s.value LIKE 'bench_kernel_%'); the last
 * runtime row is cudaLaunchKernel_v7000 returning 0.  Its args texts (~0.25
 * MB) stay in memory below the reader's 32 MiB: read with the test's
 * threshold at 0 (every text in the temporary file) and at 100 000 bytes
 * (the first rows' texts in memory, the rest in the file), then with no
 * temporary file to be had, the args give the same texts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tp_host.h"
#include "tp_test.h"

static const tp_host_api *api(void) { return tp_core_host_api(); }

static char dir[64], db[128];

static void make_export(void)
{
    snprintf(dir, sizeof dir, "/tmp/tp_nsys_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    snprintf(db, sizeof db, "%s/g.sqlite", dir);
    char cmd[512];
    snprintf(cmd, sizeof cmd, "python3 tests/tools/gen_nsys.py "
             "tests/data/nsys/pipit_saxpy_mpi_cuda_perlmutter0.sqlite '%s' --launches 5000", db);
    ck_assert_int_eq(system(cmd), 0);
}

static void remove_export(void)
{
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* The export read with the stage allowed `threads` threads and args texts
 * in memory up to `in_memory` bytes (TP_TEST_NSYS_ARGS_IN_MEMORY). */
static tp_run *read_args(int threads, const char *in_memory)
{
    setenv("TP_TEST_NSYS_ARGS_IN_MEMORY", in_memory, 1);
    char yaml[512];
    snprintf(yaml, sizeof yaml, "name: nsys_test\nstages:\n  - reader: nsys\n    path: '%s'\n", db);
    tp_host_set_threads(threads);
    tp_run *run = tp_test_run_yaml(yaml);
    tp_host_set_threads(0);
    unsetenv("TP_TEST_NSYS_ARGS_IN_MEMORY");
    return run;
}

/* The export read with the stage allowed `threads` threads. */
static tp_run *read_with(int threads)
{
    char yaml[512];
    snprintf(yaml, sizeof yaml, "name: nsys_test\nstages:\n  - reader: nsys\n    path: '%s'\n", db);
    tp_host_set_threads(threads);
    tp_run *run = tp_test_run_yaml(yaml);
    tp_host_set_threads(0);
    return run;
}

static const char *text(tp_run *run, tp_str id)
{
    const char *s = tp_run_str(run, id);
    return s ? s : "";
}

/* Row i of a and b: the same event, args and extension cells. */
static void same_row(tp_run *ra, tp_run *rb, size_t i)
{
    const tp_trace *a = tp_run_trace(ra), *b = tp_run_trace(rb);
    const tp_cols *x = api()->trace_cols(a), *y = api()->trace_cols(b);
    ck_assert_int_eq(x->ts[i], y->ts[i]);
    ck_assert_int_eq(x->dur[i], y->dur[i]);
    ck_assert_int_eq(x->kind[i], y->kind[i]);
    ck_assert_str_eq(text(ra, x->name[i]), text(rb, y->name[i]));
    ck_assert_str_eq(text(ra, x->cat[i]), text(rb, y->cat[i]));
    ck_assert_int_eq(tp_ev_corr(x, i), tp_ev_corr(y, i));
    const tp_track *s = tp_ev_track(x, i), *t = tp_ev_track(y, i);
    ck_assert(s->pid == t->pid && s->tid == t->tid && s->device == t->device &&
              s->stream == t->stream && s->context == t->context);
    size_t la = 0, lb = 0;
    const char *pa = api()->trace_args(a, i, &la), *pb = api()->trace_args(b, i, &lb);
    ck_assert_uint_eq(la, lb);
    ck_assert(la == 0 || memcmp(pa, pb, la) == 0);
    for (int c = 0; c < (int)api()->trace_ext_count(a); c++) {
        const int64_t *ea = api()->trace_ext_data(a, c), *eb = api()->trace_ext_data(b, c);
        ck_assert_int_eq(ea[i], eb[i]);
    }
}

START_TEST(second_thread_same_trace)
{
    make_export();
    tp_run *one = read_args(1, "0"), *two = read_args(2, "0");
    const tp_cols *c = api()->trace_cols(tp_run_trace(two));
    ck_assert_uint_eq(c->n, api()->trace_cols(tp_run_trace(one))->n);
    ck_assert_uint_eq(api()->trace_ext_count(tp_run_trace(one)),
                     api()->trace_ext_count(tp_run_trace(two)));
    size_t runtime = 0, kernels = 0, copies = 0, last_call = c->n;
    int64_t bench_ns = 0;
    for (size_t i = 0; i < c->n; i++) {
        same_row(one, two, i);
        runtime += c->kind[i] == TP_KIND_RUNTIME;
        copies += c->kind[i] == TP_KIND_MEMCPY;
        if (c->kind[i] == TP_KIND_RUNTIME)
            last_call = i;
        if (c->kind[i] == TP_KIND_KERNEL) {
            kernels++;
            if (strncmp(text(two, c->name[i]), "bench_kernel_", 13) == 0)
                bench_ns += c->dur[i];
        }
    }
    ck_assert_uint_eq(runtime, 5095 - 38);
    ck_assert_uint_eq(kernels, 5005);
    ck_assert_uint_eq(copies, 15);
    ck_assert_int_eq(bench_ns, 229382482);
    ck_assert_uint_lt(last_call, c->n);
    ck_assert_str_eq(text(two, c->name[last_call]), "cudaLaunchKernel");
    size_t len = 0;
    const char *args = api()->trace_args(tp_run_trace(two), last_call, &len);
    static const char want[] = "{\"name\": \"cudaLaunchKernel_v7000\", \"returnValue\": 0}";
    ck_assert_uint_eq(len, sizeof want - 1);
    ck_assert(memcmp(args, want, len) == 0);
    /* the first texts in memory, the rest in the file; all in memory */
    tp_run *mixed = read_args(2, "100000"), *small = read_with(2);
    /* no temporary file can be made (TMPDIR missing): the args stay in
     * memory, the same texts */
    const char *tmpdir = getenv("TMPDIR");
    char *saved = tmpdir ? strdup(tmpdir) : NULL;
    setenv("TMPDIR", "/nonexistent/tp_nsys_tmp", 1);
    tp_run *kept = read_args(2, "0");
    if (saved) {
        setenv("TMPDIR", saved, 1);
        free(saved);
    } else
        unsetenv("TMPDIR");
    ck_assert_uint_eq(api()->trace_cols(tp_run_trace(kept))->n, c->n);
    ck_assert_uint_eq(api()->trace_cols(tp_run_trace(mixed))->n, c->n);
    ck_assert_uint_eq(api()->trace_cols(tp_run_trace(small))->n, c->n);
    for (size_t i = 0; i < c->n; i++) {
        same_row(kept, two, i);
        same_row(mixed, two, i);
        same_row(small, two, i);
    }
    tp_run_free(kept);
    tp_run_free(mixed);
    tp_run_free(small);
    tp_run_free(one);
    tp_run_free(two);
    remove_export();
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("nsys");
    TCase *tc = tcase_create("second_thread");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, second_thread_same_trace);
    suite_add_tcase(s, tc);
    return s;
}

TP_TEST_SUITE(suite)
