/*
 * A batch's hand-off of a parsed trace (issue 31, core/tp_trace_handoff.c):
 * a trace written and loaded back into a fresh pool is the same trace,
 * byte for byte (columns, the pool's texts and ids, tracks, wide ids, args,
 * metadata, info, extension columns), for a plain Kineto trace (args left
 * in the file), a gzip one (args in the reader's own file, copied), an
 * nsys export (extension columns) and a hand-made trace with textual pids,
 * tids and flow ids and ids past int32.  Loaded into a pool already holding
 * other texts, every text is remapped.  A touched source, another reader
 * key, a truncated or damaged file are refused, never a crash.
 */
#include "tp_handoff.h"
#include "tp_internal.h"
#include "tp_test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY 0x1234u

/* The registry lives as long as the test process: runs borrow from it. */
static tp_ctx *registry(void)
{
    static tp_ctx *ctx;
    if (ctx == NULL)
        ctx = tp_test_ctx();
    return ctx;
}

static tp_run *read_trace(const char *reader, const char *path)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml, "stages:\n  - reader: %s\n    path: %s\n", reader, path);
    tp_diags d = {0};
    tp_pipeline *p = tp_pipeline_load_string(registry(), yaml, strlen(yaml), "t.yaml", NULL, 0,
                                             &d);
    ck_assert_msg(p != NULL, "%s", d.n ? d.lines[0] : "");
    tp_run *run = NULL;
    tp_run_opts o = {0};
    ck_assert_msg(tp_pipeline_run(p, &o, &run) == TP_OK, "%s", run ? tp_run_error(run) : "");
    tp_pipeline_free(p);
    return run;
}

static void temp_path(char *buf, size_t size)
{
    snprintf(buf, size, "/tmp/tp_handoff_XXXXXX");
    int fd = mkstemp(buf);
    ck_assert_int_ge(fd, 0);
    close(fd);
}

static void write_ok(const tp_run *run, const char *input, const char *path)
{
    char why[1024] = "";
    ck_assert_msg(tp_handoff_write(tp_run_trace(run), run->pool, KEY, input, path, why,
                                   sizeof why) == TP_OK, "%s", why);
}

static tp_trace *load(const char *path, tp_strpool *pool, uint64_t key, const char *input,
                      char *why, size_t size)
{
    tp_trace *t = NULL;
    int rc = tp_handoff_load(path, pool, key, input, &t, why, size);
    ck_assert(rc == TP_OK ? t != NULL : t == NULL);
    return t;
}

#define SAME_ARRAY(a, b, n) ck_assert((n) == 0 || memcmp((a), (b), (n) * sizeof *(a)) == 0)

static void same_columns(const tp_cols *a, const tp_cols *b)
{
    ck_assert_uint_eq(a->n, b->n);
    SAME_ARRAY(a->ts, b->ts, a->n);
    SAME_ARRAY(a->dur, b->dur, a->n);
    SAME_ARRAY(a->track, b->track, a->n);
    SAME_ARRAY(a->kind, b->kind, a->n);
    SAME_ARRAY(a->phase, b->phase, a->n);
    SAME_ARRAY(a->ext_id32, b->ext_id32, a->n);
    SAME_ARRAY(a->corr32, b->corr32, a->n);
    SAME_ARRAY(a->flow_id32, b->flow_id32, a->n);
    ck_assert_uint_eq(a->n_tracks, b->n_tracks);
    ck_assert_uint_eq(a->n_wide_ids, b->n_wide_ids);
}

/* Every part of u (over pool q) as t (over pool p); same_ids: a fresh q
 * must give every text the id p gave it. */
