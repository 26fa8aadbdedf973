/*
 * The svg writer's chart `histogram`: buckets counted here from raw values,
 * or a prebinned table (lo, hi, count), as vertical bars.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg_chart.h"

static int prebinned(const tp_result *r, const svg_config *cfg, int *lo, int *hi, int *val)
{
    if (cfg->columns.n >= 3) {
        *lo = tp_result_find_col(r, cfg->columns.items[0]);
        *hi = tp_result_find_col(r, cfg->columns.items[1]);
        *val = tp_result_find_col(r, cfg->columns.items[2]);
        return 1;
    }
    const char *kind = tp_result_kind(r);
    *lo = svg_find_prefixed(r, "lo", NULL);
    *hi = svg_find_prefixed(r, "hi", NULL);
    *val = tp_result_find_col(r, cfg->columns.n == 1 ? cfg->columns.items[0] : "count");
    return (kind && strcmp(kind, "histogram") == 0) || (*lo >= 0 && *hi >= 0 && *val >= 0);
}

static int edge_label(char *buf, size_t size, double lo, double hi, double step)
{
    char a[48], b[48];
    svg_fmt_num(a, sizeof a, lo, step);
    svg_fmt_num(b, sizeof b, hi, step);
    return snprintf(buf, size, "%s-%s", a, b);
}

/* Bucket edges for raw values: the ones given, or round ones over the range. */
static int histogram_edges(tp_stage *st, const svg_config *cfg, const double *x, size_t n,
                           double **edges, size_t *nedges)
{
    if (cfg->bins.n > 0) {
        if (cfg->bins.n < 2)
            return tp_fail(st, TP_EINVAL, "bins: give at least two edges");
        for (size_t i = 1; i < cfg->bins.n; i++)
            if (!(cfg->bins.items[i] > cfg->bins.items[i - 1]))
                return tp_fail(st, TP_EINVAL, "bins: edges must increase (%g after %g)",
                               cfg->bins.items[i], cfg->bins.items[i - 1]);
        *edges = malloc(cfg->bins.n * sizeof **edges);
        if (*edges == NULL)
            return TP_ENOMEM;
        memcpy(*edges, cfg->bins.items, cfg->bins.n * sizeof **edges);
        *nedges = cfg->bins.n;
        return TP_OK;
    }
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i]))
            lo = fmin(lo, x[i]), hi = fmax(hi, x[i]);
    if (!(hi >= lo))
        lo = 0, hi = 1;
    svg_ticks t = svg_nice_ticks(lo, hi == lo ? lo + 1 : hi, (int)cfg->bin_count + 1);
    if (t.first + (t.n - 1) * t.step <= hi)
        t.n++; /* the top edge must lie above the largest value */
    *edges = malloc((size_t)t.n * sizeof **edges);
    if (*edges == NULL)
        return TP_ENOMEM;
    for (int k = 0; k < t.n; k++)
        (*edges)[k] = t.first + k * t.step;
    *nedges = (size_t)t.n;
    return TP_OK;
}

static int raw_histogram(tp_stage *st, const svg_config *cfg, const tp_result *r, svg_data *d,
                         size_t *outside, int *value_col)
{
    int col;
    if (cfg->columns.n >= 1) {
        if ((col = svg_col(st, r, cfg->columns.items[0], 1)) < 0)
            return TP_EINVAL;
    } else {
        int label;
        if (!svg_default_columns(r, &label, &col))
            return tp_fail(st, TP_EINVAL, "result '%s': say which column to count (columns: [VALUE])",
                           tp_result_id(r));
    }
    size_t n = tp_result_rows(r), nedges = 0;
    double *x = malloc((n ? n : 1) * sizeof *x), *edges = NULL;
    if (x == NULL)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++)
        x[i] = svg_cell(r, i, col);
    int rc = histogram_edges(st, cfg, x, n, &edges, &nedges);
    if (rc == TP_OK)
        rc = svg_data_alloc(d, nedges - 1, 1);
    double minstep = INFINITY;
    for (size_t b = 0; rc == TP_OK && b + 1 < nedges; b++)
        minstep = fmin(minstep, edges[b + 1] - edges[b]);
    for (size_t b = 0; rc == TP_OK && b + 1 < nedges; b++) {
        char label[112];
        edge_label(label, sizeof label, edges[b], edges[b + 1], minstep);
        rc = (d->cat[b] = strdup(label)) ? TP_OK : TP_ENOMEM;
        d->v[b] = 0;
    }
    *outside = 0;
    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        if (!isfinite(x[i]))
            continue;
        /* [lo, hi), the last bucket closed when the edges were chosen here */
        size_t b = 0;
        while (b + 1 < nedges && !(x[i] < edges[b + 1]))
            b++;
        if (x[i] < edges[0] || b + 1 >= nedges)
            (*outside)++;
        else
            d->v[b] += 1;
    }
    if (rc == TP_OK) {
        d->unit = "count";
        rc = (d->ser[0] = strdup("count")) ? TP_OK : TP_ENOMEM;
    }
    *value_col = col;
    free(x);
    free(edges);
    return rc;
}

