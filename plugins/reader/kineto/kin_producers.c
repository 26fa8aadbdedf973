/*
 * Chrome traces from other producers (issue 14, item 4): TensorFlow 1
 * timelines (tensorflow.python.client.timeline) and the TF2 / JAX profiler's
 * trace viewer JSON (xprof, `*.trace.json.gz`).  Their events carry no
 * Kineto category ("Op" or none), so the parser leaves them kind `other`;
 * which side an event is on is said only by the process and thread names of
 * the metadata events, which may come after the events.  Once the whole
 * file is read, each track is judged from those names and its `other`
 * events are refined (tp_trace_refine):
 *
 *   TF1   "/device:GPU:0/stream:7 Compute"    GPU activity on stream 7
 *         "/device:GPU:0/memcpy Compute"      GPU copies, each also on its
 *                                             stream's lane: a copy with a
 *                                             twin there (same device, name,
 *                                             start, duration) is that
 *                                             stream's, repeated:
 *                                             gpu_user_annotation; one without
 *                                             is GPU activity (stream = tid)
 *         "/device:GPU:0/stream:all Compute"  the streams again, merged:
 *                                             gpu_user_annotation, so the
 *                                             time is not counted twice
 *         "/job:.../device:GPU:0 Compute"     the executor launching GPU
 *                                             ops: host ops
 *   xprof "/device:GPU:0", thread "Stream #12(...)"  GPU activity, stream 12
 *         "/device:GPU:0", other threads ("XLA Ops", "Steps", ...): lines
 *                          derived from the streams: gpu_user_annotation
 *         "/device:TPU:0" without stream threads: "XLA Ops" is the activity
 *   both  any other process ("/host:CPU", "/job:.../device:CPU:0 Compute",
 *         python threads): host ops; names cuX..., cudaX..., hipX... (X a
 *         capital) are runtime calls
 *
 * On the device side a name with "memcpy" / "memset" (any case) is a copy /
 * set, anything else a kernel.  A trace none of whose process names looks
 * like these producers' is left alone, so Kineto traces never change; one
 * without unplaced events is not even looked at.
 */
#include <ctype.h>
#include <stdlib.h>
#include <jansson.h>
#include <string.h>
#include <tracepipe/tp_sdk.h>

#include "kin.h"

enum { SIDE_LEAVE, SIDE_HOST, SIDE_DEVICE, SIDE_DERIVED, SIDE_COPY_LANE };

typedef struct named {
    int64_t pid, tid; /* tid unused for processes */
    char *name;
} named;

typedef struct names {
    named *procs, *threads;
    size_t nprocs, nthreads;
} names;

typedef struct side {
    uint8_t side;
    int32_t device, stream;
} side;

static void names_free(names *nm)
{
    for (size_t i = 0; i < nm->nprocs; i++)
        tp_free(nm->procs[i].name);
    for (size_t i = 0; i < nm->nthreads; i++)
        tp_free(nm->threads[i].name);
    tp_free(nm->procs);
    tp_free(nm->threads);
}

static int names_add(named **v, size_t *n, int64_t pid, int64_t tid, const char *s)
{
    named *grown = tp_realloc(*v, (*n + 1) * sizeof **v);
    if (grown == NULL)
        return TP_ENOMEM;
    *v = grown;
    size_t len = strlen(s);
    char *copy = tp_malloc(len + 1);
    if (copy == NULL)
        return TP_ENOMEM;
    memcpy(copy, s, len + 1);
    (*v)[*n] = (named){pid, tid, copy};
    (*n)++;
    return TP_OK;
}

static const char *name_of(const named *v, size_t n, int64_t pid, int64_t tid, int by_tid)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].pid == pid && (!by_tid || v[i].tid == tid))
            return v[i].name;
    return NULL;
}

/* process_name / thread_name metadata: {"name": "..."} in args. */
static int collect_names(tp_stage *st, tp_trace *t, names *nm)
{
    const tp_cols *c = tp_trace_cols(t);
    for (size_t i = 0; i < c->n; i++) {
        if (c->phase[i] != 'M')
            continue;
        const char *what = tp_str_text(st, c->name[i]);
        int proc = what && strcmp(what, "process_name") == 0;
        if (!proc && !(what && strcmp(what, "thread_name") == 0))
            continue;
        size_t len = 0;
        const char *args = tp_trace_args(t, i, &len);
        json_t *j = args && len ? json_loadb(args, len, 0, NULL) : NULL;
        const char *s = json_string_value(json_object_get(j, "name"));
        const tp_track *tr = &c->tracks[c->track[i]];
        int rc = s == NULL ? TP_OK
                 : proc    ? names_add(&nm->procs, &nm->nprocs, tr->pid, 0, s)
                           : names_add(&nm->threads, &nm->nthreads, tr->pid, tr->tid, s);
        json_decref(j);
        if (rc != TP_OK)
            return rc;
    }
    return TP_OK;
}

