/*
 * Trace semantics (part of the plugin SDK, tp_sdk.h): the one definition of
 * what the events of a trace mean together, used by every plugin that needs
 * it (docs/architecture.md, "The semantics layer"):
 *
 *   kinds        which events are host events and which are launched GPU work
 *   threads      a trace's threads, (pid, tid), as dense ranks
 *   nesting      host events per thread, with the overlap clamp
 *   launch links GPU activity -> the runtime call that launched it
 *   main thread  the thread that drives the training loop
 *   iterations   boundaries from marker events, a per-row iteration index
 *   trace span   the time the trace covers
 *
 * Functions that allocate take their scratch from the host (tp_malloc) and
 * return TP_OK or TP_ENOMEM; none allocates per event.  Rows are int32 /
 * uint32 (a trace of more than INT32_MAX events is refused by the callers).
 */
#ifndef TRACEPIPE_TP_SDK_TRACE_H
#define TRACEPIPE_TP_SDK_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "tp_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ kinds */

/* Launched GPU work: kernels, memcpys, memsets.  (GPU annotations are
 * spans on the device timeline, not launched work; TP_KIND_IS_GPU of
 * tp_types.h covers them too.) */
static inline int tp_kind_is_activity(unsigned kind)
{
    return kind == TP_KIND_KERNEL || kind == TP_KIND_MEMCPY || kind == TP_KIND_MEMSET;
}

/* Host kinds: cpu ops, annotations, python functions, runtime calls. */
static inline int tp_kind_is_host(unsigned kind)
{
    return kind == TP_KIND_CPU_OP || kind == TP_KIND_ANNOTATION || kind == TP_KIND_PYTHON ||
           kind == TP_KIND_RUNTIME;
}

/* A complete event: ph X with a duration (>= 0). */
static inline int tp_ev_is_complete(const tp_cols *c, size_t row)
{
    return c->phase[row] == 'X' && c->dur[row] >= 0;
}

/* A host event: complete, of a host kind.  These are what nests. */
static inline int tp_ev_is_host(const tp_cols *c, size_t row)
{
    return tp_ev_is_complete(c, row) && tp_kind_is_host(c->kind[row]);
}

/* A complete kernel, memcpy or memset. */
static inline int tp_ev_is_activity(const tp_cols *c, size_t row)
{
    return tp_ev_is_complete(c, row) && tp_kind_is_activity(c->kind[row]);
}

/* Bit masks of kinds, for tp_rows_complete(). */
#define TP_KIND_BIT(k) ((uint32_t)1 << (k))
#define TP_KINDS_HOST                                                                    \
    (TP_KIND_BIT(TP_KIND_CPU_OP) | TP_KIND_BIT(TP_KIND_ANNOTATION) |                     \
     TP_KIND_BIT(TP_KIND_PYTHON) | TP_KIND_BIT(TP_KIND_RUNTIME))
#define TP_KINDS_ACTIVITY \
    (TP_KIND_BIT(TP_KIND_KERNEL) | TP_KIND_BIT(TP_KIND_MEMCPY) | TP_KIND_BIT(TP_KIND_MEMSET))
#define TP_KINDS_GPU (TP_KINDS_ACTIVITY | TP_KIND_BIT(TP_KIND_GPU_ANNOTATION))

/* ---------------------------------------------------------------- threads */

/* thread_of[track] = rank of the track's (pid, tid) among the trace's
 * distinct pairs in (pid, tid) order (tracks of one thread differing only
 * in device or stream share a rank); *nthreads = number of ranks.
 * thread_of has c->n_tracks cells. */
int tp_thread_ranks(const tp_cols *c, uint32_t *thread_of, size_t *nthreads);

/* The rows of complete events whose kind is in the mask `kinds`
 * (TP_KIND_BIT), grouped by thread rank, file order within a thread.
 * *rows is new (tp_free it); NULL-safe for no rows. */
int tp_rows_complete(const tp_cols *c, uint32_t kinds, const uint32_t *thread_of,
                     size_t nthreads, uint32_t **rows, size_t *n);

/* ---------------------------------------------------------------- nesting */

