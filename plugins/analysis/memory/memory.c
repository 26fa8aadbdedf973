/*
 * memory: the allocator's view of a trace (issue 30, item 1).  PyTorch's
 * profiler (profile_memory=True) records every allocation and free as an
 * allocator event (the SDK's tp_sdk_alloc.h); this replays them per device,
 * in time order:
 *   <id>             per device: allocations, frees, the peak of allocated
 *                    and reserved memory and when, what was live at the peak,
 *                    blocks never freed, frees of blocks allocated before the
 *                    trace, out-of-memory events;
 *   <id>.timeline    allocated and reserved bytes over time (at most
 *                    max_points per device, the peak always kept);
 *   <id>.peak        the blocks live at each device's peak, by the op that
 *                    allocated them (innermost op and its top-level op), and
 *                    what was allocated before the trace;
 *   <id>.by_op       per op: bytes allocated, freed, held across iterations;
 *   <id>.unfreed     allocations never freed in the trace;
 *   <id>.oom         out-of-memory events;
 *   <id>.iterations  per iteration and device: the peak.
 * Definitions and hand-computed vectors: docs/plugins/memory.md.
 */
#include <string.h>

#include "memory.h"

static const tp_option mem_options[] = {
    TP_OPTION_INT("max_points", mem_config, max_points, "2000", 0, 1000000000,
                  "points of <id>.timeline per device at most (0 = every event); each of "
                  "max_points equal runs of events keeps its highest point, so the peak stays"),
    TP_OPTION_LIST("module_prefixes", mem_config, module_prefixes,
                   "name prefixes of modules and steps, never a top-level op (default: the "
                   "vocabulary's modules and the iteration markers)"),
    TP_OPTION_END};


static int mem_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    mem m = {.st = st, .cfg = config, .t = tp_stage_trace(st)};
    if (m.t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    m.c = tp_trace_cols(m.t);
    int64_t t1;
    tp_trace_window(m.t, &m.t0, &t1);
    int rc = mem_collect(&m);
    if (rc == TP_OK && m.nev == 0)
        tp_log(st, TP_LOG_WARN, "the trace has no allocator events (PyTorch writes them when "
               "profiling with profile_memory=True): every result is empty");
    rc = rc ? rc : mem_replay(&m);
    rc = rc ? rc : mem_write_results(&m);
    tp_iter_view_release(&m.iv);
    tp_free(m.ev);
    tp_free(m.devs);
    if (rc == TP_OK || rc == TP_ENOTFOUND)
        return rc;
    return tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc mem_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "memory",
                  "allocator events replayed: memory over time, peaks and what held them, "
                  "leaks, OOMs, per op and iteration",
                  mem_options, mem_config, "hierarchy", mem_results, NULL, 0, NULL, mem_run,
                  NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("memory", "0.1.0", mem_stages);