/* The number after `key` in s, or -1. */
static int32_t number_after(const char *s, const char *key)
{
    const char *at = s ? strstr(s, key) : NULL;
    if (at == NULL || !isdigit((unsigned char)at[strlen(key)]))
        return -1;
    long v = strtol(at + strlen(key), NULL, 10);
    return v >= 0 && v <= INT32_MAX ? (int32_t)v : -1;
}

static int32_t device_of(const char *proc)
{
    static const char *const keys[] = {"/device:GPU:", "/device:TPU:", "/gpu:", "/device:XLA_GPU:"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        int32_t d = number_after(proc, keys[k]);
        if (d >= 0)
            return d;
    }
    return -1;
}

static int is_producer_process(const char *proc)
{
    return strncmp(proc, "/device:", 8) == 0 || strncmp(proc, "/host:", 6) == 0 ||
           strncmp(proc, "/job:", 5) == 0 || strncmp(proc, "/gpu:", 5) == 0 ||
           strstr(proc, "/stream:") != NULL;
}

static int has_stream_threads(const names *nm, int64_t pid)
{
    for (size_t i = 0; i < nm->nthreads; i++)
        if (nm->threads[i].pid == pid && strncmp(nm->threads[i].name, "Stream #", 8) == 0)
            return 1;
    return 0;
}

static int32_t tid32(int64_t tid)
{
    return !TP_ID_IS_STR(tid) && tid >= 0 && tid <= INT32_MAX ? (int32_t)tid : -1;
}

/* Which side a track is on, from its process and thread names. */
static side judge(const names *nm, const tp_track *tr)
{
    const char *proc = name_of(nm->procs, nm->nprocs, tr->pid, 0, 0);
    const char *thread = name_of(nm->threads, nm->nthreads, tr->pid, tr->tid, 1);
    int32_t dev = proc ? device_of(proc) : -1;
    if (dev < 0 || strncmp(proc, "/job:", 5) == 0)
        return (side){SIDE_HOST, -1, -1};
    if (strstr(proc, "/stream:all") != NULL)
        return (side){SIDE_DERIVED, dev, -1};
    int32_t stream = number_after(proc, "/stream:");
    if (stream >= 0)
        return (side){SIDE_DEVICE, dev, stream};
    if (strstr(proc, "/memcpy") != NULL)
        return (side){SIDE_COPY_LANE, dev, tid32(tr->tid)};
    if (thread && strncmp(thread, "Stream #", 8) == 0)
        return (side){SIDE_DEVICE, dev, number_after(thread, "Stream #")};
    if (thread && strcmp(thread, "XLA Ops") == 0 && !has_stream_threads(nm, tr->pid))
        return (side){SIDE_DEVICE, dev, tid32(tr->tid)};
    return (side){SIDE_DERIVED, dev, -1};
}

static int is_runtime_name(const char *s)
{
    return s && ((strncmp(s, "cuda", 4) == 0 && isupper((unsigned char)s[4])) ||
                 (strncmp(s, "cu", 2) == 0 && isupper((unsigned char)s[2])) ||
                 (strncmp(s, "hip", 3) == 0 && isupper((unsigned char)s[3])));
}

static tp_kind kind_of(tp_stage *st, const side *sd, tp_str name)
{
    const char *s = tp_str_text(st, name);
    switch (sd->side) {
    case SIDE_HOST: return is_runtime_name(s) ? TP_KIND_RUNTIME : TP_KIND_CPU_OP;
    case SIDE_DERIVED: return TP_KIND_GPU_ANNOTATION;
    default:
        return tp_contains_nocase(s, "memcpy")   ? TP_KIND_MEMCPY
               : tp_contains_nocase(s, "memset") ? TP_KIND_MEMSET
                                              : TP_KIND_KERNEL;
    }
}

static const char *producer_of(const names *nm)
{
    int any = 0, tf1 = 0;
    for (size_t i = 0; i < nm->nprocs; i++) {
        const char *p = nm->procs[i].name;
        if (!is_producer_process(p))
            continue;
        any = 1;
        tf1 |= strncmp(p, "/job:", 5) == 0 || strstr(p, "/stream:") != NULL;
    }
    return !any ? NULL : tf1 ? "tensorflow-timeline" : "xprof";
}

