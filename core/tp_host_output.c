/*
 * Host functions, outputs: the files writers (and analyses) write, each
 * through a temporary renamed over its target on success.
 */
#include "tp_guard.h"
#include "tp_host.h"
#include <tracepipe/tp_sdk_json.h>
#include "tp_result.h"
#include "tp_run.h"
#include "tp_strpool.h"
#include "tp_trace.h"
#include "tp_iterations.h"
#include "tp_schema.h"
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- outputs
 *
 * A regular file (or a new one) is written to a temporary created
 * exclusively in the target's directory, renamed over the target when the
 * writer succeeds.  A symlink is followed, so the link stays and its target
 * is replaced.  Anything else (a device such as /dev/null, a FIFO) is
 * written in place: it cannot be renamed over, and replacing it would be
 * wrong.  An input of the run is never an output. */

#define TEMP_TAG ".tmp-"
#define TEMP_RANDOM 6
#define MAX_LINK_HOPS 40

/* The file path finally names once symlinks are followed; it may not
 * exist (*exists false).  *sb is its lstat.  NULL with errno on error. */
static char *follow_links(const char *path, struct stat *sb, bool *exists)
{
    char *cur = strdup(path);
    for (int hops = 0; cur != NULL; hops++) {
        if (lstat(cur, sb) != 0) {
            if (errno != ENOENT)
                break;
            *exists = false;
            return cur;
        }
        if (!S_ISLNK(sb->st_mode)) {
            *exists = true;
            return cur;
        }
        char link[PATH_MAX];
        ssize_t n = hops < MAX_LINK_HOPS ? readlink(cur, link, sizeof link - 1) : -1;
        if (hops >= MAX_LINK_HOPS)
            errno = ELOOP;
        if (n < 0)
            break;
        link[n] = '\0';
        const char *slash = strrchr(cur, '/');
        int dirlen = link[0] == '/' || slash == NULL ? 0 : (int)(slash - cur + 1);
        size_t size = (size_t)dirlen + (size_t)n + 1;
        char *next = malloc(size);
        if (next != NULL)
            snprintf(next, size, "%.*s%s", dirlen, cur, link);
        free(cur);
        cur = next;
    }
    int saved = cur ? errno : ENOMEM;
    free(cur);
    errno = saved;
    return NULL;
}

/* Unpredictable letters for a temporary name. */
static void random_letters(char *out, size_t n)
{
    static const char letters[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    static _Atomic uint64_t counter;
    unsigned char bytes[16];
    if (getrandom(bytes, n, GRND_NONBLOCK) != (ssize_t)n) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^
                     ((uint64_t)getpid() << 16) ^ (counter++ * 0x9E3779B97F4A7C15u);
        for (size_t i = 0; i < n; i++, x = x * 6364136223846793005u + 1442695040888963407u)
            bytes[i] = (unsigned char)(x >> 56);
    }
    for (size_t i = 0; i < n; i++)
        out[i] = letters[bytes[i] % (sizeof letters - 1)];
    out[n] = '\0';
}

/* Creates ".NAME.tmp-XXXXXX" next to target, exclusively (never through
 * an existing file or symlink), with the given mode (before umask).  NAME
 * is shortened so the whole name stays within NAME_MAX. */
static int create_temp(const char *target, mode_t mode, char **tmp_out)
{
    const char *slash = strrchr(target, '/');
    int dirlen = slash ? (int)(slash - target + 1) : 0;
    const char *base = target + dirlen;
    int keep = (int)strlen(base);
    int room = NAME_MAX - 1 - (int)strlen(TEMP_TAG) - TEMP_RANDOM;
    if (keep > room)
        keep = room;
    size_t size = (size_t)dirlen + 1 + (size_t)keep + strlen(TEMP_TAG) + TEMP_RANDOM + 1;
    char *tmp = malloc(size);
    if (tmp == NULL) {
        errno = ENOMEM;
        return -1;
    }
    for (int attempt = 0; attempt < 100; attempt++) {
        char letters[TEMP_RANDOM + 1];
        random_letters(letters, TEMP_RANDOM);
        snprintf(tmp, size, "%.*s.%.*s" TEMP_TAG "%s", dirlen, target, keep, base, letters);
        int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd >= 0) {
            *tmp_out = tmp;
            return fd;
        }
        if (errno != EEXIST)
            break;
    }
    int saved = errno;
    free(tmp);
    errno = saved;
    return -1;
}

/* Creates the temporary of a regular output and registers it for removal
 * on SIGINT/SIGTERM/SIGHUP. */
static int start_temp(tp_stage *st, const char *path, tp_output *o)
{
    /* no signal between creating the file and registering it: the handler
     * would miss it */
    sigset_t ending, before;
    sigemptyset(&ending);
    sigaddset(&ending, SIGINT);
    sigaddset(&ending, SIGTERM);
    sigaddset(&ending, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &ending, &before);
    /* a file replaced keeps its mode (given before the rename), and until
     * then the temporary is private; a new file gets 0666 less the umask */
    o->fd = create_temp(o->target, o->replaces ? 0600 : 0666, &o->tmp_path);
    int saved = errno;
    if (o->fd >= 0 && (o->slot = tp_temp_register(o->tmp_path)) == NULL) {
        unlink(o->tmp_path);
        saved = ENOMEM;
    }
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    if (o->fd < 0 || o->slot == NULL)
        return tp_host_fail(st, TP_EIO, "%s: cannot create: %s", path, strerror(saved));
    return TP_OK;
}

