/*
 * Shared set-up of the libFuzzer targets: one plugin registry per process,
 * loaded from $TP_BUILD/plugins (default build/fuzz/plugins), and a log
 * stream that swallows the runs' messages.
 */
#ifndef TP_FUZZ_COMMON_H
#define TP_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>

#include "tp_core.h"

static inline tp_ctx *fuzz_ctx(void)
{
    static tp_ctx *ctx;
    if (ctx)
        return ctx;
    const char *b = getenv("TP_BUILD");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/plugins", b && *b ? b : "build/fuzz");
    ctx = tp_ctx_new();
    tp_diags d = {0};
    if (!ctx || tp_ctx_add_dir(ctx, dir) != 0 || tp_ctx_load_all(ctx, &d) < 0 ||
        !tp_ctx_find_stage(ctx, TP_STAGE_READER, "kineto", NULL)) {
        tp_diags_print(&d, stderr);
        fprintf(stderr, "fuzz: no kineto reader in %s (set TP_BUILD)\n", dir);
        abort();
    }
    tp_diags_free(&d);
    return ctx;
}

static inline FILE *fuzz_devnull(void)
{
    static FILE *f;
    if (!f && !(f = fopen("/dev/null", "w")))
        abort();
    return f;
}

#endif
