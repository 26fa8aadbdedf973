/*
 * The host function table: the only door from a plugin into the core; here
 * also its diagnostics, memory and strings, and results (trace access:
 * tp_host_trace.c; outputs: tp_host_output.c).
 * Every entry takes the running stage (or a trace/result handle) and
 * forwards to the core modules; nothing here keeps state of its own.
 */
#include "tp_guard.h"
#include "tp_host.h"
#include <tracepipe/tp_sdk_json.h>
#include "tp_result.h"
#include "tp_run.h"
#include "tp_strpool.h"
#include "tp_trace.h"
#include "tp_iterations.h"
#include "tp_vocabulary.h"
#include "tp_schema.h"
#include "tp_pipeline.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void host_log(tp_stage *st, tp_level level, const char *fmt, ...) TP_PRINTF(3, 4);
static void host_log(tp_stage *st, tp_level level, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tp_run_log(st->run, level, st->id, msg);
}

/* The stage a lazy attachment's filler failed for (host_trace_attached):
 * that message stays the stage's, whatever the stage reports after it. */
static _Thread_local tp_stage *lazy_failed;

int tp_host_fail(tp_stage *st, int code, const char *fmt, ...)
{
    if (st == lazy_failed && st->error_code != 0)
        return st->error_code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->error, sizeof st->error, fmt, ap);
    va_end(ap);
    /* keep it one line: a stray newline in a plugin message would break
     * the "one line per error" promise */
    for (char *p = st->error; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    st->error_code = code < 0 ? code : TP_ERR;
    return st->error_code;
}

/* A failed result call is recorded on the stage with its own code and
 * what it was, so the run reports "column 'x' (text): wrong type" even when
 * the plugin folds return codes together or returns a different one. */
static int result_call(tp_stage *st, const tp_result *r, int col, const char *what, int rc)
{
    if (rc >= TP_OK || st->error_code != 0)
        return rc;
    if (rc == TP_ENOMEM) {
        tp_host_fail(st, rc, "out of memory in %s (result '%s')", what, tp_result_get_id(r));
    } else if (col >= 0 && (size_t)col < tp_result_ncols(r)) {
        tp_coltype t = tp_result_coltype(r, col);
        tp_host_fail(st, rc, "plugin bug: %s on column '%s' (%s) of result '%s': wrong type or row",
                  what, tp_result_colname(r, col),
                  t == TP_COL_STR ? "text" : t == TP_COL_I64 ? "int64" : "double",
                  tp_result_get_id(r));
    } else {
        tp_host_fail(st, rc, "plugin bug: %s on result '%s': invalid column %d or argument", what,
                  tp_result_get_id(r), col);
    }
    return rc;
}

static void host_progress(tp_stage *st, uint64_t done, uint64_t total)
{
    tp_progress_update(st->run, st->id, &st->progress, done, total);
}

static tp_str host_intern(tp_stage *st, const char *s, size_t len)
{
    tp_str id = tp_strpool_intern(st->run->pool, s, len);
    return id; /* TP_STR_ERROR when out of memory */
}

static const char *host_str(tp_stage *st, tp_str id)
{
    return tp_strpool_text(st->run->pool, id);
}

static size_t host_str_len(tp_stage *st, tp_str id)
{
    return tp_strpool_len(st->run->pool, id);
}

static int host_str_lookup(tp_stage *st, const char *s, size_t len, tp_str *out)
{
    return tp_strpool_lookup(st->run->pool, s, len, out) ? 1 : 0;
}

static size_t host_str_count(tp_stage *st)
{
    return tp_strpool_count(st->run->pool);
}

static const char *host_stage_id(tp_stage *st) { return st->id; }
static tp_trace *host_stage_trace(tp_stage *st)
{
    return st->n_traces ? tp_host_stage_trace_at(st, 0) : st->trace;
}
static uint8_t *host_keep_mask(tp_stage *st) { return st->keep; }
static size_t host_input_count(tp_stage *st) { return st->n_inputs; }

static const tp_result *host_input(tp_stage *st, size_t i)
{
    return i < st->n_inputs ? st->inputs[i] : NULL;
}

static const tp_cols *host_trace_cols(const tp_trace *t) { return tp_trace_columns(t); }

static int host_trace_reserve(tp_stage *st, tp_trace *t, size_t n)
{
    (void)st;
    return tp_trace_reserve_rows(t, n);
}

