/*
 * kineto reader, option capture: a capture trace (the profile of the graph
 * captures, e.g. vLLM's graph_capture_rank_N) says which op captured each
 * kernel a graph launch of the run trace replays.
 *
 * In the capture trace, a capture is the launch calls a thread makes between
 * its ...StreamBeginCapture and ...StreamEndCapture (tp_graph_capture_call);
 * each launch's op is the outermost cpu op around it that is not a module
 * (and the innermost one), on its thread.  In the run trace, a replay is the
 * activities sharing a graph launch's correlation id, in start order.  A
 * replay takes the first capture that aligns with it: the same count, kinds
 * and (where the capture call names its kernel, args.kernel) names; else
 * the first whose launches contain the replay's in order (extra capture
 * calls skipped; kernels only where the capture names them).  Matched activities get the extension columns graph_op
 * and graph_inner_op, and the innermost op's args and call, graph_op_args
 * and graph_op_call (tp_sdk_graphs.h).
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kin.h"
#include <tracepipe/tp_sdk_graphs.h>
#include <tracepipe/tp_sdk_sort.h>
#include <tracepipe/tp_sdk_trace.h>

#define CAP_MAX_BYTES ((size_t)4 << 30)

/* An event of the capture trace that matters here. */
enum { CE_OP, CE_BEGIN, CE_END, CE_LAUNCH };
typedef struct cap_ev {
    int64_t pid, tid, ts, end;
    int type;
    tp_launch_what what;
    tp_str name, kernel; /* kernel: args.kernel, 0 if absent */
    tp_str outer, inner; /* a launch's ops */
    int module;          /* an op that is a module (never a launch's op) */
    json_t *args;        /* an op's args (borrowed from the document) */
    tp_str args_text;    /* ... as compact JSON, interned on first use */
    uint32_t inner_ev;   /* a launch's innermost op: its event index + 1, 0 none */
} cap_ev;

/* One capture: launches evs[idx[first .. first + n)]. */
typedef struct cap_region {
    size_t first, n;
} cap_region;

typedef struct capture {
    tp_stage *st;
    cap_ev *ev;
    size_t nev;
    uint32_t *launches; /* launch events in capture order, region by region */
    size_t nlaunches;
    cap_region *regions;
    size_t nregions;
} capture;

/* The whole capture file (gzip or plain) in memory, NUL-terminated. */
static char *slurp(const char *path, size_t *len, char *err, size_t err_size)
{
    kin_src *s = kin_src_open_sync(path, err, err_size);
    size_t cap = 1 << 20, n = 0;
    char *buf = s ? tp_malloc(cap) : NULL;
    while (buf) {
        if (cap - n < 2) {
            char *b = cap < CAP_MAX_BYTES ? tp_realloc(buf, cap * 2) : NULL;
            if (b == NULL) {
                snprintf(err, err_size, "capture trace too large or out of memory");
                tp_free(buf);
                buf = NULL;
                break;
            }
            buf = b;
            cap *= 2;
        }
        long got = kin_src_read(s, buf + n, cap - n - 1, err, err_size);
        if (got < 0) {
            tp_free(buf);
            buf = NULL;
        } else if (got == 0) {
            buf[n] = '\0';
            *len = n;
            break;
        }
        n += got > 0 ? (size_t)got : 0;
    }
    if (s)
        kin_src_close(s);
    return buf;
}

static int64_t us_to_ns(json_t *v)
{
    double x = json_number_value(v) * 1000.0;
    return isfinite(x) && fabs(x) < 9e18 ? (int64_t)llround(x) : 0;
}

static tp_str intern_json(tp_stage *st, json_t *s)
{
    const char *t = json_string_value(s);
    return t ? tp_intern(st, t, json_string_length(s)) : 0;
}

