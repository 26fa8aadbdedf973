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

/* What tp_intern() returns when it cannot intern (out of memory). */
#define TP_STR_ERROR ((tp_str)UINT32_MAX)

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
    /* --- since 3.0 --- */
    TP_KIND_SYNC,           /* device synchronisation waits (cuda sync, cudaEventSynchronize) */
    TP_KIND_OS_RUNTIME,     /* OS calls traced by the profiler (Nsight's OS runtime rows) */
    TP_KIND_RANGE,          /* named ranges not nesting host work (NVTX push/pop kept apart) */
    TP_KIND__COUNT          /* not a kind: the number of kinds this header knows */
} tp_kind;

/* Kinds only grow.  A kind a consumer does not know (a value from a newer
 * reader, >= its TP_KIND__COUNT) must be treated as TP_KIND_OTHER; the core
 * stores kinds it does not know as TP_KIND_OTHER. */
static inline const char *tp_kind_name(unsigned kind)
{
    static const char *const names[TP_KIND__COUNT] = {
        "other",  "cpu_op", "annotation", "gpu_annotation", "python",   "runtime",
        "kernel", "memcpy", "memset",     "flow",           "instant",  "counter",
        "metadata", "trace", "sync",      "os_runtime",     "range"};
    return kind < TP_KIND__COUNT ? names[kind] : names[TP_KIND_OTHER];
}

/* The kind named by text as tp_kind_name() spells it; TP_KIND_OTHER if none. */
static inline tp_kind tp_kind_from_name(const char *text)
{
    for (unsigned k = 0; k < TP_KIND__COUNT; k++) {
        const char *a = tp_kind_name(k), *b = text;
        while (*a && *a == *b)
            a++, b++;
        if (*a == '\0' && *b == '\0')
            return (tp_kind)k;
    }
    return TP_KIND_OTHER;
}

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
 * Where an event happened: its process and thread, and for GPU activity the
 * device and stream from its args.  A trace keeps each distinct tuple once
 * (a few per thread and stream) and gives every event the index of its
 * tuple, so an event costs 4 bytes of place instead of 24, and grouping by
 * thread or stream is grouping by a small dense integer.
 */
typedef struct tp_track {
    int64_t pid;    /* see TP_ID_IS_STR */
    int64_t tid;
    int32_t device; /* args.device for GPU activity, -1 if absent */
    int32_t stream; /* args.stream for GPU activity (the OpenCL queue), -1 if absent */
    int64_t context; /* since 3.0: CUDA / OpenCL context id, 0 if absent (ids are >= 1) */
    int64_t reserved[3]; /* zero; room for fields appended in 3.x */
} tp_track;

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
    const uint32_t *track; /* index into tracks[] */
    const uint8_t *kind;  /* tp_kind */
    const uint8_t *phase; /* Chrome-trace ph character: 'X', 'B', 'i', 's', 'f', 'C', 'M' ... */
    /* Integer ids, 4 bytes a cell: read them with tp_ev_ext_id(),
     * tp_ev_corr() and tp_ev_flow_id(), which give the int64 value (see
     * TP_ID32_WIDE for how larger ones are kept). */
    const int32_t *ext_id32;  /* "External id" / "external id", TP_NONE if absent */
    const int32_t *corr32;    /* "correlation" (GPU side) / correlation of runtime calls */
    const int32_t *flow_id32; /* "id" of flow events (ph s/t/f), TP_NONE otherwise */
    const tp_track *tracks;   /* n_tracks distinct places, in order of first use */
    size_t n_tracks;
    const int64_t *wide_ids;  /* ids outside [-1, INT32_MAX], see TP_ID32_WIDE */
    size_t n_wide_ids;
} tp_cols;

/* An id cell holds ids from -1 (TP_NONE) to INT32_MAX as they are, which
 * covers correlation and external ids in practice; any other value goes to
 * the trace's wide_ids table and the cell holds -2 - its index there. */
#define TP_ID32_WIDE(cell) ((cell) < -1)

