/*
 * reader nsys: Nsight Systems SQLite exports (`nsys export --type sqlite`),
 * both schema generations (FORMATS.md section 1), through libsqlite3.
 *
 * Rows are streamed table by table with sqlite3_step, never a table in
 * memory; only the string table (StringIds) and the NVTX domain names are
 * held, as interned ids.  Mapping (FORMATS.md 1.5):
 *   CUPTI RUNTIME class 0/1  runtime calls (cuda_runtime / cuda_driver;
 *                            class 67, the backtrace copies, dropped), the
 *                            `_vNNNN` suffix stripped (raw name in args)
 *   KERNEL / MEMCPY / MEMSET kernels, copies, sets: device, stream, context,
 *                            correlation; grid, block, registers, shared
 *                            memory and bytes as extension columns
 *   SYNCHRONIZATION          sync
 *   NVTX push/pop, start/end annotations (category nvtx:<domain>), marks
 *                            as zero-length annotations
 *   OSRT_API                 os_runtime calls
 *   TARGET_INFO_GPU          trace info device.<cuDevice>.name/sm_count/...
 * Timestamps are integer ns from the session start.  globalTid/globalPid:
 * tid in bits 0-23, pid in bits 24-47, the upper bits masked off.
 * Launches link to their GPU work by correlation id within a process; ids
 * of different processes may collide, which the SDK's launch links resolve
 * by pid.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

#include "nsys_common.h"

typedef struct nsys_config {
    const char *path;
    const char *kernel_name;
} nsys_config;

static const tp_option nsys_options[] = {
    TP_OPTION_REQUIRED_INPUT_FILE("path", nsys_config, path,
                              "the .sqlite file (nsys export --type sqlite)"),
    NSYS_KERNEL_NAME_OPTION(nsys_config),
    TP_OPTION_END};

/* Extension columns this reader fills. */
typedef struct nsys {
    tp_stage *st;
    tp_trace *t;
    sqlite3 *db;
    const char *path;
    tp_str *strings; /* StringIds id -> interned */
    size_t nstrings;
    int ext[N_X];
    tp_str cat_runtime, cat_driver, cat_kernel, cat_memcpy, cat_memset, cat_sync, cat_osrt;
    size_t rows;     /* rows appended */
    size_t dropped_backtrace;
    /* NVTX domain names: (pid, domainId) -> text */
    nsys_domains domains;
    int broken; /* an SQLite error while probing the schema */
    int short_names; /* kernel_name: short */
} nsys;

static int db_error(nsys *n, const char *what)
{
    return tp_fail(n->st, TP_EFORMAT, "%s: %s: %s", n->path, what, sqlite3_errmsg(n->db));
}

static int has_table(nsys *n, const char *name)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(n->db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", -1,
                           &q, NULL) != SQLITE_OK) {
        n->broken = 1;
        return 0;
    }
    sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
    int step = sqlite3_step(q);
    n->broken |= step != SQLITE_ROW && step != SQLITE_DONE;
    sqlite3_finalize(q);
    return step == SQLITE_ROW;
}

static int has_column(nsys *n, const char *table, const char *col)
{
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT 1 FROM pragma_table_info('%s') WHERE name=?", table);
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(n->db, sql, -1, &q, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_text(q, 1, col, -1, SQLITE_STATIC);
    int found = sqlite3_step(q) == SQLITE_ROW;
    sqlite3_finalize(q);
    return found;
}

static tp_str intern(nsys *n, const char *s, size_t len)
{
    return tp_intern(n->st, s ? s : "", s ? len : 0);
}

static tp_str string_id(const nsys *n, sqlite3_stmt *q, int col)
{
    if (sqlite3_column_type(q, col) == SQLITE_NULL)
        return 0;
    int64_t id = sqlite3_column_int64(q, col);
    return id >= 0 && (size_t)id < n->nstrings ? n->strings[id] : 0;
}

static int load_strings(nsys *n)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(n->db, "SELECT id, value FROM StringIds ORDER BY id", -1, &q, NULL) !=
        SQLITE_OK)
        return db_error(n, "StringIds");
    size_t cap = 1024;
    n->strings = tp_calloc(cap, sizeof *n->strings);
    int rc = n->strings ? TP_OK : TP_ENOMEM;
    while (rc == TP_OK && sqlite3_step(q) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(q, 0);
        if (id < 0 || id > (1 << 28))
            continue;
        if ((size_t)id >= cap) {
            size_t nc = (size_t)id * 2 + 1;
            tp_str *s = tp_realloc(n->strings, nc * sizeof *s);
            if (s == NULL) {
                rc = TP_ENOMEM;
                break;
            }
            memset(s + cap, 0, (nc - cap) * sizeof *s);
            n->strings = s;
            cap = nc;
        }
        const char *v = (const char *)sqlite3_column_blob(q, 1); /* bytes: not all UTF-8 */
        n->strings[id] = intern(n, v, (size_t)sqlite3_column_bytes(q, 1));
        if ((size_t)id >= n->nstrings)
            n->nstrings = (size_t)id + 1;
    }
    sqlite3_finalize(q);
    return rc;
}

