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
 * end of tp_host_api, tp_stage_desc, tp_plugin_desc or tp_cols.  The core
 * loads a plugin whose major equals its own and whose minor is not greater.
 *
 * Ownership words, as jansson uses them: "new" = the caller owns it,
 * "borrowed" = valid until the stage's run() returns (or, for trace and
 * result data, until the pipeline is freed); nothing here "steals".
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

#define TP_ABI_MAJOR 2
#define TP_ABI_MINOR 0

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
} tp_stage_desc;

typedef struct tp_host_api tp_host_api;

/* The exported descriptor.  The version fields come first and never move. */
typedef struct tp_plugin_desc {
    uint16_t abi_major;
    uint16_t abi_minor;
    uint32_t struct_size;  /* sizeof(tp_plugin_desc) at plugin build time */
    const char *name;
    const char *version;
    void (*bind)(const tp_host_api *api);
    const tp_stage_desc *stages; /* terminated by an entry whose name is NULL */
} tp_plugin_desc;

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
    tp_str (*intern)(tp_stage *st, const char *s, size_t len); /* 0 on ENOMEM for non-empty s */
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
};

/* Set by bind(); one per plugin, hidden so plugins never collide. */
extern TP_HIDDEN const tp_host_api *tp_host;

#define TP_STAGE(KIND, NAME, SUMMARY, OPTIONS, CONFIG_T, INIT, RUN, DESTROY) \
    { sizeof(tp_stage_desc), KIND, NAME, SUMMARY, OPTIONS, sizeof(CONFIG_T), NULL, INIT, RUN, DESTROY }
/* The same with a required earlier analysis. */
#define TP_STAGE_REQ(KIND, NAME, SUMMARY, OPTIONS, CONFIG_T, REQUIRES, INIT, RUN, DESTROY) \
    { sizeof(tp_stage_desc), KIND, NAME, SUMMARY, OPTIONS, sizeof(CONFIG_T), REQUIRES, INIT, RUN, DESTROY }
#define TP_STAGE_END { 0, (tp_stage_kind)0, NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL }

/* Emits the descriptor and tp_host.  STAGES is a TP_STAGE_END-terminated
 * array of tp_stage_desc. */
#define TP_PLUGIN_DEFINE(NAME, VERSION, STAGES)                                  \
    TP_HIDDEN const tp_host_api *tp_host;                                       \
    static void tp__bind(const tp_host_api *api) { tp_host = api; }             \
    TP_EXPORT extern const tp_plugin_desc tp_plugin_descriptor;                 \
    const tp_plugin_desc tp_plugin_descriptor = {                               \
        TP_ABI_MAJOR, TP_ABI_MINOR, sizeof(tp_plugin_desc), NAME, VERSION,      \
        tp__bind, STAGES }

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
#endif /* TP_CORE_BUILD */

#ifdef __cplusplus
}
#endif
#endif
