/*
 * reader nsys_json: the second pass on two threads (issue 31).
 *
 * The file is cut at a line start near the middle, chosen before the
 * first pass; each pass counts and digests each part on its own, the main
 * thread the first, a worker thread the second.  In the first pass the
 * worker notes where the lines that are not events are (string table
 * records, NVTX domains), which the main thread then reads again from the
 * file after its own part, in order (their texts are not held: a
 * string-heavy export's would be most of it).  After it the string table and the domains are sealed: from then
 * on they are only read, and in the second pass the worker reads the
 * second part's events while the main thread reads the first part's.  The
 * worker never touches the run (the core is not thread-safe): it keeps its
 * rows here, in chunks, with the texts it would have interned (NVTX texts,
 * copy names, the "nvtx" category) beside them and the API calls' string
 * ids, whose names without _vNNNN the main thread works out once per id.
 * Each chunk is handed over when full; the main thread, done with its own
 * part, appends them in order while the worker goes on, interning their
 * texts as it goes, so the trace, its extension columns and the string
 * pool (every text in the same order) are those of one thread.  The worker
 * stops at the first line it cannot read (not JSON, a read error, no
 * memory) and says where: the main thread, having taken what came before,
 * reports it as one thread would there (it parses that line again for
 * jansson's message).  When the main thread's own part fails, or
 * appending the worker's rows does, it stops the worker (a flag checked per
 * line) before joining it: what the worker read would be dropped.
 */
#include <pthread.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "nsys_json.h"

#define SPLIT_MIN_SIZE (32u << 20) /* smaller files are not worth a thread */
/* The cut, in % of the file: the main thread also appends the worker's
 * rows (while the worker goes on), so its part is the smaller. */
#define SPLIT_MAIN_PERCENT 40
#define CUT_PROBE (64u << 10) /* bytes searched for a newline at the cut */
#define CHUNK_ROWS 16384

/* A row as the worker read it (the fields of tp_event an nsys row sets). */
typedef struct nj_row {
    int64_t ts, dur, corr, context, sid; /* sid: NJ_NAME_BASE's string id */
    int32_t pid, tid, device, stream;
    tp_str name, cat; /* pool ids, or (NJ_NAME_TEXT, NJ_CAT_TEXT) offsets in the chunk's texts */
    uint16_t ext;     /* the extension values set, one bit per column (X_*) */
    uint8_t kind, how;
} nj_row;

/* Texts back to back, each after its length (uint32_t). */
typedef struct nj_arena {
    char *text;
    size_t n, cap;
} nj_arena;

/* Rows, their texts and extension values, in that order, mapped from the
 * kernel so each chunk is given back as soon as it is appended (the trace
 * grows while the worker's rows shrink); pages never written cost nothing. */
typedef struct nj_chunk {
    struct nj_chunk *next;
    size_t n, nval;
    nj_arena texts;
    nj_row row[CHUNK_ROWS];
    int64_t val[CHUNK_ROWS * N_X];
} nj_chunk;

/* A first-pass line the worker kept: where it is in the file (read again by
 * the main thread: the second pass's digests see a file rewritten since),
 * its length and its number counted from the cut. */
typedef struct nj_kept {
    uint64_t off;
    size_t len, line;
} nj_kept;

#define KEPT_WINDOW (1u << 20) /* kept lines read back in windows of this many bytes */

struct nj_local {
    nj_chunk *first, *last;
    nj_kept *kept;
    size_t nkept, cap_kept;
    int failed; /* out of memory: the worker stops */
    pthread_mutex_t lock;
    pthread_cond_t handed; /* a chunk handed over, or the worker done */
    size_t nchunks;        /* made (the worker's) */
    size_t ready;          /* chunks handed over (under lock) */
    int done;              /* the worker ended (under lock) */
    atomic_int stop;       /* the main thread failed: the worker stops at its next line */
    atomic_int main_ended; /* the main thread's part read (test_hold waits for it) */
};

/* ---- the worker's side */

