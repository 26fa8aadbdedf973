/*
 * JSON values without a DOM: see include/tracepipe/tp_sdk_json.h.  The one
 * implementation of these rules: the core links this object too, and its
 * host json_find is tp_json_get.  Keys are found by skipping nested values
 * by bracket depth, honouring strings and escapes, without validating what
 * is skipped; conversions check the value they convert.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_sdk_json.h>
#include <tracepipe/tp_types.h>

static size_t skip_ws(const char *s, size_t i, size_t len)
{
    while (i < len && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r'))
        i++;
    return i;
}

/* s[i] == '"': returns the index just past the closing quote, or len. */
static size_t skip_string(const char *s, size_t i, size_t len)
{
    for (i++; i < len; i++) {
        if (s[i] == '\\')
            i++;
        else if (s[i] == '"')
            return i + 1;
    }
    return len;
}

/* Returns the index just past the value starting at i. */
static size_t skip_value(const char *s, size_t i, size_t len)
{
    if (i < len && s[i] == '"')
        return skip_string(s, i, len);
    int depth = 0;
    for (; i < len; i++) {
        char c = s[i];
        if (c == '"') {
            i = skip_string(s, i, len) - 1;
        } else if (c == '{' || c == '[') {
            depth++;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return i;
            if (--depth == 0)
                return i + 1;
        } else if (c == ',' && depth == 0) {
            return i;
        }
    }
    return len;
}

static size_t trim_end(const char *s, size_t start, size_t end)
{
    while (end > start && (s[end - 1] == ' ' || s[end - 1] == '\t' || s[end - 1] == '\n' ||
                           s[end - 1] == '\r'))
        end--;
    return end;
}

const char *tp_json_get(const char *json, size_t len, const char *key, size_t *vlen)
{
    if (json == NULL || key == NULL)
        return NULL;
    size_t klen = strlen(key);
    const char *found = NULL;
    size_t found_len = 0;
    size_t i = skip_ws(json, 0, len);
    if (i >= len || json[i] != '{')
        return NULL;
    i++;
    for (;;) {
        i = skip_ws(json, i, len);
        if (i >= len || json[i] != '"')
            break;
        size_t kstart = i + 1, kend = skip_string(json, i, len);
        if (kend >= len)
            break;
        bool match = kend - 1 - kstart == klen && memcmp(json + kstart, key, klen) == 0;
        i = skip_ws(json, kend, len);
        if (i >= len || json[i] != ':')
            break;
        i = skip_ws(json, i + 1, len);
        size_t vend = skip_value(json, i, len);
        if (match && vend > i) { /* a later duplicate replaces it; no value: none */
            found = json + i;
            found_len = trim_end(json, i, vend) - i;
        }
        i = skip_ws(json, vend, len);
        if (i >= len || json[i] != ',')
            break;
        i++;
    }
    if (found && vlen)
        *vlen = found_len;
    return found;
}

/* The value without surrounding whitespace. */
static const char *trimmed(const char *v, size_t len, size_t *n)
{
    size_t a = skip_ws(v, 0, len), b = trim_end(v, a, len);
    *n = b - a;
    return v + a;
}

/* Copies a number's text into buf if it has JSON number syntax. */
static bool number_text(const char *v, size_t len, char *buf, size_t size, bool *integer)
{
    size_t n;
    const char *p = trimmed(v, len, &n);
    if (n == 0 || n >= size)
        return false;
    size_t i = 0;
    *integer = true;
    if (p[i] == '-')
        i++;
    if (i >= n || p[i] < '0' || p[i] > '9')
        return false;
    if (p[i] == '0' && i + 1 < n && p[i + 1] >= '0' && p[i + 1] <= '9')
        return false; /* no leading zeros */
    while (i < n && p[i] >= '0' && p[i] <= '9')
        i++;
    if (i < n && p[i] == '.') {
        *integer = false;
        if (++i >= n || p[i] < '0' || p[i] > '9')
            return false;
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
    }
    if (i < n && (p[i] == 'e' || p[i] == 'E')) {
        *integer = false;
        if (++i < n && (p[i] == '+' || p[i] == '-'))
            i++;
        if (i >= n || p[i] < '0' || p[i] > '9')
            return false;
        while (i < n && p[i] >= '0' && p[i] <= '9')
            i++;
    }
    if (i != n)
        return false;
    memcpy(buf, p, n);
    buf[n] = '\0';
    return true;
}

