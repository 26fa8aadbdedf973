/* Traces (columns, args, metadata, attachments, filtering) and result tables. */
#include "tp_internal.h"
#include "tp_test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static tp_event ev(int64_t ts, int64_t dur, tp_str name, const char *args)
{
    tp_event e = {.ts = ts, .dur = dur, .name = name, .pid = 1, .tid = 2,
                  .kind = TP_KIND_CPU_OP, .phase = 'X', .ext_id = TP_NONE, .corr = TP_NONE,
                  .flow_id = TP_NONE, .device = -1, .stream = -1,
                  .args = args, .args_len = args ? strlen(args) : 0};
    return e;
}

START_TEST(trace_columns_and_args)
{
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = tp_trace_new(pool);
    tp_str mm = tp_strpool_intern(pool, "aten::mm", 8);
    for (int i = 0; i < 5000; i++) {
        tp_event e = ev(i * 1000, 500, mm, i % 2 ? "{\"External id\": 7}" : NULL);
        ck_assert_int_eq(tp_trace_push(t, &e), TP_OK);
    }
    const tp_cols *c = tp_trace_columns(t);
    ck_assert_uint_eq(c->n, 5000);
    ck_assert_int_eq(c->ts[4999], 4999000);
    ck_assert_int_eq(c->dur[17], 500);
    ck_assert_uint_eq(c->name[42], mm);
    size_t len = 0;
    ck_assert_ptr_null(tp_trace_args_text(t, 0, &len));
    const char *a = tp_trace_args_text(t, 3, &len);
    ck_assert_uint_eq(len, 18);
    ck_assert(strncmp(a, "{\"External id\": 7}", len) == 0);
    size_t vlen;
    const char *v = tp_json_get(a, len, "External id", &vlen);
    ck_assert(v && vlen == 1 && v[0] == '7');
    tp_trace_free(t);
    tp_strpool_free(pool);
}
END_TEST

/* Every distinct (pid, tid, device, stream) is stored once; rows keep its
 * index, in order of first use, and a filtered trace keeps the places. */
START_TEST(trace_tracks)
{
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = tp_trace_new(pool);
    const int64_t pids[] = {7, 7, 7, 9, 7, 7, TP_ID_FROM_STR(3), 7};
    const int64_t tids[] = {1, 1, 2, 1, 1, INT64_C(140000000000000), 5, 1};
    const int32_t devs[] = {-1, -1, -1, -1, 0, -1, -1, -1};
    const int32_t strs[] = {-1, -1, -1, -1, 7, -1, -1, -1};
    const uint32_t want[] = {0, 0, 1, 2, 3, 4, 5, 0};
    for (int i = 0; i < 8; i++) {
        tp_event e = ev(i, 1, 0, NULL);
        e.pid = pids[i];
        e.tid = tids[i];
        e.device = devs[i];
        e.stream = strs[i];
        ck_assert_int_eq(tp_trace_push(t, &e), TP_OK);
    }
    /* many threads: the index grows past its first size */
    for (int i = 0; i < 1000; i++) {
        tp_event e = ev(100 + i, 1, 0, NULL);
        e.tid = 1000 + i;
        ck_assert_int_eq(tp_trace_push(t, &e), TP_OK);
    }
    const tp_cols *c = tp_trace_columns(t);
    ck_assert_uint_eq(c->n_tracks, 6 + 1000);
    for (size_t i = 0; i < 8; i++) {
        ck_assert_uint_eq(c->track[i], want[i]);
        ck_assert_int_eq(tp_ev_pid(c, i), pids[i]);
        ck_assert_int_eq(tp_ev_tid(c, i), tids[i]);
        ck_assert_int_eq(tp_ev_device(c, i), devs[i]);
        ck_assert_int_eq(tp_ev_stream(c, i), strs[i]);
    }
    ck_assert_int_eq(tp_ev_tid(c, 8 + 999), 1999);
    ck_assert_uint_eq(c->track[8 + 999], 6 + 999);
    uint8_t keep[1008] = {0};
    keep[4] = keep[6] = keep[1007] = 1;
    tp_trace *f = tp_trace_filtered(t, keep);
    const tp_cols *fc = tp_trace_columns(f);
    ck_assert_uint_eq(fc->n, 3);
    ck_assert_uint_eq(fc->n_tracks, 3);
    ck_assert_int_eq(tp_ev_stream(fc, 0), 7);
    ck_assert_int_eq(tp_ev_pid(fc, 1), TP_ID_FROM_STR(3));
    ck_assert_int_eq(tp_ev_tid(fc, 2), 1999);
    tp_trace_free(f);
    tp_trace_free(t);
    tp_strpool_free(pool);
}
END_TEST

