/*
 * tracepipe SDK: args texts a reader has no file to leave in (issue 31).
 *
 * A reader whose args texts are not bytes of a plain source file (a gzip
 * trace, texts the reader makes itself) writes them, in order, to an
 * unlinked temporary file (in TMPDIR, else /tmp) through a 1 MiB buffer,
 * and the trace refers to them there (trace_set_args_file, then
 * trace_append_ref with the offset tp_spill_put gives): the page cache
 * holds them, not the process, and the core maps the file only when a stage
 * reads args.  Every text must be flushed (tp_spill_flush) before any stage
 * reads args.
 */
#ifndef TRACEPIPE_TP_SDK_SPILL_H
#define TRACEPIPE_TP_SDK_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "tp_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tp_spill tp_spill;

/* The folder temporary files are made in: TMPDIR, else /tmp. */
const char *tp_spill_dir(void);

/* An unlinked temporary file in TMPDIR (else /tmp), open read-write, or -1
 * (errno says why). */
int tp_spill_temp_file(void);

/* Writes n bytes at offset off of fd: 0, or an errno. */
int tp_spill_pwrite(int fd, const char *p, size_t n, uint64_t off);

/* Trace t's args go to a new temporary file from now on: TP_OK with *out,
 * or TP_OK with *out NULL when no temporary file can be made (logged with
 * path; the reader keeps its args in memory, as before); TP_ENOMEM. */
int tp_spill_open(tp_stage *st, tp_trace *t, const char *path, tp_spill **out);

/* Another writer of s's file from offset at, with a buffer of its own (a
 * second thread's texts, which start at at); NULL when out of memory. */
tp_spill *tp_spill_at(const tp_spill *s, uint64_t at);

/* fn(ctx, end) before each write of s's buffer, end the offset the write
 * reaches (a writer below another one's start checks it does not pass
 * it); fn NULL: none. */
void tp_spill_on_flush(tp_spill *s, void (*fn)(void *ctx, uint64_t end), void *ctx);

/* Appends len bytes of text; *off: where they start in the file. TP_OK or
 * TP_EIO (tp_spill_error). */
int tp_spill_put(tp_spill *s, const char *text, size_t len, uint64_t *off);

/* Writes what the buffer holds: TP_OK or TP_EIO. */
int tp_spill_flush(tp_spill *s);

/* Why a write failed (strerror). */
const char *tp_spill_error(const tp_spill *s);

/* Frees the writer (the file belongs to the trace); NULL is fine. */
void tp_spill_free(tp_spill *s);

#ifdef __cplusplus
}
#endif

#endif
