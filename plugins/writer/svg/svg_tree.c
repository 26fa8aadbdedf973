/*
 * The svg writer: a tree result (a hierarchy of names and values) as
 * chart data: a node by name or path, its children as categories.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "svg_chart.h"

/* A tree result with its name and value columns (columns: [NAME, VALUE],
 * default name, time_us); free p->t with tp_result_tree_free. */
int svg_tree_open(tp_stage *st, const svg_config *cfg, const tp_result *r, svg_tree *p)
{
    const char *name = cfg->columns.n > 0 ? cfg->columns.items[0] : "name";
    const char *value = cfg->columns.n > 1 ? cfg->columns.items[1] : "time_us";
    memset(p, 0, sizeof *p);
    p->r = r;
    if ((p->name_col = svg_col(st, r, name, 0)) < 0 || (p->value_col = svg_col(st, r, value, 1)) < 0)
        return TP_EINVAL;
    return tp_result_tree_load(st, r, &p->t);
}

size_t svg_tree_count_children(const svg_tree *p, size_t node)
{
    size_t n = 0;
    for (size_t i = node + 1; i < p->t.nrows && p->t.level[i] > p->t.level[node]; i++)
        n += p->t.parent_row[i] == (int64_t)node;
    return n;
}

int svg_tree_children_data(const svg_tree *p, size_t node, svg_data *d)
{
    int rc = svg_data_alloc(d, svg_tree_count_children(p, node), 1);
    if (rc != TP_OK)
        return rc;
    d->unit = tp_result_col_unit(p->r, p->value_col);
    size_t k = 0;
    for (size_t i = node + 1; i < p->t.nrows && p->t.level[i] > p->t.level[node]; i++) {
        if (p->t.parent_row[i] != (int64_t)node)
            continue;
        const char *name = tp_result_get_str(p->r, i, p->name_col);
        d->cat[k] = strdup(name ? name : "");
        if (d->cat[k] == NULL)
            return TP_ENOMEM;
        d->v[k++] = svg_cell(p->r, i, p->value_col);
    }
    return TP_OK;
}

/* The node named by `node`: a name, or a path of names joined by " / ". */
int64_t svg_tree_find_node(const svg_tree *p, const char *node)
{
    if (node == NULL)
        return p->t.nrows ? 0 : -1;
    for (size_t i = 0; i < p->t.nrows; i++) {
        const char *name = tp_result_get_str(p->r, i, p->name_col);
        if (name && strcmp(name, node) == 0)
            return (int64_t)i;
    }
    for (size_t i = 0; i < p->t.nrows; i++) { /* a path: walk it from the end */
        const char *end = node + strlen(node);
        int64_t row = (int64_t)i;
        int ok = 1;
        while (ok && row >= 0) {
            const char *name = tp_result_get_str(p->r, (size_t)row, p->name_col);
            size_t n = name ? strlen(name) : 0;
            if ((size_t)(end - node) < n || memcmp(end - n, name ? name : "", n) != 0) {
                ok = 0;
                break;
            }
            end -= n;
            row = p->t.parent_row[row];
            if (end == node)
                break;
            if ((size_t)(end - node) < 3 || memcmp(end - 3, " / ", 3) != 0)
                ok = 0;
            end -= 3;
        }
        if (ok && end == node)
            return (int64_t)i;
    }
    return -1;
}