/* Ids take 4 bytes; values outside [-1, INT32_MAX] live in the wide table
 * and read back exactly, also after filtering. */
START_TEST(trace_wide_ids)
{
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = tp_trace_new(pool);
    const int64_t ids[][3] = {{7, TP_NONE, TP_NONE},
                              {INT32_MAX, INT64_C(5000000000), -7},
                              {INT64_MAX, INT64_MIN, INT64_C(2147483648)},
                              {0, 1, TP_NONE}};
    for (int i = 0; i < 4; i++) {
        tp_event e = ev(i, 1, 0, NULL);
        e.ext_id = ids[i][0];
        e.corr = ids[i][1];
        e.flow_id = ids[i][2];
        ck_assert_int_eq(tp_trace_push(t, &e), TP_OK);
    }
    const tp_cols *c = tp_trace_columns(t);
    ck_assert_uint_eq(c->n_wide_ids, 5);
    ck_assert_int_eq(c->corr32[0], -1);
    ck_assert(TP_ID32_WIDE(c->corr32[1]));
    for (size_t i = 0; i < 4; i++) {
        ck_assert_int_eq(tp_ev_ext_id(c, i), ids[i][0]);
        ck_assert_int_eq(tp_ev_corr(c, i), ids[i][1]);
        ck_assert_int_eq(tp_ev_flow_id(c, i), ids[i][2]);
    }
    uint8_t keep[4] = {0, 0, 1, 1};
    tp_trace *f = tp_trace_filtered(t, keep);
    const tp_cols *fc = tp_trace_columns(f);
    ck_assert_uint_eq(fc->n_wide_ids, 3);
    ck_assert_int_eq(tp_ev_ext_id(fc, 0), INT64_MAX);
    ck_assert_int_eq(tp_ev_corr(fc, 0), INT64_MIN);
    ck_assert_int_eq(tp_ev_flow_id(fc, 0), INT64_C(2147483648));
    ck_assert_int_eq(tp_ev_corr(fc, 1), 1);
    tp_trace_free(f);
    tp_trace_free(t);
    tp_strpool_free(pool);
}
END_TEST

/* A lazy attachment's filler: cells[i] = i * step (user), counting calls. */
static int lazy_calls, lazy_frees;
static int fill_steps(const tp_trace *t, void *user, void *cells, size_t n)
{
    (void)t;
    lazy_calls++;
    int32_t step = *(const int32_t *)user, *out = cells;
    if (step < 0)
        return TP_ENOMEM;
    for (size_t i = 0; i < n; i++)
        out[i] = (int32_t)i * step;
    return TP_OK;
}
static void free_step(void *user)
{
    lazy_frees++;
    (void)user;
}

