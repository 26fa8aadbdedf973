/*
 * Extension columns stored compactly (core/tp_extcol.c, issue 31): blocks
 * of null cells hold nothing, integer blocks hold the narrowest width their
 * values fit and widen when one does not; every value reads back bit for
 * bit, through cells, the dense array and a filter's gather.
 */
#include "tp_extcol.h"
#include "tp_internal.h"
#include "tp_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ROWS (3 * TP_EXTCOL_BLOCK + 5) /* four blocks, the last partial */

static int64_t get_i64(const tp_extcol *c, size_t row)
{
    int64_t v;
    tp_extcol_get(c, row, &v);
    return v;
}

START_TEST(null_blocks_hold_nothing_and_widths_grow)
{
    tp_extcol c = {.type = TP_COL_I64};
    ck_assert_int_eq(tp_extcol_reserve(&c, ROWS), TP_OK);
    ck_assert_uint_eq(tp_extcol_memory(&c), 4 * (sizeof(uint8_t *) + 1)); /* no cells */
    int64_t null = TP_EXT_NULL_I64, v = 100;
    ck_assert_int_eq(tp_extcol_set(&c, 5, &null), TP_OK); /* null into a null block */
    ck_assert_ptr_null(c.block[0]);
    ck_assert_int_eq(tp_extcol_set(&c, 5, &v), TP_OK);
    ck_assert_uint_eq(c.width[0], 1);
    v = -128; /* int8's smallest stands for null: needs 2 bytes */
    ck_assert_int_eq(tp_extcol_set(&c, 6, &v), TP_OK);
    ck_assert_uint_eq(c.width[0], 2);
    v = 40000; /* past int16 */
    ck_assert_int_eq(tp_extcol_set(&c, 7, &v), TP_OK);
    ck_assert_uint_eq(c.width[0], 4);
    v = INT64_MAX;
    ck_assert_int_eq(tp_extcol_set(&c, 2 * TP_EXTCOL_BLOCK + 1, &v), TP_OK);
    ck_assert_uint_eq(c.width[2], 8);
    ck_assert_int_eq(get_i64(&c, 5), 100);
    ck_assert_int_eq(get_i64(&c, 6), -128);
    ck_assert_int_eq(get_i64(&c, 7), 40000);
    ck_assert_int_eq(get_i64(&c, 8), TP_EXT_NULL_I64);
    ck_assert_int_eq(get_i64(&c, TP_EXTCOL_BLOCK), TP_EXT_NULL_I64); /* block 1: none */
    ck_assert_int_eq(get_i64(&c, 2 * TP_EXTCOL_BLOCK + 1), INT64_MAX);
    /* two blocks of 4096 cells: 4 and 8 bytes a cell */
    ck_assert_uint_eq(tp_extcol_memory(&c), 4 * (sizeof(uint8_t *) + 1) + 4096 * 12);
    v = TP_EXT_NULL_I64; /* a cell set back to null */
    ck_assert_int_eq(tp_extcol_set(&c, 5, &v), TP_OK);
    ck_assert_int_eq(get_i64(&c, 5), TP_EXT_NULL_I64);
    const int64_t *d = tp_extcol_dense(&c);
    ck_assert_ptr_nonnull(d);
    ck_assert_int_eq(d[6], -128);
    ck_assert_int_eq(d[7], 40000);
    ck_assert_int_eq(d[ROWS - 1], TP_EXT_NULL_I64);
    ck_assert_int_eq(d[2 * TP_EXTCOL_BLOCK + 1], INT64_MAX);
    ck_assert_uint_eq(tp_extcol_memory(&c), ROWS * 8);
    /* dense from now on: sets and growth keep the array */
    v = 7;
    ck_assert_int_eq(tp_extcol_set(&c, 9, &v), TP_OK);
    ck_assert_int_eq(d[9], 7);
    ck_assert_int_eq(tp_extcol_reserve(&c, ROWS + 10), TP_OK);
    d = tp_extcol_dense(&c);
    ck_assert_int_eq(d[ROWS + 9], TP_EXT_NULL_I64);
    ck_assert_int_eq(d[9], 7);
    tp_extcol_free(&c);
}
END_TEST

