/*
 * tracepipe SDK: collective calls (issue 30).  The one matcher of
 * collectives across the ranks of a job (CONVENTIONS, "Collectives across
 * ranks"), NCCL's bandwidth definitions and the element sizes of the dtypes
 * collectives name.  ranks and collectives use it.
 *
 * Matching.  Each rank hands its calls in its own start order, each with a
 * key (the caller's: process group and type, or 0 for "every collective
 * one sequence").  A call's sequence number is its position among the
 * rank's calls of the same key; calls of equal (key, sequence) on several
 * ranks are one matched collective.  A rank's clock offset is the median
 * (numpy's) over the collectives it shares with rank 0 of (its end - rank
 * 0's end): a collective cannot end on one rank before the last has joined,
 * so ends agree across ranks.  Offsets are in half nanoseconds (an even
 * count's median ends in .5 ns).  A member's arrival is its start minus its
 * rank's offset; wait = the latest arrival of the collective - its own,
 * skew = latest - earliest.
 */
#ifndef TRACEPIPE_TP_SDK_COLL_H
#define TRACEPIPE_TP_SDK_COLL_H

#include <stddef.h>
#include <stdint.h>

#include "tp_sdk_vocab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One rank's calls, in its start order (ns; any common origin per rank). */
typedef struct tp_coll_rank {
    const int64_t *start, *end;
    const uint64_t *key;
    size_t n;
} tp_coll_rank;

/* One member of a matched collective: rank index and call index. */
typedef struct tp_coll_member {
    uint32_t rank, call;
} tp_coll_member;

typedef struct tp_coll_match {
    size_t nsets;          /* matched collectives, by (key, sequence) */
    size_t *first;         /* nsets + 1: set s is member[first[s] .. first[s+1]) */
    tp_coll_member *member;/* ranks in increasing order within a set */
    uint64_t *key;         /* nsets: the set's key */
    uint32_t *seq;         /* nsets: its sequence number within the key */
    int64_t *offset_hns;   /* per rank: clock offset, half nanoseconds */
    int64_t *arrival_hns;  /* per member: 2 * start - offset */
    int64_t *latest_hns, *earliest_hns; /* per set */
    size_t nranks;
    size_t *latest;        /* since 3.4: per set, the member (index into member) that
                              arrives last, the first of a tie */
} tp_coll_match;

/* Matches the calls of nranks ranks.  TP_OK or TP_ENOMEM; free with
 * tp_coll_match_free. */
int tp_coll_match_ranks(const tp_coll_rank *ranks, size_t nranks, tp_coll_match *m);
void tp_coll_match_free(tp_coll_match *m);

/* The matching key of a collective call (CONVENTIONS, "Collectives across
 * ranks"): its process group's name ("" or NULL: none said) and its type,
 * FNV-1a.  collectives and critical_path key their calls with it. */
uint64_t tp_coll_key(const char *group, tp_coll_type type);

/* The process group of collective activity a (a GPU kernel) of trace t
 * into buf ("" when none is said): the "Process Group Name" arg of a
 * itself, else of the nearest event above its launch (the launch call,
 * then its ancestors: record_param_comms), else the communicator id of the
 * nearest NVTX range above it with NCCL's payload (an nsys export).
 * Returns 1 when found, else 0. */
struct tp_hier_view; /* tp_sdk_hier.h */
int tp_coll_group_of(const tp_trace *t, const struct tp_hier_view *h, int32_t a, char *buf,
                     size_t size);
/* The same on the hierarchy's compact view (no wide arrays filled). */
struct tp_hier_cview; /* tp_sdk_hier.h */
int tp_coll_group_of_ranked(const tp_trace *t, const struct tp_hier_cview *h, int32_t a,
                            char *buf, size_t size);

/* Members of set s. */
static inline size_t tp_coll_set_size(const tp_coll_match *m, size_t s)
{
    return m->first[s + 1] - m->first[s];
}

/* NCCL's bus bandwidth factor (nccl-tests doc/PERFORMANCE.md): busbw =
 * algbw * factor for a collective of type t over n ranks: all_reduce
 * 2(n-1)/n; all_gather, reduce_scatter, all_to_all (n-1)/n; broadcast,
 * reduce, send/recv 1; NaN for other types or n < 1. */
double tp_coll_busbw_factor(tp_coll_type t, int64_t n);

/* The bytes of one element of a dtype as PyTorch names it in traces
 * ("Float", "float", "c10::BFloat16", "Half", "Long", "Char", "Byte",
 * "float8_e4m3fn" ...), case ignored; 0 when unknown. */
int tp_dtype_bytes(const char *dtype);
/* The same as a double: the one table of element sizes (tp_gemm_bpe_of and
 * the op models read it too): "bool", "unsigned char", "signed char" 1,
 * "short int" 2, "c10::complex<float>" 8, a packed FP4 pair
 * ("c10::Float4_e2m1fn_x2") 1 per element of its shape; 0 when unknown
 * ("Scalar", "TensorList", ""). */
double tp_dtype_bpe(const char *dtype);

/*
 * NCCL's NVTX payloads (NCCL 2.19+, its nvtx_payload_schemas.h): each API
 * call is an NVTX range of domain "NCCL" whose payload's entries are named
 * "NCCL communicator ID", "Message size [bytes]" (one rank's part: an
 * all_gather's input, a reduce_scatter's output, else the whole message),
 * "Reduction operation", newer ones "Datatype"; ncclCommInitRank's range has
 * "No. of ranks" and "Rank".  A reader keeps a range's payload, as the
 * export renders it (Nsight Systems' SQLite `jsonText`: a JSON object keyed
 * by the entries' names), as the event's args; these read it.
 */
typedef struct tp_coll_payload {
    int64_t msg_bytes;  /* -1 when absent */
    int64_t nranks;     /* "No. of ranks" (a communicator's creation), -1 */
    char comm[32];      /* the communicator id's text, "" when absent */
    char dtype[32];     /* "" when absent */
} tp_coll_payload;

/* A count or size in args (len bytes of a JSON object) under key: a
 * number >= 0 (reals truncated), else -1.  (Kineto's "In msg nelems",
 * "Group size"; the payloads' entries.) */
int64_t tp_coll_arg_count(const char *args, size_t len, const char *key);

/* Reads args (len bytes of a JSON object) into *p; 1 when it has a message
 * size or a rank count (an NCCL payload), else 0. */
int tp_coll_payload_read(const char *args, size_t len, tp_coll_payload *p);

#ifdef __cplusplus
}
#endif

#endif
