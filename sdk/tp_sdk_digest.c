/* tracepipe SDK: a running digest of bytes (tp_sdk_digest.h). */
#include <string.h>

#include <tracepipe/tp_sdk_digest.h>

#define K1 0x9E3779B97F4A7C15ull
#define K2 0xC2B2AE3D27D4EB4Full

static uint64_t word(uint64_t h, uint64_t w)
{
    h = (h ^ w) * K1;
    return h ^ (h >> 29);
}

void tp_digest_init(tp_digest *d) { memset(d, 0, sizeof *d); }

void tp_digest_add(tp_digest *d, const void *bytes, size_t len)
{
    const unsigned char *p = bytes;
    size_t have = (size_t)(d->n & 7);
    d->n += len;
    if (have > 0) { /* complete the partial word first */
        size_t take = len < 8 - have ? len : 8 - have;
        memcpy(d->part + have, p, take);
        p += take;
        len -= take;
        if (have + take < 8)
            return;
        uint64_t w;
        memcpy(&w, d->part, 8);
        d->h = word(d->h, w);
    }
    for (; len >= 8; p += 8, len -= 8) {
        uint64_t w;
        memcpy(&w, p, 8);
        d->h = word(d->h, w);
    }
    memcpy(d->part, p, len);
}

uint64_t tp_digest_value(const tp_digest *d)
{
    uint64_t w = 0, h = d->h;
    size_t have = (size_t)(d->n & 7);
    memcpy(&w, d->part, have);
    h = word(h, w ^ d->n * K2);
    h ^= h >> 33;
    h *= K2;
    return h ^ (h >> 31);
}
