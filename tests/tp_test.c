/*
 * Shared test helpers and the runner's main(): every suite registered with
 * TP_TEST_SUITE in the files linked into one runner is run.
 */
#include "tp_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SUITES 128
static tp_suite_fn suites[MAX_SUITES];
static size_t n_suites;

void tp_test_register(tp_suite_fn fn)
{
    if (n_suites < MAX_SUITES)
        suites[n_suites++] = fn;
}

const char *tp_test_build_dir(void)
{
    const char *b = getenv("TP_BUILD");
    return b && *b ? b : "build";
}

tp_ctx *tp_test_ctx(void)
{
    tp_ctx *ctx = tp_ctx_new();
    ck_assert_ptr_nonnull(ctx);
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/plugins", tp_test_build_dir());
    tp_ctx_add_dir(ctx, dir);
    tp_diags d = {0};
    tp_ctx_load_all(ctx, &d);
    tp_diags_free(&d);
    return ctx;
}

/* The registry lives as long as the test process: runs borrow from it. */
static tp_ctx *shared_ctx(void)
{
    static tp_ctx *ctx;
    if (ctx == NULL)
        ctx = tp_test_ctx();
    return ctx;
}

static tp_pipeline *load_yaml(const char *yaml, tp_diags *d)
{
    return tp_pipeline_load_string(shared_ctx(), yaml, strlen(yaml), "<test>", NULL, 0, d);
}

tp_run *tp_test_run_yaml(const char *yaml)
{
    tp_diags d = {0};
    tp_pipeline *p = load_yaml(yaml, &d);
    if (p == NULL) {
        tp_diags_print(&d, stderr);
        ck_abort_msg("pipeline did not validate: %s", d.n ? d.lines[0] : "?");
    }
    tp_diags_free(&d);
    tp_run_opts opts = {.verbosity = 0};
    tp_run *run = NULL;
    int rc = tp_pipeline_run(p, &opts, &run);
    if (rc != TP_OK)
        ck_abort_msg("pipeline failed: %s", run ? tp_run_error(run) : "?");
    /* the pipeline must outlive the run's results only while the run is
     * inspected; results own their data, so it can go now */
    tp_pipeline_free(p);
    return run;
}

int tp_test_run_yaml_fails(const char *yaml, char *msg, size_t msg_size)
{
    tp_diags d = {0};
    tp_pipeline *p = load_yaml(yaml, &d);
    if (p == NULL) {
        if (msg)
            snprintf(msg, msg_size, "%s", d.n ? d.lines[0] : "");
        tp_diags_free(&d);
        return TP_EXIT_USAGE;
    }
    tp_diags_free(&d);
    /* the failure is expected: keep its message out of the test log */
    FILE *devnull = fopen("/dev/null", "w");
    tp_run_opts opts = {.verbosity = 0, .log = devnull};
    tp_run *run = NULL;
    int rc = tp_pipeline_run(p, &opts, &run);
    if (devnull)
        fclose(devnull);
    if (msg)
        snprintf(msg, msg_size, "%s", run ? tp_run_error(run) : "");
    tp_run_free(run);
    tp_pipeline_free(p);
    return rc == TP_OK ? TP_EXIT_OK : TP_EXIT_FAIL;
}

int tp_test_run_logged(const char *yaml, tp_run **out, char **log)
{
    tp_diags d = {0};
    tp_pipeline *p = load_yaml(yaml, &d);
    if (p == NULL)
        ck_abort_msg("pipeline did not validate: %s", d.n ? d.lines[0] : "?");
    tp_diags_free(&d);
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    tp_run_opts o = {.verbosity = 2, .progress = 0, .log = f};
    int rc = tp_pipeline_run(p, &o, out);
    long n = ftell(f);
    *log = calloc(1, (size_t)(n > 0 ? n : 0) + 1);
    rewind(f);
    if (n > 0)
        ck_assert_uint_eq(fread(*log, 1, (size_t)n, f), (size_t)n);
    fclose(f);
    tp_pipeline_free(p);
    return rc;
}

const tp_result *tp_test_result(tp_run *run, const char *id)
{
    const tp_result *r = tp_run_result(run, id);
    ck_assert_msg(r != NULL, "no result '%s'", id);
    return r;
}

static int column(const tp_result *r, const char *col)
{
    int c = tp_core_host_api()->result_find_col(r, col);
    ck_assert_msg(c >= 0, "result has no column '%s'", col);
    return c;
}

long tp_test_find_row(const tp_result *r, const char *col, const char *value,
                      const char *parent_name)
{
    const tp_host_api *h = tp_core_host_api();
    int c = column(r, col);
    int idc = h->result_find_col(r, "id"), pc = h->result_find_col(r, "parent_id");
    int namec = h->result_find_col(r, "name");
    size_t n = h->result_rows(r);
    for (size_t i = 0; i < n; i++) {
        const char *v = h->result_get_str(r, i, c);
        if (v == NULL || strcmp(v, value) != 0)
            continue;
        if (parent_name == NULL)
            return (long)i;
        if (idc < 0 || pc < 0 || namec < 0 || h->result_is_null(r, i, pc))
            continue;
        int64_t parent = h->result_get_i64(r, i, pc);
        for (size_t j = 0; j < n; j++) {
            if (h->result_get_i64(r, j, idc) != parent)
                continue;
            const char *pn = h->result_get_str(r, j, namec);
            if (pn && strcmp(pn, parent_name) == 0)
                return (long)i;
        }
    }
    return -1;
}

int64_t tp_test_i64(const tp_result *r, size_t row, const char *col)
{
    return tp_core_host_api()->result_get_i64(r, row, column(r, col));
}

double tp_test_f64(const tp_result *r, size_t row, const char *col)
{
    return tp_core_host_api()->result_get_f64(r, row, column(r, col));
}

const char *tp_test_str(const tp_result *r, size_t row, const char *col)
{
    return tp_core_host_api()->result_get_str(r, row, column(r, col));
}

char *tp_test_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    for (size_t got; buf && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            char *nb = realloc(buf, cap * 2 + 1);
            if (nb == NULL) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        if (len)
            *len = n;
    }
    return buf;
}

int main(void)
{
    if (n_suites == 0) {
        fprintf(stderr, "no test suites registered\n");
        return 1;
    }
    SRunner *sr = srunner_create(suites[0]());
    for (size_t i = 1; i < n_suites; i++)
        srunner_add_suite(sr, suites[i]());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
