/* Core-internal: the plugin registry (tp_loader.c; its API is in
 * tp_core.h) and reader probes (tp_probe.c). */
#ifndef TRACEPIPE_TP_LOADER_H
#define TRACEPIPE_TP_LOADER_H

#include "tp_core.h"

const char *tp_stage_kind_name(tp_stage_kind kind);
/* The reader whose probe is surest of the head of the file (up to 256
 * KiB), or NULL with errno set when the file cannot be read (0 when no
 * reader knows it). */
const tp_stage_desc *tp_probe_reader(tp_ctx *ctx, const char *path);

#endif
