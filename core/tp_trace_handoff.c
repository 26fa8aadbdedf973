/*
 * A parsed trace written to a file and loaded back (issue 31): a batch's
 * trace process writes its trace right after the first reader, and the
 * batch stages' process loads it instead of parsing the trace again
 * (tp_run_handoff.c).  The file is the core's own, for one machine and one
 * build: a header (magic, version, byte order, the reader's key), the
 * source file's identity, the string pool's texts in intern order, the
 * columns as they are, tracks, wide ids, copied args, the reader's own args
 * file (a gzip trace's) copied, metadata, info, extension columns (blocks
 * of null cells left out), then a digest of every byte before it.
 *
 * Loading (tp_trace_handoff_load.c) interns the texts in their order into
 * the loading run's pool: the same texts interned in the same order a read
 * would intern them give the same ids, so the loaded trace is the one a
 * read would have made.
 */
#include "tp_handoff.h"
#include "tp_options.h"
#include "tp_trace.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <tracepipe/tp_sdk_digest.h>
#include <unistd.h>

#include "tp_extcol.h"
#include "tp_handoff_impl.h"

/* ------------------------------------------------------------ reader key */

static void digest_text(tp_digest *d, const char *s)
{
    uint8_t present = s != NULL;
    tp_digest_add(d, &present, 1);
    if (s)
        tp_digest_add(d, s, strlen(s) + 1);
}

uint64_t tp_handoff_reader_key(const tp_stage_desc *desc, const void *config)
{
    tp_digest d;
    tp_digest_init(&d);
    digest_text(&d, desc->name);
    const tp_option *in = tp_option_with_role(desc, TP_OPT_INPUT_FILE);
    for (const tp_option *o = desc->options; o && o->name; o++) {
        if (o == in)
            continue; /* the trace's own path: the slot's, by construction */
        const char *field = (const char *)config + o->offset;
        digest_text(&d, o->name);
        tp_digest_add(&d, &o->type, sizeof o->type);
        if (o->type == TP_OPT_STRING || o->type == TP_OPT_CHOICE) {
            digest_text(&d, *(const char *const *)field);
        } else if (o->type == TP_OPT_LIST) {
            const tp_strlist *l = (const tp_strlist *)field;
            tp_digest_add(&d, &l->n, sizeof l->n);
            for (size_t i = 0; i < l->n; i++)
                digest_text(&d, l->items[i]);
        } else if (o->type == TP_OPT_INT_LIST || o->type == TP_OPT_FLOAT_LIST) {
            const tp_intlist *l = (const tp_intlist *)field; /* same shape, 8-byte cells */
            tp_digest_add(&d, &l->n, sizeof l->n);
            if (l->n)
                tp_digest_add(&d, l->items, l->n * sizeof(int64_t));
        } else if (tp_option_field_size(o->type) > 0 && o->type != TP_OPT_MAP_LIST) {
            tp_digest_add(&d, field, tp_option_field_size(o->type));
        } else {
            return 0; /* an option it cannot compare: never handed over */
        }
    }
    uint64_t key = tp_digest_value(&d);
    return key ? key : 1;
}

/* ------------------------------------------------------------ writing */

typedef struct writer {
    FILE *f;
    tp_digest d;
    int err;
} writer;

static void put(writer *w, const void *p, size_t n)
{
    if (w->err || n == 0)
        return;
    tp_digest_add(&w->d, p, n);
    if (fwrite(p, 1, n, w->f) != n)
        w->err = errno ? errno : EIO;
}

static void put_u64(writer *w, uint64_t v) { put(w, &v, sizeof v); }
static void put_u32(writer *w, uint32_t v) { put(w, &v, sizeof v); }
static void put_u8(writer *w, uint8_t v) { put(w, &v, 1); }

static void put_text(writer *w, const char *s, size_t len)
{
    if (len > UINT32_MAX) {
        w->err = EOVERFLOW;
        return;
    }
    put_u32(w, (uint32_t)len);
    put(w, s, len);
}

static void put_str(writer *w, const char *s) { put_text(w, s ? s : "", s ? strlen(s) : 0); }

