/*
 * tracepipe SDK: a running digest of the bytes a reader reads (issue 32).
 *
 * A reader that reads its file more than once (nsys_json: strings, then
 * events) digests the bytes of each pass and compares: a file rewritten
 * between the passes keeping its size, its mtime and its line count is
 * still seen, by its bytes.  The digest is a 64-bit multiply-xor hash over
 * 8-byte words in four independent lanes (32-byte stripes: the multiplies
 * of one stripe overlap, about 4x the speed of one chain; issue 31),
 * independent of how the bytes are split into calls (a partial stripe is
 * kept), over 10 GB/s: not cryptographic, it tells changed bytes, not a
 * forger.
 */
#ifndef TRACEPIPE_TP_SDK_DIGEST_H
#define TRACEPIPE_TP_SDK_DIGEST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TP_DIGEST_LANES 4

typedef struct tp_digest {
    uint64_t h[TP_DIGEST_LANES], n;            /* state, one word per lane; bytes added */
    unsigned char part[8 * TP_DIGEST_LANES];   /* the last stripe, while incomplete */
} tp_digest;

/* An empty digest. */
void tp_digest_init(tp_digest *d);

/* Adds len bytes. */
void tp_digest_add(tp_digest *d, const void *bytes, size_t len);

/* The digest of all the bytes added (d unchanged; more may be added). */
uint64_t tp_digest_value(const tp_digest *d);

#ifdef __cplusplus
}
#endif

#endif
