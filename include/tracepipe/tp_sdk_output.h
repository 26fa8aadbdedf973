/*
 * tracepipe SDK: output files and numbers as text, the part every writer
 * shares.
 *
 * tp_out_open / tp_out_close wrap the core's tp_output_begin(): the stage
 * writes a temporary file beside the final path, which the core renames into
 * place only when run() returns TP_OK (and removes otherwise), so a failed
 * run never leaves a half-written file under the user's name.  A NULL path
 * means standard output.  Every error is reported against the user's path,
 * never the temporary name.
 *
 *     FILE *f = tp_out_open(st, cfg->path);
 *     if (f == NULL)
 *         return TP_EIO;              // the reason is already recorded
 *     int rc = write_everything(f);   // may return an error of its own
 *     return tp_out_close(st, f, cfg->path, rc);
 */
#ifndef TRACEPIPE_TP_SDK_OUTPUT_H
#define TRACEPIPE_TP_SDK_OUTPUT_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include "tp_plugin.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Opens the output for path (stdout when path is NULL).  NULL on failure,
 * with the reason recorded through tp_fail(): the caller returns TP_EIO. */
FILE *tp_out_open(tp_stage *st, const char *path);

/* Flushes f and closes it (stdout is flushed, not closed).  rc is what the
 * writing returned: when it is not TP_OK it is returned unchanged, since the
 * stage has already said why; otherwise a write, flush or close error
 * (ENOSPC on a full disk, EIO) becomes "PATH: write failed: REASON" and
 * TP_EIO.  Call it exactly once per tp_out_open. */
int tp_out_close(tp_stage *st, FILE *f, const char *path, int rc);

/* The shortest of %.15g, %.16g and %.17g that reads back as exactly v, so
 * a written table loses nothing and 0.1 stays "0.1".  NaN and infinities
 * are written by printf ("nan", "inf").  Returns the length written (the
 * text is cut to size - 1 bytes; 32 bytes always suffice). */
size_t tp_fmt_f64(char *buf, size_t size, double v);

/* As tp_fmt_f64, for JSON: a non-finite v becomes "null" and an integral
 * value keeps a ".0" so that it reads back as a floating-point number. */
size_t tp_fmt_f64_json(char *buf, size_t size, double v);

/* One CSV field as RFC 4180 writes it, after prefix: as is, or in double
 * quotes (inner quotes doubled) when it holds a comma, a quote or a line
 * break. */
static inline void tp_csv_put_prefixed(FILE *f, const char *prefix, const char *s)
{
    const char *p = s;
    while (*p && *p != ',' && *p != '"' && *p != '\r' && *p != '\n')
        p++;
    int quote = *p != '\0';
    if (quote)
        fputc('"', f);
    fputs(prefix, f);
    for (; *s; s++) {
        if (quote && *s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    if (quote)
        fputc('"', f);
}

static inline void tp_csv_put_field(FILE *f, const char *s)
{
    tp_csv_put_prefixed(f, "", s);
}

/* CSV injection (CONVENTIONS, docs/robustness.md): a spreadsheet runs a
 * cell starting with = + - @ TAB or CR as a formula.  Such a text cell is
 * written with a leading ' unless it is a plain number ("-5", "+1.5e3"); a
 * reader of tracepipe's CSV (csv_table, the batch-table merge) strips
 * exactly that prefix with tp_csv_unguard. */
static inline int tp_csv_is_trigger(char c)
{
    return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
}

static inline int tp_csv_needs_guard(const char *s)
{
    if (!tp_csv_is_trigger(s[0]))
        return 0;
    int digits = 0;
    for (const char *p = s; *p; p++) {
        if (*p >= '0' && *p <= '9')
            digits++;
        else if (*p != '.' && *p != 'e' && *p != 'E' && *p != '+' && *p != '-')
            return 1; /* text */
    }
    char *end;
    (void)strtod(s, &end);
    return digits == 0 || *end != '\0';
}

/* A text cell: tp_csv_put_field with the injection guard. */
static inline void tp_csv_put_text(FILE *f, const char *s)
{
    tp_csv_put_prefixed(f, tp_csv_needs_guard(s) ? "'" : "", s);
}

/* A text cell read back: without the guard tp_csv_put_text added. */
static inline const char *tp_csv_unguard(const char *s)
{
    return s[0] == '\'' && tp_csv_is_trigger(s[1]) ? s + 1 : s;
}

/* A writer's path for one result: every "{id}" replaced by id, a '/' in
 * the id becoming '_' so a result id never points into another folder.
 * New string (free), or NULL when out of memory. */
char *tp_out_path_for(const char *path, const char *id);

/* Does the result hold findings (CONVENTIONS, Findings: advice and any
 * analysis that judges): text columns rule, severity, finding, evidence and
 * where?  The writers' one definition (html_report, markdown); ask once per
 * result, not per row or cell. */
int tp_result_is_findings(const tp_result *r);

#ifdef __cplusplus
}
#endif

#endif