START_TEST(other_types_read_back_bit_for_bit)
{
    tp_extcol i = {.type = TP_COL_I32}, f = {.type = TP_COL_F64}, s = {.type = TP_COL_SID};
    ck_assert_int_eq(tp_extcol_reserve(&i, ROWS), TP_OK);
    ck_assert_int_eq(tp_extcol_reserve(&f, ROWS), TP_OK);
    ck_assert_int_eq(tp_extcol_reserve(&s, ROWS), TP_OK);
    int32_t a = INT32_MAX, b = -32768, out32;
    ck_assert_int_eq(tp_extcol_set(&i, 1, &a), TP_OK);
    ck_assert_int_eq(tp_extcol_set(&i, TP_EXTCOL_BLOCK, &b), TP_OK);
    ck_assert_uint_eq(i.width[0], 4);
    ck_assert_uint_eq(i.width[1], 4); /* -32768 is int16's null: 4 bytes */
    tp_extcol_get(&i, 1, &out32);
    ck_assert_int_eq(out32, INT32_MAX);
    tp_extcol_get(&i, 2, &out32);
    ck_assert_int_eq(out32, TP_EXT_NULL_I32);
    double x = 0.1, nan2, out;
    uint64_t bits = 0x7ff8000000000123ULL; /* a NaN other than NAN: kept as set */
    memcpy(&nan2, &bits, sizeof nan2);
    ck_assert_int_eq(tp_extcol_set(&f, 3, &x), TP_OK);
    ck_assert_int_eq(tp_extcol_set(&f, 2 * TP_EXTCOL_BLOCK, &nan2), TP_OK);
    tp_extcol_get(&f, 3, &out);
    ck_assert_double_eq(out, 0.1);
    tp_extcol_get(&f, 4, &out);
    ck_assert(isnan(out));
    tp_extcol_get(&f, 2 * TP_EXTCOL_BLOCK, &out);
    ck_assert_mem_eq(&out, &bits, sizeof bits);
    tp_str id = 42, sid;
    ck_assert_int_eq(tp_extcol_set(&s, ROWS - 1, &id), TP_OK);
    const tp_str *sd = tp_extcol_dense(&s);
    ck_assert_uint_eq(sd[ROWS - 1], 42);
    ck_assert_uint_eq(sd[0], 0);
    tp_extcol_get(&s, ROWS - 1, &sid);
    ck_assert_uint_eq(sid, 42);
    tp_extcol_free(&i);
    tp_extcol_free(&f);
    tp_extcol_free(&s);
}
END_TEST

START_TEST(a_gather_keeps_the_kept_rows_cells)
{
    tp_extcols *x = NULL, *y = NULL;
    int col = tp_ext_add(&x, "k.v", TP_COL_I64, ROWS);
    ck_assert_int_ge(col, 0);
    uint8_t *keep = calloc(ROWS, 1);
    for (size_t r = 0; r < ROWS; r += 3) {
        int64_t v = (int64_t)r * 1000;
        keep[r] = r % 2 == 0;
        ck_assert_int_eq(tp_ext_set(x, col, r, ROWS, TP_COL_I64, &v), TP_OK);
    }
    int32_t wrong = 1;
    ck_assert_int_eq(tp_ext_set(x, col, 0, ROWS, TP_COL_I32, &wrong), TP_EINVAL);
    ck_assert_int_eq(tp_ext_set(x, col, ROWS, ROWS, TP_COL_I64, &wrong), TP_EINVAL);
    ck_assert_int_eq(tp_ext_gather(x, keep, ROWS, &y, ROWS), TP_OK);
    const int64_t *d = tp_ext_data(y, tp_ext_find(y, "k.v"));
    size_t out = 0;
    for (size_t r = 0; r < ROWS; r += 6) /* kept: multiples of 6, each set */
        ck_assert_int_eq(d[out++], (int64_t)r * 1000);
    ck_assert_int_eq(d[out], TP_EXT_NULL_I64); /* past the kept rows */
    ck_assert_uint_lt(tp_ext_memory(x), ROWS * 8); /* never asked for: compact */
    ck_assert_uint_ge(tp_ext_memory(y), ROWS * 8); /* asked for: dense */
    free(keep);
    tp_ext_free(x);
    tp_ext_free(y);
}
END_TEST