static void put_source(writer *w, const char *path, const struct stat *sb)
{
    put_str(w, path);
    put_u64(w, (uint64_t)sb->st_dev);
    put_u64(w, (uint64_t)sb->st_ino);
    put_u64(w, (uint64_t)sb->st_size);
    put_u64(w, (uint64_t)sb->st_mtim.tv_sec);
    put_u64(w, (uint64_t)sb->st_mtim.tv_nsec);
    /* the inode's change time too: a rewrite that keeps the size and
     * puts the mtime back (cp -p, touch -r) still moves it */
    put_u64(w, (uint64_t)sb->st_ctim.tv_sec);
    put_u64(w, (uint64_t)sb->st_ctim.tv_nsec);
}

static void put_texts(writer *w, const tp_strpool *pool)
{
    size_t m = tp_strpool_count(pool);
    put_u64(w, m);
    for (tp_str j = 1; j < m; j++)
        put_text(w, tp_strpool_text(pool, j), tp_strpool_len(pool, j));
}

/* Sparse args slots (tp_trace_args.c) as the dense columns: every row's
 * offset, then every row's length. */
static void put_args_by_row(writer *w, const tp_trace *t)
{
    enum { CHUNK = 4096 };
    uint64_t off[CHUNK];
    uint32_t len[CHUNK];
    for (int col = 0; col < 2; col++)
        for (size_t from = 0; from < t->cols.n; from += CHUNK) {
            size_t rows = t->cols.n - from < CHUNK ? t->cols.n - from : CHUNK;
            for (size_t i = 0; i < rows; i++)
                len[i] = tp_trace_args_ref(t, from + i, &off[i]);
            if (col == 0)
                put(w, off, rows * sizeof *off);
            else
                put(w, len, rows * sizeof *len);
        }
}

static void put_rows(writer *w, const tp_trace *t)
{
    size_t n = t->cols.n;
    row_column c[ROW_COLUMNS];
    put_u64(w, n);
    put_u8(w, t->args_off != NULL);
    for (size_t k = 0, nc = row_columns(t, c); k < nc; k++)
        put(w, c[k].data, n * c[k].size);
    if (t->args_words != NULL)
        put_args_by_row(w, t);
    put_u64(w, t->tracks.n);
    put(w, t->tracks.v, t->tracks.n * sizeof *t->tracks.v);
    put_u64(w, t->n_wide);
    put(w, t->wide, t->n_wide * sizeof *t->wide);
    put_u64(w, t->arena_used);
    put(w, t->arena, t->arena_used);
}

/* Bytes [from, to) of fd, copied. */
static void put_range(writer *w, int fd, off_t from, off_t to, char *buf)
{
    while (!w->err && from < to) {
        size_t want = (size_t)(to - from) < IO_BUFFER ? (size_t)(to - from) : IO_BUFFER;
        ssize_t got = pread(fd, buf, want, from);
        if (got <= 0) {
            w->err = got < 0 ? errno : EIO;
            break;
        }
        put(w, buf, (size_t)got);
        from += got;
    }
}

/* The data ranges of fd's first size bytes (the file system's holes left
 * out: a gzip trace read on two threads leaves one between the halves'
 * texts), at most max of them; the whole file when holes cannot be told. */
static size_t data_ranges(int fd, off_t size, off_t (*r)[2], size_t max)
{
    size_t n = 0;
    for (off_t at = 0; at < size && n < max;) {
        off_t data = lseek(fd, at, SEEK_DATA), hole;
        if (data < 0 && errno == ENXIO)
            break; /* nothing but a hole from at on */
        if (data < 0 || (hole = lseek(fd, data, SEEK_HOLE)) < 0)
            return 0;
        r[n][0] = data;
        r[n][1] = hole < size ? hole : size;
        at = r[n++][1];
    }
    return n < max ? n : 0; /* too many: copied whole */
}

#define MAX_RANGES 64

/* The reader's own args file (a gzip trace's): its size, then its data
 * ranges (offset, length, bytes), its holes left out (issue 31). */
static void put_own_args(writer *w, const source_file *src)
{
    struct stat sb;
    off_t ranges[MAX_RANGES][2];
    char *buf = malloc(IO_BUFFER);
    if (fstat(src->fd, &sb) != 0 || buf == NULL) {
        w->err = buf ? errno : ENOMEM;
        free(buf);
        return;
    }
    size_t n = sb.st_size > 0 ? data_ranges(src->fd, sb.st_size, ranges, MAX_RANGES) : 0;
    if (n == 0 && sb.st_size > 0) {
        ranges[0][0] = 0;
        ranges[0][1] = sb.st_size;
        n = 1;
    }
    put_u64(w, (uint64_t)sb.st_size);
    put_u64(w, n);
    for (size_t k = 0; k < n; k++) {
        put_u64(w, (uint64_t)ranges[k][0]);
        put_u64(w, (uint64_t)(ranges[k][1] - ranges[k][0]));
        put_range(w, src->fd, ranges[k][0], ranges[k][1], buf);
    }
    free(buf);
}

