/*
 * tracepipe SDK: the vocabulary of trace names, one table per concept,
 * used by every plugin (no plugin keeps its own list):
 *
 *   launch_apis   runtime and driver calls that start GPU work, and what
 *                 each starts: kernel, memcpy, memset, graph, sync,
 *                 host_func (CUDA runtime and driver, HIP);
 *   collectives   kernels of collective libraries and their collective
 *                 type (NCCL old and new, RCCL, vLLM / TensorRT-LLM custom
 *                 all-reduce, PyTorch symmetric memory, NVSHMEM, DeepEP,
 *                 MSCCL, oneCCL, HCCL);
 *   memory        GPU memory activities across producers (Kineto, TF/XLA,
 *                 Nsight Systems, ROCm, OpenCL): memcpy or memset;
 *   annotations   event categories that are annotations, and their side:
 *                 a host range or its GPU projection;
 *   modules       name prefixes of modules (containers, never ops).
 *
 * Each table is the built-in rules (docs/vocabulary.md lists them) plus the
 * pipeline's additions, the top-level `vocabulary:` mapping
 * (docs/pipeline-format.md), which the core validates and hands over
 * through tp_host_api.vocabulary.  A rule is `WHAT=PATTERN` (bare PATTERN:
 * collectives and memory take their type from the name), PATTERN a shell
 * glob (fnmatch(3): `*`, `?`, `[...]`) matched against the whole name; the
 * pipeline's rules come first, so they win; within a table the first
 * matching rule wins.  Launch API names are matched without the suffixes
 * `_v<N>`, `_ptsz` and `_ptds` (cudaLaunchKernel_ptsz is cudaLaunchKernel).
 *
 * Plain functions, no state: tp_vocab_get builds the merged tables once per
 * stage (tp_vocab_free releases them); the built-in tables alone are
 * tp_vocab_builtin().
 */
#ifndef TRACEPIPE_TP_SDK_VOCAB_H
#define TRACEPIPE_TP_SDK_VOCAB_H

#include <stddef.h>
#include <stdint.h>

#include "tp_sdk_trace.h"
#include "tp_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What a launch API starts. */
typedef enum tp_launch_what {
    TP_LAUNCHES_NOTHING = 0, /* not a launch API */
    TP_LAUNCHES_KERNEL,
    TP_LAUNCHES_MEMCPY,
    TP_LAUNCHES_MEMSET,
    TP_LAUNCHES_GRAPH,     /* a graph: the kernels and copies captured in it */
    TP_LAUNCHES_SYNC,      /* a synchronisation (device, stream, event, stream wait) */
    TP_LAUNCHES_HOST_FUNC, /* a host function run in stream order */
    TP_LAUNCHES__COUNT
} tp_launch_what;

/* Collective types. */
typedef enum tp_coll_type {
    TP_COLL_NONE = 0, /* not a collective kernel */
    TP_COLL_ALL_REDUCE,
    TP_COLL_ALL_GATHER,
    TP_COLL_REDUCE_SCATTER,
    TP_COLL_ALL_TO_ALL,
    TP_COLL_BROADCAST,
    TP_COLL_REDUCE,
    TP_COLL_SEND_RECV, /* point to point (send, recv, NCCL's SendRecv) */
    TP_COLL_OTHER,     /* a communication kernel of no one type (rcclGenericKernel) */
    TP_COLL__COUNT
} tp_coll_type;

/* Memory activities. */
typedef enum tp_mem_what { TP_MEM_NONE = 0, TP_MEM_MEMCPY, TP_MEM_MEMSET, TP_MEM__COUNT } tp_mem_what;

/* Annotation sides: a host range (user_annotation, record_function) or its
 * projection on the GPU timeline (gpu_user_annotation). */
typedef enum tp_annot_side { TP_ANNOT_NONE = 0, TP_ANNOT_HOST, TP_ANNOT_GPU, TP_ANNOT__COUNT } tp_annot_side;

/* One rule: a glob and what it names (an enum above, by table). */
typedef struct tp_vocab_rule {
    const char *match;
    int what;
} tp_vocab_rule;

typedef struct tp_vocab {
    const tp_vocab_rule *launch_apis, *collectives, *memory, *annotations;
    size_t n_launch_apis, n_collectives, n_memory, n_annotations;
    const char *const *modules; /* name prefixes */
    size_t n_modules;
    void *own; /* what tp_vocab_get allocated */
} tp_vocab;

/* The names of the enums' values as the docs, results and `vocabulary:`
 * spell them ("kernel", "all_reduce", "memcpy", "host"); the value 0 is
 * "none". */
const char *tp_launch_what_name(tp_launch_what w);
const char *tp_coll_type_name(tp_coll_type t);
const char *tp_mem_what_name(tp_mem_what w);
const char *tp_annot_side_name(tp_annot_side s);

/* The tables a `vocabulary:` key names ("launch_apis", "collectives",
 * "memory", "annotations", "modules"). */
typedef enum tp_vocab_table {
    TP_VOCAB_LAUNCH_APIS,
    TP_VOCAB_COLLECTIVES,
    TP_VOCAB_MEMORY,
    TP_VOCAB_ANNOTATIONS,
    TP_VOCAB_MODULES,
    TP_VOCAB__COUNT
} tp_vocab_table;
const char *tp_vocab_table_name(tp_vocab_table t);

/* Parses one `vocabulary:` item of table t: "WHAT=PATTERN" or "PATTERN".
 * Fills *rule (match points into item, *match_len its length; what is the
 * enum value, 0 for "from the name") and returns NULL, or returns what is
 * wrong with it (static text).  Modules take any non-empty text. */
const char *tp_vocab_parse_rule(tp_vocab_table t, const char *item, tp_vocab_rule *rule);

