/*
 * reader nsys_json: the second pass on two threads (issue 31).
 *
 * The file is cut at a line start near the middle, chosen before the
 * first pass; each pass counts and digests each part on its own, the main
 * thread the first, a worker thread the second.  In the first pass the
 * worker keeps the few lines that are not events (string table records,
 * NVTX domains), which the main thread then reads after its own, in
 * order.  After it the string table and the domains are sealed: from then
 * on they are only read, and in the second pass the worker reads the
 * second part's events while the main thread reads the first part's.  The worker never touches
 * the run (the core is not thread-safe): it keeps its rows here, in chunks,
 * with the texts it would have interned (NVTX texts, copy names, the "nvtx"
 * category) in an arena of its own and the API calls' string ids, whose
 * names without _vNNNN the main thread works out once per id.  When both
 * are done the main thread appends the worker's rows after its own, in
 * order, interning their texts as it goes, so the trace, its extension
 * columns and the string pool (every text in the same order) are those of
 * one thread.  The worker gives up on anything unusual (a line that is not
 * JSON, a read error, no memory): the main thread then reads the second
 * part itself, so errors are reported exactly as by one thread.
 */
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "nsys_json.h"

#define SPLIT_MIN_SIZE (32u << 20) /* smaller files are not worth a thread */
/* The cut, in % of the file: the main thread also appends the worker's
 * rows, so its part is the smaller. */
#define SPLIT_MAIN_PERCENT 45
#define CUT_PROBE (64u << 10) /* bytes searched for a newline at the cut */
#define CHUNK_ROWS 16384

/* A row as the worker read it (the fields of tp_event an nsys row sets). */
typedef struct nj_row {
    int64_t ts, dur, corr, context, sid; /* sid: NJ_NAME_BASE's string id */
    int32_t pid, tid, device, stream;
    tp_str name, cat; /* pool ids, or (NJ_NAME_TEXT, NJ_CAT_TEXT) offsets in the arena */
    uint16_t ext;     /* the extension values set, one bit per column (X_*) */
    uint8_t kind, how;
} nj_row;

/* Rows and their extension values, in that order, mapped from the kernel
 * so each chunk is given back as soon as it is appended (the trace grows
 * while the worker's rows shrink); pages never written cost nothing. */
typedef struct nj_chunk {
    struct nj_chunk *next;
    size_t n, nval;
    nj_row row[CHUNK_ROWS];
    int64_t val[CHUNK_ROWS * N_X];
} nj_chunk;

/* A first-pass line the worker kept: its text in the arena, its number
 * counted from the cut. */
typedef struct nj_kept {
    tp_str at;
    size_t line;
} nj_kept;

