/*
 * tracepipe public data model: interned strings, event kinds, the columnar
 * event table a trace is made of, and result-table column types.
 *
 * Everything here is plain data shared between the core and plugins; it is
 * part of the plugin ABI (see docs/architecture.md).  Structs only grow at
 * the end, and every struct that crosses the boundary starts with its size.
 */
#ifndef TRACEPIPE_TP_TYPES_H
#define TRACEPIPE_TP_TYPES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Interned string: a dense id from the run's string pool.  0 is the empty
 * string.  Equal texts have equal ids, so compare ids, never texts. */
typedef uint32_t tp_str;

/* Return codes.  TP_OK is 0; every error is negative. */
enum {
    TP_OK = 0,
    TP_ERR = -1,      /* generic failure; the message says what */
    TP_ENOMEM = -2,   /* out of memory */
    TP_EIO = -3,      /* file could not be read or written */
    TP_EFORMAT = -4,  /* input is malformed */
    TP_EINVAL = -5,   /* invalid argument or option value */
    TP_ENOTFOUND = -6 /* a named thing does not exist */
};

/* What an event is, independent of the profiler's category spelling.
 * The original category text stays in the `cat` column. */
typedef enum tp_kind {
    TP_KIND_OTHER = 0,
    TP_KIND_CPU_OP,         /* cpu_op, Operator */
    TP_KIND_ANNOTATION,     /* user_annotation (host), ProfilerStep#N, record_function */
    TP_KIND_GPU_ANNOTATION, /* gpu_user_annotation (on the device timeline) */
    TP_KIND_PYTHON,         /* python_function */
    TP_KIND_RUNTIME,        /* cuda_runtime, cuda_driver, Runtime, hip runtime */
    TP_KIND_KERNEL,         /* kernel, Kernel */
    TP_KIND_MEMCPY,         /* gpu_memcpy, Memcpy */
    TP_KIND_MEMSET,         /* gpu_memset, Memset */
    TP_KIND_FLOW,           /* ph s/t/f: ac2g, async_cpu_to_gpu, async_gpu, fwdbwd */
    TP_KIND_INSTANT,        /* ph i/I, cpu_instant_event */
    TP_KIND_COUNTER,        /* ph C */
    TP_KIND_METADATA,       /* ph M: process_name, thread_name, ... */
    TP_KIND_TRACE,          /* the profiler's own span (cat Trace) */
    TP_KIND__COUNT
} tp_kind;

/* True for activities that run on a device timeline. */
#define TP_KIND_IS_GPU(k) \
    ((k) == TP_KIND_KERNEL || (k) == TP_KIND_MEMCPY || (k) == TP_KIND_MEMSET || \
     (k) == TP_KIND_GPU_ANNOTATION)

/* "no value" for the integer id columns (ext_id, corr, flow_id). */
#define TP_NONE ((int64_t)-1)

/* pid/tid: profilers write numbers ("pid": 59811) or text ("tid": "stream 7",
 * "pid": "Spans").  Numbers are stored as they are; a text value is stored as
 * the negative number -1 - id of its interned string. */
#define TP_ID_IS_STR(v) ((v) < 0)
#define TP_ID_STR(v) ((tp_str)(-1 - (v)))
#define TP_ID_FROM_STR(s) ((int64_t)-1 - (int64_t)(s))

/*
 * The event columns of a trace: n rows, one array per field (struct of
 * arrays).  Owned by the core; plugins read them through tp_trace_cols() and
 * never write them.  Row order is the order of the input file.
 */
typedef struct tp_cols {
    uint32_t struct_size; /* sizeof(tp_cols) of the core that filled it */
    size_t n;             /* number of events (rows) */
    const int64_t *ts;    /* start, ns since the epoch of the trace's clock */
    const int64_t *dur;   /* duration in ns; -1 for events without one */
    const tp_str *name;
    const tp_str *cat;
    const int64_t *pid;   /* see TP_ID_IS_STR */
    const int64_t *tid;
    const uint8_t *kind;  /* tp_kind */
    const uint8_t *phase; /* Chrome-trace ph character: 'X', 'B', 'i', 's', 'f', 'C', 'M' ... */
    const int64_t *ext_id;  /* "External id" / "external id", TP_NONE if absent */
    const int64_t *corr;    /* "correlation" (GPU side) / correlation of runtime calls */
    const int64_t *flow_id; /* "id" of flow events (ph s/t/f), TP_NONE otherwise */
    const int32_t *device;  /* args.device for GPU activity, -1 if absent */
    const int32_t *stream;  /* args.stream for GPU activity, -1 if absent */
} tp_cols;

/* One event as a reader hands it to tp_trace_append(). */
typedef struct tp_event {
    int64_t ts, dur;
    tp_str name, cat;
    int64_t pid, tid;
    uint8_t kind, phase;
    int64_t ext_id, corr, flow_id;
    int32_t device, stream;
    const char *args; /* JSON text of the args object, or NULL; copied */
    size_t args_len;
} tp_event;

/* Result tables: typed columns. */
typedef enum tp_coltype {
    TP_COL_STR = 1, /* text (const char *) */
    TP_COL_I64 = 2,
    TP_COL_F64 = 3
} tp_coltype;

/* Stage kinds. */
typedef enum tp_stage_kind {
    TP_STAGE_READER = 1,
    TP_STAGE_FILTER = 2,
    TP_STAGE_ANALYSIS = 3,
    TP_STAGE_WRITER = 4
} tp_stage_kind;

/* Log levels for tp_log(). */
typedef enum tp_level {
    TP_LOG_ERROR = 0,
    TP_LOG_WARN = 1,
    TP_LOG_INFO = 2,
    TP_LOG_DEBUG = 3
} tp_level;

/* Opaque handles. */
typedef struct tp_stage tp_stage;   /* one configured stage while it runs */
typedef struct tp_trace tp_trace;   /* an event table plus metadata */
typedef struct tp_result tp_result; /* a typed result table */

#ifdef __cplusplus
}
#endif
#endif
