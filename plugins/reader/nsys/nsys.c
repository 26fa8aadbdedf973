/*
 * reader nsys: Nsight Systems SQLite exports (`nsys export --type sqlite`),
 * both schema generations (FORMATS.md section 1), through libsqlite3.
 *
 * Rows are streamed table by table with sqlite3_step, never a table in
 * memory; only the string table (StringIds) and the NVTX domain names are
 * held, as interned ids.  The integer tables (API calls, kernels, copies,
 * sets, syncs, OS runtime calls) are decoded a few blocks ahead by a second
 * thread on its own connection when the stage may keep two busy
 * (nsys_rows.h), appended here in the same order.  Mapping (FORMATS.md 1.5):
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
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

#include "nsys_args.h"
#include "nsys_common.h"
#include "nsys_open.h"
#include "nsys_payload.h"
#include "nsys_rows.h"

typedef struct nsys_config {
    const char *path;
    const char *kernel_name;
} nsys_config;

static const tp_option nsys_options[] = {
    TP_OPTION_REQUIRED_INPUT_FILE("path", nsys_config, path,
                              "the .sqlite file (nsys export --type sqlite)"),
    NSYS_KERNEL_NAME_OPTION(nsys_config),
    TP_OPTION_END};

/* The integer tables, read through nsys_rows (on a second thread when the
 * stage may use two) in this order. */
enum { J_RUNTIME, J_KERNEL, J_MEMCPY, J_MEMSET, J_SYNC, J_OSRT, N_JOBS };
static const char *const job_tables[N_JOBS] = {
    "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
    "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "OSRT_API"};
enum { JOB_ABSENT, JOB_READ, JOB_REFUSED }; /* a job's table: none, read, not plain */

typedef struct nsys {
    tp_stage *st;
    tp_trace *t;
    sqlite3 *db;
    const char *path;
    char *uri;    /* what db was opened with (a second connection opens it too) */
    int64_t size; /* the file's */
    nsys_rows *jobs; /* the integer tables' rows (nsys_rows.h) */
    nsys_args args; /* where args texts go: memory, then a temporary file */
    int job_state[N_JOBS];
    nsys_table strings; /* StringIds id -> interned */
    int ext[N_X];
    tp_str cat_runtime, cat_driver, cat_kernel, cat_memcpy, cat_memset, cat_sync, cat_osrt;
    size_t rows;     /* rows appended */
    size_t dropped_backtrace;
    /* NVTX domain names: (pid, domainId) -> text */
    nsys_table domains;
    nsys_bad bad;
    int row_bad; /* the row being read holds a value that is not an integer */
    int64_t budget; /* SQLite VM steps left (progress handler) */
    int broken; /* an SQLite error while probing the schema */
    int short_names; /* kernel_name: short */
    tp_memkind memkinds[16]; /* ENUM_CUDA_MEM_KIND id -> kind (when the export has it) */
    int has_memkinds;
    nsys_payloads *payloads; /* NVTX extended payloads (nsys_payload.h) */
} nsys;

/* An SQLite error: the work budget spent (by either connection), or what
 * SQLite says (message). */
static int db_failed(nsys *n, const char *what, const char *message)
{
    if (__atomic_load_n(&n->budget, __ATOMIC_RELAXED) < 0)
        return tp_fail(n->st, TP_EFORMAT, "%s: reading %s took more work than the export's size "
                       "allows (a schema computing values, such as a generated column?)",
                       n->path, what);
    return tp_fail(n->st, TP_EFORMAT, "%s: %s: %s", n->path, what, message);
}

static int db_error(nsys *n, const char *what)
{
    return db_failed(n, what, sqlite3_errmsg(n->db));
}

static int has_table(nsys *n, const char *name) { return nsys_has_table(n->db, name, &n->broken); }

/* A table the reader reads must hold its values: a virtual table or a
 * generated column would run the input's code on every row read.  say: the
 * refusal (or SQLite's error) is the stage's failure; else only its code. */
static int check_plain(nsys *n, const char *table, int say)
{
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(n->db, "SELECT (SELECT sql NOT LIKE 'CREATE TABLE%' FROM sqlite_master "
                           "WHERE type='table' AND name=?1), (SELECT name FROM "
                           "pragma_table_xinfo(?1) WHERE hidden IN (2, 3))", -1, &q, NULL) !=
        SQLITE_OK)
        return say ? db_error(n, table) : TP_EFORMAT;
    sqlite3_bind_text(q, 1, table, -1, SQLITE_STATIC);
    int rc = sqlite3_step(q) == SQLITE_ROW ? TP_OK : say ? db_error(n, table) : TP_EFORMAT;
    const char *generated = rc == TP_OK ? (const char *)sqlite3_column_text(q, 1) : NULL;
    if (rc == TP_OK && (sqlite3_column_int(q, 0) || generated))
        rc = !say ? TP_EFORMAT
                  : tp_fail(n->st, TP_EFORMAT, "%s: table %s %s%s: an export's tables hold "
                            "values, they never compute them (refused: the input's code would "
                            "run)", n->path, table, generated ? "has a generated column "
                            : "is a virtual table", generated ? generated : "");
    sqlite3_finalize(q);
    return rc;
}

