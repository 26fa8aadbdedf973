/* reader nsys: the SQLite reader's args texts, in memory up to
 * NSYS_ARGS_IN_MEMORY bytes, then in a temporary file (tp_sdk_spill.h):
 * a small export reads with no room in TMPDIR; the trace holds rows of
 * both kinds (an args text in the arena or in the file, per row). */
#include <stdlib.h>

#include "nsys_args.h"

/* The bytes kept in memory before a temporary file is made (the tests set
 * fewer, to read an export both ways). */
static size_t args_cap(void)
{
    const char *v = getenv("TP_TEST_NSYS_ARGS_IN_MEMORY");
    return v != NULL && v[0] != '\0' ? (size_t)strtoull(v, NULL, 10) : NSYS_ARGS_IN_MEMORY;
}

void nsys_args_init(nsys_args *a, tp_stage *st, tp_trace *t, const char *path)
{
    *a = (nsys_args){.st = st, .t = t, .path = path, .cap = args_cap()};
}

static int spill_failed(nsys_args *a)
{
    return tp_fail(a->st, TP_EIO, "%s: cannot write its args to a temporary file in %s: %s "
                   "(TMPDIR chooses the folder)", a->path, tp_spill_dir(),
                   tp_spill_error(a->spill));
}

/* An args text of len bytes is about to be appended: the temporary file is
 * made once the texts kept in memory would pass the cap. */
static int place(nsys_args *a, size_t len)
{
    if (a->spill == NULL && !a->tried && a->in_memory + len > a->cap) {
        a->tried = 1;
        tp_log(a->st, TP_LOG_DEBUG, "%s: args texts past %zu bytes go to a temporary file",
               a->path, a->in_memory);
        return tp_spill_open(a->st, a->t, a->path, &a->spill);
    }
    if (a->spill == NULL)
        a->in_memory += len;
    return TP_OK;
}

int nsys_args_append(nsys_args *a, const tp_event *ev)
{
    uint64_t off = 0;
    int rc = place(a, ev->args_len);
    if (rc != TP_OK)
        return rc;
    if (a->spill == NULL || ev->args_len == 0)
        return tp_trace_append(a->st, a->t, ev);
    if (tp_spill_put(a->spill, ev->args, ev->args_len, &off) != TP_OK)
        return spill_failed(a);
    return tp_trace_append_ref(a->st, a->t, ev, off);
}

int nsys_args_flush(nsys_args *a)
{
    return tp_spill_flush(a->spill) == TP_OK ? TP_OK : spill_failed(a);
}

void nsys_args_free(nsys_args *a)
{
    tp_spill_free(a->spill);
    a->spill = NULL;
}
