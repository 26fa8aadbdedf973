/*
 * reader nsys_json: the Nsight Systems JSON-lines export (`nsys export
 * --type json [--separate-strings true]`, FORMATS.md section 2), mapped as
 * the SQLite reader maps its tables.
 *
 * One JSON message per line, no enclosing array: events carry "Type"
 * (TraceProcessEvent: API calls, CudaEvent: kernels, copies, sets, syncs,
 * NvtxEvent: ranges and marks), table records a lowercase "type" (String,
 * ThreadName) or, without --separate-strings, one {"data": [...]} line of
 * strings.  The string table may come after the events, so the file is read
 * twice: strings first, then events (a big file's second half on a thread
 * of its own: nsys_json_split.c).  64-bit values are quoted strings
 * (protobuf's JSON mapping) and are parsed from their digits; both forms
 * are accepted for every number.  A line that is not JSON fails with its
 * line number.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

#include "nsys_json.h"

TP_HIDDEN const tp_option nsys_json_options[] = {
    TP_OPTION_REQUIRED_INPUT_FILE("path", nj_config, path, "the JSON-lines export"),
    NSYS_KERNEL_NAME_OPTION(nj_config),
    TP_OPTION_END};

/* Up to 18 digits, after an optional '-': *out and 1 (strtoll's value), else
 * 0 (strtoll decides). */
static int short_digits(const char *s, size_t len, int64_t *out)
{
    size_t i = s[0] == '-';
    if (len <= i || len - i > 18)
        return 0;
    int64_t v = 0;
    for (size_t k = i; k < len; k++) {
        if (s[k] < '0' || s[k] > '9')
            return 0;
        v = v * 10 + (s[k] - '0');
    }
    *out = i ? -v : v;
    return 1;
}

/* A number given bare or as a quoted string of digits; 0 when absent.
 * Text that is not an integer, a real beyond int64 or NaN marks the event
 * damaged (n->row_bad). */
static int64_t num_at(nj *n, size_t at)
{
    const nj_val *v = &n->doc.v[at];
    int64_t out = 0;
    if (at == 0 || v->type == NJ_INT)
        return at ? v->num.i : 0;
    if (v->type == NJ_STR) {
        /* an empty string's s[0] is its closing quote: in the line */
        if (short_digits(v->s, v->len, &out))
            return out;
        const char *text = nj_cstr(&n->doc, at); /* strtoll needs the NUL */
        char *end;
        errno = 0;
        out = strtoll(text, &end, 10);
        if (errno == 0 && end != text && *end == '\0')
            return out;
    } else if (v->type == NJ_REAL && tp_rows_f64_ns(v->num.f, &out)) {
        return out;
    }
    n->row_bad = 1;
    return 0;
}

NJ_INLINE int64_t num(nj *n, size_t o, const char *key) { return num_at(n, nj_get(&n->doc, o, key)); }

NJ_INLINE int has(nj *n, size_t o, const char *key) { return nj_get(&n->doc, o, key) != 0; }

static int put_string(nj *n, int64_t id, const char *v, size_t len)
{
    return nsys_string_put(n->st, &n->strings, id, v, len);
}

static tp_str string_of(nj *n, int64_t id) { return nsys_string(&n->strings, &n->bad, id); }

/* The event's times into e: 1, or 0 (counted) when the event is damaged. */
NJ_INLINE int event_times(nj *n, size_t o, const char *start, const char *end, tp_event *e)
{
    int64_t first = num(n, o, start), last = num(n, o, end);
    return nsys_times(&n->bad, n->row_bad, first, last, e);
}

/* Pass 1: the string table, in either form, and the NVTX domains. */
int nj_strings_line(nj *n, size_t o)
{
    nj_doc *d = &n->doc;
    size_t nvtx = nj_get(d, o, "NvtxEvent");
    n->row_bad = 0;
    if (nvtx && num(n, nvtx, "Type") == 75) {
        int64_t pid = pid_of(num(n, nvtx, "GlobalTid")), domain = num(n, nvtx, "DomainId");
        if (n->row_bad) {
            n->bad.not_integer++;
            return TP_OK;
        }
        return nsys_domain_add(n->st, &n->domains, pid, domain, nj_cstr(d, nj_get(d, nvtx, "Text")));
    }
    const char *type = nj_cstr(d, nj_get(d, o, "type"));
    if (type && strcmp(type, "String") == 0) {
        size_t v = nj_get(d, o, "value");
        int64_t id = num(n, o, "id");
        if (n->row_bad) {
            n->bad.not_integer++;
            return TP_OK;
        }
        return put_string(n, id, nj_str(d, v) ? nj_str(d, v) : "", nj_str_len(d, v));
    }
    size_t data = nj_get(d, o, "data");
    if (nj_type(d, data) != NJ_ARR || d->v[data].end == data + 1 || nj_type(d, data + 1) != NJ_STR)
        return TP_OK;
    int64_t i = 0;
    for (size_t v = data + 1; v < d->v[data].end; v = d->v[v].end, i++) {
        int rc = put_string(n, i, nj_str(d, v), nj_str_len(d, v));
        if (rc != TP_OK)
            return rc;
    }
    return TP_OK;
}

