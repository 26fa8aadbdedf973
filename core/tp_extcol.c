/*
 * Extension column cells, stored compactly (issue 31).  Most extension
 * columns are null on most rows (an nsys export's grid and block on kernel
 * rows only, a copy's bytes on copies only) and hold small integers where
 * they are not, so storing every row's cell densely as the column's type
 * cost an nsys export of 2 M rows 13 × 8 × 2 M bytes.  Here a column is
 * blocks of TP_EXTCOL_BLOCK rows: a block of null cells holds nothing; an
 * integer block holds its cells at the narrowest of 1, 2, 4 and 8 bytes
 * their values fit, the width's smallest value standing for null, and is
 * widened when a value does not fit; an F64 or SID block holds its cells as
 * they are.  A stage reading the column (tp_trace_ext_data) gets it dense,
 * the type's own array; that array then holds the column, so the pointer
 * stays what stages expect.  Values read back are the values set, bit for
 * bit; unset cells read the type's null (TP_EXT_NULL_*, NaN, string 0).
 */
#include "tp_extcol.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>

size_t tp_extcol_cell_size(tp_coltype type)
{
    switch (type) {
    case TP_COL_I32:
    case TP_COL_SID:
        return 4;
    case TP_COL_I64:
    case TP_COL_F64:
        return 8;
    case TP_COL_STR:
        break;
    }
    return 0;
}

static int is_int(tp_coltype type) { return type == TP_COL_I32 || type == TP_COL_I64; }

/* ---------------------------------------------- integers at a narrow width */

/* The smallest value of a width: it stands for null in a block of it. */
static inline int64_t width_min(unsigned w)
{
    return w == 1 ? INT8_MIN : w == 2 ? INT16_MIN : w == 4 ? INT32_MIN : INT64_MIN;
}

/* An integer cell as int64, null as INT64_MIN (a non-null int64 is never
 * INT64_MIN: that is TP_EXT_NULL_I64). */
static inline int64_t int_of(tp_coltype type, const void *v)
{
    if (type == TP_COL_I64) {
        int64_t x;
        memcpy(&x, v, sizeof x);
        return x;
    }
    int32_t x;
    memcpy(&x, v, sizeof x);
    return x == TP_EXT_NULL_I32 ? INT64_MIN : x;
}

static void int_to(tp_coltype type, int64_t x, void *out)
{
    if (type == TP_COL_I64) {
        memcpy(out, &x, sizeof x);
        return;
    }
    int32_t y = x == INT64_MIN ? TP_EXT_NULL_I32 : (int32_t)x;
    memcpy(out, &y, sizeof y);
}

/* 1 when x (INT64_MIN: null) fits width w. */
static int fits(int64_t x, unsigned w)
{
    return w == 8 || x == INT64_MIN || (x > width_min(w) && x <= -(width_min(w) + 1));
}

/* The narrowest width holding x (null fits every width). */
static unsigned width_of(int64_t x)
{
    if (x == INT64_MIN)
        return 1;
    unsigned w = 1;
    while (!fits(x, w))
        w *= 2;
    return w;
}

static int64_t narrow_get(const uint8_t *b, unsigned w, size_t i)
{
    int64_t x;
    switch (w) {
    case 1:
        x = (int8_t)b[i];
        break;
    case 2: {
        int16_t y;
        memcpy(&y, b + 2 * i, 2);
        x = y;
        break;
    }
    case 4: {
        int32_t y;
        memcpy(&y, b + 4 * i, 4);
        x = y;
        break;
    }
    default:
        memcpy(&x, b + 8 * i, 8);
        return x;
    }
    return x == width_min(w) ? INT64_MIN : x;
}

/* Stores x, which fits w. */
static inline void narrow_put(uint8_t *b, unsigned w, size_t i, int64_t x)
{
    if (x == INT64_MIN)
        x = width_min(w);
    switch (w) {
    case 1:
        b[i] = (uint8_t)(int8_t)x;
        break;
    case 2: {
        int16_t y = (int16_t)x;
        memcpy(b + 2 * i, &y, 2);
        break;
    }
    case 4: {
        int32_t y = (int32_t)x;
        memcpy(b + 4 * i, &y, 4);
        break;
    }
    default:
        memcpy(b + 8 * i, &x, 8);
    }
}

/* ------------------------------------------------------------- null cells */

static void null_cell(tp_coltype type, void *out)
{
    switch (type) {
    case TP_COL_F64: {
        double d = NAN;
        memcpy(out, &d, sizeof d);
        break;
    }
    case TP_COL_SID:
        memset(out, 0, sizeof(tp_str));
        break;
    default:
        int_to(type, INT64_MIN, out);
    }
}

