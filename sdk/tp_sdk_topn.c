/* SDK: aggregated trees with top-N folding (tp_sdk_topn.h). */
#include <tracepipe/tp_sdk_topn.h>

#include <stdlib.h>
#include <string.h>

int tp_agg_push(tp_agg_buf *b, int64_t item)
{
    if (b->n == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 16;
        int64_t *v = tp_realloc(b->v, cap * sizeof *v);
        if (v == NULL)
            return TP_ENOMEM;
        b->v = v;
        b->cap = cap;
    }
    b->v[b->n++] = item;
    return TP_OK;
}

typedef struct agg_pair {
    uint64_t key;
    int64_t item;
} agg_pair;

typedef struct agg_group {
    uint64_t key;
    size_t first, n; /* range in the sorted pair array */
    int64_t time;
} agg_group;

int tp_agg_out_init(tp_agg_out *o, tp_stage *st, tp_result *r)
{
    o->st = st;
    o->r = r;
    o->c_id = tp_result_add_col(st, r, "id", TP_COL_I64);
    o->c_parent = tp_result_add_col(st, r, "parent_id", TP_COL_I64);
    o->c_depth = tp_result_add_col(st, r, "depth", TP_COL_I64);
    o->c_name = tp_result_add_col(st, r, "name", TP_COL_STR);
    o->c_time = tp_result_add_col(st, r, "time_us", TP_COL_F64);
    o->c_pp = tp_result_add_col(st, r, "percent_of_parent", TP_COL_F64);
    o->c_pt = tp_result_add_col(st, r, "percent_of_total", TP_COL_F64);
    o->c_count = tp_result_add_col(st, r, "count", TP_COL_I64);
    o->next_id = 0;
    if (o->c_id < 0 || o->c_parent < 0 || o->c_depth < 0 || o->c_name < 0 || o->c_time < 0 ||
        o->c_pp < 0 || o->c_pt < 0 || o->c_count < 0)
        return TP_ENOMEM;
    if (tp_result_set_meta(st, r, "kind", "tree") != TP_OK)
        return TP_ENOMEM;
    return TP_OK;
}

