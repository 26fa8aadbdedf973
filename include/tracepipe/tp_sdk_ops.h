/*
 * tracepipe SDK: which names are never an op (part of the SDK; uses the
 * iterations, so a plugin calling it links libpcre2-8 as tp_sdk_iter.h
 * says).  The op of an event (`op`, CONVENTIONS) is the outermost CPU op
 * above it below modules and steps (tp_outermost_op); this builds the memo
 * of those module and step names once.
 */
#ifndef TRACEPIPE_TP_SDK_OPS_H
#define TRACEPIPE_TP_SDK_OPS_H

#include <stddef.h>
#include <stdint.h>

#include "tp_plugin.h"
#include "tp_sdk_vocab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* memo[name] = 1 for the names that are never an op: those starting with
 * one of prefixes[0, n) (a stage's module_prefixes), or, when n is 0, with
 * one of the vocabulary's modules, and the pipeline's iteration markers on
 * the stage's trace.  2 for the others (tp_names_with_prefixes' memo; new,
 * tp_free it).  TP_OK, or a code (a failed iteration view fails the stage). */
int tp_op_names_memo(tp_stage *st, const tp_vocab *v, const char *const *prefixes, size_t n,
                     uint8_t **memo, size_t *nmemo);

#ifdef __cplusplus
}
#endif
#endif
