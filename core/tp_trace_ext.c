/*
 * The per-trace parts a reader or analysis adds beside the event columns:
 * typed trace info (key -> int64 / double / text) and extension columns
 * (named, typed per-row columns).  tp_trace.c owns one of each per trace and
 * calls in here to grow, copy through filters and free them.
 *
 * Extension cells read as the column's null value (see tp_types.h:
 * TP_EXT_NULL_*) until set, so appending an event costs nothing per
 * extension column; their storage is tp_extcol.c's.
 */
#include "tp_extcol.h"
#include "tp_trace.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ trace info */

typedef struct info_entry {
    char *key;
    tp_coltype type; /* TP_COL_I64, TP_COL_F64 or TP_COL_STR */
    int64_t i;
    double f;
    char *s;
} info_entry;

struct tp_info {
    info_entry *v;
    size_t n;
};

void tp_info_free(tp_info *info)
{
    if (info == NULL)
        return;
    for (size_t k = 0; k < info->n; k++) {
        free(info->v[k].key);
        free(info->v[k].s);
    }
    free(info->v);
    free(info);
}

static info_entry *info_find(const tp_info *info, const char *key)
{
    for (size_t k = 0; info && k < info->n; k++)
        if (strcmp(info->v[k].key, key) == 0)
            return &info->v[k];
    return NULL;
}

int tp_info_put(tp_info **infop, const char *key, tp_coltype type, int64_t i, double f,
                const char *s)
{
    if (key == NULL || key[0] == '\0' ||
        (type != TP_COL_I64 && type != TP_COL_F64 && type != TP_COL_STR) ||
        (type == TP_COL_STR && s == NULL))
        return TP_EINVAL;
    if (*infop == NULL && (*infop = calloc(1, sizeof **infop)) == NULL)
        return TP_ENOMEM;
    tp_info *info = *infop;
    char *text = type == TP_COL_STR ? strdup(s) : NULL;
    if (type == TP_COL_STR && text == NULL)
        return TP_ENOMEM;
    info_entry *e = info_find(info, key);
    if (e == NULL) {
        info_entry *v = realloc(info->v, (info->n + 1) * sizeof *v);
        char *k = strdup(key);
        if (v)
            info->v = v;
        if (v == NULL || k == NULL) {
            free(k);
            free(text);
            return TP_ENOMEM;
        }
        e = &info->v[info->n++];
        memset(e, 0, sizeof *e);
        e->key = k;
    }
    free(e->s);
    e->type = type;
    e->i = i;
    e->f = f;
    e->s = text;
    return TP_OK;
}

tp_coltype tp_info_type(const tp_info *info, const char *key)
{
    const info_entry *e = info_find(info, key);
    return e ? e->type : (tp_coltype)0;
}

int tp_info_i64(const tp_info *info, const char *key, int64_t *out)
{
    const info_entry *e = info_find(info, key);
    if (e == NULL || e->type == TP_COL_STR)
        return TP_ENOTFOUND;
    if (e->type == TP_COL_F64) { /* a double that is a whole int64 reads as one */
        if (!(e->f >= -9.2e18 && e->f <= 9.2e18) || e->f != floor(e->f))
            return TP_EINVAL;
        *out = (int64_t)e->f;
        return TP_OK;
    }
    *out = e->i;
    return TP_OK;
}

int tp_info_f64(const tp_info *info, const char *key, double *out)
{
    const info_entry *e = info_find(info, key);
    if (e == NULL || e->type == TP_COL_STR)
        return TP_ENOTFOUND;
    *out = e->type == TP_COL_F64 ? e->f : (double)e->i;
    return TP_OK;
}

const char *tp_info_str(const tp_info *info, const char *key)
{
    const info_entry *e = info_find(info, key);
    return e && e->type == TP_COL_STR ? e->s : NULL;
}

size_t tp_info_count(const tp_info *info) { return info ? info->n : 0; }

const char *tp_info_key(const tp_info *info, size_t k)
{
    return info && k < info->n ? info->v[k].key : NULL;
}

int tp_info_copy(const tp_info *from, tp_info **to)
{
    for (size_t k = 0; from && k < from->n; k++) {
        const info_entry *e = &from->v[k];
        int rc = tp_info_put(to, e->key, e->type, e->i, e->f, e->s);
        if (rc != TP_OK)
            return rc;
    }
    return TP_OK;
}

/* ------------------------------------------------------ extension columns */

/* Cells are stored compactly (tp_extcol.c); a column asked for as an array
 * is made dense once, under this lock: stages may read a trace from
 * threads of their own. */
static pthread_mutex_t dense_lock = PTHREAD_MUTEX_INITIALIZER;

typedef struct ext_col {
    char *name;
    tp_extcol cells;
} ext_col;

struct tp_extcols {
    ext_col *v;
    size_t n;
    size_t cap; /* rows allocated in every column */
};

