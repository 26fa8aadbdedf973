/*
 * reader `csv_table`: one CSV file (RFC 4180: commas, double quotes with ""
 * inside, line breaks inside quotes; LF or CRLF line ends) with a header row
 * becomes one result table `<stage id>` and no event trace
 * (TP_STAGE_F_NO_TRACE, like `results`).  Each column is typed from its
 * cells: int64 when every non-empty cell is a whole number, double when
 * every one is a decimal number, else text (`types:` can say otherwise);
 * empty cells are null.  The whole file is parsed and checked before the
 * result is made, so a bad file leaves nothing behind.  docs/plugins/csv_table.md.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_output.h>

typedef struct ct_config {
    const char *path;
    const char *comment;
    tp_strlist types;
} ct_config;

static const tp_option ct_options[] = {
    TP_OPTION_REQUIRED_INPUT_FILE("path", ct_config, path, "the CSV file (header row first)"),
    TP_OPTION_STRING("comment", ct_config, comment, NULL,
                     "lines starting with this text (outside quotes) are skipped, e.g. \"#\" "
                     "(default: none)"),
    TP_OPTION_LIST("types", ct_config, types,
                   "column types instead of the inferred ones, \"COLUMN: text|int64|double\""),
    TP_OPTION_END};

enum { CT_AUTO = 0, CT_TEXT = 1, CT_INT = 2, CT_DOUBLE = 3 };

/* "NAME: TYPE" -> the type, the name in name[size]; 0 when malformed. */
static int parse_type(const char *item, char *name, size_t size)
{
    const char *colon = strrchr(item, ':');
    if (colon == NULL)
        return 0;
    const char *t = colon + 1;
    while (*t == ' ')
        t++;
    size_t n = (size_t)(colon - item);
    while (n > 0 && item[n - 1] == ' ')
        n--;
    if (n == 0 || n >= size)
        return 0;
    memcpy(name, item, n);
    name[n] = '\0';
    return strcmp(t, "text") == 0     ? CT_TEXT
           : strcmp(t, "int64") == 0  ? CT_INT
           : strcmp(t, "double") == 0 ? CT_DOUBLE
                                      : 0;
}

static int ct_init(tp_stage *st, const void *config, void **state)
{
    const ct_config *cfg = config;
    (void)state;
    if (cfg->comment && cfg->comment[0] == '\0')
        return tp_fail(st, TP_EINVAL, "comment: give the text comment lines start with, e.g. \"#\"");
    for (size_t i = 0; i < cfg->types.n; i++) {
        char name[256];
        if (!parse_type(cfg->types.items[i], name, sizeof name))
            return tp_fail(st, TP_EINVAL, "types[%zu]: '%s' is not \"COLUMN: text|int64|double\"",
                           i, cfg->types.items[i]);
    }
    return TP_OK;
}

/* ---- parsing: the file's records, fields unquoted in place */

typedef struct ct_table {
    char *buf;       /* the file, fields NUL-terminated in place */
    char **cell;     /* records * ncols field pointers, header first */
    size_t *line;    /* each record's first line */
    size_t ncols, nrec, cap_cells, cap_rec;
} ct_table;

static void table_free(ct_table *t)
{
    tp_free(t->buf);
    tp_free(t->cell);
    tp_free(t->line);
}

/* Room for `need` field pointers. */
static int reserve(ct_table *t, size_t need)
{
    if (need <= t->cap_cells)
        return TP_OK;
    size_t cap = t->cap_cells ? t->cap_cells : 256;
    while (cap < need)
        cap *= 2;
    char **g = tp_realloc(t->cell, cap * sizeof *g);
    if (g == NULL)
        return TP_ENOMEM;
    t->cell = g;
    t->cap_cells = cap;
    return TP_OK;
}

/* Reads the whole file into t->buf (NUL-terminated), *n bytes. */
static int slurp(tp_stage *st, const char *path, ct_table *t, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return tp_fail(st, TP_EIO, "%s: cannot open: %s", path, strerror(errno));
    size_t cap = 4096, len = 0;
    char *buf = tp_malloc(cap);
    while (buf) {
        if (len + 1 >= cap) {
            char *g = tp_realloc(buf, cap * 2);
            if (g == NULL) {
                tp_free(buf);
                buf = NULL;
                break;
            }
            buf = g;
            cap *= 2;
        }
        size_t got = fread(buf + len, 1, cap - len - 1, f);
        len += got;
        if (got == 0)
            break;
    }
    int err = ferror(f) ? (errno ? errno : EIO) : 0;
    fclose(f);
    if (buf == NULL)
        return tp_fail(st, TP_ENOMEM, "%s: out of memory", path);
    t->buf = buf;
    if (err)
        return tp_fail(st, TP_EIO, "%s: cannot read: %s", path, strerror(err));
    buf[len] = '\0';
    *n = len;
    return TP_OK;
}

