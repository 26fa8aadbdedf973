/*
 * device_breakdown: GPU stream activity and the device-time tree of seed 001.
 *
 * <id>.streams: per (device, stream), the trace's window (the same for
 * every stream), the union of the stream's kernels, memcpys and memsets
 * (active), window idle = the window minus the active time inside it
 * (CONVENTIONS: idle over the trace window is window_idle_us).
 *
 * <id>.devices: per device, busy = the union over all its streams (time
 * with at least one stream busy), next to the sum of the streams' active
 * times (larger when streams overlap), over the same window.
 *
 * <id>.tree: one top-level node per stream ("stream 7", or "device 0
 * stream 7" when several devices appear) and one "all streams (sum)" node
 * (a sum over the streams, not a union: overlapping streams add up).  Below
 * it the host hierarchy, each op's time being the summed duration of the
 * GPU activities launched in its subtree (hierarchy.launcher + parents),
 * aggregated by name among siblings like the host tree.  Runtime calls
 * (cudaLaunchKernel ...) are transparent: the activities they launched are
 * the leaves, named by kernel, directly under the op that made the call.
 * Activities without a launcher sit under "(unlinked)".  The activities
 * a graph launch replays sit under the op that captured them, else under a
 * `graph <id>` node (tp_sdk_graphs.h), below the op of the launch call.
 * So every activity is counted exactly once per top-level node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_trace.h>

#include <tracepipe/tp_sdk_topn.h>
#include <tracepipe/tp_sdk_hier.h>
#include "devb_internal.h"

static const tp_option db_options[] = {
    TP_OPTION_INT("depth", db_config, depth, "3", 0, 1000, "levels shown below each stream node"),
    TP_OPTION_INT("truncate", db_config, truncate, "3", 0, 1e9,
                  "names kept per node, the rest folded into Others (0 = all)"),
    TP_OPTION_BOOL("short_names", db_config, short_names, "true",
                   "shorten kernel names: cut at '<', keep the part after the last '::'"),
    TP_OPTION_BOOL("merge_ops", db_config, merge_ops, "true",
                   "list all kernels of an op's subtree directly under the first cpu op "
                   "below modules and steps, as seed 001 does"),
    TP_OPTION_END};

static const tp_result_decl db_results[] = {
    TP_RESULT("streams", "table", db_streams,
              "per (device, stream), in that order: active and window idle time"),
    TP_RESULT("devices", "table", db_devices, "per device: busy time over all its streams"),
    TP_RESULT("tree", "tree", db_tree,
              "per stream, then all streams (sum): device time by host op and kernel, pre-order"),
    TP_RESULTS_END};

#define ITEM_TOP (-1)
#define ITEM_UNLINKED (-2)
/* A replayed activity's place under its graph op: one item per activity,
 * grouped by the op's name like any host op. */
#define ITEM_GRAPH_OP(row) (-3 - (int64_t)(row))
#define IS_ITEM_GRAPH_OP(item) ((item) <= -3)
#define GRAPH_OP_ROW(item) (-3 - (item))
#define KEY_KERNEL ((uint64_t)1 << 32)
#define KEY_UNLINKED UINT64_MAX

/* The leaf label of an activity: its name, shortened as the seed does. */
static tp_str leaf_name(db *d, tp_str name)
{
    return d->cfg->short_names ? tp_kernel_short_id(d->st, name, d->short_memo, d->nnames) : name;
}

static int push_host(db *d, int32_t p, tp_agg_buf *out);

/* The touched positions in pre-order, from the sorted list or (scan) from
 * the marks: the next one at or after *i, or -1 (*i starts at 0). */
static int32_t touched_next(const db *d, size_t *i)
{
    if (!d->scan)
        return *i < d->ntouched ? d->touched[(*i)++] : -1;
    while (*i < d->npre && !d->mark[*i])
        (*i)++;
    return *i < d->npre ? (int32_t)(*i)++ : -1;
}

/* The same backwards: the previous one before *i (which starts at npre when
 * scanning, else at ntouched), or -1. */
static int32_t touched_prev(const db *d, size_t *i)
{
    if (!d->scan)
        return *i > 0 ? d->touched[--(*i)] : -1;
    while (*i > 0 && !d->mark[*i - 1])
        (*i)--;
    return *i > 0 ? (int32_t) --(*i) : -1;
}