static int append(nj *n, tp_event *e)
{
    if (n->local != NULL)
        return nj_local_row(n, e);
    if (n->row_bad) {
        n->bad.not_integer++;
        return TP_OK;
    }
    nsys_bad_row_done(&n->bad);
    int rc = tp_trace_append(n->st, n->t, e);
    if (rc == TP_OK)
        n->rows++;
    return rc;
}

/* An extension value of the row just appended. */
static int ext_put(nj *n, int which, int64_t v)
{
    if (n->local != NULL)
        return nj_local_ext(n, which, v);
    return tp_trace_ext_set_i64(n->st, n->t, n->ext[which], n->rows - 1, v);
}

/* A text named or categorised by (NJ_NAME_TEXT, NJ_CAT_TEXT), interned with
 * its NUL bytes escaped; the worker keeps it for the main thread. */
static tp_str row_text(nj *n, const char *s, size_t len, unsigned how)
{
    if (n->local != NULL)
        return nj_local_text(n, s, len, how);
    return nsys_name(n->st, &n->bad, s, len);
}

/* An NVTX domain's category (nsys_domain_cat), "nvtx" as a text. */
static tp_str domain_cat(nj *n, int64_t pid, int64_t domain)
{
    const nsys_entry *e = nsys_table_get(&n->domains, pid, domain);
    return e ? e->value : row_text(n, "nvtx", 4, NJ_CAT_TEXT);
}

/* An API call's name: string id without its _vNNNN suffix (the worker
 * leaves it to the main thread, which keeps each id's once worked out). */
static tp_str api_name(nj *n, int64_t id)
{
    tp_str raw;
    if (n->local == NULL)
        return nsys_string_base(n->st, &n->strings, &n->bad, id, &raw);
    n->row_how |= NJ_NAME_BASE;
    n->row_sid = id;
    return 0;
}

static int set_ext(nj *n, int which, size_t o, const char *key)
{
    size_t at = nj_get(&n->doc, o, key);
    if (at == 0)
        return TP_OK;
    int was_bad = n->row_bad;
    int64_t v = num_at(n, at);
    int bad = n->row_bad;
    n->row_bad = was_bad; /* a damaged extension value is left unset */
    return bad ? TP_OK : ext_put(n, which, v);
}

/* A copy's memory kind (srcKind, dstKind: ENUM_CUDA_MEM_KIND's numbering)
 * as the SDK's tp_memkind; left null when absent, damaged or unknown. */
static int set_memkind(nj *n, int which, size_t o, const char *key)
{
    size_t at = nj_get(&n->doc, o, key);
    if (at == 0)
        return TP_OK;
    int was_bad = n->row_bad;
    tp_memkind k = tp_memkind_of_nsys(num_at(n, at));
    int bad = n->row_bad;
    n->row_bad = was_bad;
    if (bad || k == TP_MEMKIND_UNKNOWN)
        return TP_OK;
    return ext_put(n, which, (int64_t)k);
}

static int api_event(nj *n, size_t o)
{
    int64_t cls = num(n, o, "eventClass");
    if (!has(n, o, "name") || cls == 3)
        return TP_OK; /* a start marker carrying no call; the profiler's own overhead */
    tp_event e = nsys_base_event();
    if (!event_times(n, o, "startNs", "endNs", &e))
        return TP_OK;
    e.kind = cls == 27 ? TP_KIND_OS_RUNTIME : TP_KIND_RUNTIME;
    e.cat = cls == 27   ? n->cat_osrt
            : cls == 1  ? n->cat_driver
            : cls == 28 ? n->cat_cudnn
            : cls == 29 ? n->cat_cublas
                        : n->cat_runtime;
    int64_t tid = num(n, o, "globalTid");
    e.pid = pid_of(tid);
    e.tid = tid_of(tid);
    int64_t corr = num(n, o, "correlationId");
    e.corr = corr > 0 && cls != 27 ? corr : TP_NONE;
    e.name = api_name(n, num(n, o, "name"));
    return append(n, &e);
}

