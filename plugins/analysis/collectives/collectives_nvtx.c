/*
 * analysis `collectives`: a call's figures from NCCL's NVTX payload, the
 * range of its API call (an Nsight Systems export keeps it as the range's
 * args; the entries' names are the SDK's, tp_sdk_coll.h).  The payload's
 * message size is one rank's part for an all_gather (its input) and a
 * reduce_scatter (its output): nccl-tests' size S is that times the group
 * size.  The group size is the communicator's "No. of ranks", from its
 * ncclCommInitRank range in the same trace; the process group (the
 * communicator's id) is the SDK's, tp_coll_group_of.
 */
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_coll.h>

#include "collectives.h"

static int payload_of(const tp_trace *t, size_t row, tp_coll_payload *p)
{
    size_t len = 0;
    const char *a = tp_trace_args(t, row, &len);
    return tp_coll_payload_read(a, a ? len : 0, p);
}

int co_has_payload(const tp_trace *t, int32_t row)
{
    tp_coll_payload p;
    return payload_of(t, (size_t)row, &p) && p.msg_bytes >= 0;
}

/* Every annotation whose payload gives a communicator's rank count. */
static void scan_comms(co_comms *cs)
{
    const tp_cols *c = tp_trace_cols(cs->t);
    size_t cap = 0;
    cs->scanned = 1;
    for (size_t i = 0; i < c->n; i++) {
        tp_coll_payload p;
        if (c->kind[i] != TP_KIND_ANNOTATION || !payload_of(cs->t, i, &p) || p.nranks < 0 ||
            p.comm[0] == '\0')
            continue;
        if (cs->n == cap) {
            size_t ncap = cap ? 2 * cap : 8;
            co_comm *v = realloc(cs->v, ncap * sizeof *v);
            if (v == NULL)
                return; /* out of memory: group sizes stay unknown */
            cs->v = v;
            cap = ncap;
        }
        memcpy(cs->v[cs->n].comm, p.comm, sizeof p.comm);
        cs->v[cs->n++].nranks = p.nranks;
    }
}

/* The rank count of communicator comm, -1 when the trace does not say. */
static int64_t comm_ranks(co_comms *cs, const char *comm)
{
    if (!cs->scanned)
        scan_comms(cs);
    for (size_t i = 0; comm[0] && i < cs->n; i++)
        if (strcmp(cs->v[i].comm, comm) == 0)
            return cs->v[i].nranks;
    return -1;
}

void co_describe_payload(const tp_trace *t, int32_t s, co_comms *comms, co_call *k)
{
    tp_coll_payload p;
    payload_of(t, (size_t)s, &p);
    int64_t n = comm_ranks(comms, p.comm);
    if (n > 0)
        k->group_size = n;
    if (k->dtype[0] == '\0')
        memcpy(k->dtype, p.dtype, sizeof k->dtype < sizeof p.dtype ? sizeof k->dtype : sizeof p.dtype);
    int per_rank = k->type == TP_COLL_ALL_GATHER || k->type == TP_COLL_REDUCE_SCATTER;
    k->bytes = !per_rank ? p.msg_bytes : k->group_size > 0 ? p.msg_bytes * k->group_size : -1;
    int esz = tp_dtype_bytes(k->dtype);
    k->nelems = k->bytes >= 0 && esz > 0 ? k->bytes / esz : -1;
}

void co_comms_free(co_comms *comms)
{
    free(comms->v);
    comms->v = NULL;
    comms->n = 0;
}
