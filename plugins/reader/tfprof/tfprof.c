/*
 * reader tfprof: TF1 tfprof text reports (FORMATS.md section 4; seed 003),
 * several reports and steps in one log among noise lines.
 *
 * A report starts at its legend line ("node name | # parameters | ...");
 * the options block before it gives the step (-step) and view; the report
 * ends at a banner ("=====") or a line that is not a node line.  The first
 * node line tells the grammar: "_TFProfRoot (...)" starts a tree (scope,
 * graph or code view: "<indent>name (self/total, ...)", two spaces per
 * level), anything else the op view ("name VALUE (ACC%, SELF%), ...").
 *
 * Reports have no timestamps: every row is an event of kind `other` (no
 * time analysis reads it), category tfprof_<view>, named by its scope path
 * or op type, with the values of the legend's columns as extension columns
 * in base units (ns, bytes, counts): tfprof.<column> (the self value, or
 * the op view's value) and tfprof.<column>.total (trees); `iteration` is the
 * report's step (or its ordinal when -step is -1 or absent), tfprof.depth
 * the tree depth.  Units are decimal as tfprof prints them; memory_base:
 * 1024 reads KB/MB as the seed did.
 */
#include <math.h>
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_rows.h>

typedef struct tf_config {
    const char *path;
    int64_t memory_base;
} tf_config;

static const char *const tf_bases[] = {"1000", "1024", NULL};

static const tp_option tf_options[] = {
    TP_OPTION_REQUIRED_INPUT_FILE("path", tf_config, path, "the log or report file"),
    TP_OPTION_ENUM("memory_base", tf_config, memory_base, "1000", tf_bases,
                   "1000 (tfprof's units) or 1024 (seed 003's reading of KB and MB)"),
    TP_OPTION_END};

/* The legend columns with numeric values, and their unit. */
enum { U_COUNT, U_BYTES, U_TIME };
static const struct {
    const char *legend, *key;
    int unit;
} known_cols[] = {
    {"# parameters", "params", U_COUNT},
    {"# float_ops", "float_ops", U_COUNT},
    {"requested bytes", "requested_bytes", U_BYTES},
    {"peak bytes", "peak_bytes", U_BYTES},
    {"residual bytes", "residual_bytes", U_BYTES},
    {"output bytes", "output_bytes", U_BYTES},
    {"total execution time", "exec_time_ns", U_TIME},
    {"accelerator execution time", "accelerator_time_ns", U_TIME},
    {"cpu execution time", "cpu_time_ns", U_TIME},
};
#define N_KNOWN (sizeof known_cols / sizeof known_cols[0])
#define TF_MAX_COLS 16

typedef struct tf {
    tp_stage *st;
    tp_trace *t;
    const tf_config *cfg;
    const char *path;
    size_t line_no, rows, reports;
    int64_t step;          /* -step of the latest options block, -1 none */
    char view[32];         /* -view of the latest options block */
    int ncols;             /* legend columns after "node name" */
    int col_kind[TF_MAX_COLS]; /* index into known_cols, -1 text */
    int ext_self[N_KNOWN], ext_total[N_KNOWN], ext_iter, ext_depth;
    int tree;              /* the report's grammar: -1 unknown, 0 op view, 1 tree */
    tp_str cat;
    int32_t iteration;
    tp_rows_tally drop; /* damaged values left null (tp_sdk_rows.h) */
} tf;

/* --------------------------------------------------------------- values */

/* "1.42ms" -> 1420000 (ns), "53.09MB" -> 53090000, "3.21m" -> 3210000;
 * 0 when the text is not a value of that unit ("--"), or is one but damaged
 * (NaN, infinite, beyond int64, negative: counted in f->drop). */