/* The clamp of nesting where no option sets it (hierarchy's clamp_ns
 * default): 1 µs, the rounding of microsecond timestamps. */
#define TP_NEST_CLAMP_NS 1000

/* The nesting order of one thread's rows: by start, then the longer
 * (enclosing) one first, then row. */
static inline int tp_nest_before(const tp_cols *c, uint32_t x, uint32_t y)
{
    if (c->ts[x] != c->ts[y])
        return c->ts[x] < c->ts[y];
    if (c->dur[x] != c->dur[y])
        return c->dur[x] > c->dur[y];
    return x < y;
}

/* Sorts rows into nesting order (tp_nest_before); with thread_of, by thread
 * rank first.  A stable natural merge sort: rows grouped by thread and
 * written in time order cost one pass. */
int tp_rows_sort_nesting(const tp_cols *c, const uint32_t *thread_of, uint32_t *rows, size_t n);

/* What nesting found, and who hears of crossovers. */
typedef struct tp_nest_report {
    int64_t clamped;    /* children overrunning their parent by < clamp, and touching events */
    int64_t crossovers; /* partial overlaps of clamp_ns or more */
    /* optional: called once per crossing event with the open event it crosses */
    void (*crossover)(void *ctx, uint32_t row, uint32_t crossed);
    void *ctx;
} tp_nest_report;

/*
 * Nests one thread's complete events, rows[0, n) in nesting order, setting
 * parent[row] (rows not nested keep their value, normally -1).  The rule
 * (the hierarchy analysis', docs/plugins/hierarchy.md): an event's parent
 * is the innermost open event containing it; an event starting where
 * another ends is not inside it.  A child ending less than clamp_ns past
 * its parent's end is nested anyway (clamped).  An event ending further out
 * but starting less than clamp_ns before the open event's end follows it
 * (clamped: the open event is closed).  Any other overrun is a crossover:
 * the open events it crosses are closed and it becomes a child of the
 * first ancestor that holds it, or a root.  stack: n cells of scratch.
 */
void tp_nest_thread(const tp_cols *c, const uint32_t *rows, size_t n, int64_t clamp_ns,
                    int32_t *parent, uint32_t *stack, tp_nest_report *report);

/* Sorts rows (tp_rows_sort_nesting with thread_of; thread_of NULL: by
 * (pid, tid) of the rows) and nests every thread's run with
 * tp_nest_thread.  rows are left sorted.  report may be NULL. */
int tp_nest_rows(const tp_cols *c, const uint32_t *thread_of, uint32_t *rows, size_t n,
                 int64_t clamp_ns, int32_t *parent, tp_nest_report *report);

/* ----------------------------------------------------------- streams */

/* The order of GPU work by place and time: rows by (device, stream, start,
 * row).  A tp_sort comparator over uint32_t rows; ctx is the tp_cols. */
int tp_rows_cmp_stream_start(const void *a, const void *b, void *ctx);

/* ----------------------------------------------------------- launch links */

typedef struct tp_link_counts {
    int64_t launches_linked; /* runtime calls that launched at least one activity */
    int64_t gpu_linked, gpu_unlinked;
    int64_t ambiguous;      /* activities whose corr id has launches in several pids */
    int64_t ambiguous_left; /* ... of them no flow linked (nearest launch by time) */
} tp_link_counts;

/*
 * launcher[row] = the RUNTIME row that launched the kernel / memcpy /
 * memset in row, -1 elsewhere (launcher: c->n cells).  By correlation id:
 * the outermost runtime call with the activity's id, whatever its name:
 * the least deep in the host forest when depth (hierarchy.depth, -1 =
 * outside the forest, last) is given, else complete calls before others,
 * then earliest start, then longest (the same order for calls nested on
 * one thread, e.g. cudaLaunchKernel around cuLaunchKernel); then row.
 * When no call has the id, or the calls with it lie in several pids (ids
 * restart per process in merged traces: "ambiguous"), flows decide: an 'f'
 * flow at the activity's exact (pid, tid, ts) is paired with an 's' flow of
 * the same (id, cat) sitting at a runtime call's exact (pid, tid, ts), the
 * latest such 's' at or before the 'f' (else the earliest after it): flow
 * ids are not unique.  An ambiguous activity no flow links goes to the
 * call of its id starting last at or before it (else the first after it;
 * the outermost among equal starts).  thread_of: from tp_thread_ranks,
 * or NULL to rank here.  counts may be NULL.
 */
