/* Core-internal: the pipeline's vocabulary additions (top-level
 * `vocabulary:`), validated once at load and handed to plugins as
 * tp_vocab_settings; the SDK merges them into its tables (tp_sdk_vocab.h). */
#ifndef TRACEPIPE_TP_VOCABULARY_H
#define TRACEPIPE_TP_VOCABULARY_H

#include "tp_options.h"
#include "tp_run.h"
#include "tp_yaml.h"

typedef struct tp_vocab_config {
    tp_vocab_settings pub; /* what plugins see; the lists point into opts */
    void *opts;            /* the validated option block (tp_options_build) */
} tp_vocab_config;

/* Fills c from the `vocabulary:` node (NULL: no additions).  Every problem
 * goes to d with its place; returns TP_EINVAL then, TP_ENOMEM, or TP_OK. */
int tp_vocab_config_load(tp_vocab_config *c, const tp_ynode *node, const char *file, tp_diags *d);
void tp_vocab_config_free(tp_vocab_config *c);
/* A deep copy (batch pipelines).  TP_OK or TP_ENOMEM. */
int tp_vocab_config_clone(tp_vocab_config *dst, const tp_vocab_config *src);

/* host_api.vocabulary */
const tp_vocab_settings *tp_host_vocabulary(tp_stage *st);

#endif
