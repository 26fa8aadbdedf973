/*
 * kineto reader: a structural scan of the window (issue 31, fourth pass).
 *
 * In the manner of simdjson's first stage: each 64-byte block is classified
 * into bitmasks (bit i for byte i) of quotes, backslashes, whitespace,
 * newlines, control characters, bytes >= 0x80 and the structural characters
 * { } [ ] : ,.  Quotes escaped by a backslash are found by the odd-run rule
 * (a run of backslashes escapes the byte after it when it is odd in length),
 * and the bytes inside strings by a prefix XOR of the unescaped quotes
 * (carry-less multiply by all ones with PCLMULQDQ where the CPU has it, else
 * six shifts).  State crossing a block edge is three carries: an odd
 * backslash run, inside a string, inside a scalar.
 *
 * kin_scan_container finds the end of an object or array from those masks
 * and checks its grammar on the way (a walk over its tokens with a stack of
 * one bit per level).  It vouches only for what it can check cheaply:
 * structure, numbers, literals, escapes, and strings of printable ASCII.
 * Anything else (a control character or a byte >= 0x80 in a string,
 * anything unexpected outside strings, a NaN, a grammar error, a container
 * not closed in the window, squeezed whitespace in the window, a whitespace
 * run of 64 bytes or more, more than 63 levels) makes it return 0 with
 * nothing moved, and the caller reads the container the old way, which
 * reports every error exactly as before.
 *
 * Block classification comes in three versions that give the same masks:
 * portable C (compiled everywhere), SSE2 (the x86-64 baseline) and AVX2
 * (chosen at run time).  TP_TEST_KINETO_SCAN=scalar (or sse2) forces one,
 * for the tests.
 */
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define KIN_SCAN_X86 1
#include <immintrin.h>
#endif

#include "kin.h"

/* Classes of one 64-byte block, bit i for byte i. */
typedef struct kin_blk {
    uint64_t quote, bslash, ws, nl, ctrl, high, op, digit;
} kin_blk;

struct kin_scan_impl {
    void (*classify)(const unsigned char *p, kin_blk *b);
    uint64_t (*prefix_xor)(uint64_t x);
    const char *name;
};

/* ---- block classification */

static void classify_scalar(const unsigned char *p, kin_blk *b)
{
    memset(b, 0, sizeof *b);
    for (unsigned i = 0; i < 64; i++) {
        unsigned c = p[i];
        uint64_t bit = UINT64_C(1) << i;
        if (c == '"')
            b->quote |= bit;
        else if (c == '\\')
            b->bslash |= bit;
        else if (c == '{' || c == '}' || c == '[' || c == ']' || c == ':' || c == ',')
            b->op |= bit;
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r')
            b->ws |= bit;
        if (c == '\n')
            b->nl |= bit;
        if (c < 0x20)
            b->ctrl |= bit;
        if (c >= 0x80)
            b->high |= bit;
        if (c >= '0' && c <= '9')
            b->digit |= bit;
    }
}

static uint64_t prefix_xor_portable(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

static const struct kin_scan_impl scan_scalar = {classify_scalar, prefix_xor_portable, "scalar"};

#if defined(__SSE2__)
static inline uint64_t mask16(__m128i m) { return (uint64_t)(unsigned)_mm_movemask_epi8(m); }

static void classify_sse2(const unsigned char *p, kin_blk *b)
{
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    const __m128i space = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t');
    const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    const __m128i brace = _mm_set1_epi8('{'), rbrace = _mm_set1_epi8('}');
    const __m128i colon = _mm_set1_epi8(':'), comma = _mm_set1_epi8(',');
    const __m128i x20 = _mm_set1_epi8(0x20);
    const __m128i before0 = _mm_set1_epi8('0' - 1), after9 = _mm_set1_epi8('9' + 1);
    kin_blk r;
    memset(&r, 0, sizeof r);
    for (unsigned k = 0; k < 4; k++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * k));
        __m128i lo = _mm_or_si128(v, x20); /* '[' -> '{', ']' -> '}' */
        __m128i n = _mm_cmpeq_epi8(v, nl);
        __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, tab)),
                                  _mm_or_si128(n, _mm_cmpeq_epi8(v, cr)));
        __m128i op = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(lo, brace), _mm_cmpeq_epi8(lo, rbrace)),
                                  _mm_or_si128(_mm_cmpeq_epi8(v, colon), _mm_cmpeq_epi8(v, comma)));
        uint64_t high = mask16(v);
        unsigned sh = 16 * k;
        r.quote |= mask16(_mm_cmpeq_epi8(v, quote)) << sh;
        r.bslash |= mask16(_mm_cmpeq_epi8(v, bslash)) << sh;
        r.ws |= mask16(ws) << sh;
        r.nl |= mask16(n) << sh;
        r.op |= mask16(op) << sh;
        r.high |= high << sh;
        r.ctrl |= (mask16(_mm_cmplt_epi8(v, x20)) & ~high) << sh; /* signed: >= 0x80 too */
        r.digit |= mask16(_mm_and_si128(_mm_cmpgt_epi8(v, before0), _mm_cmplt_epi8(v, after9)))
                    << sh;
    }
    *b = r;
}

