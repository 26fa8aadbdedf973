/* tracepipe SDK: a running digest of bytes (tp_sdk_digest.h). */
#include <string.h>

#include <tracepipe/tp_sdk_digest.h>

#define K1 0x9E3779B97F4A7C15ull
#define K2 0xC2B2AE3D27D4EB4Full
#define STRIPE (8 * TP_DIGEST_LANES)
_Static_assert(TP_DIGEST_LANES == 4, "stripes() keeps four lanes");

static inline uint64_t word(uint64_t h, uint64_t w)
{
    h = (h ^ w) * K1;
    return h ^ (h >> 29);
}

/* Keeps a lane in a general register: vectorised, the 64-bit multiplies
 * become three 32-bit ones each (SSE2) and the stripe runs at half the
 * speed of the scalar lanes. */
#if defined(__GNUC__)
#define SCALAR(x) __asm__("" : "+r"(x))
#else
#define SCALAR(x) (void)0
#endif

static inline uint64_t at(const unsigned char *p)
{
    uint64_t w;
    memcpy(&w, p, 8);
    return w;
}

/* Whole stripes from p (len / 32 of them): word i of each into lane i, the
 * four chains in registers, overlapping. */
static void stripes(uint64_t h[TP_DIGEST_LANES], const unsigned char *p, size_t len)
{
    uint64_t h0 = h[0], h1 = h[1], h2 = h[2], h3 = h[3];
    for (; len >= STRIPE; p += STRIPE, len -= STRIPE) {
        h0 = word(h0, at(p));
        h1 = word(h1, at(p + 8));
        h2 = word(h2, at(p + 16));
        h3 = word(h3, at(p + 24));
        SCALAR(h0);
        SCALAR(h1);
        SCALAR(h2);
        SCALAR(h3);
    }
    h[0] = h0, h[1] = h1, h[2] = h2, h[3] = h3;
}

void tp_digest_init(tp_digest *d)
{
    memset(d, 0, sizeof *d);
    for (unsigned i = 0; i < TP_DIGEST_LANES; i++)
        d->h[i] = i * K2; /* lanes differ: swapped words show */
}

void tp_digest_add(tp_digest *d, const void *bytes, size_t len)
{
    const unsigned char *p = bytes;
    size_t have = (size_t)(d->n % STRIPE);
    d->n += len;
    if (have > 0) { /* complete the partial stripe first */
        size_t take = len < STRIPE - have ? len : STRIPE - have;
        memcpy(d->part + have, p, take);
        p += take;
        len -= take;
        if (have + take < STRIPE)
            return;
        stripes(d->h, d->part, STRIPE);
    }
    stripes(d->h, p, len);
    p += len - len % STRIPE;
    memcpy(d->part, p, len % STRIPE);
}

uint64_t tp_digest_value(const tp_digest *d)
{
    size_t have = (size_t)(d->n % STRIPE);
    uint64_t h = 0;
    for (int i = 0; i < TP_DIGEST_LANES; i++)
        h = word(h, d->h[i]);
    for (size_t at = 0; at < have; at += 8) { /* the partial stripe, its last word zero-filled */
        uint64_t w = 0;
        memcpy(&w, d->part + at, have - at < 8 ? have - at : 8);
        h = word(h, w);
    }
    h = word(h, d->n * K2);
    h ^= h >> 33;
    h *= K2;
    return h ^ (h >> 31);
}
