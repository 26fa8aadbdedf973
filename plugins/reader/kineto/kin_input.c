/*
 * kineto reader: the byte source.  A plain file is read() straight into the
 * caller's window.  A gzip file (recognised by its magic bytes 1f 8b, never
 * by its name) is inflated on a second thread into a small ring of buffers,
 * so decompression overlaps parsing; memory stays bounded by the ring.  A
 * split worker's gzip source inflates in the caller's thread instead
 * (kin_src_open_sync).
 *
 * Inflating uses ISA-L's igzip, not zlib: it checks the same CRC and length
 * and runs at ~3.4 GB/s of output here against zlib's ~1.1 GB/s, which is
 * what lets a split worker skip to the middle of a .gz file cheaply (see
 * docs/dependencies.md).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <isa-l/igzip_lib.h>
#include <unistd.h>

#include "kin.h"

#define RING_SLOTS 4
#define SLOT_SIZE (1u << 20)
#define ZIN_SIZE (256u << 10)

typedef struct slot {
    char *data;
    size_t len;
    int full;
} slot;

/* One gzip stream being inflated (all members of a concatenation). */
typedef struct gz_dec {
    struct inflate_state st;
    unsigned char *zin;
    uint64_t in_total; /* compressed bytes consumed */
    int in_eof;
    int header_due;    /* a member starts: its flag byte is not checked yet */
} gz_dec;

struct kin_src {
    int fd;
    uint64_t size;
    uint64_t consumed;   /* plain: bytes read; gzip: compressed bytes of the slots taken */
    int gzip;
    /* gzip only */
    gz_dec *dec;
    int sync;            /* inflate in kin_src_read, no thread */
    int dec_end;         /* sync: the stream has ended */
    pthread_t thread;
    int thread_started;
    pthread_mutex_t mu;
    pthread_cond_t cv_full, cv_free;
    slot ring[RING_SLOTS];
    uint64_t slot_in[RING_SLOTS]; /* compressed bytes consumed when the slot was filled */
    size_t rd, rd_off;            /* consumer slot and offset in it */
    int done, stop;               /* producer finished / consumer asks it to stop */
    char perr[160];               /* producer error, "" if none */
    unsigned char head[2];        /* the first bytes, already read */
    size_t head_len;
};

#define set_err(err, n, ...) snprintf(err, n, __VA_ARGS__)

static ssize_t read_full(int fd, void *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            break;
        got += (size_t)r;
    }
    return (ssize_t)got;
}

/* ---- inflating */

static const char *isal_error(int code)
{
    switch (code) {
    case ISAL_INVALID_BLOCK: return "invalid deflate block";
    case ISAL_INVALID_SYMBOL: return "invalid deflate code";
    case ISAL_INVALID_LOOKBACK: return "back-reference too far back";
    case ISAL_INVALID_WRAPPER: return "invalid gzip header or trailer";
    case ISAL_UNSUPPORTED_METHOD: return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM: return "CRC or length check failed";
    case ISAL_NEED_DICT: return "needs a preset dictionary";
    default: return "inflate error";
    }
}

static void gz_member_start(gz_dec *g)
{
    isal_inflate_reset(&g->st);
    g->st.crc_flag = ISAL_GZIP; /* parse the header, check CRC and length */
    g->header_due = 1;
}


static gz_dec *gz_new(const unsigned char *head, size_t head_len)
{
    gz_dec *g = calloc(1, sizeof *g);
    if (g == NULL || (g->zin = malloc(ZIN_SIZE)) == NULL) {
        free(g);
        return NULL;
    }
    isal_inflate_init(&g->st);
    gz_member_start(g);
    memcpy(g->zin, head, head_len);
    g->st.next_in = g->zin;
    g->st.avail_in = (uint32_t)head_len;
    return g;
}

static void gz_free(gz_dec *g)
{
    if (g) {
        free(g->zin);
        free(g);
    }
}

/* Makes at least `want` compressed bytes available unless the file ends
 * first (-1 on a read error): the bytes left are moved to the front and
 * more are read behind them (want = 2: a member may end one byte before a
 * buffer boundary, and the next one's magic must be seen whole). */
static int gz_top_up(int fd, gz_dec *g, uint32_t want, char *perr, size_t perr_size)
{
    while (g->st.avail_in < want && !g->in_eof) {
        memmove(g->zin, g->st.next_in, g->st.avail_in);
        g->st.next_in = g->zin;
        ssize_t r = read_full(fd, g->zin + g->st.avail_in, ZIN_SIZE - g->st.avail_in);
        if (r < 0) {
            snprintf(perr, perr_size, "read error: %s", strerror(errno));
            return -1;
        }
        if (r == 0)
            g->in_eof = 1;
        g->st.avail_in += (uint32_t)r;
    }
    return 0;
}

/* RFC 1952: a member whose flag byte (its 4th) has a reserved bit (0xe0)
 * set must be refused, as gzip does; ISA-L does not check them.  next_in
 * is at the member's magic. */