static int append(nsys *n, tp_event *ev)
{
    int rc = tp_trace_append(n->st, n->t, ev);
    if (rc == TP_OK)
        n->rows++;
    return rc;
}

/* Runs sql and calls row(n, q) for each row; a missing table is no rows. */
static int each_row(nsys *n, const char *table, const char *sql, int (*row)(nsys *, sqlite3_stmt *))
{
    if (!has_table(n, table))
        return TP_OK;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(n->db, sql, -1, &q, NULL) != SQLITE_OK)
        return db_error(n, table);
    int rc = TP_OK, step;
    while (rc == TP_OK && (step = sqlite3_step(q)) == SQLITE_ROW)
        rc = row(n, q);
    if (rc == TP_OK && step != SQLITE_DONE)
        rc = db_error(n, table);
    sqlite3_finalize(q);
    return rc;
}

/* ------------------------------------------------------------- runtime */

static int runtime_row(nsys *n, sqlite3_stmt *q)
{
    int64_t cls = sqlite3_column_int64(q, 2);
    if (cls == 67) { /* the backtrace copy of a call already listed */
        n->dropped_backtrace++;
        return TP_OK;
    }
    tp_event e = nsys_base_event();
    e.ts = sqlite3_column_int64(q, 0);
    e.dur = nsys_dur(e.ts, sqlite3_column_int64(q, 1));
    e.kind = TP_KIND_RUNTIME;
    e.cat = cls == 1 ? n->cat_driver : n->cat_runtime;
    e.pid = pid_of(sqlite3_column_int64(q, 3));
    e.tid = tid_of(sqlite3_column_int64(q, 3));
    e.corr = sqlite3_column_int64(q, 4) > 0 ? sqlite3_column_int64(q, 4) : TP_NONE;
    tp_str raw = string_id(n, q, 5);
    const char *s = tp_str_text(n->st, raw);
    size_t len = s ? strlen(s) : 0, keep = s ? unversioned(s, len) : 0;
    e.name = keep < len ? intern(n, s, keep) : raw;
    char args[512];
    int alen = snprintf(args, sizeof args, "{\"name\": \"%s\", \"returnValue\": %lld}",
                        keep < len ? s : "", (long long)sqlite3_column_int64(q, 6));
    if (keep < len && alen > 0 && (size_t)alen < sizeof args && !strpbrk(s, "\"\\")) {
        e.args = args;
        e.args_len = (size_t)alen;
    }
    return append(n, &e);
}

/* ------------------------------------------------------ GPU activities */

static int set_ext(nsys *n, int which, sqlite3_stmt *q, int col)
{
    if (col < 0 || sqlite3_column_type(q, col) == SQLITE_NULL)
        return TP_OK;
    return tp_trace_ext_set_i64(n->st, n->t, n->ext[which], n->rows - 1, sqlite3_column_int64(q, col));
}

/* start, end, deviceId, streamId, correlationId, globalPid, contextId */
static void device_fields(sqlite3_stmt *q, tp_event *e)
{
    e->ts = sqlite3_column_int64(q, 0);
    e->dur = sqlite3_column_int64(q, 1) - e->ts;
    e->device = (int32_t)sqlite3_column_int64(q, 2);
    int64_t stream = sqlite3_column_int64(q, 3);
    e->stream = stream == 4294967295LL ? -1 : (int32_t)stream;
    e->corr = sqlite3_column_int64(q, 4) > 0 ? sqlite3_column_int64(q, 4) : TP_NONE;
    e->pid = pid_of(sqlite3_column_int64(q, 5));
    e->tid = e->stream; /* one row of the timeline per stream, as Kineto draws it */
    e->context = sqlite3_column_int64(q, 6) + 1; /* 0 means absent: ids from 0 shift */
}