static void same_trace(const tp_trace *t, const tp_strpool *p, const tp_trace *u,
                       const tp_strpool *q, bool same_ids)
{
    const tp_cols *a = tp_trace_columns(t), *b = tp_trace_columns(u);
    same_columns(a, b);
    for (size_t i = 0; i < a->n; i++) {
        ck_assert_str_eq(tp_strpool_text(p, a->name[i]), tp_strpool_text(q, b->name[i]));
        ck_assert_str_eq(tp_strpool_text(p, a->cat[i]), tp_strpool_text(q, b->cat[i]));
        ck_assert(!same_ids || (a->name[i] == b->name[i] && a->cat[i] == b->cat[i]));
        int64_t fa = tp_ev_flow_id(a, i), fb = tp_ev_flow_id(b, i);
        ck_assert_int_eq(TP_ID_IS_STR(fa), TP_ID_IS_STR(fb));
        if (TP_ID_IS_STR(fa))
            ck_assert_str_eq(tp_strpool_text(p, TP_ID_STR(fa)), tp_strpool_text(q, TP_ID_STR(fb)));
        else
            ck_assert_int_eq(fa, fb);
        ck_assert_int_eq(tp_ev_ext_id(a, i), tp_ev_ext_id(b, i));
        ck_assert_int_eq(tp_ev_corr(a, i), tp_ev_corr(b, i));
        size_t la = 0, lb = 0;
        const char *xa = tp_trace_args_text(t, i, &la), *xb = tp_trace_args_text(u, i, &lb);
        ck_assert_uint_eq(la, lb);
        ck_assert(la == 0 || memcmp(xa, xb, la) == 0);
    }
    for (size_t k = 0; k < a->n_tracks; k++) {
        tp_track x = a->tracks[k], y = b->tracks[k];
        ck_assert_int_eq(x.device, y.device);
        ck_assert_int_eq(x.stream, y.stream);
        ck_assert_int_eq(TP_ID_IS_STR(x.pid), TP_ID_IS_STR(y.pid));
        ck_assert_int_eq(TP_ID_IS_STR(x.tid), TP_ID_IS_STR(y.tid));
        if (TP_ID_IS_STR(x.tid))
            ck_assert_str_eq(tp_strpool_text(p, TP_ID_STR(x.tid)), tp_strpool_text(q, TP_ID_STR(y.tid)));
        ck_assert(!same_ids || (x.pid == y.pid && x.tid == y.tid));
    }
    ck_assert_str_eq(tp_trace_source_path(t), tp_trace_source_path(u));
    ck_assert_uint_eq(tp_trace_meta_n(t), tp_trace_meta_n(u));
    for (size_t k = 0; k < tp_trace_meta_n(t); k++) {
        const char *key = tp_trace_meta_key_at(t, k);
        ck_assert_str_eq(key, tp_trace_meta_key_at(u, k));
        ck_assert_str_eq(tp_trace_meta_get(t, key), tp_trace_meta_get(u, key));
    }
    const tp_info *ia = tp_trace_info_of(t), *ib = tp_trace_info_of(u);
    ck_assert_uint_eq(tp_info_count(ia), tp_info_count(ib));
    for (size_t k = 0; k < tp_info_count(ia); k++) {
        const char *key = tp_info_key(ia, k);
        ck_assert_str_eq(key, tp_info_key(ib, k));
        ck_assert_int_eq(tp_info_type(ia, key), tp_info_type(ib, key));
        double fa = 0, fb = 0;
        tp_info_f64(ia, key, &fa);
        tp_info_f64(ib, key, &fb);
        ck_assert(fa == fb);
        const char *sa = tp_info_str(ia, key), *sb = tp_info_str(ib, key);
        ck_assert(sa == NULL ? sb == NULL : strcmp(sa, sb) == 0);
    }
    const tp_extcols *ea = tp_trace_ext_of(t), *eb = tp_trace_ext_of(u);
    ck_assert_uint_eq(tp_ext_count(ea), tp_ext_count(eb));
    for (int k = 0; k < (int)tp_ext_count(ea); k++) {
        ck_assert_str_eq(tp_ext_name(ea, k), tp_ext_name(eb, k));
        tp_coltype type = tp_ext_type(ea, k);
        ck_assert_int_eq(type, tp_ext_type(eb, k));
        for (size_t i = 0; i < a->n; i++) {
            int64_t ca = 0, cb = 0;
            tp_ext_get(ea, k, i, &ca);
            tp_ext_get(eb, k, i, &cb);
            if (type == TP_COL_SID)
                ck_assert_str_eq(tp_strpool_text(p, (tp_str)ca), tp_strpool_text(q, (tp_str)cb));
            else
                ck_assert(memcmp(&ca, &cb, sizeof ca) == 0);
        }
    }
    if (same_ids) {
        ck_assert_uint_eq(tp_strpool_count(p), tp_strpool_count(q));
        for (tp_str s = 1; s < tp_strpool_count(p); s++)
            ck_assert_str_eq(tp_strpool_text(p, s), tp_strpool_text(q, s));
    }
}

/* Written, loaded into a fresh pool (the same ids) and into one holding
 * other texts first (remapped): the same trace both times. */
static void round_trip(const char *reader, const char *path)
{
    tp_run *run = read_trace(reader, path);
    char file[64], why[1024] = "";
    temp_path(file, sizeof file);
    write_ok(run, path, file);
    tp_strpool *fresh = tp_strpool_new(), *used = tp_strpool_new();
    ck_assert_uint_gt(tp_strpool_intern(used, "not in the trace", 16), 0);
    ck_assert_uint_gt(tp_strpool_intern(used, "cpu_op", 6), 0);
    tp_trace *u = load(file, fresh, KEY, path, why, sizeof why);
    ck_assert_msg(u != NULL, "%s: %s", path, why);
    same_trace(tp_run_trace(run), run->pool, u, fresh, true);
    tp_trace *v = load(file, used, KEY, path, why, sizeof why);
    ck_assert_msg(v != NULL, "%s: %s", path, why);
    same_trace(tp_run_trace(run), run->pool, v, used, false);
    tp_trace_free(u);
    tp_trace_free(v);
    tp_strpool_free(fresh);
    tp_strpool_free(used);
    tp_run_free(run);
    unlink(file);
}

START_TEST(a_plain_kineto_trace_round_trips)
{
    round_trip("kineto", "tests/data/hand/hier_basic.json");
}
END_TEST

