/*
 * reader `nsys`: NVTX extended payloads as args (nsys_payload.h; where each
 * rule comes from: docs/plugins/nsys.md "NVTX payloads").
 */
#include "nsys_payload.h"
#include "nsys_common.h"

#include <tracepipe/tp_sdk.h>

#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* nvToolsExtPayload.h: entry flags and types this decoder reads. */
#define PL_FLAG_POINTERS 0xEu /* POINTER, OFFSET_FROM_BASE, OFFSET_FROM_HERE */
#define PL_FLAG_ARRAYS 0x30u  /* ARRAY_FIXED_SIZE (0x10), ZERO_TERMINATED, LENGTH_INDEX */
#define PL_FLAG_ARRAY_FIXED 0x10u
#define PL_TYPE_CSTRING 75u
#define PL_TYPE_CSTRING_UTF8 76u
#define PL_HEADER 32u /* the blob's header: u64 domain, schema id, payload size, u64 */
#define PL_MAX_STRING 65536u

typedef struct pl_text {
    char *s;
    size_t len, cap;
    size_t base; /* members start here (after a '{') */
    int oom;
} pl_text;

typedef struct pl_entry {
    char *name;
    uint64_t type, flags, detail;
    int64_t offset; /* -1: NULL, the next self-aligned place */
} pl_entry;

typedef struct pl_schema {
    int64_t domain;
    uint64_t id;
    int64_t size; /* payloadSize, -1 unknown */
    pl_entry *e;
    size_t n;
} pl_schema;

typedef struct pl_enum {
    int64_t domain;
    uint64_t id;
    int64_t size;  /* bytes; 0 unknown */
    int64_t value; /* one entry: value and name (an enum is a run of these) */
    char *name;
} pl_enum;

typedef struct pl_row {
    int64_t event;
    size_t seq;
    char *members; /* "\"name\": value, ..." without braces */
} pl_row;

struct nsys_payloads {
    pl_schema *s;
    size_t ns;
    pl_enum *en; /* enum values; size-only rows have name NULL */
    size_t nen;
    pl_row *rows;
    size_t nrows;
    pl_text out;
    size_t from_tables, from_binary;
};

/* ------------------------------------------------------------ text */

static void put(pl_text *t, const char *s, size_t n)
{
    if (t->oom)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *v = realloc(t->s, cap);
        if (v == NULL) {
            t->oom = 1;
            return;
        }
        t->s = v;
        t->cap = cap;
    }
    memcpy(t->s + t->len, s, n);
    t->len += n;
    t->s[t->len] = '\0';
}

static void puts_(pl_text *t, const char *s)
{
    put(t, s, strlen(s));
}

/* A JSON string of s[0, n) (bytes below 0x20 escaped; the rest as is). */
static void put_jstr(pl_text *t, const char *s, size_t n)
{
    put(t, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        char esc[8];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            put(t, esc, 2);
        } else if (c < 0x20) {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            put(t, esc, 6);
        } else {
            put(t, s + i, 1);
        }
    }
    put(t, "\"", 1);
}

static void put_member_name(pl_text *t, const char *name)
{
    if (t->len > t->base)
        put(t, ", ", 2);
    put_jstr(t, name, strlen(name));
    put(t, ": ", 2);
}

/* ------------------------------------------------------------ loading */

typedef struct pl_names {
    char **orig, **sane;
    size_t n;
} pl_names;

typedef struct pl_load {
    sqlite3 *db;
    int (*plain)(void *ctx, const char *table);
    void *ctx;
    nsys_payloads *p;
    pl_names names; /* NVTX_EXPORT_TRANSLATION */
    char **tables;  /* the dynamic tables */
    size_t ntables;
} pl_load;