int tp_link_launches(const tp_cols *c, const uint32_t *thread_of, const int32_t *depth,
                     int32_t *launcher, tp_link_counts *counts);
/* The same with depths per member of host (by rank; tp_sdk_rowset.h), as
 * the hierarchy's compact host_depth holds them (issue 31). */
struct tp_rowset;
int tp_link_launches_ranked(const tp_cols *c, const uint32_t *thread_of,
                            const struct tp_rowset *host, const int32_t *depth,
                            int32_t *launcher, tp_link_counts *counts);

/* HTA's launch outliers of one launched activity (times in us), as bits:
 * TP_LAUNCH_SLOW when the call takes longer than runtime_cutoff_us,
 * TP_LAUNCH_SHORT_GPU when the GPU work runs shorter than a call of at most
 * that cutoff (the launch costs more than the work), TP_LAUNCH_LATE when the
 * work starts more than delay_cutoff_us after its call.  The one rule that
 * launch_stats and advice count by. */
enum { TP_LAUNCH_SLOW = 1, TP_LAUNCH_SHORT_GPU = 2, TP_LAUNCH_LATE = 4 };
unsigned tp_launch_outliers(double cpu_us, double gpu_us, double delay_us,
                            double runtime_cutoff_us, double delay_cutoff_us);

/* Where launch flows bind: bound[row] for an 's' flow = the complete
 * runtime call on its thread (pid, tid) starting at its exact ts, for an 'f'
 * flow = the kernel / memcpy / memset on its thread starting at its exact
 * ts (the lowest row when several do), -1 when there is none and for every
 * other row (bound: c->n cells).  This is how Kineto's ac2g flows tie a
 * launch to its GPU work; tp_link_launches uses the same rule.  thread_of:
 * from tp_thread_ranks, or NULL to rank here. */
int tp_flow_bind(const tp_cols *c, const uint32_t *thread_of, int32_t *bound);

/* A pid or tid as text: the number, or the quoted name of a string id
 * (TP_ID_IS_STR: "Python thread", "GPU 0" in some producers). */
void tp_id_text(tp_stage *st, int64_t id, char *buf, size_t size);

/* ------------------------------------------------------ names and markers */

/* memo[name] = 1 for every interned name starting with prefix, 2 for the
 * others (n = tp_str_count(st) cells, new).  The prefix is always a plugin
 * option (hierarchy's and host_breakdown's step_prefix), never fixed here. */
int tp_names_with_prefix(tp_stage *st, const char *prefix, uint8_t **memo, size_t *n);

/* As tp_names_with_prefix, for any of n prefixes (module names such as
 * "## forward ##", "DLRM "; always a plugin option's values). */
int tp_names_with_prefixes(tp_stage *st, const char *const *prefixes, size_t n, uint8_t **memo,
                           size_t *nmemo);

/* True when memo marks name (1); names past the memo are not marked. */
static inline int tp_name_marked(const uint8_t *memo, size_t nmemo, tp_str name)
{
    return name < nmemo && memo[name] == 1;
}

/* ----------------------------------------------------------------- ops */

/*
 * The op of every host event: the outermost CPU_OP at or above it in the
 * host forest (parent: hierarchy.parent) whose name memo does not mark (a
 * module or step, tp_names_with_prefixes), -1 when there is none; -1 for
 * rows outside the forest.  The op a kernel belongs to is
 * top[launcher[kernel]].  O(n): each chain is walked once.  top: c->n
 * cells; scratch: c->n cells.
 */
void tp_outermost_ops(const tp_cols *c, const int32_t *parent, const uint8_t *memo, size_t nmemo,
                      int32_t *top, int32_t *scratch);

/* The same for one row, when only some rows need it (the launches of
 * kernels): top must start filled with TP_OP_UNKNOWN (every call fills and
 * reuses the answers on the row's chain).  chain: c->n cells of scratch. */
