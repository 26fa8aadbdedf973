/*
 * writer `sqlite`: the trace's events and the input results in one SQLite
 * database (schema: docs/plugins/sqlite.md).
 *
 *   names(id, name)                 interned event names and categories
 *   events(id, kind, name_id, ...)  one row per trace event, id = row
 *                                   number; launch_id -> the runtime call
 *                                   that launched GPU work, parent_id -> the
 *                                   enclosing event (when hierarchy ran)
 *   results(id, table_name, ...)    one row per written result
 *   columns(result, column, ...)    each result column's type and unit
 *   "<result id>"                   each result as a typed table
 *
 * Everything is written in one transaction with prepared statements into
 * the temporary file tp_output_begin() gives (journal and sync off: a
 * failed run removes the file anyway), which the core renames into place.
 */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_hier.h>
#include <tracepipe/tp_sdk_trace.h>

typedef struct sq_config {
    const char *path;
    int events;
} sq_config;

static const tp_option sq_options[] = {
    TP_OPTION_REQUIRED_OUTPUT_FILE("path", sq_config, path, "the database file to write"),
    TP_OPTION_BOOL("events", sq_config, events, "true",
                   "write the trace's events (tables names and events)"),
    TP_OPTION_END};

/* The events table's columns, and the rows one insert statement takes. */
enum { SQ_EVENT_COLS = 17, SQ_BATCH = 32 };

/* Table names a result id may not take. */
static const char *const sq_reserved[] = {"names", "events", "results", "columns", NULL};

static const char sq_schema[] =
    "CREATE TABLE names(id INTEGER PRIMARY KEY, name TEXT NOT NULL);"
    "CREATE TABLE events(id INTEGER PRIMARY KEY, kind TEXT NOT NULL,"
    " name_id INTEGER REFERENCES names(id), cat_id INTEGER REFERENCES names(id),"
    " phase TEXT, start_ns INTEGER NOT NULL, dur_ns INTEGER,"
    " pid INTEGER, tid INTEGER, pid_name TEXT, tid_name TEXT, device INTEGER, stream INTEGER,"
    " correlation INTEGER, external_id INTEGER,"
    " launch_id INTEGER REFERENCES events(id), parent_id INTEGER REFERENCES events(id));";

static const char sq_meta_schema[] =
    "CREATE TABLE results(id TEXT PRIMARY KEY, table_name TEXT NOT NULL, title TEXT,"
    " kind TEXT, trace TEXT, n_rows INTEGER NOT NULL);"
    "CREATE TABLE columns(result TEXT NOT NULL REFERENCES results(id), position INTEGER NOT NULL,"
    " column TEXT NOT NULL, type TEXT NOT NULL, unit TEXT, meaning TEXT,"
    " PRIMARY KEY(result, position));";

/* Built after the rows (a sort each, cheaper than keeping them up to date
 * row by row).  parent_id's is partial: a NULL parent is never looked up
 * (`parent_id = ?` implies NOT NULL, so SQLite uses it), and without
 * `hierarchy` every parent is NULL. */
static const char sq_indexes[] =
    "CREATE INDEX events_start ON events(start_ns);"
    "CREATE INDEX events_name ON events(name_id);"
    "CREATE INDEX events_parent ON events(parent_id) WHERE parent_id IS NOT NULL;"
;

/* The file is new and private until renamed: large pages, no journal, no
 * sync; a page cache that holds the index builds' working set. */
static const char sq_pragmas[] =
    "PRAGMA page_size=65536; PRAGMA cache_size=-65536;"
    " PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;";

static int sq_fail(tp_stage *st, sqlite3 *db, const char *path, const char *what)
{
    return tp_fail(st, TP_EIO, "%s: %s: %s", path, what, db ? sqlite3_errmsg(db) : "out of memory");
}

static int sq_exec(tp_stage *st, sqlite3 *db, const char *path, const char *sql)
{
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK)
        return TP_OK;
    return sq_fail(st, db, path, "cannot write the database");
}

/* One prepared statement run with the values bound: TP_OK or reported. */
static int sq_step(tp_stage *st, sqlite3 *db, sqlite3_stmt *s, const char *path)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    return rc == SQLITE_DONE ? TP_OK : sq_fail(st, db, path, "cannot write the database");
}

