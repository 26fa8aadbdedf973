/*
 * kineto reader: a strict, allocation-free JSON scanner over the window.
 *
 * Every function starts at kp->p and returns KIN_OK (kp->p moved past the
 * token), KIN_MORE (the window ended first; the caller restarts the whole
 * step after a refill, so partial progress is simply discarded) or KIN_ERR
 * (reported through kin_syntax with the offending byte's position).
 * Newlines can only occur in whitespace of valid JSON, so kin_ws is the
 * only place that counts lines.
 */
#include <stdio.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kin.h"

#define KIN_MAX_DEPTH 512

/* Byte classes inside strings: 0 plain, 1 quote, 2 backslash, 3 control,
 * 4 start of a multi-byte UTF-8 sequence (or an invalid byte). */
static const uint8_t str_class[256] = {
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4,
    4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4};

static int hex_val(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Validates one UTF-8 sequence at p (RFC 3629: no overlongs, no
 * surrogates, at most U+10FFFF); returns its length, 0 if invalid, -1 if
 * the window ends inside it. */
static int utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    int n;
    unsigned lo = 0x80, hi = 0xBF;
    if (c >= 0xC2 && c <= 0xDF)
        n = 2;
    else if (c >= 0xE0 && c <= 0xEF)
        n = 3;
    else if (c >= 0xF0 && c <= 0xF4)
        n = 4;
    else
        return 0;
    if (c == 0xE0)
        lo = 0xA0;
    else if (c == 0xED)
        hi = 0x9F;
    else if (c == 0xF0)
        lo = 0x90;
    else if (c == 0xF4)
        hi = 0x8F;
    for (int i = 1; i < n; i++) {
        if (p + i >= end)
            return -1;
        unsigned b = p[i];
        if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF))
            return 0;
    }
    return n;
}

/* Checks the escape at p (p[0] == '\\'); returns its length, 0 if bad, -1
 * if the window ends inside it. */
static int escape_len(const char *p, const char *end)
{
    if (p + 1 >= end)
        return -1;
    switch (p[1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        return 2;
    case 'u':
        for (int i = 2; i < 6; i++) {
            if (p + i >= end)
                return -1;
            if (hex_val(p[i]) < 0)
                return 0;
        }
        return 6;
    default:
        return 0;
    }
}

int kin_soft_bad(kin_parser *kp, const char *at, const char *msg)
{
    if (!kp->skip_bad || !kp->in_event)
        return 0;
    if (!kp->soft_bad) {
        kp->soft_bad = 1;
        kin_where(kp, at, &kp->soft_line, &kp->soft_col);
        snprintf(kp->soft_msg, sizeof kp->soft_msg, "%s", msg);
    }
    return 1;
}

/* The first byte at or after p that is not plain (class 0), or end.  With
 * SSE2, 16 bytes per step: a byte is not plain when it is a quote, a
 * backslash or, as a signed byte, below 0x20 (a control character, or 0x80
 * and above: UTF-8 and invalid bytes). */
static inline const char *plain_run(const char *p, const char *end)
{
#if defined(__SSE2__)
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(0x20);
    while (end - p >= 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, bslash)),
                                 _mm_cmplt_epi8(v, space));
        unsigned mask = (unsigned)_mm_movemask_epi8(m);
        if (mask != 0)
            return p + __builtin_ctz(mask);
        p += 16;
    }
#endif
    while (p < end && str_class[(unsigned char)*p] == 0)
        p++;
    return p;
}

int kin_string(kin_parser *kp, const char **s, size_t *len, int *esc)
{
    const char *start = kp->p + 1, *p = start, *end = kp->end;
    int has_esc = 0;
    for (;;) {
        p = plain_run(p, end);
        if (p >= end)
            return KIN_MORE;
        switch (str_class[(unsigned char)*p]) {
        case 1:
            *s = start;
            *len = (size_t)(p - start);
            *esc = has_esc;
            kp->p = p + 1;
            return KIN_OK;
        case 2: {
            int n = escape_len(p, end);
            if (n < 0)
                return KIN_MORE;
            if (n == 0)
                return kin_syntax(kp, p, "invalid escape sequence in string");
            has_esc = 1;
            p += n;
            break;
        }
        case 3:
            /* profilers write raw control characters in names (pytorch
             * #98432): lenient mode drops the event, strict mode refuses */
            if (!kin_soft_bad(kp, p, "raw control character in a string"))
                return kin_syntax(kp, p, "control character (0x%02x) in string", (unsigned)*p);
            if (*p == '\n') {
                kp->line++;
                kp->line_start = kin_file_off(kp, p + 1);
            }
            p++;
            break;
        default: {
            int n = utf8_len((const unsigned char *)p, (const unsigned char *)end);
            if (n < 0)
                return KIN_MORE;
            if (n == 0) {
                if (!kin_soft_bad(kp, p, "invalid UTF-8 in a string"))
                    return kin_syntax(kp, p, "invalid UTF-8 byte 0x%02x in string",
                                      (unsigned)(unsigned char)*p);
                n = 1;
            }
            p += n;
        }
        }
    }
}

