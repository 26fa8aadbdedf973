/*
 * libFuzzer target: the YAML pipeline loader (parsing, variables, stage
 * lookup, option validation) on arbitrary bytes.  Nothing is run.
 *
 * Inputs naming `plugin_path` are ignored: the loader would dlopen every
 * library of whatever directory the fuzzer spells, which tests dlopen, not
 * the loader.  One --set override exercises the vars: path.
 */
#include <stdint.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char needle[] = "plugin_path";
    if (memmem(data, size, needle, sizeof needle - 1))
        return 0;
    tp_ctx *ctx = fuzz_ctx();
    tp_var set = {"trace", "tests/data/kineto/basic.json"};
    tp_diags d = {0};
    tp_pipeline *p = tp_pipeline_load_string(ctx, (const char *)data, size, "<fuzz>", &set,
                                             size & 1, &d);
    if (p) {
        (void)tp_pipeline_name(p);
        (void)tp_pipeline_stage_count(p);
        tp_pipeline_free(p);
    }
    tp_diags_free(&d);
    return 0;
}