static int gz_check_flags(int fd, gz_dec *g, char *perr, size_t perr_size)
{
    if (gz_top_up(fd, g, 4, perr, perr_size) != 0)
        return -1;
    if (g->st.avail_in < 4)
        return 0; /* too short: inflating says it is truncated */
    g->header_due = 0;
    if (g->st.next_in[3] & 0xe0) {
        snprintf(perr, perr_size, "corrupt gzip data (reserved header flag bits 0x%02x set)",
                 (unsigned)(g->st.next_in[3] & 0xe0));
        return -1;
    }
    return 0;
}

/* Fills out[0, cap) with inflated bytes; returns the count, sets *end at the
 * end of the data, or returns -1 with perr set. */
static long gz_inflate(int fd, gz_dec *g, char *out, size_t cap, int *end, char *perr,
                       size_t perr_size)
{
    g->st.next_out = (uint8_t *)out;
    g->st.avail_out = (uint32_t)cap;
    while (g->st.avail_out > 0) {
        if (gz_top_up(fd, g, 1, perr, perr_size) != 0)
            return -1;
        if (g->st.avail_in == 0 && g->in_eof) {
            snprintf(perr, perr_size, "truncated gzip data (the stream ends early)");
            return -1;
        }
        if (g->header_due && gz_check_flags(fd, g, perr, perr_size) != 0)
            return -1;
        uint32_t before = g->st.avail_in;
        int rc = isal_inflate(&g->st);
        g->in_total += before - g->st.avail_in;
        if (rc < 0) {
            snprintf(perr, perr_size, "corrupt gzip data (%s)", isal_error(rc));
            return -1;
        }
        if (g->st.block_state == ISAL_BLOCK_FINISH) {
            /* Another gzip member may follow (as `cat a.gz b.gz`); any other
             * trailing bytes are ignored, as gzip does. */
            if (gz_top_up(fd, g, 2, perr, perr_size) != 0)
                return -1;
            if (g->st.avail_in >= 2 && g->st.next_in[0] == 0x1f && g->st.next_in[1] == 0x8b) {
                uint8_t *next_in = g->st.next_in, *next_out = g->st.next_out;
                uint32_t avail_in = g->st.avail_in, avail_out = g->st.avail_out;
                gz_member_start(g);
                g->st.next_in = next_in;
                g->st.avail_in = avail_in;
                g->st.next_out = next_out;
                g->st.avail_out = avail_out;
                continue;
            }
            *end = 1;
            break;
        }
    }
    return (long)(cap - g->st.avail_out);
}

static void *inflate_main(void *arg)
{
    kin_src *s = arg;
    int end = 0, failed = 0;
    for (size_t w = 0; !failed && !end; w = (w + 1) % RING_SLOTS) {
        pthread_mutex_lock(&s->mu);
        while (s->ring[w].full && !s->stop)
            pthread_cond_wait(&s->cv_free, &s->mu);
        int stop = s->stop;
        pthread_mutex_unlock(&s->mu);
        if (stop)
            break;
        long n = gz_inflate(s->fd, s->dec, s->ring[w].data, SLOT_SIZE, &end, s->perr,
                           sizeof s->perr);
        pthread_mutex_lock(&s->mu);
        if (n < 0) {
            failed = 1;
        } else {
            s->ring[w].len = (size_t)n;
            s->ring[w].full = 1;
            s->slot_in[w] = s->dec->in_total;
        }
        pthread_cond_signal(&s->cv_full);
        pthread_mutex_unlock(&s->mu);
    }
    pthread_mutex_lock(&s->mu);
    s->done = 1;
    pthread_cond_signal(&s->cv_full);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static int start_gzip(kin_src *s, char *err, size_t err_size)
{
    if (!(s->dec = gz_new(s->head, s->head_len))) {
        set_err(err, err_size, "%s", "out of memory");
        return -1;
    }
    if (s->sync)
        return 0;
    for (int i = 0; i < RING_SLOTS; i++) {
        if (!(s->ring[i].data = malloc(SLOT_SIZE))) {
            set_err(err, err_size, "%s", "out of memory");
            return -1;
        }
    }
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cv_full, NULL);
    pthread_cond_init(&s->cv_free, NULL);
    if (pthread_create(&s->thread, NULL, inflate_main, s) != 0) {
        set_err(err, err_size, "%s", "cannot start the inflate thread");
        return -1;
    }
    s->thread_started = 1;
    return 0;
}

