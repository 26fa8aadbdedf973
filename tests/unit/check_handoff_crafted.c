/*
 * A batch's hand-off crafted, its digest made right again (issue 31
 * leftovers): the loader (core/tp_trace_handoff_load.c) trusts no field the
 * digest covers.  Each case changes one field of a real hand-off to a value
 * the writer never produces — a wide-id slot held by two rows, a textual pid
 * past the string table once cast to 32 bits, args past the input file, a
 * flag byte other than 0 or 1, a text twice, a source that is not the trace
 * file — and the load is refused with what is wrong, nothing crashing.  A
 * fuzz-style case changes bytes of real hand-offs at random (a fixed seed),
 * fixes the digest and loads: refused, or a trace whose every row, id, text
 * and args reference is inside its tables (run under ASan/UBSan by `make
 * VARIANT=san check-unit`).
 */
#include "tp_handoff.h"
#include "tp_internal.h"
#include "tp_test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracepipe/tp_sdk_digest.h>
#include <unistd.h>

#define KEY 0x4321u
#define TEXT_IDS "tests/data/hand/handoff_text_ids.json"
#define DLRM_GZ "tests/data/dlrm_worker0_step12.pt.trace.json.gz"

static tp_run *read_trace(const char *path)
{
    char yaml[1024];
    snprintf(yaml, sizeof yaml, "stages:\n  - reader: kineto\n    path: %s\n", path);
    return tp_test_run_yaml(yaml);
}

/* A hand-off in memory: its bytes, digest last. */
typedef struct image {
    unsigned char *b;
    size_t n;
} image;

static image handoff_of(const tp_run *run, const char *input, const char *file)
{
    char why[1024] = "";
    ck_assert_msg(tp_handoff_write(tp_run_trace(run), run->pool, KEY, input, file, why,
                                   sizeof why) == TP_OK, "%s", why);
    struct stat sb;
    ck_assert_int_eq(stat(file, &sb), 0);
    image im = {malloc((size_t)sb.st_size), (size_t)sb.st_size};
    int fd = open(file, O_RDONLY);
    ck_assert_int_eq(read(fd, im.b, im.n), (ssize_t)im.n);
    close(fd);
    return im;
}

/* The image written to file with its digest made right. */
static void put_image(const image *im, const char *file)
{
    tp_digest d;
    tp_digest_init(&d);
    tp_digest_add(&d, im->b, im->n - 8);
    uint64_t v = tp_digest_value(&d);
    memcpy(im->b + im->n - 8, &v, 8);
    int fd = open(file, O_WRONLY | O_TRUNC);
    ck_assert_int_eq(write(fd, im->b, im->n), (ssize_t)im->n);
    close(fd);
}

/* Where the parts are, walked as the format lays them out (tp_trace_handoff.c). */
typedef struct layout {
    size_t source_flag, source, texts; /* texts: the first text's length */
    uint64_t m, n, nt, nw;
    size_t args_flag, col[12], tracks, wide;
    bool args;
} layout;

static uint64_t u64_at(const image *im, size_t at)
{
    uint64_t v;
    memcpy(&v, im->b + at, 8);
    return v;
}

static uint32_t u32_at(const image *im, size_t at)
{
    uint32_t v;
    memcpy(&v, im->b + at, 4);
    return v;
}

static layout layout_of(const image *im)
{
    layout l;
    memset(&l, 0, sizeof l);
    size_t at = 24;
    at += 4 + u32_at(im, at) + 7 * 8;
    l.source_flag = at++;
    l.source = at;
    at += 4 + u32_at(im, at);
    l.m = u64_at(im, at);
    at += 8;
    l.texts = at;
    for (uint64_t j = 1; j < l.m; j++)
        at += 4 + u32_at(im, at);
    l.n = u64_at(im, at);
    at += 8;
    l.args_flag = at;
    l.args = im->b[at++] != 0;
    static const size_t size[12] = {8, 8, 4, 4, 4, 4, 4, 4, 1, 1, 8, 4};
    for (size_t k = 0; k < (l.args ? 12u : 10u); k++) {
        l.col[k] = at;
        at += l.n * size[k];
    }
    l.nt = u64_at(im, at);
    l.tracks = at + 8;
    at = l.tracks + l.nt * sizeof(tp_track);
    l.nw = u64_at(im, at);
    l.wide = at + 8;
    return l;
}

enum { COL_EXT = 2, COL_CORR, COL_FLOW, COL_ARGS_OFF = 10, COL_ARGS_LEN };

static int32_t cell_at(const image *im, const layout *l, int col, size_t row)
{
    return (int32_t)u32_at(im, l->col[col] + row * 4);
}

/* A hand-off of trace path changed by change, loaded into a pool that
 * already holds a text (so ids are remapped): refused, why naming want. */
