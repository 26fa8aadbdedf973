/*
 * kineto reader: parsing a big plain file on two cores by speculation.
 *
 * JSON cannot be cut at an arbitrary byte: whether a byte is inside a
 * string depends on everything before it.  So the cut is a guess that is
 * verified.  Near the middle (SPLIT_MAIN_PERCENT) we look for  } , {  (an
 * event's end, a comma, the next event's start); a worker thread parses from
 * after that comma to the end of the file, as if it were inside traceEvents
 * after an element.  It interns into its own small string table and
 * stores its events locally, never touching the run (the core is not
 * thread-safe).  The main parser works from the start as usual; when its
 * cursor reaches the guessed offset it checks that it is exactly there, in
 * traceEvents, after a comma.  If so the guess was right (the worker saw
 * the same bytes in the same state), and the worker's events are appended
 * after the main parser's, their string ids mapped into the run's pool.
 * Otherwise (the cut was inside a string, or in another member) the
 * worker's work is thrown away and the main parser simply goes on.
 *
 * The worker gives up on anything unusual: a syntax error, a bad field,
 * a "B"/"E" pair that might straddle the cut, a failed allocation.  The
 * main parser then parses that half itself, so errors are reported exactly
 * as by the serial reader (same message, line and column).
 *
 * A gzip file cannot be entered in the middle, so there the worker inflates
 * it from the start on its own, discarding the bytes, until GZ_SPLIT_MAIN_PERCENT
 * of the compressed file is behind it (ISA-L inflates ~10 times faster than we
 * parse, so this costs little), looks for the cut in what follows, and only
 * then publishes it: the main parser learns where to stop when it next
 * refills its window.  Offsets are then positions in the inflated text.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "kin.h"
#include "kin_local.h"

#define SPLIT_MIN_SIZE (32u << 20) /* smaller files are not worth a thread */
#define GZ_SPLIT_MIN_SIZE (1u << 20) /* compressed: ~10 MB of text or more */
#define GZ_PROBE_CHUNKS 4          /* windows searched for a cut after the skip */
#define PROBE_SIZE (1u << 20)      /* bytes searched for a cut */
/* The cut, in % of the file, so both threads end together (docs/performance.md) */
#define SPLIT_MAIN_PERCENT 45    /* the main parser then appends the worker's events */
#define GZ_SPLIT_MAIN_PERCENT 52 /* of compressed bytes: the worker inflates ours too */
static uint64_t hash64(const char *s, size_t len)
{
    const uint64_t m = 0x9E3779B97F4A7C15u;
    uint64_t h = (uint64_t)len * m, w;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        memcpy(&w, s + i, 8);
        h = (h ^ w) * m;
        h ^= h >> 29;
    }
    w = 0;
    for (size_t k = 0; i + k < len; k++)
        w |= (uint64_t)(unsigned char)s[i + k] << (8 * k);
    h = (h ^ w) * m;
    return h ^ (h >> 32);
}

static const char *store(kin_local *l, const char *s, size_t len)
{
    if (l->nblocks == 0 || l->block_size - l->block_used < len) {
        size_t size = len > (64u << 10) ? len : (64u << 10);
        char **b = tp_realloc(l->blocks, (l->nblocks + 1) * sizeof *b);
        if (b == NULL)
            return NULL;
        l->blocks = b;
        if ((b[l->nblocks] = tp_malloc(size)) == NULL)
            return NULL;
        l->nblocks++;
        l->block_used = 0;
        l->block_size = size;
    }
    char *d = l->blocks[l->nblocks - 1] + l->block_used;
    memcpy(d, s, len);
    l->block_used += len;
    return d;
}

static int rehash(kin_local *l)
{
    size_t n = l->nslots ? l->nslots * 2 : 1024;
    uint32_t *slots = tp_calloc(n, sizeof *slots);
    if (slots == NULL)
        return TP_ENOMEM;
    for (size_t id = 1; id < l->ntext; id++) {
        size_t i = hash64(l->text[id].s, l->text[id].len) & (n - 1);
        while (slots[i])
            i = (i + 1) & (n - 1);
        slots[i] = (uint32_t)id;
    }
    tp_free(l->slots);
    l->slots = slots;
    l->nslots = n;
    return TP_OK;
}