START_TEST(trace_lazy_attachment)
{
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = tp_trace_new(pool);
    static int32_t three = 3, bad = -1;
    lazy_calls = lazy_frees = 0;
    size_t before = tp_trace_memory(t), n = 0;
    ck_assert_int_eq(tp_trace_attach_lazy(t, "x.wide", TP_COL_I32, 1000, fill_steps, &three,
                                          free_step), TP_OK);
    ck_assert_uint_eq(tp_trace_memory(t), before); /* nothing held until asked */
    ck_assert_int_eq(lazy_calls, 0);
    bool filled;
    int rc;
    ck_assert_ptr_null(tp_trace_find_lazy(t, "x.wide", TP_COL_I64, &n, &filled, &rc));
    ck_assert_int_eq(lazy_calls, 0); /* the wrong type never fills */
    const int32_t *a = tp_trace_find_lazy(t, "x.wide", TP_COL_I32, &n, &filled, &rc);
    ck_assert(filled);
    ck_assert_int_eq(rc, TP_OK);
    ck_assert_uint_eq(n, 1000);
    ck_assert_int_eq(a[999], 2997);
    ck_assert_int_eq(lazy_frees, 1); /* user let go once filled */
    ck_assert_uint_eq(tp_trace_memory(t), before + 4000);
    ck_assert_ptr_eq(tp_trace_find_lazy(t, "x.wide", TP_COL_I32, &n, &filled, &rc), a);
    ck_assert(!filled);
    ck_assert_int_eq(lazy_calls, 1); /* filled once */
    /* a failing filler: NULL and its code, tried again on the next ask */
    ck_assert_int_eq(tp_trace_attach_lazy(t, "x.bad", TP_COL_I32, 10, fill_steps, &bad,
                                          free_step), TP_OK);
    ck_assert_ptr_null(tp_trace_find_lazy(t, "x.bad", TP_COL_I32, &n, &filled, &rc));
    ck_assert_int_eq(rc, TP_ENOMEM);
    ck_assert(!filled);
    /* replaced by an ordinary attachment: the filler's user is let go */
    int32_t *plain = tp_trace_attach_array(t, "x.bad", TP_COL_I32, 2);
    ck_assert_ptr_nonnull(plain);
    ck_assert_int_eq(lazy_frees, 2);
    ck_assert_ptr_eq(tp_trace_find_array(t, "x.bad", TP_COL_I32, &n), plain);
    /* never asked: user freed with the trace */
    ck_assert_int_eq(tp_trace_attach_lazy(t, "x.never", TP_COL_I32, 5, fill_steps, &three,
                                          free_step), TP_OK);
    /* a plain lookup does not fill */
    ck_assert_ptr_null(tp_trace_find_array(t, "x.never", TP_COL_I32, &n));
    ck_assert_int_eq(tp_trace_attach_lazy(t, "x.nofill", TP_COL_I32, 5, NULL, &three,
                                          free_step), TP_EINVAL);
    ck_assert_int_eq(lazy_frees, 3); /* taken even when refused */
    tp_trace_free(t);
    ck_assert_int_eq(lazy_frees, 4);
    ck_assert_int_eq(lazy_calls, 2);
    tp_strpool_free(pool);
}
END_TEST

/* A filler that asks for another lazy attachment (user: its name) and
 * copies it, plus one: the nested fill runs; asking for itself is refused. */
static int nested_rc;
static int fill_from_other(const tp_trace *t, void *user, void *cells, size_t n)
{
    bool filled;
    size_t got = 0;
    const int32_t *src = tp_trace_find_lazy(t, user, TP_COL_I32, &got, &filled, &nested_rc);
    if (src == NULL || got != n)
        return nested_rc != TP_OK ? nested_rc : TP_ERR;
    for (size_t i = 0; i < n; i++)
        ((int32_t *)cells)[i] = src[i] + 1;
    return TP_OK;
}

START_TEST(trace_lazy_attachment_nested)
{
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = tp_trace_new(pool);
    static int32_t two = 2;
    lazy_calls = lazy_frees = 0;
    ck_assert_int_eq(tp_trace_attach_lazy(t, "x.base", TP_COL_I32, 8, fill_steps, &two,
                                          free_step), TP_OK);
    ck_assert_int_eq(tp_trace_attach_lazy(t, "x.derived", TP_COL_I32, 8, fill_from_other,
                                          "x.base", NULL), TP_OK);
    bool filled;
    int rc;
    size_t n = 0;
    const int32_t *d = tp_trace_find_lazy(t, "x.derived", TP_COL_I32, &n, &filled, &rc);
    ck_assert_int_eq(rc, TP_OK);
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(d[7], 15); /* 7 * 2 + 1 */
    ck_assert_int_eq(lazy_calls, 1); /* x.base filled inside, once */
    ck_assert_ptr_nonnull(tp_trace_find_array(t, "x.base", TP_COL_I32, &n));
    /* a filler asking for its own name: refused, not a deadlock */
    ck_assert_int_eq(tp_trace_attach_lazy(t, "x.self", TP_COL_I32, 4, fill_from_other, "x.self",
                                          NULL), TP_OK);
    ck_assert_ptr_null(tp_trace_find_lazy(t, "x.self", TP_COL_I32, &n, &filled, &rc));
    ck_assert_int_eq(rc, TP_EINVAL);
    ck_assert_int_eq(nested_rc, TP_EINVAL);
    tp_trace_free(t);
    tp_strpool_free(pool);
}
END_TEST