int svg_draw_histogram(tp_stage *st, svg_doc *doc, const svg_config *cfg, const tp_result *r)
{
    int lo, hi, val, rc;
    size_t outside = 0;
    svg_data d = {0};
    const char *xname, *xunit = NULL;
    if (prebinned(r, cfg, &lo, &hi, &val)) {
        if (lo < 0 || hi < 0 || val < 0)
            return tp_fail(st, TP_EINVAL,
                           "result '%s': say which columns hold the buckets (columns: [LO, HI, COUNT])",
                           tp_result_id(r));
        if ((rc = svg_data_alloc(&d, tp_result_rows(r), 1)) != TP_OK)
            return tp_fail(st, rc, "out of memory");
        double minstep = INFINITY;
        for (size_t i = 0; i < d.ncat; i++)
            minstep = fmin(minstep, svg_cell(r, i, hi) - svg_cell(r, i, lo));
        for (size_t i = 0; i < d.ncat && rc == TP_OK; i++) {
            char label[112];
            edge_label(label, sizeof label, svg_cell(r, i, lo), svg_cell(r, i, hi), minstep);
            rc = (d.cat[i] = strdup(label)) ? TP_OK : TP_ENOMEM;
            d.v[i] = svg_cell(r, i, val);
        }
        d.unit = tp_result_col_unit(r, val);
        if (rc == TP_OK)
            rc = (d.ser[0] = strdup(tp_result_col_name(r, val))) ? TP_OK : TP_ENOMEM;
        xname = NULL; /* "bucket (unit of lo)" */
        xunit = tp_result_col_unit(r, lo);
    } else {
        int xc = -1;
        rc = raw_histogram(st, cfg, r, &d, &outside, &xc);
        xname = xc >= 0 ? tp_result_col_name(r, xc) : NULL;
        xunit = xc >= 0 ? tp_result_col_unit(r, xc) : NULL;
    }
    if (rc == TP_OK && !svg_data_has_values(&d)) {
        char why[256];
        snprintf(why, sizeof why, "result '%s' has no value to count", tp_result_id(r));
        svg_no_data(doc, why);
    } else if (rc == TP_OK) {
        char vlabel[256], clabel[256];
        svg_axis_label(vlabel, sizeof vlabel, cfg->y_label, d.ser[0], d.unit);
        svg_axis_label(clabel, sizeof clabel, cfg->x_label, xname ? xname : "bucket", xunit);
        svg_bar_spec b = {0, 0, 1, NULL, vlabel, clabel, (double)cfg->height,
                          svg_is_count_unit(d.unit)};
        svg_draw_vbars(doc, &d, &b);
        if (outside) {
            char note[96];
            snprintf(note, sizeof note, "%zu value%s outside the buckets", outside,
                     outside == 1 ? "" : "s");
            svg_text(doc, SVG_MARGIN, doc->height + 4, SVG_FONT, SVG_START, NULL, note, NULL);
            doc->height += 16;
        }
    }
    svg_data_free(&d);
    return rc == TP_OK && doc->oom ? tp_fail(st, TP_ENOMEM, "out of memory") : rc;
}
