/*
 * A small open-addressing hash map (FNV-1a, linear probing, at most half
 * full) from borrowed strings to longs.  Keys are never removed.
 */
#include "tp_strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static uint64_t hash_bytes(const char *s, size_t len)
{
    uint64_t h = 1469598103934665603u;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211u;
    }
    return h;
}

static size_t slot_index(const tp_strmap_slot *slots, size_t cap, const char *key, size_t len)
{
    size_t i = (size_t)hash_bytes(key, len) & (cap - 1);
    while (slots[i].key &&
           !(slots[i].len == len && memcmp(slots[i].key, key, len) == 0))
        i = (i + 1) & (cap - 1);
    return i;
}

tp_strmap_slot *tp_strmap_find(const tp_strmap *m, const char *key, size_t len)
{
    if (m->cap == 0)
        return NULL;
    size_t i = slot_index(m->slots, m->cap, key, len);
    return m->slots[i].key ? &m->slots[i] : NULL;
}

static bool grow(tp_strmap *m)
{
    size_t cap = m->cap ? m->cap * 2 : 64;
    tp_strmap_slot *slots = calloc(cap, sizeof *slots);
    if (slots == NULL)
        return false;
    for (size_t i = 0; i < m->cap; i++)
        if (m->slots[i].key)
            slots[slot_index(slots, cap, m->slots[i].key, m->slots[i].len)] = m->slots[i];
    free(m->slots);
    m->slots = slots;
    m->cap = cap;
    return true;
}

bool tp_strmap_put(tp_strmap *m, const char *key, long value)
{
    size_t len = strlen(key);
    tp_strmap_slot *s = tp_strmap_find(m, key, len);
    if (s) {
        s->value = value;
        return true;
    }
    if ((m->n + 1) * 2 > m->cap && !grow(m))
        return false;
    m->slots[slot_index(m->slots, m->cap, key, len)] = (tp_strmap_slot){key, len, value};
    m->n++;
    return true;
}

void tp_strmap_free(tp_strmap *m)
{
    free(m->slots);
    m->slots = NULL;
    m->cap = m->n = 0;
}
