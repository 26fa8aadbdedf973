/* reader nsys: where the SQLite reader's args texts go (nsys_args.c). */
#ifndef TRACEPIPE_NSYS_ARGS_H
#define TRACEPIPE_NSYS_ARGS_H

#include <stddef.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_spill.h>

/* Args texts (API calls, NVTX payloads) kept in memory before they go to a
 * temporary file: below it a read needs no room in TMPDIR. */
#define NSYS_ARGS_IN_MEMORY ((size_t)4 << 20)

/* The texts of one read: in memory up to cap bytes, then in a temporary
 * file (spill) when one can be made. */
typedef struct nsys_args {
    tp_stage *st;
    tp_trace *t;
    const char *path;
    tp_spill *spill;    /* NULL: in memory */
    size_t in_memory;   /* bytes kept in memory so far */
    size_t cap;         /* NSYS_ARGS_IN_MEMORY, or the tests' TP_TEST_NSYS_ARGS_IN_MEMORY */
    int tried;          /* the temporary file was asked for (made or not) */
} nsys_args;

/* Ready for trace t of stage st, read from path. */
void nsys_args_init(nsys_args *a, tp_stage *st, tp_trace *t, const char *path);

/* Appends ev to the trace, its args text in memory or in the file. */
int nsys_args_append(nsys_args *a, const tp_event *ev);

/* Writes what the file's buffer holds (before any stage reads args). */
int nsys_args_flush(nsys_args *a);

void nsys_args_free(nsys_args *a);

#endif
