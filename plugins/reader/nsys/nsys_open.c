/* reader nsys: opening an SQLite export (CONVENTIONS "SQLite inputs"). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "nsys_common.h"
#include "nsys_open.h"

/* Refuses an export whose latest writes sit beside it (a -wal file or a hot
 * journal): read immutable, those would be missed (CONVENTIONS "SQLite
 * inputs"). */
static int refuse_side_files(tp_stage *st, const char *path, const char *abs)
{
    static const char *const sides[] = {"-wal", "-journal"};
    for (int i = 0; i < 2; i++) {
        char side[PATH_MAX + 16];
        struct stat sb;
        snprintf(side, sizeof side, "%s%s", abs, sides[i]);
        if (stat(side, &sb) == 0 && sb.st_size > 0)
            return tp_fail(st, TP_EFORMAT, "%s: a %s file beside it holds changes not yet in the "
                           "export (open it once with sqlite3 to fold them in, or remove it)",
                           path, sides[i]);
    }
    return TP_OK;
}

/* "file:" + the percent-encoded absolute path + "?immutable=1": the user's
 * text is never read as a URI (a path starting with file: is a file). */
int nsys_export_uri(tp_stage *st, const char *path, char *abs, char *uri, size_t size)
{
    if (realpath(path, abs) == NULL)
        return tp_fail(st, TP_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t k = (size_t)snprintf(uri, size, "file:");
    for (const unsigned char *c = (const unsigned char *)abs; *c && k + 4 < size; c++) {
        if (isalnum(*c) || strchr("/-._~", *c))
            uri[k++] = (char)*c;
        else
            k += (size_t)snprintf(uri + k, size - k, "%%%02X", *c);
    }
    if (k + 16 >= size)
        return tp_fail(st, TP_EIO, "%s: cannot open: the path is too long", path);
    snprintf(uri + k, size - k, "?immutable=1");
    return refuse_side_files(st, path, abs);
}

/* Work done by SQLite for one export is bounded: a schema from the input
 * (a generated column, say) must not turn a small file into minutes.  The
 * budget is shared by the reader's two connections. */
static int over_budget(void *budget)
{
    return __atomic_sub_fetch((int64_t *)budget, 1, __ATOMIC_RELAXED) < 0;
}

/* A connection to uri: read-only and immutable (no -shm/-wal created,
 * fine in a read-only folder), schema untrusted, defensive, values no longer
 * than the file, VM steps counted against the budget.  TP_EIO when SQLite
 * cannot open it (the caller closes *db, which holds the reason). */
int nsys_db_open(const char *uri, int64_t size, int64_t *budget, sqlite3 **db)
{
    if (sqlite3_open_v2(uri, db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX,
                        NULL) != SQLITE_OK)
        return TP_EIO;
    sqlite3_db_config(*db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
    sqlite3_db_config(*db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    sqlite3_db_config(*db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)NULL);
    sqlite3_db_config(*db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)NULL);
    sqlite3_limit(*db, SQLITE_LIMIT_LENGTH, size < (1 << 30) ? (int)size + 1024 : 1 << 30);
    sqlite3_progress_handler(*db, NSYS_STEPS_EVERY, over_budget, budget);
    return TP_OK;
}

/* Checks the head: an SQLite file, else what the file is instead. */
int nsys_check_head(tp_stage *st, const char *path, int64_t *size)
{
    FILE *f = fopen(path, "rb");
    char head[256] = {0};
    size_t got = f ? fread(head, 1, sizeof head, f) : 0;
    struct stat sb;
    *size = f && fstat(fileno(f), &sb) == 0 ? (int64_t)sb.st_size : 0;
    if (f)
        fclose(f);
    if (f == NULL)
        return tp_fail(st, TP_EIO, "%s: cannot open: %s", path, "No such file or unreadable");
    int sqlite = got >= 16 && memcmp(head, "SQLite format 3", 16) == 0;
    if (!sqlite && nsys_json_probe((const unsigned char *)head, got, path) > 0)
        return tp_fail(st, TP_EFORMAT, "%s: an Nsight Systems JSON-lines export, not SQLite (read "
                       "it with `reader: nsys_json`, or `reader: auto`)", path);
    if (!sqlite)
        return tp_fail(st, TP_EFORMAT, "%s: not an SQLite database (the nsys reader reads "
                       "`nsys export --type sqlite` files; a Kineto JSON trace needs the kineto "
                       "reader)", path);
    return TP_OK;
}

