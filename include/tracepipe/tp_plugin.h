/*
 * tracepipe plugin ABI: the one header a plugin includes.
 *
 * A plugin is a shared object exporting exactly one symbol,
 * `tp_plugin_descriptor` (written by TP_PLUGIN_DEFINE).  The core opens it
 * with dlopen(RTLD_NOW | RTLD_LOCAL), checks the ABI version and struct
 * sizes, then calls bind() with the host function table.  From then on the
 * plugin reaches the core only through that table (the tp_* macros below),
 * so it links against nothing of the core and builds against include/ alone.
 *
 * Versioning: TP_ABI_MAJOR changes when anything is removed, reordered or
 * changes signature; TP_ABI_MINOR grows when something is appended at the
 * end of tp_host_api, tp_stage_desc, tp_plugin_desc, tp_option or tp_cols,
 * or takes the place of reserved space in tp_track and tp_event.  The core
 * loads a plugin whose major equals its own and whose minor is not greater.
 * Since 3.0 the core reads tp_plugin_desc, the stage array and option tables
 * with the sizes the plugin declares (struct_size, option_size) and treats
 * every field the plugin predates as zero, so appending a field breaks no
 * plugin built against an older 3.x header.
 *
 * Ownership words, as jansson uses them, on every entry below:
 *   "new"      the caller owns the result and frees it (tp_free);
 *   "borrowed" valid until the stage's run() returns, or, for trace and
 *              result data, until the run ends (the pipeline is freed);
 *   "copied"   the core keeps its own copy of an argument: the caller may
 *              free or reuse it as soon as the call returns.
 * Nothing here "steals" a caller's pointer.  Every argument not said to be
 * copied is read during the call only.
 *
 * Stage life cycle: init (if any), then run if init returned TP_OK, then
 * destroy (if any) ALWAYS, also after a failed init, with whatever *state
 * init left (NULL if it set none): destroy must accept a NULL state.
 * init judges and prepares the configuration only: `validate`, and `run`
 * before reading anything, call init then destroy once per stage with no
 * trace and no inputs, so that what init refuses (tp_fail) is reported as a
 * configuration error with the stage's place in the file.
 */
#ifndef TRACEPIPE_TP_PLUGIN_H
#define TRACEPIPE_TP_PLUGIN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "tp_option.h"
#include "tp_types.h"