static int cuda_event(nj *n, size_t o)
{
    tp_event e = nsys_base_event();
    if (!event_times(n, o, "startNs", "endNs", &e))
        return TP_OK;
    int64_t device = num(n, o, "deviceId"), stream = num(n, o, "streamId");
    if (!nsys_device_ok(&n->bad, device) ||
        !nsys_device_ok(&n->bad, stream == 4294967295LL ? 0 : stream))
        return TP_OK;
    e.device = (int32_t)device;
    e.stream = stream == 4294967295LL ? -1 : (int32_t)stream;
    int64_t corr = num(n, o, "correlationId");
    e.corr = corr > 0 ? corr : TP_NONE;
    e.pid = pid_of(num(n, o, "globalPid"));
    e.tid = e.stream;
    e.context = nsys_context(num(n, o, "contextId"));
    size_t k = nj_get(&n->doc, o, "kernel"), cp = nj_get(&n->doc, o, "memcpy");
    size_t ms = nj_get(&n->doc, o, "memset"), sy = nj_get(&n->doc, o, "sync");
    char name[32];
    if (k) {
        e.kind = TP_KIND_KERNEL;
        e.cat = n->cat_kernel;
        size_t dm = nj_get(&n->doc, k, "demangledName");
        tp_str demangled = dm ? string_of(n, num_at(n, dm)) : 0;
        e.name = nsys_kernel_name(n->short_names, demangled, string_of(n, num(n, k, "shortName")));
    } else if (cp) {
        e.kind = TP_KIND_MEMCPY;
        e.cat = n->cat_memcpy;
        int len = snprintf(name, sizeof name, "Memcpy %s", copy_kind(num(n, cp, "copyKind")));
        e.name = row_text(n, name, (size_t)len, NJ_NAME_TEXT);
    } else if (ms) {
        e.kind = TP_KIND_MEMSET;
        e.cat = n->cat_memset;
        e.name = row_text(n, "Memset", 6, NJ_NAME_TEXT);
    } else if (sy) {
        e.kind = TP_KIND_SYNC;
        e.cat = n->cat_sync;
        e.name = row_text(n, "Sync", 4, NJ_NAME_TEXT);
    } else {
        return TP_OK; /* a CUDA event of a kind not mapped */
    }
    int rc = append(n, &e);
    static const char *const kcols[] = {"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
                                        "registersPerThread", "staticSharedMemory",
                                        "dynamicSharedMemory"};
    for (int i = 0; k && i < 9 && rc == TP_OK; i++)
        rc = set_ext(n, X_GRID_X + i, k, kcols[i]);
    if (rc == TP_OK && (cp || ms))
        rc = set_ext(n, X_BYTES, cp ? cp : ms, "sizebytes");
    if (rc == TP_OK && cp)
        rc = set_ext(n, X_COPY_KIND, cp, "copyKind");
    if (rc == TP_OK && cp)
        rc = set_memkind(n, X_SRC_KIND, cp, "srcKind");
    if (rc == TP_OK && cp)
        rc = set_memkind(n, X_DST_KIND, cp, "dstKind");
    return rc;
}

static int nvtx_event(nj *n, size_t o)
{
    int64_t type = num(n, o, "Type");
    if (type != 34 && type != 59 && type != 60)
        return TP_OK;
    tp_event e = nsys_base_event();
    if (!has(n, o, "EndTimestamp") || type == 34)
        e.ts = num(n, o, "Timestamp"); /* a mark, or a range never closed: zero length */
    else if (!event_times(n, o, "Timestamp", "EndTimestamp", &e))
        return TP_OK;
    e.kind = TP_KIND_ANNOTATION;
    e.pid = pid_of(num(n, o, "GlobalTid"));
    e.cat = domain_cat(n, e.pid, num(n, o, "DomainId"));
    e.tid = tid_of(num(n, o, "GlobalTid"));
    size_t at = nj_get(&n->doc, o, "Text");
    e.name = nj_type(&n->doc, at) == NJ_STR
                 ? row_text(n, nj_str(&n->doc, at), nj_str_len(&n->doc, at), NJ_NAME_TEXT)
                 : string_of(n, num(n, o, "TextId"));
    return append(n, &e);
}