#define TP_OP_UNKNOWN (-2)
int32_t tp_outermost_op(const tp_cols *c, const int32_t *parent, const uint8_t *memo,
                        size_t nmemo, int32_t *top, int32_t *chain, int32_t row);
/* The same for one row without memory: a climb to its root, O(depth), for
 * the few rows a stage asks about (critical_path's path). */
int32_t tp_outermost_op_of(const tp_cols *c, const int32_t *parent, const uint8_t *memo,
                           size_t nmemo, int32_t row);

/* ------------------------------------------------------------- kernels */

/* Does s contain needle, ASCII letters compared without case?  (Kernel and
 * op names: "memcpy" in "MEMCPYHtoD", "gemm" in "XgemmDirectNN".) */
static inline int tp_contains_nocase(const char *s, const char *needle)
{
    for (; s && *s; s++) {
        size_t i = 0;
        for (; needle[i]; i++) {
            char a = s[i], b = needle[i];
            a = (char)(a >= 'A' && a <= 'Z' ? a - 'A' + 'a' : a);
            b = (char)(b >= 'A' && b <= 'Z' ? b - 'A' + 'a' : b);
            if (a != b)
                break;
        }
        if (needle[i] == '\0')
            return 1;
    }
    return 0;
}

/* HTA's kernel types (hta/common/types.py, rules in docs/architecture.md). */
typedef enum tp_kernel_class {
    TP_KCLASS_COMPUTATION,
    TP_KCLASS_COMMUNICATION,
    TP_KCLASS_MEMORY,
    TP_KCLASS_OTHER
} tp_kernel_class;

/* The class of a GPU activity by its name under the built-in vocabulary
 * (tp_sdk_vocab.h): COMMUNICATION for collective kernels (NCCL, RCCL,
 * custom all-reduce, NVSHMEM/DeepEP, oneCCL, HCCL ...), MEMORY for memory
 * activities (Kineto's Memcpy/Memset, TF's MEMCPY*, nsys' [CUDA memcpy ...],
 * OpenCL buffer commands, dma ...), OTHER for HTA's non-computation names
 * (Sync, Stream Wait Event, cuda...LaunchKernel, runFunction, hip..., MTIA's
 * job_exe, packet ...), else COMPUTATION.  With the pipeline's additions
 * and the row's kind: tp_vocab_kernel_class. */
tp_kernel_class tp_kernel_class_of(const char *name);

/* "computation", "communication", "memory", "other" (CONVENTIONS'
 * kernel_class values). */
const char *tp_kernel_class_name(tp_kernel_class k);

/* Seed 001's legend of a kernel name: the label of the first of gemm,
 * gemv, Memset, Memcpy, vectorized_elementwise (elwt), unrolled_elementwise
 * (permute), embedding_forward (ELF), embedding_backward (ELB), splitK,
 * reduce_kernel (reduce), CatArray (CatCopy), indexing (IdxBwd) found in it,
 * else its first 8 bytes.  buf: 9 bytes at least; returns buf or a constant. */
const char *tp_kernel_legend_seed(const char *name, char *buf);

/* The seed's short kernel name: the text before the first '<' (trailing
 * blanks dropped), then what follows its last "::".  Returns its length and
 * sets *from to its offset in name. */
size_t tp_kernel_short_name(const char *name, size_t *from);

/* The interned short name of string id `name`, cached in memo (nmemo
 * cells, zeroed: memo[name] holds the id + 1 once known); name itself when
 * it is past the memo, has no short form, or interning fails. */
tp_str tp_kernel_short_id(tp_stage *st, tp_str name, tp_str *memo, size_t nmemo);

/* ------------------------------------------------------------ main thread */

/* One thread's rows in an array sorted by thread (tp_nest_rows' output). */
typedef struct tp_thread_run {
    size_t begin, end; /* rows[begin, end) */
    uint32_t rank;     /* thread rank */
} tp_thread_run;

/* Splits rows sorted by thread into runs (runs: as many cells as threads);
 * returns the number of runs. */