void tp_ext_free(tp_extcols *x)
{
    if (x == NULL)
        return;
    for (size_t k = 0; k < x->n; k++) {
        free(x->v[k].name);
        tp_extcol_free(&x->v[k].cells);
    }
    free(x->v);
    free(x);
}

int tp_ext_reserve(tp_extcols *x, size_t cap)
{
    if (x == NULL || cap <= x->cap)
        return TP_OK;
    for (size_t k = 0; k < x->n; k++)
        if (tp_extcol_reserve(&x->v[k].cells, cap) != TP_OK)
            return TP_ENOMEM; /* columns grown so far keep their larger size */
    x->cap = cap;
    return TP_OK;
}

int tp_ext_add(tp_extcols **xp, const char *name, tp_coltype type, size_t cap)
{
    if (name == NULL || name[0] == '\0' || tp_extcol_cell_size(type) == 0)
        return TP_EINVAL;
    if (*xp == NULL && (*xp = calloc(1, sizeof **xp)) == NULL)
        return TP_ENOMEM;
    tp_extcols *x = *xp;
    int k = tp_ext_find(x, name);
    if (k >= 0)
        return x->v[k].cells.type == type ? k : TP_EINVAL;
    if (x->n >= 1024)
        return TP_EINVAL;
    if (cap < x->cap)
        cap = x->cap;
    ext_col *v = realloc(x->v, (x->n + 1) * sizeof *v);
    if (v == NULL)
        return TP_ENOMEM;
    x->v = v;
    ext_col c = {strdup(name), {.type = type}};
    if (c.name == NULL || tp_extcol_reserve(&c.cells, cap) != TP_OK) {
        free(c.name);
        tp_extcol_free(&c.cells);
        return TP_ENOMEM;
    }
    x->v[x->n] = c;
    x->cap = cap;
    return (int)x->n++;
}

int tp_ext_find(const tp_extcols *x, const char *name)
{
    for (size_t k = 0; x && k < x->n; k++)
        if (strcmp(x->v[k].name, name) == 0)
            return (int)k;
    return -1;
}

size_t tp_ext_count(const tp_extcols *x) { return x ? x->n : 0; }

const char *tp_ext_name(const tp_extcols *x, int col)
{
    return x && col >= 0 && (size_t)col < x->n ? x->v[col].name : NULL;
}

tp_coltype tp_ext_type(const tp_extcols *x, int col)
{
    return x && col >= 0 && (size_t)col < x->n ? x->v[col].cells.type : (tp_coltype)0;
}

/* The column as an array: made dense the first time (the columns are the
 * trace's own, not const: only the pointer handed here is). */
const void *tp_ext_data(const tp_extcols *x, int col)
{
    if (x == NULL || col < 0 || (size_t)col >= x->n)
        return NULL;
    pthread_mutex_lock(&dense_lock);
    const void *d = tp_extcol_dense((tp_extcol *)&x->v[col].cells);
    pthread_mutex_unlock(&dense_lock);
    return d;
}

/* Under the lock too: a compact column's blocks are freed when another
 * thread makes it an array. */
int tp_ext_read(const tp_extcols *x, int col, size_t row, size_t n, void *out)
{
    if (x == NULL || col < 0 || (size_t)col >= x->n || row > x->v[col].cells.cap ||
        n > x->v[col].cells.cap - row)
        return TP_EINVAL;
    pthread_mutex_lock(&dense_lock);
    tp_extcol_read(&x->v[col].cells, row, n, out);
    pthread_mutex_unlock(&dense_lock);
    return TP_OK;
}

void tp_ext_get(const tp_extcols *x, int col, size_t row, void *out)
{
    tp_extcol_get(&x->v[col].cells, row, out);
}

int tp_ext_set(tp_extcols *x, int col, size_t row, size_t nrows, tp_coltype type, const void *v)
{
    if (x == NULL || col < 0 || (size_t)col >= x->n || row >= nrows ||
        x->v[col].cells.type != type)
        return TP_EINVAL;
    return tp_extcol_set(&x->v[col].cells, row, v);
}

int tp_ext_gather(const tp_extcols *from, const uint8_t *keep, size_t n_from,
                  tp_extcols **to, size_t cap)
{
    for (size_t k = 0; from && k < from->n; k++) {
        const tp_extcol *c = &from->v[k].cells;
        int col = tp_ext_add(to, from->v[k].name, c->type, cap);
        if (col < 0)
            return col;
        tp_extcol *dst = &(*to)->v[col].cells;
        char cell[8];
        size_t out = 0;
        for (size_t r = 0; r < n_from; r++) {
            if (!keep[r])
                continue;
            tp_extcol_get(c, r, cell);
            int rc = tp_extcol_set(dst, out++, cell);
            if (rc != TP_OK)
                return rc;
        }
    }
    return TP_OK;
}

size_t tp_ext_memory(const tp_extcols *x)
{
    size_t bytes = 0;
    for (size_t k = 0; x && k < x->n; k++)
        bytes += tp_extcol_memory(&x->v[k].cells);
    return bytes;
}
