/*
 * A hand-off of a trace whose args are in a file of the reader's own with
 * a hole in it (issue 31 leftovers): a gzip trace read on two threads has
 * one between the halves' texts (the second half writes from its cut).
 * The hand-off holds the file's data ranges only, not the hole as zeros,
 * and loads every args text back from where it now is.  Hand-made: two
 * texts 4 MiB apart in a sparse file; the hand-off is a few hundred bytes,
 * not 4 MiB (it was 4 MiB + before: the file copied whole).
 */
#include "tp_handoff.h"
#include "tp_internal.h"
#include "tp_test.h"

#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define KEY 0x5151u
#define FAR (4u << 20)

static const char *const texts[] = {"{\"a\": 1}", "{\"b\": \"two\"}", "{\"c\": 3}"};
static const uint64_t offsets[] = {0, 9, FAR};

/* Whether /tmp's file system reports the hole (SEEK_HOLE before the end):
 * one that does not (NFSv3, some FUSE) gets the whole file copied, rightly. */
static bool fs_reports_holes;

/* A trace over pool of three rows, their args at offsets of a sparse file
 * of its own, read from input. */
static tp_trace *sparse_trace(tp_strpool *pool, const char *input)
{
    char args[] = "/tmp/tp_handoff_args_XXXXXX";
    int fd = mkstemp(args);
    ck_assert_int_ge(fd, 0);
    unlink(args);
    tp_trace *t = tp_trace_new(pool);
    ck_assert_int_eq(tp_trace_source_set(t, input), TP_OK);
    ck_assert_int_eq(tp_trace_args_file_set(t, fd), TP_OK);
    tp_str name = tp_strpool_intern(pool, "k", 1);
    for (size_t i = 0; i < 3; i++) {
        size_t len = strlen(texts[i]);
        ck_assert_int_eq(pwrite(fd, texts[i], len, (off_t)offsets[i]), (ssize_t)len);
        tp_event ev = {.ts = (int64_t)i, .dur = 1, .name = name, .pid = 1, .tid = 1,
                       .kind = TP_KIND_CPU_OP, .phase = 'X', .ext_id = -1, .corr = -1,
                       .flow_id = -1, .device = -1, .stream = -1, .args = texts[i],
                       .args_len = len};
        ck_assert_int_eq(tp_trace_push_ref(t, &ev, offsets[i]), TP_OK);
    }
    fs_reports_holes = lseek(fd, 0, SEEK_HOLE) < (off_t)FAR;
    return t;
}

START_TEST(a_hole_in_the_args_file_is_left_out)
{
    char input[] = "/tmp/tp_handoff_in_XXXXXX", file[] = "/tmp/tp_handoff_sparse_XXXXXX";
    char why[1024] = "";
    int fd = mkstemp(input);
    ck_assert_int_eq(write(fd, "{}", 2), 2);
    close(fd);
    fd = mkstemp(file);
    close(fd);
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = sparse_trace(pool, input);
    ck_assert_msg(tp_handoff_write(t, pool, KEY, input, file, why, sizeof why) == TP_OK, "%s",
                  why);
    struct stat sb;
    ck_assert_int_eq(stat(file, &sb), 0);
    ck_assert_msg(!fs_reports_holes || sb.st_size < 64 * 1024, "the hand-off is %lld bytes: the hole copied",
                  (long long)sb.st_size);
    tp_strpool *other = tp_strpool_new();
    tp_trace *u = NULL;
    ck_assert_msg(tp_handoff_load(file, other, KEY, input, &u, why, sizeof why) == TP_OK, "%s",
                  why);
    ck_assert_uint_eq(tp_trace_columns(u)->n, 3);
    for (size_t i = 0; i < 3; i++) {
        size_t len = 0;
        const char *a = tp_trace_args_text(u, i, &len);
        ck_assert_uint_eq(len, strlen(texts[i]));
        ck_assert(memcmp(a, texts[i], len) == 0);
    }
    tp_trace_free(u);
    tp_trace_free(t);
    tp_strpool_free(other);
    tp_strpool_free(pool);
    unlink(file);
    unlink(input);
}
END_TEST

static Suite *handoff_sparse_suite(void)
{
    Suite *s = suite_create("handoff_sparse");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, a_hole_in_the_args_file_is_left_out);
    suite_add_tcase(s, tc);
    return s;
}

TP_TEST_SUITE(handoff_sparse_suite)
