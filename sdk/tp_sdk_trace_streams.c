/* GPU work by stream (include/tracepipe/tp_sdk_trace.h, "streams"). */
#include "tracepipe/tp_sdk_trace.h"

int tp_rows_cmp_stream_start(const void *a, const void *b, void *ctx)
{
    const tp_cols *c = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    int32_t dx = tp_ev_device(c, x), dy = tp_ev_device(c, y);
    if (dx != dy)
        return dx < dy ? -1 : 1;
    int32_t sx = tp_ev_stream(c, x), sy = tp_ev_stream(c, y);
    if (sx != sy)
        return sx < sy ? -1 : 1;
    if (c->ts[x] != c->ts[y])
        return c->ts[x] < c->ts[y] ? -1 : 1;
    return (x > y) - (x < y);
}
