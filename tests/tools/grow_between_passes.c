/*
 * A preload library for tests/bad (issue 32): the file named by
 * TP_TEST_GROW_FILE changes between the passes of a reader that reads it
 * twice.  At the second rewind() of a stream open on that file, a line is
 * appended to it (by another descriptor, as another process would), then
 * the stream is rewound.  With TP_TEST_GROW_MODE=rewrite the file is
 * rewritten in place instead, keeping its size, line count and mtime (to
 * the nanosecond): the last digit of the first "endNs" value is changed and
 * the times are set back; with TP_TEST_GROW_MODE=rewrite_last, of the last
 * one (in a file read on two threads, the second thread's part).  Build: cc -shared -fPIC -o grow.so
 * grow_between_passes.c -ldl; run with LD_PRELOAD=grow.so.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

static int rewinds;

/* One digit changed in place, the file's times set back. */
/* The last occurrence of key in text[0, size), or NULL: searched from the
 * end (strstr from each occurrence is quadratic under ASan's interceptor,
 * which measures the rest of the text each time). */
static char *last_of(char *text, size_t size, const char *key)
{
    size_t k = strlen(key);
    for (size_t at = size >= k ? size - k + 1 : 0; at-- > 0;)
        if (text[at] == key[0] && memcmp(text + at, key, k) == 0)
            return text + at;
    return NULL;
}

static void rewrite(const char *path, const struct stat *was, int last)
{
    int fd = open(path, O_RDWR);
    char *text = fd >= 0 ? malloc((size_t)was->st_size + 1) : NULL;
    if (text && pread(fd, text, (size_t)was->st_size, 0) == (ssize_t)was->st_size) {
        text[was->st_size] = '\0';
        char *at = last ? last_of(text, (size_t)was->st_size, "\"endNs\":\"") : strstr(text, "\"endNs\":\"");
        char *end = at ? strchr(at + 9, '"') : NULL;
        if (end && end[-1] >= '0' && end[-1] <= '9') {
            char digit = end[-1] == '9' ? '8' : (char)(end[-1] + 1);
            struct timespec times[2] = {was->st_atim, was->st_mtim};
            if (pwrite(fd, &digit, 1, end - 1 - text) == 1)
                futimens(fd, times);
        }
    }
    free(text);
    if (fd >= 0)
        close(fd);
}

void rewind(FILE *stream)
{
    static void (*real)(FILE *);
    if (real == NULL)
        real = (void (*)(FILE *))dlsym(RTLD_NEXT, "rewind");
    const char *path = getenv("TP_TEST_GROW_FILE");
    struct stat a, b;
    if (path && fstat(fileno(stream), &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
        a.st_dev == b.st_dev && ++rewinds == 2) {
        const char *mode = getenv("TP_TEST_GROW_MODE");
        int last = mode && strcmp(mode, "rewrite_last") == 0;
        int in_place = last || (mode && strcmp(mode, "rewrite") == 0);
        FILE *f = in_place ? NULL : fopen(path, "a");
        if (in_place)
            rewrite(path, &b, last);
        if (f) {
            fputs("{\"Type\":79,\"CudaEvent\":{}}\n", f);
            fclose(f);
        }
    }
    real(stream);
}