static kin_src *src_open(const char *path, int sync, char *err, size_t err_size)
{
    struct stat sb;
    kin_src *s = calloc(1, sizeof *s);
    if (!s) {
        set_err(err, err_size, "%s", "out of memory");
        return NULL;
    }
    s->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0) {
        set_err(err, err_size, "cannot open: %s", strerror(errno));
        free(s);
        return NULL;
    }
    if (fstat(s->fd, &sb) != 0 || S_ISDIR(sb.st_mode)) {
        set_err(err, err_size, "%s", S_ISDIR(sb.st_mode) ? "is a directory, not a trace file"
                                                          : "cannot stat the file");
        close(s->fd);
        free(s);
        return NULL;
    }
    s->size = (uint64_t)sb.st_size;
    ssize_t n = read_full(s->fd, s->head, 2);
    if (n < 0) {
        set_err(err, err_size, "read error: %s", strerror(errno));
        kin_src_close(s);
        return NULL;
    }
    s->head_len = (size_t)n;
    s->gzip = n == 2 && s->head[0] == 0x1f && s->head[1] == 0x8b;
    s->sync = sync;
    if (s->gzip && start_gzip(s, err, err_size) != 0) {
        kin_src_close(s);
        return NULL;
    }
    return s;
}

kin_src *kin_src_open(const char *path, char *err, size_t err_size)
{
    return src_open(path, 0, err, err_size);
}

kin_src *kin_src_open_sync(const char *path, char *err, size_t err_size)
{
    return src_open(path, 1, err, err_size);
}

static long read_plain(kin_src *s, char *dst, size_t n, char *err, size_t err_size)
{
    size_t got = 0;
    if (s->head_len && n > 0) { /* the magic probe's bytes come first */
        got = s->head_len < n ? s->head_len : n;
        memcpy(dst, s->head, got);
        memmove(s->head, s->head + got, s->head_len - got);
        s->head_len -= got;
    }
    ssize_t r = read_full(s->fd, dst + got, n - got);
    if (r < 0) {
        set_err(err, err_size, "read error: %s", strerror(errno));
        return -1;
    }
    got += (size_t)r;
    s->consumed += got;
    return (long)got;
}

static long read_gzip(kin_src *s, char *dst, size_t n, char *err, size_t err_size)
{
    size_t got = 0;
    while (got < n) {
        slot *sl = &s->ring[s->rd];
        pthread_mutex_lock(&s->mu);
        while (!sl->full && !s->done)
            pthread_cond_wait(&s->cv_full, &s->mu);
        int full = sl->full;
        pthread_mutex_unlock(&s->mu);
        if (!full) {
            if (s->perr[0]) {
                set_err(err, err_size, "%s", s->perr);
                return -1;
            }
            break; /* end of data */
        }
        size_t take = sl->len - s->rd_off < n - got ? sl->len - s->rd_off : n - got;
        memcpy(dst + got, sl->data + s->rd_off, take);
        got += take;
        s->rd_off += take;
        if (s->rd_off == sl->len) {
            pthread_mutex_lock(&s->mu);
            s->consumed = s->slot_in[s->rd];
            sl->full = 0;
            pthread_cond_signal(&s->cv_free);
            pthread_mutex_unlock(&s->mu);
            s->rd = (s->rd + 1) % RING_SLOTS;
            s->rd_off = 0;
        }
    }
    return (long)got;
}

/* Sync mode: inflates straight into dst. */
static long read_gzip_sync(kin_src *s, char *dst, size_t n, char *err, size_t err_size)
{
    if (s->dec_end || n == 0)
        return 0;
    long got = gz_inflate(s->fd, s->dec, dst, n, &s->dec_end, err, err_size);
    if (got >= 0)
        s->consumed = s->dec->in_total;
    return got;
}

long kin_src_read(kin_src *s, char *dst, size_t n, char *err, size_t err_size)
{
    if (!s->gzip)
        return read_plain(s, dst, n, err, err_size);
    return s->sync ? read_gzip_sync(s, dst, n, err, err_size) : read_gzip(s, dst, n, err, err_size);
}

long kin_src_pread(kin_src *s, char *dst, size_t n, uint64_t off)
{
    if (s->gzip)
        return -1;
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(s->fd, dst + got, n - got, (off_t)(off + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    return (long)got;
}

int kin_src_seek(kin_src *s, uint64_t off)
{
    if (s->gzip || lseek(s->fd, (off_t)off, SEEK_SET) < 0)
        return -1;
    s->head_len = 0; /* the magic probe's bytes are before off */
    s->consumed = off;
    return 0;
}

int kin_src_is_gzip(const kin_src *s) { return s->gzip; }
uint64_t kin_src_size(const kin_src *s) { return s->size; }
uint64_t kin_src_consumed(const kin_src *s) { return s->consumed; }

void kin_src_close(kin_src *s)
{
    if (!s)
        return;
    if (s->thread_started) {
        pthread_mutex_lock(&s->mu);
        s->stop = 1;
        pthread_cond_signal(&s->cv_free);
        pthread_mutex_unlock(&s->mu);
        pthread_join(s->thread, NULL);
        pthread_mutex_destroy(&s->mu);
        pthread_cond_destroy(&s->cv_full);
        pthread_cond_destroy(&s->cv_free);
    }
    for (int i = 0; i < RING_SLOTS; i++)
        free(s->ring[i].data);
    gz_free(s->dec);
    if (s->fd >= 0)
        close(s->fd);
    free(s);
}