static int plain_table(nsys *n, const char *table) { return check_plain(n, table, 1); }

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

/* An integer cell (NSYS_CELL_* type, value): NULL is 0; text, a real
 * (1e400 is inf) or a blob marks the row damaged. */
static int64_t int_cell(nsys *n, int type, int64_t v)
{
    if (type == NSYS_CELL_OTHER)
        n->row_bad = 1;
    return type == NSYS_CELL_INT ? v : 0;
}

static int64_t value_i64(nsys *n, sqlite3_value *v)
{
    int type = nsys_cell_type(v);
    return int_cell(n, type, type == NSYS_CELL_INT ? sqlite3_value_int64(v) : 0);
}

static int64_t cell_i64(nsys *n, const nsys_row *r, int c) { return int_cell(n, r->type[c], r->v[c]); }

/* (One sqlite3_column_value per cell: each column_* call decodes the cell
 * again.) */
static int64_t col_i64(nsys *n, sqlite3_stmt *q, int col)
{
    return value_i64(n, sqlite3_column_value(q, col));
}

/* A StringIds id cell's string: NULL is 0. */
static tp_str string_cell(nsys *n, int type, int64_t v)
{
    return type == NSYS_CELL_NULL ? 0 : nsys_string(&n->strings, &n->bad, int_cell(n, type, v));
}

static tp_str string_of(nsys *n, sqlite3_value *v)
{
    int type = nsys_cell_type(v);
    return string_cell(n, type, type == NSYS_CELL_INT ? sqlite3_value_int64(v) : 0);
}

static tp_str cell_string(nsys *n, const nsys_row *r, int c)
{
    return string_cell(n, r->type[c], r->v[c]);
}

static tp_str string_id(nsys *n, sqlite3_stmt *q, int col)
{
    return string_of(n, sqlite3_column_value(q, col));
}

static int load_strings(nsys *n)
{
    sqlite3_stmt *q;
    int rc = plain_table(n, "StringIds");
    if (rc != TP_OK)
        return rc;
    if (sqlite3_prepare_v2(n->db, "SELECT id, value FROM StringIds", -1, &q, NULL) != SQLITE_OK)
        return db_error(n, "StringIds");
    int step;
    while (rc == TP_OK && (step = sqlite3_step(q)) == SQLITE_ROW) {
        const char *v = (const char *)sqlite3_column_blob(q, 1); /* bytes: not all UTF-8 */
        size_t len = (size_t)sqlite3_column_bytes(q, 1);
        sqlite3_value *id = sqlite3_column_value(q, 0);
        if (sqlite3_value_type(id) != SQLITE_INTEGER)
            n->bad.not_integer++;
        else
            rc = nsys_string_put(n->st, &n->strings, sqlite3_value_int64(id), v, len);
    }
    if (rc == TP_OK && step != SQLITE_DONE)
        rc = db_error(n, "StringIds");
    sqlite3_finalize(q);
    nsys_table_seal(&n->strings);
    return rc;
}

