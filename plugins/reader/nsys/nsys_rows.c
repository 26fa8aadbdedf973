/* reader nsys: an export's integer tables decoded block by block, in line
 * or a few blocks ahead on a second thread (nsys_rows.h, issue 31). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nsys_rows.h"

#define NSYS_RING 4 /* blocks in flight: ~660 KB, whatever the export's size */

enum { ST_MORE, ST_END, ST_ERR }; /* a block's job goes on, ended, failed */

typedef struct slot {
    nsys_block b;
    int job, status;
} slot;

struct nsys_rows {
    sqlite3 *db, *own; /* the connection decoded on; own: the thread's, closed at the end */
    char *sql[NSYS_MAX_JOBS];
    int ncols[NSYS_MAX_JOBS], jobs;
    slot *ring;          /* NSYS_RING slots with a thread, 1 in line */
    size_t head, tail;   /* slots posted and taken (with a thread) */
    int held, held_status; /* the reader holds a slot (its status) */
    int failed;
    sqlite3_stmt *q; /* in line: the statement of job q_job */
    int q_job;
    int threaded, stop, synced; /* synced: the lock and conditions made */
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t posted, freed;
    char err[512];
};

/* Up to a block of q's rows into b: ST_MORE when it is full, ST_END when
 * the rows ended, ST_ERR on an SQLite error. */
static int fill(sqlite3_stmt *q, int ncols, nsys_block *b)
{
    b->rows = 0;
    b->ncols = ncols;
    while (b->rows < NSYS_BLOCK_ROWS) {
        int step = sqlite3_step(q);
        if (step != SQLITE_ROW)
            return step == SQLITE_DONE ? ST_END : ST_ERR;
        int64_t *v = b->v + b->rows * (size_t)ncols;
        uint8_t *type = b->type + b->rows * (size_t)ncols;
        for (int c = 0; c < ncols; c++) {
            sqlite3_value *x = sqlite3_column_value(q, c);
            type[c] = (uint8_t)nsys_cell_type(x);
            v[c] = type[c] == NSYS_CELL_INT ? sqlite3_value_int64(x) : 0;
        }
        b->rows++;
    }
    return ST_MORE;
}

/* Job j's next block into s, preparing its statement first; in line and
 * on the thread alike.  *q is the job's statement (finalized at its end). */
static void next_block(nsys_rows *r, int j, sqlite3_stmt **q, slot *s)
{
    s->job = j;
    s->b.rows = 0;
    if (*q == NULL && sqlite3_prepare_v2(r->db, r->sql[j], -1, q, NULL) != SQLITE_OK)
        s->status = ST_ERR;
    else
        s->status = fill(*q, r->ncols[j], &s->b);
    if (s->status == ST_ERR)
        snprintf(r->err, sizeof r->err, "%s", sqlite3_errmsg(r->db));
    if (s->status != ST_MORE) {
        sqlite3_finalize(*q);
        *q = NULL;
    }
}

/* ---------------------------------------------------------- the thread */

/* The slot to fill next, once the reader has freed one; NULL when told to
 * stop. */
static slot *wait_free(nsys_rows *r)
{
    pthread_mutex_lock(&r->lock);
    while (r->head - r->tail >= NSYS_RING && !r->stop)
        pthread_cond_wait(&r->freed, &r->lock);
    slot *s = r->stop ? NULL : &r->ring[r->head % NSYS_RING];
    pthread_mutex_unlock(&r->lock);
    return s;
}

static void post(nsys_rows *r)
{
    pthread_mutex_lock(&r->lock);
    r->head++;
    pthread_cond_signal(&r->posted);
    pthread_mutex_unlock(&r->lock);
}

/* Every job in order, each to its end; the first error ends them all. */
static void *decode_jobs(void *arg)
{
    nsys_rows *r = arg;
    int status = ST_END;
    for (int j = 0; j < r->jobs && status == ST_END; j++) {
        sqlite3_stmt *q = NULL;
        slot *s;
        for (status = r->sql[j] ? ST_MORE : ST_END; status == ST_MORE;) {
            if ((s = wait_free(r)) == NULL) {
                sqlite3_finalize(q);
                return NULL;
            }
            next_block(r, j, &q, s);
            status = s->status;
            post(r);
        }
    }
    return NULL;
}

