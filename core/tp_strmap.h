/* Core-internal: a hash map from borrowed NUL-terminated strings to ints,
 * for lookups that must not be linear in the pipeline's size (stage ids). */
#ifndef TRACEPIPE_TP_STRMAP_H
#define TRACEPIPE_TP_STRMAP_H

#include <stdbool.h>
#include <stddef.h>

typedef struct tp_strmap_slot {
    const char *key; /* borrowed: must outlive the map; NULL = empty slot */
    size_t len;
    long value;
} tp_strmap_slot;

typedef struct tp_strmap {
    tp_strmap_slot *slots;
    size_t cap, n; /* cap is 0 or a power of two */
} tp_strmap;

/* The slot holding the first len bytes of key, or NULL. */
tp_strmap_slot *tp_strmap_find(const tp_strmap *m, const char *key, size_t len);

/* Sets key (the whole string, borrowed) to value, adding it if new.
 * Returns false when out of memory. */
bool tp_strmap_put(tp_strmap *m, const char *key, long value);

void tp_strmap_free(tp_strmap *m);

#endif
