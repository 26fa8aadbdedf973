/* Core-internal: a batch's parsed trace handed from the trace's process to
 * the batch stages' (issue 31; tp_trace_handoff.c writes and loads the
 * file, tp_run_handoff.c decides when).  The format is the core's own:
 * a header with a magic and a version, then the trace's parts, then a
 * digest of every byte before it; any mismatch is a refusal (the caller
 * reads the trace again), never a crash. */
#ifndef TRACEPIPE_TP_HANDOFF_H
#define TRACEPIPE_TP_HANDOFF_H

#include "tp_core.h"
#include "tp_strpool.h"

#include <stddef.h>
#include <stdint.h>

/* What the trace was read with: the reader's name and every option but
 * its input file, digested.  A load is refused unless the keys agree. */
uint64_t tp_handoff_reader_key(const tp_stage_desc *desc, const void *config);
/* Writes trace t, whose strings are the texts 1 .. count-1 of pool in
 * that order (the pool held nothing else before its reader ran), read from
 * the file input (its identity kept: dev, inode, size, mtime, ctime), to path
 * (through path.tmp, renamed).  TP_OK, or an error with why set (nothing
 * left at path). */
int tp_handoff_write(const tp_trace *t, const tp_strpool *pool, uint64_t key, const char *input,
                     const char *path, char *why, size_t why_size);
/* Loads the trace at path into a new trace over pool: its texts interned
 * in the order written, ids remapped, the track index rebuilt; refused
 * unless it was read from the file input (the same path), unchanged since,
 * with the reader key key.  TP_OK and *out, or an error with why set (*out
 * NULL). */
int tp_handoff_load(const char *path, tp_strpool *pool, uint64_t key, const char *input,
                    tp_trace **out, char *why, size_t why_size);

#endif
