/* tracepipe SDK: what a synchronisation or copy API waits for (tp_sdk_vocab.h). */
#include <string.h>

#include "tracepipe/tp_sdk_vocab.h"

tp_sync_scope tp_vocab_sync_scope(const tp_vocab *v, const char *name)
{
    if (tp_vocab_launch_api(v, name) != TP_LAUNCHES_SYNC)
        return TP_SYNC_NONE;
    if (strstr(name, "WaitEvent") != NULL)
        return TP_SYNC_STREAM_WAIT;
    if (strstr(name, "EventSynchronize") != NULL)
        return TP_SYNC_EVENT;
    if (strstr(name, "StreamSynchronize") != NULL)
        return TP_SYNC_STREAM;
    return TP_SYNC_DEVICE;
}

int tp_vocab_launch_blocks(const tp_vocab *v, const char *name)
{
    /* one rule of what blocks: tp_launch_api_blocks */
    tp_launch_what w = tp_vocab_launch_api(v, name);
    return (w == TP_LAUNCHES_MEMCPY || w == TP_LAUNCHES_MEMSET) && tp_launch_api_blocks(name, w);
}