static int parse_value(tf *f, const char *s, size_t len, int unit, int64_t *out)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf)
        return 0;
    memcpy(buf, s, len);
    buf[len] = '\0';
    char *end;
    errno = 0;
    double v = strtod(buf, &end);
    if (end == buf || (errno && !isinf(v)))
        return 0; /* an underflow; an overflow is damaged, below */
    double mul = 1;
    if (unit == U_TIME) {
        if (strcmp(end, "us") == 0)
            mul = 1e3;
        else if (strcmp(end, "ms") == 0)
            mul = 1e6;
        else if (strcmp(end, "sec") == 0)
            mul = 1e9;
        else
            return 0;
    } else if (unit == U_BYTES) {
        double k = f->cfg->memory_base == 1 ? 1024 : 1000;
        if (strcmp(end, "B") == 0)
            mul = 1;
        else if (strcmp(end, "KB") == 0)
            mul = k;
        else if (strcmp(end, "MB") == 0)
            mul = k * k;
        else if (strcmp(end, "GB") == 0)
            mul = k * k * k;
        else
            return 0;
    } else {
        mul = *end == '\0' ? 1 : strcmp(end, "k") == 0 ? 1e3 : strcmp(end, "m") == 0 ? 1e6
            : strcmp(end, "b") == 0 ? 1e9 : 0;
        if (mul == 0)
            return 0;
    }
    tp_rows_reason why = tp_rows_ns(v, mul, out);
    if (why == TP_ROWS_N_REASONS && v < 0)
        why = TP_ROWS_NEGATIVE;
    if (why != TP_ROWS_N_REASONS)
        tp_rows_drop(&f->drop, why, "line %zu", f->line_no);
    return why == TP_ROWS_N_REASONS;
}

static int set_ext(tf *f, int col, int64_t v)
{
    return tp_trace_ext_set_i64(f->st, f->t, col, f->rows - 1, v);
}

/* --------------------------------------------------------------- legend */

static int ensure_ext(tf *f, int k)
{
    if (f->ext_self[k] >= 0)
        return TP_OK;
    char name[96];
    snprintf(name, sizeof name, "tfprof.%s", known_cols[k].key);
    f->ext_self[k] = tp_trace_ext_add(f->st, f->t, name, TP_COL_I64);
    snprintf(name, sizeof name, "tfprof.%s.total", known_cols[k].key);
    f->ext_total[k] = tp_trace_ext_add(f->st, f->t, name, TP_COL_I64);
    return f->ext_self[k] < 0 || f->ext_total[k] < 0 ? TP_ENOMEM : TP_OK;
}

/* "node name | # parameters | total execution time | ..." */
static int read_legend(tf *f, const char *line)
{
    f->ncols = 0;
    const char *p = strchr(line, '|');
    while (p && f->ncols < TF_MAX_COLS) {
        p++;
        while (*p == ' ')
            p++;
        const char *e = strchr(p, '|');
        size_t len = e ? (size_t)(e - p) : strcspn(p, "\r\n");
        while (len > 0 && isspace((unsigned char)p[len - 1]))
            len--;
        int kind = -1;
        for (size_t k = 0; k < N_KNOWN; k++)
            if (strlen(known_cols[k].legend) == len && strncmp(p, known_cols[k].legend, len) == 0)
                kind = (int)k;
        if (kind >= 0 && ensure_ext(f, kind) != TP_OK)
            return TP_ENOMEM;
        f->col_kind[f->ncols++] = kind;
        p = e;
    }
    f->tree = -1;
    f->reports++;
    f->iteration = f->step >= 0 ? (int32_t)f->step : (int32_t)(f->reports - 1);
    return TP_OK;
}

/* ----------------------------------------------------------- node lines */

static int append_row(tf *f, const char *name, size_t len, int32_t depth)
{
    tp_event e;
    memset(&e, 0, sizeof e);
    e.phase = 'X';
    e.kind = TP_KIND_OTHER;
    e.cat = f->cat;
    e.name = tp_intern(f->st, name, len);
    e.dur = -1;
    e.pid = e.tid = 1;
    e.device = e.stream = -1;
    e.ext_id = e.corr = e.flow_id = TP_NONE;
    int rc = tp_trace_append(f->st, f->t, &e);
    if (rc != TP_OK)
        return rc;
    f->rows++;
    rc = tp_trace_ext_set_i32(f->st, f->t, f->ext_iter, f->rows - 1, f->iteration);
    if (rc == TP_OK && depth >= 0)
        rc = tp_trace_ext_set_i32(f->st, f->t, f->ext_depth, f->rows - 1, depth);
    return rc;
}

