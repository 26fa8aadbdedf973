/*
 * libFuzzer target: the kineto reader (plain and gzip input), followed by
 * the analyses that consume its trace, through the core API exactly as
 * `pipeline run` drives them.
 *
 * The input bytes go to a per-process temporary file that four prepared
 * pipelines read: on_error fail/skip x keep_args true/false, picked by the
 * input's length so no byte of the input is spent on the choice.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

static char trace_path[64];
static tp_pipeline *pipes[4];

static void cleanup(void)
{
    if (trace_path[0])
        unlink(trace_path);
}

static void setup(void)
{
    tp_ctx *ctx = fuzz_ctx();
    snprintf(trace_path, sizeof trace_path, "/tmp/tp_fuzz_kineto_%ld.json", (long)getpid());
    atexit(cleanup);
    for (int i = 0; i < 4; i++) {
        char yaml[1024];
        int n = snprintf(yaml, sizeof yaml,
                         "name: fuzz\n"
                         "stages:\n"
                         "  - reader: kineto\n"
                         "    path: %s\n"
                         "    on_error: %s\n"
                         "    keep_args: %s\n"
                         "  - analysis: hierarchy\n"
                         "  - analysis: host_breakdown\n"
                         "  - analysis: device_breakdown\n",
                         trace_path, (i & 1) ? "skip" : "fail", (i & 2) ? "true" : "false");
        tp_diags d = {0};
        pipes[i] = tp_pipeline_load_string(ctx, yaml, (size_t)n, "<fuzz>", NULL, 0, &d);
        if (!pipes[i]) {
            tp_diags_print(&d, stderr);
            abort();
        }
        tp_diags_free(&d);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!pipes[0])
        setup();
    FILE *f = fopen(trace_path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    tp_run_opts opts = {.log = fuzz_devnull()};
    tp_run *run = NULL;
    tp_pipeline_run(pipes[size & 3], &opts, &run);
    tp_run_free(run);
    return 0;
}