/* The row's times (start, end in columns c, c + 1) into e: 1, or 0 (counted)
 * when the row is damaged. */
static int row_times(nsys *n, const nsys_row *r, int c, tp_event *e)
{
    int64_t start = cell_i64(n, r, c), end = cell_i64(n, r, c + 1);
    return nsys_times(&n->bad, n->row_bad, start, end, e);
}

/* Appends the row, its args text (if any) in memory or in the temporary
 * file (nsys_args.h). */
static int append(nsys *n, tp_event *ev)
{
    if (n->row_bad) {
        n->bad.not_integer++;
        return TP_OK;
    }
    nsys_bad_row_done(&n->bad);
    int rc = nsys_args_append(&n->args, ev);
    if (rc == TP_OK)
        n->rows++;
    return rc;
}

/* Runs sql and calls row(n, q) for each row; a missing table is no rows. */
static int each_row(nsys *n, const char *table, const char *sql, int (*row)(nsys *, sqlite3_stmt *))
{
    if (!has_table(n, table))
        return TP_OK;
    int rc = plain_table(n, table), step;
    if (rc != TP_OK)
        return rc;
    sqlite3_stmt *q;
    if (sqlite3_prepare_v2(n->db, sql, -1, &q, NULL) != SQLITE_OK)
        return db_error(n, table);
    while (rc == TP_OK && (step = sqlite3_step(q)) == SQLITE_ROW) {
        n->row_bad = n->bad.row_unknown = n->bad.row_nul = 0;
        rc = row(n, q);
    }
    if (rc == TP_OK && step != SQLITE_DONE)
        rc = db_error(n, table);
    sqlite3_finalize(q);
    return rc;
}

/* Calls row(n, r) for each row of job j's table (nsys_rows); an absent
 * table is no rows, one not plain is refused here, in the tables' order. */
static int each_job(nsys *n, int j, int (*row)(nsys *, const nsys_row *))
{
    if (n->job_state[j] != JOB_READ)
        return n->job_state[j] == JOB_ABSENT ? TP_OK : plain_table(n, job_tables[j]);
    const nsys_block *b = NULL;
    int rc = TP_OK, got;
    while (rc == TP_OK && (got = nsys_rows_next(n->jobs, j, &b)) > 0)
        for (size_t i = 0; i < b->rows && rc == TP_OK; i++) {
            nsys_row r = nsys_block_row(b, i);
            n->row_bad = n->bad.row_unknown = n->bad.row_nul = 0;
            rc = row(n, &r);
        }
    return rc == TP_OK && got < 0 ? db_failed(n, job_tables[j], nsys_rows_error(n->jobs)) : rc;
}

/* ------------------------------------------------------------- runtime */

/* {"name": "<versioned name>", "returnValue": <ret>} into buf: its length,
 * 0 when it does not fit (with its NUL) or the name holds a quote or
 * backslash. */
static size_t runtime_args(char *buf, size_t size, const char *name, int64_t ret)
{
    static const char head[] = "{\"name\": \"", mid[] = "\", \"returnValue\": ";
    size_t len = strlen(name), k = 0;
    char digits[24]; /* ret in decimal, at its end (snprintf was 1 % of a read) */
    size_t d = sizeof digits;
    uint64_t mag = ret < 0 ? 0 - (uint64_t)ret : (uint64_t)ret;
    do
        digits[--d] = (char)('0' + mag % 10);
    while ((mag /= 10) != 0);
    if (ret < 0)
        digits[--d] = '-';
    size_t dlen = sizeof digits - d;
    if (strpbrk(name, "\"\\") || sizeof head + len + sizeof mid + dlen - 1 >= size)
        return 0;
    memcpy(buf + k, head, sizeof head - 1);
    k += sizeof head - 1;
    memcpy(buf + k, name, len);
    k += len;
    memcpy(buf + k, mid, sizeof mid - 1);
    k += sizeof mid - 1;
    memcpy(buf + k, digits + d, dlen);
    k += dlen;
    buf[k++] = '}';
    buf[k] = '\0';
    return k;
}