/* sq_step for a statement whose every parameter is bound again each time. */
static int sq_step_rebound(tp_stage *st, sqlite3 *db, sqlite3_stmt *s, const char *path)
{
    int rc = sqlite3_step(s);
    sqlite3_reset(s);
    return rc == SQLITE_DONE ? TP_OK : sq_fail(st, db, path, "cannot write the database");
}

static void sq_bind_text(sqlite3_stmt *s, int i, const char *text)
{
    if (text)
        sqlite3_bind_text(s, i, text, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, i);
}

static void sq_bind_opt(sqlite3_stmt *s, int i, int64_t v, int present)
{
    if (present)
        sqlite3_bind_int64(s, i, v);
    else
        sqlite3_bind_null(s, i);
}

/* --- events --- */

/* Every name and category the events use, once. */
static int sq_write_names(tp_stage *st, sqlite3 *db, const char *path, const tp_cols *c)
{
    size_t nstr = tp_str_count(st);
    uint8_t *used = tp_calloc(nstr ? nstr : 1, 1);
    if (!used)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    for (size_t i = 0; i < c->n; i++) {
        if (c->name[i] < nstr)
            used[c->name[i]] = 1;
        if (c->cat[i] < nstr)
            used[c->cat[i]] = 1;
    }
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(db, "INSERT INTO names VALUES(?,?)", -1, &s, NULL) == SQLITE_OK
                 ? TP_OK
                 : sq_fail(st, db, path, "cannot prepare");
    for (size_t id = 0; id < nstr && rc == TP_OK; id++) {
        if (!used[id])
            continue;
        sqlite3_bind_int64(s, 1, (int64_t)id);
        sqlite3_bind_text(s, 2, tp_str_text(st, (tp_str)id), -1, SQLITE_STATIC);
        rc = sq_step(st, db, s, path);
    }
    sqlite3_finalize(s);
    tp_free(used);
    return rc;
}

/* A pid or tid: the number in column i, or its name in column i + 2. */
static void sq_bind_id(tp_stage *st, sqlite3_stmt *s, int i, int64_t v)
{
    if (TP_ID_IS_STR(v)) {
        sqlite3_bind_null(s, i);
        sqlite3_bind_text(s, i + 2, tp_str_text(st, TP_ID_STR(v)), -1, SQLITE_STATIC);
    } else {
        sqlite3_bind_int64(s, i, v);
        sqlite3_bind_null(s, i + 2);
    }
}

typedef struct sq_links {
    const int32_t *launcher, *parent; /* NULL when unknown */
    int32_t *own;                     /* launcher computed here, or NULL */
} sq_links;

/* Launch links and parents from hierarchy when it ran, else the launch
 * links alone (tp_link_launches). */
static int sq_links_load(tp_stage *st, const tp_trace *t, const tp_cols *c, sq_links *l)
{
    tp_hier_view v;
    memset(l, 0, sizeof *l);
    if (tp_hier_view_load(t, c->n, &v) == TP_OK) {
        l->launcher = v.launcher;
        l->parent = v.parent;
        return TP_OK;
    }
    l->own = tp_malloc((c->n ? c->n : 1) * sizeof *l->own);
    if (!l->own || tp_link_launches(c, NULL, NULL, l->own, NULL) != TP_OK) {
        tp_free(l->own);
        return tp_fail(st, TP_ENOMEM, "out of memory");
    }
    l->launcher = l->own;
    return TP_OK;
}