static int host_trace_append(tp_stage *st, tp_trace *t, const tp_event *ev)
{
    (void)st;
    return tp_trace_push(t, ev);
}

static int host_trace_append_ref(tp_stage *st, tp_trace *t, const tp_event *ev, uint64_t off)
{
    (void)st;
    return tp_trace_push_ref(t, ev, off);
}

static int host_trace_append_rows(tp_stage *st, tp_trace *t, const tp_rows *rows)
{
    (void)st;
    return tp_trace_push_rows(t, rows);
}

static int host_trace_set_meta(tp_stage *st, tp_trace *t, const char *key, const char *json,
                               size_t len)
{
    (void)st;
    return tp_trace_meta_set(t, key, json, len);
}

static int host_trace_set_source(tp_stage *st, tp_trace *t, const char *path)
{
    (void)st;
    return tp_trace_source_set(t, path);
}

static int host_trace_set_args_file(tp_stage *st, tp_trace *t, int fd)
{
    (void)st;
    return tp_trace_args_file_set(t, fd);
}

static void *host_trace_attach(tp_stage *st, tp_trace *t, const char *name, tp_coltype type,
                               size_t n)
{
    (void)st;
    return tp_trace_attach_array(t, name, type, n);
}

static int host_trace_attach_lazy(tp_stage *st, tp_trace *t, const char *name, tp_coltype type,
                                  size_t n, tp_attach_fill_fn fill, void *user,
                                  void (*free_user)(void *user))
{
    (void)st;
    return tp_trace_attach_lazy(t, name, type, n, fill, user, free_user);
}

/* The stage running on this thread (tp_host_enter_stage): a lazy
 * attachment's filler runs on behalf of the stage asking for it. */
static _Thread_local tp_stage *running_stage;

tp_host_stage_mark tp_host_enter_stage(tp_stage *st)
{
    tp_host_stage_mark before = {running_stage, lazy_failed};
    running_stage = st;
    lazy_failed = NULL;
    return before;
}

void tp_host_leave_stage(tp_host_stage_mark before)
{
    running_stage = before.stage;
    lazy_failed = before.failed;
}

/* Why a filler failed, in words. */
static const char *fill_error(int rc)
{
    switch (rc) {
    case TP_ENOMEM: return "out of memory";
    case TP_EIO: return "input or output error";
    case TP_EFORMAT: return "malformed data";
    case TP_EINVAL: return "invalid request (a filler asking for its own attachment?)";
    case TP_ENOTFOUND: return "something it needs is missing";
    default: return "error";
    }
}

/* Looks an attachment up, filling a lazy one first: said at -v, and a
 * failure fails the asking stage naming the attachment. */
static const void *host_trace_attached(const tp_trace *t, const char *name, tp_coltype type,
                                       size_t *n)
{
    bool filled;
    int rc;
    const void *a = tp_trace_find_lazy(t, name, type, n, &filled, &rc);
    tp_stage *st = running_stage;
    if (st != NULL && filled)
        host_log(st, TP_LOG_INFO, "attachment '%s' filled on first use", name);
    if (st != NULL && rc != TP_OK) {
        tp_host_fail(st, rc, "attachment '%s': its filler failed (%s)", name, fill_error(rc));
        lazy_failed = st;
    }
    return a;
}

/* A result records the trace it came from: the notes "trace" (the reader's
 * id), "trace_label" and "rank" (from the trace's info, when known). */
static tp_result *with_trace_note(tp_stage *st, tp_result *r)
{
    if (r == NULL || st->trace == NULL || tp_trace_id(st->trace)[0] == '\0')
        return r;
    int rc = tp_result_meta_put(r, "trace", tp_trace_id(st->trace));
    const char *label = tp_host_info_str(st->trace, "label");
    if (rc == TP_OK && label != NULL)
        rc = tp_result_meta_put(r, "trace_label", label);
    int64_t rank;
    if (rc == TP_OK && tp_host_info_i64(st->trace, "rank", &rank) == TP_OK) {
        char text[32];
        snprintf(text, sizeof text, "%lld", (long long)rank);
        rc = tp_result_meta_put(r, "rank", text);
    }
    return rc == TP_OK ? r : NULL;
}

static tp_result *host_result_new(tp_stage *st, const char *name)
{
    if (name == NULL || name[0] == '\0')
        return with_trace_note(st, tp_run_new_result(st->run, st->id));
    size_t n = strlen(st->id) + strlen(name) + 2; /* never truncated */
    char *id = malloc(n);
    if (id == NULL)
        return NULL;
    snprintf(id, n, "%s.%s", st->id, name);
    tp_result *r = tp_run_new_result(st->run, id);
    free(id);
    return with_trace_note(st, r);
}