/* Appends the host children of row r that this stream touched (marked), in
 * pre-order: the hierarchy's sibling order.  Only touched rows can have
 * device time, so the others are skipped without a list of their own. */
static int push_touched_children(db *d, int32_t r, tp_agg_buf *out)
{
    for (int32_t k = tp_hier_first_child(&d->hv, r); k >= 0;
         k = tp_hier_next_sibling(&d->hv, k)) {
        int32_t p = db_pos(d, k);
        int rc = p >= 0 && d->mark[p] ? push_host(d, p, out) : TP_OK;
        if (rc != TP_OK)
            return rc;
    }
    return TP_OK;
}

/* Appends the host child at pre-order position p, or through a transparent
 * runtime call its host children. */
static int push_host(db *d, int32_t p, tp_agg_buf *out)
{
    int32_t r = d->pre[p];
    if (d->c->kind[r] == TP_KIND_RUNTIME)
        return push_touched_children(d, r, out);
    return d->dt[p] > 0 ? tp_agg_push(out, r) : TP_OK;
}

/* Appends the current stream's activities owned by `owner` (-1: the stream node). */
static int push_owned(db *d, int64_t owner, tp_agg_buf *out)
{
    int32_t a = owner >= 0 ? d->ofirst[db_pos(d, owner)] : d->top_first;
    for (; a >= 0; a = d->onext[a]) {
        int32_t row = d->by_stream[a].row;
        int rc = tp_agg_push(out, tp_graph_replayed(&d->graphs, (size_t)row) ? ITEM_GRAPH_OP(row)
                                                                              : row);
        if (rc != TP_OK)
            return rc;
    }
    return TP_OK;
}

static int db_children(void *ctx, int64_t item, tp_agg_buf *out)
{
    db *d = ctx;
    int rc = TP_OK;
    if (IS_ITEM_GRAPH_OP(item))
        return tp_agg_push(out, GRAPH_OP_ROW(item));
    if (item == ITEM_UNLINKED) {
        for (size_t i = d->cur_first; i < d->cur_first + d->cur_count && rc == TP_OK; i++)
            if (d->by_stream[i].entry < 0)
                rc = tp_agg_push(out, d->by_stream[i].row);
        return rc;
    }
    if (item == ITEM_TOP) {
        /* the roots this stream touched, in pre-order = roots order */
        size_t i = 0;
        for (int32_t p; rc == TP_OK && (p = touched_next(d, &i)) >= 0;)
            if (tp_hier_parent(&d->hv, d->pre[p]) < 0)
                rc = push_host(d, p, out);
        if (rc == TP_OK)
            rc = push_owned(d, -1, out);
        if (rc == TP_OK && d->unlinked_ns > 0)
            rc = tp_agg_push(out, ITEM_UNLINKED);
        return rc;
    }
    if (tp_kind_is_activity(d->c->kind[item]))
        return TP_OK;
    /* a merged op shows only the activities it gathered */
    if (!db_is_merge_op(d, item))
        rc = push_touched_children(d, (int32_t)item, out);
    if (rc == TP_OK)
        rc = push_owned(d, item, out);
    return rc;
}

static int64_t db_time(void *ctx, int64_t item)
{
    db *d = ctx;
    if (item == ITEM_TOP)
        return d->total_ns;
    if (item == ITEM_UNLINKED)
        return d->unlinked_ns;
    if (IS_ITEM_GRAPH_OP(item))
        return d->c->dur[GRAPH_OP_ROW(item)];
    if (tp_kind_is_activity(d->c->kind[item]))
        return d->c->dur[item];
    return d->dt[db_pos(d, item)];
}

static uint64_t db_key(void *ctx, int64_t item)
{
    db *d = ctx;
    if (item == ITEM_UNLINKED)
        return KEY_UNLINKED;
    if (IS_ITEM_GRAPH_OP(item)) /* one node with a host op of the same name */
        return tp_graph_op_of(&d->graphs, (size_t)GRAPH_OP_ROW(item), 0);
    if (tp_kind_is_activity(d->c->kind[item]))
        return KEY_KERNEL | leaf_name(d, d->c->name[item]);
    return d->c->name[item];
}

