/*
 * Example third-party analysis built against the installed SDK alone
 * (docs/plugins.md, section 5): per iteration, the kernels launched in it
 * whose name an optional `include` regex matches (Python syntax: the SDK's
 * tp_sdk_regex.h) and their total time.  The iterations are the pipeline's
 * (top-level `iterations:`), read through the SDK's iteration view; the
 * result's columns are declared, so `pipeline describe step_kernels` shows
 * them and cells are written through the constants TP_COLUMNS makes.
 *
 *   cc -std=c11 -shared -fPIC -fvisibility=hidden -Wl,--no-undefined \
 *      $(pkg-config --cflags tracepipe) -o step_kernels.so step_kernels.c \
 *      $(pkg-config --libs tracepipe)
 */
#include <stdlib.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_iter.h>
#include <tracepipe/tp_sdk_regex.h>

typedef struct sk_config {
    const char *include;
} sk_config;

static const tp_option sk_options[] = {
    TP_OPTION_STRING("include", sk_config, include, NULL,
                     "regex (Python syntax, searched) naming the kernels counted; default all"),
    TP_OPTION_END};

#define SK_COLS(X, P)                                                                       \
    X(P, iteration, I64, NULL, "the step number (the SDK view's)")                         \
    X(P, start_us, F64, "us", "the iteration's start, from the first iteration's")          \
    X(P, kernels, I64, "count", "kernels launched in the iteration that include matches") \
    X(P, kernel_us, F64, "us", "their summed duration")
TP_COLUMNS(sk_main, SK_COLS);

static const tp_result_decl sk_results[] = {
    TP_RESULT("", "series", sk_main, "one row per iteration: the kernels launched in it"),
    TP_RESULTS_END};

/* marked[name] = 1 when include matches the kernel name (or there is none). */
static int mark_names(tp_stage *st, const sk_config *cfg, const tp_cols *c, uint8_t *marked)
{
    int err;
    PCRE2_SIZE off;
    pcre2_code *re = cfg->include ? tp_pyre_compile(cfg->include, 0, &err, &off) : NULL;
    if (cfg->include && re == NULL)
        return tp_fail(st, TP_EINVAL, "include: bad regex '%s' at offset %zu", cfg->include,
                       (size_t)off);
    pcre2_match_data *md = re ? pcre2_match_data_create_from_pattern(re, NULL) : NULL;
    for (size_t i = 0; i < c->n; i++) {
        tp_str name = c->name[i];
        if (c->kind[i] != TP_KIND_KERNEL || marked[name])
            continue;
        marked[name] = re == NULL || tp_pyre_search(re, tp_str_text(st, name),
                                                    tp_str_len(st, name), md) == 1 ? 1 : 2;
    }
    pcre2_match_data_free(md);
    pcre2_code_free(re);
    return TP_OK;
}

static int sk_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader first");
    const tp_cols *c = tp_trace_cols(t);
    tp_iter_view steps;
    int rc = tp_iter_view_get(st, t, NULL, &steps); /* the pipeline's iterations */
    rc = rc ? rc : tp_iter_view_rows(st, t, &steps); /* and each row's */
    if (rc != TP_OK) {
        tp_iter_view_release(&steps);
        return rc;
    }
    size_t n = c->n ? c->n : 1, nstr = tp_str_count(st);
    int32_t *launcher = tp_malloc(n * sizeof *launcher);
    uint8_t *marked = tp_calloc(nstr ? nstr : 1, 1);
    int64_t *count = tp_calloc(steps.n + 1, sizeof *count), *sum = tp_calloc(steps.n + 1, 8);
    if (!launcher || !marked || !count || !sum ||
        tp_link_launches(c, NULL, NULL, launcher, NULL) != TP_OK)
        rc = TP_ENOMEM;
    rc = rc ? rc : mark_names(st, config, c, marked);
    for (size_t i = 0; rc == TP_OK && i < c->n; i++) {
        if (c->kind[i] != TP_KIND_KERNEL || c->dur[i] < 0 || marked[c->name[i]] != 1)
            continue;
        /* a kernel belongs to the iteration of its launch (its own start without one) */
        int32_t k = steps.row[launcher[i] >= 0 ? (size_t)launcher[i] : i];
        if (k >= 0) {
            count[k]++;
            sum[k] += c->dur[i];
        }
    }
    tp_result *r = rc == TP_OK ? tp_result_declared(st, NULL) : NULL;
    for (size_t k = 0; r && rc == TP_OK && k < steps.n; k++) {
        size_t row;
        rc = tp_result_add_row(st, r, &row);
        rc = rc ? rc : tp_result_set_i64(st, r, row, sk_main_iteration, steps.step[k]);
        rc = rc ? rc : tp_result_set_f64(st, r, row, sk_main_start_us,
                                         (double)(steps.it[k].start - steps.it[0].start) / 1e3);
        rc = rc ? rc : tp_result_set_i64(st, r, row, sk_main_kernels, count[k]);
        rc = rc ? rc : tp_result_set_f64(st, r, row, sk_main_kernel_us, (double)sum[k] / 1e3);
    }
    if (rc == TP_OK && r == NULL)
        rc = TP_ENOMEM;
    tp_free(launcher);
    tp_free(marked);
    tp_free(count);
    tp_free(sum);
    tp_iter_view_release(&steps);
    return rc == TP_ENOMEM ? tp_fail(st, rc, "out of memory") : rc;
}

static const tp_stage_desc sk_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "step_kernels",
                  "per iteration: the kernels launched in it (an include regex) and their time",
                  sk_options, sk_config, NULL, sk_results, NULL, 0, NULL, sk_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("step_kernels", "1.0.0", sk_stages);
