/*
 * device_breakdown: GPU stream activity and the device-time tree of seed 001.
 *
 * <id>.streams: per (device, stream), the span of the whole window (the
 * same for every stream), the union of the stream's kernels, memcpys and
 * memsets (active), idle = span - active.
 *
 * <id>.tree: one top-level node per stream ("stream 7", or "device 0
 * stream 7" when several devices appear) and one "all streams" node.  Below
 * it the host hierarchy, each op's time being the summed duration of the
 * GPU activities launched in its subtree (hierarchy.launcher + parents),
 * aggregated by name among siblings like the host tree.  Runtime calls
 * (cudaLaunchKernel ...) are transparent: the activities they launched are
 * the leaves, named by kernel, directly under the op that made the call.
 * Activities without a launcher sit under "(unlinked)".  So every activity
 * is counted exactly once per top-level node.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>

#include "../../common/tp_aggtree.h"
#include "../../common/tp_hier_view.h"
#include "devb_internal.h"

static const tp_option db_options[] = {
    TP_OPTION_INT("depth", db_config, depth, "3", 0, 1000, "levels shown below each stream node"),
    TP_OPTION_INT("truncate", db_config, truncate, "3", 0, 1e9,
                  "names kept per node, the rest folded into Others (0 = all)"),
    TP_OPTION_BOOL("short_names", db_config, short_names, "true",
                   "shorten kernel names: cut at '<', keep the part after the last '::'"),
    TP_OPTION_END};

#define ITEM_TOP (-1)
#define ITEM_UNLINKED (-2)
#define KEY_KERNEL ((uint64_t)1 << 32)
#define KEY_UNLINKED UINT64_MAX

static int is_activity(uint8_t k)
{
    return k == TP_KIND_KERNEL || k == TP_KIND_MEMCPY || k == TP_KIND_MEMSET;
}

static int on_stream(const db *d, int64_t a)
{
    return d->all || (d->c->device[a] == d->dev && d->c->stream[a] == d->stream);
}

/* The leaf label of an activity: its name, shortened as the seed does. */
static tp_str leaf_name(db *d, tp_str name)
{
    if (!d->cfg->short_names || name >= d->nnames)
        return name;
    if (d->short_memo[name] == 0) {
        const char *s = tp_str_text(d->st, name);
        size_t len = s ? strlen(s) : 0;
        const char *lt = s ? memchr(s, '<', len) : NULL;
        if (lt)
            len = (size_t)(lt - s);
        while (len > 0 && s[len - 1] == ' ')
            len--;
        size_t from = 0;
        for (size_t i = 0; i + 1 < len; i++)
            if (s[i] == ':' && s[i + 1] == ':')
                from = i + 2;
        tp_str id = (s && len > from) ? tp_intern(d->st, s + from, len - from) : name;
        d->short_memo[name] = (id ? id : name) + 1;
    }
    return d->short_memo[name] - 1;
}

/* Appends the host child r, or through a transparent runtime call its
 * host children. */
static int push_host(db *d, int64_t r, agg_buf *out)
{
    if (d->c->kind[r] == TP_KIND_RUNTIME) {
        for (int64_t k = d->first_child[r]; k >= 0; k = d->next_sibling[k]) {
            int rc = push_host(d, k, out);
            if (rc != TP_OK)
                return rc;
        }
        return TP_OK;
    }
    return d->dt[r] > 0 ? agg_push(out, r) : TP_OK;
}

/* Appends the current stream's activities owned by `owner`. */
static int push_owned(db *d, int64_t owner, agg_buf *out)
{
    size_t lo = 0, hi = d->nowned;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (d->owned[mid].owner < owner)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < d->nowned && d->owned[i].owner == owner; i++) {
        int64_t a = d->owned[i].row;
        if (on_stream(d, a) && d->launcher[a] >= 0) {
            int rc = agg_push(out, a);
            if (rc != TP_OK)
                return rc;
        }
    }
    return TP_OK;
}

static int db_children(void *ctx, int64_t item, agg_buf *out)
{
    db *d = ctx;
    int rc = TP_OK;
    if (item == ITEM_UNLINKED) {
        for (size_t i = 0; i < d->nacts && rc == TP_OK; i++)
            if (d->launcher[d->acts[i]] < 0 && on_stream(d, d->acts[i]))
                rc = agg_push(out, d->acts[i]);
        return rc;
    }
    if (item == ITEM_TOP) {
        for (size_t i = 0; i < d->nroots && rc == TP_OK; i++)
            rc = push_host(d, d->roots[i], out);
        if (rc == TP_OK)
            rc = push_owned(d, -1, out);
        if (rc == TP_OK && d->unlinked_ns > 0)
            rc = agg_push(out, ITEM_UNLINKED);
        return rc;
    }
    if (is_activity(d->c->kind[item]))
        return TP_OK;
    for (int64_t k = d->first_child[item]; k >= 0 && rc == TP_OK; k = d->next_sibling[k])
        rc = push_host(d, k, out);
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
    if (is_activity(d->c->kind[item]))
        return d->c->dur[item];
    return d->dt[item];
}