int kin_local_intern(kin_local *l, const char *s, size_t len, tp_str *out)
{
    if (len == 0) {
        *out = 0;
        return TP_OK;
    }
    if (len > UINT32_MAX || ((l->ntext + 1) * 2 > l->nslots && rehash(l) != TP_OK))
        return TP_ENOMEM;
    size_t i = hash64(s, len) & (l->nslots - 1);
    for (uint32_t id; (id = l->slots[i]) != 0; i = (i + 1) & (l->nslots - 1)) {
        if (l->text[id].len == len && memcmp(l->text[id].s, s, len) == 0) {
            *out = id;
            return TP_OK;
        }
    }
    if (l->ntext == l->cap_text) {
        size_t cap = l->cap_text * 2;
        loc_text *t = tp_realloc(l->text, cap * sizeof *t);
        if (t == NULL)
            return TP_ENOMEM;
        l->text = t;
        l->cap_text = cap;
    }
    const char *copy = store(l, s, len);
    if (copy == NULL)
        return TP_ENOMEM;
    l->text[l->ntext] = (loc_text){copy, (uint32_t)len};
    l->slots[i] = (uint32_t)l->ntext;
    *out = (tp_str)l->ntext++;
    return TP_OK;
}

const char *kin_local_text(const kin_local *l, tp_str id, size_t *len)
{
    if (id >= l->ntext) {
        *len = 0;
        return "";
    }
    *len = l->text[id].len;
    return l->text[id].s;
}

void kin_local_chunk_unmap(loc_chunk *c)
{
    if (c)
        munmap(c, sizeof *c);
}

static int thr_rehash(kin_local *l)
{
    size_t n = l->nthr_slots ? l->nthr_slots * 2 : 64;
    uint32_t *slots = tp_calloc(n, sizeof *slots);
    if (slots == NULL)
        return TP_ENOMEM;
    for (size_t t = 0; t < l->nthr; t++) {
        size_t i = hash64((const char *)&l->thr[t], sizeof *l->thr) & (n - 1);
        while (slots[i])
            i = (i + 1) & (n - 1);
        slots[i] = (uint32_t)(t + 1);
    }
    tp_free(l->thr_slots);
    l->thr_slots = slots;
    l->nthr_slots = n;
    return TP_OK;
}

/* The index of ev's (pid, tid, device, stream) in l->thr, added if new.
 * Runs of events on one thread are common: the previous one is tried first. */
static int thread_of(kin_local *l, const tp_event *ev, uint32_t *out)
{
    loc_thread k = {ev->pid, ev->tid, ev->device, ev->stream};
    if (l->nthr > 0 && memcmp(&l->thr[l->thr_last], &k, sizeof k) == 0) {
        *out = l->thr_last;
        return TP_OK;
    }
    if (l->nthr >= UINT32_MAX - 1 ||
        ((l->nthr + 1) * 2 > l->nthr_slots && thr_rehash(l) != TP_OK))
        return TP_ENOMEM;
    size_t i = hash64((const char *)&k, sizeof k) & (l->nthr_slots - 1);
    for (uint32_t s; (s = l->thr_slots[i]) != 0; i = (i + 1) & (l->nthr_slots - 1)) {
        if (memcmp(&l->thr[s - 1], &k, sizeof k) == 0) {
            *out = l->thr_last = s - 1;
            return TP_OK;
        }
    }
    if (l->nthr == l->cap_thr) {
        size_t cap = l->cap_thr ? l->cap_thr * 2 : 64;
        loc_thread *t = tp_realloc(l->thr, cap * sizeof *t);
        if (t == NULL)
            return TP_ENOMEM;
        l->thr = t;
        l->cap_thr = cap;
    }
    l->thr[l->nthr] = k;
    l->thr_slots[i] = (uint32_t)(l->nthr + 1);
    *out = l->thr_last = (uint32_t)l->nthr++;
    return TP_OK;
}