/* Pass 2: one event line. */
int nj_event_line(nj *n, size_t o)
{
    size_t v;
    n->row_bad = n->bad.row_unknown = n->bad.row_nul = 0;
    n->row_how = 0;
    if (has(n, o, "Type") || has(n, o, "type") || has(n, o, "data"))
        n->records++;
    if ((v = nj_get(&n->doc, o, "TraceProcessEvent")))
        return api_event(n, v);
    if ((v = nj_get(&n->doc, o, "CudaEvent")))
        return cuda_event(n, v);
    if ((v = nj_get(&n->doc, o, "NvtxEvent")))
        return nvtx_event(n, v);
    return TP_OK; /* tables, thread names, other event types */
}

/* Pass 1 need not parse event lines, but for NVTX domain creation (75):
 * exports write "Type" first, so the prefix tells (other orders are parsed). */
static int event_not_domain(const char *line, size_t len)
{
    return len >= 8 && memcmp(line, "{\"Type\":", 8) == 0 &&
           (len < 11 || memcmp(line + 8, "75,", 3) != 0);
}

#define NJ_BLOCK (1u << 20)

/* Room after end: the unread part moved to the front, the buffer grown
 * when a line fills it. */
static int lines_room(nj_lines *r)
{
    if (r->start > 0) {
        memmove(r->buf, r->buf + r->start, r->end - r->start);
        r->end -= r->start;
        r->start = 0;
    }
    if (r->end < r->cap)
        return TP_OK;
    size_t cap = r->cap ? r->cap * 2 : NJ_BLOCK;
    char *buf = tp_realloc(r->buf, cap);
    if (buf == NULL)
        return TP_ENOMEM;
    r->buf = buf;
    r->cap = cap;
    return TP_OK;
}

/* The next line, its newline included (the last may lack one): its length,
 * 0 at the end of the part, or an error (r->err holds errno on TP_EIO). */
static ssize_t next_line(nj_lines *r, char **line)
{
    for (;;) {
        char *from = r->buf + r->start;
        char *nl = r->end > r->start + r->scanned
                       ? memchr(from + r->scanned, '\n', r->end - r->start - r->scanned)
                       : NULL;
        if (nl != NULL || r->eof) {
            size_t len = nl ? (size_t)(nl - from) + 1 : r->end - r->start;
            *line = from;
            r->start += len;
            r->scanned = 0;
            return (ssize_t)len;
        }
        r->scanned = r->end - r->start;
        int rc = lines_room(r);
        if (rc != TP_OK)
            return rc;
        size_t want = r->cap - r->end;
        if (r->stop - r->off < want)
            want = (size_t)(r->stop - r->off);
        ssize_t got = want ? pread(r->fd, r->buf + r->end, want, (off_t)r->off) : 0;
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            r->err = errno;
            return TP_EIO;
        }
        r->eof = got == 0;
        tp_digest_add(r->bytes, r->buf + r->end, (size_t)got);
        r->end += (size_t)got;
        r->off += (uint64_t)got;
    }
}

/* The file changed since it was opened (cut, grown, rewritten): a message,
 * or NULL. */
static const char *changed(const nj *n, int fd)
{
    struct stat now;
    if (fstat(fd, &now) != 0)
        return "it cannot be examined again";
    if (now.st_size != n->at_open.st_size)
        return now.st_size < n->at_open.st_size ? "it shrank" : "it grew";
    if (now.st_mtim.tv_sec != n->at_open.st_mtim.tv_sec ||
        now.st_mtim.tv_nsec != n->at_open.st_mtim.tv_nsec)
        return "it was modified";
    return NULL;
}

static int parts(const nj *n) { return n->cut ? 2 : 1; }