/* One tree item "self/total" (a trailing " params" / " flops" allowed). */
static int tree_item(tf *f, int col, const char *s, size_t len)
{
    int k = col < f->ncols ? f->col_kind[col] : -1;
    if (k < 0)
        return TP_OK;
    const char *slash = memchr(s, '/', len);
    if (slash == NULL)
        return TP_OK;
    size_t tl = len - (size_t)(slash + 1 - s);
    const char *sp = memchr(slash + 1, ' ', tl);
    if (sp)
        tl = (size_t)(sp - slash - 1);
    int64_t v;
    int rc = TP_OK;
    if (parse_value(f, s, (size_t)(slash - s), known_cols[k].unit, &v)) /* "--" stays null */
        rc = set_ext(f, f->ext_self[k], v);
    if (rc == TP_OK && parse_value(f, slash + 1, tl, known_cols[k].unit, &v))
        rc = set_ext(f, f->ext_total[k], v);
    return rc;
}

/* "<indent>name (a/b, c/d)" */
static int tree_line(tf *f, const char *line)
{
    size_t indent = strspn(line, " ");
    const char *open = strstr(line + indent, " (");
    const char *close = strrchr(line, ')');
    if (open == NULL || close == NULL || close < open)
        return 0;
    for (const char *q = open; (q = strstr(q + 1, " (")) && q < close;)
        open = q; /* the last " (" before the items */
    int rc = append_row(f, line + indent, (size_t)(open - (line + indent)), (int32_t)(indent / 2));
    /* items: split on ", "; a first item without '/' is a shape */
    const char *p = open + 2;
    int col = 0, first = 1;
    while (rc == TP_OK && p < close) {
        const char *e = strstr(p, ", ");
        size_t len = (size_t)((e && e < close ? e : close) - p);
        if (!(first && memchr(p, '/', len) == NULL && f->ncols > 0))
            rc = tree_item(f, col++, p, len);
        first = 0;
        p += len + 2;
    }
    return rc == TP_OK ? 1 : -1;
}

/* "Conv2D   53.09MB (92.20%, 26.54%), 1.08ms (39.96%, 7.22%)" */
static int op_line(tf *f, const char *line)
{
    const char *p = line + strspn(line, " ");
    size_t nlen = strcspn(p, " \t");
    if (nlen == 0 || p[nlen] == '\0')
        return 0;
    int rc = append_row(f, p, nlen, -1);
    p += nlen;
    for (int col = 0; rc == TP_OK && col < f->ncols; col++) {
        p += strspn(p, " ,");
        size_t vlen = strcspn(p, " (");
        int k = f->col_kind[col];
        int64_t v;
        if (k >= 0 && parse_value(f, p, vlen, known_cols[k].unit, &v))
            rc = set_ext(f, f->ext_self[k], v);
        p += vlen;
        const char *close = strchr(p, ')');
        if (close == NULL)
            break;
        p = close + 1;
    }
    return rc == TP_OK ? 1 : -1;
}

/* ------------------------------------------------------------- the log */

static int is_banner(const char *line) { return strncmp(line, "=====", 5) == 0; }

static void option_line(tf *f, const char *line)
{
    if (strncmp(line, "-step", 5) == 0 && (line[5] == ' ' || line[5] == '\t')) {
        f->step = strtoll(line + 5, NULL, 10);
        if (f->step < -1 || f->step > INT32_MAX) {
            tp_log(f->st, TP_LOG_WARN, "%s:%zu: -step %lld is not a step number: the report's "
                   "ordinal is its iteration", f->path, f->line_no, (long long)f->step);
            f->step = -1;
        }
    }
    else if (strncmp(line, "-view", 5) == 0 && (line[5] == ' ' || line[5] == '\t'))
        sscanf(line + 5, " %31s", f->view);
}