int tp_extcol_is_null(tp_coltype type, const void *v)
{
    if (is_int(type))
        return int_of(type, v) == INT64_MIN;
    if (type == TP_COL_SID) {
        tp_str s;
        memcpy(&s, v, sizeof s);
        return s == 0;
    }
    double d;
    memcpy(&d, v, sizeof d);
    return isnan(d);
}

/* Sets cells [from, to) of cells of type to null. */
static void fill_null(tp_coltype type, void *cells, size_t from, size_t to)
{
    size_t size = tp_extcol_cell_size(type);
    char null[8];
    null_cell(type, null);
    for (size_t r = from; r < to; r++)
        memcpy((char *)cells + r * size, null, size);
}

/* ----------------------------------------------------------------- blocks */

/* Rows of block k: TP_EXTCOL_BLOCK, or fewer for the last block of a
 * column whose cap ends inside it (a small trace's blocks stay small). */
static size_t block_rows(const tp_extcol *c, size_t k)
{
    size_t from = k << TP_EXTCOL_SHIFT;
    if (from >= c->cap)
        return 0;
    return c->cap - from < TP_EXTCOL_BLOCK ? c->cap - from : TP_EXTCOL_BLOCK;
}

/* Sets cells [from, to) of block b, at width w, to null. */
static void null_cells(tp_coltype type, uint8_t *b, unsigned w, size_t from, size_t to)
{
    if (is_int(type))
        for (size_t i = from; i < to; i++)
            narrow_put(b, w, i, INT64_MIN);
    else
        fill_null(type, b, from, to);
}

/* Block k made of null cells at width w (F64, SID: their own size). */
static int new_block(tp_extcol *c, size_t k, unsigned w)
{
    size_t rows = block_rows(c, k);
    if ((c->block[k] = malloc(rows * w)) == NULL)
        return TP_ENOMEM;
    null_cells(c->type, c->block[k], w, 0, rows);
    c->width[k] = (uint8_t)w;
    return TP_OK;
}

/* Widens block k of an integer column to w bytes a cell. */
static int widen(tp_extcol *c, size_t k, unsigned w)
{
    size_t rows = block_rows(c, k);
    uint8_t *b = malloc(rows * w), *old = c->block[k];
    if (b == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < rows; i++)
        narrow_put(b, w, i, narrow_get(old, c->width[k], i));
    free(old);
    c->block[k] = b;
    c->width[k] = (uint8_t)w;
    return TP_OK;
}

/* Grows the last block, which held old_rows rows, to the rows cap now gives it. */
static int grow_last(tp_extcol *c, size_t k, size_t old_rows)
{
    size_t rows = block_rows(c, k);
    if (c->block[k] == NULL || rows == old_rows)
        return TP_OK;
    uint8_t *b = realloc(c->block[k], rows * c->width[k]);
    if (b == NULL)
        return TP_ENOMEM;
    null_cells(c->type, b, c->width[k], old_rows, rows);
    c->block[k] = b;
    return TP_OK;
}

/* Frees the blocks (the column holds none after). */
static void free_blocks(tp_extcol *c)
{
    for (size_t k = 0; k < c->n_blocks; k++)
        free(c->block[k]);
    free(c->block);
    free(c->width);
    c->block = NULL;
    c->width = NULL;
    c->n_blocks = 0;
}

void tp_extcol_free(tp_extcol *c)
{
    free_blocks(c);
    free(c->dense);
    c->dense = NULL;
    c->cap = 0;
}

int tp_extcol_reserve(tp_extcol *c, size_t cap)
{
    if (cap <= c->cap)
        return TP_OK;
    if (c->dense) {
        void *d = realloc(c->dense, cap * tp_extcol_cell_size(c->type));
        if (d == NULL)
            return TP_ENOMEM;
        fill_null(c->type, d, c->cap, cap);
        c->dense = d;
        c->cap = cap;
        return TP_OK;
    }
    size_t n = (cap + TP_EXTCOL_BLOCK - 1) >> TP_EXTCOL_SHIFT;
    if (n > c->n_blocks) {
        uint8_t **b = realloc(c->block, n * sizeof *b);
        if (b)
            c->block = b;
        uint8_t *w = b ? realloc(c->width, n) : NULL;
        if (w == NULL)
            return TP_ENOMEM;
        c->width = w;
        memset(c->block + c->n_blocks, 0, (n - c->n_blocks) * sizeof *b);
        memset(c->width + c->n_blocks, 0, n - c->n_blocks);
    }
    size_t last = c->n_blocks, last_rows = last ? block_rows(c, last - 1) : 0;
    c->n_blocks = n > c->n_blocks ? n : c->n_blocks;
    c->cap = cap;
    if (last && grow_last(c, last - 1, last_rows) != TP_OK) {
        /* as it was: still valid (the slots past it stay NULL) */
        c->cap = ((last - 1) << TP_EXTCOL_SHIFT) + last_rows;
        c->n_blocks = last;
        return TP_ENOMEM;
    }
    return TP_OK;
}