static const char *db_label(void *ctx, uint64_t key)
{
    db *d = ctx;
    if (key == KEY_UNLINKED)
        return "(unlinked)";
    const char *s = tp_str_text(d->st, (tp_str)(key & 0xffffffffu));
    return s ? s : "";
}

static int pos_cmp(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Marks row r and its not yet marked ancestors as touched by this stream;
 * the list keeps the first touched_cap of them. */
static void touch_chain(db *d, int32_t r)
{
    for (int32_t p; r >= 0 && !d->mark[p = db_pos(d, r)]; r = tp_hier_parent(&d->hv, r)) {
        d->mark[p] = 1;
        if (d->ntouched < d->touched_cap)
            d->touched[d->ntouched] = p;
        d->ntouched++;
    }
}

/* Puts touched in pre-order: a sort when few rows were touched; when many
 * were (the "all streams" pass) the marks, scanned in pre-order, say it. */
static void sort_touched(db *d)
{
    d->scan = d->ntouched >= d->npre / 16; /* then the list may be partial */
    if (!d->scan)
        qsort(d->touched, d->ntouched, sizeof *d->touched, pos_cmp);
}

/* Prepends x to the list starting at *first, threaded through next. */
static void list_prepend(int32_t *first, int32_t *next, int32_t x)
{
    next[x] = *first;
    *first = x;
}

/* This stream's linked activities become their owners' lists (in row order
 * within the stream, again by prepending in reverse). */
static void link_owned(db *d)
{
    for (size_t i = d->cur_first + d->cur_count; i-- > d->cur_first;) {
        const db_act *a = &d->by_stream[i];
        if (a->entry < 0)
            continue;
        int32_t owner = db_owner(d, a->entry);
        int32_t *first = owner >= 0 ? &d->ofirst[owner] : &d->top_first;
        list_prepend(first, d->onext, (int32_t)i);
    }
}

/* Device time per shown host event for the current stream: the activities'
 * time added at their entry, then summed up the forest in reverse pre-order.
 * Only the entries and their ancestors are visited (and reset for the next
 * stream), so a pass costs the stream's share, not the whole trace. */
static void stream_times(db *d)
{
    size_t at = 0;
    for (int32_t p; (p = touched_next(d, &at)) >= 0;) {
        d->dt[p] = 0;
        d->mark[p] = 0;
        d->ofirst[p] = -1;
    }
    d->ntouched = 0;
    d->scan = 0;
    d->top_first = -1;
    d->total_ns = d->unlinked_ns = 0;
    d->count = 0;
    for (size_t i = d->cur_first; i < d->cur_first + d->cur_count; i++) {
        int32_t a = d->by_stream[i].row, e = d->by_stream[i].entry;
        d->total_ns += d->c->dur[a];
        d->count++;
        if (e >= 0) {
            d->dt[e] += d->c->dur[a];
            touch_chain(d, d->pre[e]);
        } else {
            d->unlinked_ns += d->c->dur[a];
        }
    }
    sort_touched(d);
    at = d->scan ? d->npre : d->ntouched;
    for (int32_t p; (p = touched_prev(d, &at)) >= 0;) {
        int32_t parent = tp_hier_parent(&d->hv, d->pre[p]);
        if (parent >= 0)
            d->dt[db_pos(d, parent)] += d->dt[p];
    }
    link_owned(d);
}

static int write_tree(db *d)
{
    /* the declared tree: the SDK's tree columns (the kind "tree" too, as
     * tp_agg_out_init would add them), then device and stream */
    tp_result *r = tp_result_declared(d->st, "tree");
    if (r == NULL || tp_result_set_meta(d->st, r, "title", "Device runtime breakdown") != TP_OK)
        return TP_ENOMEM;
    tp_agg_out o = {.st = d->st,
                    .r = r,
                    .c_id = db_tree_id,
                    .c_parent = db_tree_parent_id,
                    .c_depth = db_tree_depth,
                    .c_name = db_tree_name,
                    .c_time = db_tree_time_us,
                    .c_pp = db_tree_percent_of_parent,
                    .c_pt = db_tree_percent_of_total,
                    .c_count = db_tree_count,
                    .max_depth = d->cfg->depth,
                    .truncate = d->cfg->truncate};
    tp_agg_src src = {d, db_children, db_time, db_key, db_label, NULL};
    int rc = TP_OK;
    char label[96];
    for (size_t s = 0; s <= d->nstreams && rc == TP_OK; s++) {
        d->all = s == d->nstreams;
        if (d->all) {
            snprintf(label, sizeof label, "all streams (sum)");
            d->cur_first = 0;
            d->cur_count = d->nacts;
        } else {
            d->dev = d->streams[s].device;
            d->stream = d->streams[s].stream;
            d->cur_first = d->streams[s].first;
            d->cur_count = d->streams[s].count;
            if (d->multi_device)
                snprintf(label, sizeof label, "device %d stream %d", (int)d->dev, (int)d->stream);
            else
                snprintf(label, sizeof label, "stream %d", (int)d->stream);
        }
        stream_times(d);
        size_t first_row = tp_result_rows(r);
        rc = tp_agg_top(&src, &o, ITEM_TOP, label, d->count);
        for (size_t row = first_row; !d->all && rc == TP_OK && row < tp_result_rows(r); row++)
            rc = tp_result_set_i64(d->st, r, row, db_tree_device, d->dev) |
                 tp_result_set_i64(d->st, r, row, db_tree_stream, d->stream);
    }
    return rc == TP_OK ? TP_OK : TP_ENOMEM;
}

static int load_hierarchy(db *d, const tp_trace *t)
{
    if (tp_hier_cview_load(t, d->c->n, &d->hv) != TP_OK)
        return TP_ENOTFOUND;
    d->roots = d->hv.roots;
    d->nroots = d->hv.nroots;
    return TP_OK;
}

static void db_free(db *d)
{
    tp_free(d->pos);
    tp_free(d->inset);
    tp_free(d->rank_dir);
    tp_free(d->touched);
    tp_free(d->mark);
    tp_free(d->by_stream);
    tp_free(d->ofirst);
    tp_free(d->onext);
    tp_free(d->pre);
    tp_free(d->dt);
    tp_free(d->streams);
    tp_free(d->short_memo);
    tp_free(d->module_memo);
    tp_vocab_free(&d->vocab);
    tp_iter_view_release(&d->steps);
    tp_graphs_free(&d->graphs);
}

static int db_run(tp_stage *st, const void *config, void *state)
{
    (void)state;
    const tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "device_breakdown: no trace loaded (put a reader stage first)");
    db d = {0};
    d.st = st;
    d.cfg = config;
    d.t = t;
    d.c = tp_trace_cols(t);
    if (d.c->n >= (size_t)INT32_MAX)
        return tp_fail(st, TP_EINVAL, "device_breakdown: traces of 2^31 events or more are not supported");
    if (load_hierarchy(&d, t) != TP_OK)
        return tp_fail(st, TP_ENOTFOUND,
                       "device_breakdown: hierarchy attachments missing or stale "
                       "(run the hierarchy analysis on this trace first)");
    int rc = tp_vocab_get(st, &d.vocab);
    rc = rc ? rc : tp_iter_view_get(st, (tp_trace *)t, NULL, &d.steps);
    rc = rc ? rc : tp_graphs_find_ranked(st, t, &d.vocab, &d.hv.gpu, d.hv.launcher, &d.graphs);
    rc = rc ? rc : db_prepare(&d);
    if (rc == TP_OK)
        rc = db_write_streams(&d);
    if (rc == TP_OK)
        rc = db_write_devices(&d);
    if (rc == TP_OK)
        rc = db_alloc_pass_arrays(&d);
    if (rc == TP_OK)
        rc = write_tree(&d);
    db_free(&d);
    if (rc != TP_OK)
        return tp_fail(st, rc, "device_breakdown: out of memory");
    return TP_OK;
}

static const tp_stage_desc db_stages[] = {
    TP_STAGE_DECL(TP_STAGE_ANALYSIS, "device_breakdown",
                  "GPU stream active/idle time and the device-time tree of host ops", db_options,
                  db_config, "hierarchy", db_results, NULL, 0, NULL, db_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("device_breakdown", "0.1.0", db_stages);