/* Classifies one event; 0 when it does not matter, -1 when out of memory. */
static int classify(capture *cp, const tp_vocab *v, json_t *e, cap_ev *out)
{
    const char *ph = json_string_value(json_object_get(e, "ph"));
    const char *cat = json_string_value(json_object_get(e, "cat"));
    const char *name = json_string_value(json_object_get(e, "name"));
    if (!ph || strcmp(ph, "X") != 0 || !cat || !name || !json_is_number(json_object_get(e, "ts")))
        return 0;
    memset(out, 0, sizeof *out);
    if (strcmp(cat, "cpu_op") == 0) {
        out->type = CE_OP;
        out->module = tp_vocab_is_module(v, name);
        out->args = json_object_get(e, "args");
    } else if (strcmp(cat, "cuda_runtime") == 0 || strcmp(cat, "cuda_driver") == 0) {
        int call = tp_graph_capture_call(name);
        out->what = tp_vocab_launch_api(v, name);
        if (call)
            out->type = call == 1 ? CE_BEGIN : CE_END;
        else if (out->what == TP_LAUNCHES_KERNEL || out->what == TP_LAUNCHES_MEMCPY ||
                 out->what == TP_LAUNCHES_MEMSET)
            out->type = CE_LAUNCH;
        else
            return 0;
        out->kernel = intern_json(cp->st, json_object_get(json_object_get(e, "args"), "kernel"));
    } else {
        return 0;
    }
    out->name = intern_json(cp->st, json_object_get(e, "name"));
    if (out->name == TP_STR_ERROR || out->kernel == TP_STR_ERROR)
        return -1; /* out of memory */
    out->pid = json_integer_value(json_object_get(e, "pid"));
    out->tid = json_integer_value(json_object_get(e, "tid"));
    out->ts = us_to_ns(json_object_get(e, "ts"));
    int64_t dur = us_to_ns(json_object_get(e, "dur"));
    out->end = out->ts + (dur > 0 ? dur : 0);
    return 1;
}

static int collect(capture *cp, json_t *events)
{
    tp_vocab v;
    if (tp_vocab_get(cp->st, &v) != TP_OK)
        return TP_ENOMEM;
    size_t n = json_array_size(events);
    cp->ev = tp_malloc((n ? n : 1) * sizeof *cp->ev);
    int k = 0;
    for (size_t i = 0; cp->ev && k >= 0 && i < n; i++)
        if ((k = classify(cp, &v, json_array_get(events, i), &cp->ev[cp->nev])) > 0)
            cp->nev++;
    tp_vocab_free(&v);
    return cp->ev && k >= 0 ? TP_OK : TP_ENOMEM;
}