struct nj_local {
    nj_chunk *first, *last;
    char *text; /* texts back to back, each after its length (uint32_t) */
    size_t ntext, cap_text;
    nj_kept *kept;
    size_t nkept, cap_kept;
    int failed; /* out of memory: the worker gives up */
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

tp_str nj_local_text(nj *n, const char *s, size_t len, unsigned how)
{
    nj_local *l = n->local;
    uint32_t len32 = (uint32_t)len;
    size_t need = l->ntext + sizeof len32 + len;
    if (len > UINT32_MAX || need > UINT32_MAX) {
        l->failed = 1;
        return 0;
    }
    if (need > l->cap_text) {
        size_t cap = l->cap_text ? l->cap_text * 2 : 1u << 16;
        while (cap < need)
            cap *= 2;
        char *text = tp_realloc(l->text, cap);
        if (text == NULL) {
            l->failed = 1;
            return 0;
        }
        l->text = text;
        l->cap_text = cap;
    }
    tp_str at = (tp_str)l->ntext;
    memcpy(l->text + l->ntext, &len32, sizeof len32);
    if (len > 0)
        memcpy(l->text + l->ntext + sizeof len32, s, len);
    l->ntext = need;
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
    if (l->last == NULL || l->last->n == CHUNK_ROWS) {
        nj_chunk *c = chunk_new();
        if (c == NULL)
            return TP_ENOMEM;
        if (l->last)
            l->last->next = c;
        else
            l->first = c;
        l->last = c;
    }
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

int nj_local_keep(nj *n, const char *line, size_t len)
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
    tp_str at = nj_local_text(n, line, len, 0);
    if (l->failed)
        return TP_ENOMEM;
    l->kept[l->nkept++] = (nj_kept){at, n->line_no};
    return TP_OK;
}

/* ---- the cut */

void nj_split_plan(nj *n, int fd)
{
    uint64_t size = (uint64_t)n->at_open.st_size;
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

/* ---- the second pass */

typedef struct nj_worker {
    nj w;        /* the reader's state as the worker sees it */
    nj_lines r;  /* its own buffer; the descriptor shared (pread) */
    nj_local local;
    int (*fn)(nj *, size_t); /* nj_event_line, or NULL: keep the first pass's lines */
    pthread_t thread;
    int rc;
} nj_worker;

static void *worker_main(void *arg)
{
    nj_worker *k = arg;
    k->rc = nj_each_part(&k->w, &k->r, k->fn, 1);
    if (k->rc == TP_OK && k->local.failed)
        k->rc = TP_ENOMEM;
    return NULL;
}

static void worker_free(nj_worker *k)
{
    for (nj_chunk *c = k->local.first, *next; c; c = next) {
        next = c->next;
        munmap(c, sizeof *c);
    }
    k->local.first = k->local.last = NULL;
    tp_free(k->local.text);
    tp_free(k->local.kept);
    tp_free(k->r.buf);
    tp_free(k->w.doc.v);
}

/* A text of the worker's arena: its bytes, *len of them. */
static char *arena_at(const nj_local *l, tp_str at, size_t *len)
{
    uint32_t len32;
    memcpy(&len32, l->text + at, sizeof len32);
    *len = len32;
    return l->text + at + sizeof len32;
}

/* A text of the worker's arena interned, as the main thread interns it. */
static tp_str arena_text(nj *n, const nj_local *l, tp_str at)
{
    size_t len;
    int nul;
    const char *s = arena_at(l, at, &len);
    return nsys_escaped(n->st, s, len, &nul);
}

/* One of the worker's rows appended as the main thread appends its own:
 * texts interned category first (nvtx_event's order), then the row and its
 * extension values in column order; *val steps over them. */
static int merge_row(nj *n, const nj_local *l, const nj_row *r, const int64_t **val)
{
    tp_event e = nsys_base_event();
    e.cat = r->how & NJ_CAT_TEXT ? arena_text(n, l, r->cat) : r->cat;
    n->bad.row_unknown = n->bad.row_nul = 0;
    if (r->how & NJ_NAME_TEXT)
        e.name = arena_text(n, l, r->name);
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

static void add_bad(nsys_bad *to, const nsys_bad *b)
{
    to->backwards += b->backwards;
    to->not_integer += b->not_integer;
    to->bad_device += b->bad_device;
    to->unknown_ids += b->unknown_ids;
    to->nul_names += b->nul_names;
}

/* The first pass's lines the worker kept, read in order, numbered as one
 * thread numbers them. */
static int kept_lines(nj *n, nj_worker *k)
{
    size_t base = n->line_no;
    int rc = TP_OK;
    for (size_t i = 0; i < k->local.nkept && rc == TP_OK; i++) {
        size_t len;
        char *line = arena_at(&k->local, k->local.kept[i].at, &len);
        n->line_no = base + k->local.kept[i].line;
        rc = nj_line(n, line, len, nj_strings_line);
    }
    n->line_no = base;
    return rc;
}

/* The worker's rows after the main thread's, each chunk given back once
 * appended. */
static int merge(nj *n, nj_worker *k)
{
    int rc = TP_OK;
    for (nj_chunk *c = k->local.first, *next; c; c = next) {
        const int64_t *val = c->val;
        for (size_t i = 0; i < c->n && rc == TP_OK; i++)
            rc = merge_row(n, &k->local, &c->row[i], &val);
        next = c->next;
        k->local.first = next;
        munmap(c, sizeof *c);
        if (rc != TP_OK)
            return rc;
    }
    n->bad.row_unknown = n->bad.row_nul = 0;
    tp_log(n->st, TP_LOG_INFO, "%s: events parsed on two threads (cut at byte %llu)", n->path,
           (unsigned long long)n->cut);
    return TP_OK;
}

/* The worker's part as if read here: its lines, counts and digest. */
static int adopt(nj *n, nj_worker *k)
{
    int rc = k->fn ? merge(n, k) : kept_lines(n, k);
    if (rc != TP_OK)
        return rc;
    add_bad(&n->bad, &k->w.bad);
    n->records += k->w.records;
    n->line_no += k->w.line_no;
    n->now[1] = k->w.now[1];
    n->last_newline = k->w.last_newline;
    return TP_OK;
}

int nj_split_pass(nj *n, nj_lines *r, int (*fn)(nj *, size_t))
{
    nj_worker *k = tp_calloc(1, sizeof *k);
    int started = 0;
    if (k != NULL) {
        k->w = *n; /* the second pass: the sealed tables shared, read only */
        k->w.local = &k->local;
        k->w.line_no = k->w.records = k->w.rows = 0;
        memset(&k->w.bad, 0, sizeof k->w.bad);
        memset(&k->w.doc, 0, sizeof k->w.doc);
        k->r = (nj_lines){.fd = r->fd};
        k->fn = fn == nj_event_line ? fn : NULL;
        started = pthread_create(&k->thread, NULL, worker_main, k) == 0;
    }
    int rc = nj_each_part(n, r, fn, 0);
    if (started)
        pthread_join(k->thread, NULL);
    if (rc == TP_OK && started && k->rc == TP_OK)
        rc = adopt(n, k);
    else if (rc == TP_OK) { /* the worker gave up: its part read here, errors as one thread's */
        if (started)
            tp_log(n->st, TP_LOG_INFO, "%s: second thread gave up (code %d); its part read "
                   "on this one", n->path, k->rc);
        rc = nj_each_part(n, r, fn, 1);
    }
    if (k != NULL)
        worker_free(k);
    tp_free(k);
    return rc;
}