int tp_json_i64(const char *v, size_t len, int64_t *out)
{
    char buf[32];
    bool integer;
    if (v == NULL || !number_text(v, len, buf, sizeof buf, &integer) || !integer)
        return TP_EFORMAT;
    errno = 0;
    long long x = strtoll(buf, NULL, 10);
    if (errno == ERANGE)
        return TP_EFORMAT;
    *out = (int64_t)x;
    return TP_OK;
}

int tp_json_f64(const char *v, size_t len, double *out)
{
    char buf[400];
    bool integer;
    if (v == NULL || !number_text(v, len, buf, sizeof buf, &integer))
        return TP_EFORMAT;
    double x = strtod(buf, NULL);
    if (!isfinite(x))
        return TP_EFORMAT; /* 1e999: not a double */
    *out = x;
    return TP_OK;
}

static bool is_word(const char *v, size_t len, const char *word)
{
    size_t n;
    const char *p = trimmed(v, len, &n);
    return n == strlen(word) && memcmp(p, word, n) == 0;
}

int tp_json_bool(const char *v, size_t len, int *out)
{
    if (v && is_word(v, len, "true"))
        *out = 1;
    else if (v && is_word(v, len, "false"))
        *out = 0;
    else
        return TP_EFORMAT;
    return TP_OK;
}

int tp_json_is_null(const char *v, size_t len) { return v != NULL && is_word(v, len, "null"); }

static int hex4(const char *p, unsigned *out)
{
    unsigned x = 0;
    for (int k = 0; k < 4; k++) {
        char c = p[k];
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16u;
        if (d == 16)
            return -1;
        x = x << 4 | d;
    }
    *out = x;
    return 0;
}

/* Appends byte c at *o (counting past the end without writing). */
static void put(char *buf, size_t size, size_t *o, unsigned c)
{
    if (*o + 1 < size)
        buf[*o] = (char)c;
    (*o)++;
}

static void put_utf8(char *buf, size_t size, size_t *o, unsigned cp)
{
    if (cp < 0x80) {
        put(buf, size, o, cp);
    } else if (cp < 0x800) {
        put(buf, size, o, 0xC0 | cp >> 6);
        put(buf, size, o, 0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        put(buf, size, o, 0xE0 | cp >> 12);
        put(buf, size, o, 0x80 | (cp >> 6 & 0x3F));
        put(buf, size, o, 0x80 | (cp & 0x3F));
    } else {
        put(buf, size, o, 0xF0 | cp >> 18);
        put(buf, size, o, 0x80 | (cp >> 12 & 0x3F));
        put(buf, size, o, 0x80 | (cp >> 6 & 0x3F));
        put(buf, size, o, 0x80 | (cp & 0x3F));
    }
}

/* One escape after the backslash at p[i]; returns the index after it or 0. */
static size_t unescape_one(const char *p, size_t i, size_t n, char *buf, size_t size, size_t *o)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    if (++i >= n)
        return 0;
    const char *k = strchr(from, p[i]);
    if (p[i] != 'u') {
        if (k == NULL || p[i] == '\0')
            return 0;
        put(buf, size, o, (unsigned char)to[k - from]);
        return i + 1;
    }
    unsigned cp, lo;
    if (i + 4 >= n || hex4(p + i + 1, &cp) != 0)
        return 0;
    i += 5;
    if (cp >= 0xD800 && cp < 0xDC00 && i + 5 < n && p[i] == '\\' && p[i + 1] == 'u' &&
        hex4(p + i + 2, &lo) == 0 && lo >= 0xDC00 && lo < 0xE000) {
        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
        i += 6;
    } else if (cp >= 0xD800 && cp < 0xE000) {
        cp = 0xFFFD; /* a lone surrogate */
    }
    put_utf8(buf, size, o, cp);
    return i;
}

long tp_json_str(const char *v, size_t len, char *buf, size_t size)
{
    size_t n;
    const char *p = v ? trimmed(v, len, &n) : NULL;
    if (p == NULL || n < 2 || p[0] != '"' || p[n - 1] != '"')
        return -1;
    size_t o = 0;
    for (size_t i = 1; i < n - 1;) {
        if (p[i] == '\\') {
            if ((i = unescape_one(p, i, n - 1, buf, size, &o)) == 0)
                return -1;
        } else if (p[i] == '"' || (unsigned char)p[i] < 0x20) {
            return -1;
        } else {
            put(buf, size, &o, (unsigned char)p[i++]);
        }
    }
    if (size > 0)
        buf[o < size ? o : size - 1] = '\0';
    return (long)o;
}

