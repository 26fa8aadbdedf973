/*
 * kineto reader: graph captures say which op captured each kernel a graph
 * launch of the run trace replays.  They come from a capture trace (option
 * capture:, the profile of the graph captures, e.g. vLLM's
 * graph_capture_rank_N) and from the run trace itself when the profiler was
 * on while the graphs were captured.
 *
 * A capture is the launch calls a thread makes between its
 * ...StreamBeginCapture and ...StreamEndCapture (tp_graph_capture_call);
 * each launch's op is the outermost cpu op around it that is not a module
 * (and the innermost one), on its thread.  kin_capture_match.c matches the
 * replays with them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kin.h"
#include "kin_capture.h"
#include <tracepipe/tp_sdk_graphs.h>
#include <tracepipe/tp_sdk_json.h>
#include <tracepipe/tp_sdk_sort.h>
#include <tracepipe/tp_sdk_trace.h>

#define CAP_MAX_BYTES ((size_t)4 << 30)

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

/* A launch's "graph node id" (a non-negative integer), else -1. */
static int64_t json_node_id(json_t *args)
{
    json_t *v = json_object_get(args, "graph node id");
    return json_is_integer(v) && json_integer_value(v) >= 0 ? (int64_t)json_integer_value(v) : -1;
}

/* The type of a runtime call: CE_BEGIN, CE_END, CE_LAUNCH, or -1. */
static int call_type(const tp_vocab *v, const char *name, tp_launch_what *what)
{
    int call = tp_graph_capture_call(name);
    *what = tp_vocab_launch_api(v, name);
    if (call)
        return call == 1 ? CE_BEGIN : CE_END;
    if (*what == TP_LAUNCHES_KERNEL || *what == TP_LAUNCHES_MEMCPY || *what == TP_LAUNCHES_MEMSET)
        return CE_LAUNCH;
    return -1;
}

static int push(capture *cp, const cap_ev *e)
{
    if (cp->nev == cp->cap_ev) {
        size_t ncap = cp->cap_ev ? cp->cap_ev * 2 : 1024;
        cap_ev *n = tp_realloc(cp->ev, ncap * sizeof *n);
        if (n == NULL)
            return TP_ENOMEM;
        cp->ev = n;
        cp->cap_ev = ncap;
    }
    cp->ev[cp->nev++] = *e;
    return TP_OK;
}

/* ------------------------------------------------ from the capture trace */

