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
