/*
 * inference_steps: one row per serving step of an LLM engine (issue 26,
 * item 2), from the step annotations the engines write.
 *
 *   <id>.steps   iteration, name, start_us, phase, batch_size, tokens,
 *                padded_size, host_us, count, gpu_span_us, gpu_busy_us, wall_us
 *                (the step time: start to the later of the host's and the
 *                GPU's end), tokens_per_s, in_window;
 *   <id>.phases  per phase (prefill, decode, mixed, then all): count,
 *                requests, tokens, step time statistics, time per token,
 *                tokens per second, GPU busy time.
 *
 * Steps are host events whose name one of the patterns matches: the
 * stage's `patterns` first, then the built-in ones of the SDK
 * (tp_sdk_serving.h: vLLM, SGLang, phase annotations), the first matching
 * pattern of a name deciding.  They are counted as iterations are (the
 * SDK's tp_iterations_from_markers): on the thread holding the most, a step
 * annotation nested in another is part of it.  A step's GPU work is every
 * activity launched inside it (the hierarchy's launch links, so the kernels
 * a CUDA/HIP graph launch replays, which share its correlation id, are
 * there too), or starting inside it without a launch in the trace.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_iter.h>
#include <tracepipe/tp_sdk_regex.h>
#include <tracepipe/tp_sdk_serving.h>

typedef struct is_config {
    int preset; /* index in is_presets */
    tp_strlist patterns;
    int64_t skip_first, skip_last;
    int64_t decode_tokens;
} is_config;

static const char *const is_presets[] = {"all", "vllm", "sglang", "phases", "none", NULL};
enum { PRESET_ALL = 0, PRESET_NONE = 4 };

static const tp_option is_options[] = {
    TP_OPTION_ENUM("preset", is_config, preset, "all", is_presets,
                   "built-in step annotations: all (vllm, sglang, phases in that order), one "
                   "engine's, or none (only `patterns`)"),
    TP_OPTION_LIST("patterns", is_config, patterns,
                   "more step annotations, tried first: regexes (Python syntax, searched) with "
                   "named captures phase, bs, toks, padded, prefill_bs, prefill_toks, decode_bs, "
                   "decode_toks"),
    TP_OPTION_INT("skip_first", is_config, skip_first, "-1", -1, 1e9,
                  "steps left out of the per-phase statistics at the start (warm-up); not "
                  "given (-1): the pipeline's iterations: skip_first; 0 keeps them all"),
    TP_OPTION_INT("skip_last", is_config, skip_last, "-1", -1, 1e9,
                  "steps left out of the per-phase statistics at the end; not given (-1): the "
                  "pipeline's iterations: skip_last; 0 keeps them all"),
    TP_OPTION_INT("decode_tokens_per_request", is_config, decode_tokens, "1", 0, 1e6,
                  "tokens of a decode step that names only its requests (SGLang's "
                  "step[DECODE bs=N]): this many per request; 0: unknown (null)"),
    TP_OPTION_END};

#define IS_STEP_COLS(X, P)                                                                         \
    X(P, iteration, I64, NULL, "the step number: the digits after the name's last '#', else the "   \
                                "ordinal (0-based, in time order)")                                \
    X(P, name, STR, NULL, "the step annotation's name")                                            \
    X(P, start_us, F64, "us", "its start, from the start of the trace's window")                   \
    X(P, phase, STR, NULL, "prefill, decode or mixed (null when the annotation says no phase)")    \
    X(P, batch_size, I64, NULL, "requests in the step, as the annotation says")                    \
    X(P, tokens, I64, NULL, "tokens processed in the step, as the annotation says")                \
    X(P, padded_size, I64, NULL, "the size the step ran at (a graph's batch: padded_size - "       \
                                 "batch_size is padding), null when not said")                     \
    X(P, host_us, F64, "us", "the annotation's duration: the step's host time")                    \
    X(P, count, I64, "count", "GPU activities launched in the step (graph replays included)")      \
    X(P, gpu_span_us, F64, "us", "their first start to last end (null without GPU work)")          \
    X(P, gpu_busy_us, F64, "us", "union of their intervals (null without GPU work)")               \
    X(P, wall_us, F64, "us", "the step time: its start to the later of its end and its GPU "       \
                             "work's end")                                                         \
    X(P, tokens_per_s, F64, "tokens/s", "tokens / the step time (wall_us)")                        \
    X(P, in_window, I64, NULL, "1 when the step is in the steady-state window (skip_first, "       \
                               "skip_last), else 0")