/* Splits buf[0, n) into records; the header fixes the number of columns. */
static int parse(tp_stage *st, const char *path, const char *comment, ct_table *t, size_t n)
{
    char *p = t->buf, *end = t->buf + n;
    size_t line = 1, clen = comment ? strlen(comment) : 0;
    if (n >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0)
        p += 3; /* a UTF-8 byte order mark */
    while (p < end) {
        int eol_only = *p == '\n' || (*p == '\r' && p + 1 < end && p[1] == '\n');
        if (eol_only || (clen && (size_t)(end - p) >= clen && memcmp(p, comment, clen) == 0)) {
            char *nl = memchr(p, '\n', (size_t)(end - p)); /* an empty or comment line */
            p = nl ? nl + 1 : end;
            line++;
            continue;
        }
        size_t first = line, nf = 0, base = t->nrec * t->ncols;
        for (;;) { /* one field */
            char *out = p, *start = p;
            if (*p == '"') {
                size_t opened = line;
                p++;
                for (;;) {
                    if (p >= end)
                        return tp_fail(st, TP_EFORMAT, "%s:%zu: a quoted field is not closed "
                                       "(unterminated quote)", path, opened);
                    if (*p == '"') {
                        if (p + 1 < end && p[1] == '"') {
                            *out++ = '"';
                            p += 2;
                            continue;
                        }
                        p++;
                        break;
                    }
                    if (*p == '\0')
                        return tp_fail(st, TP_EFORMAT, "%s:%zu: a NUL byte (not a text file)",
                                       path, line);
                    line += *p == '\n';
                    *out++ = *p++;
                }
                if (p < end && *p != ',' && *p != '\n' && !(*p == '\r' && p + 1 < end && p[1] == '\n'))
                    return tp_fail(st, TP_EFORMAT, "%s:%zu: text after a closing quote (a field "
                                   "is quoted whole, a quote inside doubled: \"\")", path, line);
            } else {
                while (p < end && *p != ',' && *p != '\n' && !(*p == '\r' && p + 1 < end && p[1] == '\n')) {
                    if (*p == '"')
                        return tp_fail(st, TP_EFORMAT, "%s:%zu: a quote inside an unquoted "
                                       "field (quote the whole field, double the quote: \"\")",
                                       path, line);
                    if (*p == '\0')
                        return tp_fail(st, TP_EFORMAT, "%s:%zu: a NUL byte (not a text file)",
                                       path, line);
                    p++;
                }
                out = p;
            }
            char delim = p < end ? *p : '\n';
            if (t->nrec == 0 && nf == TP_RESULT_MAX_COLS) /* before storing them all */
                return tp_fail(st, TP_EFORMAT, "%s:%zu: more than %d columns in the header (a "
                               "table holds at most %d)", path, first, TP_RESULT_MAX_COLS,
                               TP_RESULT_MAX_COLS);
            if (t->nrec == 0 || nf < t->ncols) { /* extra fields of a ragged row: counted */
                if (reserve(t, base + nf + 1) != TP_OK)
                    return tp_fail(st, TP_ENOMEM, "%s: out of memory", path);
                t->cell[base + nf] = start;
                t->ncols += t->nrec == 0;
            }
            nf++;
            *out = '\0';
            if (p >= end)
                break;
            p += delim == '\r' ? 2 : 1;
            if (delim != ',') {
                line++;
                break;
            }
        }
        if (nf != t->ncols)
            return tp_fail(st, TP_EFORMAT, "%s:%zu: %zu field%s, the header has %zu (ragged row)",
                           path, first, nf, nf == 1 ? "" : "s", t->ncols);
        if (t->nrec == t->cap_rec) {
            size_t cap = t->cap_rec ? t->cap_rec * 2 : 64;
            size_t *g = tp_realloc(t->line, cap * sizeof *g);
            if (g == NULL)
                return tp_fail(st, TP_ENOMEM, "%s: out of memory", path);
            t->line = g;
            t->cap_rec = cap;
        }
        t->line[t->nrec++] = first;
    }
    if (t->nrec == 0)
        return tp_fail(st, TP_EFORMAT, "%s: empty file (a header row is needed)", path);
    return TP_OK;
}

/* ---- typing */