static int kernel_row(nsys *n, sqlite3_stmt *q)
{
    tp_event e = nsys_base_event();
    device_fields(q, &e);
    e.kind = TP_KIND_KERNEL;
    e.cat = n->cat_kernel;
    e.name = nsys_kernel_name(n->short_names, string_id(n, q, 17), string_id(n, q, 7));
    int rc = append(n, &e);
    static const int which[] = {X_GRID_X, X_GRID_Y, X_GRID_Z, X_BLOCK_X, X_BLOCK_Y, X_BLOCK_Z,
                                X_REGS, X_SMEM_STATIC, X_SMEM_DYNAMIC};
    for (int i = 0; i < 9 && rc == TP_OK; i++)
        rc = set_ext(n, which[i], q, 8 + i);
    return rc;
}

static int memcpy_row(nsys *n, sqlite3_stmt *q)
{
    tp_event e = nsys_base_event();
    device_fields(q, &e);
    e.kind = TP_KIND_MEMCPY;
    e.cat = n->cat_memcpy;
    char name[32];
    int len = snprintf(name, sizeof name, "Memcpy %s", copy_kind(sqlite3_column_int64(q, 8)));
    e.name = intern(n, name, (size_t)len);
    int rc = append(n, &e);
    rc = rc ? rc : set_ext(n, X_BYTES, q, 7);
    return rc ? rc : set_ext(n, X_COPY_KIND, q, 8);
}

static int memset_row(nsys *n, sqlite3_stmt *q)
{
    tp_event e = nsys_base_event();
    device_fields(q, &e);
    e.kind = TP_KIND_MEMSET;
    e.cat = n->cat_memset;
    e.name = intern(n, "Memset", 6);
    int rc = append(n, &e);
    return rc ? rc : set_ext(n, X_BYTES, q, 7);
}

static int sync_row(nsys *n, sqlite3_stmt *q)
{
    static const char *const types[] = {"Unknown sync", "Event sync", "Stream wait event",
                                        "Stream sync", "Context sync"};
    tp_event e = nsys_base_event();
    device_fields(q, &e);
    e.kind = TP_KIND_SYNC;
    e.cat = n->cat_sync;
    int64_t t = sqlite3_column_int64(q, 7);
    const char *name = t >= 0 && t < 5 ? types[t] : "Sync";
    e.name = intern(n, name, strlen(name));
    return append(n, &e);
}

/* ----------------------------------------------------------------- NVTX */

static int domain_row(nsys *n, sqlite3_stmt *q)
{
    return nsys_domain_add(n->st, &n->domains, pid_of(sqlite3_column_int64(q, 0)),
                           sqlite3_column_int64(q, 1), (const char *)sqlite3_column_text(q, 2));
}

/* start, end, eventType, globalTid, text, textId, domainId */
static int nvtx_row(nsys *n, sqlite3_stmt *q)
{
    int64_t type = sqlite3_column_int64(q, 2);
    if (type != 34 && type != 59 && type != 60)
        return TP_OK; /* names of domains, categories, threads: not events */
    tp_event e = nsys_base_event();
    e.ts = sqlite3_column_int64(q, 0);
    e.dur = type == 34 || sqlite3_column_type(q, 1) == SQLITE_NULL
                ? 0
                : nsys_dur(e.ts, sqlite3_column_int64(q, 1));
    e.kind = TP_KIND_ANNOTATION;
    int64_t g = sqlite3_column_int64(q, 3);
    e.pid = pid_of(g);
    e.tid = tid_of(g);
    const char *text = (const char *)sqlite3_column_text(q, 4);
    e.name = text ? intern(n, text, (size_t)sqlite3_column_bytes(q, 4)) : string_id(n, q, 5);
    e.cat = sqlite3_column_type(q, 6) == SQLITE_NULL || sqlite3_column_int64(q, 6) == 0
                ? intern(n, "nvtx", 4)
                : nsys_domain_cat(n->st, &n->domains, e.pid, sqlite3_column_int64(q, 6));
    return append(n, &e);
}

static int osrt_row(nsys *n, sqlite3_stmt *q)
{
    tp_event e = nsys_base_event();
    e.ts = sqlite3_column_int64(q, 0);
    e.dur = nsys_dur(e.ts, sqlite3_column_int64(q, 1));
    e.kind = TP_KIND_OS_RUNTIME;
    e.cat = n->cat_osrt;
    e.pid = pid_of(sqlite3_column_int64(q, 2));
    e.tid = tid_of(sqlite3_column_int64(q, 2));
    e.name = string_id(n, q, 3);
    return append(n, &e);
}

