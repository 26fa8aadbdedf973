/*
 * The svg writer's data: categories by series, top-N folding, result
 * columns.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg.h"

#define OTHERS "Others"

int svg_data_alloc(svg_data *d, size_t ncat, size_t nser)
{
    memset(d, 0, sizeof *d);
    d->cat = calloc(ncat ? ncat : 1, sizeof *d->cat);
    d->ser = calloc(nser ? nser : 1, sizeof *d->ser);
    d->v = malloc((ncat ? ncat : 1) * (nser ? nser : 1) * sizeof *d->v);
    if (!d->cat || !d->ser || !d->v) {
        svg_data_free(d);
        return TP_ENOMEM;
    }
    d->ncat = ncat;
    d->nser = nser;
    for (size_t i = 0; i < ncat * nser; i++)
        d->v[i] = NAN;
    return TP_OK;
}

void svg_data_free(svg_data *d)
{
    if (d->cat)
        for (size_t i = 0; i < d->ncat; i++)
            free(d->cat[i]);
    if (d->ser)
        for (size_t i = 0; i < d->nser; i++)
            free(d->ser[i]);
    free(d->cat);
    free(d->ser);
    free(d->v);
    memset(d, 0, sizeof *d);
}

static double finite_or_zero(double v)
{
    return isfinite(v) ? v : 0;
}

typedef struct ranked {
    size_t index;
    double total;
} ranked;

static int by_total_desc(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->total != y->total)
        return x->total > y->total ? -1 : 1;
    return x->index < y->index ? -1 : x->index > y->index; /* stable: input order */
}

/* The order to keep: the `top` largest totals (a name "Others" is never
 * kept on its own), then whether an Others entry is needed.  rank gets the
 * kept indexes first. */
static size_t rank_entries(ranked *rank, size_t n, size_t top, char *const *names, int *need_others)
{
    size_t kept = 0;
    qsort(rank, n, sizeof *rank, by_total_desc);
    *need_others = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(names[rank[i].index], OTHERS) == 0 || (top && kept >= top)) {
            *need_others = 1;
            continue;
        }
        rank[kept++] = rank[i];
    }
    return kept;
}

int svg_data_fold_top(svg_data *d, size_t top, int key)
{
    ranked *rank = malloc((d->ncat ? d->ncat : 1) * sizeof *rank);
    if (rank == NULL)
        return TP_ENOMEM;
    for (size_t i = 0; i < d->ncat; i++) {
        rank[i].index = i;
        rank[i].total = 0;
        for (size_t s = 0; s < d->nser; s++)
            if (key < 0 || (size_t)key == s)
                rank[i].total += finite_or_zero(d->v[i * d->nser + s]);
    }
    int others;
    size_t kept = rank_entries(rank, d->ncat, top, d->cat, &others);
    svg_data out;
    if (svg_data_alloc(&out, kept + (size_t)others, d->nser) != TP_OK) {
        free(rank);
        return TP_ENOMEM;
    }
    uint8_t *used = calloc(d->ncat ? d->ncat : 1, 1);
    int rc = used ? TP_OK : TP_ENOMEM;
    for (size_t k = 0; k < kept && rc == TP_OK; k++) {
        size_t i = rank[k].index;
        used[i] = 1;
        out.cat[k] = d->cat[i];
        d->cat[i] = NULL;
        memcpy(&out.v[k * d->nser], &d->v[i * d->nser], d->nser * sizeof *d->v);
    }
    if (rc == TP_OK && others) {
        double *o = &out.v[kept * d->nser];
        out.cat[kept] = strdup(OTHERS);
        rc = out.cat[kept] ? TP_OK : TP_ENOMEM;
        for (size_t s = 0; s < d->nser; s++)
            o[s] = 0;
        for (size_t i = 0; i < d->ncat; i++)
            if (!used[i])
                for (size_t s = 0; s < d->nser; s++)
                    o[s] += finite_or_zero(d->v[i * d->nser + s]);
    }
    free(used);
    free(rank);
    if (rc != TP_OK) {
        svg_data_free(&out);
        return rc;
    }
    for (size_t s = 0; s < d->nser; s++) {
        out.ser[s] = d->ser[s];
        d->ser[s] = NULL;
    }
    out.unit = d->unit;
    svg_data_free(d);
    *d = out;
    return TP_OK;
}

