/*
 * The host function table: the only door from a plugin into the core.
 * Every entry takes the running stage (or a trace/result handle) and
 * forwards to the core modules; nothing here keeps state of its own.
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

static void host_log(tp_stage *st, tp_level level, const char *fmt, ...) TP_PRINTF(3, 4);
static void host_log(tp_stage *st, tp_level level, const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    tp_run_log(st->run, level, st->id, msg);
}

static int host_fail(tp_stage *st, int code, const char *fmt, ...) TP_PRINTF(3, 4);
static int host_fail(tp_stage *st, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st->error, sizeof st->error, fmt, ap);
    va_end(ap);
    /* keep it one line: a stray newline in a plugin message would break
     * the "one line per error" promise */
    for (char *p = st->error; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    st->error_code = code < 0 ? code : TP_ERR;
    return st->error_code;
}

/* A failed result call is recorded on the stage with its own code and
 * what it was, so the run reports "column 'x' (text): wrong type" even when
 * the plugin folds return codes together or returns a different one. */
static int result_call(tp_stage *st, const tp_result *r, int col, const char *what, int rc)
{
    if (rc >= TP_OK || st->error_code != 0)
        return rc;
    if (rc == TP_ENOMEM) {
        host_fail(st, rc, "out of memory in %s (result '%s')", what, tp_result_get_id(r));
    } else if (col >= 0 && (size_t)col < tp_result_ncols(r)) {
        tp_coltype t = tp_result_coltype(r, col);
        host_fail(st, rc, "plugin bug: %s on column '%s' (%s) of result '%s': wrong type or row",
                  what, tp_result_colname(r, col),
                  t == TP_COL_STR ? "text" : t == TP_COL_I64 ? "int64" : "double",
                  tp_result_get_id(r));
    } else {
        host_fail(st, rc, "plugin bug: %s on result '%s': invalid column %d or argument", what,
                  tp_result_get_id(r), col);
    }
    return rc;
}

static void host_progress(tp_stage *st, uint64_t done, uint64_t total)
{
    tp_progress_update(st->run, st->id, done, total);
}

static tp_str host_intern(tp_stage *st, const char *s, size_t len)
{
    tp_str id = tp_strpool_intern(st->run->pool, s, len);
    return id; /* TP_STR_ERROR when out of memory */
}

static const char *host_str(tp_stage *st, tp_str id)
{
    return tp_strpool_text(st->run->pool, id);
}

static size_t host_str_len(tp_stage *st, tp_str id)
{
    return tp_strpool_len(st->run->pool, id);
}

static int host_str_lookup(tp_stage *st, const char *s, size_t len, tp_str *out)
{
    return tp_strpool_lookup(st->run->pool, s, len, out) ? 1 : 0;
}

static size_t host_str_count(tp_stage *st)
{
    return tp_strpool_count(st->run->pool);
}

static const char *host_stage_id(tp_stage *st) { return st->id; }
static tp_trace *host_stage_trace(tp_stage *st) { return st->trace; }
static uint8_t *host_keep_mask(tp_stage *st) { return st->keep; }
static size_t host_input_count(tp_stage *st) { return st->n_inputs; }

static const tp_result *host_input(tp_stage *st, size_t i)
{
    return i < st->n_inputs ? st->inputs[i] : NULL;
}

static const tp_cols *host_trace_cols(const tp_trace *t) { return tp_trace_columns(t); }

static int host_trace_reserve(tp_stage *st, tp_trace *t, size_t n)
{
    (void)st;
    return tp_trace_reserve_rows(t, n);
}

static int host_trace_append(tp_stage *st, tp_trace *t, const tp_event *ev)
{
    (void)st;
    return tp_trace_push(t, ev);
}

static int host_trace_append_ref(tp_stage *st, tp_trace *t, const tp_event *ev, uint64_t off)
{
    (void)st;
    return tp_trace_push_ref(t, ev, off);
}

static int host_trace_set_meta(tp_stage *st, tp_trace *t, const char *key, const char *json,
                               size_t len)
{
    (void)st;
    return tp_trace_meta_set(t, key, json, len);
}

static int host_trace_set_source(tp_stage *st, tp_trace *t, const char *path)
{
    (void)st;
    return tp_trace_source_set(t, path);
}

static void *host_trace_attach(tp_stage *st, tp_trace *t, const char *name, tp_coltype type,
                               size_t n)
{
    (void)st;
    return tp_trace_attach_array(t, name, type, n);
}

/* A result records the trace it came from: the notes "trace" (the reader's
 * id), "trace_label" and "rank" (from the trace's info, when known). */
