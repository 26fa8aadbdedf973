/* reader nsys: the rows of an export's integer tables (API calls, kernels,
 * copies, sets, syncs, OS runtime calls) as blocks of cells (issue 31).
 *
 * The reader names its tables once, in the order it reads them (the jobs);
 * their rows are then decoded block by block either in line, on the
 * reader's connection, or, when the stage may keep two threads busy, by a
 * second thread on a read-only connection of its own, a few blocks ahead.
 * Either way the reader takes the blocks of each job in order, so the
 * trace is the same: the thread only takes SQLite's decoding off the
 * reader's path. */
#ifndef TRACEPIPE_NSYS_ROWS_H
#define TRACEPIPE_NSYS_ROWS_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* A cell: NULL, an integer, or anything else (text, a real, a blob: a
 * damaged integer cell). */
enum { NSYS_CELL_NULL, NSYS_CELL_INT, NSYS_CELL_OTHER };

#define NSYS_MAX_COLS 18   /* the widest job (kernels) */
#define NSYS_BLOCK_ROWS 1024
#define NSYS_MAX_JOBS 8

/* One row of a block: cells 0 .. ncols - 1. */
typedef struct nsys_row {
    const int64_t *v;    /* the integer when type is NSYS_CELL_INT, else 0 */
    const uint8_t *type; /* NSYS_CELL_* */
} nsys_row;

typedef struct nsys_block {
    size_t rows;
    int ncols;
    int64_t v[NSYS_BLOCK_ROWS * NSYS_MAX_COLS];
    uint8_t type[NSYS_BLOCK_ROWS * NSYS_MAX_COLS];
} nsys_block;

static inline nsys_row nsys_block_row(const nsys_block *b, size_t r)
{
    nsys_row row = {b->v + r * (size_t)b->ncols, b->type + r * (size_t)b->ncols};
    return row;
}

/* A value's cell type. */
static inline int nsys_cell_type(sqlite3_value *v)
{
    int t = sqlite3_value_type(v);
    return t == SQLITE_INTEGER ? NSYS_CELL_INT : t == SQLITE_NULL ? NSYS_CELL_NULL : NSYS_CELL_OTHER;
}

typedef struct nsys_rows nsys_rows;

/* Starts the jobs: sql[j] is job j's query (ncols[j] columns, at most
 * NSYS_MAX_COLS), NULL for a table the reader skips.  own is the second
 * thread's connection (taken: closed by nsys_rows_stop), or NULL to decode
 * in line on db.  NULL when out of memory (own closed). */
nsys_rows *nsys_rows_start(sqlite3 *db, sqlite3 *own, const char *const *sql, const int *ncols,
                           int jobs);

/* The next block of job j (jobs taken in order, each to its end): 1 and
 * *b, 0 at the job's end, -1 on an SQLite error (nsys_rows_error). */
int nsys_rows_next(nsys_rows *r, int job, const nsys_block **b);

/* The SQLite message of the error nsys_rows_next returned. */
const char *nsys_rows_error(const nsys_rows *r);

/* Whether a second thread decodes. */
int nsys_rows_threaded(const nsys_rows *r);

/* Stops the thread (if any) and frees everything; NULL is fine. */
void nsys_rows_stop(nsys_rows *r);

#endif