/* An event on a device's stream lane, to find a copy lane's twin by. */
typedef struct lane_key {
    int32_t device;
    tp_str name;
    int64_t ts, dur;
} lane_key;

static int lane_key_cmp(const void *a, const void *b)
{
    const lane_key *x = a, *y = b;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return x->dur < y->dur ? -1 : x->dur > y->dur;
}

static int unplaced(const tp_cols *c, size_t i)
{
    return c->kind[i] == TP_KIND_OTHER && (c->phase[i] == 'X' || c->phase[i] == 'B');
}

/* The unplaced events of stream lanes, sorted (NULL and *n 0 for none). */
static int stream_lane_keys(const tp_cols *c, const side *sides, lane_key **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    size_t count = 0;
    for (size_t i = 0; i < c->n; i++)
        count += unplaced(c, i) && sides[c->track[i]].side == SIDE_DEVICE;
    if (count == 0)
        return TP_OK;
    lane_key *keys = tp_malloc(count * sizeof *keys);
    if (keys == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < c->n; i++)
        if (unplaced(c, i) && sides[c->track[i]].side == SIDE_DEVICE)
            keys[(*n)++] = (lane_key){sides[c->track[i]].device, c->name[i], c->ts[i], c->dur[i]};
    qsort(keys, *n, sizeof *keys, lane_key_cmp);
    *out = keys;
    return TP_OK;
}

/* A copy lane's event: the stream's own repeated (a twin on a stream lane of
 * its device), or a copy only this lane shows. */
static side copy_lane_side(const tp_cols *c, size_t i, side sd, const lane_key *keys, size_t n)
{
    lane_key k = {sd.device, c->name[i], c->ts[i], c->dur[i]};
    if (n && bsearch(&k, keys, n, sizeof *keys, lane_key_cmp) != NULL)
        return (side){SIDE_DERIVED, sd.device, -1};
    return (side){SIDE_DEVICE, sd.device, sd.stream};
}

static int refine_rows(kin_parser *kp, const names *nm, size_t *refined)
{
    const tp_cols *c = tp_trace_cols(kp->trace);
    size_t ntracks = c->n_tracks, nkeys = 0;
    lane_key *keys = NULL;
    side *sides = tp_calloc(ntracks ? ntracks : 1, sizeof *sides);
    if (sides == NULL)
        return TP_ENOMEM;
    for (size_t k = 0; k < ntracks; k++)
        sides[k] = judge(nm, &c->tracks[k]);
    int rc = stream_lane_keys(c, sides, &keys, &nkeys);
    for (size_t i = 0; i < c->n && rc == TP_OK; i++) {
        if (!unplaced(c, i))
            continue;
        side sd = sides[c->track[i]]; /* (refining may add tracks: copy first) */
        if (sd.side == SIDE_LEAVE)
            continue;
        if (sd.side == SIDE_COPY_LANE)
            sd = copy_lane_side(c, i, sd, keys, nkeys);
        int32_t dev = sd.side == SIDE_HOST ? -1 : sd.device;
        rc = tp_trace_refine(kp->st, kp->trace, i, kind_of(kp->st, &sd, c->name[i]), dev,
                             sd.stream);
        c = tp_trace_cols(kp->trace);
        (*refined)++;
    }
    tp_free(keys);
    tp_free(sides);
    return rc;
}

/* Complete events the categories left unplaced: none in a Kineto trace. */
static int any_unplaced(const tp_cols *c)
{
    for (size_t i = 0; i < c->n; i++)
        if (unplaced(c, i))
            return 1;
    return 0;
}

int kin_refine_producers(kin_parser *kp)
{
    if (!any_unplaced(tp_trace_cols(kp->trace)))
        return TP_OK; /* (and the args of the file are not touched) */
    names nm = {0};
    int rc = collect_names(kp->st, kp->trace, &nm);
    const char *producer = rc == TP_OK ? producer_of(&nm) : NULL;
    size_t refined = 0;
    if (producer != NULL) {
        rc = refine_rows(kp, &nm, &refined);
        if (rc == TP_OK)
            rc = tp_trace_info_set_str(kp->st, kp->trace, "producer", producer);
        if (rc == TP_OK)
            tp_log(kp->st, TP_LOG_INFO,
                   "%s: a %s trace: %zu events placed on the host or device side by their "
                   "process and thread names", kp->path, producer, refined);
    }
    names_free(&nm);
    return rc;
}
