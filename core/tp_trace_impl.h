/* Core-internal, the trace module's own: the layout of a trace, shared by
 * tp_trace.c (columns, rows, args, metadata, source file) and
 * tp_trace_filter.c (attachments, filtered copies, bookkeeping).  Other
 * modules use tp_trace.h. */
#ifndef TRACEPIPE_TP_TRACE_IMPL_H
#define TRACEPIPE_TP_TRACE_IMPL_H

#include "tp_guard.h"
#include "tp_strpool.h"
#include "tp_trace.h"

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

typedef struct attachment {
    char *name;
    tp_coltype type;
    size_t n;
    void *data;
    /* a lazy attachment (tp_trace_attach_lazy): data is NULL until the
     * first lookup runs fill; user is freed once filled or with the trace */
    tp_attach_fill_fn fill;
    void *user;
    void (*free_user)(void *user);
    bool filling; /* its filler is running (a filler asking for itself) */
} attachment;

typedef struct meta_entry {
    char *key, *json;
} meta_entry;

/* args_off values with this bit are offsets into the source file. */
#define ARGS_IN_FILE (UINT64_C(1) << 63)

/* Which rows have args, 64 rows a word, when only those rows have an
 * (offset, length) slot (issue 31): bit r % 64 of word r / 64, and the
 * rows with args before the word.  A row's slot is rank + the bits set
 * below its own. */
typedef struct args_word {
    uint64_t bits, rank;
} args_word;

/* The source file of a trace, shared with the traces filtered from it.
 * Args left in the file (trace_append_ref) are read through a read-only
 * mapping made on the first read, so a run that never reads args never
 * holds them.  The file is held open from the first such reference: renaming
 * or deleting its path later changes nothing.  What was read is compared with
 * the file (size, mtime) when it is mapped and after every stage
 * (tp_trace_source_problem), and a SIGBUS on the mapping after a truncation
 * is caught (tp_guard.c): a changed file fails the run with one line naming
 * it, never gives args from other bytes. */
typedef struct source_file {
    int refs;
    char *path;
    bool known;             /* dev ... mtime: the file when the reader named it */
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    int fd;                 /* -1 until the first args reference */
    bool tried;             /* the mapping was attempted */
    const char *data;
    size_t len;
    tp_map_slot *guard;
    char *problem;          /* the first change found, a whole message */
    bool own;               /* fd is the reader's own args file (trace_set_args_file):
                               nobody else writes it, so it is not checked for changes */
} source_file;

/* The distinct (pid, tid, device, stream) places, with an open-addressing
 * index (slot = track + 1, 0 = empty) and the last one found, since
 * consecutive events are mostly on the same thread. */
typedef struct track_table {
    tp_track *v;
    size_t n, cap;
    uint32_t *slots;
    size_t nslots; /* power of two, at most half full */
    uint32_t last;
} track_table;

struct tp_trace {
    tp_strpool *pool; /* borrowed from the run */
    tp_cols cols;     /* const views of the arrays below */
    size_t cap;
    int64_t *ts, *dur;
    int32_t *ext_id, *corr, *flow_id; /* see TP_ID32_WIDE */
    int64_t *wide;
    size_t n_wide, cap_wide;
    tp_str *name, *cat;
    uint32_t *track;
    uint8_t *kind, *phase;
    track_table tracks;
    /* args (offset, length) per slot: NULL until some row has args.  Dense
     * (args_words NULL): a slot per row, the row's index, args_off and
     * args_len of t->cap cells.  Sparse: a slot per row with args only, in
     * row order (args_slots used of args_slot_cap), found by args_words;
     * sparse only while it takes less memory (tp_trace_args_settle). */
    uint64_t *args_off;
    uint32_t *args_len;
    args_word *args_words;
    size_t args_slots, args_slot_cap;
    char *arena;
    size_t arena_used, arena_cap;
    meta_entry *meta;
    size_t n_meta;
    attachment *att;
    size_t n_att;
    char **done;
    size_t n_done;
    tp_info *info;   /* typed trace info (tp_traceext.c) */
    tp_extcols *ext; /* extension columns (tp_traceext.c) */
    char *id;        /* the reader stage's id */
    source_file *src; /* NULL until set; shared by filtered copies */
};

/* tp_trace.c, for the trace module's other files (tp_trace_handoff.c):
 * the const views after the arrays changed; the source file held open
 * (args references into it); a track's index, added if new. */
void tp_trace_refresh_views(tp_trace *t);
int tp_trace_grow(void **p, size_t elem, size_t cap); /* realloc'd to cap cells: 0, or -1 */
/* Row's args length (0: none) and raw offset (ARGS_IN_FILE for the file),
 * dense or sparse; the memory the args slots take. */
uint32_t tp_trace_args_ref(const tp_trace *t, size_t row, uint64_t *off);
size_t tp_trace_args_memory(const tp_trace *t);
/* tp_trace_args.c for tp_trace.c: the slots grown with the rows (cap),
 * made for the first row with args (the row about to be appended), row's
 * slot written (rows in order, every row once the slots exist), freed. */
int tp_trace_args_grow(tp_trace *t, size_t cap);
void tp_trace_args_grown(tp_trace *t); /* after the rows grew: settled, room kept */
int tp_trace_args_make(tp_trace *t);
int tp_trace_args_put_sparse(tp_trace *t, size_t row, uint64_t off, uint32_t len);
/* Rows [at, at + n) of a block of rows (tp_rows): lengths len (NULL: no
 * args), offsets off into the source file (ARGS_IN_FILE added here). */
int tp_trace_args_put_block(tp_trace *t, size_t at, size_t n, const uint64_t *off,
                            const uint32_t *len);
static inline int tp_trace_args_put(tp_trace *t, size_t row, uint64_t off, uint32_t len)
{
    if (t->args_words != NULL)
        return tp_trace_args_put_sparse(t, row, off, len);
    t->args_off[row] = off;
    t->args_len[row] = len;
    return TP_OK;
}
void tp_trace_args_free(tp_trace *t);
void tp_trace_source_hold(tp_trace *t);
int tp_trace_add_track(tp_trace *t, const tp_track *k, uint32_t *index);

#endif
