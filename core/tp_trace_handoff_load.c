/*
 * A batch's hand-off loaded (issue 31; the format: tp_trace_handoff.c).
 * The digest of the whole file is checked first, so a damaged file interns
 * no text of its own into the run's pool; then every count is checked
 * against the file's size before anything is allocated and every index
 * against its table: a truncated or damaged file is refused (the caller
 * reads the trace), never a crash.  The texts are interned in their order:
 * the same texts in the same order give the ids a read would give.
 */
#include "tp_handoff.h"
#include "tp_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tracepipe/tp_sdk_digest.h>
#include <unistd.h>

#include "tp_extcol.h"
#include "tp_handoff_impl.h"

typedef struct loader {
    FILE *f;
    const char *input; /* the file the loading run's reader would read */
    uint64_t pos, size; /* size: the bytes before the digest */
    uint64_t input_size; /* the input file's, as its process read it (checked unchanged) */
    bool bad;
    char *why;
    size_t why_size;
} loader;

static void refuse(loader *r, const char *what)
{
    if (!r->bad)
        snprintf(r->why, r->why_size, "%s", what);
    r->bad = true;
}

/* Whether count items of each bytes are still in the file. */
static bool fits(loader *r, uint64_t count, size_t each)
{
    if (!r->bad && each > 0 && count > (r->size - r->pos) / each)
        refuse(r, "truncated or damaged (a count past its end)");
    return !r->bad;
}

static void get(loader *r, void *p, size_t n)
{
    if (r->bad || n == 0)
        return;
    if (!fits(r, n, 1) || fread(p, 1, n, r->f) != n) {
        refuse(r, "truncated");
        return;
    }
    r->pos += n;
}

static uint64_t get_u64(loader *r)
{
    uint64_t v = 0;
    get(r, &v, sizeof v);
    return v;
}

static uint32_t get_u32(loader *r)
{
    uint32_t v = 0;
    get(r, &v, sizeof v);
    return v;
}

static uint8_t get_u8(loader *r)
{
    uint8_t v = 0;
    get(r, &v, 1);
    return v;
}

/* A yes/no byte: the writer writes 0 or 1, nothing else. */
static bool get_flag(loader *r, const char *what)
{
    uint8_t v = get_u8(r);
    if (v > 1)
        refuse(r, what);
    return v == 1;
}

/* A text, NUL-terminated (malloc'd), or NULL. */
static char *get_str(loader *r, size_t *len)
{
    uint32_t n = get_u32(r);
    char *s = fits(r, n, 1) ? malloc((size_t)n + 1) : NULL;
    if (s == NULL) {
        refuse(r, "out of memory");
        return NULL;
    }
    get(r, s, n);
    s[n] = '\0';
    if (len)
        *len = n;
    if (r->bad) {
        free(s);
        return NULL;
    }
    return s;
}

/* Reads past n bytes. */
static void skip(loader *r, uint64_t n)
{
    if (fits(r, n, 1) && n > 0 && fseeko(r->f, (off_t)n, SEEK_CUR) != 0)
        refuse(r, "cannot seek");
    r->pos += r->bad ? 0 : n;
}

static void check_header(loader *r, uint64_t key)
{
    char m[sizeof tp_handoff_magic];
    get(r, m, sizeof m);
    uint32_t version = get_u32(r), order = get_u32(r);
    uint64_t k = get_u64(r);
    if (!r->bad && (memcmp(m, tp_handoff_magic, sizeof m) != 0 || version != HANDOFF_VERSION ||
                    order != BYTE_ORDER_MARK))
        refuse(r, "not a hand-off of this version");
    else if (!r->bad && k != key)
        refuse(r, "the trace process read it with another reader or options");
}

/* The input file unchanged since the trace process read it; the trace's
 * source file's path ("" for a trace without one, *has 0). */