/* Runs sql over table (absent: no rows) and row(l, q) per row. */
static int each(pl_load *l, const char *table, const char *sql, int (*row)(pl_load *, sqlite3_stmt *))
{
    if (!nsys_has_table(l->db, table, NULL))
        return TP_OK;
    int rc = l->plain(l->ctx, table), step = SQLITE_DONE;
    sqlite3_stmt *q = NULL;
    if (rc == TP_OK && sqlite3_prepare_v2(l->db, sql, -1, &q, NULL) != SQLITE_OK)
        return TP_OK; /* an older layout without these columns: no payloads from it */
    while (rc == TP_OK && (step = sqlite3_step(q)) == SQLITE_ROW)
        rc = row(l, q);
    sqlite3_finalize(q);
    return rc == TP_OK && step != SQLITE_DONE ? TP_EFORMAT : rc;
}

static char *dup_text(sqlite3_stmt *q, int c)
{
    const char *s = (const char *)sqlite3_column_text(q, c);
    return s ? strdup(s) : NULL;
}

static int64_t int_or(sqlite3_stmt *q, int c, int64_t dflt)
{
    return sqlite3_column_type(q, c) == SQLITE_INTEGER ? sqlite3_column_int64(q, c) : dflt;
}

static pl_schema *find_schema(nsys_payloads *p, int64_t domain, uint64_t id)
{
    for (size_t i = 0; i < p->ns; i++)
        if (p->s[i].domain == domain && p->s[i].id == id)
            return &p->s[i];
    return NULL;
}

static pl_schema *add_schema(nsys_payloads *p, int64_t domain, uint64_t id)
{
    pl_schema *s = find_schema(p, domain, id);
    if (s != NULL)
        return s;
    pl_schema *v = realloc(p->s, (p->ns + 1) * sizeof *v);
    if (v == NULL)
        return NULL;
    p->s = v;
    p->s[p->ns] = (pl_schema){domain, id, -1, NULL, 0};
    return &p->s[p->ns++];
}

/* domainId, schemaId, payloadSize */
static int schema_row(pl_load *l, sqlite3_stmt *q)
{
    pl_schema *s = add_schema(l->p, int_or(q, 0, 0), (uint64_t)int_or(q, 1, 0));
    if (s == NULL)
        return TP_ENOMEM;
    s->size = int_or(q, 2, -1);
    return TP_OK;
}

/* domainId, schemaId, idx, flags, type, name, arrayOrUnionDetail, offset
 * (in idx order) */
static int entry_row(pl_load *l, sqlite3_stmt *q)
{
    pl_schema *s = add_schema(l->p, int_or(q, 0, 0), (uint64_t)int_or(q, 1, 0));
    pl_entry *v = s ? realloc(s->e, (s->n + 1) * sizeof *v) : NULL;
    if (v == NULL)
        return TP_ENOMEM;
    s->e = v;
    s->e[s->n++] = (pl_entry){dup_text(q, 5), (uint64_t)int_or(q, 4, 0), (uint64_t)int_or(q, 3, 0),
                              (uint64_t)int_or(q, 6, 0), int_or(q, 7, -1)};
    return TP_OK;
}

static int add_enum(nsys_payloads *p, pl_enum e)
{
    pl_enum *v = realloc(p->en, (p->nen + 1) * sizeof *v);
    if (v == NULL) {
        free(e.name);
        return TP_ENOMEM;
    }
    p->en = v;
    p->en[p->nen++] = e;
    return TP_OK;
}

/* domainId, schemaId, size */
static int enum_row(pl_load *l, sqlite3_stmt *q)
{
    return add_enum(l->p, (pl_enum){int_or(q, 0, 0), (uint64_t)int_or(q, 1, 0), int_or(q, 2, 0), 0,
                                    NULL});
}

/* domainId, schemaId, name, value */
static int enum_value_row(pl_load *l, sqlite3_stmt *q)
{
    char *name = dup_text(q, 2);
    if (name == NULL)
        return sqlite3_column_type(q, 2) == SQLITE_NULL ? TP_OK : TP_ENOMEM;
    return add_enum(l->p, (pl_enum){int_or(q, 0, 0), (uint64_t)int_or(q, 1, 0), 0, int_or(q, 3, 0),
                                    name});
}

/* ------------------------------------------------------ dynamic tables */