static int host_result_add_col(tp_stage *st, tp_result *r, const char *name, tp_coltype type)
{
    int rc = tp_result_col_add(r, name, type);
    if (rc == TP_EINVAL && st->error_code == 0)
        return tp_host_fail(st, rc, "plugin bug: column '%s' of result '%s' is empty, repeated or of "
                         "an unknown type", name ? name : "(null)", tp_result_get_id(r));
    return result_call(st, r, -1, "adding a column", rc);
}

static int host_result_add_row(tp_stage *st, tp_result *r, size_t *row)
{
    return result_call(st, r, -1, "adding a row", tp_result_row_add(r, row));
}

static int host_set_str(tp_stage *st, tp_result *r, size_t row, int col, const char *s)
{
    return result_call(st, r, col, "setting a text cell", tp_result_put_str(r, row, col, s));
}

static int host_set_i64(tp_stage *st, tp_result *r, size_t row, int col, int64_t v)
{
    return result_call(st, r, col, "setting an int64 cell", tp_result_put_i64(r, row, col, v));
}

static int host_set_f64(tp_stage *st, tp_result *r, size_t row, int col, double v)
{
    return result_call(st, r, col, "setting a double cell", tp_result_put_f64(r, row, col, v));
}

static int host_result_set_meta(tp_stage *st, tp_result *r, const char *k, const char *v)
{
    (void)st;
    return tp_result_meta_put(r, k, v);
}

/* ------------------------------------------------------ result metadata */

int tp_host_result_set_kind(tp_stage *st, tp_result *r, const char *kind)
{
    static const char *const kinds[] = {"table", "tree", "series", "histogram", "counter",
                                        "flow", "arg", NULL};
    for (size_t i = 0; kinds[i]; i++)
        if (kind && strcmp(kind, kinds[i]) == 0)
            return tp_result_meta_put(r, "kind", kind);
    if (st->error_code == 0)
        snprintf(st->error, sizeof st->error,
                 "plugin bug: result kind '%s' is not one of table, tree, series, histogram, counter, "
                 "flow, arg",
                 kind ? kind : "(null)");
    return TP_EINVAL;
}

const char *tp_host_result_kind(const tp_result *r)
{
    const char *k = tp_result_meta_get(r, "kind");
    return k ? k : "table";
}

/* Units live in the result's notes as "unit.<column>", so every writer that
 * keeps notes keeps them. */
int tp_host_result_set_unit(tp_stage *st, tp_result *r, int col, const char *unit)
{
    const char *name = tp_result_colname(r, col);
    if (name == NULL || unit == NULL) {
        if (st->error_code == 0)
            snprintf(st->error, sizeof st->error, "plugin bug: unit for column %d of '%s'", col,
                     tp_result_get_id(r));
        return TP_EINVAL;
    }
    size_t n = strlen(name) + 6;
    char *key = malloc(n);
    if (key == NULL)
        return TP_ENOMEM;
    snprintf(key, n, "unit.%s", name);
    int rc = tp_result_meta_put(r, key, unit);
    free(key);
    return rc;
}

const char *tp_host_result_col_unit(const tp_result *r, int col)
{
    const char *name = tp_result_colname(r, col);
    if (name == NULL)
        return NULL;
    char key[512];
    if (strlen(name) + 6 <= sizeof key) {
        snprintf(key, sizeof key, "unit.%s", name);
        const char *unit = tp_result_meta_get(r, key);
        if (unit)
            return unit;
    }
    return tp_schema_unit_from_name(name);
}

/* The pipeline's `name:`, or NULL (since 3.4). */
static const char *tp_host_pipeline_name(tp_stage *st)
{
    const char *name = st && st->run && st->run->pipeline ? st->run->pipeline->name : NULL;
    return name && name[0] ? name : NULL;
}