static char *check_input(loader *r, bool *has)
{
    char *path = get_str(r, NULL);
    uint64_t v[7];
    for (size_t i = 0; i < 7; i++)
        v[i] = get_u64(r);
    struct stat sb;
    if (path == NULL || r->bad)
        ;
    else if (r->input == NULL || strcmp(path, r->input) != 0)
        refuse(r, "it holds another trace file");
    else if (stat(path, &sb) != 0 || (uint64_t)sb.st_dev != v[0] || (uint64_t)sb.st_ino != v[1] ||
             (uint64_t)sb.st_size != v[2] || (uint64_t)sb.st_mtim.tv_sec != v[3] ||
             (uint64_t)sb.st_mtim.tv_nsec != v[4] || (uint64_t)sb.st_ctim.tv_sec != v[5] ||
             (uint64_t)sb.st_ctim.tv_nsec != v[6])
        refuse(r, "the trace file changed since its process read it");
    free(path);
    r->input_size = v[2];
    *has = get_flag(r, "damaged (the source flag)");
    char *source = get_str(r, NULL);
    /* a reader names its input file as the trace's source, or none ("":
     * its own args file only) */
    if (source && !r->bad && source[0] && strcmp(source, r->input) != 0)
        refuse(r, "damaged (its source is not its trace file)");
    if (source == NULL || !*has || source[0] == '\0')
        r->input_size = 0; /* no args may be in the input file */
    if (r->bad) {
        free(source);
        return NULL;
    }
    return source;
}

/* Whether text id s, just interned, is a text this load met before: the
 * writer writes a pool's texts, each once.  A text new to the pool gets
 * its next id; one it held before (below before) is marked in seen. */
static bool text_again(tp_str s, size_t count_before, size_t count_then, uint8_t *seen)
{
    if (s >= count_before)
        return s != count_then;
    bool again = seen[s / 8] & (1u << (s % 8));
    seen[s / 8] |= (uint8_t)(1u << (s % 8));
    return again;
}

/* The texts, interned in order into pool: map[child id] = pool id. */
static tp_str *load_texts(loader *r, tp_strpool *pool, uint64_t *m)
{
    *m = get_u64(r);
    if (r->bad || *m == 0 || !fits(r, *m - 1, sizeof(uint32_t)))
        return refuse(r, "damaged (string table)"), NULL;
    size_t before = tp_strpool_count(pool);
    tp_str *map = malloc(*m * sizeof *map);
    uint8_t *seen = calloc(before / 8 + 1, 1);
    char *buf = NULL;
    size_t cap = 0;
    if (map == NULL || seen == NULL) {
        free(map);
        free(seen);
        return refuse(r, "out of memory"), NULL;
    }
    map[0] = 0;
    for (uint64_t j = 1; j < *m && !r->bad; j++) {
        uint32_t len = get_u32(r);
        if (len + (size_t)1 > cap && fits(r, len, 1)) {
            cap = (size_t)len * 2 + 64;
            char *b = realloc(buf, cap);
            if (b == NULL)
                refuse(r, "out of memory");
            else
                buf = b;
        }
        get(r, buf, len);
        size_t then = tp_strpool_count(pool);
        if (!r->bad && ((map[j] = tp_strpool_intern(pool, buf, len)) == TP_STR_NOMEM || len == 0))
            refuse(r, len == 0 ? "damaged (an empty text)" : "out of memory");
        else if (!r->bad && text_again(map[j], before, then, seen))
            refuse(r, "damaged (a text twice)");
    }
    free(seen);
    free(buf);
    if (r->bad) {
        free(map);
        return NULL;
    }
    return map;
}

static void *get_array(loader *r, uint64_t n, size_t each)
{
    void *p = fits(r, n, each) ? malloc(n ? n * each : 1) : NULL;
    if (p == NULL)
        refuse(r, "out of memory");
    get(r, p, n * each);
    return p;
}

static void load_rows(loader *r, tp_trace *t)
{
    uint64_t n = get_u64(r);
    if (!fits(r, n, 42) || tp_trace_reserve_rows(t, n ? n : 1) != TP_OK) {
        refuse(r, "damaged (rows) or out of memory");
        return;
    }
    if (get_flag(r, "damaged (the args flag)") && !r->bad) {
        t->args_off = calloc(t->cap, sizeof *t->args_off);
        t->args_len = calloc(t->cap, sizeof *t->args_len);
        if (t->args_off == NULL || t->args_len == NULL)
            refuse(r, "out of memory");
    }
    row_column c[ROW_COLUMNS];
    for (size_t k = 0, nc = r->bad ? 0 : row_columns(t, c); k < nc; k++)
        get(r, c[k].data, n * c[k].size);
    t->cols.n = r->bad ? 0 : n;
}

static int64_t remap_id(int64_t v, const tp_str *map, uint64_t m, loader *r)
{
    if (!TP_ID_IS_STR(v))
        return v;
    if ((uint64_t)(-1 - v) >= m) { /* before TP_ID_STR's cast to 32 bits */
        refuse(r, "damaged (a text id)");
        return v;
    }
    return TP_ID_FROM_STR(map[TP_ID_STR(v)]);
}

