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
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_sdk_spill.h>

#include "kin.h"

#define SPILL_BUF (1u << 20)

struct kin_spill {
    int fd;          /* owned by the trace (or, for a copy, borrowed) */
    char *buf;
    size_t used;
    uint64_t at;     /* file offset of buf[0] */
    int err;         /* errno of a failed write, kept for the message */
    kin_parser *guard; /* the main parser while a split worker may write too */
};

static kin_spill *spill_new(int fd, uint64_t at)
{
    kin_spill *s = tp_calloc(1, sizeof *s);
    if (s == NULL || (s->buf = tp_malloc(SPILL_BUF)) == NULL) {
        tp_free(s);
        return NULL;
    }
    s->fd = fd;
    s->at = at;
    return s;
}

int kin_spill_open(kin_parser *kp)
{
    int fd = tp_spill_temp_file();
    if (fd < 0) {
        tp_log(kp->st, TP_LOG_DEBUG, "%s: no temporary file for the args (%s): kept in memory",
               kp->path, strerror(errno));
        return TP_OK;
    }
    if (tp_trace_set_args_file(kp->st, kp->trace, fd) != TP_OK) /* fd is the trace's now */
        return TP_ENOMEM;
    if ((kp->spill = spill_new(fd, 0)) == NULL)
        return TP_ENOMEM;
    return TP_OK;
}

kin_spill *kin_spill_at(const kin_spill *s, uint64_t at)
{
    return spill_new(s->fd, at);
}

void kin_spill_guard(kin_spill *s, kin_parser *kp)
{
    if (s != NULL)
        s->guard = kp;
}

int kin_spill_flush(kin_spill *s)
{
    if (s == NULL || s->used == 0)
        return TP_OK;
    if (s->guard != NULL)
        kin_split_spill_flushing(s->guard, s->at + s->used);
    if ((s->err = tp_spill_pwrite(s->fd, s->buf, s->used, s->at)) != 0)
        return TP_EIO;
    s->at += s->used;
    s->used = 0;
    return TP_OK;
}

int kin_spill_put(kin_spill *s, const char *text, size_t len, uint64_t *off)
{
    *off = s->at + s->used;
    while (len > 0) {
        if (s->used == SPILL_BUF && kin_spill_flush(s) != TP_OK)
            return TP_EIO;
        size_t n = SPILL_BUF - s->used < len ? SPILL_BUF - s->used : len;
        memcpy(s->buf + s->used, text, n);
        s->used += n;
        text += n;
        len -= n;
    }
    return TP_OK;
}

const char *kin_spill_error(const kin_spill *s)
{
    return strerror(s && s->err ? s->err : EIO);
}

void kin_spill_free(kin_spill *s)
{
    if (s != NULL) {
        tp_free(s->buf);
        tp_free(s);
    }
}
