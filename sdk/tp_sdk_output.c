/* SDK: safe output files and number formatting (tp_sdk_output.h). */
#include <tracepipe/tp_sdk_output.h>

#include <errno.h>
#include <math.h>
#include <poll.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

FILE *tp_out_open(tp_stage *st, const char *path)
{
    if (path == NULL)
        return stdout;
    const char *tmp = tp_output_begin(st, path);
    if (tmp == NULL) /* the core has recorded why */
        return NULL;
    FILE *f = fopen(tmp, "wb");
    if (f == NULL)
        tp_fail(st, TP_EIO, "%s: cannot create: %s", path, strerror(errno));
    return f;
}

/* Whoever read our standard output closed it (`| head`): the pipe's write
 * end then polls as an error.  The command says so when it ends; the
 * stage's text output simply stops, and the stages after it still run. */
static int stdout_closed(void)
{
    struct pollfd p = {.fd = STDOUT_FILENO, .events = POLLOUT};
    return poll(&p, 1, 0) == 1 && (p.revents & POLLERR) != 0;
}

int tp_out_close(tp_stage *st, FILE *f, const char *path, int rc)
{
    int failed = ferror(f) || fflush(f) != 0;
    int err = failed ? errno : 0;

    if (f != stdout && fclose(f) != 0 && !failed) {
        failed = 1;
        err = errno;
    }
    if (rc != TP_OK || !failed || (f == stdout && stdout_closed()))
        return rc;
    return tp_fail(st, TP_EIO, "%s: write failed: %s", path ? path : "<stdout>",
                   strerror(err ? err : EIO));
}

size_t tp_fmt_f64(char *buf, size_t size, double v)
{
    int n = 0;

    if (size == 0)
        return 0;
    for (int prec = 15; prec <= 17; prec++) {
        n = snprintf(buf, size, "%.*g", prec, v);
        if (strtod(buf, NULL) == v) /* NaN never compares equal: ends at 17 */
            break;
    }
    return n < 0 ? 0 : (size_t)n < size ? (size_t)n : size - 1;
}

size_t tp_fmt_f64_json(char *buf, size_t size, double v)
{
    if (!isfinite(v)) {
        if (size == 0)
            return 0;
        snprintf(buf, size, "null");
        return strlen(buf);
    }
    size_t n = tp_fmt_f64(buf, size, v);
    if (!strpbrk(buf, ".e") && n + 2 < size) {
        memcpy(buf + n, ".0", 3);
        n += 2;
    }
    return n;
}

char *tp_out_path_for(const char *path, const char *id)
{
    size_t idlen = strlen(id), n = 0;
    for (const char *p = strstr(path, "{id}"); p; p = strstr(p + 4, "{id}"))
        n++;
    char *out = malloc(strlen(path) + n * idlen + 1), *o = out;
    if (out == NULL)
        return NULL;
    while (*path) {
        if (strncmp(path, "{id}", 4) == 0) {
            for (size_t i = 0; i < idlen; i++)
                *o++ = id[i] == '/' ? '_' : id[i];
            path += 4;
        } else {
            *o++ = *path++;
        }
    }
    *o = '\0';
    return out;
}

int tp_result_is_findings(const tp_result *r)
{
    static const char *const names[] = {"rule", "severity", "finding", "evidence", "where"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        int c = tp_result_find_col(r, names[i]);
        if (c < 0 || tp_result_col_type(r, c) != TP_COL_STR)
            return 0;
    }
    return 1;
}