TP_COLUMNS(is_step, IS_STEP_COLS);

#define IS_PHASE_COLS(X, P)                                                                        \
    X(P, phase, STR, NULL, "prefill, decode, mixed, or all (every step of the window)")            \
    X(P, count, I64, "count", "steps of the phase in the steady-state window")                     \
    X(P, requests, I64, "count", "their batch sizes summed")                                       \
    X(P, tokens, I64, "count", "their tokens summed (null when no step says)")                     \
    X(P, sum_us, F64, "us", "their step times (wall_us) summed")                                   \
    X(P, mean_us, F64, "us", "mean step time")                                                     \
    X(P, std_us, F64, "us", "its population deviation (null below two steps)")                     \
    X(P, p50_us, F64, "us", "median step time (numpy's percentiles)")                              \
    X(P, p90_us, F64, "us", "90th percentile")                                                     \
    X(P, p99_us, F64, "us", "99th percentile")                                                     \
    X(P, per_token_us, F64, "us", "step time per token: over the steps with tokens, their time / " \
                                  "their tokens")                                                  \
    X(P, tokens_per_s, F64, "tokens/s", "the inverse: their tokens / their time")                  \
    X(P, gpu_busy_us, F64, "us", "GPU busy time of the steps summed")
TP_COLUMNS(is_phase, IS_PHASE_COLS);

static const tp_result_decl is_results[] = {
    TP_RESULT("steps", "series", is_step, "one row per serving step: phase, batch, tokens, host "
                                          "and GPU time"),
    TP_RESULT("phases", "table", is_phase, "per phase: step count, step-time percentiles, time "
                                           "per token"),
    TP_RESULTS_END};

/* ------------------------------------------------------------ patterns */

enum { CAP_PHASE, CAP_BS, CAP_TOKS, CAP_PADDED, CAP_PBS, CAP_PTOKS, CAP_DBS, CAP_DTOKS, CAP_N };
static const char *const cap_names[CAP_N] = {"phase",      "bs",           "toks",
                                             "padded",     "prefill_bs",   "prefill_toks",
                                             "decode_bs",  "decode_toks"};

typedef struct is_pattern {
    pcre2_code *re;
    int group[CAP_N]; /* group number of each named capture, -1 when absent */
} is_pattern;

typedef struct is_state {
    is_pattern *pat;
    size_t n;
    uint32_t ovec; /* the most groups of any pattern, plus one */
} is_state;

static int add_pattern(tp_stage *st, is_state *s, const char *text, const char *where)
{
    int err;
    PCRE2_SIZE off;
    pcre2_code *re = tp_pyre_compile(text, 0, &err, &off);
    if (re == NULL) {
        char msg[160];
        tp_pyre_error_text(err, msg, sizeof msg);
        return tp_fail(st, TP_EINVAL, "%s: bad regex '%s': %s at offset %zu", where, text, msg,
                       (size_t)off);
    }
    tp_pyre_jit(re);
    is_pattern *p = &s->pat[s->n++];
    p->re = re;
    for (int k = 0; k < CAP_N; k++) {
        int g = pcre2_substring_number_from_name(re, (PCRE2_SPTR)cap_names[k]);
        p->group[k] = g > 0 ? g : -1;
    }
    uint32_t groups = 0;
    pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &groups);
    if (groups + 1 > s->ovec)
        s->ovec = groups + 1;
    return TP_OK;
}

/* The SDK presets the stage's `preset` selects: all of them, one, or none
 * (*n of them into out; NULL when the name is not the SDK's). */
static int chosen_presets(const is_config *cfg, const tp_serving_preset **out, size_t *n)
{
    *n = 0;
    if (cfg->preset == PRESET_ALL) {
        for (; *n < 8 && tp_serving_preset_at(*n); (*n)++)
            out[*n] = tp_serving_preset_at(*n);
        return TP_OK;
    }
    if (cfg->preset == PRESET_NONE)
        return TP_OK;
    out[0] = tp_serving_preset_find(is_presets[cfg->preset]);
    *n = 1;
    return out[0] ? TP_OK : TP_EINVAL;
}

/* Compiles the stage's patterns, then the presets'; a bad regex of
 * `patterns` is a configuration error at its line. */
