/*
 * libFuzzer target body for one reader (FUZZ_READER, defined by the
 * including file): the input bytes go to a per-process temporary file with
 * the reader's usual suffix, read by `reader: FUZZ_READER` and consumed by
 * the analyses that need no PyTorch ids, through the core API exactly as
 * `pipeline run` drives them.  Errors are expected; crashes, leaks, hangs
 * and sanitizer reports are the findings.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"

static char trace_path[96];
static tp_pipeline *pipe_;

static void cleanup(void)
{
    if (trace_path[0])
        unlink(trace_path);
}

static void setup(void)
{
    tp_ctx *ctx = fuzz_ctx();
    snprintf(trace_path, sizeof trace_path, "/tmp/tp_fuzz_%s_%ld%s", FUZZ_READER, (long)getpid(),
             FUZZ_SUFFIX);
    atexit(cleanup);
    char yaml[1024];
    int n = snprintf(yaml, sizeof yaml,
                     "name: fuzz\n"
                     "stages:\n"
                     "  - reader: %s\n"
                     "    path: %s\n"
                     "  - analysis: trace_info\n"
                     "  - analysis: kernel_stats\n"
                     "  - analysis: streams\n"
                     "  - analysis: ranges\n" FUZZ_EXTRA_STAGES,
                     FUZZ_READER, trace_path);
    tp_diags d = {0};
    pipe_ = tp_pipeline_load_string(ctx, yaml, (size_t)n, "<fuzz>", NULL, 0, &d);
    if (!pipe_) {
        tp_diags_print(&d, stderr);
        abort();
    }
    tp_diags_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!pipe_)
        setup();
    FILE *f = fopen(trace_path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    tp_run_opts opts = {.log = fuzz_devnull()};
    tp_run *run = NULL;
    tp_pipeline_run(pipe_, &opts, &run);
    tp_run_free(run);
    return 0;
}