/* --------------------------------------------------------- trace info */

static int gpu_row(nsys *n, sqlite3_stmt *q)
{
    char key[64];
    int64_t dev = sqlite3_column_int64(q, 0);
    const char *name = (const char *)sqlite3_column_text(q, 1);
    int rc = TP_OK;
    if (name) {
        snprintf(key, sizeof key, "device.%lld.name", (long long)dev);
        rc = tp_trace_info_set_str(n->st, n->t, key, name);
    }
    if (rc == TP_OK && sqlite3_column_type(q, 2) != SQLITE_NULL) {
        snprintf(key, sizeof key, "device.%lld.sm_count", (long long)dev);
        rc = tp_trace_info_set_i64(n->st, n->t, key, sqlite3_column_int64(q, 2));
    }
    if (rc == TP_OK && sqlite3_column_type(q, 3) != SQLITE_NULL) {
        snprintf(key, sizeof key, "device.%lld.memory_bytes", (long long)dev);
        rc = tp_trace_info_set_i64(n->st, n->t, key, sqlite3_column_int64(q, 3));
    }
    return rc;
}

/* The trace's label: its file name without folder and .sqlite. */
/* ------------------------------------------------------------- reading */

static int is_nsys_export(nsys *n)
{
    return has_table(n, "StringIds") &&
           (has_table(n, "EXPORT_META_DATA") || has_table(n, "META_DATA_EXPORT"));
}

static int prepare(nsys *n)
{
    static const char *const cats[] = {"cuda_runtime", "cuda_driver", "kernel", "gpu_memcpy",
                                       "gpu_memset", "cuda_sync", "osrt"};
    tp_str *dst[] = {&n->cat_runtime, &n->cat_driver, &n->cat_kernel, &n->cat_memcpy,
                     &n->cat_memset, &n->cat_sync, &n->cat_osrt};
    for (int i = 0; i < 7; i++)
        if ((*dst[i] = intern(n, cats[i], strlen(cats[i]))) == TP_STR_ERROR)
            return TP_ENOMEM;
    for (int i = 0; i < N_X; i++)
        if ((n->ext[i] = tp_trace_ext_add(n->st, n->t, nsys_ext_names[i], TP_COL_I64)) < 0)
            return TP_ENOMEM;
    int rc = tp_trace_info_set_str(n->st, n->t, "format", "nsys-sqlite");
    return rc ? rc : load_strings(n);
}

static int read_all(nsys *n)
{
    const char *ctx = has_column(n, "CUPTI_ACTIVITY_KIND_KERNEL", "contextId") ? "contextId" : "0";
    const char *demangled =
        has_column(n, "CUPTI_ACTIVITY_KIND_KERNEL", "demangledName") ? "demangledName" : "NULL";
    char sql[1024];
    int rc = each_row(n, "CUPTI_ACTIVITY_KIND_RUNTIME",
                      "SELECT start, end, eventClass, globalTid, correlationId, nameId, "
                      "returnValue FROM CUPTI_ACTIVITY_KIND_RUNTIME",
                      runtime_row);
    snprintf(sql, sizeof sql,
             "SELECT start, end, deviceId, streamId, correlationId, globalPid, %s, shortName, "
             "gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread, "
             "staticSharedMemory, dynamicSharedMemory, %s FROM CUPTI_ACTIVITY_KIND_KERNEL", ctx,
             demangled);
    rc = rc ? rc : each_row(n, "CUPTI_ACTIVITY_KIND_KERNEL", sql, kernel_row);
    rc = rc ? rc : each_row(n, "CUPTI_ACTIVITY_KIND_MEMCPY",
                            "SELECT start, end, deviceId, streamId, correlationId, globalPid, "
                            "contextId, bytes, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY",
                            memcpy_row);
    rc = rc ? rc : each_row(n, "CUPTI_ACTIVITY_KIND_MEMSET",
                            "SELECT start, end, deviceId, streamId, correlationId, globalPid, "
                            "contextId, bytes FROM CUPTI_ACTIVITY_KIND_MEMSET",
                            memset_row);
    rc = rc ? rc : each_row(n, "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                            "SELECT start, end, deviceId, streamId, correlationId, globalPid, "
                            "contextId, syncType FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
                            sync_row);
    rc = rc ? rc : each_row(n, "NVTX_EVENTS",
                            "SELECT globalTid, domainId, text FROM NVTX_EVENTS WHERE eventType = 75",
                            domain_row);
    rc = rc ? rc : each_row(n, "NVTX_EVENTS",
                            "SELECT start, end, eventType, globalTid, text, textId, domainId "
                            "FROM NVTX_EVENTS",
                            nvtx_row);
    rc = rc ? rc : each_row(n, "OSRT_API",
                            "SELECT start, end, globalTid, nameId FROM OSRT_API", osrt_row);
    rc = rc ? rc : each_row(n, "TARGET_INFO_GPU",
                            "SELECT cuDevice, name, smCount, totalMemory FROM TARGET_INFO_GPU",
                            gpu_row);
    return rc;
}

