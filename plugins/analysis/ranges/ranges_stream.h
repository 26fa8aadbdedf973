/* ranges: GPU activities by stream (pid, tid) and start, with prefix sums
 * of their durations (issue 32: a GPU range's work without visiting it). */
#ifndef TP_RANGES_STREAM_H
#define TP_RANGES_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <tracepipe/tp_plugin.h>

/* Row `row` against *key: negative, zero or positive. */
typedef int (*rg_cmp)(const tp_cols *c, size_t row, const void *key);

/* The first of rows[0, n), sorted by cmp, that is not before key. */
size_t rg_lower_bound(const tp_cols *c, const uint32_t *rows, size_t n, rg_cmp cmp,
                      const void *key);

typedef struct rg_stream_acts {
    uint32_t *act; /* the activity rows by (pid, tid, start, row) */
    int64_t *pre;  /* n + 1: pre[i], the durations of act[0, i) added */
    size_t n;
} rg_stream_acts;

/* TP_OK or TP_ENOMEM; close either way. */
int rg_stream_acts_open(const tp_cols *c, rg_stream_acts *sa);
/* act[*lo, *hi): the activities on row x's stream starting inside it. */
void rg_stream_acts_inside(const tp_cols *c, const rg_stream_acts *sa, size_t x, size_t *lo,
                           size_t *hi);
void rg_stream_acts_close(rg_stream_acts *sa);

/* Host ranges sorted by (External id, name id, start, row): where a GPU
 * range finds the one it projects. */
int rg_sort_by_ext(const tp_cols *c, uint32_t *host, size_t nh);
/* The host range GPU range g projects: of host[0, nh) (sorted by
 * rg_sort_by_ext) with its External id and name, the last starting at or
 * before it, else the first; SIZE_MAX when none. */
size_t rg_projected(const tp_cols *c, const uint32_t *host, size_t nh, size_t g);

#endif