/* After a pass: the file read to its end, unchanged, the last line whole. */
static int pass_done(nj *n, const nj_lines *r)
{
    const char *why = changed(n, r->fd);
    if (why != NULL)
        return tp_fail(n->st, TP_EIO, "%s: the trace changed on disk during the run (%s): its "
                       "events cannot be read whole", n->path, why);
    if (n->lines != 0 && n->line_no != n->lines)
        return tp_fail(n->st, TP_EIO, "%s: the trace changed on disk during the run (%zu lines "
                       "read, then %zu)", n->path, n->lines, n->line_no);
    int same = 1;
    for (int k = 0; k < parts(n); k++)
        same &= n->now[k] == n->first[k];
    if (n->lines != 0 && !same)
        return tp_fail(n->st, TP_EIO, "%s: the trace changed on disk during the run (its bytes "
                       "differ between the two passes, size and mtime kept): its events cannot be "
                       "read whole", n->path);
    if (!n->last_newline)
        return tp_fail(n->st, TP_EFORMAT, "%s:%zu: the last line has no end (a file cut short; "
                       "an export ends every line with a newline)", n->path, n->line_no);
    n->lines = n->line_no;
    memcpy(n->first, n->now, sizeof n->first);
    return TP_OK;
}

/* The line as values in n->doc: scanned, else parsed by jansson (*owner
 * then holds jansson's value, to free after the line is mapped).  The
 * worker only says it cannot (the main thread reads its part again). */
static int parse_line(nj *n, char *line, size_t len, json_t **owner)
{
    int rc = nj_doc_scan(&n->doc, line, len);
    if (rc != 0)
        return rc == 1 ? TP_OK : rc;
    json_error_t err;
    json_t *o = json_loadb(line, len, JSON_ALLOW_NUL, &err);
    if (!json_is_object(o)) {
        json_decref(o);
        if (n->local != NULL)
            return TP_EFORMAT;
        return tp_fail(n->st, TP_EFORMAT, "%s:%zu:%d: %s%s", n->path, n->line_no,
                       err.column > 0 ? err.column : 1,
                       o ? "a line that is not a JSON object (an nsys JSON export has one "
                           "message per line)"
                         : err.text,
                       n->line_no == 1 ? " (not JSON lines; a Chrome or Kineto JSON trace "
                                         "needs the kineto reader)"
                                       : "");
    }
    *owner = o;
    return nj_doc_from_json(&n->doc, o);
}

/* The first part ends after a newline: one lacking it was cut there (the
 * file changed after the cut was chosen). */
static int part_cut_short(nj *n)
{
    if (n->local != NULL)
        return TP_EIO;
    return tp_fail(n->st, TP_EIO, "%s: the trace changed on disk during the run (line %zu "
                   "ends early): its events cannot be read whole", n->path, n->line_no);
}

int nj_line(nj *n, char *line, size_t len, int (*fn)(nj *, size_t))
{
    json_t *owner = NULL;
    int rc = parse_line(n, line, len, &owner);
    if (rc == TP_OK)
        rc = fn(n, 1);
    json_decref(owner);
    return rc;
}

/* Where a line of r's buffer starts in the file. */
static uint64_t line_offset(const nj_lines *r, const char *line)
{
    return r->off - (r->end - (size_t)(line - r->buf));
}

int nj_each_part(nj *n, nj_lines *r, int (*fn)(nj *, size_t), int part)
{
    char *line = NULL;
    ssize_t got;
    size_t len = 0;
    int rc = TP_OK, first_pass = fn != nj_event_line;
    tp_digest_init(&n->bytes);
    r->bytes = &n->bytes;
    r->off = part == 0 ? 0 : n->cut;
    r->stop = part == 0 && n->cut ? n->cut : UINT64_MAX;
    r->start = r->end = r->scanned = 0;
    r->eof = 0;
    while (rc == TP_OK && (got = next_line(r, &line)) > 0) {
        len = (size_t)got;
        if (nj_local_stopped(n))
            return NJ_STOPPED; /* the main thread failed: nothing of this part is kept */
        n->line_no++;
        n->last_newline = line[len - 1] == '\n';
        if (!n->last_newline && r->stop != UINT64_MAX)
            return part_cut_short(n);
        if (line[0] == '\n' || (first_pass && event_not_domain(line, len)))
            continue;
        rc = fn != NULL ? nj_line(n, line, len, fn) : nj_local_keep(n, line_offset(r, line), len);
    }
    n->now[part] = tp_digest_value(&n->bytes);
    if (rc != TP_OK && line != NULL) {
        n->fail_off = line_offset(r, line);
        n->fail_len = len;
    }
    if (rc == TP_OK && got == TP_EIO && n->local == NULL)
        return tp_fail(n->st, TP_EIO, "%s: read error: %s", n->path, strerror(r->err));
    return rc == TP_OK && got < 0 ? (int)got : rc;
}

