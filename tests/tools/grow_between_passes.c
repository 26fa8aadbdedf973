/*
 * A preload library for tests/bad (issue 32): the file named by
 * TP_TEST_GROW_FILE changes between the passes of a reader that reads it
 * twice.  At the second rewind() of a stream open on that file, a line is
 * appended to it (by another descriptor, as another process would), then
 * the stream is rewound.  Build: cc -shared -fPIC -o grow.so
 * grow_between_passes.c -ldl; run with LD_PRELOAD=grow.so.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

static int rewinds;

void rewind(FILE *stream)
{
    static void (*real)(FILE *);
    if (real == NULL)
        real = (void (*)(FILE *))dlsym(RTLD_NEXT, "rewind");
    const char *path = getenv("TP_TEST_GROW_FILE");
    struct stat a, b;
    if (path && fstat(fileno(stream), &a) == 0 && stat(path, &b) == 0 && a.st_ino == b.st_ino &&
        a.st_dev == b.st_dev && ++rewinds == 2) {
        FILE *f = fopen(path, "a");
        if (f) {
            fputs("{\"Type\":79,\"CudaEvent\":{}}\n", f);
            fclose(f);
        }
    }
    real(stream);
}