/* Room in the chunks for one more event. */
static int chunk_room(kin_local *l)
{
    if (l->nev < l->nchunks * LOC_CHUNK)
        return TP_OK;
    loc_chunk **a = tp_realloc(l->chunks, (l->nchunks + 1) * sizeof *a);
    if (a == NULL)
        return TP_ENOMEM;
    l->chunks = a;
    void *m = mmap(NULL, sizeof(loc_chunk), PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return TP_ENOMEM;
    a[l->nchunks++] = m;
    return TP_OK;
}

/* Places an args text of alen (> 0) bytes: *gap is its distance from the
 * end of the previous args left in the file, or LOC_ARENA once copied to
 * the arena.  A text the trace could not hold (> 4 GiB), or one too far
 * from the previous, makes the worker give up: the main parser then reads
 * that half as without a split (and reports what the serial reader would). */
static int args_place(kin_local *l, const char *args, size_t alen, uint64_t file_off,
                      uint32_t *gap)
{
    if (alen > UINT32_MAX)
        return TP_EINVAL;
    if (file_off != KIN_NO_REF) { /* the text stays in the file */
        if (file_off < l->file_end || file_off - l->file_end >= LOC_ARENA)
            return TP_EINVAL;
        *gap = (uint32_t)(file_off - l->file_end);
        l->file_end = file_off + alen;
        return TP_OK;
    }
    loc_block *b = l->narena ? &l->arena[l->narena - 1] : NULL;
    if (b == NULL || alen > b->cap - b->used) {
        if (l->narena == l->cap_arena) {
            size_t cap = l->cap_arena ? l->cap_arena * 2 : 16;
            loc_block *a = tp_realloc(l->arena, cap * sizeof *a);
            if (a == NULL)
                return TP_ENOMEM;
            l->arena = a;
            l->cap_arena = cap;
        }
        size_t size = alen > LOC_ARENA_BLOCK ? alen : LOC_ARENA_BLOCK;
        void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED)
            return TP_ENOMEM;
        b = &l->arena[l->narena++];
        *b = (loc_block){m, 0, size};
    }
    memcpy(b->data + b->used, args, alen);
    b->used += alen;
    *gap = LOC_ARENA;
    return TP_OK;
}

int kin_local_push(kin_local *l, const tp_event *ev, uint64_t file_off)
{
    size_t alen = ev->args ? ev->args_len : 0;
    uint32_t thread, gap = 0;
    int rc = chunk_room(l);
    if (rc == TP_OK)
        rc = thread_of(l, ev, &thread);
    if (rc == TP_OK && alen > 0)
        rc = args_place(l, ev->args, alen, file_off, &gap);
    if (rc != TP_OK)
        return rc;
    loc_chunk *c = l->chunks[l->nev / LOC_CHUNK];
    size_t k = l->nev++ % LOC_CHUNK;
    c->ts[k] = ev->ts;
    c->dur[k] = ev->dur;
    c->ext_id[k] = ev->ext_id;
    c->corr[k] = ev->corr;
    c->flow_id[k] = ev->flow_id;
    c->name[k] = ev->name;
    c->cat[k] = ev->cat;
    c->thread[k] = thread;
    c->args_len[k] = (uint32_t)alen;
    c->args_gap[k] = gap;
    c->kind[k] = ev->kind;
    c->phase[k] = ev->phase;
    return TP_OK;
}