static inline int64_t tp_id_value(const tp_cols *c, int32_t cell)
{
    return TP_ID32_WIDE(cell) ? c->wide_ids[-2 - (int64_t)cell] : (int64_t)cell;
}
static inline int64_t tp_ev_ext_id(const tp_cols *c, size_t row)
{
    return tp_id_value(c, c->ext_id32[row]);
}
static inline int64_t tp_ev_corr(const tp_cols *c, size_t row)
{
    return tp_id_value(c, c->corr32[row]);
}
static inline int64_t tp_ev_flow_id(const tp_cols *c, size_t row)
{
    return tp_id_value(c, c->flow_id32[row]);
}

/* An event's place, field by field. */
static inline const tp_track *tp_ev_track(const tp_cols *c, size_t row)
{
    return &c->tracks[c->track[row]];
}
static inline int64_t tp_ev_pid(const tp_cols *c, size_t row) { return tp_ev_track(c, row)->pid; }
static inline int64_t tp_ev_tid(const tp_cols *c, size_t row) { return tp_ev_track(c, row)->tid; }
static inline int32_t tp_ev_device(const tp_cols *c, size_t row)
{
    return tp_ev_track(c, row)->device;
}
static inline int32_t tp_ev_stream(const tp_cols *c, size_t row)
{
    return tp_ev_track(c, row)->stream;
}

/* One event as a reader hands it to tp_trace_append().  Zero-initialise it
 * (`tp_event ev = {0};` or a designated initialiser) and then set fields:
 * fields appended in later 3.x versions take their room from `reserved`, and
 * zero there means "not given". */
typedef struct tp_event {
    int64_t ts, dur;
    tp_str name, cat;
    int64_t pid, tid;
    uint8_t kind, phase;
    int64_t ext_id, corr, flow_id;
    int32_t device, stream;
    const char *args; /* JSON text of the args object, or NULL; copied */
    size_t args_len;
    /* --- since 3.0 --- */
    int64_t context;  /* see tp_track.context; 0 when absent */
    uint64_t reserved[4];
} tp_event;

/* Since 3.4: n rows given column by column, appended at once
 * (trace_append_rows) -- what a reader that parsed them apart, on a second
 * thread, holds.  Each array has n cells.  place[i] indexes places[], the
 * distinct (pid, tid, device, stream, context) of these rows (tp_track's
 * fields: the trace numbers its own tracks).  Kinds as tp_event's (unknown:
 * other); ids any int64.  args_len NULL: no row has args; else row i's args
 * text (args_len[i] > 0) lies at args_off[i] of the trace's args file, as
 * trace_append_ref's offset says. */
typedef struct tp_rows {
    size_t n;
    const int64_t *ts, *dur;
    const tp_str *name, *cat;
    const uint8_t *kind, *phase;
    const int64_t *ext_id, *corr, *flow_id;
    const uint32_t *place;
    const tp_track *places;
    size_t n_places;
    const uint64_t *args_off;
    const uint32_t *args_len;
    const void *reserved[4]; /* NULL */
} tp_rows;

/* Result tables: typed columns. */
typedef enum tp_coltype {
    TP_COL_STR = 1, /* text (const char *) */
    TP_COL_I64 = 2,
    TP_COL_F64 = 3,
    TP_COL_I32 = 4, /* trace attachments and extension columns (int32_t) */
    /* --- since 3.0 --- */
    TP_COL_SID = 5  /* extension columns: an interned string (tp_str) */
} tp_coltype;

/* The most columns a result table holds (tp_result_col_add refuses more). */
#define TP_RESULT_MAX_COLS 4096

/* The null value of an extension cell no one has set: INT32_MIN, INT64_MIN,
 * NaN (doubles) and 0, the empty string (interned strings). */
#define TP_EXT_NULL_I32 INT32_MIN
#define TP_EXT_NULL_I64 INT64_MIN

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

/* Fills a lazy attachment's n cells (host trace_attach_lazy, since 3.4):
 * TP_OK, or an error code that fails the stage that asked for it. */
typedef int (*tp_attach_fill_fn)(const tp_trace *t, void *user, void *cells, size_t n);

#ifdef __cplusplus
}
#endif
#endif
