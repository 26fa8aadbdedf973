/* hierarchy plugin: its state. */
#ifndef TP_HIER_INTERNAL_H
#define TP_HIER_INTERNAL_H

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_rowset.h>
#include <tracepipe/tp_sdk_trace.h>

typedef struct hier_config {
    int cross_thread;
    int64_t clamp_ns;
    const char *step_prefix;
    int python_frames;
} hier_config;

/* Row numbers are int32 (the attachments' type): a trace of 2^31 events or
 * more is refused. */
typedef struct hier {
    tp_stage *st;
    const hier_config *cfg;
    const tp_cols *c;
    /* working arrays of n rows: parent until the forest is compacted,
     * launcher until the launch links are */
    int32_t *parent, *launcher;
    /* the published compact arrays (hier_publish.c): the host events' set
     * (a bit per row, a count per 64 rows) and per host event, by rank */
    uint64_t *hbits;
    uint32_t *hdir;
    int32_t *cparent, *cfirst, *cnext, *cdepth;
    uint32_t *thread_of; /* per track: rank of its (pid, tid) in (pid, tid) order */
    size_t nranks;
    uint32_t *ev; /* rows of the complete host events, sorted by thread then time */
    uint64_t *adopted; /* a bit per row: has children from another thread (NULL: none) */
    size_t nev;
    tp_thread_run *threads;
    size_t nthreads, main;
    int64_t main_tid; /* the main thread's tid, -1 without host events */
    size_t roots;
    int64_t nested, clamped, crossovers, attached, warned;
    uint32_t first_cross, first_crossed; /* the first crossover's rows */
    int64_t launches_linked, gpu_linked, gpu_unlinked;
    int64_t ambiguous; /* activities whose corr id has launches in several pids */
} hier;

/* The index of host event r in the compact arrays. */
static inline uint32_t hier_ix(const hier *h, int32_t r)
{
    return tp_bits_rank(h->hbits, h->hdir, r);
}

/* hier_publish.c: the compact attachments and the lazy wide ones. */
int hier_publish_host_set(hier *h);
int hier_publish_host_links(hier *h);
int hier_publish_launchers(hier *h);
int hier_register_wide(hier *h);

/* End of the event in row r. */
static inline int64_t hier_end(const tp_cols *c, uint32_t r) { return c->ts[r] + c->dur[r]; }

#endif