/* Binds row i as the statement's row `at` (parameters 17 * at + 1...). */
static void sq_bind_event(tp_stage *st, sqlite3_stmt *s, const tp_cols *c, const sq_links *l,
                          size_t i, int at)
{
    const tp_track *tr = &c->tracks[c->track[i]];
    int64_t corr = tp_ev_corr(c, i), ext = tp_ev_ext_id(c, i);
    int b = SQ_EVENT_COLS * at;

    sqlite3_bind_int64(s, b + 1, (int64_t)i);
    sqlite3_bind_text(s, b + 2, tp_kind_name(c->kind[i]), -1, SQLITE_STATIC);
    sq_bind_opt(s, b + 3, c->name[i], c->name[i] != TP_STR_ERROR);
    sq_bind_opt(s, b + 4, c->cat[i], c->cat[i] != TP_STR_ERROR);
    /* the phase byte itself, a text of one byte (the column outlives the step) */
    sqlite3_bind_text(s, b + 5, (const char *)&c->phase[i], c->phase[i] ? 1 : 0, SQLITE_STATIC);
    sqlite3_bind_int64(s, b + 6, c->ts[i]);
    sq_bind_opt(s, b + 7, c->dur[i], c->dur[i] >= 0);
    sq_bind_id(st, s, b + 8, tr->pid);
    sq_bind_id(st, s, b + 9, tr->tid);
    sq_bind_opt(s, b + 12, tr->device, tr->device >= 0);
    sq_bind_opt(s, b + 13, tr->stream, tr->stream >= 0);
    sq_bind_opt(s, b + 14, corr, corr != TP_NONE);
    sq_bind_opt(s, b + 15, ext, ext != TP_NONE);
    sq_bind_opt(s, b + 16, l->launcher ? l->launcher[i] : -1, l->launcher && l->launcher[i] >= 0);
    sq_bind_opt(s, b + 17, l->parent ? l->parent[i] : -1, l->parent && l->parent[i] >= 0);
}

/* The insert of `rows` events a statement (the columns named in
 * sq_bind_event's order, not the schema's). */
static int sq_prepare_events(sqlite3 *db, int rows, sqlite3_stmt **s)
{
    static const char head[] =
        "INSERT INTO events(id, kind, name_id, cat_id, phase, start_ns, dur_ns, pid, tid,"
        " pid_name, tid_name, device, stream, correlation, external_id, launch_id, parent_id)"
        " VALUES";
    static const char row[] = "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?),";
    char sql[sizeof head + SQ_BATCH * (sizeof row - 1)];
    size_t len = sizeof head - 1;
    memcpy(sql, head, len);
    for (int r = 0; r < rows; r++, len += sizeof row - 1)
        memcpy(sql + len, row, sizeof row - 1);
    return sqlite3_prepare_v2(db, sql, (int)len - 1, s, NULL); /* without the last comma */
}

/* The events SQ_BATCH rows a statement (a statement per row cost 0.39 s
 * against 0.27 s on 688 519 events: docs/plugins/sqlite.md), the rest one
 * by one. */
static int sq_insert_events(tp_stage *st, sqlite3 *db, const char *path, const tp_cols *c,
                            const sq_links *l)
{
    sqlite3_stmt *batch = NULL, *one = NULL;
    int rc = sq_prepare_events(db, SQ_BATCH, &batch) == SQLITE_OK &&
                     sq_prepare_events(db, 1, &one) == SQLITE_OK
                 ? TP_OK
                 : sq_fail(st, db, path, "cannot prepare");
    size_t i = 0;
    for (; i + SQ_BATCH <= c->n && rc == TP_OK; i += SQ_BATCH) {
        for (int at = 0; at < SQ_BATCH; at++)
            sq_bind_event(st, batch, c, l, i + (size_t)at, at);
        rc = sq_step_rebound(st, db, batch, path);
    }
    for (; i < c->n && rc == TP_OK; i++) {
        sq_bind_event(st, one, c, l, i, 0);
        rc = sq_step_rebound(st, db, one, path);
    }
    sqlite3_finalize(batch);
    sqlite3_finalize(one);
    return rc;
}

static int sq_write_events(tp_stage *st, sqlite3 *db, const char *path, const tp_trace *t)
{
    const tp_cols *c = tp_trace_cols(t);
    sq_links l;
    int rc = sq_write_names(st, db, path, c);
    if (rc != TP_OK || (rc = sq_links_load(st, t, c, &l)) != TP_OK)
        return rc;
    rc = sq_insert_events(st, db, path, c, &l);
    tp_free(l.own);
    return rc == TP_OK ? sq_exec(st, db, path, sq_indexes) : rc;
}

/* --- results --- */

static const char *sq_type_name(tp_coltype type)
{
    switch (type) {
    case TP_COL_STR:
        return "TEXT";
    case TP_COL_F64:
        return "REAL";
    default:
        return "INTEGER";
    }
}