#ifdef __cplusplus
extern "C" {
#endif

#define TP_ABI_MAJOR 3
#define TP_ABI_MINOR 4

#if defined(__GNUC__)
#define TP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#define TP_EXPORT __attribute__((visibility("default")))
#define TP_HIDDEN __attribute__((visibility("hidden")))
#else
#define TP_PRINTF(f, a)
#define TP_EXPORT
#define TP_HIDDEN
#endif

/*
 * Declared result schemas (since 3.4).  A stage lists, per result it makes,
 * the columns in order with their type, unit and meaning; the core creates
 * the result from the declaration (tp_result_declared), `pipeline describe`
 * prints it (and a JSON Schema with --json), and the docs test checks each
 * plugin page's columns tables against it.  Write declarations with
 * TP_COLUMNS, which also makes name-derived column constants:
 *
 *   #define KS_COLS(X, P) \
 *       X(P, name, STR, NULL, "kernel name") \
 *       X(P, count, I64, "count", "launches")
 *   TP_COLUMNS(ks_main, KS_COLS)   // enum { ks_main_name, ks_main_count, ks_main__n };
 *                                  // static const tp_col_decl ks_main_cols[];
 *   tp_result_set_i64(st, r, row, ks_main_count, n);
 */
typedef struct tp_col_decl {
    const char *name;  /* the column name (CONVENTIONS: units in suffixes) */
    tp_coltype type;   /* TP_COL_STR, TP_COL_I64 or TP_COL_F64 */
    const char *unit;  /* "us", "count", "bytes", "percent", ... or NULL */
    const char *doc;   /* one line: what the column holds */
} tp_col_decl;

typedef struct tp_result_decl {
    const char *name;  /* "" for "<id>", "NAME" for "<id>.NAME"; NULL ends a list */
    const char *kind;  /* "table", "tree", "series" or "histogram"; NULL: table */
    const tp_col_decl *cols;
    size_t n_cols;
    const char *doc;   /* one line: what a row is */
} tp_result_decl;

#define TP_COL_ENUM_(P, NAME, TYPE, UNIT, DOC) P##_##NAME,
#define TP_COL_DECL_(P, NAME, TYPE, UNIT, DOC) {#NAME, TP_COL_##TYPE, UNIT, DOC},
/* enum { P_name, ..., P__n } and static const tp_col_decl P_cols[P__n]. */
#define TP_COLUMNS(P, LIST)                                                     \
    enum { LIST(TP_COL_ENUM_, P) P##__n };                                      \
    static const tp_col_decl P##_cols[] = {LIST(TP_COL_DECL_, P)}
/* One tp_result_decl of columns P (from TP_COLUMNS). */
#define TP_RESULT(NAME, KIND, P, DOC) {NAME, KIND, P##_cols, (size_t)P##__n, DOC}
#define TP_RESULTS_END {NULL, NULL, NULL, 0, NULL}

/*
 * Iterations, set once per pipeline (since 3.4): the top-level
 * `iterations:` mapping, or its defaults.  Plugins read them through the
 * SDK's iteration view (tp_sdk_iter.h), which computes them once per trace.
 */
typedef enum tp_iter_source {
    TP_ITER_SOURCE_HOST = 0,           /* host events (ProfilerStep#N, annotations) */
    TP_ITER_SOURCE_GPU_ANNOTATION = 1, /* GPU-side annotations (gpu_user_annotation) */
    TP_ITER_SOURCE_RANGE = 2           /* async ranges, 'b' ... 'e' (NVTX-style) */
} tp_iter_source;

typedef struct tp_iter_settings {
    uint32_t struct_size;
    const char *marker;     /* PCRE2 in Python syntax, searched in event names */
    tp_iter_source source;
    uint32_t skip_first;    /* iterations left out of per-iteration statistics */
    uint32_t skip_last;
    uint32_t from_pipeline; /* 1 when the pipeline's `iterations:` set them */
} tp_iter_settings;

/* The default marker: PyTorch profiler's step annotations. */
#define TP_ITER_DEFAULT_MARKER "^ProfilerStep#\\d+$"

/*
 * The pipeline's vocabulary additions (since 3.4): the top-level
 * `vocabulary:` mapping, validated by the core; each item "WHAT=PATTERN"
 * or "PATTERN" as tp_sdk_vocab.h describes.  Plugins read the merged tables
 * through the SDK (tp_vocab_get), never these lists directly.
 */
typedef struct tp_vocab_settings {
    uint32_t struct_size;
    tp_strlist launch_apis, collectives, memory, annotations, modules;
    uint32_t from_pipeline; /* 1 when the pipeline has a `vocabulary:` */
} tp_vocab_settings;

/*
 * One stage a plugin provides.  run() is called once per pipeline run; it
 * reaches its data through the host table:
 *   reader   fills tp_stage_trace(st) with tp_trace_append()
 *   filter   clears bytes of tp_keep_mask(st) for events to drop
 *   analysis reads tp_stage_trace(st), may attach columns to it, and makes
 *            results with tp_result_new(); tp_input() gives `input:` results
 *   writer   reads tp_input() results (or the trace) and writes its output
 *            through tp_output_begin()
 * run() returns TP_OK or the code tp_fail() returned.
 */
typedef struct tp_stage_desc {
    uint32_t struct_size;   /* sizeof(tp_stage_desc), filled by TP_STAGE */
    tp_stage_kind kind;
    const char *name;       /* the name used in YAML: `analysis: NAME` */
    const char *summary;    /* one line for `pipeline plugins` */
    const tp_option *options; /* TP_OPTION_END-terminated, or NULL */
    size_t config_size;     /* bytes of the config struct the options fill */
    const char *requires;   /* analysis that must have run on the current trace
                               first (the core runs it with defaults if the
                               pipeline did not), or NULL */
    int (*init)(tp_stage *st, const void *config, void **state); /* optional */
    int (*run)(tp_stage *st, const void *config, void *state);
    void (*destroy)(tp_stage *st, void *state);                  /* optional */
    /* --- since 3.0; a plugin whose stages end before here declares none --- */
    /* The result ids run() makes, so `validate` checks every `input:` and
     * writer path before any work: NULL-terminated names, each "" for the
     * stage id itself, "NAME" for "<id>.NAME", or a pattern with one "*"
     * ("*" alone: any "<id>.X"; "streams.*": "<id>.streams.X").  NULL: the
     * stage does not say (nothing is checked against it). */
    const char *const *produces;
    uint32_t flags;        /* TP_STAGE_F_* */
    uint32_t option_size;  /* sizeof(tp_option) at build time, filled by TP_STAGE */
    /* --- since 3.1 --- */
    /* Readers: how surely the file is theirs, from its first bytes (head,
     * n of them, at most 256 KiB) and its path: 0 (not mine) to 100, for
     * `reader: auto`.  NULL: never chosen by auto. */
    int (*probe)(const unsigned char *head, size_t n, const char *path);
    /* --- since 3.4 --- */
    /* The results run() makes, with their columns (TP_RESULT, ended by
     * TP_RESULTS_END), or NULL.  A stage that declares them need not list
     * `produces`: the core derives it from these names. */
    const tp_result_decl *results;
    /* Optional: the declarations for one configuration, when options change
     * the results or their columns (NULL: `results` for every config). */
    const tp_result_decl *(*results_for)(const void *config);
    /* Every analysis that must have run on the stage's traces first,
     * NULL-terminated (TP_REQUIRES("hierarchy", "x")), or NULL.  `requires`,
     * when set too, comes first; each runs once per trace, with its
     * defaults, where the pipeline lacks it. */
    const char *const *requires_list;
} tp_stage_desc;

/* The part of tp_stage_desc every 3.x plugin has (through destroy). */
#define TP_STAGE_DESC_MIN_SIZE offsetof(tp_stage_desc, produces)

/* tp_stage_desc.flags */
enum {
    /* takes several traces: `trace: [ID, ID]` (a diff); tp_stage_trace_at() */
    TP_STAGE_F_TRACES = 1u << 0,
    /* a reader that yields result tables and no event trace */
    TP_STAGE_F_NO_TRACE = 1u << 1,
    /* a writer that writes one file per input result: when its inputs make
     * more than one result, its `path` option must contain "{id}"
     * (checked by `validate` from the producers' declared ids) */
    TP_STAGE_F_PATH_PER_RESULT = 1u << 2,
    /* (since 3.4, issue 31) takes its traces one at a time, in any order:
     * in a batch the core reads trace i when the stage asks for it
     * (stage_trace_at) and may free the one it asked for before, so a trace
     * (its columns, args, attachments) stays valid only until the stage asks
     * for another; what the stage took from it (numbers, interned strings,
     * results) stays.  Memory stays one trace, however many.  A stage
     * without it that takes several traces holds them all at once. */
    TP_STAGE_F_STREAM = 1u << 3,
    /* (since 3.4, issue 31) of the results it is given, uses only those of
     * the overlay kinds ("flow", "counter", "arg": CONVENTIONS): without
     * `input:`, the table results of the stage before it do not concern it,
     * so in a batch it may stream its traces beside that stage (one read of
     * each trace for both) */
    TP_STAGE_F_OVERLAYS = 1u << 4
};

typedef struct tp_host_api tp_host_api;

/* The exported descriptor.  The version fields come first and never move. */
typedef struct tp_plugin_desc {
    uint16_t abi_major;
    uint16_t abi_minor;
    uint32_t struct_size;  /* sizeof(tp_plugin_desc) at plugin build time */
    const char *name;
    const char *version;
    void (*bind)(const tp_host_api *api);
    const tp_stage_desc *stages; /* terminated by an entry whose name is NULL; the
                                    core steps through it by stages[0].struct_size */
    const void *reserved[4];     /* NULL; room for fields appended in 3.x */
} tp_plugin_desc;

/* The part of tp_plugin_desc every 3.x plugin has. */
#define TP_PLUGIN_DESC_MIN_SIZE offsetof(tp_plugin_desc, reserved)

/*
 * The host function table.  Append only; each addition is tagged with the
 * minor version that brought it.
 */
struct tp_host_api {
    uint32_t struct_size;
    uint16_t abi_major;
    uint16_t abi_minor;

    /* --- diagnostics (since 1.0) --- */
    void (*log)(tp_stage *st, tp_level level, const char *fmt, ...) TP_PRINTF(3, 4);
    /* Stores the message for the core to print with the stage's name and
     * returns code (a negative TP_E* value). */
    int (*fail)(tp_stage *st, int code, const char *fmt, ...) TP_PRINTF(3, 4);
    /* Progress of long work: done of total units (bytes for readers). */
    void (*progress)(tp_stage *st, uint64_t done, uint64_t total);

    /* --- memory: use these for anything the core may free (since 1.0) --- */
    void *(*malloc)(size_t size);
    void *(*calloc)(size_t n, size_t size);
    void *(*realloc)(void *p, size_t size);
    void (*free)(void *p);

    /* --- the run's string pool (since 1.0) --- */
    /* s is copied.  Returns TP_STR_ERROR when out of memory (never the id
     * of "", which a reader would silently store). */
    tp_str (*intern)(tp_stage *st, const char *s, size_t len);
    const char *(*str)(tp_stage *st, tp_str id);   /* borrowed, NUL-terminated */
    size_t (*str_len)(tp_stage *st, tp_str id);
    int (*str_lookup)(tp_stage *st, const char *s, size_t len, tp_str *out); /* 1 found, 0 not */
    size_t (*str_count)(tp_stage *st);             /* ids are < str_count */

    /* --- what the stage works on (since 1.0) --- */
    const char *(*stage_id)(tp_stage *st);
    tp_trace *(*stage_trace)(tp_stage *st);        /* current trace; NULL before any reader */
    uint8_t *(*keep_mask)(tp_stage *st);           /* filters only: 1 byte per event, preset to 1 */
    size_t (*input_count)(tp_stage *st);
    const tp_result *(*input)(tp_stage *st, size_t i);

    /* --- traces (since 1.0) --- */
    const tp_cols *(*trace_cols)(const tp_trace *t); /* borrowed; invalidated by append */
    int (*trace_reserve)(tp_stage *st, tp_trace *t, size_t n_events);
    int (*trace_append)(tp_stage *st, tp_trace *t, const tp_event *ev);
    /* Raw JSON text of an event's args object (not NUL-terminated), or NULL. */
    const char *(*trace_args)(const tp_trace *t, size_t row, size_t *len);
    /* Trace metadata: top-level keys of the source file other than the
     * events (deviceProperties, distributedInfo, schemaVersion ...), each
     * kept as JSON text. */
    int (*trace_set_meta)(tp_stage *st, tp_trace *t, const char *key, const char *json, size_t len);
    const char *(*trace_meta)(const tp_trace *t, const char *key); /* NUL-terminated JSON, or NULL */
    size_t (*trace_meta_count)(const tp_trace *t);
    const char *(*trace_meta_key)(const tp_trace *t, size_t i);
    const char *(*trace_source)(const tp_trace *t);  /* input file path, or "" */
    int (*trace_set_source)(tp_stage *st, tp_trace *t, const char *path);
    /* Derived per-trace arrays an analysis shares with later stages (the
     * hierarchy's parent links, say).  attach returns a new zeroed array of
     * n elements of type (I64: int64_t, I32: int32_t, F64: double) owned by
     * the trace, replacing any older one of that name; attached finds one
     * of that name and type (or NULL). */
    void *(*trace_attach)(tp_stage *st, tp_trace *t, const char *name, tp_coltype type, size_t n);
    const void *(*trace_attached)(const tp_trace *t, const char *name, tp_coltype type, size_t *n);

    /* --- results (since 1.0) --- */
    /* A new result owned by the core.  Its id is the stage id when name is
     * NULL or "", else "<stage id>.<name>". */
    tp_result *(*result_new)(tp_stage *st, const char *name);
    int (*result_add_col)(tp_stage *st, tp_result *r, const char *name, tp_coltype type); /* col index or < 0 */
    int (*result_add_row)(tp_stage *st, tp_result *r, size_t *row); /* new row of nulls */
    int (*result_set_str)(tp_stage *st, tp_result *r, size_t row, int col, const char *s);
    int (*result_set_i64)(tp_stage *st, tp_result *r, size_t row, int col, int64_t v);
    int (*result_set_f64)(tp_stage *st, tp_result *r, size_t row, int col, double v);
    /* Free-form key/value notes on a result ("title", "kind"="tree", "units"). */
    int (*result_set_meta)(tp_stage *st, tp_result *r, const char *key, const char *value);
    const char *(*result_id)(const tp_result *r);
    size_t (*result_rows)(const tp_result *r);
    size_t (*result_cols)(const tp_result *r);
    const char *(*result_col_name)(const tp_result *r, int col);
    tp_coltype (*result_col_type)(const tp_result *r, int col);
    int (*result_find_col)(const tp_result *r, const char *name); /* index or -1 */
    int (*result_is_null)(const tp_result *r, size_t row, int col);
    const char *(*result_get_str)(const tp_result *r, size_t row, int col); /* NULL if null */
    int64_t (*result_get_i64)(const tp_result *r, size_t row, int col);
    double (*result_get_f64)(const tp_result *r, size_t row, int col);
    const char *(*result_meta)(const tp_result *r, const char *key);

    /* --- output (since 1.0) --- */
    /* Returns a temporary path beside `path` (beside its target if it is
     * a symlink), already created, for the stage to open and write; when
     * run() returns TP_OK the core renames it to `path`, otherwise it
     * removes it, so no half-written file is ever left under the final
     * name.  For a device or FIFO it returns `path` itself (written in
     * place).  The stage must close the file before run() returns.  Returns
     * NULL (with the reason already recorded, so the stage just returns
     * TP_EIO) when path names an input of the run, a directory, or cannot
     * be created. */
    const char *(*output_begin)(tp_stage *st, const char *path);

    /* --- small helpers (since 1.0) --- */
    /* Finds key at the top level of a JSON object text and returns its raw
     * value text (borrowed from json) and length, or NULL. */
    const char *(*json_find)(const char *json, size_t len, const char *key, size_t *vlen);

    /* --- traces, continued (since 1.1) --- */
    /* Like trace_append, but the args text is not copied: it is the
     * ev->args_len bytes at args_offset of the trace's source file (set by
     * trace_set_source first), which must be a regular, uncompressed file
     * that stays unchanged while the run lasts.  The core maps the file on
     * the first trace_args() call, so a run that never reads args never
     * holds them in memory.  ev->args is ignored. */
    int (*trace_append_ref)(tp_stage *st, tp_trace *t, const tp_event *ev, uint64_t args_offset);

    /* --- several traces (since 3.0) --- */
    /* The traces a stage works on: one (its `trace:` or the latest), or for
     * a TP_STAGE_F_TRACES stage those of `trace: [a, b]`, in that order.
     * stage_trace(st) is stage_trace_at(st, 0).  Borrowed. */
    size_t (*stage_trace_count)(tp_stage *st);
    tp_trace *(*stage_trace_at)(tp_stage *st, size_t i);
    /* The id of the reader stage that made the trace; borrowed. */
    const char *(*trace_id)(const tp_trace *t);

    /* --- trace info (since 3.0) --- */
    /* Typed per-trace facts, set by readers from what the file says and by
     * analyses that learn more.  Reserved keys (docs/architecture.md):
     * format, label, rank, world_size, t0_ns, time_base, and per device
     * device.<ordinal>.name, .sm_count, .memory_bytes, .compute_capability,
     * .peak_flops, .peak_bandwidth_bytes_per_s.  Keys and text are copied;
     * setting a key again replaces its value (and type). */
    int (*trace_info_set_i64)(tp_stage *st, tp_trace *t, const char *key, int64_t v);
    int (*trace_info_set_f64)(tp_stage *st, tp_trace *t, const char *key, double v);
    int (*trace_info_set_str)(tp_stage *st, tp_trace *t, const char *key, const char *v);
    tp_coltype (*trace_info_type)(const tp_trace *t, const char *key); /* 0 when absent */
    /* TP_OK and *out, or TP_ENOTFOUND (absent or text); an I64 reads as a
     * double and a whole-valued F64 as an int64. */
    int (*trace_info_i64)(const tp_trace *t, const char *key, int64_t *out);
    int (*trace_info_f64)(const tp_trace *t, const char *key, double *out);
    const char *(*trace_info_str)(const tp_trace *t, const char *key); /* borrowed, or NULL */
    size_t (*trace_info_count)(const tp_trace *t);
    const char *(*trace_info_key)(const tp_trace *t, size_t i);      /* borrowed */

    /* --- extension columns (since 3.0) --- */
    /* Named, typed per-row columns beside the event columns: TP_COL_I32,
     * TP_COL_I64, TP_COL_F64 or TP_COL_SID (interned string).  Cells start
     * null (TP_EXT_NULL_I32 / _I64, NaN, 0); they grow with the trace,
     * filters carry them to the rows they keep, and chrome_trace writes
     * them back into args.  add returns the column index (the existing one
     * for a name already added with that type) or a negative code. */
    int (*trace_ext_add)(tp_stage *st, tp_trace *t, const char *name, tp_coltype type);
    int (*trace_ext_set_i32)(tp_stage *st, tp_trace *t, int col, size_t row, int32_t v);
    int (*trace_ext_set_i64)(tp_stage *st, tp_trace *t, int col, size_t row, int64_t v);
    int (*trace_ext_set_f64)(tp_stage *st, tp_trace *t, int col, size_t row, double v);
    int (*trace_ext_set_sid)(tp_stage *st, tp_trace *t, int col, size_t row, tp_str v);
    size_t (*trace_ext_count)(const tp_trace *t);
    int (*trace_ext_find)(const tp_trace *t, const char *name); /* index or -1 */
    const char *(*trace_ext_name)(const tp_trace *t, int col);  /* borrowed */
    tp_coltype (*trace_ext_type)(const tp_trace *t, int col);
    /* n cells of the column's type; borrowed, invalidated by append; NULL
     * when out of memory (the first read makes a compact column an array) */
    const void *(*trace_ext_data)(const tp_trace *t, int col);

    /* --- clipping filters (since 3.0) --- */
    /* Filters only: cut kept row `row` to [ts, ts + dur) ns, which must lie
     * inside its own interval; the filtered trace holds the cut times. */
    int (*clip)(tp_stage *st, size_t row, int64_t ts, int64_t dur);

    /* --- result metadata (since 3.0) --- */
    /* kind: "table" (default), "tree", "series" or "histogram", kept as the
     * note "kind"; a column's unit ("us", "ns", "bytes", "percent",
     * "count", "flop/s", ...) as the note "unit.<column>"; without one,
     * result_col_unit gives the unit the column's name implies by the
     * naming conventions (*_us: us, *_bytes: bytes, *_percent and
     * percent_*: percent, *_ratio, count and n_*: count, ...).  Results also
     * carry the notes "trace" (the id of the trace they came from),
     * "trace_label" and "rank" (from its info, when known). */
    int (*result_set_kind)(tp_stage *st, tp_result *r, const char *kind);
    const char *(*result_kind)(const tp_result *r);
    int (*result_set_unit)(tp_stage *st, tp_result *r, int col, const char *unit);
    const char *(*result_col_unit)(const tp_result *r, int col); /* borrowed, or NULL */
    size_t (*result_meta_count)(const tp_result *r);
    const char *(*result_meta_key)(const tp_result *r, size_t i); /* borrowed */

    /* --- readers refining what they read (since 3.2) --- */
    /* Readers only, on the trace they fill: give row `row` the kind `kind`
     * and move it to the track of the same pid and tid with `device` and
     * `stream` (-1: none).  For producers that say which side an event is
     * on only in metadata that may come after it (TensorFlow and JAX traces
     * name processes "/device:GPU:0"). */
    int (*trace_refine)(tp_stage *st, tp_trace *t, size_t row, tp_kind kind, int32_t device,
                        int32_t stream);

    /* --- the run's outputs (since 3.3) --- */
    /* The files earlier stages of this run completed (renamed into place),
     * in order, as their paths were written: what a report embeds (every
     * chart the pipeline made).  Devices and FIFOs written in place are not
     * listed.  Borrowed. */
    size_t (*run_output_count)(tp_stage *st);
    const char *(*run_output)(tp_stage *st, size_t i);

    /* --- iterations and declared results (since 3.4) --- */
    /* The pipeline's iterations (top-level `iterations:`, else defaults);
     * borrowed for the run. */
    const tp_iter_settings *(*iterations)(tp_stage *st);
    /* A new result with the columns, kind and units the stage declared for
     * `name` (as result_new names it), or NULL (reason recorded: the stage
     * declared no such result, or out of memory). */
    tp_result *(*result_declared)(tp_stage *st, const char *name);
    /* The pipeline's vocabulary additions (top-level `vocabulary:`; empty
     * lists without one); borrowed for the run.  Since 3.4. */
    const tp_vocab_settings *(*vocabulary)(tp_stage *st);
    /* The pipeline's `name:` (a batch's too), or NULL when it has none;
     * borrowed for the run.  Since 3.4 (issue 29: a report's title). */
    const char *(*pipeline_name)(tp_stage *st);
    /* A column's meaning: the one line its stage declared (tp_col_decl.doc),
     * or NULL (undeclared results, columns added by hand).  Since 3.4. */
    const char *(*result_col_meaning)(const tp_result *r, int col); /* borrowed */
    /* The threads a stage may keep busy at once (since 3.4, issue 31): the
     * cores the process may run on, but 1 in a batch's trace process when
     * the batch runs as many traces at once as there are cores (each has
     * its core: a second thread would only take another trace's). */
    int (*threads)(tp_stage *st);
    /* Args in a file of the reader's own (since 3.4, issue 31): from now on
     * trace_append_ref's offsets are into fd, an open regular file (an
     * unlinked temporary one, say, holding a gzip trace's args texts),
     * instead of the trace's source file, whose path the trace keeps.  The
     * core owns fd from the call on (also when it fails) and maps it on the
     * first args read, so the reader writes every text before any stage,
     * itself included, reads args. */
    int (*trace_set_args_file)(tp_stage *st, tp_trace *t, int fd);
    /* Cells [row, row + n) of extension column col, n cells of its type,
     * copied into out: read where they are, so a compact column stays
     * compact (trace_ext_data makes it an array for good; a writer going
     * through the rows once reads them in windows).  TP_OK, or TP_EINVAL
     * (no such column, rows past the trace).  Since 3.4 (issue 31). */
    int (*trace_ext_read)(const tp_trace *t, int col, size_t row, size_t n, void *out);
    /* Appends rows->n rows given as columns (tp_rows), the same rows as
     * appending them one by one (since 3.4, issue 31: a reader's second
     * thread's events joined at once; tracks numbered by first use, a
     * place no row uses adds none).  TP_EINVAL, nothing appended, for a
     * malformed block; TP_ENOMEM: no row appended (tracks and wide ids met
     * before it may stay, unused). */
    int (*trace_append_rows)(tp_stage *st, tp_trace *t, const tp_rows *rows);
    /* A lazy attachment (since 3.4, issue 31): registers name as n cells
     * of type (as trace_attach makes them, zeroed) that fill(t, user,
     * cells, n) writes the first time any stage looks the name up
     * (trace_attached); from then on it is an ordinary attachment.  The
     * core takes user in every case and calls free_user(user) (when not
     * NULL) once filled, replaced or with the trace.  A filler returning
     * an error code makes that lookup give NULL and fails the asking stage
     * with a message naming the attachment.  Compact published data can so
     * keep a wide layout's old names for the plugins that read them, paid
     * only by a pipeline that asks (the hierarchy's row arrays).  TP_OK,
     * TP_EINVAL (bad type, no fill) or TP_ENOMEM. */
    int (*trace_attach_lazy)(tp_stage *st, tp_trace *t, const char *name, tp_coltype type,
                             size_t n, tp_attach_fill_fn fill, void *user,
                             void (*free_user)(void *user));
};

/* Set by bind(); one per plugin, hidden so plugins never collide. */
extern TP_HIDDEN const tp_host_api *tp_host;

/* A `produces` list: TP_PRODUCES("", "summary") for "<id>" and
 * "<id>.summary"; TP_PRODUCES_NONE for a stage that makes no results. */
#define TP_PRODUCES(...) ((const char *const[]){__VA_ARGS__, NULL})
#define TP_PRODUCES_NONE ((const char *const[]){NULL})

/* Every field, for stages that declare what they produce or set flags. */
#define TP_STAGE_FULL(KIND, NAME, SUMMARY, OPTIONS, CONFIG_T, REQUIRES, PRODUCES, FLAGS, INIT, RUN, \
                      DESTROY)                                                                   \
    { sizeof(tp_stage_desc), KIND, NAME, SUMMARY, OPTIONS, sizeof(CONFIG_T), REQUIRES, INIT, RUN,   \
      DESTROY, PRODUCES, FLAGS, (uint32_t)sizeof(tp_option), NULL, NULL, NULL, NULL }
/* A stage with declared results (since 3.4): RESULTS is a TP_RESULTS_END-
 * terminated array of TP_RESULT; RESULTS_FOR NULL or a function of the
 * config. */
#define TP_STAGE_DECL(KIND, NAME, SUMMARY, OPTIONS, CONFIG_T, REQUIRES, RESULTS, RESULTS_FOR,      \
                      FLAGS, INIT, RUN, DESTROY)                                                 \
    { sizeof(tp_stage_desc), KIND, NAME, SUMMARY, OPTIONS, sizeof(CONFIG_T), REQUIRES, INIT, RUN,   \
      DESTROY, NULL, FLAGS, (uint32_t)sizeof(tp_option), NULL, RESULTS, RESULTS_FOR, NULL }
