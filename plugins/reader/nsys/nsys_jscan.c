/* nsys_json: the line scanner (nsys_jscan.h). */
#include "nsys_jscan.h"

#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>

/* Deeper lines go to jansson (its own limit is 2048). */
#define NJ_MAX_DEPTH 256

/* Where the scan stands: 1 taken so far, 0 not taken, TP_ENOMEM. */
typedef struct nj_scan {
    nj_doc *d;
    const char *s;
    size_t len, pos;
} nj_scan;

/* An object's key at k given before (from its first key at first): the
 * object then has a repeated key, and lookups take the last. */
static int repeated(const nj_doc *d, size_t first, size_t k)
{
    for (size_t j = first; j < k; j = d->v[j + 1].end)
        if (nj_same_key(&d->v[j], d->v[k].num.i, d->v[k].s, d->v[k].len))
            return 1;
    return 0;
}

static inline int nj_push(nj_doc *d, uint8_t type, size_t *at)
{
    if (d->n == d->cap) {
        size_t cap = d->cap ? d->cap * 2 : 64;
        if (cap > UINT32_MAX)
            return 0; /* a line of 4 G values: jansson's */
        nj_val *v = tp_realloc(d->v, cap * sizeof *v);
        if (v == NULL)
            return TP_ENOMEM;
        d->v = v;
        d->cap = cap;
    }
    *at = d->n++;
    memset(&d->v[*at], 0, sizeof d->v[*at]);
    d->v[*at].type = type;
    d->v[*at].end = (uint32_t)(*at + 1); /* a container's is set when it closes */
    return 1;
}

static inline void ws(nj_scan *sc)
{
    while (sc->pos < sc->len) {
        char c = sc->s[sc->pos];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
            return;
        sc->pos++;
    }
}

/* Bytes a scanned string may hold: printable ASCII but the quote and the
 * backslash. */
static const uint8_t plain[256] = {
    ['\x20'] = 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x22 '"' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, /* 0x5C '\\' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};

/* Where the first byte a scanned string may not hold is among the 8 at
 * p (little-endian), else 8: a quote, a backslash, a control byte (< 0x20)
 * or a byte >= 0x80.  Each test may flag bytes above a true one (a
 * borrow), never below, so the lowest flag is exact. */
static inline unsigned stop8(const unsigned char *p)
{
    const uint64_t ones = 0x0101010101010101ull, high = 0x8080808080808080ull;
    uint64_t x, q, b;
    memcpy(&x, p, 8);
    q = x ^ (ones * '"');
    b = x ^ (ones * '\\');
    uint64_t flags = ((q - ones) & ~q) | ((b - ones) & ~b) | ((x - ones * 0x20) & ~x) | x;
    flags &= high;
    return flags ? (unsigned)__builtin_ctzll(flags) / 8 : 8;
}

/* The end of the plain bytes from p (at most len): 8 at a time where the
 * byte order allows. */
static inline size_t plain_run(const unsigned char *s, size_t p, size_t len)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    while (p + 8 <= len) {
        unsigned k = stop8(s + p);
        p += k;
        if (k < 8)
            return p;
    }
#endif
    while (p < len && plain[s[p]])
        p++;
    return p;
}

/* A string without escapes, control or non-ASCII bytes. */
static int scan_string(nj_scan *sc)
{
    size_t start = ++sc->pos, at;
    const unsigned char *s = (const unsigned char *)sc->s;
    size_t p = plain_run(s, start, sc->len);
    sc->pos = p;
    if (p >= sc->len || s[p] != '"')
        return 0;
    int rc = nj_push(sc->d, NJ_STR, &at);
    if (rc != 1)
        return rc;
    sc->d->v[at].s = sc->s + start;
    sc->d->v[at].len = sc->pos - start;
    sc->pos++;
    return 1;
}