static char *put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xC0 | (cp >> 6));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xE0 | (cp >> 12));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *o++ = (char)(0xF0 | (cp >> 18));
        *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    }
    return o;
}

static uint32_t hex4(const char *p)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v = v * 16 + (uint32_t)hex_val(p[i]);
    return v;
}

int kin_unescape(kin_parser *kp, const char *s, size_t len, const char **out, size_t *out_len)
{
    /* Unescaped text is never longer than the escaped text. */
    if (len + 1 > kp->tmp_cap) {
        size_t cap = len + 1 < 256 ? 256 : (len + 1) * 2;
        char *t = tp_realloc(kp->tmp, cap);
        if (!t)
            return TP_ENOMEM;
        kp->tmp = t;
        kp->tmp_cap = cap;
    }
    char *o = kp->tmp;
    const char *end = s + len;
    while (s < end) {
        if (*s != '\\') {
            *o++ = *s++;
            continue;
        }
        char c = s[1];
        s += 2;
        switch (c) {
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            uint32_t cp = hex4(s);
            s += 4;
            if (cp >= 0xD800 && cp <= 0xDBFF && end - s >= 6 && s[0] == '\\' && s[1] == 'u') {
                uint32_t lo = hex4(s + 2);
                if (lo >= 0xDC00 && lo <= 0xDFFF) {
                    cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    s += 6;
                }
            }
            if (cp >= 0xD800 && cp <= 0xDFFF)
                cp = 0xFFFD; /* a lone surrogate has no UTF-8 form */
            o = put_utf8(o, cp);
            break;
        }
        default: *o++ = c; break; /* " \ / */
        }
    }
    *o = '\0';
    *out = kp->tmp;
    *out_len = (size_t)(o - kp->tmp);
    return TP_OK;
}

static int is_digit(char c) { return c >= '0' && c <= '9'; }

/* A number may go on past the window's end; a byte that cannot continue it
 * is needed to know it ended. */
/* NaN, Infinity, -Infinity (as Python's json writes them): in lenient mode
 * inside an event they are consumed and the event is dropped; returns
 * KIN_OK / KIN_MORE, or -1 if the text is no such token (or strict). */
static int nonfinite(kin_parser *kp)
{
    static const char *const words[] = {"NaN", "Infinity", "-Infinity"};
    if (!kp->skip_bad || !kp->in_event)
        return -1;
    size_t have = (size_t)(kp->end - kp->p);
    for (size_t i = 0; i < 3; i++) {
        size_t len = strlen(words[i]);
        size_t m = have < len ? have : len;
        if (memcmp(kp->p, words[i], m) != 0)
            continue;
        if (have < len)
            return KIN_MORE;
        kin_soft_bad(kp, kp->p, "a NaN or Infinity number");
        kp->p += len;
        return KIN_OK;
    }
    return -1;
}

int kin_number(kin_parser *kp, kin_num *n)
{
    const char *p = kp->p, *end = kp->end;
    memset(n, 0, sizeof *n);
    int nf = nonfinite(kp);
    if (nf >= 0) { /* read as 0; the event is dropped anyway */
        n->ip = "0";
        n->il = 1;
        return nf;
    }
    if (*p == '-') {
        n->neg = 1;
        if (++p >= end)
            return KIN_MORE;
    }
    if (!is_digit(*p))
        return kin_syntax(kp, p, "invalid number");
    n->ip = p;
    if (*p == '0') {
        p++;
    } else {
        while (p < end && is_digit(*p))
            p++;
    }
    if (p >= end)
        return KIN_MORE;
    n->il = (size_t)(p - n->ip);
    if (*p == '.') {
        if (++p >= end)
            return KIN_MORE;
        if (!is_digit(*p))
            return kin_syntax(kp, p, "invalid number: digit expected after '.'");
        n->fp = p;
        while (p < end && is_digit(*p))
            p++;
        if (p >= end)
            return KIN_MORE;
        n->fl = (size_t)(p - n->fp);
    }
    if (*p == 'e' || *p == 'E') {
        int eneg = 0;
        int64_t e = 0;
        if (++p >= end)
            return KIN_MORE;
        if (*p == '+' || *p == '-') {
            eneg = *p == '-';
            if (++p >= end)
                return KIN_MORE;
        }
        if (!is_digit(*p))
            return kin_syntax(kp, p, "invalid number: digit expected in exponent");
        while (p < end && is_digit(*p)) {
            if (e < 100000000)
                e = e * 10 + (*p - '0');
            p++;
        }
        if (p >= end)
            return KIN_MORE;
        n->exp = eneg ? -e : e;
    }
    if (is_digit(*p) || *p == '.' || *p == 'e' || *p == 'E' || *p == '+' || *p == '-')
        return kin_syntax(kp, p, "invalid number");
    kp->p = p;
    return KIN_OK;
}

