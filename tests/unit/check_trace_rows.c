/* Rows appended as columns (tp_trace_push_rows, ABI 3.4 trace_append_rows):
 * the same trace as appending them one by one, and a malformed block
 * refused whole. */
#include "tp_internal.h"
#include "tp_test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NB 6

/* A block of NB rows after the trace's first row: places 0 (the first
 * row's), 1 and 2 (new: tracks 1 and 2, in order of first use), ids wide
 * and narrow, a kind the core does not know (stored as other), args left
 * in the file for rows 1 and 4. */
static const int64_t b_ts[NB] = {10, 20, 30, 40, 50, 60};
static const int64_t b_dur[NB] = {1, 2, -1, 4, 5, 6};
static const tp_str b_name[NB] = {1, 2, 1, 2, 1, 2};
static const tp_str b_cat[NB] = {0, 1, 0, 1, 0, 1};
static const uint8_t b_kind[NB] = {TP_KIND_CPU_OP, TP_KIND_KERNEL, 200, TP_KIND_RUNTIME,
                                   TP_KIND_KERNEL, TP_KIND_CPU_OP};
static const uint8_t b_phase[NB] = {'X', 'X', 'i', 'X', 'X', 'X'};
static const int64_t b_ext[NB] = {5, INT64_C(1) << 40, TP_NONE, 7, INT64_C(-9), 8};
static const int64_t b_corr[NB] = {TP_NONE, INT64_C(-7), 3, INT64_C(1) << 33, 4, TP_NONE};
static const int64_t b_flow[NB] = {TP_NONE, TP_NONE, TP_ID_FROM_STR(2), 11, TP_NONE, 12};
static const uint32_t b_place[NB] = {1, 0, 2, 1, 2, 0};
static const uint64_t b_off[NB] = {0, 2, 0, 0, 12, 0};
static const uint32_t b_len[NB] = {0, 8, 0, 0, 8, 0};
static const tp_track b_places[3] = {
    {1, 2, -1, -1, 0, {0, 0, 0}}, {5, 6, 0, 7, 0, {0, 0, 0}}, {TP_ID_FROM_STR(3), 9, -1, -1, 0, {0, 0, 0}}};

static tp_rows block(void)
{
    tp_rows r = {.n = NB, .ts = b_ts, .dur = b_dur, .name = b_name, .cat = b_cat,
                 .kind = b_kind, .phase = b_phase, .ext_id = b_ext, .corr = b_corr,
                 .flow_id = b_flow, .place = b_place, .places = b_places, .n_places = 3,
                 .args_off = b_off, .args_len = b_len};
    return r;
}