START_TEST(trace_meta_attach_filter)
{
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = tp_trace_new(pool);
    for (int i = 0; i < 10; i++) {
        tp_event e = ev(i, 1, 0, "{\"i\": 1}");
        tp_trace_push(t, &e);
    }
    ck_assert_int_eq(tp_trace_meta_set(t, "schemaVersion", "1", 1), TP_OK);
    ck_assert_int_eq(tp_trace_meta_set(t, "schemaVersion", "2", 1), TP_OK);
    ck_assert_str_eq(tp_trace_meta_get(t, "schemaVersion"), "2");
    ck_assert_uint_eq(tp_trace_meta_n(t), 1);
    int64_t *par = tp_trace_attach_array(t, "hierarchy.parent", TP_COL_I64, 10);
    par[3] = 2;
    size_t n;
    const int64_t *got = tp_trace_find_array(t, "hierarchy.parent", TP_COL_I64, &n);
    ck_assert_uint_eq(n, 10);
    ck_assert_int_eq(got[3], 2);
    ck_assert_ptr_null(tp_trace_find_array(t, "hierarchy.parent", TP_COL_F64, &n));
    /* int32 attachments: 4-byte elements, found only under their own type */
    int32_t *depth = tp_trace_attach_array(t, "hierarchy.depth", TP_COL_I32, 10);
    depth[9] = -1;
    depth[8] = INT32_MAX;
    const int32_t *d32 = tp_trace_find_array(t, "hierarchy.depth", TP_COL_I32, &n);
    ck_assert_uint_eq(n, 10);
    ck_assert_int_eq(d32[9], -1);
    ck_assert_int_eq(d32[8], INT32_MAX);
    ck_assert_ptr_null(tp_trace_find_array(t, "hierarchy.depth", TP_COL_I64, &n));
    tp_trace_mark_done(t, "hierarchy");
    ck_assert(tp_trace_is_done(t, "hierarchy"));

    uint8_t keep[10] = {1, 0, 1, 0, 1, 0, 1, 0, 0, 1};
    tp_trace *f = tp_trace_filtered(t, keep);
    const tp_cols *c = tp_trace_columns(f);
    ck_assert_uint_eq(c->n, 5);
    ck_assert_int_eq(c->ts[4], 9);
    ck_assert_str_eq(tp_trace_meta_get(f, "schemaVersion"), "2");
    size_t len = 0;
    const char *args = tp_trace_args_text(f, 2, &len);
    ck_assert_uint_eq(len, 8);
    ck_assert(strncmp(args, "{\"i\": 1}", len) == 0);
    /* attachments describe the old rows: not carried over */
    ck_assert_ptr_null(tp_trace_find_array(f, "hierarchy.parent", TP_COL_I64, &n));
    ck_assert(!tp_trace_is_done(f, "hierarchy"));
    tp_trace_free(f);
    tp_trace_free(t);
    tp_strpool_free(pool);
}
END_TEST

/* ABI 1.1: args text left in the source file is read through a mapping,
 * survives filtering, costs the trace no copy, and a file that shrank
 * gives no args rather than wrong ones. */
