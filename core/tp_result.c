/*
 * Result tables: named, typed columns (text, int64, double) with a null
 * flag per cell, plus free-form key/value notes ("title", "kind"="tree").
 * Rows are added as all-null and then filled cell by cell.  Text cells
 * point into one string pool per result (a text is stored once however
 * many cells hold it: a critical path's 900 000 rows name a few hundred
 * events).
 */
#include "tp_result.h"
#include "tp_strpool.h"
#include "tp_trace.h"

#include <stdlib.h>
#include <string.h>

typedef struct column {
    char *name;
    char *meaning; /* the declared meaning, or NULL */
    tp_coltype type;
    union {
        const char **s; /* into the result's pool */
        int64_t *i;
        double *f;
        void *p;
    } v;
    uint8_t *set; /* 1 = has a value */
} column;

typedef struct note {
    char *key, *value;
} note;

struct tp_result {
    char *id;
    column *cols;
    size_t ncols;
    size_t nrows, cap;
    note *notes;
    size_t nnotes;
    tp_strpool *texts; /* the text cells' strings, made at the first */
};

tp_result *tp_result_create(const char *id)
{
    tp_result *r = calloc(1, sizeof *r);
    if (r == NULL || (r->id = strdup(id)) == NULL) {
        free(r);
        return NULL;
    }
    return r;
}

static void free_column(column *c)
{
    free(c->v.p);
    free(c->set);
    free(c->name);
    free(c->meaning);
}

void tp_result_destroy(tp_result *r)
{
    if (r == NULL)
        return;
    for (size_t c = 0; c < r->ncols; c++)
        free_column(&r->cols[c]);
    free(r->cols);
    for (size_t i = 0; i < r->nnotes; i++) {
        free(r->notes[i].key);
        free(r->notes[i].value);
    }
    free(r->notes);
    tp_strpool_free(r->texts);
    free(r->id);
    free(r);
}

static size_t cell_size(tp_coltype type)
{
    switch (type) {
    case TP_COL_STR:
        return sizeof(char *);
    case TP_COL_I64:
        return sizeof(int64_t);
    case TP_COL_F64:
        return sizeof(double);
    case TP_COL_I32: /* attachments and extension columns only: results hold I64 */
    case TP_COL_SID:
        return 0;
    }
    return 0;
}

/* Makes room for cap rows in column c (new cells zeroed = null). */
static int column_reserve(column *c, size_t old_cap, size_t cap)
{
    size_t cs = cell_size(c->type);
    void *p = realloc(c->v.p, cap * cs);
    if (p == NULL)
        return TP_ENOMEM;
    memset((char *)p + old_cap * cs, 0, (cap - old_cap) * cs);
    c->v.p = p;
    uint8_t *set = realloc(c->set, cap);
    if (set == NULL)
        return TP_ENOMEM;
    memset(set + old_cap, 0, cap - old_cap);
    c->set = set;
    return TP_OK;
}

int tp_result_col_add(tp_result *r, const char *name, tp_coltype type)
{
    if (name == NULL || name[0] == '\0' || cell_size(type) == 0)
        return TP_EINVAL;
    if (tp_result_colfind(r, name) >= 0)
        return TP_EINVAL;
    if (r->ncols >= TP_RESULT_MAX_COLS)
        return TP_EINVAL;
    column *cols = realloc(r->cols, (r->ncols + 1) * sizeof *cols);
    if (cols == NULL)
        return TP_ENOMEM;
    r->cols = cols;
    column *c = &cols[r->ncols];
    memset(c, 0, sizeof *c);
    c->type = type;
    if ((c->name = strdup(name)) == NULL || column_reserve(c, 0, r->cap ? r->cap : 1) != TP_OK) {
        free_column(c);
        return TP_ENOMEM;
    }
    return (int)r->ncols++;
}

int tp_result_row_add(tp_result *r, size_t *row)
{
    if (r->nrows == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        for (size_t c = 0; c < r->ncols; c++)
            if (column_reserve(&r->cols[c], r->cap ? r->cap : 1, cap) != TP_OK)
                return TP_ENOMEM;
        r->cap = cap;
    }
    *row = r->nrows++;
    return TP_OK;
}

static column *cell(const tp_result *r, size_t row, int col, tp_coltype type)
{
    if (col < 0 || (size_t)col >= r->ncols || row >= r->nrows || r->cols[col].type != type)
        return NULL;
    return &r->cols[col];
}

