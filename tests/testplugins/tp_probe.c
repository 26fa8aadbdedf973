/*
 * Test plugin: stages with every option type, used by the core's option
 * validation and pipeline tests.  `probe` records its typed config as a
 * one-row result so tests can see what the core passed; `fail_probe` fails
 * (optionally after starting an output) to test error paths.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <tracepipe/tp_plugin.h>

typedef struct probe_cfg {
    int flag;
    int64_t count;
    double ratio;
    const char *label;
    const char *mode;
    tp_strlist names;
    const char *need;
    tp_intlist ints;
    tp_floatlist floats;
    int level;
} probe_cfg;

static const char *const modes[] = {"fast", "exact", NULL};
static const char *const levels[] = {"low", "mid", "high", NULL};

static const tp_option probe_options[] = {
    TP_OPTION_BOOL("flag", probe_cfg, flag, "false", "a boolean"),
    TP_OPTION_INT("count", probe_cfg, count, "3", 1, 100, "an integer in [1, 100]"),
    TP_OPTION_FLOAT("ratio", probe_cfg, ratio, "0.5", 0, 1, "a fraction"),
    TP_OPTION_STRING("label", probe_cfg, label, "none", "a string"),
    TP_OPTION_CHOICE("mode", probe_cfg, mode, "fast", modes, "fast or exact"),
    TP_OPTION_LIST("names", probe_cfg, names, "a list of names"),
    TP_OPTION_INT_LIST("ints", probe_cfg, ints, -10, 1000, "integers in [-10, 1000]"),
    TP_OPTION_FLOAT_LIST("floats", probe_cfg, floats, 0, 1, "fractions"),
    TP_OPTION_ENUM("level", probe_cfg, level, "mid", levels, "low, mid or high"),
    TP_OPTION_END};

static const tp_option need_options[] = {
    TP_OPTION_REQUIRED_STRING("need", probe_cfg, need, "a required string"), TP_OPTION_END};

static int probe_run(tp_stage *st, const void *config, void *state)
{
    const probe_cfg *c = config;
    (void)state;
    tp_result *r = tp_result_new(st, NULL);
    if (r == NULL)
        return tp_fail(st, TP_ENOMEM, "no memory");
    int cf = tp_result_add_col(st, r, "flag", TP_COL_I64);
    int cc = tp_result_add_col(st, r, "count", TP_COL_I64);
    int cr = tp_result_add_col(st, r, "ratio", TP_COL_F64);
    int cl = tp_result_add_col(st, r, "label", TP_COL_STR);
    int cm = tp_result_add_col(st, r, "mode", TP_COL_STR);
    int cn = tp_result_add_col(st, r, "names", TP_COL_STR);
    size_t row;
    tp_result_add_row(st, r, &row);
    tp_result_set_i64(st, r, row, cf, c->flag);
    tp_result_set_i64(st, r, row, cc, c->count);
    tp_result_set_f64(st, r, row, cr, c->ratio);
    tp_result_set_str(st, r, row, cl, c->label);
    tp_result_set_str(st, r, row, cm, c->mode);
    char joined[256] = "";
    for (size_t i = 0; i < c->names.n; i++) {
        size_t used = strlen(joined);
        snprintf(joined + used, sizeof joined - used, "%s%s", i ? "," : "", c->names.items[i]);
    }
    tp_result_set_str(st, r, row, cn, joined);
    int ci = tp_result_add_col(st, r, "ints", TP_COL_STR);
    int cx = tp_result_add_col(st, r, "floats", TP_COL_STR);
    int cv = tp_result_add_col(st, r, "level", TP_COL_I64);
    joined[0] = '\0';
    for (size_t i = 0; i < c->ints.n; i++) {
        size_t used = strlen(joined);
        snprintf(joined + used, sizeof joined - used, "%s%lld", i ? "," : "",
                 (long long)c->ints.items[i]);
    }
    tp_result_set_str(st, r, row, ci, joined);
    joined[0] = '\0';
    for (size_t i = 0; i < c->floats.n; i++) {
        size_t used = strlen(joined);
        snprintf(joined + used, sizeof joined - used, "%s%g", i ? "," : "", c->floats.items[i]);
    }
    tp_result_set_str(st, r, row, cx, joined);
    tp_result_set_i64(st, r, row, cv, c->level);
    return TP_OK;
}

static int need_run(tp_stage *st, const void *config, void *state)
{
    (void)st, (void)config, (void)state;
    return TP_OK;
}

typedef struct fail_cfg {
    const char *path;
} fail_cfg;

static const tp_option fail_options[] = {
    TP_OPTION_STRING("path", fail_cfg, path, NULL, "write half a file here, then fail"),
    TP_OPTION_END};

static int fail_run(tp_stage *st, const void *config, void *state)
{
    const fail_cfg *c = config;
    (void)state;
    if (c->path) {
        const char *tmp = tp_output_begin(st, c->path);
        if (tmp == NULL)
            return TP_EIO;
        FILE *f = fopen(tmp, "w");
        if (f) {
            fputs("half", f);
            fclose(f);
        }
    }
    return tp_fail(st, TP_EFORMAT, "deliberate failure");
}

/* Sets an int64 into a text column and, as plugins that fold codes with
 * `rc |= ...` do, returns a code of its own (here "out of memory"). */