/* Thread, start, longer first, ops before calls, then file order. */
static int ev_cmp(const void *a, const void *b, void *ctx)
{
    const cap_ev *ev = ctx;
    const cap_ev *x = &ev[*(const uint32_t *)a], *y = &ev[*(const uint32_t *)b];
    if (x->pid != y->pid)
        return x->pid < y->pid ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    if ((x->type == CE_OP) != (y->type == CE_OP))
        return x->type == CE_OP ? -1 : 1;
    return (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* A launch's ops from the stack of open ops around it. */
static void launch_ops(capture *cp, cap_ev *l, const uint32_t *stack, size_t depth)
{
    for (size_t k = 0; k < depth; k++) {
        const cap_ev *op = &cp->ev[stack[k]];
        if (op->module || op->end < l->end)
            continue;
        if (l->outer == 0)
            l->outer = op->name;
        l->inner = op->name;
        l->inner_ev = stack[k] + 1;
    }
}

static int add_region(capture *cp, size_t first)
{
    if (cp->nlaunches == first)
        return TP_OK;
    cap_region *r = tp_realloc(cp->regions, (cp->nregions + 1) * sizeof *r);
    if (r == NULL)
        return TP_ENOMEM;
    cp->regions = r;
    cp->regions[cp->nregions++] = (cap_region){first, cp->nlaunches - first};
    return TP_OK;
}

/* One sweep per thread: ops nest on a stack; launches between a begin and
 * an end of capture join the open region. */
static int sweep(capture *cp)
{
    size_t n = cp->nev;
    uint32_t *ord = tp_malloc((n ? n : 1) * sizeof *ord);
    uint32_t *stack = tp_malloc((n ? n : 1) * sizeof *stack);
    cp->launches = tp_malloc((n ? n : 1) * sizeof *cp->launches);
    if (!ord || !stack || !cp->launches) {
        tp_free(ord);
        tp_free(stack);
        return TP_ENOMEM;
    }
    for (size_t i = 0; i < n; i++)
        ord[i] = (uint32_t)i;
    int rc = tp_sort(ord, n, sizeof *ord, ev_cmp, cp->ev);
    size_t depth = 0, open = 0, first = 0;
    for (size_t i = 0; rc == TP_OK && i < n; i++) {
        cap_ev *e = &cp->ev[ord[i]];
        if (i > 0 && (e->pid != cp->ev[ord[i - 1]].pid || e->tid != cp->ev[ord[i - 1]].tid)) {
            depth = 0; /* a new thread */
            if (open)
                rc = add_region(cp, first);
            open = 0;
        }
        while (depth > 0 && cp->ev[stack[depth - 1]].end <= e->ts)
            depth--;
        if (e->type == CE_OP) {
            stack[depth++] = ord[i];
        } else if (e->type == CE_BEGIN) {
            open = 1;
            first = cp->nlaunches;
        } else if (e->type == CE_END) {
            rc = open ? add_region(cp, first) : TP_OK;
            open = 0;
        } else if (open) {
            launch_ops(cp, e, stack, depth);
            cp->launches[cp->nlaunches++] = ord[i];
        }
    }
    tp_free(ord);
    tp_free(stack);
    return rc;
}

/* ---------------------------------------------------------- the replays */

/* Does capture launch l stand for run activity row a?  Skipping capture
 * calls (exact 0) needs the kernel's name: without it any capture holding
 * enough kernels would do. */
static int same_work(const capture *cp, const tp_cols *c, uint32_t l, uint32_t a, int exact)
{
    const cap_ev *e = &cp->ev[l];
    tp_launch_what want = c->kind[a] == TP_KIND_MEMCPY   ? TP_LAUNCHES_MEMCPY
                          : c->kind[a] == TP_KIND_MEMSET ? TP_LAUNCHES_MEMSET
                                                         : TP_LAUNCHES_KERNEL;
    if (e->what != want)
        return 0;
    if (want != TP_LAUNCHES_KERNEL)
        return 1;
    return e->kernel == 0 ? exact : e->kernel == c->name[a];
}

/* Aligns replay rows[0, n) with region r: fills match[] (capture launch per
 * row); exact: one to one; else in order with capture launches skipped. */
static int align(const capture *cp, const tp_cols *c, const uint32_t *rows, size_t n,
                 const cap_region *r, int exact, uint32_t *match)
{
    const uint32_t *l = cp->launches + r->first;
    if (exact && r->n != n)
        return 0;
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        while (k < r->n && !same_work(cp, c, l[k], rows[i], exact)) {
            if (exact)
                return 0;
            k++;
        }
        if (k == r->n)
            return 0;
        match[i] = l[k++];
    }
    return 1;
}

typedef struct cap_out {
    tp_trace *t;
    int col_op, col_inner, col_args, col_call;
    size_t replays, matched;
} cap_out;

/* The capturing op's args and call (capture event index + 1) on row. */
static int label_args(capture *cp, cap_out *o, uint32_t row, uint32_t inner_ev)
{
    cap_ev *op = &cp->ev[inner_ev - 1];
    if (op->args_text == 0 && json_is_object(op->args)) {
        char *text = json_dumps(op->args, 0); /* one line, ", " as PyTorch writes */
        if (text == NULL)
            return TP_ENOMEM;
        op->args_text = tp_intern(cp->st, text, strlen(text));
        free(text);
        if (op->args_text == TP_STR_ERROR)
            return TP_ENOMEM;
    }
    int rc = tp_trace_ext_set_i64(cp->st, o->t, o->col_call, row, (int64_t)inner_ev);
    if (rc == TP_OK && op->args_text)
        rc = tp_trace_ext_set_sid(cp->st, o->t, o->col_args, row, op->args_text);
    return rc;
}

static int label_replay(capture *cp, const tp_cols *c, const uint32_t *rows, size_t n,
                        uint32_t *match, cap_out *o)
{
    int found = 0;
    for (int exact = 1; exact >= 0 && !found; exact--)
        for (size_t r = 0; r < cp->nregions && !found; r++)
            found = align(cp, c, rows, n, &cp->regions[r], exact, match);
    o->replays++;
    if (!found)
        return TP_OK;
    o->matched++;
    int rc = TP_OK;
    if (o->col_op < 0) {
        o->col_op = tp_trace_ext_add(cp->st, o->t, TP_GRAPH_OP_COLUMN, TP_COL_SID);
        o->col_inner = tp_trace_ext_add(cp->st, o->t, TP_GRAPH_INNER_OP_COLUMN, TP_COL_SID);
        o->col_args = tp_trace_ext_add(cp->st, o->t, TP_GRAPH_OP_ARGS_COLUMN, TP_COL_SID);
        o->col_call = tp_trace_ext_add(cp->st, o->t, TP_GRAPH_OP_CALL_COLUMN, TP_COL_I64);
        if (o->col_op < 0 || o->col_inner < 0 || o->col_args < 0 || o->col_call < 0)
            return TP_ENOMEM;
    }
    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        const cap_ev *e = &cp->ev[match[i]];
        if (e->outer)
            rc = tp_trace_ext_set_sid(cp->st, o->t, o->col_op, rows[i], e->outer);
        if (rc == TP_OK && e->inner)
            rc = tp_trace_ext_set_sid(cp->st, o->t, o->col_inner, rows[i], e->inner);
        if (rc == TP_OK && e->inner_ev)
            rc = label_args(cp, o, rows[i], e->inner_ev);
    }
    return rc;
}

/* (correlation id, start, row) of a replayed activity. */
typedef struct rep_key {
    int64_t corr, ts;
    uint32_t row;
} rep_key;