/* The tracks, their textual pids and tids remapped, the index rebuilt. */
static void load_tracks(loader *r, tp_trace *t, const tp_str *map, uint64_t m)
{
    uint64_t nt = get_u64(r);
    if (!fits(r, nt, sizeof(tp_track)))
        return;
    for (uint64_t j = 0; j < nt && !r->bad; j++) {
        tp_track k;
        memset(&k, 0, sizeof k);
        uint32_t at;
        get(r, &k, sizeof k);
        k.pid = remap_id(k.pid, map, m, r);
        k.tid = remap_id(k.tid, map, m, r);
        if (!r->bad && (tp_trace_add_track(t, &k, &at) != TP_OK || at != j))
            refuse(r, "damaged (tracks) or out of memory");
    }
    uint64_t nw = get_u64(r);
    t->wide = get_array(r, nw, sizeof *t->wide);
    t->n_wide = t->cap_wide = r->bad ? 0 : nw;
    uint64_t au = get_u64(r);
    t->arena = get_array(r, au, 1);
    t->arena_used = t->arena_cap = r->bad ? 0 : au;
}

/* A row's id cell: a wide one must hold the next slot of the wide table,
 * as the writer's trace fills it (row by row: External id, correlation,
 * flow), so every slot is held by exactly one cell. */
static bool cell_ok(int32_t cell, size_t *next_wide)
{
    if (!TP_ID32_WIDE(cell))
        return true;
    return (size_t)(-2 - (int64_t)cell) == (*next_wide)++;
}

/* The reader's own args file (a gzip trace's) as the hand-off holds it:
 * its data ranges, each at base in the hand-off, its holes left out. */
typedef struct own_range {
    uint64_t off, len, base;
} own_range;
typedef struct own_args {
    bool present;
    size_t n, last; /* last: the range the previous row's args were in */
    own_range *v;
} own_args;

/* Reads the ranges, in order, apart, inside the file's size. */
static void load_own(loader *r, own_args *o)
{
    uint64_t size = get_u64(r), n = get_u64(r), end = 0;
    if (!fits(r, n, 16) || (o->v = calloc(n ? n : 1, sizeof *o->v)) == NULL) {
        refuse(r, "damaged (its args file) or out of memory");
        return;
    }
    for (o->n = 0; o->n < n && !r->bad; o->n++) {
        own_range *g = &o->v[o->n];
        g->off = get_u64(r);
        g->len = get_u64(r);
        g->base = r->pos;
        if (!r->bad && (g->off < end || g->len == 0 || g->off > size || g->len > size - g->off))
            refuse(r, "damaged (a range of its args file)");
        end = g->off + g->len;
        skip(r, g->len);
    }
}

/* Where [off, off + len) of the own args file is in the hand-off, or
 * UINT64_MAX outside its data ranges.  Rows mostly follow the file: the
 * range of the row before is tried first. */
static uint64_t own_at(own_args *o, uint64_t off, uint64_t len)
{
    size_t lo = 0, hi = o->n;
    const own_range *g = o->n ? &o->v[o->last] : NULL;
    if (g == NULL || off < g->off || off - g->off >= g->len) {
        while (lo < hi) { /* the last range starting at or before off */
            size_t mid = lo + (hi - lo) / 2;
            if (o->v[mid].off <= off)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0)
            return UINT64_MAX;
        o->last = lo - 1;
        g = &o->v[o->last];
    }
    if (off - g->off > g->len || len > g->len - (off - g->off))
        return UINT64_MAX;
    return g->base + (off - g->off);
}

/* Row i's args: inside the arena or the input file; in the own args file,
 * moved to where the hand-off holds them. */
static bool args_ok(const loader *r, tp_trace *t, size_t i, own_args *own)
{
    uint64_t off = t->args_off[i] & ~ARGS_IN_FILE, len = t->args_len[i];
    if ((t->args_off[i] & ARGS_IN_FILE) && own->present) {
        uint64_t at = own_at(own, off, len);
        t->args_off[i] = at | ARGS_IN_FILE;
        return at != UINT64_MAX;
    }
    uint64_t room = !(t->args_off[i] & ARGS_IN_FILE) ? t->arena_used : r->input_size;
    return off <= room && len <= room - off;
}

/* Every row's ids, texts and args checked and remapped; args in the own
 * file moved to where the hand-off holds them. */