static int runtime_row(nsys *n, const nsys_row *r)
{
    int64_t cls = cell_i64(n, r, 2);
    if (cls == 67) { /* the backtrace copy of a call already listed */
        n->dropped_backtrace++;
        return TP_OK;
    }
    tp_event e = nsys_base_event();
    if (!row_times(n, r, 0, &e))
        return TP_OK;
    e.kind = TP_KIND_RUNTIME;
    e.cat = cls == 1 ? n->cat_driver : n->cat_runtime;
    e.pid = pid_of(cell_i64(n, r, 3));
    e.tid = tid_of(cell_i64(n, r, 3));
    int64_t corr = cell_i64(n, r, 4);
    e.corr = corr > 0 ? corr : TP_NONE;
    tp_str raw = 0;
    if (r->type[5] != NSYS_CELL_NULL)
        e.name = nsys_string_base(n->st, &n->strings, &n->bad, cell_i64(n, r, 5), &raw);
    char args[512];
    int64_t ret = cell_i64(n, r, 6);
    size_t alen = e.name != raw ? runtime_args(args, sizeof args, tp_str_text(n->st, raw), ret) : 0;
    if (alen > 0) {
        e.args = args;
        e.args_len = alen;
    }
    return append(n, &e);
}

/* ------------------------------------------------------ GPU activities */

static int set_ext(nsys *n, int which, const nsys_row *r, int col)
{
    if (r->type[col] != NSYS_CELL_INT)
        return TP_OK; /* absent (NULL), or a damaged extension value: left unset */
    return tp_trace_ext_set_i64(n->st, n->t, n->ext[which], n->rows - 1, r->v[col]);
}

/* start, end, deviceId, streamId, correlationId, globalPid, contextId: 1,
 * or 0 when the row is damaged (counted). */
static int device_fields(nsys *n, const nsys_row *r, tp_event *e)
{
    if (!row_times(n, r, 0, e))
        return 0;
    int64_t device = cell_i64(n, r, 2), stream = cell_i64(n, r, 3), corr = cell_i64(n, r, 4);
    if (!nsys_device_ok(&n->bad, device) ||
        !nsys_device_ok(&n->bad, stream == 4294967295LL ? 0 : stream))
        return 0;
    e->device = (int32_t)device;
    e->stream = stream == 4294967295LL ? -1 : (int32_t)stream;
    e->corr = corr > 0 ? corr : TP_NONE;
    e->pid = pid_of(cell_i64(n, r, 5));
    e->tid = e->stream; /* one row of the timeline per stream, as Kineto draws it */
    e->context = nsys_context(cell_i64(n, r, 6));
    return 1;
}

static int kernel_row(nsys *n, const nsys_row *r)
{
    tp_event e = nsys_base_event();
    if (!device_fields(n, r, &e))
        return TP_OK;
    e.kind = TP_KIND_KERNEL;
    e.cat = n->cat_kernel;
    e.name = nsys_kernel_name(n->short_names, cell_string(n, r, 17), cell_string(n, r, 7));
    int rc = append(n, &e);
    if (rc != TP_OK || n->row_bad)
        return rc; /* a damaged row is skipped: its cells too */
    static const int which[] = {X_GRID_X, X_GRID_Y, X_GRID_Z, X_BLOCK_X, X_BLOCK_Y, X_BLOCK_Z,
                                X_REGS, X_SMEM_STATIC, X_SMEM_DYNAMIC};
    for (int i = 0; i < 9 && rc == TP_OK; i++)
        rc = set_ext(n, which[i], r, 8 + i);
    return rc;
}

