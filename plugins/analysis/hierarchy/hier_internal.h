/* hierarchy plugin: state shared by its two source files. */
#ifndef TP_HIER_INTERNAL_H
#define TP_HIER_INTERNAL_H

#include <tracepipe/tp_plugin.h>

typedef struct hier_config {
    int cross_thread;
    int64_t clamp_ns;
} hier_config;

/* A thread: a range of the thread-sorted host events. */
typedef struct hier_thread {
    size_t begin, end;
    int64_t steps;    /* ProfilerStep# annotations */
    int64_t top_time; /* summed duration of its own roots */
} hier_thread;

/* Row numbers are int32 (the attachments' type): a trace of 2^31 events or
 * more is refused. */
typedef struct hier {
    tp_stage *st;
    const hier_config *cfg;
    const tp_cols *c;
    /* the attached arrays (n rows each) */
    int32_t *parent, *first_child, *next_sibling, *depth, *launcher;
    uint32_t *thread_of; /* per track: rank of its (pid, tid) in (pid, tid) order */
    size_t nranks;
    uint32_t *ev; /* rows of the complete host events, sorted by thread then time */
    size_t nev;
    hier_thread *threads;
    size_t nthreads, main;
    int64_t main_tid; /* the main thread's tid, -1 without host events */
    uint8_t *step_memo; /* per name id: 0 unknown, 1 ProfilerStep#, 2 not */
    size_t nnames;
    size_t roots;
    int64_t nested, clamped, crossovers, attached;
    int64_t launches_linked, gpu_linked, gpu_unlinked;
    int64_t ambiguous; /* activities whose corr id has launches in several pids */
    uint8_t *amb;      /* per row: such an activity (flows may relink it) */
} hier;

/* End of the event in row r. */
static inline int64_t hier_end(const tp_cols *c, uint32_t r) { return c->ts[r] + c->dur[r]; }

/* The thread rank of row r. */
static inline uint32_t hier_thread_of(const hier *h, size_t r)
{
    return h->thread_of[h->c->track[r]];
}

/* Fills h->launcher for kernels, memcpys and memsets; counts the links. */
int hier_link_launches(hier *h);

#endif
