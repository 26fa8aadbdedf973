/* One extension column's cells, stored compactly (issue 31; tp_extcol.c). */
#ifndef TRACEPIPE_TP_EXTCOL_H
#define TRACEPIPE_TP_EXTCOL_H

#include <stddef.h>
#include <stdint.h>
#include <tracepipe/tp_types.h>

/* Rows in [0, cap), in blocks of TP_EXTCOL_BLOCK rows: a block whose cells
 * are all null holds nothing, any other holds its cells at the narrowest
 * width its values fit (integers; 1, 2, 4 or 8 bytes) or at the type's own
 * (F64, SID).  The first stage that asks for the column as an array gets it
 * dense (`dense`), which holds the column from then on. */
#define TP_EXTCOL_SHIFT 12
#define TP_EXTCOL_BLOCK ((size_t)1 << TP_EXTCOL_SHIFT)

typedef struct tp_extcol {
    tp_coltype type; /* TP_COL_I32, TP_COL_I64, TP_COL_F64 or TP_COL_SID */
    size_t cap;      /* rows */
    void *dense;     /* NULL until asked for: then cap cells of the type */
    uint8_t **block; /* n_blocks of them: NULL (all null) or TP_EXTCOL_BLOCK cells */
    uint8_t *width;  /* bytes per cell of each block */
    size_t n_blocks;
} tp_extcol;

/* The cell size of a column type (0: not a column type). */
size_t tp_extcol_cell_size(tp_coltype type);
void tp_extcol_free(tp_extcol *c);
int tp_extcol_reserve(tp_extcol *c, size_t cap);
/* Sets row (< cap) to the cell *v, of the column's type. */
int tp_extcol_set(tp_extcol *c, size_t row, const void *v);
/* The cell of row (< cap) into *out, of the column's type. */
void tp_extcol_get(const tp_extcol *c, size_t row, void *out);
/* Cells [row, row + n) (row + n <= cap) into out, n cells of the column's
 * type, read in place: the column stays as it is stored. */
void tp_extcol_read(const tp_extcol *c, size_t row, size_t n, void *out);
/* 1 when *v (of type) is the type's null value. */
int tp_extcol_is_null(tp_coltype type, const void *v);
/* The column as cap cells of its type (held from now on), or NULL (no memory). */
const void *tp_extcol_dense(tp_extcol *c);
size_t tp_extcol_memory(const tp_extcol *c);

#endif