/* A copy's memory kind (srcKind or dstKind in column col) as the SDK's
 * tp_memkind, by the export's ENUM_CUDA_MEM_KIND labels, else by its
 * documented numbering; left null when not recorded or unknown. */
static int set_memkind(nsys *n, int which, const nsys_row *r, int col)
{
    if (r->type[col] != NSYS_CELL_INT)
        return TP_OK;
    int64_t id = r->v[col];
    tp_memkind k = n->has_memkinds ? (id >= 0 && id < 16 ? n->memkinds[id] : TP_MEMKIND_UNKNOWN)
                                   : tp_memkind_of_nsys(id);
    if (k == TP_MEMKIND_UNKNOWN)
        return TP_OK;
    return tp_trace_ext_set_i64(n->st, n->t, n->ext[which], n->rows - 1, (int64_t)k);
}

static int memkind_row(nsys *n, sqlite3_stmt *q)
{
    int64_t id = col_i64(n, q, 0);
    const char *label = (const char *)sqlite3_column_text(q, 1);
    if (id >= 0 && id < 16 && label)
        n->memkinds[id] = tp_memkind_of_word(label, strlen(label));
    n->has_memkinds = 1;
    return TP_OK;
}

static int memcpy_row(nsys *n, const nsys_row *r)
{
    tp_event e = nsys_base_event();
    if (!device_fields(n, r, &e))
        return TP_OK;
    e.kind = TP_KIND_MEMCPY;
    e.cat = n->cat_memcpy;
    char name[32];
    int len = snprintf(name, sizeof name, "Memcpy %s", copy_kind(cell_i64(n, r, 8)));
    e.name = intern(n, name, (size_t)len);
    int rc = append(n, &e);
    if (rc != TP_OK || n->row_bad)
        return rc; /* a damaged row is skipped: its cells too */
    rc = set_ext(n, X_BYTES, r, 7);
    rc = rc ? rc : set_ext(n, X_COPY_KIND, r, 8);
    rc = rc ? rc : set_memkind(n, X_SRC_KIND, r, 9);
    return rc ? rc : set_memkind(n, X_DST_KIND, r, 10);
}

static int memset_row(nsys *n, const nsys_row *r)
{
    tp_event e = nsys_base_event();
    if (!device_fields(n, r, &e))
        return TP_OK;
    e.kind = TP_KIND_MEMSET;
    e.cat = n->cat_memset;
    e.name = intern(n, "Memset", 6);
    int rc = append(n, &e);
    return rc || n->row_bad ? rc : set_ext(n, X_BYTES, r, 7); /* damaged: skipped */
}

static int sync_row(nsys *n, const nsys_row *r)
{
    static const char *const types[] = {"Unknown sync", "Event sync", "Stream wait event",
                                        "Stream sync", "Context sync"};
    tp_event e = nsys_base_event();
    if (!device_fields(n, r, &e))
        return TP_OK;
    e.kind = TP_KIND_SYNC;
    e.cat = n->cat_sync;
    int64_t t = cell_i64(n, r, 7);
    const char *name = t >= 0 && t < 5 ? types[t] : "Sync";
    e.name = intern(n, name, strlen(name));
    return append(n, &e);
}

/* ----------------------------------------------------------------- NVTX */

static int domain_row(nsys *n, sqlite3_stmt *q)
{
    int64_t pid = pid_of(col_i64(n, q, 0)), domain = col_i64(n, q, 1);
    if (n->row_bad) {
        n->bad.not_integer++;
        return TP_OK;
    }
    return nsys_domain_add(n->st, &n->domains, pid, domain, (const char *)sqlite3_column_text(q, 2));
}