static const int64_t kin_pow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000};

/* Eight ASCII digits at p as their value, or -1 if they are not all
 * digits: two digits combined, then four, then eight, each step one
 * multiply on the whole word (bytes in memory order: little-endian). */
static inline int64_t eight_digits(const char *p)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uint64_t w;
    memcpy(&w, p, 8);
    const uint64_t hi = UINT64_C(0xF0F0F0F0F0F0F0F0);
    if ((w & hi) != UINT64_C(0x3030303030303030) ||
        ((w + UINT64_C(0x0606060606060606)) & hi) != UINT64_C(0x3030303030303030))
        return -1; /* a byte outside '0'..'9' */
    w &= UINT64_C(0x0F0F0F0F0F0F0F0F);
    w = (w * 10 + (w >> 8)) & UINT64_C(0x00FF00FF00FF00FF);     /* pairs */
    w = (w * 100 + (w >> 16)) & UINT64_C(0x0000FFFF0000FFFF);   /* quads */
    return (int64_t)((w * 10000 + (w >> 32)) & UINT64_C(0xFFFFFFFF));
#else
    (void)p;
    return -1;
#endif
}

/* Digits at p (before end) into *acc; returns the end of the run. */
static inline const char *digit_run(const char *p, const char *end, uint64_t *acc)
{
    int64_t v;
    while (end - p > 8 && (v = eight_digits(p)) >= 0) {
        *acc = *acc * 100000000u + (uint64_t)v;
        p += 8;
    }
    for (; p < end && (unsigned)(*p - '0') < 10; p++)
        *acc = *acc * 10 + (uint64_t)(*p - '0');
    return p;
}

/* What both number paths share: the value of il integer and fl fraction
 * digits (acc, their digit string read as an integer) times 10^shift, when
 * that is exact and fits: no more fraction digits than the shift (0..6), at
 * most 18 digits once scaled.  Returns 0 with *out set, or -1 (acc may then
 * have wrapped: it is not used). */
static inline int scale_exact(uint64_t acc, size_t il, size_t fl, int neg, int shift, int64_t *out)
{
    if (shift < 0 || shift > 6 || fl > (size_t)shift || il + (size_t)shift > 18)
        return -1;
    acc *= (uint64_t)kin_pow10[(size_t)shift - fl];
    *out = neg ? -(int64_t)acc : (int64_t)acc;
    return 0;
}

/* Digits at p (before end) skipped; returns the end of the run. */
static inline const char *digit_skip(const char *p, const char *end)
{
    while (p < end && (unsigned)(*p - '0') < 10)
        p++;
    return p;
}

/* The plain number at kp->p, [-]digits[.digits] ended in the window by a
 * byte that cannot continue it: with value, scaled (scale_exact) into *out;
 * without, only passed over (any length).  Moves kp->p past it and returns
 * 1, or returns 0 (nothing moved) for anything else.  Inline: each caller
 * gets the half it uses. */
static inline int plain_number(kin_parser *kp, int value, int shift, int64_t *out)
{
    const char *p = kp->p, *end = kp->end, *ip, *fp;
    uint64_t acc = 0; /* wraps on long inputs, which are then refused */
    int neg = p < end && *p == '-';
    p += neg;
    ip = p;
    p = value ? digit_run(p, end, &acc) : digit_skip(p, end);
    size_t il = (size_t)(p - ip), fl = 0;
    if (il == 0 || (ip[0] == '0' && il > 1))
        return 0;
    if (p < end && *p == '.') {
        fp = ++p;
        p = value ? digit_run(p, end, &acc) : digit_skip(p, end);
        if ((fl = (size_t)(p - fp)) == 0)
            return 0;
    }
    if (p >= end || *p == 'e' || *p == 'E' || *p == '.' || *p == '+' || *p == '-' ||
        (value && scale_exact(acc, il, fl, neg, shift, out) != 0))
        return 0;
    kp->p = p;
    return 1;
}

int kin_number_scaled_fast(kin_parser *kp, int shift, int64_t *out)
{
    return plain_number(kp, 1, shift, out);
}

/* Digit i of the number's digit string (integer digits then fraction). */
static int digit_at(const kin_num *n, size_t i)
{
    if (i < n->il)
        return n->ip[i] - '0';
    i -= n->il;
    return i < n->fl ? n->fp[i] - '0' : 0;
}

/* The common case of kin_num_scaled: no exponent, and scale_exact's (so
 * no overflow and nothing rounded).  Returns 0 with *out set, or -1 for the
 * general path. */
