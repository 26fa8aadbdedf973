/* overheads: private to the plugin's files. */
#ifndef TRACEPIPE_OVERHEADS_SHAPES_H
#define TRACEPIPE_OVERHEADS_SHAPES_H

#include <stddef.h>

/* Appends to out[*at..cap) one side of ml2022's key: the op's arg `key`
 * (in its args JSON text) as Python's tuple text, or ((-1,),) when it has
 * none that reads as nested integer arrays. */
void oh_shape_text(const char *args, size_t alen, const char *key, char *out, size_t cap,
                   size_t *at);

#endif