/* A JSON object's text (after leading blanks), else NULL. */
static const char *json_object(const char *s, size_t *len)
{
    while (s && *len > 0 && (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')) {
        s++;
        (*len)--;
    }
    return s && *len >= 2 && s[0] == '{' ? s : NULL;
}

/* The range's payload as the event's args: jsonText (column c) or
 * StringIds[jsonTextId] (column c + 1) when it is a JSON object, else its
 * extended payload (eventId, binaryData in columns c + 3, c + 2, of the
 * row's domain: nsys_payload.h).  Each cell is read once. */
static void nvtx_payload(nsys *n, sqlite3_stmt *q, int c, int64_t domain, tp_event *e)
{
    const char *s = (const char *)sqlite3_column_blob(q, c);
    size_t len = (size_t)sqlite3_column_bytes(q, c);
    sqlite3_value *text_id = s == NULL ? sqlite3_column_value(q, c + 1) : NULL;
    if (text_id != NULL && sqlite3_value_type(text_id) == SQLITE_INTEGER) {
        tp_str id = string_of(n, text_id);
        s = id ? tp_str_text(n->st, id) : NULL;
        len = s ? strlen(s) : 0;
    }
    if ((s = json_object(s, &len)) == NULL && n->payloads != NULL)
        s = nsys_payload_json(n->payloads, sqlite3_column_int64(q, c + 3), domain,
                              sqlite3_column_blob(q, c + 2), (size_t)sqlite3_column_bytes(q, c + 2),
                              &len);
    if (s != NULL) {
        e->args = s;
        e->args_len = len;
    }
}

/* start, end, eventType, globalTid, text, textId, domainId, jsonText,
 * jsonTextId, binaryData, eventId */
/* nsys_payloads_load's check of a table it reads (plain_table). */
static int payload_table(void *ctx, const char *table)
{
    return plain_table(ctx, table);
}

static int nvtx_row(nsys *n, sqlite3_stmt *q)
{
    int64_t type = col_i64(n, q, 2);
    if (type != 34 && type != 59 && type != 60)
        return TP_OK; /* names of domains, categories, threads: not events */
    tp_event e = nsys_base_event();
    sqlite3_value *end = sqlite3_column_value(q, 1);
    if (type == 34 || sqlite3_value_type(end) == SQLITE_NULL) {
        e.ts = col_i64(n, q, 0); /* a mark, or a range never closed: zero length */
    } else {
        int64_t start = col_i64(n, q, 0), stop = value_i64(n, end);
        if (!nsys_times(&n->bad, n->row_bad, start, stop, &e))
            return TP_OK;
    }
    e.kind = TP_KIND_ANNOTATION;
    int64_t g = col_i64(n, q, 3);
    e.pid = pid_of(g);
    e.tid = tid_of(g);
    const char *text = (const char *)sqlite3_column_text(q, 4);
    e.name = text ? nsys_name(n->st, &n->bad, text, (size_t)sqlite3_column_bytes(q, 4))
                  : string_id(n, q, 5);
    int64_t domain = col_i64(n, q, 6);
    e.cat = domain == 0 ? intern(n, "nvtx", 4) : nsys_domain_cat(n->st, &n->domains, e.pid, domain);
    nvtx_payload(n, q, 7, domain, &e);
    return append(n, &e);
}

static int osrt_row(nsys *n, const nsys_row *r)
{
    tp_event e = nsys_base_event();
    if (!row_times(n, r, 0, &e))
        return TP_OK;
    e.kind = TP_KIND_OS_RUNTIME;
    e.cat = n->cat_osrt;
    e.pid = pid_of(cell_i64(n, r, 2));
    e.tid = tid_of(cell_i64(n, r, 2));
    e.name = cell_string(n, r, 3);
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

/* The jobs' queries (their columns as the row functions read them), each
 * table checked here (has_table, plain), then the jobs started: on a second
 * connection and thread when the stage may keep two busy. */
static int start_jobs(nsys *n)
{
    static const int ncols[N_JOBS] = {7, 18, 11, 8, 8, 4};
    char kernel[512], copy[512];
    const char *ctx = has_column(n, job_tables[J_KERNEL], "contextId") ? "contextId" : "0";
    const char *demangled =
        has_column(n, job_tables[J_KERNEL], "demangledName") ? "demangledName" : "NULL";
    snprintf(kernel, sizeof kernel,
             "SELECT start, end, deviceId, streamId, correlationId, globalPid, %s, shortName, "
             "gridX, gridY, gridZ, blockX, blockY, blockZ, registersPerThread, "
             "staticSharedMemory, dynamicSharedMemory, %s FROM CUPTI_ACTIVITY_KIND_KERNEL", ctx,
             demangled);
    const char *kinds = has_column(n, job_tables[J_MEMCPY], "srcKind") &&
                                has_column(n, job_tables[J_MEMCPY], "dstKind")
                            ? "srcKind, dstKind"
                            : "NULL, NULL";
    snprintf(copy, sizeof copy,
             "SELECT start, end, deviceId, streamId, correlationId, globalPid, contextId, bytes, "
             "copyKind, %s FROM CUPTI_ACTIVITY_KIND_MEMCPY", kinds);
    const char *sql[N_JOBS] = {
        "SELECT start, end, eventClass, globalTid, correlationId, nameId, returnValue "
        "FROM CUPTI_ACTIVITY_KIND_RUNTIME",
        kernel, copy,
        "SELECT start, end, deviceId, streamId, correlationId, globalPid, contextId, bytes "
        "FROM CUPTI_ACTIVITY_KIND_MEMSET",
        "SELECT start, end, deviceId, streamId, correlationId, globalPid, contextId, syncType "
        "FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION",
        "SELECT start, end, globalTid, nameId FROM OSRT_API"};
    for (int j = 0; j < N_JOBS; j++) {
        n->job_state[j] = !has_table(n, job_tables[j])              ? JOB_ABSENT
                          : check_plain(n, job_tables[j], 0) == TP_OK ? JOB_READ
                                                                      : JOB_REFUSED;
        if (n->job_state[j] != JOB_READ)
            sql[j] = NULL;
        if (n->job_state[j] == JOB_REFUSED)
            for (int k = j + 1; k < N_JOBS; k++) /* the read stops there: nothing after it */
                sql[k] = NULL;
    }
    sqlite3 *own = NULL;
    /* (a libsqlite3 built single-threaded never gets a second thread) */
    if (tp_threads(n->st) >= 2 && sqlite3_threadsafe() &&
        nsys_db_open(n->uri, n->size, &n->budget, &own) != TP_OK) {
        sqlite3_close(own);
        own = NULL; /* in line, then */
    }
    n->jobs = nsys_rows_start(n->db, own, sql, ncols, N_JOBS);
    return n->jobs ? TP_OK : tp_fail(n->st, TP_ENOMEM, "%s: out of memory", n->path);
}

static int read_all(nsys *n)
{
    int rc = start_jobs(n);
    rc = rc ? rc : each_job(n, J_RUNTIME, runtime_row);
    rc = rc ? rc : each_job(n, J_KERNEL, kernel_row);
    rc = rc ? rc : each_row(n, "ENUM_CUDA_MEM_KIND", "SELECT id, label FROM ENUM_CUDA_MEM_KIND",
                            memkind_row);
    rc = rc ? rc : each_job(n, J_MEMCPY, memcpy_row);
    rc = rc ? rc : each_job(n, J_MEMSET, memset_row);
    rc = rc ? rc : each_job(n, J_SYNC, sync_row);
    rc = rc ? rc : each_row(n, "NVTX_EVENTS",
                            "SELECT globalTid, domainId, text FROM NVTX_EVENTS WHERE eventType = 75",
                            domain_row);
    if (rc == TP_OK)
        nsys_table_seal(&n->domains);
    char sql[1024];
    int json = has_column(n, "NVTX_EVENTS", "jsonText") && has_column(n, "NVTX_EVENTS", "jsonTextId");
    int bin = has_column(n, "NVTX_EVENTS", "binaryData") && has_column(n, "NVTX_EVENTS", "eventId");
    snprintf(sql, sizeof sql, "SELECT start, end, eventType, globalTid, text, textId, domainId, %s, "
             "%s FROM NVTX_EVENTS", json ? "jsonText, jsonTextId" : "NULL, NULL",
             bin ? "binaryData, eventId" : "NULL, NULL");
    if (rc == TP_OK && bin && has_table(n, "NVTX_EVENTS"))
        rc = nsys_payloads_load(n->db, payload_table, n, &n->payloads);
    rc = rc ? rc : each_row(n, "NVTX_EVENTS", sql, nvtx_row);
    rc = rc ? rc : each_job(n, J_OSRT, osrt_row);
    rc = rc ? rc : each_row(n, "TARGET_INFO_GPU",
                            "SELECT cuDevice, name, smCount, totalMemory FROM TARGET_INFO_GPU",
                            gpu_row);
    if (rc == TP_OK) /* before any stage reads args */
        rc = nsys_args_flush(&n->args);
    return rc;
}

/* Opens the export (nsys_db_open), its VM steps bounded by the file's size. */
static int open_export(nsys *n, const char *path, int64_t size)
{
    char abs[PATH_MAX], uri[3 * PATH_MAX + 32];
    int rc = nsys_export_uri(n->st, path, abs, uri, sizeof uri);
    if (rc != TP_OK)
        return rc;
    if ((n->uri = strdup(uri)) == NULL)
        return tp_fail(n->st, TP_ENOMEM, "%s: out of memory", path);
    n->size = size;
    n->budget = (NSYS_STEPS_BASE + size * NSYS_STEPS_PER_BYTE) / NSYS_STEPS_EVERY;
    if (nsys_db_open(n->uri, n->size, &n->budget, &n->db) != TP_OK) {
        rc = tp_fail(n->st, TP_EIO, "%s: cannot open: %s", path, sqlite3_errmsg(n->db));
        sqlite3_close(n->db);
        n->db = NULL;
    }
    return rc;
}

static int read_export(nsys *n, const char *path)
{
    int export = is_nsys_export(n);
    int rc = n->broken && n->budget < 0 ? db_error(n, "the schema")
             : n->broken ? tp_fail(n->st, TP_EFORMAT, "%s: a damaged or truncated SQLite file: %s",
                                   path, sqlite3_errmsg(n->db))
             : export ? prepare(n)
                      : tp_fail(n->st, TP_EFORMAT, "%s: an SQLite database but not an Nsight "
                                "Systems export (no StringIds and export metadata tables)", path);
    if (rc == TP_OK)
        rc = nsys_set_label(n->st, n->t, path);
    if (rc == TP_OK)
        rc = read_all(n);
    if (rc == TP_OK)
        rc = tp_rows_span_check(n->st, n->t, path);
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
    nsys_args_init(&n.args, st, n.t, cfg->path);
    int64_t size = 0;
    int rc = nsys_check_head(st, cfg->path, &size);
    rc = rc ? rc : open_export(&n, cfg->path, size);
    rc = rc ? rc : read_export(&n, cfg->path);
    if (rc == TP_OK) {
        nsys_bad_warn(st, cfg->path, &n.bad);
        tp_log(st, TP_LOG_INFO, "%s: %zu events (%zu backtrace copies of API rows dropped)",
               cfg->path, n.rows, n.dropped_backtrace);
    }
    nsys_rows_stop(n.jobs);
    nsys_args_free(&n.args);
    nsys_payloads_free(n.payloads);
    sqlite3_close(n.db);
    free(n.uri);
    nsys_table_free(&n.strings);
    nsys_table_free(&n.domains);
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
