/*
 * kineto reader: the byte source.  A plain file is read() straight into the
 * caller's window.  A gzip file (recognised by its magic bytes 1f 8b, never
 * by its name) is inflated on a second thread into a small ring of buffers,
 * so decompression overlaps parsing; memory stays bounded by the ring.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "kin.h"

#define RING_SLOTS 4
#define SLOT_SIZE (1u << 20)
#define ZIN_SIZE (256u << 10)

typedef struct slot {
    char *data;
    size_t len;
    int full;
} slot;

struct kin_src {
    int fd;
    uint64_t size;
    uint64_t consumed;   /* plain: bytes read; gzip: compressed bytes of the slots taken */
    int gzip;
    /* gzip only */
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

/* ---- the inflate thread */

/* Fills `out` (SLOT_SIZE) with inflated bytes; returns the count, sets
 * *end at the end of the data, or returns -1 with s->perr set. */
static long inflate_some(kin_src *s, z_stream *z, unsigned char *zin, char *out, int *end,
                         int *in_eof)
{
    z->next_out = (unsigned char *)out;
    z->avail_out = SLOT_SIZE;
    while (z->avail_out > 0) {
        if (z->avail_in == 0 && !*in_eof) {
            ssize_t r = read_full(s->fd, zin, ZIN_SIZE);
            if (r < 0) {
                snprintf(s->perr, sizeof s->perr, "read error: %s", strerror(errno));
                return -1;
            }
            if (r == 0)
                *in_eof = 1;
            z->next_in = zin;
            z->avail_in = (uInt)r;
        }
        if (z->avail_in == 0 && *in_eof) {
            snprintf(s->perr, sizeof s->perr, "truncated gzip data (the stream ends early)");
            return -1;
        }
        int zr = inflate(z, Z_NO_FLUSH);
        if (zr == Z_STREAM_END) {
            /* Another gzip member may follow (as `cat a.gz b.gz`); any other
             * trailing bytes are ignored, as gzip does. */
            if (z->avail_in == 0 && !*in_eof) {
                ssize_t r = read_full(s->fd, zin, ZIN_SIZE);
                if (r > 0) {
                    z->next_in = zin;
                    z->avail_in = (uInt)r;
                }
            }
            if (z->avail_in >= 2 && z->next_in[0] == 0x1f && z->next_in[1] == 0x8b) {
                inflateReset(z);
                continue;
            }
            *end = 1;
            break;
        }
        if (zr != Z_OK && zr != Z_BUF_ERROR) {
            snprintf(s->perr, sizeof s->perr, "corrupt gzip data (zlib: %s)",
                     z->msg ? z->msg : "error");
            return -1;
        }
    }
    return (long)(SLOT_SIZE - z->avail_out);
}

static void *inflate_main(void *arg)
{
    kin_src *s = arg;
    z_stream z;
    unsigned char *zin = malloc(ZIN_SIZE);
    int end = 0, in_eof = 0, failed = 0;
    memset(&z, 0, sizeof z);
    if (!zin || inflateInit2(&z, 15 + 16) != Z_OK) {
        snprintf(s->perr, sizeof s->perr, "cannot start zlib");
        failed = 1;
    } else {
        memcpy(zin, s->head, s->head_len);
        z.next_in = zin;
        z.avail_in = (uInt)s->head_len;
    }
    for (size_t w = 0; !failed && !end; w = (w + 1) % RING_SLOTS) {
        pthread_mutex_lock(&s->mu);
        while (s->ring[w].full && !s->stop)
            pthread_cond_wait(&s->cv_free, &s->mu);
        int stop = s->stop;
        pthread_mutex_unlock(&s->mu);
        if (stop)
            break;
        long n = inflate_some(s, &z, zin, s->ring[w].data, &end, &in_eof);
        pthread_mutex_lock(&s->mu);
        if (n < 0) {
            failed = 1;
        } else {
            s->ring[w].len = (size_t)n;
            s->ring[w].full = 1;
            s->slot_in[w] = z.total_in;
        }
        pthread_cond_signal(&s->cv_full);
        pthread_mutex_unlock(&s->mu);
    }
    inflateEnd(&z);
    free(zin);
    pthread_mutex_lock(&s->mu);
    s->done = 1;
    pthread_cond_signal(&s->cv_full);
    pthread_mutex_unlock(&s->mu);
    return NULL;
}

static int start_gzip(kin_src *s, char *err, size_t err_size)
{
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

kin_src *kin_src_open(const char *path, char *err, size_t err_size)
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
    if (s->gzip && start_gzip(s, err, err_size) != 0) {
        kin_src_close(s);
        return NULL;
    }
    return s;
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

long kin_src_read(kin_src *s, char *dst, size_t n, char *err, size_t err_size)
{
    return s->gzip ? read_gzip(s, dst, n, err, err_size) : read_plain(s, dst, n, err, err_size);
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
    if (s->fd >= 0)
        close(s->fd);
    free(s);
}