static char *dup_text(const char *s, size_t n)
{
    char *d = tp_malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

int kin_local_meta(kin_local *l, const char *key, const char *json, size_t len)
{
    size_t n = l->nmeta + 1;
    char **k = tp_realloc(l->meta_key, n * sizeof *k);
    if (k == NULL)
        return TP_ENOMEM;
    l->meta_key = k;
    char **j = tp_realloc(l->meta_json, n * sizeof *j);
    if (j == NULL)
        return TP_ENOMEM;
    l->meta_json = j;
    size_t *ml = tp_realloc(l->meta_len, n * sizeof *ml);
    if (ml == NULL)
        return TP_ENOMEM;
    l->meta_len = ml;
    k[l->nmeta] = dup_text(key, strlen(key));
    j[l->nmeta] = dup_text(json, len);
    ml[l->nmeta] = len;
    if (k[l->nmeta] == NULL || j[l->nmeta] == NULL) {
        tp_free(k[l->nmeta]);
        tp_free(j[l->nmeta]);
        return TP_ENOMEM;
    }
    l->nmeta++;
    return TP_OK;
}

static void local_free(kin_local *l)
{
    for (size_t i = 0; i < l->nblocks; i++)
        tp_free(l->blocks[i]);
    for (size_t i = 0; i < l->nmeta; i++) {
        tp_free(l->meta_key[i]);
        tp_free(l->meta_json[i]);
    }
    tp_free(l->blocks);
    tp_free(l->text);
    tp_free(l->slots);
    tp_free(l->thr);
    tp_free(l->thr_slots);
    for (size_t i = 0; i < l->nchunks; i++)
        kin_local_chunk_unmap(l->chunks[i]);
    tp_free(l->chunks);
    for (size_t i = 0; i < l->narena; i++)
        if (l->arena[i].data != NULL)
            munmap(l->arena[i].data, l->arena[i].cap);
    tp_free(l->arena);
    tp_free(l->meta_key);
    tp_free(l->meta_json);
    tp_free(l->meta_len);
    memset(l, 0, sizeof *l);
}

/* ---- the split */

struct kin_split {
    kin_parser w;          /* the worker's parser */
    kin_local local;
    pthread_t thread;
    uint64_t cut;          /* file offset where the worker starts (gzip: in the text) */
    uint64_t cut_in;       /* the same in progress units: file bytes (gzip: compressed) */
    int rc;                /* worker's result: TP_OK, or it gave up */
    int gzip;              /* the worker finds the cut itself, then publishes it */
    atomic_int published;  /* gzip: 0 not yet, 1 cut and cut_in set, -1 no cut */
    atomic_int abort;      /* set by the main parser: the guess was wrong */
    atomic_uint_fast64_t done; /* worker's bytes consumed (for progress) */
    const kin_spill *main_spill;   /* the args file both write to (gzip), or NULL */
    atomic_uint_fast64_t main_end; /* where the main parser's writes to it may reach */
};

/* Finds "} , {" (whitespace allowed) in buf; returns the offset just after
 * the comma, or -1. */
static long find_cut(const char *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != '}')
            continue;
        size_t j = i + 1;
        while (j < n && (buf[j] == ' ' || buf[j] == '\n' || buf[j] == '\r' || buf[j] == '\t'))
            j++;
        if (j >= n || buf[j] != ',')
            continue;
        size_t cut = j + 1;
        j++;
        while (j < n && (buf[j] == ' ' || buf[j] == '\n' || buf[j] == '\r' || buf[j] == '\t'))
            j++;
        if (j < n && buf[j] == '{')
            return (long)cut;
    }
    return -1;
}

/* Gzip: inflates and discards the main parser's share (compressed bytes
 * before main_in), then finds a cut in the next windows and leaves the text
 * after it in the worker's window.  Returns TP_OK with sp->cut set, or a code. */
static int gz_skip_to_cut(kin_split *sp, uint64_t main_in)
{
    kin_parser *w = &sp->w;
    char err[200];
    uint64_t pos = 0; /* text offset of w->buf[0] */
    int first = 1;
    while (kin_src_consumed(w->src) < main_in) {
        if (atomic_load(&sp->abort))
            return TP_ERR;
        long n = kin_src_read(w->src, w->buf, w->cap, err, sizeof err);
        if (n <= 0)
            return TP_ERR; /* a short or broken file: the main parser will say */
        if (first) {
            long i = 0;
            while (i < n && kin_is_ws(w->buf[i]))
                i++;
            if (i == n || (w->buf[i] != '{' && w->buf[i] != '['))
                return TP_ERR;
            w->object_form = w->buf[i] == '{';
            first = 0;
        }
        pos += (uint64_t)n;
    }
    for (int k = 0; k < GZ_PROBE_CHUNKS && !atomic_load(&sp->abort); k++) {
        long n = kin_src_read(w->src, w->buf, w->cap, err, sizeof err);
        if (n <= 0)
            return TP_ERR;
        long cut = find_cut(w->buf, (size_t)n);
        if (cut >= 0) {
            memmove(w->buf, w->buf + cut, (size_t)(n - cut));
            w->len = (size_t)(n - cut);
            sp->cut = pos + (uint64_t)cut;
            sp->cut_in = kin_src_consumed(w->src);
            return TP_OK;
        }
        pos += (uint64_t)n;
    }
    return TP_ERR;
}