/* The built-in tables (static; never freed). */
const tp_vocab *tp_vocab_builtin(void);

/* The built-in tables plus the pipeline's `vocabulary:` additions (first),
 * for stage st.  TP_OK or TP_ENOMEM; free with tp_vocab_free. */
int tp_vocab_get(tp_stage *st, tp_vocab *v);
void tp_vocab_free(tp_vocab *v);

/* The length of a call's name without the suffixes _v<N>, _ptsz, _ptds. */
size_t tp_launch_api_base(const char *name);

/* What the runtime or driver call `name` launches, TP_LAUNCHES_NOTHING when
 * it is not a launch API. */
tp_launch_what tp_vocab_launch_api(const tp_vocab *v, const char *name);

/* Does a launch API call that starts `what` (tp_vocab_launch_api) keep the
 * host waiting until the GPU is done?  Memcpy and memset calls do unless
 * their name (without _v<N>, _ptsz, _ptds) has "Async" (cudaMemcpy,
 * cuMemcpyHtoD, hipMemset); sync calls do when it ends in "Synchronize"
 * (cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize,
 * cuCtxSynchronize), never cudaStreamWaitEvent (the GPU waits, not the
 * host).  Nothing else blocks. */
int tp_launch_api_blocks(const char *name, tp_launch_what what);

/* The collective type of a kernel, TP_COLL_NONE when it is not one.  A rule
 * without a type takes it from the name (the part before '(' or '<', case
 * and '_' ignored): allreduce, reducescatter, allgather, alltoall,
 * broadcast, sendrecv / send / recv, reduce, else other. */
tp_coll_type tp_vocab_collective(const tp_vocab *v, const char *kernel);

/* The collective type a name says by the same words, with no table rule
 * to match first (a call's "Collective name" arg: "allreduce",
 * "reduce_scatter_tensor_coalesced"); TP_COLL_NONE for an empty name,
 * else TP_COLL_OTHER when no word fits. */
tp_coll_type tp_coll_type_of_name(const char *name);

/* The collective type (tp_vocab_collective) of interned names, each name's
 * text matched once: a stage that asks per activity and per ancestor keeps
 * one memo instead of matching the patterns per row.  tp_coll_memo_init
 * sizes it for the names interned so far (a name interned later is matched
 * each time it is asked) and borrows vocabulary v; TP_OK or TP_ENOMEM.
 * tp_coll_memo_type answers for name id s; tp_coll_memo_free releases it. */
typedef struct tp_coll_memo {
    tp_stage *st;
    const tp_vocab *vocab;
    uint8_t *type_of; /* per name id: the type + 1; 0 not matched yet */
    size_t n;
} tp_coll_memo;
int tp_coll_memo_init(tp_coll_memo *m, tp_stage *st, const tp_vocab *v);
tp_coll_type tp_coll_memo_type(tp_coll_memo *m, tp_str s);
void tp_coll_memo_free(tp_coll_memo *m);

/* The memory activity an activity name is, TP_MEM_NONE when none (a rule
 * without a type: memset when the name has "set" in any case, else memcpy). */
tp_mem_what tp_vocab_memory(const tp_vocab *v, const char *name);

/* The side of an event category that is an annotation ("user_annotation":
 * host, "gpu_user_annotation": gpu), TP_ANNOT_NONE otherwise. */
tp_annot_side tp_vocab_annotation(const tp_vocab *v, const char *category);

/* The side of an event kind: TP_KIND_ANNOTATION host, TP_KIND_GPU_ANNOTATION
 * gpu, any other kind none.  Host ranges and their GPU projections are never
 * counted together. */
tp_annot_side tp_annotation_side_of(tp_kind kind);

/* A stream capture call (the built-in `graph_captures` rules,
 * docs/vocabulary.md): 1 opens the capture of a graph
 * (cudaStreamBeginCapture*, cuStreamBeginCapture*, hipStreamBeginCapture*),
 * 2 closes it (...StreamEndCapture*), 0 for any other name. */
int tp_vocab_graph_capture(const char *name);

/* 1 when name starts with one of the vocabulary's module prefixes. */
int tp_vocab_is_module(const tp_vocab *v, const char *name);

/* HTA's kernel types over the vocabulary: communication (a collective),
 * memory (a memory activity, or a row of kind memcpy/memset), else other
 * for HTA's non-computation names (Sync, Stream Wait Event, runFunction,
 * ...), else computation.  kind TP_KIND_OTHER when unknown. */
tp_kernel_class tp_vocab_kernel_class(const tp_vocab *v, tp_kind kind, const char *name);

/* What a synchronisation API (a launch API of kind sync) waits for, from
 * its name: a stream wait (the GPU waits: cudaStreamWaitEvent), an event
 * (cudaEventSynchronize), a stream (cudaStreamSynchronize), else the whole
 * device (cudaDeviceSynchronize, cuCtxSynchronize); TP_SYNC_NONE when name
 * is not a sync API of v.  (critical_path's sync edges.) */
typedef enum tp_sync_scope {
    TP_SYNC_NONE = 0,
    TP_SYNC_DEVICE,
    TP_SYNC_STREAM,
    TP_SYNC_EVENT,
    TP_SYNC_STREAM_WAIT
} tp_sync_scope;
tp_sync_scope tp_vocab_sync_scope(const tp_vocab *v, const char *name);

/* 1 when the memcpy or memset launch API `name` blocks the calling thread
 * until the copy is done (CUDA/HIP semantics: the API has no "Async" in its
 * name), else 0. */
int tp_vocab_launch_blocks(const tp_vocab *v, const char *name);

#ifdef __cplusplus
}
#endif

#endif