static int is_init(tp_stage *st, const void *config, void **state)
{
    const is_config *cfg = config;
    const tp_serving_preset *pre[8];
    size_t npre, total = cfg->patterns.n;
    if (chosen_presets(cfg, pre, &npre) != TP_OK)
        return tp_fail(st, TP_EINVAL, "preset: '%s' is not a preset of the SDK",
                       is_presets[cfg->preset]);
    for (size_t i = 0; i < npre; i++)
        for (const char *const *q = pre[i]->patterns; *q; q++)
            total++;
    if (total == 0)
        return tp_fail(st, TP_EINVAL, "preset: none and no patterns: nothing names a step");
    is_state *s = tp_calloc(1, sizeof *s);
    if (s == NULL || (s->pat = tp_calloc(total, sizeof *s->pat)) == NULL) {
        tp_free(s);
        return tp_fail(st, TP_ENOMEM, "out of memory");
    }
    *state = s;
    s->ovec = 1;
    char where[64];
    for (size_t i = 0; i < cfg->patterns.n; i++) {
        snprintf(where, sizeof where, "patterns[%zu]", i);
        if (add_pattern(st, s, cfg->patterns.items[i], where) != TP_OK)
            return TP_EINVAL;
    }
    for (size_t i = 0; i < npre; i++)
        for (const char *const *q = pre[i]->patterns; *q; q++)
            if (add_pattern(st, s, *q, pre[i]->name) != TP_OK)
                return TP_EINVAL;
    return TP_OK;
}

static void is_destroy(tp_stage *st, void *state)
{
    (void)st;
    is_state *s = state;
    for (size_t i = 0; s && i < s->n; i++)
        pcre2_code_free(s->pat[i].re);
    if (s)
        tp_free(s->pat);
    tp_free(s);
}

/* ------------------------------------------------------------ one step */

typedef struct is_fields {
    tp_serving_phase phase;
    int64_t bs, toks, padded; /* -1: not said */
} is_fields;

/* The number a capture holds, -1 when it took no part or is not a number. */
static int64_t cap_number(const char *text, const PCRE2_SIZE *ov, int g)
{
    if (g < 0 || ov[2 * g] == PCRE2_UNSET || ov[2 * g + 1] <= ov[2 * g] ||
        ov[2 * g + 1] - ov[2 * g] > 18)
        return -1;
    int64_t v = 0;
    for (PCRE2_SIZE i = ov[2 * g]; i < ov[2 * g + 1]; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        v = v * 10 + (text[i] - '0');
    }
    return v;
}

static int64_t sum_said(int64_t a, int64_t b)
{
    return a < 0 && b < 0 ? -1 : (a > 0 ? a : 0) + (b > 0 ? b : 0);
}

/* The fields pattern p's match in text says (the header's rules). */
static void fields_of(const is_pattern *p, const char *text, const PCRE2_SIZE *ov,
                      int64_t decode_tokens, is_fields *f)
{
    int64_t n[CAP_N];
    for (int k = CAP_BS; k < CAP_N; k++)
        n[k] = cap_number(text, ov, p->group[k]);
    int g = p->group[CAP_PHASE];
    f->phase = g > 0 && ov[2 * g] != PCRE2_UNSET
                   ? tp_serving_phase_of(text + ov[2 * g], ov[2 * g + 1] - ov[2 * g])
                   : TP_SERVING_NONE;
    f->bs = n[CAP_BS] >= 0 ? n[CAP_BS] : sum_said(n[CAP_PBS], n[CAP_DBS]);
    f->toks = n[CAP_TOKS] >= 0 ? n[CAP_TOKS] : sum_said(n[CAP_PTOKS], n[CAP_DTOKS]);
    f->padded = n[CAP_PADDED];
    if (f->phase == TP_SERVING_NONE)
        f->phase = tp_serving_phase_from_counts(n[CAP_PBS], n[CAP_DBS]);
    if (f->toks < 0 && f->phase == TP_SERVING_DECODE && f->bs >= 0 && decode_tokens > 0)
        f->toks = f->bs * decode_tokens;
}

/* Which pattern matches name: its index, -1 for none, or the PCRE2 error
 * (< -1) when the engine gave up; with f, the fields it says. */