static void *worker_main(void *arg)
{
    kin_split *sp = arg;
    if (sp->gzip) {
        char err[200];
        int rc = TP_ERR;
        if ((sp->w.src = kin_src_open_sync(sp->w.path, err, sizeof err)) != NULL &&
            kin_src_is_gzip(sp->w.src))
            rc = gz_skip_to_cut(sp, kin_src_size(sp->w.src) / 100 * GZ_SPLIT_MAIN_PERCENT);
        if (rc != TP_OK) {
            sp->rc = rc;
            atomic_store(&sp->published, -1);
            return NULL;
        }
        sp->w.base = sp->cut;
        sp->local.file_end = sp->cut;
        if (sp->main_spill && !(sp->w.spill = kin_spill_at(sp->main_spill, sp->cut)))
            rc = TP_ENOMEM;
        atomic_store(&sp->done, sp->cut_in);
        atomic_store(&sp->published, rc == TP_OK ? 1 : -1);
        /* the main parser may have written past the cut before it could
         * know it (it only looks at each refill): then give up before
         * writing anything (it sees the cut, or we see its writes) */
        if (rc != TP_OK || (sp->main_spill && atomic_load(&sp->main_end) > sp->cut)) {
            sp->rc = TP_ERR;
            return NULL;
        }
    }
    sp->rc = kin_parse_events(&sp->w);
    if (sp->rc == TP_OK && kin_spill_flush(sp->w.spill) != TP_OK)
        sp->rc = TP_EIO;
    return NULL;
}

void kin_split_poll(kin_parser *kp)
{
    kin_split *sp = kp->split;
    if (sp == NULL || kp->stop_at || !sp->gzip)
        return;
    int p = atomic_load(&sp->published);
    if (p > 0)
        kp->stop_at = sp->cut; /* at_cut() sorts out a cut already passed */
    else if (p < 0)
        kin_split_join(kp, 0); /* no cut: free the worker now */
}

uint64_t kin_split_progress_cut(const kin_parser *kp)
{
    const kin_split *sp = kp->split;
    return sp ? sp->cut_in : kp->stop_at;
}

int kin_split_abort_requested(const kin_parser *kp)
{
    return kp->split_abort && atomic_load(kp->split_abort);
}

void kin_split_progress(kin_parser *kp, uint64_t consumed)
{
    if (kp->split_done)
        atomic_store(kp->split_done, consumed);
}

uint64_t kin_split_worker_done(const kin_parser *kp)
{
    const kin_split *sp = kp->split;
    if (sp == NULL)
        return 0;
    uint64_t d = atomic_load(&sp->done);
    return d > sp->cut_in ? d - sp->cut_in : 0;
}

/* Plain file: the cut near SPLIT_MAIN_PERCENT (found by reading there), and
 * the worker's source positioned at it.  Returns 0, or -1 for no split. */
static int plain_cut(kin_parser *kp, kin_split *sp)
{
    uint64_t size = kin_src_size(kp->src), at = size / 100 * SPLIT_MAIN_PERCENT;
    char err[200];
    kin_parser *w = &sp->w;
    char *probe = tp_malloc(PROBE_SIZE);
    if (probe == NULL)
        return -1;
    long n = kin_src_pread(kp->src, probe, 64, 0), i = 0;
    while (i < n && kin_is_ws(probe[i]))
        i++;
    w->object_form = i < n && probe[i] == '{';
    n = (i < n && (probe[i] == '{' || probe[i] == '['))
            ? kin_src_pread(kp->src, probe, PROBE_SIZE, at) : -1;
    long cut = n > 0 ? find_cut(probe, (size_t)n) : -1;
    tp_free(probe);
    if (cut < 0 || !(w->src = kin_src_open(kp->path, err, sizeof err)))
        return -1;
    sp->cut = sp->cut_in = at + (uint64_t)cut;
    return kin_src_seek(w->src, sp->cut);
}