/* Sets cell i of block k, which may be absent or too narrow for v. */
static int set_slow(tp_extcol *c, size_t k, size_t i, const void *v)
{
    size_t size = tp_extcol_cell_size(c->type);
    int64_t x = is_int(c->type) ? int_of(c->type, v) : 0;
    unsigned w = is_int(c->type) ? width_of(x) : (unsigned)size;
    if (c->block[k] == NULL) {
        char null[8];
        null_cell(c->type, null);
        if (memcmp(v, null, size) == 0)
            return TP_OK; /* the cell already reads so */
        if (new_block(c, k, w) != TP_OK)
            return TP_ENOMEM;
    }
    if (!is_int(c->type)) {
        memcpy(c->block[k] + i * size, v, size);
        return TP_OK;
    }
    if (w > c->width[k] && widen(c, k, w) != TP_OK)
        return TP_ENOMEM;
    narrow_put(c->block[k], c->width[k], i, x);
    return TP_OK;
}

int tp_extcol_set(tp_extcol *c, size_t row, const void *v)
{
    if (c->dense) {
        size_t size = tp_extcol_cell_size(c->type);
        memcpy((char *)c->dense + row * size, v, size);
        return TP_OK;
    }
    size_t k = row >> TP_EXTCOL_SHIFT, i = row & (TP_EXTCOL_BLOCK - 1);
    uint8_t *b = c->block[k];
    if (b != NULL && is_int(c->type)) { /* the common case: a block that fits */
        int64_t x = int_of(c->type, v);
        unsigned w = c->width[k];
        if (x != INT64_MIN && x > width_min(w) && x <= -(width_min(w) + 1)) {
            if (w == 1)
                b[i] = (uint8_t)(int8_t)x;
            else
                narrow_put(b, w, i, x);
            return TP_OK;
        }
    }
    return set_slow(c, k, i, v);
}

void tp_extcol_get(const tp_extcol *c, size_t row, void *out)
{
    size_t size = tp_extcol_cell_size(c->type);
    if (c->dense) {
        memcpy(out, (const char *)c->dense + row * size, size);
        return;
    }
    size_t k = row >> TP_EXTCOL_SHIFT, i = row & (TP_EXTCOL_BLOCK - 1);
    if (c->block[k] == NULL)
        null_cell(c->type, out);
    else if (is_int(c->type))
        int_to(c->type, narrow_get(c->block[k], c->width[k], i), out);
    else
        memcpy(out, c->block[k] + i * size, size);
}

void tp_extcol_read(const tp_extcol *c, size_t row, size_t n, void *out)
{
    size_t size = tp_extcol_cell_size(c->type);
    char *o = out;
    if (c->dense) {
        memcpy(o, (const char *)c->dense + row * size, n * size);
        return;
    }
    while (n > 0) { /* a block's part at a time */
        size_t k = row >> TP_EXTCOL_SHIFT, i = row & (TP_EXTCOL_BLOCK - 1);
        size_t m = TP_EXTCOL_BLOCK - i < n ? TP_EXTCOL_BLOCK - i : n;
        const uint8_t *b = c->block[k];
        if (b == NULL)
            fill_null(c->type, o, 0, m);
        else if (!is_int(c->type))
            memcpy(o, b + i * size, m * size);
        else
            for (size_t j = 0; j < m; j++)
                int_to(c->type, narrow_get(b, c->width[k], i + j), o + j * size);
        o += m * size, row += m, n -= m;
    }
}

const void *tp_extcol_dense(tp_extcol *c)
{
    if (c->dense)
        return c->dense;
    size_t size = tp_extcol_cell_size(c->type);
    char *d = malloc((c->cap ? c->cap : 1) * size);
    if (d == NULL)
        return NULL;
    for (size_t r = 0; r < c->cap; r++)
        tp_extcol_get(c, r, d + r * size);
    free_blocks(c);
    c->dense = d;
    return d;
}

size_t tp_extcol_memory(const tp_extcol *c)
{
    if (c->dense)
        return c->cap * tp_extcol_cell_size(c->type);
    size_t bytes = c->n_blocks * (sizeof *c->block + 1);
    for (size_t k = 0; k < c->n_blocks; k++)
        bytes += c->block[k] ? block_rows(c, k) * c->width[k] : 0;
    return bytes;
}
