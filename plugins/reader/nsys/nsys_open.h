/* reader nsys: opening an SQLite export (nsys_open.c; CONVENTIONS "SQLite
 * inputs"). */
#ifndef TRACEPIPE_NSYS_OPEN_H
#define TRACEPIPE_NSYS_OPEN_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <tracepipe/tp_plugin.h>

/* The VM-step budget of one export: a base plus steps per byte of file (a
 * real export takes a few per byte), checked every NSYS_STEPS_EVERY steps. */
#define NSYS_STEPS_BASE 50000000LL
#define NSYS_STEPS_PER_BYTE 200LL
#define NSYS_STEPS_EVERY 1000

/* Checks the head of path: an SQLite file (*size its size), else fails
 * saying what the file is instead. */
int nsys_check_head(tp_stage *st, const char *path, int64_t *size);

/* "file:" + the percent-encoded absolute path (abs: realpath) +
 * "?immutable=1" into uri; refuses an export with changes beside it. */
int nsys_export_uri(tp_stage *st, const char *path, char *abs, char *uri, size_t size);

/* A connection to uri (read-only, immutable, schema untrusted, defensive,
 * values no longer than size, VM steps spent from *budget, an atomic
 * counter any number of connections share): TP_OK, or TP_EIO with *db to
 * close. */
int nsys_db_open(const char *uri, int64_t size, int64_t *budget, sqlite3 **db);

#endif