/* An integer as JSON writes it, within int64 (reals are jansson's). */
static int scan_int(nj_scan *sc)
{
    int neg = sc->s[sc->pos] == '-';
    size_t p = sc->pos + (size_t)neg, first = p;
    uint64_t v = 0, limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    while (p < sc->len && sc->s[p] >= '0' && sc->s[p] <= '9') {
        uint64_t digit = (uint64_t)(sc->s[p] - '0');
        if (v > (limit - digit) / 10)
            return 0;
        v = v * 10 + digit;
        p++;
    }
    if (p == first || (sc->s[first] == '0' && p - first > 1))
        return 0;
    if (p < sc->len && (sc->s[p] == '.' || sc->s[p] == 'e' || sc->s[p] == 'E'))
        return 0;
    size_t at;
    int rc = nj_push(sc->d, NJ_INT, &at);
    if (rc != 1)
        return rc;
    sc->d->v[at].num.i = neg ? (int64_t)(0 - v) : (int64_t)v;
    sc->pos = p;
    return 1;
}

static int scan_word(nj_scan *sc, const char *word, uint8_t type)
{
    size_t k = strlen(word), at;
    if (sc->len - sc->pos < k || memcmp(sc->s + sc->pos, word, k) != 0)
        return 0;
    sc->pos += k;
    return nj_push(sc->d, type, &at);
}

static int scan_value(nj_scan *sc, int depth);

/* The members of the object or array at obj, after its bracket; an object
 * repeating a key is marked (its len 1). */
static int scan_members(nj_scan *sc, size_t obj, int depth)
{
    int object = sc->d->v[obj].type == NJ_OBJ;
    char close = object ? '}' : ']';
    uint64_t seen = 0; /* the keys' hashes, one bit each */
    ws(sc);
    if (sc->pos < sc->len && sc->s[sc->pos] == close) {
        sc->pos++;
        return 1;
    }
    for (;;) {
        int rc;
        if (object) {
            if (sc->pos >= sc->len || sc->s[sc->pos] != '"')
                return 0;
            if ((rc = scan_string(sc)) != 1)
                return rc;
            nj_val *k = &sc->d->v[sc->d->n - 1];
            k->num.i = nj_key_hash(k->s, k->len);
            uint64_t bit = 1ull << ((uint64_t)k->num.i * 0x9E3779B97F4A7C15ull >> 58);
            if ((seen & bit) && !sc->d->v[obj].len)
                sc->d->v[obj].len = (size_t)repeated(sc->d, obj + 1, sc->d->n - 1);
            seen |= bit;
            ws(sc);
            if (sc->pos >= sc->len || sc->s[sc->pos] != ':')
                return 0;
            sc->pos++;
            ws(sc);
        }
        if ((rc = scan_value(sc, depth + 1)) != 1)
            return rc;
        ws(sc);
        if (sc->pos >= sc->len)
            return 0;
        char c = sc->s[sc->pos++];
        if (c == close)
            return 1;
        if (c != ',')
            return 0;
        ws(sc);
    }
}

static int scan_value(nj_scan *sc, int depth)
{
    if (sc->pos >= sc->len || depth > NJ_MAX_DEPTH)
        return 0;
    char c = sc->s[sc->pos];
    size_t at;
    int rc;
    switch (c) {
    case '{':
    case '[':
        if ((rc = nj_push(sc->d, c == '{' ? NJ_OBJ : NJ_ARR, &at)) != 1)
            return rc;
        sc->pos++;
        rc = scan_members(sc, at, depth);
        sc->d->v[at].end = (uint32_t)sc->d->n;
        sc->d->v[at].num.i = (int64_t)at + 1;
        return rc;
    case '"': return scan_string(sc);
    case 't': return scan_word(sc, "true", NJ_TRUE);
    case 'f': return scan_word(sc, "false", NJ_FALSE);
    case 'n': return scan_word(sc, "null", NJ_NULL);
    default: return c == '-' || (c >= '0' && c <= '9') ? scan_int(sc) : 0;
    }
}

int nj_doc_scan(nj_doc *d, char *line, size_t len)
{
    nj_scan sc = {.d = d, .s = line, .len = len};
    size_t none;
    d->n = 0;
    if (nj_push(d, 0, &none) != 1)
        return TP_ENOMEM;
    ws(&sc);
    if (sc.pos >= len || line[sc.pos] != '{')
        return 0;
    int rc = scan_value(&sc, 0);
    ws(&sc);
    if (rc != 1 || sc.pos != len)
        return rc == TP_ENOMEM ? rc : 0;
    return 1;
}

