/* Hand-made Kineto traces read through the real pipeline (sdk_kineto.h). */
#include "sdk_kineto.h"

#include "tp_test.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void kineto_run_open(kineto_run *f, const char *json, const char *top, const char *stages)
{
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "/tmp/tp_kineto_XXXXXX");
    int fd = mkstemp(f->path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, json, strlen(json)), (ssize_t)strlen(json));
    close(fd);
    char yaml[1024];
    int len = snprintf(yaml, sizeof yaml, "%sstages:\n  - reader: kineto\n    path: %s\n%s",
                       top, f->path, stages);
    ck_assert(len > 0 && (size_t)len < sizeof yaml);
    tp_diags d = {0};
    f->ctx = tp_test_ctx();
    f->p = tp_pipeline_load_string(f->ctx, yaml, (size_t)len, "p.yaml", NULL, 0, &d);
    ck_assert_msg(f->p != NULL, "%s", d.n ? d.lines[0] : "");
    tp_diags_free(&d);
    tp_run_opts o = {.verbosity = 0};
    ck_assert_int_eq(tp_pipeline_run(f->p, &o, &f->run), TP_OK);
    f->st.run = f->run;
    f->st.id = "probe";
    f->st.trace = f->run->traces[f->run->latest].trace;
    tp_host = tp_core_host_api();
    f->c = tp_host->trace_cols(f->st.trace);
}

void kineto_run_close(kineto_run *f)
{
    tp_run_free(f->run);
    tp_pipeline_free(f->p);
    tp_ctx_free(f->ctx);
    unlink(f->path);
}
