/*
 * kineto reader: the split worker's events and metadata appended to the
 * run's trace once the main parser has reached the worker's cut
 * (kin_split.c): the worker's string ids mapped into the run's pool, its
 * chunks appended a chunk at a time as columns (ABI 3.4
 * trace_append_rows), each chunk given back once appended.
 */
#include <string.h>
#include <sys/mman.h>

#include "kin_local.h"

/* Maps the worker's string ids into the run's pool: map[local] = run id. */
static tp_str *map_strings(kin_parser *kp, const kin_local *l)
{
    tp_str *map = tp_malloc(l->ntext * sizeof *map);
    if (map == NULL)
        return NULL;
    map[0] = 0;
    for (size_t i = 1; i < l->ntext; i++)
        if ((map[i] = tp_intern(kp->st, l->text[i].s, l->text[i].len)) == TP_STR_ERROR) {
            tp_free(map);
            return NULL;
        }
    return map;
}

static int64_t map_id(int64_t v, const tp_str *map, size_t ntext)
{
    /* TP_NONE (flow_id) is string 0, which maps to itself; the reader only
     * makes negative ids from its own strings, the bound is a safeguard */
    if (!TP_ID_IS_STR(v))
        return v;
    return TP_ID_STR(v) < ntext ? TP_ID_FROM_STR(map[TP_ID_STR(v)]) : TP_NONE;
}

/* Event k of chunk c with run string ids (thread table already mapped),
 * without args. */
static tp_event chunk_event(const kin_local *l, const loc_chunk *c, size_t k, const tp_str *map)
{
    const loc_thread *t = &l->thr[c->thread[k]];
    return (tp_event){
        .ts = c->ts[k], .dur = c->dur[k],
        .name = map[c->name[k]], .cat = map[c->cat[k]],
        .pid = t->pid, .tid = t->tid,
        .kind = c->kind[k], .phase = c->phase[k],
        .ext_id = c->ext_id[k], .corr = c->corr[k], .flow_id = map_id(c->flow_id[k], map, l->ntext),
        .device = t->device, .stream = t->stream,
    };
}

/* Where the merge is in the worker's args texts: the end of the last one
 * left in the file, and the next one copied to the arena. */
typedef struct merge_pos {
    uint64_t file_at; /* args_gap counts from here */
    size_t blk, blk_at;
} merge_pos;

/* Appends chunk c's n events one by one: the way for args copied to the
 * arena (a gzip trace without a temporary file), whose blocks are given
 * back as they are passed. */
static int append_one_by_one(kin_parser *kp, kin_local *l, const loc_chunk *c, size_t n,
                             const tp_str *map, merge_pos *at)
{
    int rc = TP_OK;
    for (size_t k = 0; rc == TP_OK && k < n; k++) {
        tp_event ev = chunk_event(l, c, k, map);
        ev.args_len = c->args_len[k];
        if (ev.args_len == 0) {
            rc = tp_trace_append(kp->st, kp->trace, &ev);
        } else if (c->args_gap[k] == LOC_ARENA) {
            while (at->blk_at == l->arena[at->blk].used) { /* block passed: give it back */
                munmap(l->arena[at->blk].data, l->arena[at->blk].cap);
                l->arena[at->blk].data = NULL;
                at->blk++;
                at->blk_at = 0;
            }
            ev.args = l->arena[at->blk].data + at->blk_at;
            at->blk_at += ev.args_len;
            rc = tp_trace_append(kp->st, kp->trace, &ev);
        } else {
            at->file_at += c->args_gap[k];
            rc = tp_trace_append_ref(kp->st, kp->trace, &ev, at->file_at);
            at->file_at += ev.args_len;
        }
    }
    return rc;
}

/* 1 when some of chunk c's n events have their args in the arena. */
static int chunk_in_arena(const loc_chunk *c, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (c->args_len[k] > 0 && c->args_gap[k] == LOC_ARENA)
            return 1;
    return 0;
}