static void refused(const char *path, void (*change)(image *, const layout *), const char *want)
{
    char file[] = "/tmp/tp_handoff_crafted_XXXXXX", why[1024] = "";
    int fd = mkstemp(file);
    ck_assert_int_ge(fd, 0);
    close(fd);
    tp_run *run = read_trace(path);
    image im = handoff_of(run, path, file);
    layout l = layout_of(&im);
    change(&im, &l);
    put_image(&im, file);
    tp_strpool *pool = tp_strpool_new();
    ck_assert_uint_gt(tp_strpool_intern(pool, "main", 4), 0);
    tp_trace *t = NULL;
    int rc = tp_handoff_load(file, pool, KEY, path, &t, why, sizeof why);
    ck_assert_msg(rc != TP_OK && t == NULL, "%s: loaded, not refused (%s)", path, want);
    ck_assert_msg(strstr(why, want) != NULL, "%s: refused for '%s', not '%s'", path, why, want);
    tp_strpool_free(pool);
    tp_run_free(run);
    free(im.b);
    unlink(file);
}

/* Rows 2 and 3 of TEXT_IDS are the "flow-a" pair, each flow id a text in
 * a wide slot of its own: row 3 given row 2's slot. */
static void wide_slot_twice(image *im, const layout *l)
{
    int32_t a = cell_at(im, l, COL_FLOW, 2), b = cell_at(im, l, COL_FLOW, 3);
    ck_assert(TP_ID32_WIDE(a) && TP_ID32_WIDE(b) && a != b);
    memcpy(im->b + l->col[COL_FLOW] + 3 * 4, &a, 4);
}

START_TEST(a_wide_slot_held_by_two_rows_is_refused)
{
    refused(TEXT_IDS, wide_slot_twice, "wide id");
}
END_TEST

/* Track 0's pid is the text "Spans" (-1 - s): -1 - (2^32 + s) is s again
 * once cast to a 32-bit text id. */
static void pid_past_32_bits(image *im, const layout *l)
{
    int64_t pid;
    memcpy(&pid, im->b + l->tracks, 8);
    ck_assert(TP_ID_IS_STR(pid) && TP_ID_STR(pid) > 0);
    pid = -1 - ((int64_t)1 << 32) - (int64_t)TP_ID_STR(pid);
    memcpy(im->b + l->tracks, &pid, 8);
}

START_TEST(a_pid_past_the_string_table_is_refused)
{
    refused(TEXT_IDS, pid_past_32_bits, "a text id");
}
END_TEST

/* Row 0's args (left in the plain input file) moved past its end. */
static void args_past_input(image *im, const layout *l)
{
    ck_assert(l->args);
    uint64_t off;
    memcpy(&off, im->b + l->col[COL_ARGS_OFF], 8);
    ck_assert(off >> 63);
    off = ((uint64_t)1 << 63) | 1500; /* the file is ~1.3 kB */
    memcpy(im->b + l->col[COL_ARGS_OFF], &off, 8);
}

START_TEST(args_past_the_input_file_are_refused)
{
    refused(TEXT_IDS, args_past_input, "args past their file");
}
END_TEST

static void args_flag_two(image *im, const layout *l) { im->b[l->args_flag] = 2; }

START_TEST(a_flag_byte_other_than_0_or_1_is_refused)
{
    refused(TEXT_IDS, args_flag_two, "the args flag");
}
END_TEST

/* A later text made an earlier one of the same length. */
static void text_twice(image *im, const layout *l)
{
    size_t at = l->texts, first[64] = {0};
    for (uint64_t j = 1; j < l->m; j++, at += 4 + u32_at(im, at)) {
        uint32_t len = u32_at(im, at);
        if (len >= 64)
            continue;
        if (first[len] == 0) {
            first[len] = at;
            continue;
        }
        memcpy(im->b + at + 4, im->b + first[len] + 4, len);
        return;
    }
    ck_abort_msg("no two texts of one length");
}

START_TEST(a_text_twice_is_refused)
{
    refused(TEXT_IDS, text_twice, "a text twice");
}
END_TEST

/* The source (where args left in a file are read) one letter off the
 * input's path: a file of the same length that exists. */
static void source_elsewhere(image *im, const layout *l)
{
    uint32_t len = u32_at(im, l->source);
    ck_assert_uint_gt(len, 6);
    ck_assert(memcmp(im->b + l->source + 4 + len - 5, ".json", 5) == 0);
    memcpy(im->b + l->source + 4 + len - 5, ".yaml", 5); /* .json -> .yaml, same length */
}

START_TEST(a_source_other_than_the_trace_file_is_refused)
{
    char copy[] = "/tmp/tp_handoff_src_XXXXXX.json", other[sizeof copy];
    int fd = mkstemps(copy, 5);
    ck_assert_int_ge(fd, 0);
    FILE *in = fopen(TEXT_IDS, "rb");
    char buf[4096];
    size_t n = in ? fread(buf, 1, sizeof buf, in) : 0;
    ck_assert_int_eq(write(fd, buf, n), (ssize_t)n);
    close(fd);
    fclose(in);
    snprintf(other, sizeof other, "%.*s.yaml", (int)strlen(copy) - 5, copy);
    fd = open(other, O_WRONLY | O_CREAT | O_TRUNC, 0600); /* args would come from here */
    ck_assert_int_eq(write(fd, buf, n), (ssize_t)n);
    close(fd);
    refused(copy, source_elsewhere, "its source is not its trace file");
    unlink(copy);
    unlink(other);
}
END_TEST