/* The same with several required analyses: REQUIRES_LIST is TP_REQUIRES(...). */
#define TP_STAGE_DECL_REQS(KIND, NAME, SUMMARY, OPTIONS, CONFIG_T, REQUIRES_LIST, RESULTS,          \
                           RESULTS_FOR, FLAGS, INIT, RUN, DESTROY)                                \
    { sizeof(tp_stage_desc), KIND, NAME, SUMMARY, OPTIONS, sizeof(CONFIG_T), NULL, INIT, RUN,      \
      DESTROY, NULL, FLAGS, (uint32_t)sizeof(tp_option), NULL, RESULTS, RESULTS_FOR,              \
      REQUIRES_LIST }
/* A list of required analyses: TP_REQUIRES("hierarchy", "trace_info"). */
#define TP_REQUIRES(...) ((const char *const[]){__VA_ARGS__, NULL})
/* A reader that `reader: auto` may choose, by its probe (since 3.1). */
#define TP_STAGE_READER_PROBED(NAME, SUMMARY, OPTIONS, CONFIG_T, PRODUCES, FLAGS, INIT, RUN,       \
                               DESTROY, PROBE)                                                   \
    { sizeof(tp_stage_desc), TP_STAGE_READER, NAME, SUMMARY, OPTIONS, sizeof(CONFIG_T), NULL,      \
      INIT, RUN, DESTROY, PRODUCES, FLAGS, (uint32_t)sizeof(tp_option), PROBE, NULL, NULL, NULL }
