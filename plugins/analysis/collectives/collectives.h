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

typedef struct co_calls {
    co_call *v;
    size_t n, cap;
    double link_gbps;    /* the preset's, 0 without */
} co_calls;

/* collectives_out.c: the three results. */
int co_write_calls(tp_stage *st, const co_calls *cs);
int co_write_summary(tp_stage *st, const co_calls *cs);
int co_write_matched(tp_stage *st, const co_calls *cs);

/* Bandwidths of a call in GB/s (bytes per ns), NaN when not known. */
double co_algbw_gbps(const co_call *k);
double co_busbw_gbps(const co_call *k);

#endif