/* s as an SQL identifier in double quotes, appended to buf. */
static void sq_append_ident(char **buf, size_t *len, size_t *cap, const char *s, int *oom)
{
    for (const char *p = s; *p || p == s; p++) {
        size_t need = *len + 5; /* opening quote, a doubled quote, closing quote, NUL */
        if (need > *cap) {
            char *b = tp_realloc(*buf, need * 2);
            if (!b) {
                *oom = 1;
                return;
            }
            *buf = b;
            *cap = need * 2;
        }
        if (p == s)
            (*buf)[(*len)++] = '"';
        if (!*p)
            break;
        if (*p == '"')
            (*buf)[(*len)++] = '"';
        (*buf)[(*len)++] = *p;
    }
    (*buf)[(*len)++] = '"';
    (*buf)[*len] = '\0';
}

static void sq_append(char **buf, size_t *len, size_t *cap, const char *s, int *oom)
{
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        char *b = tp_realloc(*buf, (*len + n + 1) * 2);
        if (!b) {
            *oom = 1;
            return;
        }
        *buf = b;
        *cap = (*len + n + 1) * 2;
    }
    memcpy(*buf + *len, s, n + 1);
    *len += n;
}

/* CREATE TABLE and INSERT statements of result r. */
static int sq_result_sql(const tp_result *r, char **create, char **insert)
{
    size_t cl = 0, cc = 0, il = 0, ic = 0;
    int oom = 0, ncols = (int)tp_result_cols(r);
    *create = *insert = NULL;
    sq_append(create, &cl, &cc, "CREATE TABLE ", &oom);
    sq_append_ident(create, &cl, &cc, tp_result_id(r), &oom);
    sq_append(insert, &il, &ic, "INSERT INTO ", &oom);
    sq_append_ident(insert, &il, &ic, tp_result_id(r), &oom);
    sq_append(insert, &il, &ic, " VALUES(", &oom);
    for (int col = 0; col < ncols && !oom; col++) {
        sq_append(create, &cl, &cc, col ? ", " : "(", &oom);
        sq_append_ident(create, &cl, &cc, tp_result_col_name(r, col), &oom);
        sq_append(create, &cl, &cc, " ", &oom);
        sq_append(create, &cl, &cc, sq_type_name(tp_result_col_type(r, col)), &oom);
        sq_append(insert, &il, &ic, col ? ",?" : "?", &oom);
    }
    sq_append(create, &cl, &cc, ncols ? ")" : "(empty INTEGER)", &oom);
    sq_append(insert, &il, &ic, ncols ? ")" : "NULL)", &oom);
    return oom ? TP_ENOMEM : TP_OK;
}

static void sq_bind_cell(sqlite3_stmt *s, const tp_result *r, size_t row, int col)
{
    if (tp_result_is_null(r, row, col)) {
        sqlite3_bind_null(s, col + 1);
        return;
    }
    switch (tp_result_col_type(r, col)) {
    case TP_COL_STR:
        sqlite3_bind_text(s, col + 1, tp_result_get_str(r, row, col), -1, SQLITE_STATIC);
        break;
    case TP_COL_F64:
        sqlite3_bind_double(s, col + 1, tp_result_get_f64(r, row, col));
        break;
    default:
        sqlite3_bind_int64(s, col + 1, tp_result_get_i64(r, row, col));
        break;
    }
}

static int sq_write_rows(tp_stage *st, sqlite3 *db, const char *path, const tp_result *r,
                         const char *insert)
{
    sqlite3_stmt *s = NULL;
    int rc = sqlite3_prepare_v2(db, insert, -1, &s, NULL) == SQLITE_OK
                 ? TP_OK
                 : sq_fail(st, db, path, "cannot prepare");
    int ncols = (int)tp_result_cols(r);
    for (size_t row = 0; row < tp_result_rows(r) && rc == TP_OK; row++) {
        for (int col = 0; col < ncols; col++)
            sq_bind_cell(s, r, row, col);
        rc = sq_step(st, db, s, path);
    }
    sqlite3_finalize(s);
    return rc;
}