static void remap_rows(loader *r, tp_trace *t, const tp_str *map, uint64_t m, own_args *own)
{
    size_t next_wide = 0;
    for (size_t i = 0; i < t->cols.n && !r->bad; i++) {
        if (t->name[i] >= m || t->cat[i] >= m || t->track[i] >= t->tracks.n ||
            t->kind[i] >= TP_KIND__COUNT) {
            refuse(r, "damaged (a row)");
            break;
        }
        if (!cell_ok(t->ext_id[i], &next_wide) || !cell_ok(t->corr[i], &next_wide) ||
            !cell_ok(t->flow_id[i], &next_wide) || next_wide > t->n_wide) {
            refuse(r, "damaged (a wide id not the next of its table)");
            break;
        }
        t->name[i] = map[t->name[i]];
        t->cat[i] = map[t->cat[i]];
        if (TP_ID32_WIDE(t->flow_id[i])) { /* a textual flow id: -1 - its text's id */
            int64_t *w = &t->wide[-2 - (int64_t)t->flow_id[i]];
            *w = remap_id(*w, map, m, r);
        }
        if (t->args_off == NULL || t->args_len[i] == 0)
            continue;
        if (!args_ok(r, t, i, own))
            refuse(r, "damaged (args past their file)");
    }
    if (!r->bad && next_wide != t->n_wide)
        refuse(r, "damaged (a wide id no row holds)");
}

static void load_meta_info(loader *r, tp_trace *t)
{
    uint64_t nm = get_u64(r);
    for (uint64_t i = 0; i < nm && fits(r, 1, 8); i++) {
        size_t len = 0;
        char *key = get_str(r, NULL), *json = key ? get_str(r, &len) : NULL;
        if (json && tp_trace_meta_set(t, key, json, len) != TP_OK)
            refuse(r, "out of memory");
        free(key);
        free(json);
    }
    uint64_t ni = get_u64(r);
    for (uint64_t k = 0; k < ni && fits(r, 1, 24); k++) {
        char *key = get_str(r, NULL);
        tp_coltype type = (tp_coltype)get_u32(r);
        int64_t i = (int64_t)get_u64(r);
        double f = 0;
        get(r, &f, sizeof f);
        char *s = get_str(r, NULL);
        if (s && tp_info_put(tp_trace_info_slot(t), key, type, i, f, s) != TP_OK)
            refuse(r, "damaged (info) or out of memory");
        free(key);
        free(s);
    }
}

/* One block of an extension column: its non-null cells set. */
static void load_ext_block(loader *r, tp_trace *t, int col, size_t from, size_t rows,
                           const tp_str *map, uint64_t m, char *cells)
{
    tp_coltype type = tp_ext_type(t->ext, col);
    size_t size = tp_extcol_cell_size(type);
    get(r, cells, rows * size);
    for (size_t i = 0; i < rows && !r->bad; i++) {
        char *cell = cells + i * size;
        if (tp_extcol_is_null(type, cell))
            continue;
        if (type == TP_COL_SID) {
            tp_str s;
            memcpy(&s, cell, sizeof s);
            if (s >= m) {
                refuse(r, "damaged (a text cell)");
                break;
            }
            memcpy(cell, &map[s], sizeof s);
        }
        if (tp_ext_set(t->ext, col, from + i, t->cols.n, type, cell) != TP_OK)
            refuse(r, "out of memory");
    }
}

static void load_ext(loader *r, tp_trace *t, const tp_str *map, uint64_t m)
{
    uint64_t nx = get_u64(r);
    size_t n = t->cols.n;
    char *cells = malloc(TP_EXTCOL_BLOCK * 8);
    if (cells == NULL)
        refuse(r, "out of memory");
    for (uint64_t k = 0; k < nx && fits(r, 1, 8); k++) {
        char *name = get_str(r, NULL);
        tp_coltype type = (tp_coltype)get_u32(r);
        int col = name && !r->bad ? tp_ext_add(tp_trace_ext_slot(t), name, type, t->cap) : -1;
        free(name);
        if (col < 0 || (size_t)col != k) {
            refuse(r, "damaged (extension columns) or out of memory");
            break;
        }
        for (size_t from = 0; from < n && !r->bad; from += TP_EXTCOL_BLOCK) {
            size_t rows = n - from < TP_EXTCOL_BLOCK ? n - from : TP_EXTCOL_BLOCK;
            if (get_flag(r, "damaged (an extension block's flag)"))
                load_ext_block(r, t, col, from, rows, map, m, cells);
        }
    }
    free(cells);
}

/* The file's digest, over every byte but the last 8, against those 8:
 * checked before anything of it is used, so a damaged file interns no
 * text of its own into the run's pool.  Sets r->size. */
