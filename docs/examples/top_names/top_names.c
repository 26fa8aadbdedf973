/*
 * top_names — an example third-party analysis plugin for tracepipe.
 *
 * Sums event durations per name for one event kind (kernels by default)
 * and reports the top N as a table: name, count, total_us, percent.
 * It builds against the installed headers alone:
 *
 *   cc -shared -fPIC -fvisibility=hidden $(pkg-config --cflags tracepipe) \
 *      -o top_names.so top_names.c
 *   pipeline run my.yaml --plugin-dir .
 */
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>

typedef struct top_config {
    int64_t top;
    const char *kind;
} top_config;

static const char *const kinds[] = {"kernel", "cpu_op", "runtime", "memcpy", "memset", NULL};

static const tp_option top_options[] = {
    TP_OPTION_INT("top", top_config, top, "10", 1, 100000, "rows to report"),
    TP_OPTION_CHOICE("kind", top_config, kind, "kernel", kinds, "which events to sum"),
    TP_OPTION_END};

static tp_kind kind_of(const char *name)
{
    static const tp_kind map[] = {TP_KIND_KERNEL, TP_KIND_CPU_OP, TP_KIND_RUNTIME,
                                  TP_KIND_MEMCPY, TP_KIND_MEMSET};
    for (size_t i = 0; kinds[i]; i++)
        if (strcmp(kinds[i], name) == 0)
            return map[i];
    return TP_KIND_KERNEL;
}

typedef struct total {
    tp_str name;
    int64_t ns, count;
} total;

static int by_time_desc(const void *a, const void *b)
{
    const total *x = a, *y = b;
    return x->ns < y->ns ? 1 : x->ns > y->ns ? -1 : (x->name > y->name) - (x->name < y->name);
}

static int top_run(tp_stage *st, const void *config, void *state)
{
    const top_config *c = config;
    (void)state;
    tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace: put a reader before this analysis");
    const tp_cols *cols = tp_trace_cols(t);
    size_t nstr = tp_str_count(st);
    total *sum = tp_calloc(nstr ? nstr : 1, sizeof *sum); /* names are dense ids */
    if (sum == NULL)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    tp_kind want = kind_of(c->kind);
    int64_t all = 0;
    for (size_t i = 0; i < cols->n; i++) {
        if (cols->kind[i] != want || cols->dur[i] < 0)
            continue;
        sum[cols->name[i]].name = cols->name[i];
        sum[cols->name[i]].ns += cols->dur[i];
        sum[cols->name[i]].count++;
        all += cols->dur[i];
    }
    qsort(sum, nstr, sizeof *sum, by_time_desc);
    tp_result *r = tp_result_new(st, NULL);
    int cn = tp_result_add_col(st, r, "name", TP_COL_STR);
    int cc = tp_result_add_col(st, r, "count", TP_COL_I64);
    int ct = tp_result_add_col(st, r, "total_us", TP_COL_F64);
    int cp = tp_result_add_col(st, r, "percent", TP_COL_F64);
    for (size_t i = 0; i < nstr && i < (size_t)c->top && sum[i].count > 0; i++) {
        size_t row;
        if (tp_result_add_row(st, r, &row) != TP_OK)
            break;
        tp_result_set_str(st, r, row, cn, tp_str_text(st, sum[i].name));
        tp_result_set_i64(st, r, row, cc, sum[i].count);
        tp_result_set_f64(st, r, row, ct, (double)sum[i].ns / 1000.0);
        tp_result_set_f64(st, r, row, cp, all ? 100.0 * (double)sum[i].ns / (double)all : 0.0);
    }
    tp_result_set_meta(st, r, "title", "Top names by total time");
    tp_free(sum);
    return TP_OK;
}

static const tp_stage_desc top_stages[] = {
    TP_STAGE(TP_STAGE_ANALYSIS, "top_names", "total time per event name for one kind, top N",
             top_options, top_config, NULL, top_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("top_names", "1.0.0", top_stages);