size_t tp_thread_runs(const uint32_t *thread_of, const tp_cols *c, const uint32_t *rows,
                      size_t n, tp_thread_run *runs);

/* The main thread: the run with the most host events whose name the memo
 * marks (the step markers, ProfilerStep# by default), counted nested or
 * not; without any, the one with the largest total duration of its roots
 * (parent < 0); ties go to the lower (pid, tid).  Returns the run index,
 * 0 for no runs. */
size_t tp_main_thread(const tp_cols *c, const uint32_t *rows, const tp_thread_run *runs,
                      size_t nruns, const int32_t *parent, const uint8_t *memo, size_t nmemo);

/* ------------------------------------------------------------- iterations */

typedef struct tp_iteration {
    int64_t start, end; /* [start, end) ns */
    uint32_t row;       /* the marker event */
} tp_iteration;

typedef struct tp_iterations {
    tp_iteration *it; /* new (tp_free), in time order */
    size_t n;
    int64_t pid, tid;     /* the thread they were counted on */
    size_t threads;       /* threads holding markers */
    size_t nested;        /* markers nested in another marker: not iterations */
} tp_iterations;

/*
 * Iterations from marker events: host events (tp_ev_is_host) whose name the
 * memo marks, nested per thread with the clamp (tp_nest_rows); a marker
 * nested in another marker is not an iteration.  They are counted on one
 * thread, the one holding the most (ties: lowest pid, then tid; numbers
 * before texts, texts by their bytes, which needs st), and are that
 * thread's markers in time order.  it->n is 0 without markers.
 */
int tp_iterations_from_markers(tp_stage *st, const tp_cols *c, const uint8_t *memo, size_t nmemo,
                               int64_t clamp_ns, tp_iterations *it);

/*
 * Iterations from ranges (NVTX-style, async 'b'/'e' pairs): a 'b' event
 * whose name the memo marks and the first 'e' after it with the same
 * (cat, flow id) span one iteration; the thread rule is that of markers
 * (the thread of the 'b').  Unpaired 'b' events are ignored.
 */
int tp_iterations_from_ranges(tp_stage *st, const tp_cols *c, const uint8_t *memo, size_t nmemo,
                              tp_iterations *it);

/* index[row] = the iteration (0-based, in it->it order) whose
 * [start, end) holds the row's start, -1 when none does (index: c->n
 * cells).  One pass, binary search per row: O(n log k). */
void tp_iterations_index(const tp_cols *c, const tp_iterations *it, int32_t *index);

/* The iteration whose [start, end) holds ts, or -1: the same rule for one
 * time, by binary search, when only a few rows need it. */
int32_t tp_iteration_of(const tp_iterations *it, int64_t ts);

void tp_iterations_free(tp_iterations *it);

/* ------------------------------------------------------------- trace span */

/* Which events count for the span and which end is taken. */
typedef enum tp_span_mode {
    TP_SPAN_EXTENT = 0, /* events with a duration (dur >= 0): earliest start .. latest end */
    TP_SPAN_STARTS = 1  /* every event: earliest start .. latest start */
} tp_span_mode;

/* The span of the trace: metadata never counts, and neither does the
 * profiler's own span (kind TRACE): it is written around the whole session
 * (so it survives a trim it no longer describes) and would otherwise decide
 * every span.  Returns 1 and sets *lo, *hi; 0 (both 0) when no event counts. */
int tp_trace_span(const tp_cols *c, tp_span_mode mode, int64_t *lo, int64_t *hi);

/* Trace info keys of the window a clipping filter cut the trace to
 * (time_window mode: clip), in ns: the denominators of utilisation after
 * such a filter are the window, not the extent of what is left in it. */
#define TP_INFO_WINDOW_START "window.start_ns"
#define TP_INFO_WINDOW_END "window.end_ns"

/* The window the trace stands for: the one a clipping filter recorded, else
 * tp_trace_span(TP_SPAN_EXTENT).  Returns 0 (lo = hi = 0) when there is
 * neither. */
int tp_trace_window(const tp_trace *t, int64_t *lo, int64_t *hi);

#ifdef __cplusplus
}
#endif
#endif
