/* analysis `collectives`: what its two files share. */
#ifndef TP_COLLECTIVES_H
#define TP_COLLECTIVES_H

#include <stdint.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_coll.h>

typedef struct co_config {
    const char *preset;
} co_config;

/* One collective call: a collective kernel and what its launching ops say. */
typedef struct co_call {
    uint32_t trace;      /* index in the stage's traces */
    int64_t rank;
    int32_t row, stream;
    int64_t start, end;  /* ns */
    tp_coll_type type;
    tp_str name, op;     /* kernel; the op whose args gave the sizes (0: none) */
    char dtype[32], group[64]; /* "" when not said */
    int64_t group_size, nelems, bytes; /* -1 when not known */
    int64_t wait_hns, skew_hns, set, seq; /* across ranks; -1 when not matched */
    int64_t n_ranks;     /* ranks that have this collective (1 alone) */
} co_call;

/* What the rows need of a trace, kept while it is read: the traces come
 * one at a time (TP_STAGE_F_STREAM), each freed when the next is read. */
typedef struct co_seen {
    int64_t t0;          /* the trace's window start, ns */
    tp_str label;        /* its label (0: none) */
} co_seen;

typedef struct co_calls {
    co_call *v;
    size_t n, cap;
    double link_gbps;    /* the preset's, 0 without */
    co_seen *seen;       /* per trace */
} co_calls;

/* Where a call's figures came from (collectives.c's source_row). */
typedef enum co_source {
    CO_SRC_ARGS = 0, /* In/Out msg nelems: the kernel's or an op's args */
    CO_SRC_DIMS,     /* the nccl:<type> op's Input Dims */
    CO_SRC_PAYLOAD   /* an NVTX range's NCCL payload (tp_sdk_coll.h) */
} co_source;

/* The communicators of a trace (NCCL payloads' comm id -> No. of ranks),
 * read from its ncclCommInitRank ranges the first time a call asks. */
typedef struct co_comm {
    char comm[32];
    int64_t nranks;
} co_comm;
typedef struct co_comms {
    const tp_trace *t;
    int scanned;
    co_comm *v;
    size_t n;
} co_comms;

/* collectives_nvtx.c: NCCL's NVTX payloads (nsys exports). */
int co_has_payload(const tp_trace *t, int32_t row);
void co_describe_payload(const tp_trace *t, int32_t s, co_comms *comms, co_call *k);
void co_comms_free(co_comms *comms);

/* collectives_out.c: the three results. */
int co_write_calls(tp_stage *st, const co_calls *cs);
int co_write_summary(tp_stage *st, const co_calls *cs);
int co_write_matched(tp_stage *st, const co_calls *cs);

/* Bandwidths of a call in GB/s (bytes per ns), NaN when not known. */
double co_algbw_gbps(const co_call *k);
double co_busbw_gbps(const co_call *k);

#endif