START_TEST(a_small_column_grows_its_last_block)
{
    tp_extcol c = {.type = TP_COL_I64};
    int64_t five = 5, six = 6, out;
    ck_assert_int_eq(tp_extcol_reserve(&c, 100), TP_OK);
    ck_assert_int_eq(tp_extcol_set(&c, 99, &five), TP_OK);
    ck_assert_uint_eq(tp_extcol_memory(&c), 100 + sizeof(uint8_t *) + 1); /* 100 rows of 1 byte */
    ck_assert_int_eq(tp_extcol_reserve(&c, TP_EXTCOL_BLOCK + 1), TP_OK);
    ck_assert_int_eq(tp_extcol_set(&c, TP_EXTCOL_BLOCK - 1, &six), TP_OK);
    tp_extcol_get(&c, 99, &out);
    ck_assert_int_eq(out, 5);
    tp_extcol_get(&c, 100, &out); /* a row the growth added */
    ck_assert_int_eq(out, TP_EXT_NULL_I64);
    tp_extcol_get(&c, TP_EXTCOL_BLOCK - 1, &out);
    ck_assert_int_eq(out, 6);
    ck_assert_uint_eq(tp_extcol_memory(&c), TP_EXTCOL_BLOCK + 2 * (sizeof(uint8_t *) + 1));
    tp_extcol_free(&c);
}
END_TEST

/* The nsys reader's 13 columns on a real export (Perlmutter saxpy, 115 rows
 * in a trace of 1024 rows' room): 5 kernels of grid (2,1,1), block
 * (512,1,1), 26 registers, no shared memory; 15 copies of 262144000 bytes
 * (sqlite3: SELECT ... FROM CUPTI_ACTIVITY_KIND_KERNEL / _MEMCPY).  Held
 * compactly: one block of 1024 rows a column, 1 byte a cell but block_x (2)
 * and memory.bytes (4): 17 × 1024 bytes plus each column's index (8 + 1
 * bytes), where the dense columns took 13 × 8 × 1024. */
START_TEST(an_nsys_export_holds_its_columns_compactly)
{
    tp_run *run = tp_test_run_yaml("name: t\nstages:\n  - reader: nsys\n    path: "
                                   "tests/data/nsys/pipit_saxpy_mpi_cuda_perlmutter0.sqlite\n");
    const tp_trace *t = tp_run_trace(run);
    const tp_cols *c = tp_trace_columns(t);
    const tp_extcols *x = tp_trace_ext_of(t);
    ck_assert_uint_eq(tp_ext_count(x), 13);
    ck_assert_uint_eq(tp_ext_memory(x), 17 * 1024 + 13 * (sizeof(uint8_t *) + 1));
    const int64_t *block_x = tp_ext_data(x, tp_ext_find(x, "kernel.block_x"));
    const int64_t *bytes = tp_ext_data(x, tp_ext_find(x, "memory.bytes"));
    int64_t kernels = 0, sum_block = 0, copies = 0, sum_bytes = 0;
    for (size_t r = 0; r < c->n; r++) {
        kernels += block_x[r] != TP_EXT_NULL_I64;
        sum_block += block_x[r] != TP_EXT_NULL_I64 ? block_x[r] : 0;
        copies += bytes[r] != TP_EXT_NULL_I64;
        sum_bytes += bytes[r] != TP_EXT_NULL_I64 ? bytes[r] : 0;
    }
    ck_assert_int_eq(kernels, 5);
    ck_assert_int_eq(sum_block, 2560);
    ck_assert_int_eq(copies, 15);
    ck_assert_int_eq(sum_bytes, 3932160000LL);
    /* the two columns asked for are dense now (8 bytes a row), the rest as before */
    ck_assert_uint_eq(tp_ext_memory(x),
                      2 * 8 * 1024 + (17 - 2 - 4) * 1024 + 11 * (sizeof(uint8_t *) + 1));
    tp_run_free(run);
}
END_TEST

/* Cells read a range at a time (tp_extcol_read, the host's
 * trace_ext_read) are tp_extcol_get's, across a 1-byte block, a null
 * block, an 8-byte block and the last, partial block; the column stays
 * compact.  Ranges past the cells are refused. */
