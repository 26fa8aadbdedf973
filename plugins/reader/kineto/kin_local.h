/*
 * kineto reader: a split worker's strings and events (kin_split.c), and
 * their merge into the run's trace (kin_merge.c).
 */
#ifndef KIN_LOCAL_H
#define KIN_LOCAL_H

#include "kin.h"

#define LOC_CHUNK 65536            /* events per chunk of the worker's list */
#define LOC_ARENA UINT32_MAX       /* args_gap: the args text is the arena's next */

/* The worker's events live in chunks mapped straight from the kernel, so
 * each can be given back (munmap) as soon as the merge has appended it:
 * the trace grows while the worker's list shrinks.  An event takes 62
 * bytes here against 74 in the trace, so the peak is the final trace, at
 * the end of the merge: columns (no padding), pid/tid/device/stream as an
 * index into the few distinct ones, and the args text's place as the gap
 * after the previous args in the file (they come in file order), not as
 * an offset. */
typedef struct loc_chunk {
    int64_t ts[LOC_CHUNK], dur[LOC_CHUNK];
    int64_t ext_id[LOC_CHUNK], corr[LOC_CHUNK], flow_id[LOC_CHUNK];
    tp_str name[LOC_CHUNK], cat[LOC_CHUNK]; /* local string ids */
    uint32_t thread[LOC_CHUNK];   /* index into kin_local.thr */
    uint32_t args_len[LOC_CHUNK];
    uint32_t args_gap[LOC_CHUNK]; /* args_len > 0: bytes from the end of the
                                     previous args left in the file (or from
                                     the cut) to these, or LOC_ARENA */
    uint8_t kind[LOC_CHUNK], phase[LOC_CHUNK];
} loc_chunk;

/* Where an event happened; compared and hashed as bytes. */
typedef struct loc_thread {
    int64_t pid, tid; /* local string ids when TP_ID_IS_STR */
    int32_t device, stream;
} loc_thread;
_Static_assert(sizeof(loc_thread) == 24, "loc_thread has no padding");

typedef struct loc_block {
    char *data;
    size_t used, cap;
} loc_block;

#define LOC_ARENA_BLOCK (16u << 20)

typedef struct loc_text {
    const char *s;
    uint32_t len;
} loc_text;

struct kin_local {
    loc_text *text;   /* id -> text; id 0 is "" */
    size_t ntext, cap_text;
    uint32_t *slots;  /* open addressing, power of two, at most half full */
    size_t nslots;
    char **blocks;    /* text storage */
    size_t nblocks, block_used, block_size;
    loc_thread *thr;  /* distinct (pid, tid, device, stream) */
    size_t nthr, cap_thr;
    uint32_t *thr_slots; /* index + 1, open addressing like slots */
    size_t nthr_slots;
    uint32_t thr_last;   /* the previous event's, tried first */
    loc_chunk **chunks;
    size_t nchunks, nev;
    uint64_t file_end;   /* end of the last args left in the file (or the cut) */
    /* args texts that are not in the file (gzip input), in blocks mapped
     * from the kernel and unmapped as the merge passes them, like the
     * chunks: the trace's copy grows while this one shrinks */
    loc_block *arena;
    size_t narena, cap_arena;
    char **meta_key, **meta_json; /* top-level members after traceEvents */
    size_t *meta_len, nmeta;
};

/* Gives a chunk back to the kernel (NULL: nothing). */
void kin_local_chunk_unmap(loc_chunk *c);
/* Appends the worker's events (its args texts left in the file from cut,
 * or in its arena) and metadata to the run's trace (kin_merge.c); the
 * chunks and arena blocks are given back as they are passed. */
int kin_local_merge(kin_parser *kp, kin_local *l, uint64_t cut);

#endif
