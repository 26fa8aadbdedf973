/* reader nsys_json: what the reader (nsys_json.c) and its second thread
 * (nsys_json_split.c) share. */
#ifndef TRACEPIPE_NSYS_JSON_H
#define TRACEPIPE_NSYS_JSON_H

#include <stdio.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "nsys_common.h"
#include "nsys_jscan.h"

/* A worker's rows, kept until the main thread appends them. */
typedef struct nj_local nj_local;

/* The file is read in at most two parts, [0, cut) and [cut, end): with two
 * cores the second pass reads the second part on a thread of its own.
 * Each part's bytes are digested and its lines counted by the first pass,
 * and compared by the second. */
#define NJ_PARTS 2

/* The worker's part left unread: the main thread failed (never reported). */
#define NJ_STOPPED (-100)

typedef struct nj {
    tp_stage *st;
    tp_trace *t;
    const char *path;
    size_t line_no, rows, records;
    nsys_table strings, domains;
    nsys_bad bad;
    int row_bad; /* the event being read holds a number that is not an int64 */
    struct stat at_open; /* the file as first seen: it must not change */
    size_t lines;        /* lines of the first pass */
    tp_digest bytes;     /* the bytes of the part being read */
    uint64_t cut;        /* where the second part starts; 0: one part */
    uint64_t first[NJ_PARTS], now[NJ_PARTS]; /* each part's digest: first pass, this one */
    size_t part_lines[NJ_PARTS];             /* each part's lines in the first pass */
    int last_newline;    /* the last line read ended with one */
    int ext[N_X];
    tp_str cat_runtime, cat_driver, cat_osrt, cat_kernel, cat_memcpy, cat_memset, cat_sync,
        cat_cudnn, cat_cublas;
    int short_names; /* kernel_name: short */
    nj_doc doc;      /* the line being read */
    nj_local *local; /* the worker's rows: set on the worker's copy only */
    unsigned row_how; /* the worker: how the row's name and category are given (NJ_*) */
    int64_t row_sid;  /* the worker: the string id an API call is named by */
    uint64_t fail_off; /* the worker: where the line it could not read starts, */
    size_t fail_len;   /* and its length */
    int test_hold;     /* tests only (TP_TEST_NSYS_SPLIT_HOLD, read at open): the worker
                          starts its part once the main thread's has ended */
} nj;

/* Lines of [off, stop) of the file read in blocks (pread: the two threads
 * share the descriptor), each a pointer into the buffer, valid until the
 * next call. */
typedef struct nj_lines {
    FILE *in; /* rewound before each pass (tests hook it); its descriptor read */
    int fd, eof, err;
    uint64_t off, stop; /* the next byte to read; where the part ends */
    tp_digest *bytes;   /* every byte read, a block at a time */
    char *buf;
    size_t cap, start, end, scanned; /* scanned: bytes after start without a newline */
} nj_lines;

/* The worker's row: how its name and category are to be made. */
enum {
    NJ_NAME_TEXT = 1, /* name: a text of the worker's arena (interned by the main thread) */
    NJ_CAT_TEXT = 2,  /* category: likewise */
    NJ_NAME_BASE = 4, /* name: the string row_sid without its _vNNNN suffix */
    NJ_SKIP = 8       /* a damaged row: its texts are interned, the row is not appended */
};

/* Reads one part's lines through fn (nj_strings_line, nj_event_line), or
 * keeps the lines the first pass reads (fn NULL: the worker's first pass);
 * a read or parse error is reported, but by the worker (only returned). */
int nj_each_part(nj *n, nj_lines *r, int (*fn)(nj *, size_t), int part);

/* The worker: the main thread failed, its part is not to be read on. */
int nj_local_stopped(const nj *n);

/* One line parsed and given to fn. */
int nj_line(nj *n, char *line, size_t len, int (*fn)(nj *, size_t));

/* Pass 1's line: string table records, NVTX domains. */
int nj_strings_line(nj *n, size_t o);

/* Pass 2's line: its event, if any. */
int nj_event_line(nj *n, size_t o);

/* The worker's rows (nsys_json_split.c). */
int nj_local_row(nj *n, const tp_event *e);
int nj_local_ext(nj *n, int which, int64_t v);
tp_str nj_local_text(nj *n, const char *s, size_t len, unsigned how);
int nj_local_keep(nj *n, uint64_t off, size_t len); /* a first-pass line, for the main thread */

/* Where the file is cut for two threads (sets n->cut), when it is worth
 * it: big enough, and two cores for this trace. */
void nj_split_plan(nj *n, int fd);

/* A pass over both parts, the second on a worker thread: the first pass's
 * lines of the second part (string table records) are then read here in
 * order, the second pass's rows appended after the first part's as the
 * worker hands them over; where the worker stopped is reported as one
 * thread reports it. */
int nj_split_pass(nj *n, nj_lines *r, int (*fn)(nj *, size_t));

#endif
