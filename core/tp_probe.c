/*
 * Reader probes: which reader knows a file, from its first bytes
 * (`reader: auto`, a batch folder's files, a batch trace's own reader).
 */
#include "tp_loader.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The reader whose probe scores the head of file path (up to 256 KiB)
 * best (its score in *top), and in *score_of the score of reader `of` (if
 * given); NULL, with errno set when the file cannot be read (0 when no
 * reader knows it). */
static const tp_stage_desc *probe_readers(tp_ctx *ctx, const char *path, const tp_stage_desc *of,
                                          int *score_of, int *top)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 256 * 1024;
    unsigned char *head = malloc(cap);
    size_t n = head ? fread(head, 1, cap, f) : 0;
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