#define TP_STAGE(KIND, NAME, SUMMARY, OPTIONS, CONFIG_T, INIT, RUN, DESTROY) \
    TP_STAGE_FULL(KIND, NAME, SUMMARY, OPTIONS, CONFIG_T, NULL, NULL, 0, INIT, RUN, DESTROY)
/* The same with a required earlier analysis. */
#define TP_STAGE_REQ(KIND, NAME, SUMMARY, OPTIONS, CONFIG_T, REQUIRES, INIT, RUN, DESTROY) \
    TP_STAGE_FULL(KIND, NAME, SUMMARY, OPTIONS, CONFIG_T, REQUIRES, NULL, 0, INIT, RUN, DESTROY)
#define TP_STAGE_END                                                                        \
    { sizeof(tp_stage_desc), (tp_stage_kind)0, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, 0, \
      0, NULL, NULL, NULL, NULL }

/* Emits the descriptor and tp_host.  STAGES is a TP_STAGE_END-terminated
 * array of tp_stage_desc. */
#define TP_PLUGIN_DEFINE(NAME, VERSION, STAGES)                                  \
    TP_HIDDEN const tp_host_api *tp_host;                                       \
    static void tp__bind(const tp_host_api *api) { tp_host = api; }             \
    TP_EXPORT extern const tp_plugin_desc tp_plugin_descriptor;                 \
    const tp_plugin_desc tp_plugin_descriptor = {                               \
        TP_ABI_MAJOR, TP_ABI_MINOR, sizeof(tp_plugin_desc), NAME, VERSION,      \
        tp__bind, STAGES, {NULL, NULL, NULL, NULL} }