START_TEST(trace_args_left_in_file)
{
    char path[] = "/tmp/tp_args_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const char text[] = "xx{\"a\": 1}yy{\"b\": 2}";
    ck_assert_int_eq(write(fd, text, sizeof text - 1), (long)(sizeof text - 1));
    close(fd);
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = tp_trace_new(pool);
    tp_trace_source_set(t, path);
    tp_event e = ev(1, 1, 0, NULL);
    e.args_len = 8;
    ck_assert_int_eq(tp_trace_push_ref(t, &e, 2), TP_OK);
    e.args_len = 8;
    ck_assert_int_eq(tp_trace_push_ref(t, &e, 12), TP_OK);
    e.args_len = 0;
    ck_assert_int_eq(tp_trace_push_ref(t, &e, 0), TP_OK); /* no args */
    size_t before = tp_trace_memory(t), len = 0;
    const char *a = tp_trace_args_text(t, 1, &len);
    ck_assert_uint_eq(len, 8);
    ck_assert(strncmp(a, "{\"b\": 2}", len) == 0);
    ck_assert_ptr_null(tp_trace_args_text(t, 2, &len));
    ck_assert_uint_eq(tp_trace_memory(t), before); /* read from the file, not copied */
    uint8_t keep[3] = {1, 0, 0};
    tp_trace *f = tp_trace_filtered(t, keep);
    a = tp_trace_args_text(f, 0, &len);
    ck_assert(a != NULL && len == 8 && strncmp(a, "{\"a\": 1}", len) == 0);
    ck_assert_ptr_null(tp_trace_source_problem(f));
    ck_assert_int_eq(truncate(path, 5), 0); /* changed under the mapping */
    tp_trace *g = tp_trace_filtered(t, keep);
    char want[200];
    snprintf(want, sizeof want, "%s: the trace changed on disk during the run (was 20 bytes, "
             "now 5): its args cannot be read", path);
    ck_assert_str_eq(tp_trace_source_problem(g), want);
    ck_assert_str_eq(tp_trace_source_problem(t), want); /* one file, one verdict */
    ck_assert_ptr_null(tp_trace_args_text(g, 0, &len));
    ck_assert_uint_eq(len, 0);
    tp_trace_free(g);
    tp_trace_free(f);
    tp_trace_free(t);
    tp_strpool_free(pool);
    unlink(path);
}
END_TEST

/* A trace file of `pages` pages whose args objects sit at the start of
 * the first and of the last page; rows 0 and 1 reference them. */
static tp_trace *trace_over_pages(tp_strpool *pool, char *path, size_t pages)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), size = pages * page;
    char *text = malloc(size);
    memset(text, ' ', size);
    memcpy(text, "{\"a\": 1}", 8);
    memcpy(text + size - page, "{\"z\": 9}", 8);
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, size), (long)size);
    close(fd);
    free(text);
    tp_trace *t = tp_trace_new(pool);
    tp_trace_source_set(t, path);
    tp_event e = ev(1, 1, 0, NULL);
    e.args_len = 8;
    ck_assert_int_eq(tp_trace_push_ref(t, &e, 0), TP_OK);
    ck_assert_int_eq(tp_trace_push_ref(t, &e, size - page), TP_OK);
    return t;
}

/* Renamed or deleted after the read: the file is held, args stay right. */
START_TEST(trace_args_survive_delete)
{
    char path[] = "/tmp/tp_args_XXXXXX";
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = trace_over_pages(pool, path, 2);
    ck_assert_int_eq(unlink(path), 0);
    size_t len = 0;
    const char *a = tp_trace_args_text(t, 1, &len);
    ck_assert(a != NULL && len == 8 && strncmp(a, "{\"z\": 9}", 8) == 0);
    ck_assert_ptr_null(tp_trace_source_problem(t));
    tp_trace_free(t);
    tp_strpool_free(pool);
}
END_TEST

/* Rewritten in place (same size) between the read and the first args
 * read: refused, never args from the new bytes at the old offsets. */
START_TEST(trace_args_refused_after_rewrite)
{
    char path[] = "/tmp/tp_args_XXXXXX";
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = trace_over_pages(pool, path, 2);
    int fd = open(path, O_WRONLY);
    ck_assert_int_eq(pwrite(fd, " {\"a\": 1", 8, 0), 8); /* shifted by one byte */
    struct timespec later[2] = {{0, UTIME_OMIT}, {2000000000, 0}};
    ck_assert_int_eq(futimens(fd, later), 0); /* a new mtime, whatever the clock */
    close(fd);
    size_t len = 1;
    ck_assert_ptr_null(tp_trace_args_text(t, 0, &len));
    ck_assert_uint_eq(len, 0);
    char want[200];
    snprintf(want, sizeof want,
             "%s: the trace changed on disk during the run (modified): its args cannot be read",
             path);
    ck_assert_str_eq(tp_trace_source_problem(t), want);
    tp_trace_free(t);
    tp_strpool_free(pool);
    unlink(path);
}
END_TEST

