/* hierarchy plugin: state shared by its two source files. */
#ifndef TP_HIER_INTERNAL_H
#define TP_HIER_INTERNAL_H

#include <tracepipe/tp_plugin.h>

typedef struct hier_config {
    int cross_thread;
    int64_t clamp_ns;
} hier_config;

/* One complete host event, as sorted. */
typedef struct hier_ev {
    int64_t pid, tid, ts, dur, row;
} hier_ev;

/* A thread: a range of the thread-sorted events. */
typedef struct hier_thread {
    size_t begin, end;
    int64_t steps;    /* ProfilerStep# annotations */
    int64_t top_time; /* summed duration of its own roots */
} hier_thread;

typedef struct hier {
    tp_stage *st;
    const hier_config *cfg;
    const tp_cols *c;
    /* the attached arrays (n rows each) */
    int64_t *parent, *first_child, *next_sibling, *depth, *launcher;
    hier_ev *ev; /* host events, sorted by thread then (ts, -dur) */
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

static inline int64_t hier_end(const hier_ev *e) { return e->ts + e->dur; }

/* Orders by ts, then longest first, then row. */
int hier_time_cmp(const void *a, const void *b);

/* Fills h->launcher for kernels, memcpys and memsets; counts the links. */
int hier_link_launches(hier *h);

#endif