static tp_result *with_trace_note(tp_stage *st, tp_result *r)
{
    if (r == NULL || st->trace == NULL || tp_trace_id(st->trace)[0] == '\0')
        return r;
    int rc = tp_result_meta_put(r, "trace", tp_trace_id(st->trace));
    const char *label = tp_host_info_str(st->trace, "label");
    if (rc == TP_OK && label != NULL)
        rc = tp_result_meta_put(r, "trace_label", label);
    int64_t rank;
    if (rc == TP_OK && tp_host_info_i64(st->trace, "rank", &rank) == TP_OK) {
        char text[32];
        snprintf(text, sizeof text, "%lld", (long long)rank);
        rc = tp_result_meta_put(r, "rank", text);
    }
    return rc == TP_OK ? r : NULL;
}

static tp_result *host_result_new(tp_stage *st, const char *name)
{
    if (name == NULL || name[0] == '\0')
        return with_trace_note(st, tp_run_new_result(st->run, st->id));
    size_t n = strlen(st->id) + strlen(name) + 2; /* never truncated */
    char *id = malloc(n);
    if (id == NULL)
        return NULL;
    snprintf(id, n, "%s.%s", st->id, name);
    tp_result *r = tp_run_new_result(st->run, id);
    free(id);
    return with_trace_note(st, r);
}

static int host_result_add_col(tp_stage *st, tp_result *r, const char *name, tp_coltype type)
{
    int rc = tp_result_col_add(r, name, type);
    if (rc == TP_EINVAL && st->error_code == 0)
        return host_fail(st, rc, "plugin bug: column '%s' of result '%s' is empty, repeated or of "
                         "an unknown type", name ? name : "(null)", tp_result_get_id(r));
    return result_call(st, r, -1, "adding a column", rc);
}

static int host_result_add_row(tp_stage *st, tp_result *r, size_t *row)
{
    return result_call(st, r, -1, "adding a row", tp_result_row_add(r, row));
}

static int host_set_str(tp_stage *st, tp_result *r, size_t row, int col, const char *s)
{
    return result_call(st, r, col, "setting a text cell", tp_result_put_str(r, row, col, s));
}

static int host_set_i64(tp_stage *st, tp_result *r, size_t row, int col, int64_t v)
{
    return result_call(st, r, col, "setting an int64 cell", tp_result_put_i64(r, row, col, v));
}

static int host_set_f64(tp_stage *st, tp_result *r, size_t row, int col, double v)
{
    return result_call(st, r, col, "setting a double cell", tp_result_put_f64(r, row, col, v));
}