static int match_name(const is_state *s, const char *text, size_t len, pcre2_match_data *md,
                      int64_t decode_tokens, is_fields *f)
{
    for (size_t i = 0; i < s->n; i++) {
        int rc = tp_pyre_search(s->pat[i].re, text, len, md);
        if (rc < 0)
            return rc < -1 ? rc : -2;
        if (rc == 1) {
            if (f)
                fields_of(&s->pat[i], text, pcre2_get_ovector_pointer(md), decode_tokens, f);
            return (int)i;
        }
    }
    return -1;
}

/* ------------------------------------------------------------ the run */

typedef struct is_run {
    tp_stage *st;
    const is_config *cfg;
    const is_state *s;
    const tp_cols *c;
    pcre2_match_data *md;
    tp_iterations it;    /* the steps */
    int64_t *step;       /* it.n: their step numbers */
    tp_iter_view view;   /* when the steps are the pipeline's iterations: it and step are
                            its arrays (borrowed), row its row map */
    int viewed;
    is_fields *f;        /* it.n */
    size_t *off;         /* it.n + 1: each step's activities in iv[off[k], off[k + 1]) */
    tp_interval *iv;
    int64_t *busy, *lo, *hi; /* it.n each */
    size_t first, last;  /* the window */
    int64_t t0;
} is_run;

/* memo[name] = 1 for names a pattern matches, 2 for other host events'. */
static int mark_steps(is_run *r, uint8_t *memo)
{
    const tp_cols *c = r->c;
    for (size_t i = 0; i < c->n; i++) {
        tp_str name = c->name[i];
        if (memo[name] || !tp_ev_is_host(c, i))
            continue;
        int k = match_name(r->s, tp_str_text(r->st, name), tp_str_len(r->st, name), r->md, 0,
                           NULL);
        if (k < -1) {
            char msg[128];
            tp_pyre_error_text(k, msg, sizeof msg);
            return tp_fail(r->st, TP_EINVAL, "%s: event %zu: step patterns: %s",
                           tp_trace_source(tp_stage_trace(r->st)), i, msg);
        }
        memo[name] = k >= 0 ? 1 : 2;
    }
    return TP_OK;
}

/* The serving preset whose steps are the pipeline's iterations
 * (`iterations: preset:`), or NULL. */
static const char *pipeline_preset(tp_stage *st)
{
    const tp_iter_settings *s = tp_iterations_settings(st);
    if (s == NULL || !s->from_pipeline || s->source != TP_ITER_SOURCE_HOST || s->marker == NULL)
        return NULL;
    for (int i = PRESET_ALL + 1; i < PRESET_NONE; i++) {
        const tp_serving_preset *p = tp_serving_preset_find(is_presets[i]);
        if (p && p->marker && strcmp(p->marker, s->marker) == 0)
            return is_presets[i];
    }
    return NULL;
}

/* The steps are the pipeline's iterations when they are the same
 * annotations: `iterations: preset:` names an engine this stage's preset
 * covers (all, or that engine) and the stage adds no patterns of its own. */
static int steps_are_iterations(const is_run *r)
{
    const char *p = pipeline_preset(r->st);
    if (p == NULL || r->cfg->patterns.n > 0)
        return 0;
    return r->cfg->preset == PRESET_ALL || strcmp(is_presets[r->cfg->preset], p) == 0;
}

/* The pipeline's iterations (computed once per trace, tp_iter_view_get)
 * as this stage's steps, with their step numbers and the row map (each
 * row's iteration, published once for every stage). */
static int steps_from_iterations(is_run *r, tp_trace *t)
{
    int rc = tp_iter_view_get(r->st, t, NULL, &r->view);
    if (rc != TP_OK)
        return rc;
    r->viewed = 1;
    r->it = tp_iter_as_iterations(&r->view);
    r->step = r->view.step;
    return tp_iter_view_rows(r->st, t, &r->view);
}

/* The steps by the stage's own patterns. */
static int steps_from_patterns(is_run *r)
{
    size_t nstr = tp_str_count(r->st);
    uint8_t *memo = tp_calloc(nstr ? nstr : 1, 1);
    if (memo == NULL)
        return TP_ENOMEM;
    int rc = mark_steps(r, memo);
    if (rc == TP_OK)
        rc = tp_iterations_from_markers(r->st, r->c, memo, nstr, TP_NEST_CLAMP_NS, &r->it);
    tp_free(memo);
    return rc;
}