/* originalName, sanitizedName */
static int name_row(pl_load *l, sqlite3_stmt *q)
{
    pl_names *m = &l->names;
    char **o = realloc(m->orig, (m->n + 1) * sizeof *o);
    if (o != NULL)
        m->orig = o;
    char **s = o ? realloc(m->sane, (m->n + 1) * sizeof *s) : NULL;
    if (s == NULL)
        return TP_ENOMEM;
    m->sane = s;
    m->orig[m->n] = dup_text(q, 0);
    m->sane[m->n] = dup_text(q, 1);
    m->n++;
    return TP_OK;
}

static const char *original_name(const pl_names *m, const char *col)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->sane[i] && m->orig[i] && strcmp(m->sane[i], col) == 0)
            return m->orig[i];
    return col;
}

static void names_free(pl_names *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->orig[i]);
        free(m->sane[i]);
    }
    free(m->orig);
    free(m->sane);
}

/* One value of a dynamic table's row (NULL and blobs left out). */
static void put_column(pl_text *t, sqlite3_stmt *q, int c, const char *name)
{
    char num[40];
    switch (sqlite3_column_type(q, c)) {
    case SQLITE_INTEGER:
        put_member_name(t, name);
        snprintf(num, sizeof num, "%lld", (long long)sqlite3_column_int64(q, c));
        puts_(t, num);
        break;
    case SQLITE_FLOAT:
        put_member_name(t, name);
        snprintf(num, sizeof num, "%.17g", sqlite3_column_double(q, c));
        puts_(t, num);
        break;
    case SQLITE_TEXT:
        put_member_name(t, name);
        put_jstr(t, (const char *)sqlite3_column_text(q, c), (size_t)sqlite3_column_bytes(q, c));
        break;
    default:
        break;
    }
}

static int add_row(nsys_payloads *p, int64_t event, pl_text *t)
{
    pl_row *v = t->oom ? NULL : realloc(p->rows, (p->nrows + 1) * sizeof *v);
    if (v == NULL)
        return TP_ENOMEM;
    p->rows = v;
    p->rows[p->nrows] = (pl_row){event, p->nrows, t->s};
    p->nrows++;
    *t = (pl_text){0};
    return TP_OK;
}

/* Every row of one dynamic table. */
static int dynamic_table(pl_load *l, const char *table, const pl_names *names)
{
    char sql[160];
    sqlite3_stmt *q;
    int rc = l->plain(l->ctx, table), step = SQLITE_DONE, ev = -1;
    snprintf(sql, sizeof sql, "SELECT * FROM \"%s\"", table);
    if (rc != TP_OK || sqlite3_prepare_v2(l->db, sql, -1, &q, NULL) != SQLITE_OK)
        return rc;
    int nc = sqlite3_column_count(q);
    for (int c = 0; c < nc; c++)
        if (strcmp(sqlite3_column_name(q, c), "eventId") == 0)
            ev = c;
    while (rc == TP_OK && ev >= 0 && (step = sqlite3_step(q)) == SQLITE_ROW) {
        pl_text t = {0};
        for (int c = 0; c < nc; c++)
            if (c != ev)
                put_column(&t, q, c, original_name(names, sqlite3_column_name(q, c)));
        rc = t.len > 0 && sqlite3_column_type(q, ev) == SQLITE_INTEGER
                 ? add_row(l->p, sqlite3_column_int64(q, ev), &t) : TP_OK;
        free(t.s);
    }
    sqlite3_finalize(q);
    return rc == TP_OK && ev >= 0 && step != SQLITE_DONE ? TP_EFORMAT : rc;
}