static double agg_percent(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* Writes one row; parent_id < 0 and count < 0 are written as null. */
static int agg_row(tp_agg_out *o, int64_t parent_id, int64_t depth, const char *name,
                   int64_t time_ns, int64_t parent_ns, int64_t count, int64_t *id)
{
    size_t row;
    int rc = tp_result_add_row(o->st, o->r, &row);
    if (rc != TP_OK)
        return rc;
    *id = o->next_id++;
    rc |= tp_result_set_i64(o->st, o->r, row, o->c_id, *id);
    if (parent_id >= 0)
        rc |= tp_result_set_i64(o->st, o->r, row, o->c_parent, parent_id);
    rc |= tp_result_set_i64(o->st, o->r, row, o->c_depth, depth);
    rc |= tp_result_set_str(o->st, o->r, row, o->c_name, name);
    rc |= tp_result_set_f64(o->st, o->r, row, o->c_time, (double)time_ns / 1000.0);
    rc |= tp_result_set_f64(o->st, o->r, row, o->c_pp,
                            parent_id >= 0 ? agg_percent(time_ns, parent_ns) : 100.0);
    rc |= tp_result_set_f64(o->st, o->r, row, o->c_pt,
                            parent_id >= 0 ? agg_percent(time_ns, o->total_ns) : 100.0);
    if (count >= 0)
        rc |= tp_result_set_i64(o->st, o->r, row, o->c_count, count);
    return rc == TP_OK ? TP_OK : TP_ENOMEM;
}

static int agg_pair_cmp(const void *a, const void *b)
{
    const agg_pair *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->item < y->item ? -1 : x->item > y->item;
}

/* Context for sorting groups: qsort has no user pointer, so the labels
 * are resolved into the array first. */
typedef struct agg_sorted {
    agg_group g;
    const char *label;
} agg_sorted;

static int agg_sorted_cmp(const void *a, const void *b)
{
    const agg_sorted *x = a, *y = b;
    if (x->g.time != y->g.time)
        return x->g.time > y->g.time ? -1 : 1;
    int c = strcmp(x->label, y->label);
    if (c != 0)
        return c;
    return x->g.key < y->g.key ? -1 : x->g.key > y->g.key;
}

static int agg_node(const tp_agg_src *s, tp_agg_out *o, const int64_t *items, size_t n,
                    int64_t parent_id, int64_t depth, const char *name, int64_t parent_ns,
                    int64_t count);

/* Emits the children groups of the node `id` made of items[0..n). */
static int agg_children(const tp_agg_src *s, tp_agg_out *o, const int64_t *items, size_t n,
                        int64_t id, int64_t depth, int64_t node_ns)
{
    tp_agg_buf kids = {0};
    agg_pair *pairs = NULL;
    agg_sorted *groups = NULL;
    int64_t *sub = NULL;
    int rc = TP_OK;
    for (size_t i = 0; i < n && rc == TP_OK; i++)
        rc = s->children(s->ctx, items[i], &kids);
    if (rc != TP_OK || kids.n == 0)
        goto out;
    pairs = tp_malloc(kids.n * sizeof *pairs);
    groups = tp_malloc(kids.n * sizeof *groups);
    sub = tp_malloc(kids.n * sizeof *sub);
    if (pairs == NULL || groups == NULL || sub == NULL) {
        rc = TP_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < kids.n; i++)
        pairs[i] = (agg_pair){s->key(s->ctx, kids.v[i]), kids.v[i]};
    qsort(pairs, kids.n, sizeof *pairs, agg_pair_cmp);
    size_t ng = 0;
    for (size_t i = 0; i < kids.n; i++) {
        if (ng == 0 || groups[ng - 1].g.key != pairs[i].key) {
            groups[ng].g = (agg_group){pairs[i].key, i, 0, 0};
            groups[ng].label = s->label(s->ctx, pairs[i].key);
            ng++;
        }
        groups[ng - 1].g.n++;
        groups[ng - 1].g.time += s->time(s->ctx, pairs[i].item);
    }
    qsort(groups, ng, sizeof *groups, agg_sorted_cmp);
    size_t keep = (o->truncate > 0 && (size_t)o->truncate < ng) ? (size_t)o->truncate : ng;
    for (size_t g = 0; g < keep && rc == TP_OK; g++) {
        for (size_t k = 0; k < groups[g].g.n; k++)
            sub[k] = pairs[groups[g].g.first + k].item;
        rc = agg_node(s, o, sub, groups[g].g.n, id, depth + 1, groups[g].label, node_ns,
                      (int64_t)groups[g].g.n);
    }
    if (rc == TP_OK && keep < ng) {
        int64_t t = 0, c = 0, oid;
        for (size_t g = keep; g < ng; g++) {
            t += groups[g].g.time;
            c += (int64_t)groups[g].g.n;
        }
        rc = agg_row(o, id, depth + 1, "Others", t, node_ns, c, &oid);
    }
    if (rc == TP_OK && s->unaccounted != NULL) {
        int64_t u = 0, uid;
        for (size_t i = 0; i < n && rc == TP_OK; i++) {
            int64_t ui = s->unaccounted(s->ctx, items[i]);
            if (ui < 0)
                rc = TP_ENOMEM;
            u += ui;
        }
        if (rc == TP_OK)
            rc = agg_row(o, id, depth + 1, "Unaccounted", u, node_ns, -1, &uid);
    }
out:
    tp_free(kids.v);
    tp_free(pairs);
    tp_free(groups);
    tp_free(sub);
    return rc;
}

/* Emits the group items[0..n) as one row and, within the depth limit, its
 * children.  count < 0 writes a null count. */
static int agg_node(const tp_agg_src *s, tp_agg_out *o, const int64_t *items, size_t n,
                    int64_t parent_id, int64_t depth, const char *name, int64_t parent_ns,
                    int64_t count)
{
    int64_t t = 0, id;
    for (size_t i = 0; i < n; i++)
        t += s->time(s->ctx, items[i]);
    int rc = agg_row(o, parent_id, depth, name, t, parent_ns, count, &id);
    if (rc != TP_OK || depth >= o->max_depth)
        return rc;
    return agg_children(s, o, items, n, id, depth, t);
}

int tp_agg_top(const tp_agg_src *s, tp_agg_out *o, int64_t item, const char *name, int64_t count)
{
    o->total_ns = s->time(s->ctx, item);
    return agg_node(s, o, &item, 1, -1, 0, name, o->total_ns, count);
}