/* Truncated while mapped: touching a page past the new end would raise
 * SIGBUS and kill the process; it reads zeros and the change is reported. */
START_TEST(trace_args_truncated_under_mapping)
{
    char path[] = "/tmp/tp_args_XXXXXX";
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = trace_over_pages(pool, path, 3);
    size_t len = 0;
    const char *first = tp_trace_args_text(t, 0, &len); /* maps the file */
    ck_assert(first != NULL && strncmp(first, "{\"a\": 1}", 8) == 0);
    const char *last = tp_trace_args_text(t, 1, &len);
    ck_assert_ptr_nonnull(last);
    ck_assert_int_eq(truncate(path, 0), 0);
    volatile char c = last[0]; /* the fault */
    ck_assert_int_eq(c, 0);
    char want[200];
    snprintf(want, sizeof want, "%s: the trace changed on disk during the run (was %ld bytes, "
             "now 0): its args cannot be read", path, 3 * sysconf(_SC_PAGESIZE));
    ck_assert_str_eq(tp_trace_source_problem(t), want);
    ck_assert_ptr_null(tp_trace_args_text(t, 1, &len));
    tp_trace_free(t);
    tp_strpool_free(pool);
    unlink(path);
}
END_TEST

START_TEST(result_table_types_and_nulls)
{
    tp_result *r = tp_result_create("host");
    int name = tp_result_col_add(r, "name", TP_COL_STR);
    int count = tp_result_col_add(r, "count", TP_COL_I64);
    int time = tp_result_col_add(r, "time_us", TP_COL_F64);
    ck_assert_int_eq(name, 0);
    ck_assert_int_eq(time, 2);
    ck_assert_int_eq(tp_result_col_add(r, "name", TP_COL_STR), TP_EINVAL); /* duplicate */
    for (int i = 0; i < 100; i++) {
        size_t row;
        ck_assert_int_eq(tp_result_row_add(r, &row), TP_OK);
        ck_assert_uint_eq(row, (size_t)i);
        if (i % 3 == 0)
            tp_result_put_str(r, row, name, "aten::mm");
        tp_result_put_i64(r, row, count, i);
    }
    /* a column added later reads as null in existing rows */
    int late = tp_result_col_add(r, "late", TP_COL_F64);
    ck_assert(tp_result_null(r, 50, late));
    tp_result_put_f64(r, 99, time, 1.5);
    ck_assert_uint_eq(tp_result_nrows(r), 100);
    ck_assert_str_eq(tp_result_str(r, 99, name), "aten::mm");
    ck_assert_ptr_null(tp_result_str(r, 98, name));
    ck_assert(tp_result_null(r, 98, name));
    ck_assert_int_eq(tp_result_i64(r, 98, count), 98);
    ck_assert_double_eq(tp_result_f64(r, 99, time), 1.5);
    ck_assert_double_eq(tp_result_f64(r, 98, count), 98.0); /* ints read as doubles */
    ck_assert_int_eq(tp_result_put_i64(r, 1, time, 3), TP_EINVAL); /* wrong type */
    ck_assert_int_eq(tp_result_put_i64(r, 100, count, 3), TP_EINVAL); /* no such row */
    tp_result_meta_put(r, "kind", "tree");
    ck_assert_str_eq(tp_result_meta_get(r, "kind"), "tree");
    ck_assert_ptr_null(tp_result_meta_get(r, "title"));
    ck_assert_int_eq(tp_result_colfind(r, "count"), 1);
    ck_assert_int_eq(tp_result_colfind(r, "nope"), -1);
    tp_result_destroy(r);
}
END_TEST

START_TEST(json_find_skips_nested_values)
{
    const char *j = "{ \"a\": {\"b\": [1, {\"c\": \"}\"}]}, \"s\": \"x\\\"y\", \"n\": -12.5e3 }";
    size_t len = strlen(j), vl;
    const char *v = tp_json_get(j, len, "n", &vl);
    ck_assert(v != NULL);
    ck_assert_int_eq((int)vl, 7);
    ck_assert(strncmp(v, "-12.5e3", vl) == 0);
    v = tp_json_get(j, len, "s", &vl);
    ck_assert(strncmp(v, "\"x\\\"y\"", vl) == 0);
    v = tp_json_get(j, len, "a", &vl);
    ck_assert(strncmp(v, "{\"b\": [1, {\"c\": \"}\"}]}", vl) == 0);
    ck_assert_ptr_null(tp_json_get(j, len, "c", &vl)); /* nested keys are not top level */
    ck_assert_ptr_null(tp_json_get("[1]", 3, "a", &vl));
    ck_assert_ptr_null(tp_json_get("{\"a\": ", 6, "b", &vl));
}
END_TEST