int svg_data_fold_top_series(svg_data *d, size_t top)
{
    ranked *rank = malloc((d->nser ? d->nser : 1) * sizeof *rank);
    if (rank == NULL)
        return TP_ENOMEM;
    for (size_t s = 0; s < d->nser; s++) {
        rank[s].index = s;
        rank[s].total = 0;
        for (size_t i = 0; i < d->ncat; i++)
            rank[s].total += finite_or_zero(d->v[i * d->nser + s]);
    }
    int others;
    size_t kept = rank_entries(rank, d->nser, top, d->ser, &others);
    size_t nser = kept + (size_t)others;
    svg_data out;
    if (svg_data_alloc(&out, d->ncat, nser) != TP_OK) {
        free(rank);
        return TP_ENOMEM;
    }
    uint8_t *used = calloc(d->nser ? d->nser : 1, 1);
    int rc = used ? TP_OK : TP_ENOMEM;
    for (size_t k = 0; k < kept && rc == TP_OK; k++) {
        size_t s = rank[k].index;
        used[s] = 1;
        out.ser[k] = d->ser[s];
        d->ser[s] = NULL;
        for (size_t i = 0; i < d->ncat; i++)
            out.v[i * nser + k] = d->v[i * d->nser + s];
    }
    if (rc == TP_OK && others) {
        out.ser[kept] = strdup(OTHERS);
        rc = out.ser[kept] ? TP_OK : TP_ENOMEM;
        for (size_t i = 0; i < d->ncat; i++) {
            double sum = 0;
            for (size_t s = 0; s < d->nser; s++)
                if (!used[s])
                    sum += finite_or_zero(d->v[i * d->nser + s]);
            out.v[i * nser + kept] = sum;
        }
    }
    free(used);
    free(rank);
    if (rc != TP_OK) {
        svg_data_free(&out);
        return rc;
    }
    for (size_t i = 0; i < d->ncat; i++) {
        out.cat[i] = d->cat[i];
        d->cat[i] = NULL;
    }
    out.unit = d->unit;
    svg_data_free(d);
    *d = out;
    return TP_OK;
}

int svg_data_has_values(const svg_data *d)
{
    for (size_t i = 0; i < d->ncat * d->nser; i++)
        if (isfinite(d->v[i]) && d->v[i] != 0)
            return 1;
    return 0;
}

/* ----------------------------------------------------------- result cells */

double svg_cell(const tp_result *r, size_t row, int col)
{
    if (col < 0 || tp_result_is_null(r, row, col))
        return NAN;
    switch (tp_result_col_type(r, col)) {
    case TP_COL_F64:
        return tp_result_get_f64(r, row, col);
    case TP_COL_I64:
    case TP_COL_I32:
    case TP_COL_SID:
        return (double)tp_result_get_i64(r, row, col);
    default:
        return NAN;
    }
}

int svg_col(tp_stage *st, const tp_result *r, const char *name, int numeric)
{
    int col = tp_result_find_col(r, name);
    if (col < 0) {
        char list[512];
        size_t n = 0;
        list[0] = '\0';
        for (size_t c = 0; c < tp_result_cols(r) && n + 2 < sizeof list; c++)
            n += (size_t)snprintf(list + n, sizeof list - n, "%s%s", c ? ", " : "",
                                  tp_result_col_name(r, (int)c));
        tp_fail(st, TP_EINVAL, "result '%s' has no column '%s'; its columns: %s", tp_result_id(r),
                name, list);
        return -1;
    }
    if (numeric && tp_result_col_type(r, col) == TP_COL_STR) {
        tp_fail(st, TP_EINVAL, "column '%s' of result '%s' holds text, not numbers", name,
                tp_result_id(r));
        return -1;
    }
    return col;
}

void svg_axis_label(char *buf, size_t size, const char *given, const char *name, const char *unit)
{
    if (given)
        snprintf(buf, size, "%s", given);
    else if (unit && *unit && strcmp(unit, name) != 0)
        snprintf(buf, size, "%s (%s)", name, unit);
    else
        snprintf(buf, size, "%s", name);
}
