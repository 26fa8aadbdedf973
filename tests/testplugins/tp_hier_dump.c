/*
 * Test plugin: `hier_dump` reads the hierarchy's wide arrays (parent,
 * first_child, next_sibling, depth, launcher, roots) the way a plugin
 * written for an earlier release does (tp_hier_view) and reports, per
 * array, its cells, the cells other than -1 and an FNV-1a digest of its
 * bytes: the golden case hierarchy_wide_lazy compares them with those the
 * build before the compact attachments published (issue 31), so the lazy
 * arrays are byte for byte the old ones.
 */
#include <stdio.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_hier.h>

#define DUMP_COLS(X, P)                                                                            \
    X(P, array, STR, NULL, "the attachment's name")                                                \
    X(P, cells, I64, NULL, "its cells")                                                            \
    X(P, n_set, I64, NULL, "cells other than -1")                                                  \
    X(P, digest, STR, NULL, "FNV-1a 64 of its int32 cells, hex")
TP_COLUMNS(dump, DUMP_COLS);

static const tp_result_decl dump_results[] = {
    TP_RESULT("", "table", dump, "one row per wide hierarchy array"), TP_RESULTS_END};

typedef struct dump_cfg {
    int unused;
} dump_cfg;

static int dump_row(tp_stage *st, tp_result *r, const char *name, const int32_t *a, size_t n)
{
    uint64_t h = 1469598103934665603u;
    int64_t set = 0;
    for (size_t i = 0; i < n; i++) {
        uint32_t v = (uint32_t)a[i];
        for (int b = 0; b < 4; b++) {
            h ^= (v >> (8 * b)) & 0xff;
            h *= 1099511628211u;
        }
        set += a[i] != -1;
    }
    char hex[24];
    snprintf(hex, sizeof hex, "%016llx", (unsigned long long)h);
    size_t row;
    if (tp_result_add_row(st, r, &row) != TP_OK ||
        tp_result_set_str(st, r, row, dump_array, name) != TP_OK ||
        tp_result_set_i64(st, r, row, dump_cells, (int64_t)n) != TP_OK ||
        tp_result_set_i64(st, r, row, dump_n_set, set) != TP_OK ||
        tp_result_set_str(st, r, row, dump_digest, hex) != TP_OK)
        return TP_ENOMEM;
    return TP_OK;
}

static int dump_run(tp_stage *st, const void *config, void *state)
{
    (void)config;
    (void)state;
    const tp_trace *t = tp_stage_trace(st);
    tp_hier_view v;
    if (t == NULL || tp_hier_view_require(st, t, &v) != TP_OK)
        return TP_ENOTFOUND;
    size_t n = tp_trace_cols(t)->n;
    tp_result *r = tp_result_declared(st, NULL);
    if (r == NULL)
        return TP_ENOMEM;
    int rc = dump_row(st, r, "hierarchy.parent", v.parent, n);
    rc = rc ? rc : dump_row(st, r, "hierarchy.first_child", v.first_child, n);
    rc = rc ? rc : dump_row(st, r, "hierarchy.next_sibling", v.next_sibling, n);
    rc = rc ? rc : dump_row(st, r, "hierarchy.depth", v.depth, n);
    rc = rc ? rc : dump_row(st, r, "hierarchy.launcher", v.launcher, n);
    rc = rc ? rc : dump_row(st, r, "hierarchy.roots", v.roots, v.nroots);
    return rc;
}

static int fail_fill(const tp_trace *t, void *user, void *cells, size_t n)
{
    (void)t, (void)user, (void)cells, (void)n;
    return TP_ENOMEM;
}

static int lazy_bad_run(tp_stage *st, const void *config, void *state)
{
    (void)config, (void)state;
    return tp_trace_attach_lazy(st, tp_stage_trace(st), "test.lazy_bad", TP_COL_I32, 4,
                                fail_fill, NULL, NULL);
}

static int lazy_ask_run(tp_stage *st, const void *config, void *state)
{
    (void)config, (void)state;
    size_t n = 0;
    if (tp_trace_attached(tp_stage_trace(st), "test.lazy_bad", TP_COL_I32, &n) == NULL)
        return tp_fail(st, TP_ENOTFOUND, "lazy_ask: no test.lazy_bad");
    return TP_OK;
}

static const tp_stage_desc stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "lazy_bad", "a lazy attachment whose filler fails", NULL,
                  dump_cfg, NULL, NULL, NULL, 0, NULL, lazy_bad_run, NULL),
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "lazy_ask", "asks for lazy_bad's attachment", NULL,
                  dump_cfg, NULL, NULL, NULL, 0, NULL, lazy_ask_run, NULL),
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "hier_dump", "digests of the hierarchy's wide arrays", NULL,
                  dump_cfg, "hierarchy", dump_results, NULL, 0, NULL, dump_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("tp_hier_dump", "1.0", stages);
