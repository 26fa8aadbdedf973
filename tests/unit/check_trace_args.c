/*
 * A trace's args slots, dense or sparse (core/tp_trace_args.c, issue 31):
 * whichever layout the rows make the trace choose, every row reads back the
 * args it was given (none, arena text, a file reference), through a filtered
 * copy and a batch's hand-off too.  Hand-computed: 5000 rows, args on every
 * row of the first 2048 (dense: 100 %), then on every third (at the growth
 * to 4096 rows 2048 + 683 of 4096 = 67 %: sparse).
 */
#include "tp_handoff.h"
#include "tp_internal.h"
#include "tp_test.h"

#include "tp_trace_impl.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ROWS 5000
#define ALL_UNTIL 2048

/* Which rows have args: every row of the first 2048, then every third;
 * every tenth row until 2000, then all. */
typedef int (*pattern)(size_t i);
static int all_then_thirds(size_t i) { return i < ALL_UNTIL || i % 3 == 0; }
static int tenths_then_all(size_t i) { return i % 10 == 0 || i >= 2000; }

static size_t args_of(size_t i, char *buf, size_t size)
{
    return (size_t)snprintf(buf, size, "{\"row\": %zu}", i);
}

static void push_rows(tp_trace *t, size_t from, size_t to, pattern has_args)
{
    for (size_t i = from; i < to; i++) {
        char buf[64];
        tp_event e = {.ts = (int64_t)i, .dur = 1, .phase = 'X', .ext_id = TP_NONE,
                      .corr = TP_NONE, .flow_id = TP_NONE, .device = -1, .stream = -1};
        if (has_args(i)) {
            e.args = buf;
            e.args_len = args_of(i, buf, sizeof buf);
        }
        ck_assert_int_eq(tp_trace_push(t, &e), TP_OK);
    }
}

/* Every row of t (rows of the pattern at from, from + step, ...) reads its
 * own args back. */
static void args_back(const tp_trace *t, size_t step, pattern has_args)
{
    const tp_cols *c = tp_trace_columns(t);
    for (size_t k = 0; k < c->n; k++) {
        size_t i = k * step, len = 7;
        char want[64];
        const char *got = tp_trace_args_text(t, k, &len);
        if (!has_args(i)) {
            ck_assert_ptr_null(got);
            ck_assert_uint_eq(len, 0);
            continue;
        }
        size_t wlen = args_of(i, want, sizeof want);
        ck_assert_uint_eq(len, wlen);
        ck_assert(memcmp(got, want, len) == 0);
    }
}

START_TEST(rows_read_their_args_dense_then_sparse)
{
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = tp_trace_new(pool);
    push_rows(t, 0, ALL_UNTIL + 1, all_then_thirds); /* the growth at 2048 rows: all have args */
    ck_assert_ptr_null(t->args_words);
    args_back(t, 1, all_then_thirds);
    size_t dense = tp_trace_args_memory(t);
    ck_assert_uint_eq(dense, 4096 * 12);
    push_rows(t, ALL_UNTIL + 1, ROWS, all_then_thirds); /* the growth at 4096: 2731 of 4096 */
    ck_assert_ptr_nonnull(t->args_words);
    ck_assert_uint_eq(t->args_slots, 2048 + (ROWS - 2048 + 2) / 3);
    args_back(t, 1, all_then_thirds);
    /* 3032 slots (2731 at the change, then doubled: 5462) and 128 words of 16
     * bytes for 8192 rows, against 8192 x 12 = 98304 bytes dense */
    ck_assert_uint_eq(tp_trace_args_memory(t), 5462 * 12 + 128 * 16);
    /* a filtered copy: every second row */
    uint8_t *keep = calloc(ROWS, 1);
    for (size_t i = 0; i < ROWS; i += 2)
        keep[i] = 1;
    tp_trace *f = tp_trace_filtered(t, keep);
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(tp_trace_columns(f)->n, ROWS / 2);
    /* settled sparse: the 1024 even rows below 2048 and the 492 multiples
     * of 6 from 2052 to 4998, of 2500; no slot to spare */
    ck_assert_ptr_nonnull(f->args_words);
    ck_assert_uint_eq(f->args_slots, 1024 + 492);
    ck_assert_uint_eq(f->args_slot_cap, 1024 + 492);
    args_back(f, 2, all_then_thirds);
    free(keep);
    tp_trace_free(f);
    tp_trace_free(t);
    tp_strpool_free(pool);
}
END_TEST

START_TEST(a_sparse_trace_settles_dense_again_when_args_come_back)
{
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = tp_trace_new(pool);
    push_rows(t, 0, 40000, tenths_then_all);
    /* sparse from the growth at 1024 rows (103 of 1024 have args); at the
     * growth at 32768 rows 200 + 30768 = 94.5 %: still sparse */
    ck_assert_ptr_nonnull(t->args_words);
    push_rows(t, 40000, 140000, tenths_then_all);
    /* at the growth at 65536 rows 1800 without = 97.3 % (sparse: below 98),
     * at 131072 rows 98.6 %: dense again */
    ck_assert_ptr_null(t->args_words);
    args_back(t, 1, tenths_then_all);
    tp_trace_free(t);
    tp_strpool_free(pool);
}
END_TEST

