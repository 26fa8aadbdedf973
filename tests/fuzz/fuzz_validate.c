/*
 * libFuzzer target: what `pipeline validate` does, on arbitrary bytes, with
 * a registry loaded from plugin directories (as --plugin-dir) and --set
 * values taken from the input:
 *
 *   NAME=VALUE        zero to eight lines of overrides, then a line "%%",
 *   ...               then the pipeline YAML (without a "%%" line the
 *   %%                whole input is YAML and nothing is set)
 *   stages: ...
 *
 * The registry refuses the pipeline's own plugin_path: (as validate does
 * without --allow-plugin-path), so inputs naming it are kept: its variables,
 * shape checks and the warning run, and no directory the fuzzer spells is
 * ever opened.  Diagnostics are printed (to /dev/null) through the escaping
 * of core/tp_diag.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

#define MAX_SETS 8

/* Splits "NAME=VALUE" lines off the front of buf (NUL-terminated, edited
 * in place); returns the YAML that follows, or buf when there is no "%%". */
static char *split_sets(char *buf, tp_var *sets, size_t *n_sets)
{
    *n_sets = 0;
    char *mark = strstr(buf, "%%\n");
    if (mark == NULL || (mark != buf && mark[-1] != '\n'))
        return buf;
    *mark = '\0';
    char *yaml = mark + 3;
    for (char *line = buf, *next; line && *line && *n_sets < MAX_SETS; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        char *eq = strchr(line, '=');
        if (eq == NULL || eq == line)
            continue; /* main.c refuses these before loading anything */
        *eq = '\0';
        sets[(*n_sets)++] = (tp_var){line, eq + 1};
    }
    return yaml;
}

static tp_ctx *validate_ctx(void)
{
    static tp_ctx *ctx;
    if (ctx == NULL) {
        ctx = fuzz_ctx();
        tp_ctx_set_pipeline_plugin_path(ctx, false);
    }
    return ctx;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *buf = malloc(size + 1);
    if (buf == NULL)
        return 0;
    memcpy(buf, data, size);
    buf[size] = '\0';
    tp_var sets[MAX_SETS];
    size_t n_sets;
    char *yaml = split_sets(buf, sets, &n_sets);
    size_t yaml_len = size - (size_t)(yaml - buf); /* the YAML keeps any NUL bytes */
    tp_diags d = {0};
    tp_pipeline *p = tp_pipeline_load_string(validate_ctx(), yaml, yaml_len, "fuzz.yaml", sets,
                                             n_sets, &d);
    tp_diags_print(&d, fuzz_devnull());
    if (p) {
        fprintf(fuzz_devnull(), "%s: ok (%zu stages)\n", tp_pipeline_name(p),
                tp_pipeline_stage_count(p));
        tp_pipeline_free(p);
    }
    tp_diags_free(&d);
    free(buf);
    return 0;
}