/* s without the spaces and tabs around it: [*b, *e). */
static void trim(const char *s, const char **b, const char **e)
{
    const char *x = s, *y = s + strlen(s);
    while (x < y && (*x == ' ' || *x == '\t'))
        x++;
    while (y > x && (y[-1] == ' ' || y[-1] == '\t'))
        y--;
    *b = x;
    *e = y;
}

/* A whole number in int64 range (decimal, optional sign): 1 and *v. */
static int as_int(const char *s, int64_t *v)
{
    const char *b, *e;
    trim(s, &b, &e);
    const char *d = b + (b < e && (*b == '+' || *b == '-'));
    if (d == e)
        return 0;
    for (const char *q = d; q < e; q++)
        if (*q < '0' || *q > '9')
            return 0;
    char buf[32];
    if ((size_t)(e - b) >= sizeof buf)
        return 0;
    memcpy(buf, b, (size_t)(e - b));
    buf[e - b] = '\0';
    errno = 0;
    long long x = strtoll(buf, NULL, 10);
    if (errno == ERANGE)
        return 0;
    *v = (int64_t)x;
    return 1;
}

/* A decimal number: [+-] digits [. digits] [e [+-] digits], at least one
 * digit before the exponent (no hex, inf or nan): 1 and *v. */
static int as_double(const char *s, double *v)
{
    const char *b, *e;
    trim(s, &b, &e);
    const char *q = b + (b < e && (*b == '+' || *b == '-'));
    size_t digits = 0;
    while (q < e && *q >= '0' && *q <= '9')
        q++, digits++;
    if (q < e && *q == '.')
        for (q++; q < e && *q >= '0' && *q <= '9'; q++)
            digits++;
    if (digits == 0)
        return 0;
    if (q < e && (*q == 'e' || *q == 'E')) {
        q++;
        q += q < e && (*q == '+' || *q == '-');
        if (q == e || *q < '0' || *q > '9')
            return 0;
        while (q < e && *q >= '0' && *q <= '9')
            q++;
    }
    if (q != e)
        return 0;
    *v = strtod(b, NULL); /* stops where the number ends, before any space */
    return 1;
}

/* The inferred type of column c: int64, double or text (no value: text). */
static int infer(const ct_table *t, size_t c)
{
    int type = CT_INT, any = 0;
    for (size_t r = 1; r < t->nrec && type != CT_TEXT; r++) {
        const char *s = t->cell[r * t->ncols + c];
        int64_t i;
        double d;
        if (s[0] == '\0')
            continue;
        any = 1;
        if (type == CT_INT && !as_int(s, &i))
            type = CT_DOUBLE;
        if (type == CT_DOUBLE && !as_double(s, &d))
            type = CT_TEXT;
    }
    return any ? type : CT_TEXT;
}

/* Each column's type: inferred, or from `types:` (whose names must be
 * header names). */
static int column_types(tp_stage *st, const ct_config *cfg, const ct_table *t, int *types)
{
    for (size_t c = 0; c < t->ncols; c++)
        types[c] = CT_AUTO;
    for (size_t i = 0; i < cfg->types.n; i++) {
        char name[256];
        int type = parse_type(cfg->types.items[i], name, sizeof name);
        size_t c = 0;
        while (c < t->ncols && strcmp(t->cell[c], name) != 0)
            c++;
        if (c == t->ncols)
            return tp_fail(st, TP_EINVAL, "%s:1: types: no column '%s' in the header",
                           cfg->path, name);
        types[c] = type;
    }
    for (size_t c = 0; c < t->ncols; c++)
        if (types[c] == CT_AUTO)
            types[c] = infer(t, c);
    return TP_OK;
}

static int by_name(const void *a, const void *b, void *ctx)
{
    const ct_table *t = ctx;
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int d = strcmp(t->cell[x], t->cell[y]);
    return d ? d : (x > y) - (x < y);
}

/* Empty and duplicate header names; of the duplicates, the pair whose
 * second column comes first, as a left-to-right reading finds it (sorted:
 * n log n, issue 32). */