static int body_line(tf *f, const char *line)
{
    if (f->tree < 0) {
        f->tree = strncmp(line + strspn(line, " "), "_TFProfRoot", 11) == 0;
        const char *view = f->tree ? (f->view[0] ? f->view : "scope") : "op";
        char cat[64];
        int len = snprintf(cat, sizeof cat, "tfprof_%s", view);
        f->cat = tp_intern(f->st, cat, (size_t)len);
    }
    return f->tree ? tree_line(f, line) : op_line(f, line);
}

static int read_log(tf *f, FILE *in)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t got;
    int in_report = 0, rc = TP_OK;
    while (rc == TP_OK && (got = getline(&line, &cap, in)) >= 0) {
        f->line_no++;
        while (got > 0 && (line[got - 1] == '\n' || line[got - 1] == '\r'))
            line[--got] = '\0';
        if (strncmp(line, "node name |", 11) == 0) {
            rc = read_legend(f, line);
            in_report = rc == TP_OK;
        } else if (is_banner(line)) {
            if (strstr(line, "Options"))
                f->step = -1, f->view[0] = '\0';
            in_report = 0;
        } else if (line[0] == '-' && !in_report) {
            option_line(f, line);
        } else if (in_report && got > 0) {
            int r = body_line(f, line);
            if (r < 0)
                rc = TP_ENOMEM;
            else if (r == 0)
                in_report = 0; /* a noise line ends the report */
        } else if (in_report && got == 0 && f->tree >= 0 && f->rows > 0) {
            /* a blank line inside a report (after input shapes): keep going */
        }
    }
    free(line);
    if (rc == TP_OK && ferror(in))
        rc = tp_fail(f->st, TP_EIO, "%s: read error", f->path);
    return rc;
}

static int tf_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const tf_config *cfg = config;
    tf f = {.st = st, .t = tp_stage_trace(st), .cfg = cfg, .path = cfg->path, .step = -1};
    for (size_t k = 0; k < N_KNOWN; k++)
        f.ext_self[k] = f.ext_total[k] = -1;
    FILE *in = fopen(cfg->path, "r");
    if (in == NULL)
        return tp_fail(st, TP_EIO, "%s: cannot open: %s", cfg->path, strerror(errno));
    f.ext_iter = tp_trace_ext_add(st, f.t, "iteration", TP_COL_I32);
    f.ext_depth = tp_trace_ext_add(st, f.t, "tfprof.depth", TP_COL_I32);
    int rc = f.ext_iter >= 0 && f.ext_depth >= 0 ? TP_OK : TP_ENOMEM;
    rc = rc ? rc : tp_trace_info_set_str(st, f.t, "format", "tfprof");
    rc = rc ? rc : read_log(&f, in);
    fclose(in);
    if (rc == TP_OK && f.reports == 0)
        rc = tp_fail(st, TP_EFORMAT, "%s: no tfprof report: no legend line 'node name | ...' "
                     "(%zu lines read)", cfg->path, f.line_no);
    tp_rows_warn(st, cfg->path, "values left null", &f.drop);
    if (rc == TP_OK)
        tp_log(st, TP_LOG_INFO, "%s: %zu reports, %zu rows", cfg->path, f.reports, f.rows);
    return rc == TP_ENOMEM ? tp_fail(st, rc, "%s: out of memory", cfg->path) : rc;
}

/* Text holding a report's legend or banner. */
static int tf_probe(const unsigned char *head, size_t n, const char *path)
{
    (void)path;
    static const char *const marks[] = {"node name |", "Model Analysis Report", "_TFProfRoot"};
    for (size_t k = 0; k < 3; k++) {
        size_t len = strlen(marks[k]);
        for (size_t i = 0; i + len <= n; i++)
            if (memcmp(head + i, marks[k], len) == 0)
                return 80;
    }
    return 0;
}

static const tp_stage_desc tf_stages[] = {
    TP_STAGE_READER_PROBED("tfprof",
                           "TF1 tfprof text reports (scope/graph/code trees, op view), several "
                           "per log",
                           tf_options, tf_config, TP_PRODUCES_NONE, 0, NULL, tf_run, NULL,
                           tf_probe),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("tfprof", "0.1.0", tf_stages);