static int num_scaled_plain(const kin_num *n, int shift, int64_t *out)
{
    uint64_t acc = 0;
    if (n->exp != 0 || n->il + n->fl > 18) /* scale_exact would refuse it */
        return -1;
    digit_run(n->ip, n->ip + n->il, &acc);
    if (n->fl > 0)
        digit_run(n->fp, n->fp + n->fl, &acc);
    return scale_exact(acc, n->il, n->fl, n->neg, shift, out);
}

int kin_num_scaled(const kin_num *n, int shift, int64_t *out, int *inexact)
{
    if (num_scaled_plain(n, shift, out) == 0) {
        *inexact = 0;
        return 0;
    }
    size_t total = n->il + n->fl, first = 0;
    while (first < total && digit_at(n, first) == 0)
        first++;
    *inexact = 0;
    if (first == total) {
        *out = 0;
        return 0;
    }
    /* The decimal point sits before digit `point` of the digit string. */
    int64_t point = (int64_t)n->il + n->exp + shift;
    if (point - (int64_t)first > 19)
        return -1; /* at least 20 integer digits */
    uint64_t acc = 0;
    for (int64_t i = (int64_t)first; i < point; i++) {
        acc = acc * 10 + (uint64_t)digit_at(n, (size_t)i);
        if (acc > (uint64_t)INT64_MAX)
            return -1;
    }
    int64_t r = point < (int64_t)first ? (int64_t)first : point;
    for (int64_t i = r; i < (int64_t)total; i++) {
        if (digit_at(n, (size_t)i) != 0) {
            *inexact = 1;
            break;
        }
    }
    if (point >= 0 && point < (int64_t)total && digit_at(n, (size_t)point) >= 5) {
        if (++acc > (uint64_t)INT64_MAX)
            return -1;
    }
    *out = n->neg ? -(int64_t)acc : (int64_t)acc;
    return 0;
}

static int literal(kin_parser *kp, const char *word, size_t len)
{
    size_t have = (size_t)(kp->end - kp->p);
    size_t m = have < len ? have : len;
    if (memcmp(kp->p, word, m) != 0) {
        size_t i = 0;
        while (kp->p[i] == word[i])
            i++;
        return kin_syntax(kp, kp->p + i, "invalid literal (expected '%s')", word);
    }
    if (have < len)
        return KIN_MORE;
    kp->p += len;
    return KIN_OK;
}

/* Members of an object or elements of an array, after the opening bracket. */
static int skip_container(kin_parser *kp, int depth, char close)
{
    int r;
    kp->p++;
    if ((r = kin_ws(kp)) != KIN_OK)
        return r;
    if (*kp->p == close) {
        kp->p++;
        return KIN_OK;
    }
    for (;;) {
        if (close == '}') {
            const char *s;
            size_t len;
            int esc;
            if (*kp->p != '"')
                return kin_syntax(kp, kp->p, "object key (string) expected");
            if ((r = kin_key(kp, &s, &len, &esc)) != KIN_OK)
                return r;
            if ((r = kin_ws(kp)) != KIN_OK)
                return r;
            if (*kp->p != ':')
                return kin_syntax(kp, kp->p, "':' expected after object key");
            kp->p++;
            if ((r = kin_ws(kp)) != KIN_OK)
                return r;
        }
        if ((r = kin_skip_value(kp, depth + 1)) != KIN_OK)
            return r;
        if ((r = kin_ws(kp)) != KIN_OK)
            return r;
        if (*kp->p == close) {
            kp->p++;
            return KIN_OK;
        }
        if (*kp->p != ',')
            return kin_syntax(kp, kp->p, "',' or '%c' expected", close);
        kp->p++;
        if ((r = kin_ws(kp)) != KIN_OK)
            return r;
    }
}

int kin_skip_value(kin_parser *kp, int depth)
{
    const char *s;
    size_t len;
    int esc;
    kin_num num;
    if (kp->p >= kp->end)
        return KIN_MORE;
    if (depth > KIN_MAX_DEPTH)
        return kin_syntax(kp, kp->p, "nesting deeper than %d levels", KIN_MAX_DEPTH);
    switch (*kp->p) {
    case '{': return skip_container(kp, depth, '}');
    case '[': return skip_container(kp, depth, ']');
    case '"': return kin_string(kp, &s, &len, &esc);
    case 't': return literal(kp, "true", 4);
    case 'f': return literal(kp, "false", 5);
    case 'n': return literal(kp, "null", 4);
    default:
        if (*kp->p == '-' || is_digit(*kp->p)) /* plain ones in one pass, as kin_number would */
            return plain_number(kp, 0, 0, NULL) ? KIN_OK : kin_number(kp, &num);
        int nf = nonfinite(kp);
        if (nf >= 0)
            return nf;
        return kin_syntax(kp, kp->p, "value expected");
    }
}