static const struct kin_scan_impl scan_sse2 = {classify_sse2, prefix_xor_portable, "sse2"};
#endif

#if defined(KIN_SCAN_X86)
__attribute__((target("avx2"))) static inline uint64_t mask32(__m256i m)
{
    return (uint64_t)(uint32_t)_mm256_movemask_epi8(m);
}

/* Whitespace and structural characters by two nibble lookups (a byte's
 * class is lo[low nibble] & hi[high nibble]): bit 0 space (0x20), bit 1
 * tab, newline, carriage return (0x09 0x0a 0x0d), bit 2 ',' (0x2c), bit 3
 * ':' (0x3a), bit 4 '[' '{' (0x5b 0x7b), bit 5 ']' '}' (0x5d 0x7d).  Bytes
 * >= 0x80 have a high nibble whose entry is 0. */
#define KIN_NIBBLE_LO 1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2 | 8, 16, 4, 2 | 32, 0, 0
#define KIN_NIBBLE_HI 2, 0, 1 | 4, 8, 0, 16 | 32, 0, 16 | 32, 0, 0, 0, 0, 0, 0, 0, 0

__attribute__((target("avx2"))) static void classify_avx2(const unsigned char *p, kin_blk *b)
{
    const __m256i quote = _mm256_set1_epi8('"'), bslash = _mm256_set1_epi8('\\');
    const __m256i nl = _mm256_set1_epi8('\n'), x20 = _mm256_set1_epi8(0x20);
    const __m256i lo_tab = _mm256_setr_epi8(KIN_NIBBLE_LO, KIN_NIBBLE_LO);
    const __m256i hi_tab = _mm256_setr_epi8(KIN_NIBBLE_HI, KIN_NIBBLE_HI);
    const __m256i low4 = _mm256_set1_epi8(0x0f), zero = _mm256_setzero_si256();
    const __m256i ws_bits = _mm256_set1_epi8(3), op_bits = _mm256_set1_epi8(0x3c);
    const __m256i before0 = _mm256_set1_epi8('0' - 1), after9 = _mm256_set1_epi8('9' + 1);
    uint64_t q = 0, bs = 0, ws = 0, n = 0, op = 0, high = 0, ctrl = 0, dig = 0;
    for (unsigned k = 0; k < 2; k++) {
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32 * k));
        __m256i cls = _mm256_and_si256(
            _mm256_shuffle_epi8(lo_tab, _mm256_and_si256(v, low4)),
            _mm256_shuffle_epi8(hi_tab, _mm256_and_si256(_mm256_srli_epi16(v, 4), low4)));
        uint64_t h = mask32(v);
        unsigned sh = 32 * k;
        q |= mask32(_mm256_cmpeq_epi8(v, quote)) << sh;
        bs |= mask32(_mm256_cmpeq_epi8(v, bslash)) << sh;
        n |= mask32(_mm256_cmpeq_epi8(v, nl)) << sh;
        ws |= (~mask32(_mm256_cmpeq_epi8(_mm256_and_si256(cls, ws_bits), zero)) & 0xFFFFFFFFu) << sh;
        op |= (~mask32(_mm256_cmpeq_epi8(_mm256_and_si256(cls, op_bits), zero)) & 0xFFFFFFFFu) << sh;
        high |= h << sh;
        ctrl |= (mask32(_mm256_cmpgt_epi8(x20, v)) & ~h) << sh;
        dig |= mask32(_mm256_and_si256(_mm256_cmpgt_epi8(v, before0), _mm256_cmpgt_epi8(after9, v)))
               << sh;
    }
    b->quote = q;
    b->bslash = bs;
    b->ws = ws;
    b->nl = n;
    b->op = op;
    b->high = high;
    b->ctrl = ctrl;
    b->digit = dig;
}