static int check_header(tp_stage *st, const char *path, const ct_table *t)
{
    for (size_t c = 0; c < t->ncols; c++)
        if (t->cell[c][0] == '\0')
            return tp_fail(st, TP_EFORMAT, "%s:1: column %zu has no name (header row needed)",
                           path, c + 1);
    size_t *order = tp_malloc((t->ncols ? t->ncols : 1) * sizeof *order);
    if (order == NULL)
        return tp_fail(st, TP_ENOMEM, "%s: out of memory", path);
    for (size_t c = 0; c < t->ncols; c++)
        order[c] = c;
    size_t first = SIZE_MAX, second = SIZE_MAX;
    int rc = tp_sort(order, t->ncols, sizeof *order, by_name, (void *)t);
    for (size_t i = 1; i < t->ncols && rc == TP_OK; i++)
        if (strcmp(t->cell[order[i - 1]], t->cell[order[i]]) == 0 && order[i] < second &&
            (i < 2 || strcmp(t->cell[order[i - 2]], t->cell[order[i]]) != 0)) {
            first = order[i - 1]; /* the group's first two columns */
            second = order[i];
        }
    tp_free(order);
    if (rc != TP_OK)
        return tp_fail(st, TP_ENOMEM, "%s: out of memory", path);
    if (second != SIZE_MAX)
        return tp_fail(st, TP_EFORMAT, "%s:1: duplicate header name '%s' (columns %zu and %zu)",
                       path, t->cell[second], first + 1, second + 1);
    return TP_OK;
}

/* The result: every cell checked against its column's type first, so a
 * bad cell fails the stage before anything is made. */
static int make_result(tp_stage *st, const char *path, const ct_table *t, const int *types)
{
    for (size_t r = 1; r < t->nrec; r++)
        for (size_t c = 0; c < t->ncols; c++) {
            const char *s = t->cell[r * t->ncols + c];
            int64_t i;
            double d;
            if (s[0] && ((types[c] == CT_INT && !as_int(s, &i)) ||
                         (types[c] == CT_DOUBLE && !as_double(s, &d))))
                return tp_fail(st, TP_EFORMAT, "%s:%zu: column '%s': '%s' is not %s", path,
                               t->line[r], t->cell[c], s,
                               types[c] == CT_INT ? "a whole number (int64)" : "a number");
            if (s[0] && types[c] == CT_DOUBLE && !isfinite(d)) /* 1e999 */
                return tp_fail(st, TP_EFORMAT, "%s:%zu: column '%s': '%s' is beyond the range "
                               "of a double", path, t->line[r], t->cell[c], s);
        }
    tp_result *res = tp_result_new(st, NULL);
    if (res == NULL)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    int rc = TP_OK;
    for (size_t c = 0; c < t->ncols && rc == TP_OK; c++) {
        tp_coltype ty = types[c] == CT_INT ? TP_COL_I64 : types[c] == CT_DOUBLE ? TP_COL_F64 : TP_COL_STR;
        if (tp_result_add_col(st, res, t->cell[c], ty) != (int)c)
            rc = TP_ENOMEM;
    }
    for (size_t r = 1; r < t->nrec && rc == TP_OK; r++) {
        size_t row;
        rc = tp_result_add_row(st, res, &row);
        for (size_t c = 0; c < t->ncols && rc == TP_OK; c++) {
            const char *s = t->cell[r * t->ncols + c];
            int64_t i = 0;
            double d = 0;
            if (s[0] == '\0')
                continue; /* null */
            if (types[c] == CT_INT && as_int(s, &i))
                rc = tp_result_set_i64(st, res, row, (int)c, i);
            else if (types[c] == CT_DOUBLE && as_double(s, &d))
                rc = tp_result_set_f64(st, res, row, (int)c, d);
            else
                rc = tp_result_set_str(st, res, row, (int)c, tp_csv_unguard(s));
        }
    }
    if (rc == TP_OK)
        rc = tp_result_set_meta(st, res, "title", "CSV table");
    if (rc == TP_OK)
        rc = tp_result_set_meta(st, res, "source", path);
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static int ct_run(tp_stage *st, const void *config, void *state)
{
    const ct_config *cfg = config;
    (void)state;
    ct_table t = {0};
    size_t n = 0;
    int *types = NULL;
    int rc = slurp(st, cfg->path, &t, &n);
    if (rc == TP_OK)
        rc = parse(st, cfg->path, cfg->comment, &t, n);
    if (rc == TP_OK)
        rc = check_header(st, cfg->path, &t);
    if (rc == TP_OK && (types = tp_calloc(t.ncols, sizeof *types)) == NULL)
        rc = tp_fail(st, TP_ENOMEM, "out of memory");
    if (rc == TP_OK)
        rc = column_types(st, cfg, &t, types);
    if (rc == TP_OK)
        rc = make_result(st, cfg->path, &t, types);
    tp_free(types);
    table_free(&t);
    return rc;
}

static const tp_stage_desc ct_stages[] = {
    TP_STAGE_FULL(TP_STAGE_READER, "csv_table",
                  "a CSV file (header row, RFC 4180) as one typed result table (no event trace)",
                  ct_options, ct_config, NULL, TP_PRODUCES(""), TP_STAGE_F_NO_TRACE, ct_init,
                  ct_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("csv_table", "0.1.0", ct_stages);