static int find_steps(is_run *r, tp_trace *t)
{
    int same = steps_are_iterations(r);
    int rc = same ? steps_from_iterations(r, t) : steps_from_patterns(r);
    if (rc != TP_OK)
        return rc;
    if (same)
        tp_log(r->st, TP_LOG_INFO, "steps: the pipeline's iterations (iterations: preset: %s)",
               pipeline_preset(r->st));
    r->f = tp_calloc(r->it.n ? r->it.n : 1, sizeof *r->f);
    if (r->f == NULL || (!same && (r->step = tp_malloc((r->it.n ? r->it.n : 1) *
                                                       sizeof *r->step)) == NULL))
        return TP_ENOMEM;
    for (size_t k = 0; k < r->it.n; k++) {
        tp_str name = r->c->name[r->it.it[k].row];
        if (!same) /* the patterns' captures are batch and tokens, never the step */
            r->step[k] = tp_iter_step_of_name(tp_str_text(r->st, name), tp_str_len(r->st, name),
                                              (int64_t)k);
        match_name(r->s, tp_str_text(r->st, name), tp_str_len(r->st, name), r->md,
                   r->cfg->decode_tokens, &r->f[k]);
    }
    return TP_OK;
}

/* The step of each activity: that of its launch, else of its own start;
 * step[i] for activities, -1 for other rows (the pipeline's row map, else
 * one binary search each). */
static void steps_of(const is_run *r, const int32_t *launcher, int32_t *step)
{
    const tp_cols *c = r->c;
    const int32_t *row = r->viewed ? r->view.row : NULL;
    for (size_t i = 0; i < c->n; i++) {
        size_t at = launcher[i] >= 0 ? (size_t)launcher[i] : i;
        step[i] = !tp_ev_is_activity(c, i) ? -1
                  : row                    ? row[at]
                                           : tp_iteration_of(&r->it, c->ts[at]);
    }
}

/* First start, last end and busy time (union) of step k's activities,
 * iv[off[k], off[k + 1]) (sorted and merged in place). */
static void measure(is_run *r, size_t k)
{
    tp_interval *v = r->iv + r->off[k];
    size_t m = r->off[k + 1] - r->off[k];
    r->lo[k] = INT64_MAX;
    r->hi[k] = INT64_MIN;
    for (size_t j = 0; j < m; j++) {
        r->lo[k] = v[j].start < r->lo[k] ? v[j].start : r->lo[k];
        r->hi[k] = v[j].end > r->hi[k] ? v[j].end : r->hi[k];
    }
    r->busy[k] = tp_intervals_length(v, tp_intervals_union(v, m));
}

/* Groups the GPU activities by step and measures each step's work. */
static int gpu_work(is_run *r, const int32_t *launcher)
{
    const tp_cols *c = r->c;
    size_t n = r->it.n;
    r->off = tp_calloc(n + 2, sizeof *r->off);
    r->busy = tp_calloc(n + 1, sizeof *r->busy);
    r->lo = tp_calloc(n + 1, sizeof *r->lo);
    r->hi = tp_calloc(n + 1, sizeof *r->hi);
    int32_t *step = tp_malloc((c->n ? c->n : 1) * sizeof *step);
    if (!r->off || !r->busy || !r->lo || !r->hi || !step) {
        tp_free(step);
        return TP_ENOMEM;
    }
    steps_of(r, launcher, step);
    for (size_t i = 0; i < c->n; i++)
        if (step[i] >= 0)
            r->off[step[i] + 2]++;
    for (size_t k = 2; k < n + 2; k++)
        r->off[k] += r->off[k - 1];
    r->iv = tp_malloc((r->off[n + 1] ? r->off[n + 1] : 1) * sizeof *r->iv);
    for (size_t i = 0; r->iv && i < c->n; i++)
        if (step[i] >= 0)
            r->iv[r->off[step[i] + 1]++] = (tp_interval){c->ts[i], c->ts[i] + c->dur[i]};
    tp_free(step);
    if (r->iv == NULL)
        return TP_ENOMEM;
    for (size_t k = 0; k < n; k++) /* off[k + 1] is now the end of step k */
        measure(r, k);
    return TP_OK;
}

static double us(int64_t ns) { return (double)ns / 1000.0; }

static int64_t host_ns(const is_run *r, size_t k) { return r->it.it[k].end - r->it.it[k].start; }

