/* nsys readers: the string table and the NVTX domains, held as arrays
 * sorted by key and searched by bisection, so that memory follows the
 * rows in the file (never the largest id: one id of 2^28 must not take
 * 2 GiB) and a lookup is O(log n) (160k NVTX ranges against their domains
 * were quadratic); and the count of damaged rows, warned once. */
#ifndef TRACEPIPE_NSYS_TABLES_H
#define TRACEPIPE_NSYS_TABLES_H

#include <stdint.h>
#include <stdlib.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

/* What a reader skipped or repaired, warned at the end of its run. */
typedef struct nsys_bad {
    size_t backwards;   /* rows ending before they start (or spans beyond int64) */
    size_t not_integer; /* text, reals beyond int64 or NaN in an integer column */
    size_t bad_device;  /* device or stream ids outside int32 */
    size_t unknown_ids; /* events naming string ids not in the string table */
    size_t nul_names;   /* events whose names hold NUL bytes (written as \0) */
    int row_unknown, row_nul; /* of the row being read */
} nsys_bad;

/* A row read: its name problems counted once, whatever it looked up. */
static inline void nsys_bad_row_done(nsys_bad *b)
{
    b->unknown_ids += (size_t)b->row_unknown;
    b->nul_names += (size_t)b->row_nul;
    b->row_unknown = b->row_nul = 0;
}

/* One entry: key (id, or pid and domain), value, and order of arrival so
 * that a repeated key keeps its last value. */
typedef struct nsys_entry {
    int64_t key, key2;
    size_t seq;
    tp_str value;
    int nul; /* the string held NUL bytes (escaped) */
    tp_str base; /* the value without a _vNNNN suffix, once asked (0: not yet) */
} nsys_entry;

typedef struct nsys_table {
    nsys_entry *at;
    size_t n, cap;
    uint32_t *index; /* keys 0..n_index-1 (key2 0) -> entry + 1, when the keys are dense */
    size_t n_index;
} nsys_table;

static inline int nsys_table_put(nsys_table *t, int64_t key, int64_t key2, tp_str value, int nul)
{
    if (value == TP_STR_ERROR)
        return TP_ENOMEM;
    if (t->n == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 256;
        nsys_entry *at = tp_realloc(t->at, cap * sizeof *at);
        if (at == NULL)
            return TP_ENOMEM;
        t->at = at;
        t->cap = cap;
    }
    t->at[t->n] = (nsys_entry){.key = key, .key2 = key2, .seq = t->n, .value = value, .nul = nul};
    t->n++;
    return TP_OK;
}