/* Appends chunk c's n events at once (tp_trace_append_rows): names,
 * categories and flow ids are mapped to run ids in place, the args' file
 * offsets (off, room for LOC_CHUNK) summed from their gaps. */
static int append_chunk(kin_parser *kp, const kin_local *l, loc_chunk *c, size_t n,
                        const tp_str *map, const tp_track *places, uint64_t *off,
                        merge_pos *at)
{
    int any_args = 0;
    for (size_t k = 0; k < n; k++) {
        c->name[k] = map[c->name[k]];
        c->cat[k] = map[c->cat[k]];
        c->flow_id[k] = map_id(c->flow_id[k], map, l->ntext);
        off[k] = 0;
        if (c->args_len[k] > 0) {
            at->file_at += c->args_gap[k];
            off[k] = at->file_at;
            at->file_at += c->args_len[k];
            any_args = 1;
        }
    }
    tp_rows rows = {
        .n = n, .ts = c->ts, .dur = c->dur, .name = c->name, .cat = c->cat,
        .kind = c->kind, .phase = c->phase,
        .ext_id = c->ext_id, .corr = c->corr, .flow_id = c->flow_id,
        .place = c->thread, .places = places, .n_places = l->nthr,
        .args_off = off, .args_len = any_args ? c->args_len : NULL,
    };
    return tp_trace_append_rows(kp->st, kp->trace, &rows);
}

/* The worker's threads as tracks (pid and tid already run ids), or NULL. */
static tp_track *places_of(const kin_local *l)
{
    tp_track *places = tp_calloc(l->nthr ? l->nthr : 1, sizeof *places);
    for (size_t t = 0; places != NULL && t < l->nthr; t++) {
        places[t].pid = l->thr[t].pid;
        places[t].tid = l->thr[t].tid;
        places[t].device = l->thr[t].device;
        places[t].stream = l->thr[t].stream;
    }
    return places;
}

/* Appends the worker's events, chunk by chunk, each chunk given back once
 * appended: the trace grows while the worker's list shrinks. */
static int merge_events(kin_parser *kp, kin_local *l, uint64_t cut, const tp_str *map)
{
    for (size_t t = 0; t < l->nthr; t++) { /* the table is not used after */
        l->thr[t].pid = map_id(l->thr[t].pid, map, l->ntext);
        l->thr[t].tid = map_id(l->thr[t].tid, map, l->ntext);
    }
    tp_track *places = places_of(l);
    uint64_t *off = tp_malloc(LOC_CHUNK * sizeof *off);
    int rc = places && off ? tp_trace_reserve(kp->st, kp->trace, tp_trace_cols(kp->trace)->n + l->nev)
                           : TP_ENOMEM;
    merge_pos at = {cut, 0, 0};
    for (size_t ci = 0; rc == TP_OK && ci * LOC_CHUNK < l->nev; ci++) {
        loc_chunk *c = l->chunks[ci];
        size_t n = l->nev - ci * LOC_CHUNK < LOC_CHUNK ? l->nev - ci * LOC_CHUNK : LOC_CHUNK;
        rc = chunk_in_arena(c, n) ? append_one_by_one(kp, l, c, n, map, &at)
                                  : append_chunk(kp, l, c, n, map, places, off, &at);
        kin_local_chunk_unmap(c);
        l->chunks[ci] = NULL;
    }
    tp_free(places);
    tp_free(off);
    return rc;
}

int kin_local_merge(kin_parser *kp, kin_local *l, uint64_t cut)
{
    tp_str *map = map_strings(kp, l);
    if (map == NULL)
        return TP_ENOMEM;
    int rc = merge_events(kp, l, cut, map);
    tp_free(map);
    for (size_t i = 0; rc == TP_OK && i < l->nmeta; i++)
        rc = tp_trace_set_meta(kp->st, kp->trace, l->meta_key[i], l->meta_json[i], l->meta_len[i]);
    return rc;
}
