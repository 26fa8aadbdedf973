/* SDK: tree results (tp_sdk_tree.h). */
#include <tracepipe/tp_sdk_tree.h>

#include <inttypes.h>
#include <string.h>

static int find_i64_col(const tp_result *r, const char *name)
{
    int c = tp_result_find_col(r, name);
    return c >= 0 && tp_result_col_type(r, c) == TP_COL_I64 ? c : -1;
}

int tp_result_is_tree(const tp_result *r)
{
    return find_i64_col(r, "id") >= 0 && find_i64_col(r, "parent_id") >= 0;
}

void tp_result_tree_free(tp_result_tree *t)
{
    tp_free(t->level);
    tp_free(t->parent_row);
    t->level = NULL;
    t->parent_row = NULL;
}

/* Walks the rows keeping the pre-order path from the latest root in
 * `path` (row numbers); a row's parent must be on it. */
static int tree_walk(tp_stage *st, const tp_result *r, tp_result_tree *t, size_t *path)
{
    size_t depth = 0;

    for (size_t row = 0; row < t->nrows; row++) {
        if (tp_result_is_null(r, row, t->id_col))
            return tp_fail(st, TP_EINVAL, "result '%s' row %zu: tree row without an id",
                           tp_result_id(r), row);
        if (tp_result_is_null(r, row, t->parent_col)) {
            depth = 0;
            t->nroots++;
            t->parent_row[row] = -1;
        } else {
            int64_t parent = tp_result_get_i64(r, row, t->parent_col);
            while (depth > 0 && tp_result_get_i64(r, path[depth - 1], t->id_col) != parent)
                depth--;
            if (depth == 0)
                return tp_fail(st, TP_EINVAL,
                               "result '%s' row %zu: parent_id %" PRId64
                               " is not an earlier ancestor (tree rows must be in pre-order)",
                               tp_result_id(r), row, parent);
            t->parent_row[row] = (int64_t)path[depth - 1];
        }
        t->level[row] = (uint32_t)depth;
        path[depth++] = row;
    }
    return TP_OK;
}

int tp_result_tree_load(tp_stage *st, const tp_result *r, tp_result_tree *t)
{
    memset(t, 0, sizeof *t);
    t->id_col = find_i64_col(r, "id");
    t->parent_col = find_i64_col(r, "parent_id");
    if (t->id_col < 0 || t->parent_col < 0)
        return TP_ENOTFOUND;
    t->nrows = tp_result_rows(r);
    size_t n = t->nrows ? t->nrows : 1;
    size_t *path = tp_malloc(n * sizeof *path);
    t->level = tp_malloc(n * sizeof *t->level);
    t->parent_row = tp_malloc(n * sizeof *t->parent_row);
    int rc = path && t->level && t->parent_row ? tree_walk(st, r, t, path)
                                               : tp_fail(st, TP_ENOMEM, "out of memory");
    tp_free(path);
    if (rc != TP_OK)
        tp_result_tree_free(t);
    return rc;
}