static nj_chunk *chunk_new(void)
{
    void *p = mmap(NULL, sizeof(nj_chunk), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                   -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    return p; /* zero-filled */
}

/* s[0, len) stored in a: its offset, or 0 and *failed set. */
static tp_str arena_put(nj_arena *a, const char *s, size_t len, int *failed)
{
    uint32_t len32 = (uint32_t)len;
    size_t need = a->n + sizeof len32 + len;
    if (len > UINT32_MAX || need > UINT32_MAX) {
        *failed = 1;
        return 0;
    }
    if (need > a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 1u << 12;
        while (cap < need)
            cap *= 2;
        char *text = tp_realloc(a->text, cap);
        if (text == NULL) {
            *failed = 1;
            return 0;
        }
        a->text = text;
        a->cap = cap;
    }
    tp_str at = (tp_str)a->n;
    memcpy(a->text + a->n, &len32, sizeof len32);
    if (len > 0)
        memcpy(a->text + a->n + sizeof len32, s, len);
    a->n = need;
    return at;
}

/* A text of an arena: its bytes, *len of them. */
static char *arena_at(const nj_arena *a, tp_str at, size_t *len)
{
    uint32_t len32;
    memcpy(&len32, a->text + at, sizeof len32);
    *len = len32;
    return a->text + at + sizeof len32;
}

/* The chunk the next row goes to: the last, or a new one when it is full
 * (the full one handed over); NULL when out of memory. */
static nj_chunk *row_chunk(nj_local *l)
{
    if (l->last != NULL && l->last->n < CHUNK_ROWS)
        return l->last;
    nj_chunk *c = chunk_new();
    if (c == NULL) {
        l->failed = 1;
        return NULL;
    }
    l->nchunks++;
    if (l->last == NULL) {
        l->first = l->last = c;
        return c;
    }
    l->last->next = c;
    l->last = c;
    pthread_mutex_lock(&l->lock);
    l->ready++;
    pthread_cond_signal(&l->handed);
    pthread_mutex_unlock(&l->lock);
    return c;
}

tp_str nj_local_text(nj *n, const char *s, size_t len, unsigned how)
{
    nj_local *l = n->local;
    nj_chunk *c = row_chunk(l); /* the row's chunk: its texts beside it */
    if (c == NULL)
        return 0;
    tp_str at = arena_put(&c->texts, s, len, &l->failed);
    n->bad.row_nul |= s != NULL && memchr(s, '\0', len) != NULL; /* as nsys_name counts */
    n->row_how |= how;
    return at;
}

int nj_local_row(nj *n, const tp_event *e)
{
    nj_local *l = n->local;
    unsigned how = n->row_how;
    if (l->failed)
        return TP_ENOMEM;
    if (n->row_bad) {
        n->bad.not_integer++;
        if (how == 0)
            return TP_OK; /* nothing of it reaches the run */
        how |= NJ_SKIP;   /* its texts were interned all the same */
    } else {
        nsys_bad_row_done(&n->bad);
    }
    if (row_chunk(l) == NULL)
        return TP_ENOMEM;
    l->last->row[l->last->n++] = (nj_row){
        .ts = e->ts, .dur = e->dur, .corr = e->corr, .context = e->context, .sid = n->row_sid,
        .pid = (int32_t)e->pid, .tid = (int32_t)e->tid, .device = e->device,
        .stream = e->stream, .name = e->name, .cat = e->cat, .kind = e->kind,
        .how = (uint8_t)how};
    return TP_OK;
}

int nj_local_ext(nj *n, int which, int64_t v)
{
    nj_chunk *c = n->local->last;
    c->row[c->n - 1].ext |= (uint16_t)(1u << which);
    c->val[c->nval++] = v;
    return TP_OK;
}

int nj_local_keep(nj *n, uint64_t off, size_t len)
{
    nj_local *l = n->local;
    if (l->nkept == l->cap_kept) {
        size_t cap = l->cap_kept ? l->cap_kept * 2 : 256;
        nj_kept *kept = tp_realloc(l->kept, cap * sizeof *kept);
        if (kept == NULL)
            return TP_ENOMEM;
        l->kept = kept;
        l->cap_kept = cap;
    }
    l->kept[l->nkept++] = (nj_kept){off, len, n->line_no};
    return TP_OK;
}

int nj_local_stopped(const nj *n)
{
    return n->local != NULL && atomic_load_explicit(&n->local->stop, memory_order_relaxed);
}

/* ---- the cut */

void nj_split_plan(nj *n, int fd)
{
    uint64_t size = (uint64_t)n->at_open.st_size;
    const char *hold = getenv("TP_TEST_NSYS_SPLIT_HOLD"); /* tests only: worker_hold */
    n->test_hold = hold != NULL && hold[0] == '1';
    n->cut = 0;
    if (size < SPLIT_MIN_SIZE || tp_threads(n->st) < 2)
        return; /* one core for this trace (a batch's traces at once) */
    char *probe = tp_malloc(CUT_PROBE);
    if (probe == NULL)
        return; /* one thread: still correct, only slower */
    uint64_t at = size / 100 * SPLIT_MAIN_PERCENT;
    ssize_t got = pread(fd, probe, CUT_PROBE, (off_t)at);
    const char *nl = got > 0 ? memchr(probe, '\n', (size_t)got) : NULL;
    if (nl != NULL && at + (uint64_t)(nl - probe) + 1 < size)
        n->cut = at + (uint64_t)(nl - probe) + 1; /* a line start: newlines are never in strings */
    tp_free(probe);
}

/* ---- both passes */

typedef struct nj_worker {
    nj w;        /* the reader's state as the worker sees it */
    nj_lines r;  /* its own buffer; the descriptor shared (pread) */
    nj_local local;
    int (*fn)(nj *, size_t); /* nj_event_line, or NULL: keep the first pass's lines */
    pthread_t thread;
    int rc;
} nj_worker;

/* Tests only (TP_TEST_NSYS_SPLIT_HOLD=1): the worker waits until the main
 * thread's part has ended, failed (stop set) or not, so a test sees it
 * stopped before its first line whatever the threads' timing. */
static void worker_hold(const nj_local *l)
{
    const struct timespec ms = {0, 1000000};
    while (!atomic_load(&l->stop) && !atomic_load(&l->main_ended))
        nanosleep(&ms, NULL);
}

static void *worker_main(void *arg)
{
    nj_worker *k = arg;
    nj_local *l = &k->local;
    if (k->w.test_hold)
        worker_hold(l);
    k->rc = nj_each_part(&k->w, &k->r, k->fn, 1);
    if (k->rc == TP_OK && l->failed)
        k->rc = TP_ENOMEM;
    pthread_mutex_lock(&l->lock);
    l->ready = l->nchunks; /* the last one too */
    l->done = 1;
    pthread_cond_signal(&l->handed);
    pthread_mutex_unlock(&l->lock);
    return NULL;
}

static void worker_free(nj_worker *k)
{
    for (nj_chunk *c = k->local.first, *next; c; c = next) {
        next = c->next;
        tp_free(c->texts.text);
        munmap(c, sizeof *c);
    }
    tp_free(k->local.kept);
    tp_free(k->r.buf);
    tp_free(k->w.doc.v);
    pthread_mutex_destroy(&k->local.lock);
    pthread_cond_destroy(&k->local.handed);
}

/* A text of a chunk interned, as the main thread interns it. */
static tp_str chunk_text(nj *n, const nj_chunk *c, tp_str at)
{
    size_t len;
    int nul;
    const char *s = arena_at(&c->texts, at, &len);
    return nsys_escaped(n->st, s, len, &nul);
}

/* One of the worker's rows appended as the main thread appends its own:
 * texts interned category first (nvtx_event's order), then the row and its
 * extension values in column order; *val steps over them. */
static int merge_row(nj *n, const nj_chunk *c, const nj_row *r, const int64_t **val)
{
    tp_event e = nsys_base_event();
    e.cat = r->how & NJ_CAT_TEXT ? chunk_text(n, c, r->cat) : r->cat;
    n->bad.row_unknown = n->bad.row_nul = 0;
    if (r->how & NJ_NAME_TEXT)
        e.name = chunk_text(n, c, r->name);
    else if (r->how & NJ_NAME_BASE)
        e.name = nsys_string_base(n->st, &n->strings, &n->bad, r->sid, &(tp_str){0});
    else
        e.name = r->name;
    if (r->how & NJ_SKIP)
        return TP_OK; /* counted by the worker */
    nsys_bad_row_done(&n->bad); /* the API name's lookup: the worker counted the rest */
    e.ts = r->ts, e.dur = r->dur, e.corr = r->corr, e.context = r->context;
    e.pid = r->pid, e.tid = r->tid, e.device = r->device, e.stream = r->stream;
    e.kind = r->kind;
    int rc = tp_trace_append(n->st, n->t, &e);
    if (rc != TP_OK)
        return rc;
    n->rows++;
    for (int x = 0; x < N_X && rc == TP_OK; x++)
        if (r->ext & (1u << x))
            rc = tp_trace_ext_set_i64(n->st, n->t, n->ext[x], n->rows - 1, *(*val)++);
    return rc;
}

/* A chunk's rows appended, then the chunk given back. */
static int merge_chunk(nj *n, nj_chunk *c)
{
    const int64_t *val = c->val;
    int rc = TP_OK;
    for (size_t i = 0; i < c->n && rc == TP_OK; i++)
        rc = merge_row(n, c, &c->row[i], &val);
    tp_free(c->texts.text);
    munmap(c, sizeof *c);
    return rc;
}

/* The worker joined; when this side failed (rc), stopped first: its part
 * is not read on for a result that is dropped (issue 31 review). */
static void stop_worker(nj *n, nj_worker *k, int rc)
{
    if (rc != TP_OK)
        atomic_store(&k->local.stop, 1);
    pthread_join(k->thread, NULL);
    if (rc != TP_OK && k->rc == NJ_STOPPED)
        tp_log(n->st, TP_LOG_INFO, "%s: second thread stopped early, after %zu lines of its part",
               n->path, k->w.line_no);
}

/* The worker's chunks appended as it hands them over, until it ends. */
static int merge(nj *n, nj_worker *k)
{
    nj_local *l = &k->local;
    nj_chunk *c, *next = NULL;
    size_t merged = 0, ready;
    int rc = TP_OK, done;
    do {
        pthread_mutex_lock(&l->lock);
        while (l->ready == merged && !l->done)
            pthread_cond_wait(&l->handed, &l->lock);
        ready = l->ready;
        done = l->done;
        pthread_mutex_unlock(&l->lock);
        for (; merged < ready && rc == TP_OK; merged++) {
            c = merged == 0 ? l->first : next;
            next = c->next; /* linked before it was handed over */
            rc = merge_chunk(n, c);
        }
    } while (!done && rc == TP_OK);
    stop_worker(n, k, rc);
    l->first = merged == 0 ? l->first : next; /* what is left, for worker_free */
    n->bad.row_unknown = n->bad.row_nul = 0;
    return rc;
}

/* The kept lines from kept[i] on that end within KEPT_WINDOW bytes of its
 * start (one at least): how many. */
static size_t kept_window(const nj_kept *kept, size_t i, size_t nkept)
{
    size_t j = i + 1;
    while (j < nkept && kept[j].off + kept[j].len - kept[i].off <= KEPT_WINDOW)
        j++;
    return j - i;
}

/* n bytes at off of fd into buf: TP_OK, else reported (a short read: the
 * file shrank since the first pass read it). */
static int read_at(nj *n, int fd, char *buf, size_t len, uint64_t off)
{
    size_t done = 0;
    while (done < len) {
        ssize_t got = pread(fd, buf + done, len - done, (off_t)(off + done));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return tp_fail(n->st, TP_EIO, "%s: read error: %s", n->path, strerror(errno));
        if (got == 0)
            return tp_fail(n->st, TP_EIO, "%s: the trace changed on disk during the run (it "
                           "ends early): its events cannot be read whole", n->path);
        done += (size_t)got;
    }
    return TP_OK;
}

/* The first pass's lines the worker kept, read again from the file a
 * window at a time, in order, numbered as one thread numbers them. */
static int kept_lines(nj *n, nj_worker *k)
{
    pthread_join(k->thread, NULL); /* its list complete */
    const nj_kept *kept = k->local.kept;
    size_t base = n->line_no, cap = 0;
    char *buf = NULL;
    int rc = TP_OK;
    for (size_t i = 0, w; i < k->local.nkept && rc == TP_OK; i += w) {
        w = kept_window(kept, i, k->local.nkept);
        size_t span = (size_t)(kept[i + w - 1].off + kept[i + w - 1].len - kept[i].off);
        if (span > cap) {
            tp_free(buf);
            if ((buf = tp_malloc(cap = span)) == NULL)
                return tp_fail(n->st, TP_ENOMEM, "%s: out of memory", n->path);
        }
        rc = read_at(n, k->r.fd, buf, span, kept[i].off);
        for (size_t j = i; j < i + w && rc == TP_OK; j++) {
            n->line_no = base + kept[j].line;
            rc = nj_line(n, buf + (kept[j].off - kept[i].off), kept[j].len, nj_strings_line);
        }
    }
    tp_free(buf);
    n->line_no = base;
    return rc;
}

/* Where the worker stopped, reported as one thread reports it there: a
 * read error, or the line it could not read, read again and parsed here
 * (jansson's message, its line number). */
static int worker_failed(nj *n, nj_worker *k)
{
    tp_log(n->st, TP_LOG_INFO, "%s: second thread stopped at line %zu (code %d)", n->path,
           n->line_no + k->w.line_no, k->rc);
    if (k->rc == TP_EIO)
        return tp_fail(n->st, TP_EIO, "%s: read error: %s", n->path, strerror(k->r.err));
    if (k->rc != TP_EFORMAT)
        return k->rc;
    char *line = tp_malloc(k->w.fail_len ? k->w.fail_len : 1);
    if (line == NULL)
        return TP_ENOMEM;
    ssize_t got = pread(k->r.fd, line, k->w.fail_len, (off_t)k->w.fail_off);
    int rc = got < 0 ? tp_fail(n->st, TP_EIO, "%s: read error: %s", n->path, strerror(errno))
                     : TP_OK;
    n->line_no += k->w.line_no;
    if (rc == TP_OK && (size_t)got == k->w.fail_len)
        rc = nj_line(n, line, k->w.fail_len, k->fn ? k->fn : nj_strings_line);
    tp_free(line);
    if (rc == TP_OK) /* it reads now */
        rc = tp_fail(n->st, TP_EIO, "%s: the trace changed on disk during the run (line %zu "
                     "differs): its events cannot be read whole", n->path, n->line_no);
    return rc;
}

static void add_bad(nsys_bad *to, const nsys_bad *b)
{
    to->backwards += b->backwards;
    to->not_integer += b->not_integer;
    to->bad_device += b->bad_device;
    to->unknown_ids += b->unknown_ids;
    to->nul_names += b->nul_names;
}

/* The worker's part as if read here: its lines or rows, then its counts
 * and digest; where it stopped, reported. */
static int take(nj *n, nj_worker *k)
{
    int rc = k->fn ? merge(n, k) : kept_lines(n, k);
    if (rc == TP_OK && k->rc != TP_OK)
        return worker_failed(n, k);
    if (rc != TP_OK)
        return rc;
    if (k->fn)
        tp_log(n->st, TP_LOG_INFO, "%s: events parsed on two threads (cut at byte %llu)",
               n->path, (unsigned long long)n->cut);
    add_bad(&n->bad, &k->w.bad);
    n->records += k->w.records;
    n->line_no += k->w.line_no;
    n->now[1] = k->w.now[1];
    n->last_newline = k->w.last_newline;
    return TP_OK;
}

static nj_worker *worker_start(nj *n, const nj_lines *r, int (*fn)(nj *, size_t))
{
    nj_worker *k = tp_calloc(1, sizeof *k);
    if (k == NULL)
        return NULL;
    k->w = *n; /* the second pass: the sealed tables shared, read only */
    k->w.local = &k->local;
    k->w.line_no = k->w.records = k->w.rows = 0;
    memset(&k->w.bad, 0, sizeof k->w.bad);
    memset(&k->w.doc, 0, sizeof k->w.doc);
    k->r = (nj_lines){.fd = r->fd};
    k->fn = fn == nj_event_line ? fn : NULL;
    pthread_mutex_init(&k->local.lock, NULL);
    pthread_cond_init(&k->local.handed, NULL);
    if (pthread_create(&k->thread, NULL, worker_main, k) == 0)
        return k;
    worker_free(k);
    tp_free(k);
    return NULL;
}

int nj_split_pass(nj *n, nj_lines *r, int (*fn)(nj *, size_t))
{
    nj_worker *k = worker_start(n, r, fn);
    int rc = nj_each_part(n, r, fn, 0);
    if (k != NULL && rc != TP_OK)
        atomic_store(&k->local.stop, 1); /* before main_ended: a held worker reads nothing */
    if (k != NULL)
        atomic_store(&k->local.main_ended, 1);
    if (k == NULL) /* no thread: one thread reads on */
        return rc == TP_OK ? nj_each_part(n, r, fn, 1) : rc;
    if (rc == TP_OK)
        rc = take(n, k);
    else
        stop_worker(n, k, rc); /* the first error is this part's */
    worker_free(k);
    tp_free(k);
    return rc;
}