/* DISTINCT globalPid, domainId, payloadSchemaID */
static int link_row(pl_load *l, sqlite3_stmt *q)
{
    char name[128];
    snprintf(name, sizeof name, "DYNAMIC_NVTXPAYLOAD_DATATYPE_%" PRId64 "_%" PRId64 "_%" PRId64,
             int_or(q, 0, 0), int_or(q, 1, 0), int_or(q, 2, 0));
    if (!nsys_has_table(l->db, name, NULL))
        return TP_OK;
    char **v = realloc(l->tables, (l->ntables + 1) * sizeof *v);
    if (v == NULL)
        return TP_ENOMEM;
    l->tables = v;
    if ((v[l->ntables] = strdup(name)) == NULL)
        return TP_ENOMEM;
    l->ntables++;
    return TP_OK;
}

static int by_event(const void *a, const void *b)
{
    const pl_row *x = a, *y = b;
    if (x->event != y->event)
        return x->event < y->event ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static int load_dynamic(pl_load *l)
{
    int rc = each(l, "NVTX_EXPORT_TRANSLATION",
                  "SELECT originalName, sanitizedName FROM NVTX_EXPORT_TRANSLATION", name_row);
    rc = rc ? rc : each(l, "NVTX_EVENTS_PAYLOAD_SCHEMAS",
                        "SELECT DISTINCT globalPid, domainId, payloadSchemaID FROM "
                        "NVTX_EVENTS_PAYLOAD_SCHEMAS ORDER BY 1, 2, 3", link_row);
    for (size_t i = 0; rc == TP_OK && i < l->ntables; i++)
        rc = dynamic_table(l, l->tables[i], &l->names);
    for (size_t i = 0; i < l->ntables; i++)
        free(l->tables[i]);
    free(l->tables);
    names_free(&l->names);
    if (rc == TP_OK && l->p->nrows > 1)
        qsort(l->p->rows, l->p->nrows, sizeof *l->p->rows, by_event);
    return rc;
}

int nsys_payloads_load(sqlite3 *db, int (*plain)(void *ctx, const char *table), void *ctx,
                       nsys_payloads **out)
{
    nsys_payloads *p = calloc(1, sizeof *p);
    pl_load l = {db, plain, ctx, p, {0}, NULL, 0};
    int rc = p ? TP_OK : TP_ENOMEM;
    rc = rc ? rc : each(&l, "NVTX_PAYLOAD_SCHEMAS",
                        "SELECT domainId, schemaId, payloadSize FROM NVTX_PAYLOAD_SCHEMAS",
                        schema_row);
    rc = rc ? rc : each(&l, "NVTX_PAYLOAD_SCHEMA_ENTRIES",
                        "SELECT domainId, schemaId, idx, flags, \"type\", name, "
                        "arrayOrUnionDetail, \"offset\" FROM NVTX_PAYLOAD_SCHEMA_ENTRIES ORDER BY "
                        "domainId, schemaId, idx", entry_row);
    rc = rc ? rc : each(&l, "NVTX_PAYLOAD_ENUMS",
                        "SELECT domainId, schemaId, size FROM NVTX_PAYLOAD_ENUMS", enum_row);
    rc = rc ? rc : each(&l, "NVTX_PAYLOAD_ENUM_ENTRIES",
                        "SELECT domainId, schemaId, name, value FROM NVTX_PAYLOAD_ENUM_ENTRIES "
                        "ORDER BY domainId, schemaId, idx", enum_value_row);
    rc = rc ? rc : load_dynamic(&l);
    if (rc != TP_OK) {
        nsys_payloads_free(p);
        p = NULL;
    }
    *out = p;
    return rc;
}

/* ------------------------------------------------------ binary blobs */

static uint64_t rd(const unsigned char *b, size_t n)
{
    uint64_t v = 0;
    for (size_t i = n; i-- > 0;)
        v = v << 8 | b[i];
    return v;
}

/* Bytes of a predefined scalar type (LP64, as nvToolsExtPayload.h's types
 * on x86-64 and aarch64 Linux), 0 when not one this decoder reads. */
static size_t scalar_size(uint64_t type)
{
    static const unsigned char sz[] = {0, 1, 1, 2, 2, 4, 4, 8, 8, 8, 8,  /* char .. ulonglong */
                                       1, 1, 2, 2, 4, 4, 8, 8,           /* int8 .. uint64 */
                                       4, 8, 0, 8, 8};                   /* float, double, -, size, address */
    if (type < sizeof sz)
        return sz[type];
    return type == 43 ? 4 : type == 44 ? 8 : 0; /* FLOAT32, FLOAT64 */
}

static int is_signed(uint64_t type)
{
    return (type >= 1 && type <= 9 && type % 2 == 1) || (type >= 11 && type <= 17 && type % 2 == 1);
}

static int is_float(uint64_t type)
{
    return type == 19 || type == 20 || type == 43 || type == 44;
}

/* The enum of type in domain: its size (0 when not an enum). */
static int64_t enum_size(const nsys_payloads *p, int64_t domain, uint64_t type)
{
    for (size_t i = 0; i < p->nen; i++)
        if (p->en[i].name == NULL && p->en[i].id == type && p->en[i].domain == domain)
            return p->en[i].size;
    return 0;
}

static const char *enum_name(const nsys_payloads *p, int64_t domain, uint64_t type, int64_t v)
{
    for (size_t i = 0; i < p->nen; i++)
        if (p->en[i].name && p->en[i].id == type && p->en[i].domain == domain && p->en[i].value == v)
            return p->en[i].name;
    return NULL;
}

static void put_scalar(pl_text *t, uint64_t type, const unsigned char *b, size_t n)
{
    char num[40];
    uint64_t u = rd(b, n);
    if (is_float(type)) {
        double d;
        float f;
        if (n == 4) {
            uint32_t w = (uint32_t)u;
            memcpy(&f, &w, 4);
            d = f;
        } else {
            memcpy(&d, &u, 8);
        }
        snprintf(num, sizeof num, d == d && d - d == 0 ? "%.17g" : "null", d);
    } else if (is_signed(type) && n < 8 && (u >> (8 * n - 1)) & 1) {
        snprintf(num, sizeof num, "%" PRId64, (int64_t)(u | ~((UINT64_C(1) << (8 * n)) - 1)));
    } else if (is_signed(type)) {
        snprintf(num, sizeof num, "%" PRId64, (int64_t)u);
    } else {
        snprintf(num, sizeof num, "%" PRIu64, u);
    }
    puts_(t, num);
}

/* An entry's size and alignment (0: not decodable here). */
static size_t entry_size(const nsys_payloads *p, int64_t domain, const pl_entry *e, size_t *align)
{
    int string = e->type == PL_TYPE_CSTRING || e->type == PL_TYPE_CSTRING_UTF8;
    if (e->flags & PL_FLAG_POINTERS)
        return 0;
    if (string) {
        *align = 1; /* a fixed-length string; longer than any payload: not one */
        return (e->flags & PL_FLAG_ARRAYS) <= PL_FLAG_ARRAY_FIXED && e->detail <= PL_MAX_STRING
                   ? (size_t)e->detail
                   : 0;
    }
    if (e->flags & PL_FLAG_ARRAYS)
        return 0;
    size_t n = scalar_size(e->type);
    if (n == 0)
        n = (size_t)enum_size(p, domain, e->type);
    *align = n;
    return n <= 8 ? n : 0;
}

/* One entry at off of payload b[0, n) as a member of t. */
static void put_entry(const nsys_payloads *p, int64_t domain, const pl_entry *e, const unsigned char *b,
                      size_t size, pl_text *t)
{
    if (e->type == PL_TYPE_CSTRING || e->type == PL_TYPE_CSTRING_UTF8) {
        size_t k = 0;
        while (k < size && b[k] != 0)
            k++;
        put_member_name(t, e->name);
        put_jstr(t, (const char *)b, k);
        return;
    }
    put_member_name(t, e->name);
    if (scalar_size(e->type) > 0) {
        put_scalar(t, e->type, b, size);
        return;
    }
    int64_t v = (int64_t)rd(b, size);
    const char *name = enum_name(p, domain, e->type, v);
    if (name)
        put_jstr(t, name, strlen(name));
    else
        put_scalar(t, 17, b, size);
}

/* Schema s's entries over payload b[0, n): members of t. */
static void decode(const nsys_payloads *p, const pl_schema *s, const unsigned char *b, size_t n,
                   pl_text *t)
{
    int64_t at = 0; /* where the next entry without an offset goes; -1 unknown */
    for (size_t i = 0; i < s->n; i++) {
        const pl_entry *e = &s->e[i];
        size_t align = 1, size = entry_size(p, s->domain, e, &align);
        /* hostile offsets and sizes near INT64_MAX must not overflow */
        int64_t step = align > 0 && align <= 4096 ? (int64_t)align : 1;
        int64_t off = e->offset >= 0 ? e->offset
                      : at >= 0 && size > 0 && at <= INT64_MAX - step ? (at + step - 1) / step * step
                                                                       : -1;
        at = size > 0 && size <= (size_t)INT64_MAX && off >= 0 && off <= INT64_MAX - (int64_t)size
                 ? off + (int64_t)size
                 : -1;
        if (e->name != NULL && size > 0 && off >= 0 && (uint64_t)off + size <= n)
            put_entry(p, s->domain, e, b + off, size, t);
    }
}

static const pl_schema *blob_schema(const nsys_payloads *p, int64_t domain, uint64_t d0, uint64_t id)
{
    const pl_schema *s = find_schema((nsys_payloads *)p, domain, id);
    if (s == NULL)
        s = find_schema((nsys_payloads *)p, (int64_t)d0, id);
    for (size_t i = 0; s == NULL && i < p->ns; i++)
        if (p->s[i].id == id)
            s = &p->s[i];
    return s;
}

static int decode_blob(nsys_payloads *p, int64_t domain, const unsigned char *b, size_t n)
{
    if (b == NULL || n < PL_HEADER || p->ns == 0)
        return 0;
    uint64_t size = rd(b + 16, 8);
    const pl_schema *s = blob_schema(p, domain, rd(b, 8), rd(b + 8, 8));
    if (s == NULL || size > n - PL_HEADER)
        return 0;
    if (s->size >= 0 && (uint64_t)s->size < size)
        size = (uint64_t)s->size;
    decode(p, s, b + PL_HEADER, (size_t)size, &p->out);
    return 1;
}

/* ------------------------------------------------------------ lookup */

const char *nsys_payload_json(nsys_payloads *p, int64_t event_id, int64_t domain,
                              const unsigned char *blob, size_t blen, size_t *len)
{
    pl_text *t = &p->out;
    t->len = t->base = 0;
    t->oom = 0;
    put(t, "{", 1);
    t->base = 1;
    size_t i = tp_lower_bound_i64(p->rows, p->nrows, sizeof *p->rows, offsetof(pl_row, event), event_id);
    int tables = i < p->nrows && p->rows[i].event == event_id;
    for (; i < p->nrows && p->rows[i].event == event_id; i++) {
        if (t->len > t->base)
            put(t, ", ", 2);
        puts_(t, p->rows[i].members);
    }
    if (!tables && !decode_blob(p, domain, blob, blen))
        return NULL;
    put(t, "}", 1);
    if (t->len <= 2 || t->oom)
        return NULL;
    *len = t->len;
    if (tables)
        p->from_tables++;
    else
        p->from_binary++;
    return t->s;
}

void nsys_payloads_counts(const nsys_payloads *p, size_t *from_tables, size_t *from_binary)
{
    *from_tables = p ? p->from_tables : 0;
    *from_binary = p ? p->from_binary : 0;
}

void nsys_payloads_free(nsys_payloads *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->ns; i++) {
        for (size_t j = 0; j < p->s[i].n; j++)
            free(p->s[i].e[j].name);
        free(p->s[i].e);
    }
    for (size_t i = 0; i < p->nen; i++)
        free(p->en[i].name);
    for (size_t i = 0; i < p->nrows; i++)
        free(p->rows[i].members);
    free(p->s);
    free(p->en);
    free(p->rows);
    free(p->out.s);
    free(p);
}