/* Fills o for the file path names; the stage's error on failure. */
/* Creates the missing folders above path (mkdir -p of its dirname, mode
 * 0777 less the umask); 0 or the errno of the first folder that could not
 * be made. */
static int make_parents(const char *path)
{
    char *dir = strdup(path);
    if (dir == NULL)
        return ENOMEM;
    int err = 0;
    for (char *p = strchr(dir + 1, '/'); p != NULL && err == 0; p = strchr(p + 1, '/')) {
        *p = '\0';
        if (mkdir(dir, 0777) != 0 && errno != EEXIST)
            err = errno;
        *p = '/';
    }
    free(dir);
    return err;
}

static int prepare_output(tp_stage *st, const char *path, tp_output *o)
{
    if (path[strlen(path) - 1] == '/')
        return tp_host_fail(st, TP_EINVAL, "%s: names a directory, not a file", path);
    struct stat sb, at;
    bool exists = stat(path, &sb) == 0;
    int stat_errno = errno;
    if (!exists && stat_errno != ENOENT)
        return tp_host_fail(st, TP_EIO, "%s: cannot create: %s", path, strerror(stat_errno));
    if (!exists) { /* writers create missing folders */
        int err = make_parents(path);
        if (err != 0)
            return tp_host_fail(st, TP_EIO, "%s: cannot create its folder: %s", path, strerror(err));
    }
    if (exists && S_ISDIR(sb.st_mode))
        return tp_host_fail(st, TP_EINVAL, "%s: is a directory, not a file", path);
    const tp_run_source *src = exists ? tp_run_find_source(st->run, sb.st_dev, sb.st_ino) : NULL;
    if (src != NULL)
        return tp_host_fail(st, TP_EINVAL, "%s: refusing to overwrite %s, an input of this run",
                         path, src->what);
    bool found = false;
    if ((o->target = follow_links(path, &at, &found)) == NULL)
        return tp_host_fail(st, TP_EIO, "%s: cannot create: %s", path, strerror(errno));
    /* a device or FIFO (or what a /proc link leads to, which has no name
     * to rename over) is written where it is */
    if (exists && (!S_ISREG(sb.st_mode) || !found || at.st_dev != sb.st_dev ||
                   at.st_ino != sb.st_ino)) {
        o->in_place = true;
        o->tmp_path = strdup(path);
        return o->tmp_path ? TP_OK : tp_host_fail(st, TP_ENOMEM, "out of memory");
    }
    o->replaces = exists;
    o->mode = sb.st_mode & 07777;
    o->uid = sb.st_uid;
    o->gid = sb.st_gid;
    return start_temp(st, path, o);
}

/* path with every "{rank}" replaced by the rank of the stage's trace
 * (trace info `rank`): new string, or NULL after saying why. */
static char *with_rank(tp_stage *st, const char *path)
{
    if (strstr(path, "{rank}") == NULL)
        return strdup(path);
    int64_t rank;
    if (st->n_traces)
        tp_host_stage_trace_at(st, 0); /* a batch's trace read late: its rank */
    if (st->trace == NULL || tp_host_info_i64(st->trace, "rank", &rank) != TP_OK) {
        tp_host_fail(st, TP_EINVAL, "output path '%s' has {rank}, but the trace does not say its "
                  "rank (Kineto: distributedInfo.rank)", path);
        return NULL;
    }
    char num[24];
    int nl = snprintf(num, sizeof num, "%lld", (long long)rank);
    size_t n = 0, cap = strlen(path) + 1;
    for (const char *p = strstr(path, "{rank}"); p; p = strstr(p + 6, "{rank}"))
        cap += (size_t)nl;
    char *out = malloc(cap);
    if (out == NULL)
        return NULL;
    for (const char *p = path; *p;) {
        if (strncmp(p, "{rank}", 6) == 0) {
            memcpy(out + n, num, (size_t)nl);
            n += (size_t)nl;
            p += 6;
        } else {
            out[n++] = *p++;
        }
    }
    out[n] = '\0';
    return out;
}

static const char *output_begin_at(tp_stage *st, const char *path);

const char *tp_host_output_begin(tp_stage *st, const char *path)
{
    if (path == NULL || path[0] == '\0') {
        tp_host_fail(st, TP_EINVAL, "empty output path");
        return NULL;
    }
    char *real = with_rank(st, path);
    if (real == NULL) {
        if (st->error_code == 0)
            tp_host_fail(st, TP_ENOMEM, "out of memory");
        return NULL;
    }
    const char *tmp = output_begin_at(st, real);
    free(real);
    return tmp;
}

static const char *output_begin_at(tp_stage *st, const char *path)
{
    tp_output *all = realloc(st->outputs, (st->n_outputs + 1) * sizeof *all);
    if (all == NULL) {
        tp_host_fail(st, TP_ENOMEM, "out of memory");
        return NULL;
    }
    st->outputs = all;
    tp_output o = {.fd = -1, .final_path = strdup(path)};
    if (o.final_path == NULL) {
        tp_host_fail(st, TP_ENOMEM, "out of memory");
        return NULL;
    }
    if (prepare_output(st, path, &o) != TP_OK) {
        if (o.fd >= 0)
            close(o.fd);
        free(o.final_path);
        free(o.target);
        free(o.tmp_path);
        return NULL;
    }
    st->outputs[st->n_outputs++] = o;
    return o.tmp_path;
}
