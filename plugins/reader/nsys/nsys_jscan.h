/* nsys_json: one line's JSON message as a flat array of values (issue 31).
 *
 * A line is scanned once into values in document order; an object or array
 * is followed by its members and knows where it ends, so a key is found by
 * stepping over the members, no allocation per line (the array is reused).
 * The scanner takes the lines an export writes (ASCII strings without
 * escapes, integers within int64, objects and arrays); any other line (an
 * escape, a byte >= 0x80, a real, malformed text, a top level that is not an
 * object) is parsed by jansson and copied into the same form, so a value
 * and every error message are jansson's whichever path read the line. */
#ifndef TRACEPIPE_NSYS_JSCAN_H
#define TRACEPIPE_NSYS_JSCAN_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Inlined wherever called, so that a literal key's length and hash are
 * constants (the compiler left nj_get and its wrappers out of line). */
#if defined(__GNUC__)
#define NJ_INLINE static inline __attribute__((always_inline))
#else
#define NJ_INLINE static inline
#endif

enum { NJ_OBJ = 1, NJ_ARR, NJ_STR, NJ_INT, NJ_REAL, NJ_TRUE, NJ_FALSE, NJ_NULL };

typedef struct nj_val {
    const char *s; /* a string: its text, len bytes, not NUL-terminated (nj_cstr makes it one) */
    size_t len;    /* a string's length; an object: 1 when it repeats a key */
    union {
        int64_t i; /* an integer; a key: its quick hash; an object: where lookups resume */
        double f;
    } num;
    uint32_t end;  /* index of the value after this one and its members */
    uint8_t type;
} nj_val;

typedef struct nj_doc {
    nj_val *v;
    size_t n, cap;
} nj_doc;

/* Scans line[0, len) (its bytes stay until nj_cstr).  1: d holds the line, value 1
 * its top-level object (value 0 stands for "absent"); 0: not taken (parse it with nj_doc_from_json);
 * TP_ENOMEM. */
int nj_doc_scan(nj_doc *d, char *line, size_t len);

/* d as a copy of jansson's value o (strings borrowed from o), value 1. */
int nj_doc_from_json(nj_doc *d, json_t *o);

/* A key's quick hash: length and three of its bytes (a filter before
 * memcmp), kept in the key's num.i (a literal's folds to a constant). */
static inline int64_t nj_key_hash(const char *k, size_t len)
{
    if (len == 0)
        return 0;
    return (int64_t)(len | (size_t)(unsigned char)k[0] << 32 |
                     (size_t)(unsigned char)k[len / 2] << 40 |
                     (size_t)(unsigned char)k[len - 1] << 48);
}

static inline uint64_t nj_load(const char *p, size_t n)
{
    uint64_t w = 0;
    memcpy(&w, p, n);
    return w;
}

/* a[0, len) == b[0, len) in at most two overlapping loads of each for keys
 * up to 16 bytes (the hash has compared the lengths). */
static inline int nj_key_eq(const char *a, const char *b, size_t len)
{
    if (len >= 8 && len <= 16)
        return nj_load(a, 8) == nj_load(b, 8) && nj_load(a + len - 8, 8) == nj_load(b + len - 8, 8);
    if (len >= 4 && len < 8)
        return nj_load(a, 4) == nj_load(b, 4) && nj_load(a + len - 4, 4) == nj_load(b + len - 4, 4);
    return memcmp(a, b, len) == 0;
}

static inline int nj_same_key(const nj_val *k, int64_t h, const char *key, size_t len)
{
    return k->num.i == h && nj_key_eq(k->s, key, len);
}

/* nj_get with the key's length and hash given. */
size_t nj_find(nj_doc *d, size_t obj, const char *key, size_t len, int64_t h);

/* The value of key in the object at index obj, the last one when given
 * twice; 0 when absent or obj is not an object.  (It keeps where it found
 * the key in the object, so the next key is found in a step or two.)  A
 * literal key's length and hash fold to constants here. */
NJ_INLINE size_t nj_get(nj_doc *d, size_t obj, const char *key)
{
    size_t len = strlen(key);
    return nj_find(d, obj, key, len, nj_key_hash(key, len));
}

/* The type of value at (0: absent). */
static inline int nj_type(const nj_doc *d, size_t at) { return at ? d->v[at].type : 0; }

/* A string's text, or NULL (absent, not a string): its nj_str_len bytes,
 * not NUL-terminated (a scanned string is followed by its quote). */
static inline const char *nj_str(const nj_doc *d, size_t at)
{
    return nj_type(d, at) == NJ_STR ? d->v[at].s : NULL;
}

/* nj_str NUL-terminated: a scanned string's closing quote in the line is
 * overwritten (jansson's strings end with a NUL already). */
static inline const char *nj_cstr(nj_doc *d, size_t at)
{
    if (nj_type(d, at) != NJ_STR)
        return NULL;
    if (d->v[at].s[d->v[at].len] != '\0')
        ((char *)d->v[at].s)[d->v[at].len] = '\0';
    return d->v[at].s;
}

/* A string's length, 0 for other values. */
static inline size_t nj_str_len(const nj_doc *d, size_t at)
{
    return nj_type(d, at) == NJ_STR ? d->v[at].len : 0;
}

#endif
