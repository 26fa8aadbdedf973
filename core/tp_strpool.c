/*
 * String pool: interns texts to dense uint32 ids.
 *
 * Texts live in large chunks that never move, so a pointer handed out stays
 * valid for the pool's life.  Lookup is an open-addressing hash table of
 * ids (linear probing, power-of-two size, kept at most half full).
 */
#include "tp_strpool.h"

#include <stdlib.h>
#include <string.h>

#define CHUNK_MIN (64 * 1024)

typedef struct chunk {
    struct chunk *next;
    size_t used, size;
    char data[];
} chunk;

struct tp_strpool {
    const char **text;   /* id -> text */
    uint32_t *len;       /* id -> length */
    uint32_t *hash_of;   /* id -> hash (for rehashing) */
    size_t count, cap;
    uint32_t *slots;     /* hash table of ids; 0 = empty (id 0 is "", never stored) */
    size_t nslots;
    chunk *chunks;
};

/* Eight bytes per step (multiply-xorshift): every event interns its name
 * and category, and kernel names run to hundreds of bytes, so a byte-wise
 * hash (FNV-1a: ~4 cycles a byte) was a visible part of ingestion. */
static uint32_t hash_bytes(const char *s, size_t len)
{
    const uint64_t m = 0x9E3779B97F4A7C15u;
    uint64_t h = (uint64_t)len * m;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        h = (h ^ w) * m;
        h ^= h >> 29;
    }
    uint64_t w = 0;
    for (size_t k = 0; i + k < len; k++)
        w |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
    h = (h ^ w) * m;
    h ^= h >> 32;
    h *= m;
    return (uint32_t)(h >> 32);
}

tp_strpool *tp_strpool_new(void)
{
    tp_strpool *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    p->cap = 256;
    p->text = malloc(p->cap * sizeof *p->text);
    p->len = malloc(p->cap * sizeof *p->len);
    p->hash_of = malloc(p->cap * sizeof *p->hash_of);
    p->nslots = 512;
    p->slots = calloc(p->nslots, sizeof *p->slots);
    if (!p->text || !p->len || !p->hash_of || !p->slots) {
        tp_strpool_free(p);
        return NULL;
    }
    p->text[0] = "";
    p->len[0] = 0;
    p->hash_of[0] = 0;
    p->count = 1;
    return p;
}

void tp_strpool_free(tp_strpool *p)
{
    if (p == NULL)
        return;
    for (chunk *c = p->chunks, *next; c != NULL; c = next) {
        next = c->next;
        free(c);
    }
    free(p->text);
    free(p->len);
    free(p->hash_of);
    free(p->slots);
    free(p);
}

static char *store_text(tp_strpool *p, const char *s, size_t len)
{
    chunk *c = p->chunks;
    if (c == NULL || c->size - c->used < len + 1) {
        size_t size = len + 1 > CHUNK_MIN ? len + 1 : CHUNK_MIN;
        c = malloc(sizeof *c + size);
        if (c == NULL)
            return NULL;
        c->size = size;
        c->used = 0;
        c->next = p->chunks;
        p->chunks = c;
    }
    char *dst = c->data + c->used;
    memcpy(dst, s, len);
    dst[len] = '\0';
    c->used += len + 1;
    return dst;
}

static int grow_slots(tp_strpool *p)
{
    size_t n = p->nslots * 2;
    uint32_t *slots = calloc(n, sizeof *slots);
    if (slots == NULL)
        return -1;
    for (size_t id = 1; id < p->count; id++) {
        size_t i = p->hash_of[id] & (n - 1);
        while (slots[i] != 0)
            i = (i + 1) & (n - 1);
        slots[i] = (uint32_t)id;
    }
    free(p->slots);
    p->slots = slots;
    p->nslots = n;
    return 0;
}

static int grow_ids(tp_strpool *p)
{
    size_t cap = p->cap * 2;
    const char **text = realloc(p->text, cap * sizeof *text);
    if (text == NULL)
        return -1;
    p->text = text;
    uint32_t *len = realloc(p->len, cap * sizeof *len);
    if (len == NULL)
        return -1;
    p->len = len;
    uint32_t *h = realloc(p->hash_of, cap * sizeof *h);
    if (h == NULL)
        return -1;
    p->hash_of = h;
    p->cap = cap;
    return 0;
}

/* Returns the slot holding s, or the empty slot where it would go. */
static size_t find_slot(const tp_strpool *p, const char *s, size_t len, uint32_t h)
{
    size_t i = h & (p->nslots - 1);
    for (;;) {
        uint32_t id = p->slots[i];
        if (id == 0)
            return i;
        if (p->hash_of[id] == h && p->len[id] == len && memcmp(p->text[id], s, len) == 0)
            return i;
        i = (i + 1) & (p->nslots - 1);
    }
}

tp_str tp_strpool_intern(tp_strpool *p, const char *s, size_t len)
{
    if (len == 0)
        return 0;
    if (len > UINT32_MAX - 1)
        return TP_STR_NOMEM;
    uint32_t h = hash_bytes(s, len);
    size_t slot = find_slot(p, s, len, h);
    if (p->slots[slot] != 0)
        return p->slots[slot];
    if (p->count >= UINT32_MAX - 1)
        return TP_STR_NOMEM;
    if (p->count == p->cap && grow_ids(p) != 0)
        return TP_STR_NOMEM;
    if ((p->count + 1) * 2 > p->nslots) {
        if (grow_slots(p) != 0)
            return TP_STR_NOMEM;
        slot = find_slot(p, s, len, h);
    }
    char *copy = store_text(p, s, len);
    if (copy == NULL)
        return TP_STR_NOMEM;
    tp_str id = (tp_str)p->count++;
    p->text[id] = copy;
    p->len[id] = (uint32_t)len;
    p->hash_of[id] = h;
    p->slots[slot] = id;
    return id;
}

bool tp_strpool_lookup(const tp_strpool *p, const char *s, size_t len, tp_str *out)
{
    if (len == 0) {
        *out = 0;
        return true;
    }
    size_t slot = find_slot(p, s, len, hash_bytes(s, len));
    if (p->slots[slot] == 0)
        return false;
    *out = p->slots[slot];
    return true;
}

const char *tp_strpool_text(const tp_strpool *p, tp_str id)
{
    return id < p->count ? p->text[id] : "";
}

size_t tp_strpool_len(const tp_strpool *p, tp_str id)
{
    return id < p->count ? p->len[id] : 0;
}

size_t tp_strpool_count(const tp_strpool *p)
{
    return p->count;
}