#define TP_DESCRIPTOR_SYMBOL "tp_plugin_descriptor"

#ifndef TP_CORE_BUILD
/* Friendly names for the host table, for plugin code. */
#define tp_log(...) tp_host->log(__VA_ARGS__)
#define tp_fail(...) tp_host->fail(__VA_ARGS__)
#define tp_progress(st, done, total) tp_host->progress(st, done, total)
#define tp_malloc(n) tp_host->malloc(n)
#define tp_calloc(n, s) tp_host->calloc(n, s)
#define tp_realloc(p, n) tp_host->realloc(p, n)
#define tp_free(p) tp_host->free(p)
#define tp_intern(st, s, len) tp_host->intern(st, s, len)
#define tp_str_text(st, id) tp_host->str(st, id)
#define tp_str_len(st, id) tp_host->str_len(st, id)
#define tp_str_lookup(st, s, len, out) tp_host->str_lookup(st, s, len, out)
#define tp_str_count(st) tp_host->str_count(st)
#define tp_stage_id(st) tp_host->stage_id(st)
#define tp_stage_trace(st) tp_host->stage_trace(st)
#define tp_keep_mask(st) tp_host->keep_mask(st)
#define tp_input_count(st) tp_host->input_count(st)
#define tp_input(st, i) tp_host->input(st, i)
#define tp_trace_cols(t) tp_host->trace_cols(t)
#define tp_trace_reserve(st, t, n) tp_host->trace_reserve(st, t, n)
#define tp_trace_append(st, t, ev) tp_host->trace_append(st, t, ev)
#define tp_trace_append_ref(st, t, ev, off) tp_host->trace_append_ref(st, t, ev, off)
#define tp_trace_args(t, row, len) tp_host->trace_args(t, row, len)
#define tp_trace_set_meta(st, t, k, j, n) tp_host->trace_set_meta(st, t, k, j, n)
#define tp_trace_meta(t, k) tp_host->trace_meta(t, k)
#define tp_trace_meta_count(t) tp_host->trace_meta_count(t)
#define tp_trace_meta_key(t, i) tp_host->trace_meta_key(t, i)
#define tp_trace_source(t) tp_host->trace_source(t)
#define tp_trace_set_source(st, t, p) tp_host->trace_set_source(st, t, p)
#define tp_trace_set_args_file(st, t, fd) tp_host->trace_set_args_file(st, t, fd) /* since 3.4 */
#define tp_trace_append_rows(st, t, rows) tp_host->trace_append_rows(st, t, rows) /* since 3.4 */
#define tp_trace_attach_lazy(st, t, name, type, n, fill, user, free_user)                          \
    tp_host->trace_attach_lazy(st, t, name, type, n, fill, user, free_user) /* since 3.4 */