/* The hand-off writes sparse slots a row each and loads them sparse again. */
START_TEST(sparse_slots_survive_a_hand_off)
{
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = tp_trace_new(pool);
    push_rows(t, 0, ROWS, all_then_thirds);
    ck_assert_ptr_nonnull(t->args_words);
    char src[64] = "/tmp/tp_args_src_XXXXXX", file[64] = "/tmp/tp_args_handoff_XXXXXX";
    int fd = mkstemp(src);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "{}", 2), 2);
    close(fd);
    fd = mkstemp(file);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(tp_trace_source_set(t, src), TP_OK);
    char why[1024] = "";
    ck_assert_msg(tp_handoff_write(t, pool, 7, src, file, why, sizeof why) == TP_OK, "%s", why);
    tp_strpool *pool2 = tp_strpool_new();
    tp_trace *u = NULL;
    ck_assert_msg(tp_handoff_load(file, pool2, 7, src, &u, why, sizeof why) == TP_OK, "%s", why);
    ck_assert_ptr_nonnull(u->args_words);
    ck_assert_uint_eq(u->args_slots, t->args_slots);
    args_back(u, 1, all_then_thirds);
    tp_trace_free(u);
    tp_trace_free(t);
    tp_strpool_free(pool2);
    tp_strpool_free(pool);
    unlink(file);
    unlink(src);
}
END_TEST

/* Rows appended as blocks of columns (tp_trace_push_rows, the Kineto
 * reader's way), args left in a file: row i's text at 16 i, 8 bytes, on the
 * rows all_then_thirds picks; the slots go sparse at the growth at 4 096
 * rows as above, and a block of 1000 rows spans words and the change. */
START_TEST(blocks_of_rows_with_file_args_dense_then_sparse)
{
    char src[64] = "/tmp/tp_args_rows_XXXXXX";
    int fd = mkstemp(src);
    ck_assert_int_ge(fd, 0);
    for (size_t i = 0; i < ROWS; i++) {
        char text[17];
        snprintf(text, sizeof text, "%-8zu--------", i);
        ck_assert_int_eq(write(fd, text, 16), 16);
    }
    close(fd);
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = tp_trace_new(pool);
    ck_assert_int_eq(tp_trace_source_set(t, src), TP_OK);
    enum { B = 1000 };
    static int64_t ts[B], dur[B], ids[B];
    static tp_str name[B];
    static uint8_t kind[B], phase[B];
    static uint32_t place[B], len[B];
    static uint64_t off[B];
    const tp_track places[1] = {{1, 2, -1, -1, 0, {0, 0, 0}}};
    for (size_t from = 0; from < ROWS; from += B) {
        for (size_t k = 0; k < B; k++) {
            ids[k] = TP_NONE;
            phase[k] = 'X';
            off[k] = 16 * (from + k);
            len[k] = all_then_thirds(from + k) ? 8 : 0;
        }
        tp_rows r = {.n = B, .ts = ts, .dur = dur, .name = name, .cat = name, .kind = kind,
                     .phase = phase, .ext_id = ids, .corr = ids, .flow_id = ids, .place = place,
                     .places = places, .n_places = 1, .args_off = off, .args_len = len};
        ck_assert_int_eq(tp_trace_push_rows(t, &r), TP_OK);
        ck_assert(from + B < 4096 ? t->args_words == NULL : t->args_words != NULL);
    }
    ck_assert_uint_eq(t->args_slots, 2048 + (ROWS - 2048 + 2) / 3);
    for (size_t i = 0; i < ROWS; i++) {
        size_t l = 0;
        char want[9];
        const char *got = tp_trace_args_text(t, i, &l);
        if (!all_then_thirds(i)) {
            ck_assert_ptr_null(got);
            continue;
        }
        snprintf(want, sizeof want, "%-8zu", i);
        ck_assert_uint_eq(l, 8);
        ck_assert(memcmp(got, want, 8) == 0);
    }
    tp_trace_free(t);
    tp_strpool_free(pool);
    unlink(src);
}
END_TEST

static Suite *trace_args_suite(void)
{
    Suite *s = suite_create("trace_args");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, rows_read_their_args_dense_then_sparse);
    tcase_add_test(tc, a_sparse_trace_settles_dense_again_when_args_come_back);
    tcase_add_test(tc, sparse_slots_survive_a_hand_off);
    tcase_add_test(tc, blocks_of_rows_with_file_args_dense_then_sparse);
    suite_add_tcase(s, tc);
    return s;
}

TP_TEST_SUITE(trace_args_suite)
