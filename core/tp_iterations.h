/* Core-internal: the pipeline's iterations (top-level `iterations:`),
 * validated once at load and handed to plugins as tp_iter_settings. */
#ifndef TRACEPIPE_TP_ITERATIONS_H
#define TRACEPIPE_TP_ITERATIONS_H

#include "tp_options.h"
#include "tp_run.h"
#include "tp_yaml.h"

typedef struct tp_iter_config {
    tp_iter_settings pub; /* what plugins see; marker points into opts */
    void *opts;           /* the validated option block (tp_options_build) */
} tp_iter_config;

/* Fills c from the `iterations:` node (NULL: defaults).  Every problem goes
 * to d with its place; returns TP_EINVAL then, TP_ENOMEM, or TP_OK. */
int tp_iter_config_load(tp_iter_config *c, const tp_ynode *node, const char *file, tp_diags *d);
void tp_iter_config_free(tp_iter_config *c);
/* A deep copy (batch pipelines).  TP_OK or TP_ENOMEM. */
int tp_iter_config_clone(tp_iter_config *dst, const tp_iter_config *src);

/* host_api.iterations */
const tp_iter_settings *tp_host_iterations(tp_stage *st);

/* The option table of `iterations:` (for `pipeline describe iterations`
 * and the docs). */
const tp_option *tp_iter_config_options(void);

#endif