static int nsys_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const nsys_config *cfg = config;
    nsys n = {.st = st, .t = tp_stage_trace(st), .path = cfg->path,
              .short_names = nsys_short_names(cfg->kernel_name)};
    if (n.t == NULL)
        return tp_fail(st, TP_ERR, "%s: no trace to fill", cfg->path);
    FILE *f = fopen(cfg->path, "rb");
    char head[256] = {0};
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    if (f)
        fclose(f);
    if (f == NULL)
        return tp_fail(st, TP_EIO, "%s: cannot open: %s", cfg->path, "No such file or unreadable");
    if ((got < 16 || memcmp(head, "SQLite format 3", 16) != 0) &&
        nsys_json_probe((const unsigned char *)head, got, cfg->path) > 0)
        return tp_fail(st, TP_EFORMAT, "%s: an Nsight Systems JSON-lines export, not SQLite (read "
                       "it with `reader: nsys_json`, or `reader: auto`)", cfg->path);
    if (got < 16 || memcmp(head, "SQLite format 3", 16) != 0)
        return tp_fail(st, TP_EFORMAT, "%s: not an SQLite database (the nsys reader reads "
                       "`nsys export --type sqlite` files; a Kineto JSON trace needs the kineto "
                       "reader)", cfg->path);
    if (sqlite3_open_v2(cfg->path, &n.db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        int rc = tp_fail(st, TP_EIO, "%s: cannot open: %s", cfg->path, sqlite3_errmsg(n.db));
        sqlite3_close(n.db);
        return rc;
    }
    int export = is_nsys_export(&n);
    int rc = n.broken ? tp_fail(st, TP_EFORMAT, "%s: a damaged or truncated SQLite file: %s",
                                cfg->path, sqlite3_errmsg(n.db))
             : export ? prepare(&n)
                      : tp_fail(st, TP_EFORMAT, "%s: an SQLite database but not an Nsight Systems "
                                "export (no StringIds and export metadata tables)", cfg->path);
    if (rc == TP_OK)
        rc = nsys_set_label(st, n.t, cfg->path);
    if (rc == TP_OK)
        rc = read_all(&n);
    if (rc == TP_OK)
        tp_log(st, TP_LOG_INFO, "%s: %zu events (%zu backtrace copies of API rows dropped)",
               cfg->path, n.rows, n.dropped_backtrace);
    sqlite3_close(n.db);
    tp_free(n.strings);
    tp_free(n.domains.at);
    return rc;
}

/* An SQLite database: most likely an nsys export (checked when read). */
static int nsys_probe(const unsigned char *head, size_t n, const char *path)
{
    (void)path;
    return n >= 16 && memcmp(head, "SQLite format 3", 16) == 0 ? 90 : 0;
}

static const tp_stage_desc nsys_stages[] = {
    TP_STAGE_READER_PROBED("nsys",
                           "Nsight Systems SQLite export (nsys export --type sqlite), both schema "
                           "generations",
                           nsys_options, nsys_config, TP_PRODUCES_NONE, 0, NULL, nsys_run, NULL,
                           nsys_probe),
    TP_STAGE_READER_PROBED("nsys_json",
                           "Nsight Systems JSON-lines export (nsys export --type json), strings "
                           "inline or separate, anywhere in the file",
                           nsys_json_options, nj_config, TP_PRODUCES_NONE, 0, NULL, nsys_json_run,
                           NULL, nsys_json_probe),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("nsys", "0.1.0", nsys_stages);