static char *args_file(void)
{
    static char path[] = "/tmp/tp_rows_XXXXXX";
    strcpy(path, "/tmp/tp_rows_XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    const char text[] = "xx{\"a\": 1}yy{\"b\": 2}";
    ck_assert_int_eq(write(fd, text, sizeof text - 1), (long)(sizeof text - 1));
    close(fd);
    return path;
}

/* A trace from the file at path with one row (track 0: pid 1, tid 2). */
static tp_trace *first_row(tp_strpool *pool, const char *path)
{
    tp_trace *t = tp_trace_new(pool);
    ck_assert_int_eq(tp_trace_source_set(t, path), TP_OK);
    tp_event e = {.ts = 1, .dur = 1, .name = 1, .pid = 1, .tid = 2, .kind = TP_KIND_CPU_OP,
                  .phase = 'X', .ext_id = TP_NONE, .corr = TP_NONE, .flow_id = TP_NONE,
                  .device = -1, .stream = -1};
    ck_assert_int_eq(tp_trace_push(t, &e), TP_OK);
    return t;
}

static void same_cells(const tp_trace *a, const tp_trace *b)
{
    const tp_cols *x = tp_trace_columns(a), *y = tp_trace_columns(b);
    ck_assert_uint_eq(x->n, y->n);
    ck_assert_uint_eq(x->n_tracks, y->n_tracks);
    ck_assert_uint_eq(x->n_wide_ids, y->n_wide_ids);
    ck_assert_mem_eq(x->wide_ids, y->wide_ids, x->n_wide_ids * sizeof *x->wide_ids);
    for (size_t k = 0; k < x->n_tracks; k++)
        ck_assert_mem_eq(&x->tracks[k], &y->tracks[k], sizeof x->tracks[k]);
    for (size_t i = 0; i < x->n; i++) {
        ck_assert(x->ts[i] == y->ts[i] && x->dur[i] == y->dur[i]);
        ck_assert(x->name[i] == y->name[i] && x->cat[i] == y->cat[i]);
        ck_assert(x->track[i] == y->track[i] && x->kind[i] == y->kind[i]);
        ck_assert(x->phase[i] == y->phase[i] && x->ext_id32[i] == y->ext_id32[i]);
        ck_assert(x->corr32[i] == y->corr32[i] && x->flow_id32[i] == y->flow_id32[i]);
        size_t la = 0, lb = 0;
        const char *sa = tp_trace_args_text(a, i, &la), *sb = tp_trace_args_text(b, i, &lb);
        ck_assert_uint_eq(la, lb);
        ck_assert(la == 0 || memcmp(sa, sb, la) == 0);
    }
}

START_TEST(rows_as_one_by_one)
{
    char *path = args_file();
    tp_strpool *pool = tp_strpool_new();
    tp_trace *bulk = first_row(pool, path), *each = first_row(pool, path);
    tp_rows r = block();
    ck_assert_int_eq(tp_trace_push_rows(bulk, &r), TP_OK);
    for (size_t i = 0; i < NB; i++) {
        const tp_track *p = &b_places[b_place[i]];
        tp_event e = {.ts = b_ts[i], .dur = b_dur[i], .name = b_name[i], .cat = b_cat[i],
                      .pid = p->pid, .tid = p->tid, .kind = b_kind[i], .phase = b_phase[i],
                      .ext_id = b_ext[i], .corr = b_corr[i], .flow_id = b_flow[i],
                      .device = p->device, .stream = p->stream, .args_len = b_len[i]};
        ck_assert_int_eq(b_len[i] ? tp_trace_push_ref(each, &e, b_off[i]) : tp_trace_push(each, &e),
                         TP_OK);
    }
    same_cells(bulk, each);
    /* the values, by hand */
    const tp_cols *c = tp_trace_columns(bulk);
    ck_assert_uint_eq(c->n, 1 + NB);
    ck_assert_uint_eq(c->n_tracks, 3);
    const uint32_t want_track[1 + NB] = {0, 1, 0, 2, 1, 2, 0};
    for (size_t i = 0; i < 1 + NB; i++)
        ck_assert_uint_eq(c->track[i], want_track[i]);
    ck_assert_int_eq(tp_ev_pid(c, 3), TP_ID_FROM_STR(3));
    ck_assert_int_eq(tp_ev_stream(c, 1), 7);
    ck_assert_uint_eq(c->kind[3], TP_KIND_OTHER); /* kind 200 */
    /* wide ids in row order: row 2's ext id and corr, row 3's flow id (a
     * string's), row 4's corr, row 5's ext id */
    ck_assert_uint_eq(c->n_wide_ids, 5);
    ck_assert_int_eq(c->wide_ids[0], INT64_C(1) << 40);
    ck_assert_int_eq(c->wide_ids[1], -7);
    ck_assert_int_eq(c->wide_ids[2], TP_ID_FROM_STR(2));
    ck_assert_int_eq(c->wide_ids[3], INT64_C(1) << 33);
    ck_assert_int_eq(c->wide_ids[4], -9);
    ck_assert_int_eq(tp_ev_ext_id(c, 2), INT64_C(1) << 40);
    ck_assert_int_eq(tp_ev_flow_id(c, 3), TP_ID_FROM_STR(2));
    size_t len = 0;
    const char *a = tp_trace_args_text(bulk, 5, &len);
    ck_assert(a != NULL && len == 8 && memcmp(a, "{\"b\": 2}", 8) == 0);
    ck_assert_ptr_null(tp_trace_args_text(bulk, 1, &len));
    tp_trace_free(bulk);
    tp_trace_free(each);
    tp_strpool_free(pool);
    unlink(path);
}
END_TEST

START_TEST(rows_malformed_refused_whole)
{
    char *path = args_file();
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = first_row(pool, path);
    uint32_t place[NB];
    memcpy(place, b_place, sizeof place);
    place[4] = 3; /* past n_places */
    tp_rows r = block();
    r.place = place;
    ck_assert_int_eq(tp_trace_push_rows(t, &r), TP_EINVAL);
    uint64_t off[NB];
    memcpy(off, b_off, sizeof off);
    off[4] |= UINT64_C(1) << 63; /* not an offset */
    r = block();
    r.args_off = off;
    ck_assert_int_eq(tp_trace_push_rows(t, &r), TP_EINVAL);
    r = block();
    r.ts = NULL;
    ck_assert_int_eq(tp_trace_push_rows(t, &r), TP_EINVAL);
    const tp_cols *c = tp_trace_columns(t);
    ck_assert_uint_eq(c->n, 1);
    ck_assert_uint_eq(c->n_tracks, 1);
    ck_assert_uint_eq(c->n_wide_ids, 0);
    tp_trace *nosrc = tp_trace_new(pool); /* args refer to a file it does not have */
    r = block();
    ck_assert_int_eq(tp_trace_push_rows(nosrc, &r), TP_EINVAL);
    r.args_len = NULL; /* without args it takes them */
    ck_assert_int_eq(tp_trace_push_rows(nosrc, &r), TP_OK);
    ck_assert_uint_eq(tp_trace_columns(nosrc)->n, NB);
    tp_trace_free(nosrc);
    tp_trace_free(t);
    tp_strpool_free(pool);
    unlink(path);
}
END_TEST

/* Tracks numbered by first use, as row by row: places listed out of that
 * order, and one no row uses (it adds no track). */
START_TEST(rows_tracks_by_first_use)
{
    tp_strpool *pool = tp_strpool_new();
    tp_trace *t = tp_trace_new(pool);
    static const int64_t ts[2] = {1, 2}, dur[2] = {1, 1};
    static const int64_t none[2] = {TP_NONE, TP_NONE};
    static const tp_str name[2] = {1, 1}, cat[2] = {0, 0};
    static const uint8_t kind[2] = {TP_KIND_CPU_OP, TP_KIND_CPU_OP}, phase[2] = {'X', 'X'};
    static const uint32_t place[2] = {2, 1};
    static const tp_track places[3] = {{1, 1, -1, -1, 0, {0, 0, 0}},
                                       {2, 2, -1, -1, 0, {0, 0, 0}},
                                       {3, 3, -1, -1, 0, {0, 0, 0}}};
    tp_rows r = {.n = 2, .ts = ts, .dur = dur, .name = name, .cat = cat, .kind = kind,
                 .phase = phase, .ext_id = none, .corr = none, .flow_id = none,
                 .place = place, .places = places, .n_places = 3};
    ck_assert_int_eq(tp_trace_push_rows(t, &r), TP_OK);
    const tp_cols *c = tp_trace_columns(t);
    ck_assert_uint_eq(c->n_tracks, 2); /* place 0 unused */
    ck_assert_uint_eq(c->track[0], 0);
    ck_assert_uint_eq(c->track[1], 1);
    ck_assert_int_eq(tp_ev_pid(c, 0), 3);
    ck_assert_int_eq(tp_ev_pid(c, 1), 2);
    tp_trace_free(t);
    tp_strpool_free(pool);
}
END_TEST

static Suite *trace_rows_suite(void)
{
    Suite *s = suite_create("trace_rows");
    TCase *tc = tcase_create("rows");
    tcase_add_test(tc, rows_as_one_by_one);
    tcase_add_test(tc, rows_malformed_refused_whole);
    tcase_add_test(tc, rows_tracks_by_first_use);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(trace_rows_suite)