static const tp_host_api host_api = {
    .struct_size = sizeof(tp_host_api),
    .abi_major = TP_ABI_MAJOR,
    .abi_minor = TP_ABI_MINOR,
    .log = host_log,
    .fail = tp_host_fail,
    .progress = host_progress,
    .malloc = malloc,
    .calloc = calloc,
    .realloc = realloc,
    .free = free,
    .intern = host_intern,
    .str = host_str,
    .str_len = host_str_len,
    .str_lookup = host_str_lookup,
    .str_count = host_str_count,
    .stage_id = host_stage_id,
    .stage_trace = host_stage_trace,
    .keep_mask = host_keep_mask,
    .input_count = host_input_count,
    .input = host_input,
    .trace_cols = host_trace_cols,
    .trace_reserve = host_trace_reserve,
    .trace_append = host_trace_append,
    .trace_args = tp_trace_args_text,
    .trace_set_meta = host_trace_set_meta,
    .trace_meta = tp_trace_meta_get,
    .trace_meta_count = tp_trace_meta_n,
    .trace_meta_key = tp_trace_meta_key_at,
    .trace_source = tp_trace_source_path,
    .trace_set_source = host_trace_set_source,
    .trace_attach = host_trace_attach,
    .trace_attached = host_trace_attached,
    .result_new = host_result_new,
    .result_add_col = host_result_add_col,
    .result_add_row = host_result_add_row,
    .result_set_str = host_set_str,
    .result_set_i64 = host_set_i64,
    .result_set_f64 = host_set_f64,
    .result_set_meta = host_result_set_meta,
    .result_id = tp_result_get_id,
    .result_rows = tp_result_nrows,
    .result_cols = tp_result_ncols,
    .result_col_name = tp_result_colname,
    .result_col_type = tp_result_coltype,
    .result_find_col = tp_result_colfind,
    .result_is_null = tp_result_null,
    .result_get_str = tp_result_str,
    .result_get_i64 = tp_result_i64,
    .result_get_f64 = tp_result_f64,
    .result_meta = tp_result_meta_get,
    .output_begin = tp_host_output_begin,
    .json_find = tp_json_get,
    .trace_append_ref = host_trace_append_ref,
    .stage_trace_count = tp_host_stage_trace_count,
    .stage_trace_at = tp_host_stage_trace_at,
    .trace_id = tp_host_trace_id,
    .trace_info_set_i64 = tp_host_info_set_i64,
    .trace_info_set_f64 = tp_host_info_set_f64,
    .trace_info_set_str = tp_host_info_set_str,
    .trace_info_type = tp_host_info_type,
    .trace_info_i64 = tp_host_info_i64,
    .trace_info_f64 = tp_host_info_f64,
    .trace_info_str = tp_host_info_str,
    .trace_info_count = tp_host_info_count,
    .trace_info_key = tp_host_info_key,
    .trace_ext_add = tp_host_ext_add,
    .trace_ext_set_i32 = tp_host_ext_set_i32,
    .trace_ext_set_i64 = tp_host_ext_set_i64,
    .trace_ext_set_f64 = tp_host_ext_set_f64,
    .trace_ext_set_sid = tp_host_ext_set_sid,
    .trace_ext_count = tp_host_ext_count,
    .trace_ext_find = tp_host_ext_find,
    .trace_ext_name = tp_host_ext_name,
    .trace_ext_type = tp_host_ext_type,
    .trace_ext_data = tp_host_ext_data,
    .clip = tp_host_clip,
    .result_set_kind = tp_host_result_set_kind,
    .result_kind = tp_host_result_kind,
    .result_set_unit = tp_host_result_set_unit,
    .result_col_unit = tp_host_result_col_unit,
    .result_col_meaning = tp_result_colmeaning,
    .result_meta_count = tp_result_meta_n,
    .result_meta_key = tp_result_meta_key_at,
    .trace_refine = tp_host_trace_refine,
    .run_output_count = tp_host_run_output_count,
    .run_output = tp_host_run_output,
    .iterations = tp_host_iterations,
    .result_declared = tp_host_result_declared,
    .vocabulary = tp_host_vocabulary,
    .pipeline_name = tp_host_pipeline_name,
    .threads = tp_host_threads,
    .trace_set_args_file = host_trace_set_args_file,
    .trace_ext_read = tp_host_ext_read,
    .trace_append_rows = host_trace_append_rows,
    .trace_attach_lazy = host_trace_attach_lazy,
};

/* ------------------------------------------------------------ threads */

static int threads_given; /* tp_host_set_threads; 0: the cores */

void tp_host_set_threads(int n) { threads_given = n; }

int tp_host_threads(tp_stage *st)
{
    (void)st;
    if (threads_given > 0)
        return threads_given;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

const tp_host_api *tp_core_host_api(void)
{
    return &host_api;
}
