/*
 * writer `text`: results as human-readable text.
 *
 * A tree (I64 columns `id` and `parent_id`, rows in pre-order) prints as the
 * indented breakdown of seed 001's print_host_results:
 *
 *   Host runtime breakdown: 92363.00 us
 *     ## BENCHMARK ##:    (91658.00 us, 99.24%, 10)
 *       DLRM backward:    (56180.00 us, 61.29%, 10)
 *       Unaccounted:      (  475.00 us,  0.51%)
 *
 * With a single root, the first line is "<title>: <root time_us> us" and the
 * root's descendants follow, two spaces per level.  With several roots the
 * first line is the title alone and every root is a node at the first level.
 * Node tuples hold time_us, percent_of_parent (percent_of_total when there
 * is none) and count (left out when null); the tuples line up in one column
 * (names wider than TEXT_NAME_CAP just get one space).  The title is meta
 * "title", else the single root's name, else the result id.
 *
 * A flat table prints as the title, a header line, a dashed rule and one
 * line per row; numbers right-aligned, text left-aligned, null as "-".
 *
 * Text cells wider than max_name are cut in the middle: their first two
 * thirds and last third around an ellipsis (U+2026).  A cut never makes
 * two different texts of a column read the same (C++ kernel names share
 * long heads and tails and differ in a template argument): the column's cut
 * width grows until every different text reads differently, up to keeping
 * them whole.
 *
 * Control characters and invalid UTF-8 bytes in text show as \n, \r, \t or
 * \xHH so that every row stays on one line.  Results in a file are
 * separated by an empty line; on stdout every result is followed by one, so
 * the output of several writer stages stays apart.  Floats use `precision`
 * digits after the point.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_output.h>
#include <tracepipe/tp_sdk_tree.h>

#include <tracepipe/tp_sdk_text.h>

#define TEXT_NAME_CAP 60 /* widest name column a tree pads to */

typedef struct text_config {
    const char *path;
    int64_t precision;
    int64_t max_name;
} text_config;

static const tp_option text_options[] = {
    TP_OPTION_OUTPUT_FILE("path", text_config, path, NULL, "output file; stdout when absent"),
    TP_OPTION_INT("precision", text_config, precision, "2", 0, 17,
                  "digits after the decimal point of floats"),
    TP_OPTION_INT("max_name", text_config, max_name, "80", 0, 1e6,
                  "text cells (names) longer than this many characters are cut in the "
                  "middle (first two thirds ... last third), wider where two different "
                  "names would read the same (0 = never); CSV and JSON keep full names"),
    TP_OPTION_END
};

/* ------------------------------------------------------------ text buffer */

/* A growable string; `oom` sticks once an allocation failed. */
typedef struct tbuf {
    char *p;
    size_t len, cap;
    int oom;
    size_t max_name;   /* text cells wider than this are shortened; 0 = never */
    const size_t *cut; /* per column of the result being written: its cut width */
} tbuf;

static void tb_reserve(tbuf *b, size_t extra)
{
    size_t need = b->len + extra + 1;
    char *p;

    if (b->oom || need <= b->cap)
        return;
    p = realloc(b->p, need * 2);
    if (!p) {
        b->oom = 1;
        return;
    }
    b->p = p;
    b->cap = need * 2;
}

