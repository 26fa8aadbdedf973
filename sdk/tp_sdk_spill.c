/* tracepipe SDK: args texts in a temporary file (tp_sdk_spill.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracepipe/tp_sdk_spill.h>

#define SPILL_BUF (1u << 20)

struct tp_spill {
    int fd; /* the trace's */
    char *buf;
    size_t used;
    uint64_t at; /* file offset of buf[0] */
    int err;     /* errno of a failed write, kept for the message */
    void (*on_flush)(void *ctx, uint64_t end);
    void *ctx;
};

const char *tp_spill_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir == NULL || dir[0] == '\0' ? "/tmp" : dir;
}

int tp_spill_temp_file(void)
{
    const char *dir = tp_spill_dir();
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
#endif
    static const char name[] = "/tracepipe-args-XXXXXX";
    size_t len = strlen(dir);
    char *path = malloc(len + sizeof name);
    if (path == NULL)
        return -1;
    memcpy(path, dir, len);
    memcpy(path + len, name, sizeof name);
    int fd2 = mkostemp(path, O_CLOEXEC);
    if (fd2 >= 0)
        unlink(path);
    free(path);
    return fd2;
}

int tp_spill_pwrite(int fd, const char *p, size_t n, uint64_t off)
{
    size_t done = 0;
    while (done < n) {
        ssize_t w = pwrite(fd, p + done, n - done, (off_t)(off + done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return w < 0 ? errno : ENOSPC;
        done += (size_t)w;
    }
    return 0;
}

static tp_spill *spill_new(int fd, uint64_t at)
{
    tp_spill *s = calloc(1, sizeof *s);
    if (s == NULL || (s->buf = malloc(SPILL_BUF)) == NULL) {
        free(s);
        return NULL;
    }
    s->fd = fd;
    s->at = at;
    return s;
}

int tp_spill_open(tp_stage *st, tp_trace *t, const char *path, tp_spill **out)
{
    *out = NULL;
    int fd = tp_spill_temp_file();
    if (fd < 0) {
        tp_log(st, TP_LOG_DEBUG, "%s: no temporary file for the args (%s): kept in memory", path,
               strerror(errno));
        return TP_OK;
    }
    if (tp_trace_set_args_file(st, t, fd) != TP_OK) /* fd is the trace's now */
        return TP_ENOMEM;
    return (*out = spill_new(fd, 0)) != NULL ? TP_OK : TP_ENOMEM;
}

tp_spill *tp_spill_at(const tp_spill *s, uint64_t at)
{
    return spill_new(s->fd, at);
}

void tp_spill_on_flush(tp_spill *s, void (*fn)(void *ctx, uint64_t end), void *ctx)
{
    if (s != NULL) {
        s->on_flush = fn;
        s->ctx = ctx;
    }
}

int tp_spill_flush(tp_spill *s)
{
    if (s == NULL || s->used == 0)
        return TP_OK;
    if (s->on_flush != NULL)
        s->on_flush(s->ctx, s->at + s->used);
    if ((s->err = tp_spill_pwrite(s->fd, s->buf, s->used, s->at)) != 0)
        return TP_EIO;
    s->at += s->used;
    s->used = 0;
    return TP_OK;
}

int tp_spill_put(tp_spill *s, const char *text, size_t len, uint64_t *off)
{
    *off = s->at + s->used;
    while (len > 0) {
        if (s->used == SPILL_BUF && tp_spill_flush(s) != TP_OK)
            return TP_EIO;
        size_t n = SPILL_BUF - s->used < len ? SPILL_BUF - s->used : len;
        memcpy(s->buf + s->used, text, n);
        s->used += n;
        text += n;
        len -= n;
    }
    return TP_OK;
}

const char *tp_spill_error(const tp_spill *s)
{
    return strerror(s && s->err ? s->err : EIO);
}

void tp_spill_free(tp_spill *s)
{
    if (s != NULL) {
        free(s->buf);
        free(s);
    }
}