static int from_json(nj_doc *d, json_t *o, const char *key);

static int from_json_value(nj_doc *d, json_t *o)
{
    size_t at;
    uint8_t type = json_is_object(o)    ? NJ_OBJ
                   : json_is_array(o)   ? NJ_ARR
                   : json_is_string(o)  ? NJ_STR
                   : json_is_integer(o) ? NJ_INT
                   : json_is_real(o)    ? NJ_REAL
                   : json_is_true(o)    ? NJ_TRUE
                   : json_is_false(o)   ? NJ_FALSE
                                        : NJ_NULL;
    int rc = nj_push(d, type, &at);
    if (rc != 1)
        return rc == 0 ? TP_ENOMEM : rc;
    if (type == NJ_STR) {
        d->v[at].s = json_string_value(o);
        d->v[at].len = json_string_length(o);
    } else if (type == NJ_INT) {
        d->v[at].num.i = json_integer_value(o);
    } else if (type == NJ_REAL) {
        d->v[at].num.f = json_real_value(o);
    }
    const char *key;
    json_t *member;
    size_t i;
    if (type == NJ_OBJ)
        json_object_foreach(o, key, member) if ((rc = from_json(d, member, key)) != TP_OK) return rc;
    if (type == NJ_ARR)
        json_array_foreach(o, i, member) if ((rc = from_json(d, member, NULL)) != TP_OK) return rc;
    d->v[at].end = (uint32_t)d->n;
    if (type == NJ_OBJ)
        d->v[at].num.i = (int64_t)at + 1; /* jansson's keys are unique: len (dup) stays 0 */
    return TP_OK;
}

/* A member (its key first when in an object). */
static int from_json(nj_doc *d, json_t *o, const char *key)
{
    size_t at;
    if (key != NULL) {
        int rc = nj_push(d, NJ_STR, &at);
        if (rc != 1)
            return rc == 0 ? TP_ENOMEM : rc;
        d->v[at].s = key;
        d->v[at].len = strlen(key);
        d->v[at].num.i = nj_key_hash(key, d->v[at].len);
        d->v[at].end = (uint32_t)(at + 1);
    }
    return from_json_value(d, o);
}

int nj_doc_from_json(nj_doc *d, json_t *o)
{
    size_t none;
    d->n = 0;
    int rc = nj_push(d, 0, &none);
    if (rc != 1)
        return rc == 0 ? TP_ENOMEM : rc;
    d->v[none].end = 1;
    return from_json(d, o, NULL);
}

/* The last value of key in obj, by every member. */
static size_t get_last(const nj_doc *d, size_t obj, int64_t h, const char *key, size_t len)
{
    size_t found = 0;
    for (size_t k = obj + 1; k < d->v[obj].end; k = d->v[k + 1].end)
        if (nj_same_key(&d->v[k], h, key, len))
            found = k + 1;
    return found;
}

/* Keys are unique: the search starts where the last one ended (keys are
 * mostly asked for in the order an export writes them) and wraps. */
size_t nj_find(nj_doc *d, size_t obj, const char *key, size_t len, int64_t h)
{
    if (obj == 0 || obj >= d->n || d->v[obj].type != NJ_OBJ)
        return 0;
    size_t end = d->v[obj].end, from = (size_t)d->v[obj].num.i;
    if (d->v[obj].len) /* a repeated key */
        return get_last(d, obj, h, key, len);
    for (int lap = 0; lap < 2; lap++) {
        size_t stop = lap == 0 ? end : from;
        for (size_t k = lap == 0 ? from : obj + 1; k < stop; k = d->v[k + 1].end)
            if (nj_same_key(&d->v[k], h, key, len)) {
                d->v[obj].num.i = (int64_t)d->v[k + 1].end;
                return k + 1;
            }
    }
    return 0;
}