/* The step time: its start to the later of its end and its GPU work's. */
static int64_t wall_ns(const is_run *r, size_t k)
{
    int64_t end = r->it.it[k].end;
    if (r->off[k + 1] > r->off[k] && r->hi[k] > end)
        end = r->hi[k];
    return end - r->it.it[k].start;
}

static int set_count(tp_stage *st, tp_result *res, size_t row, int col, int64_t v)
{
    return v < 0 ? TP_OK : tp_result_set_i64(st, res, row, col, v);
}

static int step_row(is_run *r, tp_result *res, size_t k)
{
    tp_stage *st = r->st;
    const is_fields *f = &r->f[k];
    size_t row, acts = r->off[k + 1] - r->off[k];
    const char *phase = tp_serving_phase_name(f->phase);
    int rc = tp_result_add_row(st, res, &row);
    rc = rc ? rc : tp_result_set_i64(st, res, row, is_step_iteration, r->step[k]);
    rc = rc ? rc
            : tp_result_set_str(st, res, row, is_step_name,
                                tp_str_text(st, r->c->name[r->it.it[k].row]));
    rc = rc ? rc : tp_result_set_f64(st, res, row, is_step_start_us, us(r->it.it[k].start - r->t0));
    rc = rc || !phase ? rc : tp_result_set_str(st, res, row, is_step_phase, phase);
    rc = rc ? rc : set_count(st, res, row, is_step_batch_size, f->bs);
    rc = rc ? rc : set_count(st, res, row, is_step_tokens, f->toks);
    rc = rc ? rc : set_count(st, res, row, is_step_padded_size, f->padded);
    rc = rc ? rc : tp_result_set_f64(st, res, row, is_step_host_us, us(host_ns(r, k)));
    rc = rc ? rc : tp_result_set_i64(st, res, row, is_step_count, (int64_t)acts);
    if (rc == TP_OK && acts > 0) {
        rc = tp_result_set_f64(st, res, row, is_step_gpu_span_us, us(r->hi[k] - r->lo[k]));
        rc = rc ? rc : tp_result_set_f64(st, res, row, is_step_gpu_busy_us, us(r->busy[k]));
    }
    rc = rc ? rc : tp_result_set_f64(st, res, row, is_step_wall_us, us(wall_ns(r, k)));
    if (rc == TP_OK && f->toks >= 0 && wall_ns(r, k) > 0)
        rc = tp_result_set_f64(st, res, row, is_step_tokens_per_s,
                               (double)f->toks * 1e9 / (double)wall_ns(r, k));
    return rc ? rc
              : tp_result_set_i64(st, res, row, is_step_in_window, k >= r->first && k < r->last);
}

/* One phase's row over the window's steps of that phase (NONE: all). */
static int phase_row(is_run *r, tp_result *res, tp_serving_phase p, double *v)
{
    tp_stage *st = r->st;
    size_t n = 0, ntok = 0;
    int64_t requests = 0, tokens = 0, tok_ns = 0, busy = 0;
    for (size_t k = r->first; k < r->last; k++) {
        if (p != TP_SERVING_NONE && r->f[k].phase != p)
            continue;
        v[n++] = us(wall_ns(r, k));
        requests += r->f[k].bs > 0 ? r->f[k].bs : 0;
        busy += r->busy[k];
        if (r->f[k].toks >= 0) {
            ntok++;
            tokens += r->f[k].toks;
            tok_ns += wall_ns(r, k);
        }
    }
    if (n == 0)
        return TP_OK;
    tp_stats s;
    size_t row;
    int rc = tp_stats_of(v, n, &s);
    rc = rc ? rc : tp_result_add_row(st, res, &row);
    const char *name = p == TP_SERVING_NONE ? "all" : tp_serving_phase_name(p);
    rc = rc ? rc : tp_result_set_str(st, res, row, is_phase_phase, name);
    rc = rc ? rc : tp_result_set_i64(st, res, row, is_phase_count, (int64_t)n);
    rc = rc ? rc : tp_result_set_i64(st, res, row, is_phase_requests, requests);
    rc = rc || ntok == 0 ? rc : tp_result_set_i64(st, res, row, is_phase_tokens, tokens);
    const double cells[][2] = {{is_phase_sum_us, s.sum}, {is_phase_mean_us, s.mean},
                               {is_phase_std_us, s.std}, {is_phase_p50_us, s.p50},
                               {is_phase_p90_us, s.p90}, {is_phase_p99_us, s.p99},
                               {is_phase_gpu_busy_us, us(busy)}};
    for (size_t i = 0; rc == TP_OK && i < sizeof cells / sizeof cells[0]; i++)
        if (!isnan(cells[i][1]))
            rc = tp_result_set_f64(st, res, row, (int)cells[i][0], cells[i][1]);
    if (rc == TP_OK && tokens > 0 && tok_ns > 0) {
        rc = tp_result_set_f64(st, res, row, is_phase_per_token_us, us(tok_ns) / (double)tokens);
        rc = rc ? rc
                : tp_result_set_f64(st, res, row, is_phase_tokens_per_s,
                                    (double)tokens * 1e9 / (double)tok_ns);
    }
    return rc;
}