START_TEST(a_gzip_trace_with_args_round_trips)
{
    round_trip("kineto", "tests/data/dlrm_worker0_step12.pt.trace.json.gz");
}
END_TEST

START_TEST(an_nsys_export_with_extension_columns_round_trips)
{
    round_trip("nsys", "tests/data/nsys/pipit_saxpy_mpi_cuda_perlmutter0.sqlite");
}
END_TEST

START_TEST(textual_ids_and_wide_ids_round_trip)
{
    round_trip("kineto", "tests/data/hand/handoff_text_ids.json");
}
END_TEST

/* A copy of src to write a hand-off of, then change. */
static tp_run *read_copy(const char *src, char *copy, size_t size)
{
    snprintf(copy, size, "/tmp/tp_handoff_src_XXXXXX.json");
    int fd = mkstemps(copy, 5);
    ck_assert_int_ge(fd, 0);
    FILE *in = fopen(src, "rb");
    char buf[4096];
    size_t n;
    while (in && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ck_assert_int_eq(write(fd, buf, n), (ssize_t)n);
    if (in)
        fclose(in);
    close(fd);
    return read_trace("kineto", copy);
}

START_TEST(a_touched_source_or_another_key_is_refused)
{
    char copy[64], file[64], why[1024] = "";
    tp_run *run = read_copy("tests/data/hand/hier_basic.json", copy, sizeof copy);
    temp_path(file, sizeof file);
    write_ok(run, copy, file);
    tp_strpool *pool = tp_strpool_new();
    ck_assert_ptr_null(load(file, pool, KEY + 1, copy, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "another reader or options"));
    ck_assert_ptr_null(load(file, pool, KEY, "tests/data/hand/hier_basic.json", why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "another trace file"));
    ck_assert_uint_eq(tp_strpool_count(pool), 1); /* nothing interned */
    struct timespec old[2] = {{1000000000, 0}, {1000000000, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, copy, old, 0), 0);
    ck_assert_ptr_null(load(file, pool, KEY, copy, why, sizeof why));
    ck_assert_ptr_nonnull(strstr(why, "changed since its process read it"));
    ck_assert_uint_eq(tp_strpool_count(pool), 1);
    tp_strpool_free(pool);
    tp_run_free(run);
    unlink(file);
    unlink(copy);
}
END_TEST

/* The file cut to len bytes, or byte at flipped. */
static void damage(const char *file, off_t len, off_t at)
{
    if (len >= 0)
        ck_assert_int_eq(truncate(file, len), 0);
    if (at >= 0) {
        int fd = open(file, O_RDWR);
        unsigned char c = 0;
        ck_assert_int_eq(pread(fd, &c, 1, at), 1);
        c ^= 0x5a;
        ck_assert_int_eq(pwrite(fd, &c, 1, at), 1);
        close(fd);
    }
}

START_TEST(a_truncated_or_damaged_file_is_refused)
{
#define DLRM0 "tests/data/dlrm_worker0_step12.pt.trace.json.gz"
    tp_run *run = read_trace("kineto", DLRM0);
    char file[64], why[1024] = "";
    temp_path(file, sizeof file);
    struct stat sb;
    write_ok(run, DLRM0, file);
    ck_assert_int_eq(stat(file, &sb), 0);
    /* cut anywhere, or any byte changed: refused, nothing interned */
    const off_t cuts[] = {0, 7, 8, 40, sb.st_size / 3, sb.st_size / 2, sb.st_size - 9, sb.st_size - 1};
    for (size_t k = 0; k < sizeof cuts / sizeof *cuts; k++) {
        write_ok(run, DLRM0, file);
        damage(file, cuts[k], -1);
        tp_strpool *pool = tp_strpool_new();
        ck_assert_ptr_null(load(file, pool, KEY, DLRM0, why, sizeof why));
        ck_assert_uint_eq(tp_strpool_count(pool), 1);
        tp_strpool_free(pool);
    }
    for (off_t at = 0; at < sb.st_size; at += sb.st_size / 97 + 1) {
        write_ok(run, DLRM0, file);
        damage(file, -1, at);
        tp_strpool *pool = tp_strpool_new();
        ck_assert_ptr_null(load(file, pool, KEY, DLRM0, why, sizeof why));
        ck_assert_uint_eq(tp_strpool_count(pool), 1);
        tp_strpool_free(pool);
    }
    tp_run_free(run);
    unlink(file);
}
END_TEST

static Suite *handoff_suite(void)
{
    Suite *s = suite_create("handoff");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, a_plain_kineto_trace_round_trips);
    tcase_add_test(tc, a_gzip_trace_with_args_round_trips);
    tcase_add_test(tc, an_nsys_export_with_extension_columns_round_trips);
    tcase_add_test(tc, textual_ids_and_wide_ids_round_trip);
    tcase_add_test(tc, a_touched_source_or_another_key_is_refused);
    tcase_add_test(tc, a_truncated_or_damaged_file_is_refused);
    suite_add_tcase(s, tc);
    return s;
}

TP_TEST_SUITE(handoff_suite)
