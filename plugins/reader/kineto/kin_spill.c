/*
 * kineto reader: args texts that have no file to stay in (issue 31).
 *
 * A plain regular file keeps its args where they are (trace_append_ref into
 * the source).  A gzip trace, or one read from a pipe, has no such file: its
 * args texts used to be copied into the trace's memory, about 200 bytes an
 * event (a 1 GB .json.gz took 3.2 times the memory of the same file plain).
 * They are now written, in file order, to an unlinked temporary file (in
 * TMPDIR, else /tmp) through a small buffer, and the trace refers to them
 * there (trace_set_args_file): the page cache holds them, not the process,
 * and the core maps the file only when a stage reads args.
 *
 * A split worker (kin_split.c) writes its half's texts to the same file
 * from its cut (an offset in the decompressed text): the main parser's
 * texts are part of the text before the cut, so they end before it, and
 * the merge needs no copy.  Only when the main parser passes the cut (a
 * wrong guess) could its texts reach the worker's; the main parser then
 * stops the worker before writing there (kin_split_spill_flushing).
 *
 * The file and its buffered writers are the SDK's (tp_sdk_spill.h), which
 * the nsys reader uses too; here is what the Kineto reader adds.
 */
#include <tracepipe/tp_sdk_spill.h>

#include "kin.h"

int kin_spill_open(kin_parser *kp)
{
    return tp_spill_open(kp->st, kp->trace, kp->path, &kp->spill);
}

kin_spill *kin_spill_at(const kin_spill *s, uint64_t at)
{
    return tp_spill_at(s, at);
}

static void flushing(void *kp, uint64_t end)
{
    kin_split_spill_flushing(kp, end);
}

void kin_spill_guard(kin_spill *s, kin_parser *kp)
{
    tp_spill_on_flush(s, kp ? flushing : NULL, kp);
}

int kin_spill_flush(kin_spill *s)
{
    return tp_spill_flush(s);
}

int kin_spill_put(kin_spill *s, const char *text, size_t len, uint64_t *off)
{
    return tp_spill_put(s, text, len, off);
}

const char *kin_spill_error(const kin_spill *s)
{
    return tp_spill_error(s);
}

void kin_spill_free(kin_spill *s)
{
    tp_spill_free(s);
}
