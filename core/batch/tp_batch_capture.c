/*
 * Capture traces in a batch (issue 26): a folder of rank traces may hold
 * the profiles of the graph captures too (vLLM's graph_capture_rank_N...),
 * which are no run of their own but the `capture` of their rank's run
 * trace.  Those whose file name matches the glob are taken out of the list
 * and each run trace gets its own rank's (rank: tp_batch_rank_of_label);
 * a trace left without one, or a capture no trace takes, is reported.
 */
#include "tp_batch.h"

#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static void drop(tp_batch_trace *t)
{
    free(t->path);
    free(t->label);
    free(t->capture);
}

/* The captures (moved out of l into caps): files whose name matches glob. */
static int split(tp_batch_list *l, const char *glob, tp_batch_list *caps)
{
    size_t k = 0;
    for (size_t i = 0; i < l->n; i++) {
        if (fnmatch(glob, base_name(l->v[i].path), 0) != 0) {
            l->v[k++] = l->v[i];
            continue;
        }
        if (tp_batch_list_add(caps, l->v[i].path, l->v[i].label) != TP_OK)
            return TP_ENOMEM;
        drop(&l->v[i]);
    }
    l->n = k;
    return TP_OK;
}

/* The capture of rank r, or NULL; *many when several have it. */
static tp_batch_trace *capture_of(tp_batch_list *caps, int64_t r, int *many)
{
    tp_batch_trace *found = NULL;
    *many = 0;
    for (size_t i = 0; i < caps->n; i++) {
        int64_t cr = -1;
        if (!tp_batch_rank_of_label(caps->v[i].label, &cr) || cr != r)
            continue;
        *many |= found != NULL;
        found = &caps->v[i];
    }
    return *many ? NULL : found;
}

static int pair_one(tp_batch_trace *t, tp_batch_list *caps, uint8_t *taken, FILE *err)
{
    int64_t r = -1;
    int many = 0;
    tp_batch_trace *cap = NULL;
    if (tp_batch_rank_of_label(t->label, &r))
        cap = capture_of(caps, r, &many);
    else if (caps->n == 1)
        cap = &caps->v[0]; /* one trace, one capture: the same rank */
    if (cap == NULL) {
        if (many)
            fprintf(err, "pipeline: warning: batch: %s: several capture traces of rank %lld; "
                         "none used\n", t->label, (long long)r);
        else if (r >= 0)
            fprintf(err, "pipeline: warning: batch: %s: no capture trace of rank %lld (its graph "
                         "replays stay under graph <id>)\n", t->label, (long long)r);
        else
            fprintf(err, "pipeline: warning: batch: %s: no rank in its name to pair a capture "
                         "trace by\n", t->label);
        return TP_OK;
    }
    taken[cap - caps->v] = 1;
    t->capture = strdup(cap->path);
    return t->capture ? TP_OK : TP_ENOMEM;
}

int tp_batch_pair_captures(tp_batch_list *l, const char *glob, int used, int verbosity, FILE *err)
{
    tp_batch_list caps = {0};
    int rc = split(l, glob, &caps);
    if (rc != TP_OK || caps.n == 0) {
        tp_batch_list_free(&caps);
        return rc;
    }
    if (!used) {
        fprintf(err, "pipeline: warning: batch: %zu capture trace(s) (%s) left out: the pipeline "
                     "declares no `capture` variable for its reader's capture: option\n", caps.n,
                glob);
        tp_batch_list_free(&caps);
        return TP_OK;
    }
    uint8_t *taken = calloc(caps.n, 1);
    rc = taken ? TP_OK : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < l->n; i++)
        rc = pair_one(&l->v[i], &caps, taken, err);
    for (size_t i = 0; rc == TP_OK && i < caps.n; i++) {
        if (!taken[i])
            fprintf(err, "pipeline: warning: batch: capture trace %s: no trace of its rank takes "
                         "it\n", caps.v[i].path);
        else if (verbosity > 0)
            fprintf(err, "pipeline: batch: capture trace %s paired by rank\n", caps.v[i].path);
    }
    free(taken);
    tp_batch_list_free(&caps);
    return rc;
}
