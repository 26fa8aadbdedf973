/*
 * The svg writer's chart `error_bar`: the top means with their standard
 * deviations as horizontal bars with whiskers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg_chart.h"

typedef struct mean_rank {
    size_t row;
    double mean;
} mean_rank;

static int by_mean_desc(const void *a, const void *b)
{
    const mean_rank *x = a, *y = b;
    if (x->mean != y->mean)
        return x->mean > y->mean ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

int svg_draw_error_bar(tp_stage *st, svg_doc *doc, const svg_config *cfg, const tp_result *r)
{
    int label, mean, sd, dummy;
    if (cfg->columns.n >= 3) {
        label = svg_col(st, r, cfg->columns.items[0], 0);
        mean = label < 0 ? -1 : svg_col(st, r, cfg->columns.items[1], 1);
        sd = mean < 0 ? -1 : svg_col(st, r, cfg->columns.items[2], 1);
        if (sd < 0)
            return TP_EINVAL;
    } else {
        svg_default_columns(r, &label, &dummy);
        mean = svg_find_prefixed(r, "mean", NULL);
        sd = svg_find_prefixed(r, "std", "stdev");
        if (label < 0 || mean < 0 || sd < 0)
            return tp_fail(st, TP_EINVAL,
                           "result '%s': say which columns to draw (columns: [LABEL, MEAN, STD])",
                           tp_result_id(r));
    }
    /* the top means (no Others: a fold has no std), largest first */
    size_t n = tp_result_rows(r), keep = n;
    if (cfg->top > 0 && (size_t)cfg->top < keep)
        keep = (size_t)cfg->top;
    mean_rank *rank = malloc((n ? n : 1) * sizeof *rank);
    if (rank == NULL)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        double m = svg_cell(r, i, mean);
        rank[i].row = i;
        rank[i].mean = isfinite(m) ? m : -INFINITY;
    }
    qsort(rank, n, sizeof *rank, by_mean_desc);
    svg_data d;
    double *err = malloc((keep ? keep : 1) * sizeof *err);
    int rc = err ? svg_data_alloc(&d, keep, 1) : TP_ENOMEM;
    if (rc != TP_OK) {
        free(rank);
        free(err);
        return tp_fail(st, rc, "out of memory");
    }
    d.unit = tp_result_col_unit(r, mean);
    rc = (d.ser[0] = strdup(tp_result_col_name(r, mean))) ? TP_OK : TP_ENOMEM;
    for (size_t k = 0; k < keep && rc == TP_OK; k++) {
        size_t i = rank[k].row;
        rc = (d.cat[k] = svg_cell_text(r, i, label)) ? TP_OK : TP_ENOMEM;
        d.v[k] = svg_cell(r, i, mean);
        err[k] = svg_cell(r, i, sd);
    }
    if (rc == TP_OK) {
        char vlabel[256];
        svg_axis_label(vlabel, sizeof vlabel, cfg->x_label, "mean ± standard deviation", d.unit);
        svg_bar_spec b = {0, 0, 0, err, vlabel, NULL, 0, 0};
        svg_draw_hbars(doc, &d, &b);
    }
    free(rank);
    free(err);
    svg_data_free(&d);
    return rc == TP_OK && doc->oom ? tp_fail(st, TP_ENOMEM, "out of memory") : rc;
}