/* The next posted slot (with a thread), or job's next block (in line). */
static slot *take(nsys_rows *r, int job)
{
    if (!r->threaded) {
        if (r->q_job != job) {
            sqlite3_finalize(r->q);
            r->q = NULL;
            r->q_job = job;
        }
        next_block(r, job, &r->q, &r->ring[0]);
        return &r->ring[0];
    }
    pthread_mutex_lock(&r->lock);
    while (r->head == r->tail)
        pthread_cond_wait(&r->posted, &r->lock);
    slot *s = &r->ring[r->tail % NSYS_RING];
    pthread_mutex_unlock(&r->lock);
    if (s->job != job) { /* the reader asked out of order: a bug, read as an error */
        s->status = ST_ERR;
        s->b.rows = 0;
        snprintf(r->err, sizeof r->err, "tables read out of order");
    }
    return s;
}

static void release(nsys_rows *r)
{
    r->held = 0;
    if (!r->threaded)
        return;
    pthread_mutex_lock(&r->lock);
    r->tail++;
    pthread_cond_signal(&r->freed);
    pthread_mutex_unlock(&r->lock);
}

/* ------------------------------------------------------------- the API */

int nsys_rows_next(nsys_rows *r, int job, const nsys_block **b)
{
    if (r->held) {
        int status = r->held_status;
        release(r);
        if (status != ST_MORE)
            return status == ST_END ? 0 : -1;
    }
    if (r->failed || job < 0 || job >= r->jobs)
        return -1;
    if (r->sql[job] == NULL)
        return 0;
    slot *s = take(r, job);
    r->held = 1;
    r->held_status = s->status;
    r->failed = s->status == ST_ERR;
    if (s->b.rows > 0) {
        *b = &s->b;
        return 1;
    }
    release(r);
    return s->status == ST_END ? 0 : -1;
}

const char *nsys_rows_error(const nsys_rows *r) { return r->err; }

int nsys_rows_threaded(const nsys_rows *r) { return r->threaded; }

nsys_rows *nsys_rows_start(sqlite3 *db, sqlite3 *own, const char *const *sql, const int *ncols,
                           int jobs)
{
    nsys_rows *r = calloc(1, sizeof *r);
    if (r == NULL) {
        sqlite3_close(own);
        return NULL;
    }
    r->own = own;
    int ok = jobs <= NSYS_MAX_JOBS;
    for (int j = 0; ok && j < jobs; j++) {
        r->ncols[j] = ncols[j] < NSYS_MAX_COLS ? ncols[j] : NSYS_MAX_COLS;
        ok = sql[j] == NULL || (r->sql[j] = strdup(sql[j])) != NULL;
    }
    if (ok) {
        r->jobs = jobs;
        r->q_job = -1;
        r->db = own ? own : db;
        ok = (r->ring = calloc(own ? NSYS_RING : 1, sizeof *r->ring)) != NULL;
    }
    if (ok && own) {
        pthread_mutex_init(&r->lock, NULL);
        pthread_cond_init(&r->posted, NULL);
        pthread_cond_init(&r->freed, NULL);
        r->synced = 1;
        r->threaded = pthread_create(&r->thread, NULL, decode_jobs, r) == 0;
        if (!r->threaded) { /* no thread: in line on the reader's connection */
            r->db = db;
            free(r->ring);
            ok = (r->ring = calloc(1, sizeof *r->ring)) != NULL;
        }
    }
    if (!ok) {
        nsys_rows_stop(r);
        return NULL;
    }
    return r;
}

void nsys_rows_stop(nsys_rows *r)
{
    if (r == NULL)
        return;
    if (r->threaded) {
        pthread_mutex_lock(&r->lock);
        r->stop = 1;
        pthread_cond_broadcast(&r->freed);
        pthread_mutex_unlock(&r->lock);
        pthread_join(r->thread, NULL);
    }
    if (r->synced) {
        pthread_mutex_destroy(&r->lock);
        pthread_cond_destroy(&r->posted);
        pthread_cond_destroy(&r->freed);
    }
    sqlite3_finalize(r->q);
    sqlite3_close(r->own);
    for (int j = 0; j < NSYS_MAX_JOBS; j++)
        free(r->sql[j]);
    free(r->ring);
    free(r);
}