static uint64_t db_key(void *ctx, int64_t item)
{
    db *d = ctx;
    if (item == ITEM_UNLINKED)
        return KEY_UNLINKED;
    if (is_activity(d->c->kind[item]))
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

/* Device time per host row for the current stream: the activities' time
 * added at their launcher, then summed up the forest (reverse pre-order). */
static void stream_times(db *d)
{
    memset(d->dt, 0, d->c->n * sizeof *d->dt);
    d->total_ns = d->unlinked_ns = 0;
    d->count = 0;
    for (size_t i = 0; i < d->nacts; i++) {
        int64_t a = d->acts[i];
        if (!on_stream(d, a))
            continue;
        d->total_ns += d->c->dur[a];
        d->count++;
        if (d->launcher[a] >= 0)
            d->dt[d->launcher[a]] += d->c->dur[a];
        else
            d->unlinked_ns += d->c->dur[a];
    }
    for (size_t i = d->npre; i-- > 0;) {
        int64_t r = d->pre[i];
        if (d->parent[r] >= 0)
            d->dt[d->parent[r]] += d->dt[r];
    }
}

static int write_tree(db *d)
{
    tp_result *r = tp_result_new(d->st, "tree");
    if (r == NULL)
        return TP_ENOMEM;
    agg_out o;
    if (agg_out_init(&o, d->st, r) != TP_OK ||
        tp_result_set_meta(d->st, r, "title", "Device runtime breakdown") != TP_OK)
        return TP_ENOMEM;
    o.max_depth = d->cfg->depth;
    o.truncate = d->cfg->truncate;
    agg_src src = {d, db_children, db_time, db_key, db_label, NULL};
    int rc = TP_OK;
    char label[96];
    for (size_t s = 0; s <= d->nstreams && rc == TP_OK; s++) {
        d->all = s == d->nstreams;
        if (d->all) {
            snprintf(label, sizeof label, "all streams");
        } else {
            d->dev = d->streams[s].device;
            d->stream = d->streams[s].stream;
            if (d->multi_device)
                snprintf(label, sizeof label, "device %d stream %d", (int)d->dev, (int)d->stream);
            else
                snprintf(label, sizeof label, "stream %d", (int)d->stream);
        }
        stream_times(d);
        rc = agg_top(&src, &o, ITEM_TOP, label, d->count);
    }
    return rc;
}

static int load_hierarchy(db *d, const tp_trace *t)
{
    tp_hier_view v;
    if (tp_hier_view_load(t, d->c->n, &v) != TP_OK)
        return TP_ENOTFOUND;
    d->parent = v.parent;
    d->first_child = v.first_child;
    d->next_sibling = v.next_sibling;
    d->launcher = v.launcher;
    d->roots = v.roots;
    d->nroots = v.nroots;
    return TP_OK;
}

static void db_free(db *d)
{
    tp_free(d->acts);
    tp_free(d->owned);
    tp_free(d->pre);
    tp_free(d->dt);
    tp_free(d->iv);
    tp_free(d->streams);
    tp_free(d->short_memo);
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
    d.c = tp_trace_cols(t);
    if (load_hierarchy(&d, t) != TP_OK)
        return tp_fail(st, TP_ENOTFOUND,
                       "device_breakdown: hierarchy attachments missing or stale "
                       "(run the hierarchy analysis on this trace first)");
    int rc = db_prepare(&d);
    if (rc == TP_OK)
        rc = db_write_streams(&d);
    if (rc == TP_OK)
        rc = write_tree(&d);
    db_free(&d);
    if (rc != TP_OK)
        return tp_fail(st, rc, "device_breakdown: out of memory");
    return TP_OK;
}

static const tp_stage_desc db_stages[] = {
    TP_STAGE_REQ(TP_STAGE_ANALYSIS, "device_breakdown",
                 "GPU stream active/idle time and the device-time tree of host ops",
                 db_options, db_config, "hierarchy", NULL, db_run, NULL),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("device_breakdown", "0.1.0", db_stages);