static void put_meta_info(writer *w, const tp_trace *t)
{
    size_t nm = tp_trace_meta_n(t);
    put_u64(w, nm);
    for (size_t i = 0; i < nm; i++) {
        const char *key = tp_trace_meta_key_at(t, i);
        put_str(w, key);
        put_str(w, tp_trace_meta_get(t, key));
    }
    size_t ni = tp_info_count(t->info);
    put_u64(w, ni);
    for (size_t k = 0; k < ni; k++) {
        const char *key = tp_info_key(t->info, k);
        tp_coltype type = tp_info_type(t->info, key);
        int64_t i = 0;
        double f = 0;
        if (type == TP_COL_I64)
            tp_info_i64(t->info, key, &i);
        else if (type == TP_COL_F64)
            tp_info_f64(t->info, key, &f);
        put_str(w, key);
        put_u32(w, (uint32_t)type);
        put_u64(w, (uint64_t)i);
        put(w, &f, sizeof f);
        put_str(w, type == TP_COL_STR ? tp_info_str(t->info, key) : "");
    }
}

/* Rows [from, from + rows) of extension column col, as cells. */
static bool ext_block(const tp_extcols *x, int col, size_t from, size_t rows, char *cells)
{
    tp_coltype type = tp_ext_type(x, col);
    size_t size = tp_extcol_cell_size(type);
    bool any = false;
    for (size_t r = 0; r < rows; r++) {
        tp_ext_get(x, col, from + r, cells + r * size);
        any |= !tp_extcol_is_null(type, cells + r * size);
    }
    return any;
}

static void put_ext(writer *w, const tp_trace *t)
{
    size_t nx = tp_ext_count(t->ext), n = t->cols.n;
    char *cells = malloc(TP_EXTCOL_BLOCK * 8);
    put_u64(w, nx);
    for (size_t k = 0; k < nx && cells; k++) {
        tp_coltype type = tp_ext_type(t->ext, (int)k);
        put_str(w, tp_ext_name(t->ext, (int)k));
        put_u32(w, (uint32_t)type);
        for (size_t from = 0; from < n; from += TP_EXTCOL_BLOCK) {
            size_t rows = n - from < TP_EXTCOL_BLOCK ? n - from : TP_EXTCOL_BLOCK;
            bool any = ext_block(t->ext, (int)k, from, rows, cells);
            put_u8(w, any);
            if (any)
                put(w, cells, rows * tp_extcol_cell_size(type));
        }
    }
    if (cells == NULL)
        w->err = ENOMEM;
    free(cells);
}

/* The input file's identity now (sb); a trace's source file, when it has
 * one of its own (a plain Kineto trace's args are read from it), must
 * still be what its reader opened. */
static int input_now(const tp_trace *t, const char *input, struct stat *sb, char *why,
                     size_t why_size)
{
    const source_file *src = t->src;
    struct stat now;
    if (input == NULL || input[0] == '\0' || stat(input, sb) != 0 || !S_ISREG(sb->st_mode)) {
        snprintf(why, why_size, "its input is not a regular file");
        return TP_EINVAL;
    }
    if (src != NULL && !src->own && src->path[0] &&
        (!src->known || stat(src->path, &now) != 0 || src->dev != now.st_dev ||
         src->ino != now.st_ino || src->size != now.st_size ||
         src->mtime.tv_sec != now.st_mtim.tv_sec || src->mtime.tv_nsec != now.st_mtim.tv_nsec)) {
        snprintf(why, why_size, "%s changed while it was read", src->path);
        return TP_EIO;
    }
    return TP_OK;
}

static void write_all(writer *w, const tp_trace *t, const tp_strpool *pool, uint64_t key,
                      const char *input, const struct stat *sb)
{
    put(w, tp_handoff_magic, sizeof tp_handoff_magic);
    put_u32(w, HANDOFF_VERSION);
    put_u32(w, BYTE_ORDER_MARK);
    put_u64(w, key);
    put_source(w, input, sb);
    put_u8(w, t->src != NULL);
    put_str(w, t->src ? t->src->path : "");
    put_texts(w, pool);
    put_rows(w, t);
    bool own = t->src != NULL && t->src->own;
    put_u8(w, own);
    if (own)
        put_own_args(w, t->src);
    put_meta_info(w, t);
    put_ext(w, t);
    uint64_t digest = tp_digest_value(&w->d);
    if (!w->err && fwrite(&digest, 1, sizeof digest, w->f) != sizeof digest)
        w->err = errno ? errno : EIO;
}