static int mismatch_run(tp_stage *st, const void *config, void *state)
{
    (void)config, (void)state;
    tp_result *r = tp_result_new(st, NULL);
    size_t row = 0;
    int rc = r ? tp_result_add_row(st, r, &row) : TP_ENOMEM;
    int col = r ? tp_result_add_col(st, r, "name", TP_COL_STR) : -1;
    rc |= tp_result_set_i64(st, r, row, col, 42);
    return rc ? TP_ENOMEM : TP_OK;
}

typedef struct slow_cfg {
    const char *path;
    double seconds;
} slow_cfg;

static const tp_option slow_options[] = {
    TP_OPTION_STRING("path", slow_cfg, path, NULL, "write half a file here, then wait"),
    TP_OPTION_FLOAT("seconds", slow_cfg, seconds, "10", 0, 60, "how long to wait"),
    TP_OPTION_END};

/* Writes half a file, then waits: a signal sent meanwhile finds a
 * temporary file being written (signal tests in tests/e2e/outputs.sh). */
static int slow_run(tp_stage *st, const void *config, void *state)
{
    const slow_cfg *c = config;
    (void)state;
    const char *tmp = c->path ? tp_output_begin(st, c->path) : NULL;
    if (c->path && tmp == NULL)
        return TP_EIO;
    FILE *f = tmp ? fopen(tmp, "w") : NULL;
    if (f) {
        fputs("half", f);
        fflush(f);
    }
    struct timespec pause = {0, 10 * 1000 * 1000};
    for (double waited = 0; waited < c->seconds; waited += 0.01)
        nanosleep(&pause, NULL);
    if (f)
        fclose(f);
    return TP_OK;
}

static const tp_stage_desc stages[] = {
    TP_STAGE(TP_STAGE_ANALYSIS, "probe", "echoes its typed options", probe_options, probe_cfg,
             NULL, probe_run, NULL),
    TP_STAGE(TP_STAGE_ANALYSIS, "need_probe", "has a required option", need_options, probe_cfg,
             NULL, need_run, NULL),
    TP_STAGE(TP_STAGE_WRITER, "fail_probe", "fails on purpose", fail_options, fail_cfg, NULL,
             fail_run, NULL),
    TP_STAGE(TP_STAGE_ANALYSIS, "mismatch_probe", "sets a cell of the wrong type", NULL,
             probe_cfg, NULL, mismatch_run, NULL),
    TP_STAGE(TP_STAGE_WRITER, "slow_probe", "writes slowly, for signal tests", slow_options,
             slow_cfg, NULL, slow_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("tp_probe", "1.0", stages);