/* Where the one value starting at i ends (strings and containers by their
 * closing character, scalars at whitespace). */
static size_t value_end(const char *s, size_t i, size_t len)
{
    if (s[i] == '"')
        return skip_string(s, i, len);
    if (s[i] == '[' || s[i] == '{') { /* index after the matching close, or SIZE_MAX */
        int depth = 0;
        for (; i < len; i++) {
            if (s[i] == '"')
                i = skip_string(s, i, len) - 1;
            else if (s[i] == '[' || s[i] == '{')
                depth++;
            else if ((s[i] == ']' || s[i] == '}') && --depth == 0)
                return i + 1;
        }
        return SIZE_MAX;
    }
    while (i < len && s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
        i++;
    return i;
}

/* An iterator over the container v (len bytes) opened by open, closed by
 * close. */
static int container(const char *v, size_t len, char open, char close, tp_json_iter *it)
{
    size_t n;
    const char *p = v ? trimmed(v, len, &n) : NULL;
    if (p == NULL || n < 2 || p[0] != open || p[n - 1] != close)
        return TP_EFORMAT;
    *it = (tp_json_iter){p, n, 1, 0};
    return TP_OK;
}

int tp_json_array(const char *v, size_t len, tp_json_iter *it)
{
    return container(v, len, '[', ']', it);
}

int tp_json_next(tp_json_iter *it, const char **elem, size_t *elen)
{
    size_t i = skip_ws(it->s, it->pos, it->len);
    if (it->started) {
        if (i < it->len && it->s[i] == ',')
            i = skip_ws(it->s, i + 1, it->len);
        else if (i < it->len && it->s[i] == ']' && i == it->len - 1)
            return it->pos = it->len, 0;
        else
            return it->pos = it->len, TP_EFORMAT;
    } else if (i < it->len && it->s[i] == ']') {
        it->pos = it->len;
        return i == it->len - 1 ? 0 : TP_EFORMAT;
    }
    size_t end = skip_value(it->s, i, it->len - 1); /* the final ']' is not the value's */
    size_t vend = trim_end(it->s, i, end);
    if (vend == i || i >= it->len - 1 || value_end(it->s, i, vend) != vend)
        return it->pos = it->len, TP_EFORMAT; /* empty, or two values ("[1 2]") */
    *elem = it->s + i;
    *elen = vend - i;
    it->pos = end;
    it->started = 1;
    return 1;
}

int tp_json_object(const char *v, size_t len, tp_json_iter *it)
{
    return container(v, len, '{', '}', it);
}

/* At i (after blanks): the end (0), else past the separator before a
 * member (1), else malformed. */
static int member_start(tp_json_iter *it, size_t *i)
{
    size_t last = it->len - 1; /* the final '}' */
    if (*i == last)
        return it->pos = it->len, 0;
    if (it->started) {
        if (*i > last || it->s[*i] != ',')
            return it->pos = it->len, TP_EFORMAT;
        *i = skip_ws(it->s, *i + 1, last); /* a member must follow: "{"a": 1,}" is not JSON */
    }
    return 1;
}

int tp_json_next_member(tp_json_iter *it, const char **key, size_t *klen, const char **val,
                        size_t *vlen)
{
    size_t last = it->len - 1, i = skip_ws(it->s, it->pos, it->len);
    int rc = member_start(it, &i);
    if (rc != 1)
        return rc;
    if (i >= last || it->s[i] != '"')
        return it->pos = it->len, TP_EFORMAT;
    size_t kend = skip_string(it->s, i, last), colon = skip_ws(it->s, kend, last);
    if (colon >= last || it->s[colon] != ':')
        return it->pos = it->len, TP_EFORMAT;
    size_t vs = skip_ws(it->s, colon + 1, last);
    size_t end = skip_value(it->s, vs, last), vend = trim_end(it->s, vs, end);
    if (vend == vs || value_end(it->s, vs, vend) != vend)
        return it->pos = it->len, TP_EFORMAT;
    *key = it->s + i;
    *klen = kend - i;
    *val = it->s + vs;
    *vlen = vend - vs;
    it->pos = end;
    it->started = 1;
    return 1;
}