/* One pass over the parts, on two threads when the file is cut. */
static int each_line(nj *n, nj_lines *r, int (*fn)(nj *, size_t))
{
    int rc = TP_OK;
    n->line_no = 0;
    n->last_newline = 1;
    rewind(r->in);
    if (n->cut)
        rc = nj_split_pass(n, r, fn);
    else
        for (int k = 0; rc == TP_OK && k < parts(n); k++)
            rc = nj_each_part(n, r, fn, k);
    return rc == TP_OK ? pass_done(n, r) : rc;
}

static int prepare(nj *n)
{
    static const char *const cats[] = {"cuda_runtime", "cuda_driver", "osrt", "kernel",
                                       "gpu_memcpy", "gpu_memset", "cuda_sync", "cudnn",
                                       "cublas"};
    tp_str *dst[] = {&n->cat_runtime, &n->cat_driver, &n->cat_osrt,  &n->cat_kernel,
                     &n->cat_memcpy,  &n->cat_memset, &n->cat_sync,  &n->cat_cudnn,
                     &n->cat_cublas};
    for (int i = 0; i < 9; i++)
        if ((*dst[i] = tp_intern(n->st, cats[i], strlen(cats[i]))) == TP_STR_ERROR)
            return TP_ENOMEM;
    for (int i = 0; i < N_X; i++)
        if ((n->ext[i] = tp_trace_ext_add(n->st, n->t, nsys_ext_names[i], TP_COL_I64)) < 0)
            return TP_ENOMEM;
    int rc = tp_trace_info_set_str(n->st, n->t, "format", "nsys-json");
    return rc == TP_OK ? nsys_set_label(n->st, n->t, n->path) : rc;
}

int nsys_json_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const nj_config *cfg = config;
    nj n = {.st = st, .t = tp_stage_trace(st), .path = cfg->path,
            .short_names = nsys_short_names(cfg->kernel_name)};
    FILE *in = fopen(cfg->path, "r");
    if (in == NULL)
        return tp_fail(st, TP_EIO, "%s: cannot open: %s", cfg->path, strerror(errno));
    if (fstat(fileno(in), &n.at_open) != 0 || !S_ISREG(n.at_open.st_mode)) {
        fclose(in);
        return tp_fail(st, TP_EIO, "%s: not a regular file (the export is read twice, so a pipe "
                       "or device cannot be)", cfg->path);
    }
    nj_lines lines = {.in = in, .fd = fileno(in), .bytes = &n.bytes};
    nj_split_plan(&n, lines.fd);
    int rc = prepare(&n);
    if (rc == TP_OK)
        rc = each_line(&n, &lines, nj_strings_line);
    nsys_table_seal(&n.strings);
    nsys_table_seal(&n.domains);
    if (rc == TP_OK)
        rc = each_line(&n, &lines, nj_event_line);
    fclose(in);
    tp_free(lines.buf);
    tp_free(n.doc.v);
    if (rc == TP_OK && n.records > 0)
        rc = tp_rows_span_check(st, n.t, cfg->path);
    if (rc == TP_OK && n.records == 0)
        rc = tp_fail(st, TP_EFORMAT, "%s: no Nsight Systems JSON records (lines with \"Type\", "
                     "\"type\" or \"data\")%s", cfg->path,
                     n.line_no == 1 ? "; a Chrome or Kineto JSON trace needs the kineto reader"
                                    : "");
    if (rc == TP_OK) {
        nsys_bad_warn(st, cfg->path, &n.bad);
        tp_log(st, TP_LOG_INFO, "%s: %zu events, %zu strings", cfg->path, n.rows, n.strings.n);
    }
    nsys_table_free(&n.strings);
    nsys_table_free(&n.domains);
    return rc == TP_ENOMEM ? tp_fail(st, rc, "%s: out of memory", cfg->path) : rc;
}

/* JSON lines whose first message is an nsys event or table record. */
int nsys_json_probe(const unsigned char *head, size_t n, const char *path)
{
    (void)path;
    static const char *const marks[] = {"{\"Type\":", "{\"type\":\"String\"", "{\"data\":[",
                                        "\"TraceProcessEvent\"", "\"CudaEvent\"", "\"NvtxEvent\""};
    size_t m = n < 4096 ? n : 4096;
    for (size_t k = 0; k < sizeof marks / sizeof *marks; k++) {
        size_t len = strlen(marks[k]);
        for (size_t i = 0; i + len <= m; i++)
            if (memcmp(head + i, marks[k], len) == 0)
                return 85;
    }
    return 0;
}