static int rep_cmp(const void *a, const void *b, void *ctx)
{
    const rep_key *x = a, *y = b;
    (void)ctx;
    if (x->corr != y->corr)
        return x->corr < y->corr ? -1 : 1;
    if (x->ts != y->ts)
        return x->ts < y->ts ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

static int i64_cmp(const void *a, const void *b, void *ctx)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    (void)ctx;
    return (x > y) - (x < y);
}

static int has_id(const int64_t *ids, size_t n, int64_t id)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ids[mid] < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && ids[lo] == id;
}

/* The correlation ids of the run trace's graph launches, sorted. */
static int graph_launch_ids(tp_stage *st, const tp_cols *c, int64_t **ids, size_t *n)
{
    tp_vocab v;
    int64_t *out = tp_malloc((c->n ? c->n : 1) * sizeof *out);
    if (out == NULL || tp_vocab_get(st, &v) != TP_OK) {
        tp_free(out);
        return TP_ENOMEM;
    }
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++)
        if (c->kind[i] == TP_KIND_RUNTIME && tp_ev_corr(c, i) != TP_NONE &&
            tp_vocab_launch_api(&v, tp_str_text(st, c->name[i])) == TP_LAUNCHES_GRAPH)
            out[k++] = tp_ev_corr(c, i);
    tp_vocab_free(&v);
    *ids = out;
    *n = k;
    return tp_sort(out, k, sizeof *out, i64_cmp, NULL);
}

static int label_replays(capture *cp, tp_trace *t, cap_out *o)
{
    const tp_cols *c = tp_trace_cols(t);
    int64_t *ids = NULL;
    size_t nids = 0, n = 0;
    rep_key *k = tp_malloc((c->n ? c->n : 1) * sizeof *k);
    uint32_t *rows = tp_malloc((c->n ? c->n : 1) * sizeof *rows);
    uint32_t *match = tp_malloc((c->n ? c->n : 1) * sizeof *match);
    int rc = k && rows && match ? graph_launch_ids(cp->st, c, &ids, &nids) : TP_ENOMEM;
    for (size_t i = 0; rc == TP_OK && i < c->n; i++)
        if (tp_kind_is_activity(c->kind[i]) && has_id(ids, nids, tp_ev_corr(c, i)))
            k[n++] = (rep_key){tp_ev_corr(c, i), c->ts[i], (uint32_t)i};
    if (rc == TP_OK)
        rc = tp_sort(k, n, sizeof *k, rep_cmp, NULL);
    for (size_t i = 0; rc == TP_OK && i < n;) {
        size_t j = i;
        while (j < n && k[j].corr == k[i].corr)
            j++;
        for (size_t x = i; x < j; x++)
            rows[x - i] = k[x].row;
        rc = label_replay(cp, c, rows, j - i, match, o);
        i = j;
    }
    tp_free(ids);
    tp_free(k);
    tp_free(rows);
    tp_free(match);
    return rc;
}

int kin_capture_apply(tp_stage *st, tp_trace *t, const char *path)
{
    char err[200] = "";
    size_t len = 0;
    char *text = slurp(path, &len, err, sizeof err);
    if (text == NULL)
        return tp_fail(st, TP_EIO, "%s: %s", path, err[0] ? err : "cannot read");
    json_error_t jerr;
    json_t *doc = json_loadb(text, len, JSON_DECODE_ANY, &jerr);
    tp_free(text);
    json_t *events = json_is_array(doc) ? doc : json_object_get(doc, "traceEvents");
    if (!json_is_array(events)) {
        json_decref(doc);
        return tp_fail(st, TP_EFORMAT, "%s:%d:%d: not a Kineto trace (capture:): %s", path,
                       jerr.line, jerr.column, doc ? "no traceEvents" : jerr.text);
    }
    capture cp = {.st = st};
    cap_out o = {t, -1, -1, -1, -1, 0, 0};
    int rc = collect(&cp, events);
    if (rc == TP_OK)
        rc = sweep(&cp);
    if (rc == TP_OK)
        rc = label_replays(&cp, t, &o); /* the ops' args still in doc */
    json_decref(doc);
    if (rc == TP_OK)
        tp_log(st, o.matched < o.replays ? TP_LOG_WARN : TP_LOG_INFO,
               "%s: %zu capture(s); %zu of %zu graph replay(s) matched to their capturing ops%s",
               path, cp.nregions, o.matched, o.replays,
               o.matched < o.replays ? " (the others stay under graph <id>)" : "");
    tp_free(cp.ev);
    tp_free(cp.launches);
    tp_free(cp.regions);
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "%s: out of memory", path);
}