START_TEST(ranges_read_in_place)
{
    tp_extcols *x = NULL;
    int col = tp_ext_add(&x, "k.v", TP_COL_I64, ROWS);
    int f = tp_ext_add(&x, "k.f", TP_COL_F64, ROWS);
    ck_assert_int_ge(col, 0);
    for (size_t r = 0; r < ROWS; r += 3) {
        int64_t v = r < TP_EXTCOL_BLOCK ? (int64_t)(r % 100) : (int64_t)r << 40;
        double d = (double)r / 4;
        if (r < TP_EXTCOL_BLOCK || r >= 2 * TP_EXTCOL_BLOCK)
            ck_assert_int_eq(tp_ext_set(x, col, r, ROWS, TP_COL_I64, &v), TP_OK);
        ck_assert_int_eq(tp_ext_set(x, f, r, ROWS, TP_COL_F64, &d), TP_OK);
    }
    size_t before = tp_ext_memory(x);
    int64_t *got = malloc(ROWS * sizeof *got);
    double *gf = malloc(ROWS * sizeof *gf);
    size_t from = TP_EXTCOL_BLOCK - 2, n = ROWS - from;
    ck_assert_int_eq(tp_ext_read(x, col, from, n, got), TP_OK);
    ck_assert_int_eq(tp_ext_read(x, f, from, n, gf), TP_OK);
    for (size_t j = 0; j < n; j++) {
        size_t r = from + j;
        int64_t want = r % 3 ? TP_EXT_NULL_I64
                       : r < TP_EXTCOL_BLOCK ? (int64_t)(r % 100)
                       : r < 2 * TP_EXTCOL_BLOCK ? TP_EXT_NULL_I64
                                                 : (int64_t)r << 40;
        ck_assert_int_eq(got[j], want);
        if (r % 3)
            ck_assert(isnan(gf[j]));
        else
            ck_assert(gf[j] == (double)r / 4);
    }
    ck_assert_int_eq(got[2], TP_EXT_NULL_I64); /* row 4096: block 1, none set */
    ck_assert_uint_eq(tp_ext_memory(x), before); /* still compact */
    ck_assert_int_eq(tp_ext_read(x, col, from, n + 1, got), TP_EINVAL);
    ck_assert_int_eq(tp_ext_read(x, 2, 0, 1, got), TP_EINVAL);
    const int64_t *d = tp_ext_data(x, col); /* dense: the same cells */
    ck_assert_int_eq(tp_ext_read(x, col, 0, ROWS, got), TP_OK);
    ck_assert_int_eq(memcmp(d, got, ROWS * sizeof *got), 0);
    free(got);
    free(gf);
    tp_ext_free(x);
}
END_TEST

/* chrome_trace writes the saxpy export's cells (5 kernels' block_x 512, 15
 * copies of 262144000 bytes) reading them in place: the columns stay
 * compact (17 x 1024 bytes and their indexes, as after reading). */
START_TEST(chrome_trace_leaves_the_columns_compact)
{
    char dir[] = "/tmp/tp_extcol_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char yaml[512], path[64], line[4096];
    snprintf(path, sizeof path, "%s/t.json", dir);
    snprintf(yaml, sizeof yaml,
             "name: t\nstages:\n  - reader: nsys\n    path: "
             "tests/data/nsys/pipit_saxpy_mpi_cuda_perlmutter0.sqlite\n"
             "  - writer: chrome_trace\n    path: %s\n",
             path);
    tp_run *run = tp_test_run_yaml(yaml);
    const tp_extcols *x = tp_trace_ext_of(tp_run_trace(run));
    ck_assert_uint_eq(tp_ext_memory(x), 17 * 1024 + 13 * (sizeof(uint8_t *) + 1));
    FILE *fp = fopen(path, "r");
    ck_assert_ptr_nonnull(fp);
    int blocks = 0, copies = 0;
    while (fgets(line, sizeof line, fp)) {
        blocks += strstr(line, "\"kernel.block_x\": 512") != NULL;
        copies += strstr(line, "\"memory.bytes\": 262144000") != NULL;
    }
    fclose(fp);
    ck_assert_int_eq(blocks, 5);
    ck_assert_int_eq(copies, 15);
    remove(path);
    remove(dir);
    tp_run_free(run);
}
END_TEST

static Suite *extcol_suite(void)
{
    Suite *s = suite_create("extcol");
    TCase *tc = tcase_create("compact");
    tcase_add_test(tc, null_blocks_hold_nothing_and_widths_grow);
    tcase_add_test(tc, other_types_read_back_bit_for_bit);
    tcase_add_test(tc, a_gather_keeps_the_kept_rows_cells);
    tcase_add_test(tc, a_small_column_grows_its_last_block);
    tcase_add_test(tc, an_nsys_export_holds_its_columns_compactly);
    tcase_add_test(tc, ranges_read_in_place);
    tcase_add_test(tc, chrome_trace_leaves_the_columns_compact);
    suite_add_tcase(s, tc);
    return s;
}
TP_TEST_SUITE(extcol_suite)
