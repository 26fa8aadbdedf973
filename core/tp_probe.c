/*
 * Reader probes: which reader knows a file, from its first bytes
 * (`reader: auto`, a batch folder's files, a batch trace's own reader).
 */
#include "tp_loader.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define PROBE_HEAD_BYTES (256 * 1024)

/* The first bytes of what a gzip file holds, inflated into out (up to cap):
 * what a reader of the file reads, so probes judge the content, not the
 * compression. 0 when it does not inflate (the reader will say why). */
static size_t gunzip_head(const unsigned char *in, size_t n, unsigned char *out, size_t cap)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return 0;
    z.next_in = (Bytef *)(uintptr_t)in;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    int rc = inflate(&z, Z_SYNC_FLUSH);
    size_t got = cap - z.avail_out;
    inflateEnd(&z);
    return rc == Z_OK || rc == Z_STREAM_END || rc == Z_BUF_ERROR ? got : 0;
}

/* The head of file path probes see (*n bytes, malloc'd): its first bytes,
 * inflated for a gzip file; NULL when out of memory. */
static unsigned char *read_head(FILE *f, size_t *n)
{
    size_t cap = PROBE_HEAD_BYTES;
    unsigned char *head = malloc(cap);
    *n = head ? fread(head, 1, cap, f) : 0;
    if (head == NULL || *n < 2 || head[0] != 0x1f || head[1] != 0x8b)
        return head;
    unsigned char *inflated = malloc(cap);
    size_t got = inflated ? gunzip_head(head, *n, inflated, cap) : 0;
    if (got == 0) {
        free(inflated);
        return head;
    }
    free(head);
    *n = got;
    return inflated;
}

/* The reader whose probe scores the head of file path (up to 256 KiB,
 * inflated for gzip) best (its score in *top), and in *score_of the score of reader `of` (if
 * given); NULL, with errno set when the file cannot be read (0 when no
 * reader knows it). */
static const tp_stage_desc *probe_readers(tp_ctx *ctx, const char *path, const tp_stage_desc *of,
                                          int *score_of, int *top)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t n = 0;
    unsigned char *head = read_head(f, &n);
    fclose(f);
    const tp_stage_desc *best = NULL;
    int best_score = 0;
    for (size_t i = 0; head && i < tp_ctx_stage_count(ctx); i++) {
        const tp_stage_desc *d = tp_ctx_stage_at(ctx, i, NULL);
        int score = d->kind == TP_STAGE_READER && d->probe ? d->probe(head, n, path) : 0;
        if (d == of && score_of)
            *score_of = score;
        if (score > best_score) {
            best = d;
            best_score = score;
        }
    }
    errno = head ? 0 : ENOMEM;
    free(head);
    if (top)
        *top = best_score;
    return best;
}

const tp_stage_desc *tp_probe_reader(tp_ctx *ctx, const char *path)
{
    return probe_readers(ctx, path, NULL, NULL, NULL);
}

int tp_ctx_reader_knows(tp_ctx *ctx, const char *reader, const char *path)
{
    const tp_stage_desc *only = NULL;
    if (strcmp(reader, "auto") != 0) {
        only = tp_ctx_find_stage(ctx, TP_STAGE_READER, reader, NULL);
        if (only == NULL || only->probe == NULL)
            return 1; /* nothing to ask: the reader will say */
    }
    int score = 0, top = 0;
    const tp_stage_desc *best = probe_readers(ctx, path, only, &score, &top);
    if (best == NULL)
        return errno != 0 ? -1 : 0;
    /* a file another reader knows better is that reader's (a dvdt-prof
     * JSON beside Kineto JSON traces) */
    return only == NULL || (score > 0 && score >= top);
}