int tp_result_put_str(tp_result *r, size_t row, int col, const char *s)
{
    column *c = cell(r, row, col, TP_COL_STR);
    if (c == NULL)
        return TP_EINVAL;
    const char *copy = NULL;
    if (s != NULL) {
        if (r->texts == NULL && (r->texts = tp_strpool_new()) == NULL)
            return TP_ENOMEM;
        tp_str id = tp_strpool_intern(r->texts, s, strlen(s));
        if (id == TP_STR_NOMEM)
            return TP_ENOMEM;
        copy = tp_strpool_text(r->texts, id);
    }
    c->v.s[row] = copy;
    c->set[row] = s != NULL;
    return TP_OK;
}

int tp_result_put_i64(tp_result *r, size_t row, int col, int64_t v)
{
    column *c = cell(r, row, col, TP_COL_I64);
    if (c == NULL)
        return TP_EINVAL;
    c->v.i[row] = v;
    c->set[row] = 1;
    return TP_OK;
}

int tp_result_put_f64(tp_result *r, size_t row, int col, double v)
{
    column *c = cell(r, row, col, TP_COL_F64);
    if (c == NULL)
        return TP_EINVAL;
    c->v.f[row] = v;
    c->set[row] = 1;
    return TP_OK;
}

int tp_result_col_set_meaning(tp_result *r, int col, const char *meaning)
{
    if (col < 0 || (size_t)col >= r->ncols || meaning == NULL)
        return TP_EINVAL;
    char *m = strdup(meaning);
    if (m == NULL)
        return TP_ENOMEM;
    free(r->cols[col].meaning);
    r->cols[col].meaning = m;
    return TP_OK;
}

const char *tp_result_colmeaning(const tp_result *r, int col)
{
    return r && col >= 0 && (size_t)col < r->ncols ? r->cols[col].meaning : NULL;
}

int tp_result_meta_put(tp_result *r, const char *key, const char *value)
{
    char *v = strdup(value ? value : "");
    if (v == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < r->nnotes; i++) {
        if (strcmp(r->notes[i].key, key) == 0) {
            free(r->notes[i].value);
            r->notes[i].value = v;
            return TP_OK;
        }
    }
    note *n = realloc(r->notes, (r->nnotes + 1) * sizeof *n);
    char *k = strdup(key);
    if (n == NULL || k == NULL) {
        if (n)
            r->notes = n;
        free(v);
        free(k);
        return TP_ENOMEM;
    }
    r->notes = n;
    r->notes[r->nnotes++] = (note){k, v};
    return TP_OK;
}

const char *tp_result_get_id(const tp_result *r) { return r->id; }
size_t tp_result_meta_n(const tp_result *r) { return r->nnotes; }
const char *tp_result_meta_key_at(const tp_result *r, size_t i)
{
    return i < r->nnotes ? r->notes[i].key : NULL;
}
size_t tp_result_nrows(const tp_result *r) { return r->nrows; }
size_t tp_result_ncols(const tp_result *r) { return r->ncols; }

const char *tp_result_colname(const tp_result *r, int col)
{
    return col >= 0 && (size_t)col < r->ncols ? r->cols[col].name : NULL;
}

tp_coltype tp_result_coltype(const tp_result *r, int col)
{
    return col >= 0 && (size_t)col < r->ncols ? r->cols[col].type : (tp_coltype)0;
}

int tp_result_colfind(const tp_result *r, const char *name)
{
    for (size_t c = 0; c < r->ncols; c++)
        if (strcmp(r->cols[c].name, name) == 0)
            return (int)c;
    return -1;
}

int tp_result_null(const tp_result *r, size_t row, int col)
{
    if (col < 0 || (size_t)col >= r->ncols || row >= r->nrows)
        return 1;
    return !r->cols[col].set[row];
}

const char *tp_result_str(const tp_result *r, size_t row, int col)
{
    column *c = cell(r, row, col, TP_COL_STR);
    return c && c->set[row] ? c->v.s[row] : NULL;
}

int64_t tp_result_i64(const tp_result *r, size_t row, int col)
{
    column *c = cell(r, row, col, TP_COL_I64);
    return c && c->set[row] ? c->v.i[row] : 0;
}

double tp_result_f64(const tp_result *r, size_t row, int col)
{
    column *c = cell(r, row, col, TP_COL_F64);
    if (c && c->set[row])
        return c->v.f[row];
    /* integer columns read as doubles too, so writers and tests need not care */
    c = cell(r, row, col, TP_COL_I64);
    return c && c->set[row] ? (double)c->v.i[row] : 0.0;
}

const char *tp_result_meta_get(const tp_result *r, const char *key)
{
    for (size_t i = 0; i < r->nnotes; i++)
        if (strcmp(r->notes[i].key, key) == 0)
            return r->notes[i].value;
    return NULL;
}