/* The rows of tables results and columns describing r. */
static int sq_write_meta(tp_stage *st, sqlite3 *db, const char *path, const tp_result *r)
{
    sqlite3_stmt *res = NULL, *col = NULL;
    int rc = TP_OK;
    if (sqlite3_prepare_v2(db, "INSERT INTO results VALUES(?,?,?,?,?,?)", -1, &res, NULL) !=
            SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO columns VALUES(?,?,?,?,?,?)", -1, &col, NULL) !=
            SQLITE_OK)
        rc = sq_fail(st, db, path, "cannot prepare");
    if (rc == TP_OK) {
        sq_bind_text(res, 1, tp_result_id(r));
        sq_bind_text(res, 2, tp_result_id(r));
        sq_bind_text(res, 3, tp_result_meta(r, "title"));
        sq_bind_text(res, 4, tp_result_kind(r));
        sq_bind_text(res, 5, tp_result_meta(r, "trace"));
        sqlite3_bind_int64(res, 6, (int64_t)tp_result_rows(r));
        rc = sq_step(st, db, res, path);
    }
    for (int c = 0; c < (int)tp_result_cols(r) && rc == TP_OK; c++) {
        sq_bind_text(col, 1, tp_result_id(r));
        sqlite3_bind_int64(col, 2, c);
        sq_bind_text(col, 3, tp_result_col_name(r, c));
        sq_bind_text(col, 4, sq_type_name(tp_result_col_type(r, c)));
        sq_bind_text(col, 5, tp_result_col_unit(r, c));
        sq_bind_text(col, 6, tp_result_col_meaning(r, c));
        rc = sq_step(st, db, col, path);
    }
    sqlite3_finalize(res);
    sqlite3_finalize(col);
    return rc;
}

static int sq_reserved_id(const char *id)
{
    for (size_t i = 0; sq_reserved[i]; i++)
        if (sqlite3_stricmp(id, sq_reserved[i]) == 0)
            return 1;
    return 0;
}

static int sq_write_result(tp_stage *st, sqlite3 *db, const char *path, const tp_result *r)
{
    char *create, *insert;
    if (sq_reserved_id(tp_result_id(r)))
        return tp_fail(st, TP_EINVAL, "result id '%s' is the name of one of the database's own tables",
                       tp_result_id(r));
    int rc = sq_result_sql(r, &create, &insert);
    if (rc != TP_OK)
        rc = tp_fail(st, TP_ENOMEM, "out of memory");
    else if ((rc = sq_exec(st, db, path, create)) == TP_OK &&
             (rc = sq_write_rows(st, db, path, r, insert)) == TP_OK)
        rc = sq_write_meta(st, db, path, r);
    tp_free(create);
    tp_free(insert);
    return rc;
}

/* --- the database --- */

static int sq_write_all(tp_stage *st, sqlite3 *db, const sq_config *cfg)
{
    const tp_trace *t = tp_stage_trace(st);
    int rc = sq_exec(st, db, cfg->path, sq_pragmas);
    if (rc == TP_OK)
        rc = sq_exec(st, db, cfg->path, "BEGIN;");
    if (rc == TP_OK && cfg->events && t)
        rc = sq_exec(st, db, cfg->path, sq_schema);
    if (rc == TP_OK && cfg->events && t)
        rc = sq_write_events(st, db, cfg->path, t);
    if (rc == TP_OK)
        rc = sq_exec(st, db, cfg->path, sq_meta_schema);
    for (size_t i = 0; i < tp_input_count(st) && rc == TP_OK; i++)
        rc = sq_write_result(st, db, cfg->path, tp_input(st, i));
    return rc == TP_OK ? sq_exec(st, db, cfg->path, "COMMIT;") : rc;
}

static int sq_run(tp_stage *st, const void *config, void *state)
{
    const sq_config *cfg = config;
    (void)state;
    const char *tmp = tp_output_begin(st, cfg->path);
    if (!tmp)
        return TP_EIO; /* the core has said why */
    sqlite3 *db = NULL;
    /* one thread uses the connection: no mutex around every call */
    int rc = sqlite3_open_v2(tmp, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
                                          SQLITE_OPEN_NOMUTEX, NULL) ==
                     SQLITE_OK
                 ? sq_write_all(st, db, cfg)
                 : sq_fail(st, db, cfg->path, "cannot open the database");
    if (sqlite3_close(db) != SQLITE_OK && rc == TP_OK)
        rc = sq_fail(st, db, cfg->path, "cannot close the database");
    return rc;
}

static const tp_stage_desc sq_stages[] = {
    TP_STAGE_FULL(TP_STAGE_WRITER, "sqlite",
                  "write the trace's events and the results into one SQLite database",
                  sq_options, sq_config, NULL, TP_PRODUCES_NONE, 0, NULL, sq_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("sqlite", "0.1.0", sq_stages);