static void check_digest(loader *r, int fd, uint64_t size)
{
    uint64_t stored = 0;
    if (size < sizeof stored) {
        refuse(r, "truncated");
        return;
    }
    r->size = size - sizeof stored;
    char *buf = malloc(IO_BUFFER);
    tp_digest d;
    tp_digest_init(&d);
    for (uint64_t at = 0; buf && !r->bad && at < r->size;) {
        size_t want = r->size - at < IO_BUFFER ? (size_t)(r->size - at) : IO_BUFFER;
        ssize_t got = pread(fd, buf, want, (off_t)at);
        if (got <= 0)
            refuse(r, "cannot read it");
        else
            tp_digest_add(&d, buf, (size_t)got), at += (uint64_t)got;
    }
    if (buf == NULL)
        refuse(r, "out of memory");
    free(buf);
    if (!r->bad && pread(fd, &stored, sizeof stored, (off_t)r->size) != (ssize_t)sizeof stored)
        refuse(r, "truncated");
    else if (!r->bad && stored != tp_digest_value(&d))
        refuse(r, "damaged (its digest differs)");
}

/* The trace's source file again; args in the own section come from the
 * hand-off file itself (path), mapped as a reader's own args file. */
static void attach_source(loader *r, tp_trace *t, const char *source, bool own, const char *path)
{
    if (source == NULL) { /* no source: no args may refer to a file */
        for (size_t i = 0; t->args_off && i < t->cols.n; i++)
            if (t->args_len[i] > 0 && (t->args_off[i] & ARGS_IN_FILE))
                refuse(r, "damaged (args without a file)");
        return;
    }
    if (tp_trace_source_set(t, source) != TP_OK) {
        refuse(r, "out of memory");
        return;
    }
    if (own) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0 || tp_trace_args_file_set(t, fd) != TP_OK)
            refuse(r, "cannot open it again for its args");
        return;
    }
    for (size_t i = 0; t->args_off && i < t->cols.n; i++)
        if (t->args_len[i] > 0 && (t->args_off[i] & ARGS_IN_FILE)) {
            tp_trace_source_hold(t); /* as a read holds it from its first reference */
            break;
        }
    if (tp_trace_source_problem(t) != NULL)
        refuse(r, tp_trace_source_problem(t));
}

static tp_trace *load_all(loader *r, tp_strpool *pool, uint64_t key, const char *path)
{
    check_header(r, key);
    bool has_source = false;
    char *source = check_input(r, &has_source);
    uint64_t m = 0;
    tp_str *map = source ? load_texts(r, pool, &m) : NULL;
    tp_trace *t = map ? tp_trace_new(pool) : NULL;
    if (map && t == NULL)
        refuse(r, "out of memory");
    own_args own = {0};
    if (t) {
        load_rows(r, t);
        load_tracks(r, t, map, m);
        if ((own.present = get_flag(r, "damaged (the args file flag)")))
            load_own(r, &own);
        load_meta_info(r, t);
        load_ext(r, t, map, m);
        if (!r->bad && r->pos != r->size)
            refuse(r, "damaged (bytes past its end)");
        remap_rows(r, t, map, m, &own);
        tp_trace_refresh_views(t);
        if (!r->bad && own.present && !has_source)
            refuse(r, "damaged (an args file without a source)");
        if (!r->bad)
            attach_source(r, t, has_source ? source : NULL, own.present, path);
        if (!r->bad) /* loaded dense: sparse if that takes less memory */
            tp_trace_args_settle(t);
    }
    free(own.v);
    free(map);
    free(source);
    if (r->bad) {
        tp_trace_free(t);
        return NULL;
    }
    return t;
}

int tp_handoff_load(const char *path, tp_strpool *pool, uint64_t key, const char *input,
                    tp_trace **out, char *why, size_t why_size)
{
    *out = NULL;
    loader r = {fopen(path, "rbe"), input, 0, 0, 0, false, why, why_size};
    struct stat sb;
    if (r.f == NULL || fstat(fileno(r.f), &sb) != 0) {
        snprintf(why, why_size, "%s", strerror(errno));
        if (r.f)
            fclose(r.f);
        return TP_EIO;
    }
    setvbuf(r.f, NULL, _IOFBF, IO_BUFFER);
    if (key == 0)
        refuse(&r, "its reader's options cannot be compared");
    check_digest(&r, fileno(r.f), (uint64_t)sb.st_size);
    *out = r.bad ? NULL : load_all(&r, pool, key, path);
    fclose(r.f);
    return *out ? TP_OK : TP_EFORMAT;
}