static int host_result_set_meta(tp_stage *st, tp_result *r, const char *k, const char *v)
{
    (void)st;
    return tp_result_meta_put(r, k, v);
}

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
        return host_fail(st, TP_EIO, "%s: cannot create: %s", path, strerror(saved));
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
        return host_fail(st, TP_EINVAL, "%s: names a directory, not a file", path);
    struct stat sb, at;
    bool exists = stat(path, &sb) == 0;
    int stat_errno = errno;
    if (!exists && stat_errno != ENOENT)
        return host_fail(st, TP_EIO, "%s: cannot create: %s", path, strerror(stat_errno));
    if (!exists) { /* writers create missing folders */
        int err = make_parents(path);
        if (err != 0)
            return host_fail(st, TP_EIO, "%s: cannot create its folder: %s", path, strerror(err));
    }
    if (exists && S_ISDIR(sb.st_mode))
        return host_fail(st, TP_EINVAL, "%s: is a directory, not a file", path);
    const tp_run_source *src = exists ? tp_run_find_source(st->run, sb.st_dev, sb.st_ino) : NULL;
    if (src != NULL)
        return host_fail(st, TP_EINVAL, "%s: refusing to overwrite %s, an input of this run",
                         path, src->what);
    bool found = false;
    if ((o->target = follow_links(path, &at, &found)) == NULL)
        return host_fail(st, TP_EIO, "%s: cannot create: %s", path, strerror(errno));
    /* a device or FIFO (or what a /proc link leads to, which has no name
     * to rename over) is written where it is */
    if (exists && (!S_ISREG(sb.st_mode) || !found || at.st_dev != sb.st_dev ||
                   at.st_ino != sb.st_ino)) {
        o->in_place = true;
        o->tmp_path = strdup(path);
        return o->tmp_path ? TP_OK : host_fail(st, TP_ENOMEM, "out of memory");
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
    if (st->trace == NULL || tp_host_info_i64(st->trace, "rank", &rank) != TP_OK) {
        host_fail(st, TP_EINVAL, "output path '%s' has {rank}, but the trace does not say its "
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

static const char *host_output_begin(tp_stage *st, const char *path)
{
    if (path == NULL || path[0] == '\0') {
        host_fail(st, TP_EINVAL, "empty output path");
        return NULL;
    }
    char *real = with_rank(st, path);
    if (real == NULL) {
        if (st->error_code == 0)
            host_fail(st, TP_ENOMEM, "out of memory");
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
        host_fail(st, TP_ENOMEM, "out of memory");
        return NULL;
    }
    st->outputs = all;
    tp_output o = {.fd = -1, .final_path = strdup(path)};
    if (o.final_path == NULL) {
        host_fail(st, TP_ENOMEM, "out of memory");
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

static const tp_host_api host_api = {
    .struct_size = sizeof(tp_host_api),
    .abi_major = TP_ABI_MAJOR,
    .abi_minor = TP_ABI_MINOR,
    .log = host_log,
    .fail = host_fail,
    .progress = host_progress,
    .malloc = malloc,
    .calloc = calloc,
    .realloc = realloc,
    .free = free,
    .intern = host_intern,
    .str = host_str,
    .str_len = host_str_len,
    .str_lookup = host_str_lookup,
    .str_count = host_str_count,
    .stage_id = host_stage_id,
    .stage_trace = host_stage_trace,
    .keep_mask = host_keep_mask,
    .input_count = host_input_count,
    .input = host_input,
    .trace_cols = host_trace_cols,
    .trace_reserve = host_trace_reserve,
    .trace_append = host_trace_append,
    .trace_args = tp_trace_args_text,
    .trace_set_meta = host_trace_set_meta,
    .trace_meta = tp_trace_meta_get,
    .trace_meta_count = tp_trace_meta_n,
    .trace_meta_key = tp_trace_meta_key_at,
    .trace_source = tp_trace_source_path,
    .trace_set_source = host_trace_set_source,
    .trace_attach = host_trace_attach,
    .trace_attached = tp_trace_find_array,
    .result_new = host_result_new,
    .result_add_col = host_result_add_col,
    .result_add_row = host_result_add_row,
    .result_set_str = host_set_str,
    .result_set_i64 = host_set_i64,
    .result_set_f64 = host_set_f64,
    .result_set_meta = host_result_set_meta,
    .result_id = tp_result_get_id,
    .result_rows = tp_result_nrows,
    .result_cols = tp_result_ncols,
    .result_col_name = tp_result_colname,
    .result_col_type = tp_result_coltype,
    .result_find_col = tp_result_colfind,
    .result_is_null = tp_result_null,
    .result_get_str = tp_result_str,
    .result_get_i64 = tp_result_i64,
    .result_get_f64 = tp_result_f64,
    .result_meta = tp_result_meta_get,
    .output_begin = host_output_begin,
    .json_find = tp_json_get,
    .trace_append_ref = host_trace_append_ref,
    .stage_trace_count = tp_host_stage_trace_count,
    .stage_trace_at = tp_host_stage_trace_at,
    .trace_id = tp_host_trace_id,
    .trace_info_set_i64 = tp_host_info_set_i64,
    .trace_info_set_f64 = tp_host_info_set_f64,
    .trace_info_set_str = tp_host_info_set_str,
    .trace_info_type = tp_host_info_type,
    .trace_info_i64 = tp_host_info_i64,
    .trace_info_f64 = tp_host_info_f64,
    .trace_info_str = tp_host_info_str,
    .trace_info_count = tp_host_info_count,
    .trace_info_key = tp_host_info_key,
    .trace_ext_add = tp_host_ext_add,
    .trace_ext_set_i32 = tp_host_ext_set_i32,
    .trace_ext_set_i64 = tp_host_ext_set_i64,
    .trace_ext_set_f64 = tp_host_ext_set_f64,
    .trace_ext_set_sid = tp_host_ext_set_sid,
    .trace_ext_count = tp_host_ext_count,
    .trace_ext_find = tp_host_ext_find,
    .trace_ext_name = tp_host_ext_name,
    .trace_ext_type = tp_host_ext_type,
    .trace_ext_data = tp_host_ext_data,
    .clip = tp_host_clip,
    .result_set_kind = tp_host_result_set_kind,
    .result_kind = tp_host_result_kind,
    .result_set_unit = tp_host_result_set_unit,
    .result_col_unit = tp_host_result_col_unit,
    .result_meta_count = tp_result_meta_n,
    .result_meta_key = tp_result_meta_key_at,
    .trace_refine = tp_host_trace_refine,
    .run_output_count = tp_host_run_output_count,
    .run_output = tp_host_run_output,
    .iterations = tp_host_iterations,
    .result_declared = tp_host_result_declared,
};

const tp_host_api *tp_core_host_api(void)
{
    return &host_api;
}
