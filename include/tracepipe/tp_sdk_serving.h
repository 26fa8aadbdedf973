/*
 * tracepipe SDK: LLM serving steps, the one table of the step annotations
 * inference engines write (the `inference_steps` analysis and the pipeline's
 * `iterations: preset:` read it; docs/plugins/inference_steps.md lists it).
 *
 * A preset is an engine's annotations as regexes (Python syntax, searched,
 * tp_sdk_regex.h) with named captures, and one marker regex without any
 * capture group that names the same events (for `iterations: preset`).
 * The named captures a pattern may use:
 *
 *   phase          a phase word (tp_serving_phase_of): prefill / extend /
 *                  context, decode / generation, mixed
 *   bs             requests in the step
 *   toks           tokens processed in the step
 *   padded         the size the step ran at (a CUDA graph's batch)
 *   prefill_bs, prefill_toks, decode_bs, decode_toks
 *                  requests and tokens per phase (vLLM's context and
 *                  generation counts): bs and toks are their sums, the
 *                  phase the one with requests (mixed with both)
 *
 * Plain data and functions, no PCRE2 (the core reads the markers).
 */
#ifndef TRACEPIPE_TP_SDK_SERVING_H
#define TRACEPIPE_TP_SDK_SERVING_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum tp_serving_phase {
    TP_SERVING_NONE = 0, /* not said */
    TP_SERVING_PREFILL,
    TP_SERVING_DECODE,
    TP_SERVING_MIXED
} tp_serving_phase;

typedef struct tp_serving_preset {
    const char *name;            /* "vllm", "sglang", "phases" */
    const char *marker;          /* one regex, no capture group: the preset's step annotations */
    const char *const *patterns; /* NULL-terminated regexes with the named captures above */
    const char *what;            /* one line: the engine and its forms */
} tp_serving_preset;

/* The presets in order (vllm, sglang, phases); i past the last: NULL. */
const tp_serving_preset *tp_serving_preset_at(size_t i);

/* The preset of that name, or NULL. */
const tp_serving_preset *tp_serving_preset_find(const char *name);

/* The phase a word names, ASCII case ignored: prefill, extend, context ->
 * PREFILL; decode, generation -> DECODE; mixed -> MIXED; else NONE. */
tp_serving_phase tp_serving_phase_of(const char *word, size_t len);

/* "prefill", "decode", "mixed"; NULL for TP_SERVING_NONE. */
const char *tp_serving_phase_name(tp_serving_phase p);

/* The phase of a step from its requests per phase (-1: not said): both
 * phases with requests: MIXED; one: that one; else NONE. */
tp_serving_phase tp_serving_phase_from_counts(int64_t prefill_bs, int64_t decode_bs);

#ifdef __cplusplus
}
#endif
#endif