/* An upper bound of the file's size: the columns, the texts, copied args,
 * the reader's own args file, extension columns as if dense. */
static uint64_t size_bound(const tp_trace *t, const tp_strpool *pool)
{
    uint64_t bytes = (uint64_t)t->cols.n * (64 + 8 * (uint64_t)tp_ext_count(t->ext)) + t->arena_used +
                     t->tracks.n * sizeof *t->tracks.v + t->n_wide * sizeof *t->wide + 4096;
    for (tp_str j = 1, m = (tp_str)tp_strpool_count(pool); j < m; j++)
        bytes += tp_strpool_len(pool, j) + 8;
    struct stat sb;
    if (t->src != NULL && t->src->own && fstat(t->src->fd, &sb) == 0)
        bytes += (uint64_t)sb.st_size;
    return bytes;
}

/* The hand-offs of a batch live in its temporary folder until the batch
 * stages end, beside what the traces' readers write there (a gzip trace's
 * args): a hand-off is written only if the file system keeps at least
 * TRACEPIPE_HANDOFF_RESERVE_MB free after it (default: a twentieth of
 * its size, at least 256 MiB, at most 4 GiB).  Without one the batch
 * reads the trace again. */
static bool room_for(const char *path, uint64_t bytes, char *why, size_t why_size)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else
        slash[slash == dir] = '\0';
    struct statvfs fs;
    if (statvfs(dir, &fs) != 0)
        return true; /* the write itself will say what is wrong */
    uint64_t total = (uint64_t)fs.f_blocks * fs.f_frsize;
    uint64_t avail = (uint64_t)fs.f_bavail * fs.f_frsize;
    uint64_t reserve = total / 20 < (4ull << 30) ? total / 20 : (4ull << 30);
    if (reserve < (256u << 20))
        reserve = 256u << 20;
    const char *env = getenv("TRACEPIPE_HANDOFF_RESERVE_MB");
    if (env != NULL && env[0] != '\0') {
        unsigned long long mb = strtoull(env, NULL, 10);
        reserve = mb > (UINT64_MAX >> 20) ? UINT64_MAX : (uint64_t)mb << 20;
    }
    if (avail >= bytes && avail - bytes >= reserve)
        return true;
    snprintf(why, why_size, "%s has %.0f MiB free; the hand-off takes up to %.0f MiB and %.0f MiB must "
             "stay free (TRACEPIPE_HANDOFF_RESERVE_MB)",
             dir, (double)avail / 1048576.0, (double)bytes / 1048576.0, (double)reserve / 1048576.0);
    return false;
}

int tp_handoff_write(const tp_trace *t, const tp_strpool *pool, uint64_t key, const char *input,
                     const char *path, char *why, size_t why_size)
{
    struct stat sb;
    if (t->n_att > 0 || t->n_done > 0 || key == 0) {
        snprintf(why, why_size, "the trace holds more than its reader made");
        return TP_EINVAL;
    }
    int rc = input_now(t, input, &sb, why, why_size);
    if (rc != TP_OK)
        return rc;
    if (!room_for(path, size_bound(t, pool), why, why_size))
        return TP_EIO;
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    tp_temp_slot *slot = tp_temp_register(tmp);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    writer w = {fd >= 0 ? fdopen(fd, "wb") : NULL, {{0}, 0, {0}}, 0};
    if (w.f == NULL) {
        snprintf(why, why_size, "%s: %s", tmp, strerror(errno));
        if (fd >= 0)
            close(fd);
        tp_temp_unregister(slot);
        return TP_EIO;
    }
    setvbuf(w.f, NULL, _IOFBF, IO_BUFFER);
    tp_digest_init(&w.d);
    write_all(&w, t, pool, key, input, &sb);
    if (fclose(w.f) != 0 && !w.err)
        w.err = errno ? errno : EIO;
    if (!w.err && rename(tmp, path) != 0)
        w.err = errno;
    if (w.err) {
        snprintf(why, why_size, "%s: %s", tmp, strerror(w.err));
        unlink(tmp);
    }
    tp_temp_unregister(slot);
    return w.err ? TP_EIO : TP_OK;
}