int kin_split_start(kin_parser *kp)
{
    uint64_t size = kin_src_size(kp->src);
    int gzip = kin_src_is_gzip(kp->src);
    if (size < (gzip ? GZ_SPLIT_MIN_SIZE : SPLIT_MIN_SIZE) || tp_threads(kp->st) < 2)
        return TP_OK; /* one core for this trace (a batch's traces at once: issue 31) */
    kin_split *sp = tp_calloc(1, sizeof *sp);
    if (sp == NULL)
        return TP_OK; /* no split: still correct, only slower */
    kin_parser *w = &sp->w;
    sp->gzip = gzip;
    w->path = kp->path;
    w->cap = kp->cap;
    if (!(w->buf = tp_malloc(w->cap)) || (!gzip && plain_cut(kp, sp) != 0)) {
        if (w->src)
            kin_src_close(w->src);
        tp_free(w->buf);
        tp_free(sp);
        return TP_OK;
    }
    atomic_store(&sp->done, sp->cut_in);
    atomic_init(&sp->abort, 0);
    atomic_init(&sp->published, 0);
    w->st = kp->st;
    w->keep_args = kp->keep_args;
    w->round_inward = kp->round_inward;
    w->args_ref = kp->args_ref;
    sp->main_spill = kp->spill; /* gzip: the worker writes there from its cut */
    atomic_init(&sp->main_end, 0);
    if (kp->spill && !gzip && (w->spill = kin_spill_at(kp->spill, sp->cut)) == NULL)
        goto no_split;
    w->line = 1;
    w->base = sp->cut;
    w->p = w->end = w->buf;
    w->local = &sp->local;
    w->split_abort = &sp->abort;
    w->split_done = &sp->done;
    sp->local.cap_text = 256;
    sp->local.ntext = 1;
    sp->local.file_end = sp->cut;
    if (!(sp->local.text = tp_malloc(sp->local.cap_text * sizeof *sp->local.text)))
        goto no_split;
    sp->local.text[0] = (loc_text){"", 0}; /* before the worker can read it */
    if (pthread_create(&sp->thread, NULL, worker_main, sp) != 0)
        goto no_split;
    kp->split = sp;
    kp->stop_at = gzip ? 0 : sp->cut; /* gzip: known once the worker publishes it */
    kin_spill_guard(kp->spill, kp);
    return TP_OK;
no_split:
    kin_spill_free(w->spill);
    tp_free(sp->local.text);
    if (w->src)
        kin_src_close(w->src);
    tp_free(w->buf);
    tp_free(sp);
    return TP_OK; /* no split: still correct, only slower */
}

/* Appends the worker's events and metadata to the run's trace. */
static int merge(kin_parser *kp, kin_split *sp)
{
    int rc = kin_local_merge(kp, &sp->local, sp->cut);
    if (rc == TP_OK) {
        kp->n_events += sp->w.n_events;
        kp->n_big_int += sp->w.n_big_int;
    }
    return rc;
}

void kin_split_spill_flushing(kin_parser *kp, uint64_t end)
{
    kin_split *sp = kp->split;
    if (sp == NULL)
        return;
    atomic_store(&sp->main_end, end);
    int known = !sp->gzip || atomic_load(&sp->published) > 0;
    if (known && end > sp->cut)
        kin_split_join(kp, 0); /* a wrong cut: the worker's half is thrown away anyway */
}

static void split_free(kin_parser *kp)
{
    kin_split *sp = kp->split;
    kin_spill_guard(kp->spill, NULL);
    kin_src_close(sp->w.src);
    tp_free(sp->w.buf);
    tp_free(sp->w.tmp);
    kin_ws_free(&sp->w);
    kin_events_free(&sp->w);
    kin_spill_free(sp->w.spill);
    local_free(&sp->local);
    tp_free(sp);
    kp->split = NULL;
    kp->stop_at = 0;
}

int kin_split_join(kin_parser *kp, int met)
{
    kin_split *sp = kp->split;
    if (sp == NULL)
        return 0;
    if (!met)
        atomic_store(sp->w.split_abort, 1);
    pthread_join(sp->thread, NULL);
    int merged = 0;
    if (met && sp->rc == TP_OK) {
        int rc = merge(kp, sp);
        if (rc != TP_OK) {
            split_free(kp);
            kp->code = rc;
            tp_fail(kp->st, rc, "%s: out of memory", kp->path);
            return -1;
        }
        merged = 1;
        tp_log(kp->st, TP_LOG_INFO, "%s: parsed on two threads (the second from %sbyte %llu)",
               kp->path, sp->gzip ? "decompressed " : "", (unsigned long long)sp->cut);
    } else if (met) {
        tp_log(kp->st, TP_LOG_INFO, "%s: second thread gave up at byte %llu (code %d); "
               "parsed on one", kp->path, (unsigned long long)kin_file_off(&sp->w, sp->w.p), sp->rc);
    }
    split_free(kp);
    return merged;
}