#define tp_trace_attach(st, t, name, type, n) tp_host->trace_attach(st, t, name, type, n)
#define tp_trace_attached(t, name, type, n) tp_host->trace_attached(t, name, type, n)
#define tp_result_new(st, name) tp_host->result_new(st, name)
#define tp_result_add_col(st, r, name, type) tp_host->result_add_col(st, r, name, type)
#define tp_result_add_row(st, r, row) tp_host->result_add_row(st, r, row)
#define tp_result_set_str(st, r, row, col, s) tp_host->result_set_str(st, r, row, col, s)
#define tp_result_set_i64(st, r, row, col, v) tp_host->result_set_i64(st, r, row, col, v)
#define tp_result_set_f64(st, r, row, col, v) tp_host->result_set_f64(st, r, row, col, v)
#define tp_result_set_meta(st, r, k, v) tp_host->result_set_meta(st, r, k, v)
#define tp_result_id(r) tp_host->result_id(r)
#define tp_result_rows(r) tp_host->result_rows(r)
#define tp_result_cols(r) tp_host->result_cols(r)
#define tp_result_col_name(r, c) tp_host->result_col_name(r, c)
#define tp_result_col_type(r, c) tp_host->result_col_type(r, c)
#define tp_result_find_col(r, name) tp_host->result_find_col(r, name)
#define tp_result_is_null(r, row, c) tp_host->result_is_null(r, row, c)
#define tp_result_get_str(r, row, c) tp_host->result_get_str(r, row, c)
#define tp_result_get_i64(r, row, c) tp_host->result_get_i64(r, row, c)
#define tp_result_get_f64(r, row, c) tp_host->result_get_f64(r, row, c)
#define tp_result_meta(r, k) tp_host->result_meta(r, k)
#define tp_output_begin(st, path) tp_host->output_begin(st, path)
#define tp_json_find(j, len, key, vlen) tp_host->json_find(j, len, key, vlen)
#define tp_stage_trace_count(st) tp_host->stage_trace_count(st)
#define tp_stage_trace_at(st, i) tp_host->stage_trace_at(st, i)
#define tp_trace_id(t) tp_host->trace_id(t)
#define tp_trace_info_set_i64(st, t, k, v) tp_host->trace_info_set_i64(st, t, k, v)
#define tp_trace_info_set_f64(st, t, k, v) tp_host->trace_info_set_f64(st, t, k, v)
#define tp_trace_info_set_str(st, t, k, v) tp_host->trace_info_set_str(st, t, k, v)
#define tp_trace_info_type(t, k) tp_host->trace_info_type(t, k)
#define tp_trace_info_i64(t, k, out) tp_host->trace_info_i64(t, k, out)
#define tp_trace_info_f64(t, k, out) tp_host->trace_info_f64(t, k, out)
#define tp_trace_info_str(t, k) tp_host->trace_info_str(t, k)
#define tp_trace_info_count(t) tp_host->trace_info_count(t)
#define tp_trace_info_key(t, i) tp_host->trace_info_key(t, i)
#define tp_trace_ext_add(st, t, name, type) tp_host->trace_ext_add(st, t, name, type)
#define tp_trace_ext_set_i32(st, t, c, row, v) tp_host->trace_ext_set_i32(st, t, c, row, v)
#define tp_trace_ext_set_i64(st, t, c, row, v) tp_host->trace_ext_set_i64(st, t, c, row, v)
#define tp_trace_ext_set_f64(st, t, c, row, v) tp_host->trace_ext_set_f64(st, t, c, row, v)
#define tp_trace_ext_set_sid(st, t, c, row, v) tp_host->trace_ext_set_sid(st, t, c, row, v)
#define tp_trace_ext_count(t) tp_host->trace_ext_count(t)
#define tp_trace_ext_find(t, name) tp_host->trace_ext_find(t, name)
#define tp_trace_ext_name(t, c) tp_host->trace_ext_name(t, c)
#define tp_trace_ext_type(t, c) tp_host->trace_ext_type(t, c)
#define tp_trace_ext_data(t, c) tp_host->trace_ext_data(t, c)
#define tp_trace_ext_read(t, c, row, n, out) tp_host->trace_ext_read(t, c, row, n, out) /* since 3.4 */
#define tp_clip(st, row, ts, dur) tp_host->clip(st, row, ts, dur)
#define tp_trace_refine(st, t, row, kind, device, stream) \
    tp_host->trace_refine(st, t, row, kind, device, stream)
#define tp_run_output_count(st) tp_host->run_output_count(st)
#define tp_run_output(st, i) tp_host->run_output(st, i)
#define tp_iterations_settings(st) tp_host->iterations(st)
#define tp_result_declared(st, name) tp_host->result_declared(st, name)
#define tp_vocabulary_settings(st) tp_host->vocabulary(st)
#define tp_pipeline_name(st) tp_host->pipeline_name(st)
#define tp_threads(st) tp_host->threads(st)
#define tp_result_set_kind(st, r, k) tp_host->result_set_kind(st, r, k)
#define tp_result_kind(r) tp_host->result_kind(r)
#define tp_result_set_unit(st, r, c, u) tp_host->result_set_unit(st, r, c, u)
#define tp_result_col_unit(r, c) tp_host->result_col_unit(r, c)
#define tp_result_col_meaning(r, c) tp_host->result_col_meaning(r, c)
#define tp_result_meta_count(r) tp_host->result_meta_count(r)
#define tp_result_meta_key(r, i) tp_host->result_meta_key(r, i)
#endif /* TP_CORE_BUILD */

#ifdef __cplusplus
}
#endif
#endif