/* Classifies one event; 0 when it does not matter, -1 when out of memory. */
static int classify(capture *cp, const tp_vocab *v, json_t *e, cap_ev *out)
{
    const char *ph = json_string_value(json_object_get(e, "ph"));
    const char *cat = json_string_value(json_object_get(e, "cat"));
    const char *name = json_string_value(json_object_get(e, "name"));
    if (!ph || strcmp(ph, "X") != 0 || !cat || !name || !json_is_number(json_object_get(e, "ts")))
        return 0;
    memset(out, 0, sizeof *out);
    out->src = 1;
    out->row = -1;
    out->node = -1;
    json_t *args = json_object_get(e, "args");
    if (strcmp(cat, "cpu_op") == 0) {
        out->type = CE_OP;
        out->module = tp_vocab_is_module(v, name);
        out->args = args;
    } else if (strcmp(cat, "cuda_runtime") == 0 || strcmp(cat, "cuda_driver") == 0) {
        if ((out->type = call_type(v, name, &out->what)) < 0)
            return 0;
        out->kernel = intern_json(cp->st, json_object_get(args, "kernel"));
        out->node = json_node_id(args);
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

static int collect_file(capture *cp, const tp_vocab *v, json_t *events)
{
    size_t n = json_array_size(events);
    int k = 0, rc = TP_OK;
    cap_ev e;
    for (size_t i = 0; rc == TP_OK && i < n; i++) {
        if ((k = classify(cp, v, json_array_get(events, i), &e)) < 0)
            rc = TP_ENOMEM;
        else if (k > 0)
            rc = push(cp, &e);
    }
    return rc;
}

/* ---------------------------------------------------- from the run trace */

/* A string value of row's args, interned; 0 when absent, TP_STR_ERROR when
 * out of memory. */
static tp_str row_arg_str(tp_stage *st, const tp_trace *t, size_t row, const char *key)
{
    size_t len = 0, vlen = 0;
    const char *args = tp_trace_args(t, row, &len);
    const char *v = args ? tp_json_get(args, len, key, &vlen) : NULL;
    char small[512];
    long n = v ? tp_json_str(v, vlen, small, sizeof small) : -1;
    if (n < 0)
        return 0;
    if ((size_t)n < sizeof small)
        return tp_intern(st, small, (size_t)n);
    char *big = tp_malloc((size_t)n + 1);
    if (big == NULL)
        return TP_STR_ERROR;
    tp_json_str(v, vlen, big, (size_t)n + 1);
    tp_str s = tp_intern(st, big, (size_t)n);
    tp_free(big);
    return s;
}

int64_t kin_row_node_id(const tp_trace *t, size_t row)
{
    size_t len = 0, vlen = 0;
    const char *args = tp_trace_args(t, row, &len);
    const char *v = args ? tp_json_get(args, len, "graph node id", &vlen) : NULL;
    int64_t id = -1;
    return v && tp_json_i64(v, vlen, &id) == TP_OK && id >= 0 ? id : -1;
}

/* What the vocabulary says of a run trace's name, asked once per name id
 * (a trace has millions of rows and a few thousand names). */
enum { NC_MODULE_KNOWN = 1, NC_MODULE = 2, NC_CALL_KNOWN = 4 };
typedef struct name_cls {
    uint8_t flags;
    int8_t type;   /* call_type's: CE_BEGIN, CE_END, CE_LAUNCH or -1 */
    uint8_t what;  /* tp_launch_what */
} name_cls;

typedef struct name_memo {
    tp_stage *st;
    const tp_vocab *v;
    name_cls *cls; /* per name id; NULL when out of memory: asked per row */
    size_t n;
} name_memo;

static void memo_init(name_memo *m, tp_stage *st, const tp_vocab *v)
{
    size_t n = tp_str_count(st);
    *m = (name_memo){st, v, tp_calloc(n ? n : 1, sizeof *m->cls), n};
}

static name_cls *memo_entry(name_memo *m, tp_str s)
{
    return m->cls && s < m->n ? &m->cls[s] : NULL;
}

static int name_is_module(name_memo *m, tp_str s)
{
    name_cls *e = memo_entry(m, s);
    if (e && (e->flags & NC_MODULE_KNOWN))
        return (e->flags & NC_MODULE) != 0;
    int module = tp_vocab_is_module(m->v, tp_str_text(m->st, s));
    if (e)
        e->flags |= (uint8_t)(NC_MODULE_KNOWN | (module ? NC_MODULE : 0));
    return module;
}

static int name_call_type(name_memo *m, tp_str s, tp_launch_what *what)
{
    name_cls *e = memo_entry(m, s);
    if (e && (e->flags & NC_CALL_KNOWN)) {
        *what = (tp_launch_what)e->what;
        return e->type;
    }
    int type = call_type(m->v, tp_str_text(m->st, s), what);
    if (e) {
        e->flags |= NC_CALL_KNOWN;
        e->type = (int8_t)type;
        e->what = (uint8_t)*what;
    }
    return type;
}

/* Does the run trace begin a capture anywhere? */
static int has_capture(name_memo *m, const tp_cols *c)
{
    tp_launch_what what;
    for (size_t i = 0; i < c->n; i++)
        if (c->kind[i] == TP_KIND_RUNTIME && name_call_type(m, c->name[i], &what) == CE_BEGIN)
            return 1;
    return 0;
}

static int classify_row(capture *cp, name_memo *m, const tp_trace *t, size_t i, cap_ev *out)
{
    const tp_cols *c = tp_trace_cols(t);
    if (!tp_ev_is_complete(c, i) || (c->kind[i] != TP_KIND_CPU_OP && c->kind[i] != TP_KIND_RUNTIME))
        return 0;
    memset(out, 0, sizeof *out);
    out->row = -1;
    out->node = -1;
    if (c->kind[i] == TP_KIND_CPU_OP) {
        out->type = CE_OP;
        out->module = name_is_module(m, c->name[i]);
        out->row = (int64_t)i;
    } else {
        if ((out->type = name_call_type(m, c->name[i], &out->what)) < 0)
            return 0;
        out->row = (int64_t)i;
        if (out->type == CE_LAUNCH) {
            out->kernel = row_arg_str(cp->st, t, i, "kernel");
            out->node = kin_row_node_id(t, i);
        }
    }
    if (out->kernel == TP_STR_ERROR)
        return -1;
    out->name = c->name[i];
    out->pid = tp_ev_pid(c, i);
    out->tid = tp_ev_tid(c, i);
    out->ts = c->ts[i];
    out->end = c->ts[i] + c->dur[i];
    return 1;
}

static int collect_trace(capture *cp, const tp_vocab *v, const tp_trace *t)
{
    const tp_cols *c = tp_trace_cols(t);
    name_memo m;
    memo_init(&m, cp->st, v);
    int k = 0, rc = TP_OK, any = has_capture(&m, c);
    cap_ev e;
    for (size_t i = 0; rc == TP_OK && any && i < c->n; i++) {
        if ((k = classify_row(cp, &m, t, i, &e)) < 0)
            rc = TP_ENOMEM;
        else if (k > 0)
            rc = push(cp, &e);
    }
    tp_free(m.cls);
    return rc;
}

/* ------------------------------------------------------------- the sweep */

/* Source, thread, start, longer first, ops before calls, then file order. */
static int ev_cmp(const void *a, const void *b, void *ctx)
{
    const cap_ev *ev = ctx;
    const cap_ev *x = &ev[*(const uint32_t *)a], *y = &ev[*(const uint32_t *)b];
    if (x->src != y->src)
        return x->src < y->src ? -1 : 1;
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
        cap_ev *op = &cp->ev[stack[k]];
        if (op->end < l->end)
            continue;
        op->captured = 1;
        if (op->module)
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

static int same_thread(const cap_ev *a, const cap_ev *b)
{
    return a->src == b->src && a->pid == b->pid && a->tid == b->tid;
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
        if (i > 0 && !same_thread(e, &cp->ev[ord[i - 1]])) {
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

/* ------------------------------------------------------------- the whole */

static int mark_row(const capture *cp, tp_trace *t, int *col, int64_t row)
{
    if (*col < 0 && (*col = tp_trace_ext_add(cp->st, t, TP_GRAPH_CAPTURED_COLUMN, TP_COL_I64)) < 0)
        return TP_ENOMEM;
    return tp_trace_ext_set_i64(cp->st, t, *col, (size_t)row, 1);
}

int kin_capture_mark(const capture *cp, tp_trace *t)
{
    int col = -1, rc = TP_OK;
    for (size_t i = 0; rc == TP_OK && i < cp->nev; i++)
        if (cp->ev[i].src == 0 && cp->ev[i].captured)
            rc = mark_row(cp, t, &col, cp->ev[i].row);
    for (size_t i = 0; rc == TP_OK && i < cp->nlaunches; i++)
        if (cp->ev[cp->launches[i]].src == 0)
            rc = mark_row(cp, t, &col, cp->ev[cp->launches[i]].row);
    return rc;
}

static void capture_free(capture *cp)
{
    tp_free(cp->ev);
    tp_free(cp->launches);
    tp_free(cp->regions);
}

/* Reads the capture trace at path into doc (kept: its ops' args stay in
 * it until labelling is done).  TP_OK or an error already reported. */
static int read_capture_file(tp_stage *st, const char *path, json_t **doc, json_t **events)
{
    char err[200] = "";
    size_t len = 0;
    char *text = slurp(path, &len, err, sizeof err);
    if (text == NULL)
        return tp_fail(st, TP_EIO, "%s: %s", path, err[0] ? err : "cannot read");
    json_error_t jerr;
    *doc = json_loadb(text, len, JSON_DECODE_ANY, &jerr);
    tp_free(text);
    *events = json_is_array(*doc) ? *doc : json_object_get(*doc, "traceEvents");
    if (json_is_array(*events))
        return TP_OK;
    int rc = tp_fail(st, TP_EFORMAT, "%s:%d:%d: not a Kineto trace (capture:): %s", path,
                     jerr.line, jerr.column, *doc ? "no traceEvents" : jerr.text);
    json_decref(*doc);
    *doc = NULL;
    return rc;
}

static void report(tp_stage *st, const char *path, const capture *cp, const cap_stats *s)
{
    if (path == NULL && cp->nregions == 0)
        return; /* no capture anywhere: nothing to say */
    char by_node[64] = "";
    if (s->by_node)
        snprintf(by_node, sizeof by_node, ", %zu by graph node id", s->by_node);
    tp_log(st, s->matched < s->replays ? TP_LOG_WARN : TP_LOG_INFO,
           "%s: %zu capture(s); %zu of %zu graph replay(s) matched to their capturing ops%s%s",
           path ? path : "captures in the trace", cp->nregions, s->matched, s->replays, by_node,
           s->matched < s->replays ? " (the others stay under graph <id>)" : "");
}

int kin_capture_apply(tp_stage *st, tp_trace *t, const char *path)
{
    json_t *doc = NULL, *events = NULL;
    int read = path ? read_capture_file(st, path, &doc, &events) : TP_OK;
    if (read != TP_OK)
        return read;
    capture cp = {.st = st};
    cap_stats s = {0, 0, 0};
    tp_vocab v;
    int rc = tp_vocab_get(st, &v);
    if (rc == TP_OK) {
        rc = collect_trace(&cp, &v, t);
        if (rc == TP_OK && events)
            rc = collect_file(&cp, &v, events);
        tp_vocab_free(&v);
    }
    if (rc == TP_OK)
        rc = sweep(&cp);
    if (rc == TP_OK && (path || cp.nregions > 0))
        rc = kin_capture_label(&cp, t, &s); /* the ops' args still in doc */
    if (rc == TP_OK)
        rc = kin_capture_mark(&cp, t);
    json_decref(doc);
    if (rc == TP_OK)
        report(st, path, &cp, &s);
    capture_free(&cp);
    return rc == TP_OK ? TP_OK
                       : tp_fail(st, rc, "%s: out of memory", path ? path : "graph captures");
}