static void tb_add(tbuf *b, const char *s, size_t n)
{
    tb_reserve(b, n);
    if (b->oom)
        return;
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

/* Empties b (allocating its first bytes). */
static void tb_clear(tbuf *b)
{
    b->len = 0;
    tb_add(b, "", 0);
}

static void tb_printf(tbuf *b, const char *fmt, ...) TP_PRINTF(2, 3);
static void tb_printf(tbuf *b, const char *fmt, ...)
{
    char small[128];
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        tb_add(b, small, (size_t)n);
        return;
    }
    tb_reserve(b, (size_t)n);
    if (b->oom)
        return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

/* Appends s with control characters and invalid bytes escaped. */
static void text_escape(tbuf *b, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    while (*p) {
        size_t n = *p >= 0x80 ? tp_utf8_len(p) : 1;
        if (n > 1) {
            tb_add(b, (const char *)p, n);
            p += n;
            continue;
        }
        if (*p == '\n')
            tb_add(b, "\\n", 2);
        else if (*p == '\r')
            tb_add(b, "\\r", 2);
        else if (*p == '\t')
            tb_add(b, "\\t", 2);
        else if (*p < 0x20 || *p == 0x7F || *p >= 0x80)
            tb_printf(b, "\\x%02x", *p);
        else
            tb_add(b, (const char *)p, 1);
        p++;
    }
}

/* Columns a valid UTF-8 text takes: one per code point. */
static size_t text_width(const char *s)
{
    size_t w = 0;

    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

/* Byte offset in s of code point number k (or the end). */
static size_t text_offset(const char *s, size_t k)
{
    size_t i = 0;
    for (size_t w = 0; s[i]; i++)
        if (((unsigned char)s[i] & 0xC0) != 0x80 && w++ == k)
            break;
    return i;
}

/* Cuts b's text to max columns when it is wider, keeping its first two
 * thirds and its last third around an ellipsis: C++ names run to hundreds
 * of characters, and names that share a long prefix differ at the end
 * (CppNode<SplitLookupFunction_adagrad_Op> vs ..._Dense_Op>). */
static void text_shorten(tbuf *b, size_t max)
{
    size_t w = text_width(b->p);
    if (max == 0 || b->oom || w <= max)
        return;
    tb_reserve(b, 3); /* the ellipsis may replace as little as 2 bytes */
    if (b->oom)
        return;
    size_t head = (max - 1) * 2 / 3, tail = max - 1 - head;
    size_t cut = text_offset(b->p, head), keep = text_offset(b->p, w - tail);
    size_t n = b->len - keep;
    memmove(b->p + cut + 3, b->p + keep, n + 1);
    memcpy(b->p + cut, "\xe2\x80\xa6", 3); /* U+2026 ... */
    b->len = cut + 3 + n;
}

static void text_pad(FILE *f, size_t n)
{
    while (n-- > 0)
        fputc(' ', f);
}

/* Replaces b's text with the cell at (row, col): escaped text, the integer,
 * the float with prec decimals, or "-" for null. */
static void text_cell(tbuf *b, const tp_result *r, size_t row, int col, int prec)
{
    tb_clear(b);
    if (tp_result_is_null(r, row, col)) {
        tb_add(b, "-", 1);
        return;
    }
    switch (tp_result_col_type(r, col)) {
    case TP_COL_STR:
        text_escape(b, tp_result_get_str(r, row, col));
        text_shorten(b, b->cut ? b->cut[col] : b->max_name);
        break;
    case TP_COL_I32: /* trace columns only, never in a result */
    case TP_COL_SID:
    case TP_COL_I64:
        tb_printf(b, "%" PRId64, tp_result_get_i64(r, row, col));
        break;
    case TP_COL_F64:
        tb_printf(b, "%.*f", prec, tp_result_get_f64(r, row, col));
        break;
    }
}

/* ------------------------------------------------------------ cut widths */

/* A column's cells as shown at one cut width, beside their full texts. */
typedef struct text_shown {
    char *full, *cut;
} text_shown;

static int shown_cmp(const void *a, const void *b)
{
    const text_shown *x = a, *y = b;
    int c = strcmp(x->cut, y->cut);
    return c ? c : strcmp(x->full, y->full);
}

static void shown_free(text_shown *s, size_t n)
{
    for (size_t i = 0; s && i < n; i++) {
        free(s[i].full);
        free(s[i].cut);
    }
    free(s);
}

/* Whether, cut to max columns, two different texts of s read the same
 * (-1: out of memory). */
static int text_collide(text_shown *s, size_t n, size_t max, tbuf *b)
{
    for (size_t i = 0; i < n; i++) {
        tb_clear(b);
        tb_add(b, s[i].full, strlen(s[i].full));
        text_shorten(b, max);
        free(s[i].cut);
        s[i].cut = b->oom ? NULL : strdup(b->p);
        if (s[i].cut == NULL)
            return -1;
    }
    qsort(s, n, sizeof *s, shown_cmp);
    for (size_t i = 1; i < n; i++)
        if (strcmp(s[i - 1].cut, s[i].cut) == 0 && strcmp(s[i - 1].full, s[i].full) != 0)
            return 1;
    return 0;
}

/* The cut width of text column col: max_name, widened by a quarter at a
 * time while two different texts would read the same; 0 (never cut) when
 * only their whole texts tell them apart or memory runs out. */
static size_t text_cut_width(const tp_result *r, int col, tbuf *b)
{
    size_t n = tp_result_rows(r), widest = 0, max = b->max_name;
    if (max == 0 || tp_result_col_type(r, col) != TP_COL_STR)
        return max;
    text_shown *s = calloc(n ? n : 1, sizeof *s);
    size_t m = 0;
    int clash = s == NULL ? -1 : 1;
    for (size_t row = 0; clash == 1 && row < n; row++) {
        if (tp_result_is_null(r, row, col))
            continue;
        tb_clear(b);
        text_escape(b, tp_result_get_str(r, row, col));
        size_t w = text_width(b->p);
        widest = w > widest ? w : widest;
        if (b->oom || (s[m++].full = strdup(b->p)) == NULL)
            clash = -1;
    }
    while (clash == 1 && max < widest && (clash = text_collide(s, m, max, b)) == 1)
        max += max / 4 ? max / 4 : 1;
    shown_free(s, m);
    return clash == 0 ? max : 0;
}

/* Sets b->cut for result r: one cut width per column (NULL when memory runs
 * out: then every text column is cut at max_name). */
static size_t *text_cuts(const tp_result *r, tbuf *b)
{
    int ncols = (int)tp_result_cols(r);
    size_t *cut = calloc((size_t)ncols + 1, sizeof *cut);
    for (int c = 0; cut && c < ncols; c++)
        cut[c] = text_cut_width(r, c, b);
    b->cut = cut;
    return cut;
}

/* ------------------------------------------------------------ flat tables */

static size_t text_col_width(const tp_result *r, int col, int prec, tbuf *b)
{
    size_t w, nrows = tp_result_rows(r);

    tb_clear(b);
    text_escape(b, tp_result_col_name(r, col));
    w = text_width(b->p);
    for (size_t row = 0; row < nrows && !b->oom; row++) {
        size_t cw;
        text_cell(b, r, row, col, prec);
        cw = text_width(b->p);
        if (cw > w)
            w = cw;
    }
    return w;
}

/* One line of the table: cell texts from fill(), aligned by widths. */
static void text_line(FILE *f, const tp_result *r, const size_t *widths, tbuf *b,
                      void (*fill)(tbuf *, const tp_result *, size_t, int, int), size_t row,
                      int prec)
{
    int ncols = (int)tp_result_cols(r);

    for (int c = 0; c < ncols; c++) {
        size_t pad, w;
        fill(b, r, row, c, prec);
        w = text_width(b->p);
        pad = w < widths[c] ? widths[c] - w : 0;
        if (c > 0)
            fputs("  ", f);
        if (tp_result_col_type(r, c) != TP_COL_STR)
            text_pad(f, pad);
        fputs(b->p, f);
        if (tp_result_col_type(r, c) == TP_COL_STR && c + 1 < ncols)
            text_pad(f, pad);
    }
    fputc('\n', f);
}

static void text_header_cell(tbuf *b, const tp_result *r, size_t row, int col, int prec)
{
    (void)row;
    (void)prec;
    tb_clear(b);
    text_escape(b, tp_result_col_name(r, col));
}

static int text_flat(FILE *f, const tp_result *r, int prec, tbuf *b)
{
    const char *title = tp_result_meta(r, "title");
    int ncols = (int)tp_result_cols(r);
    size_t nrows = tp_result_rows(r);
    size_t *widths = calloc((size_t)ncols + 1, sizeof *widths);

    if (!widths)
        return -1;
    tb_clear(b);
    text_escape(b, title ? title : tp_result_id(r));
    fprintf(f, "%s\n", b->p);
    for (int c = 0; c < ncols; c++)
        widths[c] = text_col_width(r, c, prec, b);
    if (ncols > 0) {
        text_line(f, r, widths, b, text_header_cell, 0, prec);
        for (int c = 0; c < ncols; c++) {
            if (c > 0)
                fputs("  ", f);
            for (size_t i = 0; i < widths[c]; i++)
                fputc('-', f);
        }
        fputc('\n', f);
    }
    for (size_t row = 0; row < nrows; row++)
        text_line(f, r, widths, b, text_cell, row, prec);
    if (nrows == 0)
        fputs("(no rows)\n", f);
    free(widths);
    return b->oom ? -1 : 0;
}

/* ------------------------------------------------------------ trees */

typedef struct text_tree {
    const tp_result *r;
    tp_result_tree shape;              /* levels and roots, checked */
    int name, time, pct, count;        /* column indexes, -1 if absent */
    int prec;
    size_t name_w, time_w, pct_w; /* column widths of the node lines */
} text_tree;

static int text_numeric_col(const tp_result *r, const char *name)
{
    int c = tp_result_find_col(r, name);
    return c >= 0 && tp_result_col_type(r, c) != TP_COL_STR ? c : -1;
}

/* The node columns of tree result r (the shape is loaded separately). */
static void text_tree_cols(text_tree *t, const tp_result *r)
{
    t->r = r;
    t->name = tp_result_find_col(r, "name");
    if (t->name >= 0 && tp_result_col_type(r, t->name) != TP_COL_STR)
        t->name = -1;
    t->time = text_numeric_col(r, "time_us");
    t->pct = text_numeric_col(r, "percent_of_parent");
    if (t->pct < 0)
        t->pct = text_numeric_col(r, "percent_of_total");
    t->count = text_numeric_col(r, "count");
}

/* Indentation of a node line: the single root's children start at 2. */
static size_t text_indent(const text_tree *t, size_t row)
{
    return 2 * (t->shape.nroots == 1 ? t->shape.level[row] : t->shape.level[row] + 1);
}

/* The "name:" label of a row. */
static void text_label(tbuf *b, const text_tree *t, size_t row)
{
    if (t->name >= 0)
        text_cell(b, t->r, row, t->name, t->prec);
    else
        text_cell(b, t->r, row, t->shape.id_col, t->prec);
    tb_add(b, ":", 1);
}

/* The time slot ("12.50 us" or "-"); empty when there is no time column. */
static void text_time(tbuf *b, const text_tree *t, size_t row)
{
    tb_clear(b);
    if (t->time < 0)
        return;
    text_cell(b, t->r, row, t->time, t->prec);
    if (!tp_result_is_null(t->r, row, t->time))
        tb_add(b, " us", 3);
}

static void text_pct(tbuf *b, const text_tree *t, size_t row)
{
    tb_clear(b);
    if (t->pct < 0)
        return;
    text_cell(b, t->r, row, t->pct, t->prec);
    if (!tp_result_is_null(t->r, row, t->pct))
        tb_add(b, "%", 1);
}

static void text_tree_widths(text_tree *t, size_t first, tbuf *b)
{
    size_t nrows = tp_result_rows(t->r);

    for (size_t row = first; row < nrows; row++) {
        size_t w;
        text_label(b, t, row);
        w = text_indent(t, row) + text_width(b->p);
        if (w > t->name_w && w <= TEXT_NAME_CAP)
            t->name_w = w;
        text_time(b, t, row);
        if (b->len > t->time_w)
            t->time_w = b->len;
        text_pct(b, t, row);
        if (b->len > t->pct_w)
            t->pct_w = b->len;
    }
}

static void text_node(FILE *f, const text_tree *t, size_t row, tbuf *b)
{
    size_t w = text_indent(t, row), parts = 0;
    int has_count = t->count >= 0 && !tp_result_is_null(t->r, row, t->count);

    text_pad(f, w);
    text_label(b, t, row);
    fputs(b->p, f);
    w += text_width(b->p);
    if (t->time < 0 && t->pct < 0 && !has_count) {
        fputc('\n', f);
        return;
    }
    text_pad(f, (w < t->name_w ? t->name_w - w : 0) + 1);
    fputc('(', f);
    if (t->time >= 0) {
        text_time(b, t, row);
        fprintf(f, "%*s", (int)t->time_w, b->p);
        parts++;
    }
    if (t->pct >= 0) {
        text_pct(b, t, row);
        fprintf(f, "%s%*s", parts++ ? ", " : "", (int)t->pct_w, b->p);
    }
    if (has_count)
        fprintf(f, "%s%" PRId64, parts ? ", " : "", tp_result_get_i64(t->r, row, t->count));
    fputs(")\n", f);
}

/* The first line: title, plus the single root's time. */
static void text_tree_title(FILE *f, const text_tree *t, const char *meta_title, tbuf *b)
{
    int single = t->shape.nroots == 1;

    if (meta_title) {
        tb_clear(b);
        text_escape(b, meta_title);
    } else if (single && t->name >= 0 && !tp_result_is_null(t->r, 0, t->name)) {
        text_cell(b, t->r, 0, t->name, t->prec);
    } else {
        tb_clear(b);
        text_escape(b, tp_result_id(t->r));
    }
    fputs(b->p, f);
    if (single && t->time >= 0 && !tp_result_is_null(t->r, 0, t->time)) {
        text_cell(b, t->r, 0, t->time, t->prec);
        fprintf(f, ": %s us", b->p);
    }
    fputc('\n', f);
}

static int text_tree_write(FILE *f, text_tree *t, int prec, tbuf *b)
{
    size_t nrows = t->shape.nrows, first = t->shape.nroots == 1 ? 1 : 0;

    t->prec = prec;
    text_tree_widths(t, first, b);
    text_tree_title(f, t, tp_result_meta(t->r, "title"), b);
    for (size_t row = first; row < nrows; row++)
        text_node(f, t, row, b);
    if (nrows == 0)
        fputs("(no rows)\n", f);
    return b->oom ? -1 : 0;
}

/* ------------------------------------------------------------ stage */

static int text_result_cut(tp_stage *st, FILE *f, const tp_result *r, int prec, tbuf *b);

static int text_result(tp_stage *st, FILE *f, const tp_result *r, int prec, tbuf *b)
{
    size_t *cut = text_cuts(r, b);
    int rc = text_result_cut(st, f, r, prec, b);
    b->cut = NULL;
    free(cut);
    return rc;
}

/* Writes r, its columns' cut widths set. */
static int text_result_cut(tp_stage *st, FILE *f, const tp_result *r, int prec, tbuf *b)
{
    text_tree t = { 0 };
    int rc = tp_result_tree_load(st, r, &t.shape);

    if (rc == TP_OK) {
        text_tree_cols(&t, r);
        rc = text_tree_write(f, &t, prec, b) == 0 ? TP_OK : tp_fail(st, TP_ENOMEM, "out of memory");
        tp_result_tree_free(&t.shape);
        return rc;
    }
    if (rc != TP_ENOTFOUND)
        return rc;
    if (text_flat(f, r, prec, b) != 0)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    return TP_OK;
}

static int text_all(tp_stage *st, FILE *f, int prec, size_t max_name, int to_stdout)
{
    size_t n = tp_input_count(st);
    tbuf b = { 0 };
    b.max_name = max_name;
    int rc = TP_OK;

    tb_clear(&b); /* from here on b.p is never NULL */
    if (b.oom)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        if (i > 0 && !to_stdout)
            fputc('\n', f);
        rc = text_result(st, f, tp_input(st, i), prec, &b);
        if (to_stdout)
            fputc('\n', f);
    }
    free(b.p);
    return rc;
}

static int text_run(tp_stage *st, const void *config, void *state)
{
    const text_config *cfg = config;
    (void)state;

    if (tp_input_count(st) == 0)
        return tp_fail(st, TP_EINVAL, "no input results to write");
    FILE *f = tp_out_open(st, cfg->path);
    if (f == NULL)
        return TP_EIO;
    int rc = text_all(st, f, (int)cfg->precision, (size_t)cfg->max_name, cfg->path == NULL);
    return tp_out_close(st, f, cfg->path, rc);
}

static const tp_stage_desc text_stages[] = {
    TP_STAGE_FULL(TP_STAGE_WRITER, "text",
                  "write results as indented trees and aligned tables",
                  text_options, text_config, NULL, TP_PRODUCES_NONE, 0,
                  NULL, text_run, NULL),
    TP_STAGE_END
};

TP_PLUGIN_DEFINE("text", "0.1.0", text_stages);