__attribute__((target("pclmul,sse2"))) static uint64_t prefix_xor_clmul(uint64_t x)
{
    __m128i all = _mm_set1_epi8((char)0xFF);
    __m128i r = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), all, 0);
    return (uint64_t)_mm_cvtsi128_si64(r);
}

static const struct kin_scan_impl scan_avx2_clmul = {classify_avx2, prefix_xor_clmul, "avx2"};
static const struct kin_scan_impl scan_sse2_clmul = {classify_sse2, prefix_xor_clmul, "sse2"};
#endif

const kin_scan_impl *kin_scan_pick(void)
{
    const char *force = getenv("TP_TEST_KINETO_SCAN");
    if (force && strcmp(force, "scalar") == 0)
        return &scan_scalar;
#if defined(KIN_SCAN_X86)
    __builtin_cpu_init();
    int clmul = __builtin_cpu_supports("pclmul");
    if (force && strcmp(force, "sse2") == 0)
        return clmul ? &scan_sse2_clmul : &scan_sse2;
    if (__builtin_cpu_supports("avx2") && clmul)
        return &scan_avx2_clmul;
    return clmul ? &scan_sse2_clmul : &scan_sse2;
#elif defined(__SSE2__)
    return &scan_sse2;
#else
    return &scan_scalar;
#endif
}

const char *kin_scan_name(const kin_scan_impl *im) { return im ? im->name : "none"; }

/* ---- escapes and strings */

/* The bytes a backslash escapes, by the odd-run rule.  *carry (0 or 1) is
 * in: byte 0 escaped by the previous block's last run; out: the same for
 * the next block.  A run starting on an even bit escapes its odd bits and
 * the byte after it when that byte is odd; adding the starts of the runs on
 * odd bits to the backslashes clears those runs (the carry lands just past
 * them, and out of bit 63 when such a run is odd and reaches it), so the
 * runs left are the even-started ones, whose parity flips the selection. */
static inline uint64_t escaped_bits(uint64_t bs, uint64_t *carry)
{
    const uint64_t even = UINT64_C(0x5555555555555555);
    uint64_t first = *carry;
    bs &= ~first; /* an escaped backslash starts no run */
    uint64_t follows = (bs << 1) | first;
    uint64_t odd_starts = bs & ~even & ~(bs << 1);
    uint64_t even_runs = odd_starts + bs;
    *carry = even_runs < bs; /* overflow */
    return (even ^ (even_runs << 1)) & follows;
}

