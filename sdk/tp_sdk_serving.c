/*
 * LLM serving steps: the engines' step annotations (tp_sdk_serving.h).
 *
 * vLLM: GPUWorker.annotate_profile writes one annotation per step,
 *   execute_context_<ctx reqs>(<ctx tokens>)_generation_<gen reqs>(<gen tokens>),
 *   and, with TraceLens's detailed annotation patch,
 *   execute_<tokens>_context_<reqs>(sq<tokens>sk..sqsq..sqsk..)_generation_<reqs>(sq<tokens>...).
 * SGLang: ModelRunner's span per forward, step[EXTEND bs=<reqs> toks=<tokens>]
 *   or step[<MODE> bs=<reqs>] (DECODE, MIXED; TraceLens's patch appends
 *   c_sq=.. g_sq=.. fields).
 * Phase annotations (ATOM and engines alike): prefill[bs=2 tok=14721 ...],
 *   decode[bs=117/128 tok=117 ...] (117 requests in a graph of 128), and the
 *   graph captures capture_<bs>_<word> (capture_256_mixed_prefill: mixed;
 *   vLLM's capture_32_FULL names a graph mode, no phase; SGLang's
 *   capture_32_DECODE).
 */
#include <tracepipe/tp_sdk_serving.h>

#include <string.h>
#include <strings.h>

static const char *const vllm_patterns[] = {
    "^execute_(?:\\d+_)?context_(?P<prefill_bs>\\d+)\\((?:sq)?(?P<prefill_toks>\\d+)[^)]*\\)"
    "_generation_(?P<decode_bs>\\d+)\\((?:sq)?(?P<decode_toks>\\d+)[^)]*\\)",
    NULL};

static const char *const sglang_patterns[] = {
    "^step\\[(?P<phase>EXTEND|DECODE|MIXED)\\s+bs=(?P<bs>\\d+)(?:\\s+toks=(?P<toks>\\d+))?", NULL};

static const char *const phase_patterns[] = {
    "^(?P<phase>prefill|decode|mixed)\\[bs=(?P<bs>\\d+)(?:/(?P<padded>\\d+))?"
    "(?:\\s+tok=(?P<toks>\\d+))?",
    "^capture_(?P<bs>(?P<padded>\\d+))_(?P<phase>[A-Za-z]+)", NULL};

static const tp_serving_preset presets[] = {
    {"vllm", "^execute_(?:\\d+_)?context_\\d+\\([^)]*\\)_generation_\\d+\\(", vllm_patterns,
     "vLLM: execute_context_N(tokens)_generation_M(tokens), and its detailed form "
     "execute_T_context_N(sq..)_generation_M(sq..)"},
    {"sglang", "^step\\[(?:EXTEND|DECODE|MIXED)\\s+bs=\\d+", sglang_patterns,
     "SGLang: step[EXTEND bs=N toks=T], step[DECODE bs=N], step[MIXED bs=N]"},
    {"phases", "^(?:prefill|decode|mixed)\\[bs=\\d+|^capture_\\d+_[A-Za-z]",
     phase_patterns,
     "phase annotations: prefill[bs=N tok=T ...], decode[bs=N/PADDED tok=T ...], graph "
     "captures capture_BS_PHASE (capture_32_FULL: a graph mode, no phase)"},
};

const tp_serving_preset *tp_serving_preset_at(size_t i)
{
    return i < sizeof presets / sizeof presets[0] ? &presets[i] : NULL;
}

const tp_serving_preset *tp_serving_preset_find(const char *name)
{
    for (size_t i = 0; name && tp_serving_preset_at(i); i++)
        if (strcmp(presets[i].name, name) == 0)
            return &presets[i];
    return NULL;
}

static int word_is(const char *word, size_t len, const char *w)
{
    return strlen(w) == len && strncasecmp(word, w, len) == 0;
}

tp_serving_phase tp_serving_phase_of(const char *word, size_t len)
{
    if (word_is(word, len, "prefill") || word_is(word, len, "extend") ||
        word_is(word, len, "context"))
        return TP_SERVING_PREFILL;
    if (word_is(word, len, "decode") || word_is(word, len, "generation"))
        return TP_SERVING_DECODE;
    if (word_is(word, len, "mixed"))
        return TP_SERVING_MIXED;
    return TP_SERVING_NONE;
}

const char *tp_serving_phase_name(tp_serving_phase p)
{
    switch (p) {
    case TP_SERVING_PREFILL:
        return "prefill";
    case TP_SERVING_DECODE:
        return "decode";
    case TP_SERVING_MIXED:
        return "mixed";
    case TP_SERVING_NONE:
        break;
    }
    return NULL;
}

tp_serving_phase tp_serving_phase_from_counts(int64_t prefill_bs, int64_t decode_bs)
{
    if (prefill_bs > 0 && decode_bs > 0)
        return TP_SERVING_MIXED;
    if (prefill_bs > 0)
        return TP_SERVING_PREFILL;
    if (decode_bs > 0)
        return TP_SERVING_DECODE;
    return TP_SERVING_NONE;
}