static int write_results(is_run *r)
{
    tp_result *steps = tp_result_declared(r->st, "steps");
    tp_result *phases = steps ? tp_result_declared(r->st, "phases") : NULL;
    double *v = tp_malloc((r->it.n ? r->it.n : 1) * sizeof *v);
    int rc = phases && v ? TP_OK : TP_ENOMEM;
    if (rc == TP_OK) {
        tp_result_set_meta(r->st, steps, "title", "Serving steps");
        tp_result_set_meta(r->st, phases, "title", "Serving steps per phase");
    }
    for (size_t k = 0; rc == TP_OK && k < r->it.n; k++)
        rc = step_row(r, steps, k);
    static const tp_serving_phase order[] = {TP_SERVING_PREFILL, TP_SERVING_DECODE,
                                             TP_SERVING_MIXED, TP_SERVING_NONE};
    for (size_t i = 0; rc == TP_OK && i < sizeof order / sizeof order[0]; i++)
        rc = phase_row(r, phases, order[i], v);
    tp_free(v);
    return rc;
}

/* The steady-state window: the stage's skips when given (0 included), else
 * the pipeline's (top-level iterations: skip_first / skip_last). */
static void set_window(is_run *r)
{
    const tp_iter_settings *s = tp_iterations_settings(r->st);
    uint64_t first = r->cfg->skip_first >= 0 ? (uint64_t)r->cfg->skip_first : s->skip_first;
    uint64_t last = r->cfg->skip_last >= 0 ? (uint64_t)r->cfg->skip_last : s->skip_last;
    size_t n = r->it.n;
    r->first = first < n ? (size_t)first : n;
    r->last = n - r->first > last ? n - (size_t)last : r->first;
}

static void run_free(is_run *r)
{
    if (r->viewed) {
        tp_iter_view_release(&r->view);
    } else {
        tp_iterations_free(&r->it);
        tp_free(r->step);
    }
    tp_free(r->f);
    tp_free(r->off);
    tp_free(r->iv);
    tp_free(r->busy);
    tp_free(r->lo);
    tp_free(r->hi);
    pcre2_match_data_free(r->md);
}

static int is_run_stage(tp_stage *st, const void *config, void *state)
{
    tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    tp_hier_view v;
    if (tp_hier_view_require(st, t, &v) != TP_OK)
        return TP_ENOTFOUND;
    const is_state *s = state;
    is_run r = {.st = st, .cfg = config, .s = s, .c = tp_trace_cols(t)};
    int64_t t1;
    tp_trace_window(t, &r.t0, &t1);
    r.md = pcre2_match_data_create(s->ovec, NULL);
    int rc = r.md ? find_steps(&r, t) : TP_ENOMEM;
    if (rc == TP_OK && r.it.n == 0)
        tp_log(st, TP_LOG_WARN, "no serving steps: no host event matches the step patterns "
                                "(docs/plugins/inference_steps.md)");
    if (rc == TP_OK)
        rc = gpu_work(&r, v.launcher);
    if (rc == TP_OK) {
        set_window(&r);
        rc = write_results(&r);
    }
    run_free(&r);
    return rc == TP_ENOMEM ? tp_fail(st, rc, "out of memory") : rc;
}

static const tp_stage_desc is_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "inference_steps",
                  "one row per serving step (vLLM, SGLang, phase annotations): phase, batch, "
                  "tokens, host and GPU time; per phase: step-time percentiles, time per token",
                  is_options, is_config, "hierarchy", is_results, NULL, 0, is_init, is_run_stage,
                  is_destroy),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("inference_steps", "0.1.0", is_stages);