/* A key written twice: the last value, as the kineto reader takes it. */
START_TEST(json_find_duplicate_key_takes_last)
{
    const char *j = "{\"k\": 1, \"x\": {\"k\": 9}, \"k\": \"two\" , \"z\": 0}";
    size_t vl;
    const char *v = tp_json_get(j, strlen(j), "k", &vl);
    ck_assert(v != NULL);
    ck_assert_uint_eq(vl, 5);
    ck_assert(strncmp(v, "\"two\"", vl) == 0);
    v = tp_json_get(j, strlen(j), "z", &vl);
    ck_assert(v != NULL && vl == 1 && *v == '0');
}
END_TEST

/* A reader refines a row: new kind, and the track of its pid and tid with
 * another device and stream (added once, then shared). */
START_TEST(trace_refine_row)
{
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = tp_trace_new(pool);
    for (int i = 0; i < 3; i++) {
        tp_event e = ev(i * 10, 5, 0, NULL);
        e.kind = TP_KIND_OTHER;
        ck_assert_int_eq(tp_trace_push(t, &e), TP_OK);
    }
    ck_assert_int_eq(tp_trace_refine_row(t, 1, TP_KIND_KERNEL, 0, 7), TP_OK);
    ck_assert_int_eq(tp_trace_refine_row(t, 2, TP_KIND_KERNEL, 0, 7), TP_OK);
    ck_assert_int_eq(tp_trace_refine_row(t, 0, TP_KIND_CPU_OP, -1, -1), TP_OK);
    const tp_cols *c = tp_trace_columns(t);
    ck_assert_uint_eq(c->n_tracks, 2);
    ck_assert_uint_eq(c->kind[0], TP_KIND_CPU_OP);
    ck_assert_uint_eq(c->kind[1], TP_KIND_KERNEL);
    ck_assert_uint_eq(c->track[1], c->track[2]);
    ck_assert_int_eq(tp_ev_device(c, 1), 0);
    ck_assert_int_eq(tp_ev_stream(c, 2), 7);
    ck_assert_int_eq(tp_ev_pid(c, 2), 1);
    ck_assert_int_eq(tp_ev_tid(c, 2), 2);
    ck_assert_int_eq(tp_ev_device(c, 0), -1);
    ck_assert_int_eq(tp_trace_refine_row(t, 3, TP_KIND_KERNEL, 0, 7), TP_EINVAL);
    ck_assert_int_eq(tp_trace_refine_row(t, 0, TP_KIND__COUNT, 0, 7), TP_EINVAL);
    tp_trace_free(t);
    tp_strpool_free(pool);
}
END_TEST

static Suite *tables_suite(void)
{
    Suite *s = suite_create("tables");
    TCase *tc = tcase_create("trace");
    tcase_add_test(tc, trace_columns_and_args);
    tcase_add_test(tc, trace_meta_attach_filter);
    tcase_add_test(tc, trace_lazy_attachment);
    tcase_add_test(tc, trace_lazy_attachment_nested);
    tcase_add_test(tc, trace_tracks);
    tcase_add_test(tc, trace_refine_row);
    tcase_add_test(tc, trace_wide_ids);
    tcase_add_test(tc, json_find_skips_nested_values);
    tcase_add_test(tc, json_find_duplicate_key_takes_last);
    tcase_add_test(tc, trace_args_left_in_file);
    tcase_add_test(tc, trace_args_survive_delete);
    tcase_add_test(tc, trace_args_refused_after_rewrite);
    tcase_add_test(tc, trace_args_truncated_under_mapping);
    suite_add_tcase(s, tc);
    tc = tcase_create("result");
    tcase_add_test(tc, result_table_types_and_nulls);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(tables_suite)