static int hex_digit(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* The escape at p (a backslash) is valid and complete before end. */
static int escape_ok(const char *p, const char *end)
{
    if (end - p < 2)
        return 0;
    switch (p[1]) {
    case '"': case '\\': case '/': case 'b': case 'f': case 'n': case 'r': case 't':
        return 1;
    case 'u':
        return end - p >= 6 && hex_digit(p[2]) && hex_digit(p[3]) && hex_digit(p[4]) &&
               hex_digit(p[5]);
    default:
        return 0;
    }
}

/* ---- scalars: numbers and literals, ended by whitespace , ] } */

static int ends_scalar(char c)
{
    return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == ',' || c == ']' || c == '}';
}

static const char *digits(const char *p, const char *end)
{
    while (p < end && (unsigned)(*p - '0') < 10)
        p++;
    return p;
}

/* Length of the valid number or literal at p, or 0. */
static size_t scalar_len(const char *p, const char *end)
{
    static const char *const words[] = {"true", "false", "null"};
    const char *q = p;
    if (*p == 't' || *p == 'f' || *p == 'n') {
        const char *w = words[*p == 't' ? 0 : *p == 'f' ? 1 : 2];
        size_t n = strlen(w);
        if ((size_t)(end - p) <= n || memcmp(p, w, n) != 0)
            return 0;
        q = p + n;
    } else {
        q += q < end && *q == '-';
        if (q >= end || (unsigned)(*q - '0') >= 10)
            return 0;
        q = *q == '0' ? q + 1 : digits(q, end);
        if (q < end && *q == '.') {
            const char *f = ++q;
            if ((q = digits(q, end)) == f)
                return 0;
        }
        if (q < end && (*q == 'e' || *q == 'E')) {
            q++;
            q += q < end && (*q == '+' || *q == '-');
            const char *e = q;
            if ((q = digits(q, end)) == e)
                return 0;
        }
    }
    return q < end && ends_scalar(*q) ? (size_t)(q - p) : 0;
}

/* ---- the walk */

enum { W_VALUE, W_FIRST_VALUE, W_KEY, W_FIRST_KEY, W_COLON, W_AFTER };

typedef struct walk {
    kin_parser *kp;
    kin_scan_key *keys;
    size_t max_keys, n_keys;
    uint64_t key_lens;
    kin_scan_key *pending; /* a recorded key waiting for its value */
    uint64_t stack;        /* bit d: level d + 1 is an object */
    unsigned depth;
    int state;
} walk;

#define W_FAIL (-1)
#define W_GO 0
#define W_DONE 1

/* The key whose opening quote is at t, at the container's own level;
 * `after`: the block's quotes after t, shifted to start at t + 1 (0 when
 * the key goes on into the next block or the block has a backslash: then
 * the bytes are read). */
static int own_key(walk *w, const char *t, uint64_t after)
{
    const char *q = t + 1, *end = w->kp->end;
    if (after) {
        q += __builtin_ctzll(after);
    } else {
        while (q < end && *q != '"' && *q != '\\')
            q++;
        if (q >= end || *q != '"')
            return W_FAIL; /* escapes in a key: the old way unescapes it */
    }
    size_t len = (size_t)(q - t - 1);
    if (len >= 64 || !((w->key_lens >> len) & 1))
        return W_GO;
    if (w->n_keys == w->max_keys)
        return W_FAIL;
    w->pending = &w->keys[w->n_keys++];
    w->pending->key = t + 1;
    w->pending->key_len = len;
    w->pending->value = NULL;
    return W_GO;
}

/* One token at t: W_GO, W_DONE (the container closed) or W_FAIL; `after`
 * as for own_key. */
static inline int step(walk *w, const char *t, uint64_t after)
{
    int value = w->state == W_VALUE || w->state == W_FIRST_VALUE;
    if (value && w->pending && w->depth == 1) {
        if (*t == '{' || *t == '[')
            return W_FAIL; /* a recorded value is read again by the caller */
        w->pending->value = t;
        w->pending = NULL;
    }
    switch (*t) {
    case '{':
    case '[':
        if (!value || w->depth >= 63)
            return W_FAIL;
        if (*t == '{')
            w->stack |= UINT64_C(1) << w->depth;
        else
            w->stack &= ~(UINT64_C(1) << w->depth);
        w->depth++;
        w->state = *t == '{' ? W_FIRST_KEY : W_FIRST_VALUE;
        return W_GO;
    case '}':
    case ']': {
        int obj = w->depth > 0 && ((w->stack >> (w->depth - 1)) & 1);
        if (w->depth == 0 || obj != (*t == '}'))
            return W_FAIL;
        if (w->state != W_AFTER && w->state != (obj ? W_FIRST_KEY : W_FIRST_VALUE))
            return W_FAIL;
        w->state = W_AFTER;
        return --w->depth == 0 ? W_DONE : W_GO;
    }
    case ':':
        if (w->state != W_COLON)
            return W_FAIL;
        w->state = W_VALUE;
        return W_GO;
    case ',':
        if (w->state != W_AFTER || w->depth == 0)
            return W_FAIL;
        w->state = ((w->stack >> (w->depth - 1)) & 1) ? W_KEY : W_VALUE;
        return W_GO;
    case '"':
        if (w->state == W_KEY || w->state == W_FIRST_KEY) {
            w->state = W_COLON;
            return w->keys && w->depth == 1 ? own_key(w, t, after) : W_GO;
        }
        if (!value)
            return W_FAIL;
        w->state = W_AFTER;
        return W_GO;
    default:
        return W_FAIL; /* scalars go to scalar_step */
    }
}

/* The scalar starting at t; plain_int: the block's masks showed it to be a
 * run of digits without a leading zero, ended in the block. */
static inline int scalar_step(walk *w, const char *t, int plain_int)
{
    if (w->state != W_VALUE && w->state != W_FIRST_VALUE)
        return W_FAIL;
    if (w->pending && w->depth == 1) {
        w->pending->value = t;
        w->pending = NULL;
    }
    if (!plain_int && scalar_len(t, w->kp->end) == 0)
        return W_FAIL;
    w->state = W_AFTER;
    return W_GO;
}

/* The scalar run at bit i of sc is digits only (no leading zero) and ends
 * before the block does. */
static inline int plain_int(uint64_t sc, uint64_t digit, unsigned i, const char *t)
{
    uint64_t rest = ~(sc >> i); /* its first set bit ends the run */
    unsigned len = (unsigned)__builtin_ctzll(rest);
    if (len >= 64 - i)
        return 0;
    uint64_t run = (UINT64_C(1) << len) - 1;
    return ((digit >> i) & run) == run && (len == 1 || *t != '0');
}

/* Set bits of x (few: newlines), without needing a popcount instruction. */
static inline uint64_t bit_count(uint64_t x)
{
    uint64_t n = 0;
    for (; x; x &= x - 1)
        n++;
    return n;
}

/* Checks the escapes starting at the bits of `starts` (block at b); returns
 * the bits from the first bad one up (0: all good). */
static uint64_t bad_escapes(uint64_t starts, const char *b, const char *end)
{
    while (starts) {
        unsigned i = (unsigned)__builtin_ctzll(starts);
        if (!escape_ok(b + i, end))
            return UINT64_C(1) << i;
        starts &= starts - 1;
    }
    return 0;
}

int kin_scan_container(kin_parser *kp, kin_scan_key *keys, size_t max_keys, size_t *n_keys,
                       uint64_t key_lens)
{
    const kin_scan_impl *im = kp->scan;
    if (im == NULL || kp->n_gaps != 0)
        return 0;
    const char *end = kp->end;
    walk w = {kp, keys, max_keys, 0, key_lens, NULL, 0, 0, W_VALUE};
    uint64_t esc = 0, in_str = 0, in_scalar = 0, lines = 0;
    const char *last_nl = NULL;
    for (const char *b = kp->p; b < end; b += 64) {
        unsigned char pad[64];
        const unsigned char *blk = (const unsigned char *)b;
        size_t have = (size_t)(end - b);
        uint64_t limit = ~UINT64_C(0);
        if (have < 64) {
            memcpy(pad, b, have);
            memset(pad + have, ' ', 64 - have);
            blk = pad;
            limit = (UINT64_C(1) << have) - 1;
        }
        kin_blk k;
        im->classify(blk, &k);
        uint64_t escaped = escaped_bits(k.bslash, &esc);
        uint64_t quote = k.quote & ~escaped;
        uint64_t in = im->prefix_xor(quote) ^ in_str;
        in_str = (uint64_t)((int64_t)in >> 63);
        uint64_t body = in & ~quote, outside = ~(in | quote);
        uint64_t bad = (body & (k.ctrl | k.high)) |
                       (outside & (k.bslash | k.high | (k.ctrl & ~k.ws)));
        bad |= bad_escapes(k.bslash & body & ~escaped, b, end);
        if (have >= 64 && (k.ws & outside) == ~UINT64_C(0))
            bad |= 1; /* a long whitespace run: the old way records it */
        if (bad)
            limit &= (bad & (0 - bad)) - 1; /* the bytes before the first bad one */
        uint64_t sc = outside & ~k.ws & ~k.op;
        uint64_t sc_starts = sc & ~((sc << 1) | in_scalar);
        uint64_t tok = ((k.op & outside) | (quote & in) | sc_starts) & limit;
        in_scalar = sc >> 63;
        uint64_t nl = k.nl & outside;
        while (tok) {
            unsigned i = (unsigned)__builtin_ctzll(tok);
            int r = (sc_starts >> i) & 1
                        ? scalar_step(&w, b + i, plain_int(sc, k.digit, i, b + i))
                        : step(&w, b + i, i < 63 && !k.bslash ? quote >> (i + 1) : 0);
            if (r == W_FAIL)
                return 0;
            if (r == W_DONE) {
                nl &= (UINT64_C(1) << i) - 1;
                if (nl)
                    last_nl = b + 63 - __builtin_clzll(nl);
                lines += bit_count(nl);
                if (lines) {
                    kp->line += lines;
                    kp->line_start = kp->base + (uint64_t)(last_nl + 1 - kp->buf);
                }
                kp->p = b + i + 1;
                if (n_keys)
                    *n_keys = w.n_keys;
                return 1;
            }
            tok &= tok - 1;
        }
        if (limit != ~UINT64_C(0))
            return 0; /* a byte it cannot vouch for, or the window's end */
        if (nl)
            last_nl = b + 63 - __builtin_clzll(nl);
        lines += bit_count(nl);
    }
    return 0;
}
