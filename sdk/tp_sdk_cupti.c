/* SDK: CUPTI range-profiler counters (tp_sdk_cupti.h). */
#include <tracepipe/tp_sdk_cupti.h>

#include <string.h>

#define CUPTI_RANGE_CAT "cuda_profiler_range"

int tp_cupti_is_range_cat(const char *cat, size_t len)
{
    return cat && len == sizeof CUPTI_RANGE_CAT - 1 && memcmp(cat, CUPTI_RANGE_CAT, len) == 0;
}

const char *tp_cupti_range_cat(void)
{
    return CUPTI_RANGE_CAT;
}

#define SASS(op) "smsp__sass_thread_inst_executed_op_" op "_pred_on.sum"

static const char *const flop_counters[] = {SASS("ffma"), SASS("fmul"), SASS("fadd"),
                                            SASS("hfma"), SASS("hmul"), SASS("hadd"),
                                            SASS("dfma"), SASS("dmul"), SASS("dadd")};

const char *const *tp_cupti_flop_counters(size_t *n)
{
    *n = sizeof flop_counters / sizeof flop_counters[0];
    return flop_counters;
}

/* "<unit>__<counter>.<rollup>": a non-empty unit of [a-z0-9_] before the
 * first "__", then a '.' with something after it. */
int tp_cupti_is_counter_name(const char *key, size_t len)
{
    const char *sep = key && len > 4 ? memchr(key, '_', len) : NULL;
    if (sep == NULL || sep == key || (size_t)(sep - key) + 2 >= len || sep[1] != '_')
        return 0;
    for (const char *p = key; p < sep; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')))
            return 0;
    const char *dot = memchr(sep + 2, '.', len - (size_t)(sep + 2 - key));
    return dot != NULL && dot > sep + 2 && dot + 1 < key + len;
}