static inline int nsys_entry_cmp(const void *a, const void *b)
{
    const nsys_entry *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    if (x->key2 != y->key2)
        return x->key2 < y->key2 ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Keys (key2 0) from 0 to at most 2n + 1024 (a string table's ids) are
 * also indexed directly: a lookup per row, no bisection. */
static inline void nsys_table_index(nsys_table *t)
{
    int64_t top = t->at[t->n - 1].key;
    if (t->at[0].key < 0 || top >= (int64_t)(2 * t->n + 1024) || t->n >= UINT32_MAX)
        return;
    for (size_t i = 0; i < t->n; i++)
        if (t->at[i].key2 != 0)
            return;
    t->index = tp_calloc((size_t)top + 1, sizeof *t->index);
    if (t->index == NULL)
        return; /* bisection still answers */
    t->n_index = (size_t)top + 1;
    for (size_t i = 0; i < t->n; i++)
        t->index[t->at[i].key] = (uint32_t)(i + 1);
}

static inline void nsys_table_free(nsys_table *t)
{
    tp_free(t->at);
    tp_free(t->index);
}

/* Sorts by key; of entries with one key the last to arrive stays. */
static inline void nsys_table_seal(nsys_table *t)
{
    if (t->n == 0)
        return;
    qsort(t->at, t->n, sizeof *t->at, nsys_entry_cmp);
    size_t w = 0;
    for (size_t i = 0; i < t->n; i++) {
        if (w > 0 && t->at[w - 1].key == t->at[i].key && t->at[w - 1].key2 == t->at[i].key2)
            w--;
        t->at[w++] = t->at[i];
    }
    t->n = w;
    nsys_table_index(t);
}

/* The entry of (key, key2) in a sealed table, or NULL. */
static inline nsys_entry *nsys_table_get(const nsys_table *t, int64_t key, int64_t key2)
{
    if (t->index != NULL && key2 == 0 && key >= 0 && key < (int64_t)t->n_index)
        return t->index[key] ? &t->at[t->index[key] - 1] : NULL;
    size_t lo = 0, hi = t->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        nsys_entry *e = &t->at[mid];
        if (e->key == key && e->key2 == key2)
            return e;
        if (e->key < key || (e->key == key && e->key2 < key2))
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

/* Text interned, its NUL bytes written as the two characters \0 (two names
 * differing after a NUL must not print as one); *nul says there were some. */
static inline tp_str nsys_escaped(tp_stage *st, const char *s, size_t len, int *nul)
{
    *nul = s != NULL && memchr(s, '\0', len) != NULL;
    if (s == NULL)
        return tp_intern(st, "", 0);
    if (!*nul)
        return tp_intern(st, s, len);
    char *esc = tp_malloc(len * 2);
    if (esc == NULL)
        return TP_STR_ERROR;
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '\0')
            esc[k++] = '\\';
        esc[k++] = s[i] == '\0' ? '0' : s[i];
    }
    tp_str r = tp_intern(st, esc, k);
    tp_free(esc);
    return r;
}

/* An event's name from its text, NUL bytes escaped and counted. */
static inline tp_str nsys_name(tp_stage *st, nsys_bad *bad, const char *s, size_t len)
{
    int nul;
    tp_str r = nsys_escaped(st, s, len, &nul);
    bad->row_nul |= nul;
    return r;
}

/* A string table entry (environment blocks hold NULs: counted only when a
 * name uses one). */
static inline int nsys_string_put(tp_stage *st, nsys_table *t, int64_t id, const char *s,
                                  size_t len)
{
    int nul;
    tp_str r = nsys_escaped(st, s, len, &nul);
    return nsys_table_put(t, id, 0, r, nul);
}

/* The string of an id; 0 ("") and counted when the table lacks it. */
static inline tp_str nsys_string(const nsys_table *t, nsys_bad *bad, int64_t id)
{
    const nsys_entry *e = nsys_table_get(t, id, 0);
    if (e == NULL)
        bad->row_unknown = 1;
    else
        bad->row_nul |= e->nul;
    return e ? e->value : 0;
}

/* The string of an id without a `_vNNNN` suffix (unversioned), worked out
 * once per id; *raw the string as given.  Counted as nsys_string. */
static inline tp_str nsys_string_base(tp_stage *st, const nsys_table *t, nsys_bad *bad, int64_t id,
                                      tp_str *raw)
{
    nsys_entry *e = nsys_table_get(t, id, 0);
    *raw = nsys_string(t, bad, id);
    if (e == NULL || e->base != 0)
        return e ? e->base : 0;
    const char *text = tp_str_text(st, e->value);
    size_t len = text ? strlen(text) : 0, keep = text ? unversioned(text, len) : 0;
    tp_str base = keep < len ? tp_intern(st, text, keep) : e->value;
    if (base != TP_STR_ERROR)
        e->base = base;
    return base;
}

/* The category of an NVTX domain of a process: "nvtx:<name>" as created
 * (eventType 75), "nvtx" for the default domain or one never created. */
static inline tp_str nsys_domain_cat(tp_stage *st, const nsys_table *d, int64_t pid,
                                     int64_t domain)
{
    const nsys_entry *e = nsys_table_get(d, pid, domain);
    return e ? e->value : tp_intern(st, "nvtx", 4);
}

static inline int nsys_domain_add(tp_stage *st, nsys_table *d, int64_t pid, int64_t domain,
                                  const char *name)
{
    char cat[256];
    int len = snprintf(cat, sizeof cat, "nvtx:%s", name ? name : "");
    return nsys_table_put(d, pid, domain,
                          tp_intern(st, cat, len > 0 && (size_t)len < sizeof cat ? (size_t)len : 0),
                          0);
}

/* A device id: 1 when it is a device (0 .. INT32_MAX), else counted. */
static inline int nsys_device_ok(nsys_bad *bad, int64_t device)
{
    if (device >= 0 && device <= INT32_MAX)
        return 1;
    bad->bad_device++;
    return 0;
}

/* contextId + 1 (0 means absent, so ids from 0 shift); a negative or the
 * largest id is absent. */
static inline int64_t nsys_context(int64_t id) { return id >= 0 && id < INT64_MAX ? id + 1 : 0; }

/* A row's times into e: 1, or 0 (counted) when the row is damaged: a value
 * that was not an integer (row_bad), or an end before its start. */
static inline int nsys_times(nsys_bad *b, int row_bad, int64_t start, int64_t end, tp_event *e)
{
    e->ts = start;
    if (row_bad)
        b->not_integer++;
    else if (tp_rows_dur(start, end, &e->dur) != TP_ROWS_N_REASONS)
        b->backwards++;
    else
        return 1;
    return 0;
}

/* One warning per kind of damage the reader met. */
static inline void nsys_bad_warn(tp_stage *st, const char *path, const nsys_bad *b)
{
    if (b->backwards)
        tp_log(st, TP_LOG_WARN, "%s: skipped %zu row(s) ending before they start", path,
               b->backwards);
    if (b->not_integer)
        tp_log(st, TP_LOG_WARN, "%s: skipped %zu row(s) with a value that is not an int64 "
               "integer (text, NaN or beyond int64) in an integer column", path, b->not_integer);
    if (b->bad_device)
        tp_log(st, TP_LOG_WARN, "%s: skipped %zu row(s) with a device id outside 0..2^31-1",
               path, b->bad_device);
    if (b->unknown_ids)
        tp_log(st, TP_LOG_WARN, "%s: %zu event(s) refer to string ids missing from the "
               "string table (named \"\"; a damaged export?)", path, b->unknown_ids);
    if (b->nul_names)
        tp_log(st, TP_LOG_WARN, "%s: %zu event name(s) hold NUL bytes, written as \\0", path,
               b->nul_names);
}

#endif