/* ------------------------------------------------------------ fuzz */

static uint64_t next_random(uint64_t *s)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return *s >> 33;
}

static volatile unsigned args_touched;

/* A loaded trace's references all inside its tables. */
static void consistent(const tp_trace *t, const tp_strpool *pool)
{
    const tp_cols *c = tp_trace_columns(t);
    size_t m = tp_strpool_count(pool);
    for (size_t i = 0; i < c->n; i++) {
        ck_assert_uint_lt(c->name[i], m);
        ck_assert_uint_lt(c->cat[i], m);
        ck_assert_uint_lt(c->track[i], c->n_tracks);
        ck_assert_uint_lt(c->kind[i], TP_KIND__COUNT);
        const int32_t cells[3] = {c->ext_id32[i], c->corr32[i], c->flow_id32[i]};
        for (size_t k = 0; k < 3; k++)
            ck_assert(!TP_ID32_WIDE(cells[k]) || (size_t)(-2 - (int64_t)cells[k]) < c->n_wide_ids);
        int64_t f = tp_ev_flow_id(c, i);
        ck_assert(!TP_ID_IS_STR(f) || (uint64_t)(-1 - f) < m);
        size_t len = 0;
        const char *args = tp_trace_args_text(t, i, &len);
        for (size_t k = 0; k < len; k++) /* every byte readable (ASan) */
            args_touched += (unsigned char)args[k];
    }
    for (size_t k = 0; k < c->n_tracks; k++) {
        const tp_track *tr = &c->tracks[k];
        ck_assert(!TP_ID_IS_STR(tr->pid) || (uint64_t)(-1 - tr->pid) < m);
        ck_assert(!TP_ID_IS_STR(tr->tid) || (uint64_t)(-1 - tr->tid) < m);
    }
}

/* rounds hand-offs of path, each with a few bytes changed (or a count set
 * to an edge value), the digest fixed: refused or consistent. */
static void fuzz(const char *path, int rounds, uint64_t seed)
{
    char file[] = "/tmp/tp_handoff_fuzz_XXXXXX", why[1024];
    int fd = mkstemp(file);
    ck_assert_int_ge(fd, 0);
    close(fd);
    tp_run *run = read_trace(path);
    image im = handoff_of(run, path, file);
    unsigned char *orig = malloc(im.n);
    memcpy(orig, im.b, im.n);
    static const uint64_t edges[] = {0, 1, 0x7fffffffu, 0xffffffffu, 0x100000000u,
                                     UINT64_MAX, UINT64_MAX / 2, UINT64_MAX / 42 + 1};
    int loaded = 0;
    for (int k = 0; k < rounds; k++) {
        memcpy(im.b, orig, im.n);
        size_t changes = 1 + next_random(&seed) % 4;
        for (size_t j = 0; j < changes; j++) {
            size_t at = 24 + next_random(&seed) % (im.n - 8 - 24 - 8);
            if (next_random(&seed) % 3 == 0)
                memcpy(im.b + at, &edges[next_random(&seed) % 8], 8);
            else
                im.b[at] ^= (unsigned char)(1 + next_random(&seed) % 255);
        }
        put_image(&im, file);
        tp_strpool *pool = tp_strpool_new();
        ck_assert_uint_gt(tp_strpool_intern(pool, "main", 4), 0);
        tp_trace *t = NULL;
        why[0] = '\0';
        int rc = tp_handoff_load(file, pool, KEY, path, &t, why, sizeof why);
        ck_assert(rc == TP_OK ? t != NULL : t == NULL && why[0] != '\0');
        if (t != NULL) {
            consistent(t, pool);
            loaded++;
        }
        tp_trace_free(t);
        tp_strpool_free(pool);
    }
    ck_assert_int_lt(loaded, rounds); /* the changes were seen */
    free(orig);
    free(im.b);
    tp_run_free(run);
    unlink(file);
}

START_TEST(changed_bytes_with_a_right_digest_are_refused_or_consistent)
{
    fuzz(TEXT_IDS, 600, 31);
    fuzz(DLRM_GZ, 300, 17);
}
END_TEST

static Suite *handoff_crafted_suite(void)
{
    Suite *s = suite_create("handoff_crafted");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, a_wide_slot_held_by_two_rows_is_refused);
    tcase_add_test(tc, a_pid_past_the_string_table_is_refused);
    tcase_add_test(tc, args_past_the_input_file_are_refused);
    tcase_add_test(tc, a_flag_byte_other_than_0_or_1_is_refused);
    tcase_add_test(tc, a_text_twice_is_refused);
    tcase_add_test(tc, a_source_other_than_the_trace_file_is_refused);
    tcase_add_test(tc, changed_bytes_with_a_right_digest_are_refused_or_consistent);
    suite_add_tcase(s, tc);
    return s;
}

TP_TEST_SUITE(handoff_crafted_suite)
