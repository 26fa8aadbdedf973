/*
 * Gates: evaluation on a run's results (docs/gates.md).  The expression is
 * evaluated for every combination of rows of the results its top level
 * names (one result: every row), those rows kept that pass every filter
 * written on their result; it trips when any combination makes it true.
 * Logic is three-valued: a comparison with a null is null, and a null
 * never trips.  Aggregates range over their result's rows (nulls skipped).
 */
#include "tp_gate_impl.h"
#include "tp_result.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* at most this many row combinations per gate */
#define GATE_MAX_COMBINATIONS 10000000.0

enum { V_NULL, V_NUM, V_TEXT, V_SEV, V_BOOL };

typedef struct val {
    int t;
    double n;      /* V_NUM, V_SEV (the rank), V_BOOL (0 or 1) */
    const char *s; /* V_TEXT */
} val;

typedef struct ectx {
    tp_gate *g;
    size_t *row; /* per slot: the row being read */
    pcre2_match_data *md;
} ectx;

static const val null_val = {V_NULL, 0, NULL};

static val num_val(double x) { return isnan(x) ? null_val : (val){V_NUM, x, NULL}; }
static val bool_val(int b) { return (val){V_BOOL, b != 0, NULL}; }

static val cell(const tp_result *r, size_t row, int col)
{
    if (r == NULL || col < 0 || tp_result_null(r, row, col))
        return null_val;
    switch (tp_result_coltype(r, col)) {
    case TP_COL_STR:
        return (val){V_TEXT, 0, tp_result_str(r, row, col)};
    case TP_COL_I64:
        return num_val((double)tp_result_i64(r, row, col));
    default:
        return num_val(tp_result_f64(r, row, col));
    }
}

/* info < warn < error (also "warning"), any case; -1 for other text. */
static int severity_rank(const char *s)
{
    static const char *const words[] = {"info", "warn", "error", "warning"};
    for (int i = 0; i < 4; i++)
        if (strcasecmp(s, words[i]) == 0)
            return i == 3 ? 1 : i;
    return -1;
}

static val eval(ectx *e, const gnode *n);

static int row_passes(ectx *e, size_t slot)
{
    const gslot *s = &e->g->slots[slot];
    for (size_t i = 0; i < s->n_filters; i++) {
        val v = eval(e, s->filters[i]);
        if (v.t != V_BOOL || v.n == 0)
            return 0;
    }
    return 1;
}

static val aggregate(ectx *e, const gnode *n)
{
    size_t slot = (size_t)n->slot;
    const tp_result *r = e->g->slots[slot].r;
    size_t nrows = r ? tp_result_nrows(r) : 0, count = 0;
    double acc = 0;
    int whole = n->a->kind == G_REF && n->a->col == NULL;
    for (size_t i = 0; i < nrows; i++) {
        e->row[slot] = i;
        if (!row_passes(e, slot))
            continue;
        val v = whole ? bool_val(1) : eval(e, n->a);
        if (v.t == V_NULL)
            continue;
        double x = v.t == V_NUM ? v.n : 0;
        acc = count == 0 && (n->op == AGG_MAX || n->op == AGG_MIN) ? x
              : n->op == AGG_MAX ? (x > acc ? x : acc)
              : n->op == AGG_MIN ? (x < acc ? x : acc)
                                 : acc + x;
        count++;
    }
    if (n->op == AGG_COUNT)
        return num_val((double)count);
    if (count == 0)
        return n->op == AGG_SUM ? num_val(0) : null_val;
    return num_val(n->op == AGG_MEAN ? acc / (double)count : acc);
}

static val arith(int op, val a, val b)
{
    if (a.t != V_NUM || b.t != V_NUM)
        return null_val;
    switch (op) {
    case '+': return num_val(a.n + b.n);
    case '-': return num_val(a.n - b.n);
    case '*': return num_val(a.n * b.n);
    default: return b.n == 0 ? null_val : num_val(a.n / b.n);
    }
}

static val compare(int op, val a, val b)
{
    if (a.t == V_NULL || b.t == V_NULL)
        return null_val;
    if (a.t == V_SEV || b.t == V_SEV) { /* text read as a severity */
        if (a.t == V_TEXT && (a.n = severity_rank(a.s)) >= 0)
            a.t = V_SEV;
        if (b.t == V_TEXT && (b.n = severity_rank(b.s)) >= 0)
            b.t = V_SEV;
    }
    double d;
    if ((a.t == V_NUM || a.t == V_SEV) && a.t == b.t)
        d = a.n < b.n ? -1 : a.n > b.n ? 1 : 0;
    else if (a.t == V_TEXT && b.t == V_TEXT)
        d = strcmp(a.s, b.s);
    else
        return null_val;
    switch (op) {
    case OP_LT: return bool_val(d < 0);
    case OP_LE: return bool_val(d <= 0);
    case OP_GT: return bool_val(d > 0);
    case OP_GE: return bool_val(d >= 0);
    case OP_EQ: return bool_val(d == 0);
    default: return bool_val(d != 0);
    }
}

static val match(ectx *e, const gnode *n)
{
    val a = eval(e, n->a);
    if (a.t != V_TEXT)
        return null_val;
    int rc = pcre2_match(n->re, (PCRE2_SPTR)a.s, strlen(a.s), 0, 0, e->md, NULL);
    return rc >= 0 ? bool_val(1) : rc == PCRE2_ERROR_NOMATCH ? bool_val(0) : null_val;
}

/* Three-valued and / or / not: null is "unknown". */
static val logic(ectx *e, const gnode *n)
{
    val a = eval(e, n->a);
    if (n->kind == G_NOT)
        return a.t == V_BOOL ? bool_val(a.n == 0) : null_val;
    int stop = n->kind == G_OR; /* or: true decides; and: false decides */
    if (a.t == V_BOOL && (a.n != 0) == stop)
        return a;
    val b = eval(e, n->b);
    if (b.t == V_BOOL && (b.n != 0) == stop)
        return b;
    return a.t == V_BOOL && b.t == V_BOOL ? bool_val(!stop) : null_val;
}

static val eval(ectx *e, const gnode *n)
{
    switch (n->kind) {
    case G_NUM: return num_val(n->num);
    case G_STR: return (val){V_TEXT, 0, n->text};
    case G_SEV: return (val){V_SEV, n->num, NULL};
    case G_REF: return cell(e->g->slots[n->slot].r, e->row[n->slot], n->rcol);
    case G_AGG: return aggregate(e, n);
    case G_NEG: {
        val a = eval(e, n->a);
        return a.t == V_NUM ? num_val(-a.n) : null_val;
    }
    case G_ARITH: return arith(n->op, eval(e, n->a), eval(e, n->b));
    case G_CMP: return compare(n->op, eval(e, n->a), eval(e, n->b));
    case G_MATCH: return match(e, n);
    default: return logic(e, n);
    }
}

/* ------------------------------------------------------------ reporting */

static size_t put_val(char *out, size_t size, val v)
{
    if (v.t == V_NUM)
        return (size_t)snprintf(out, size, "%.10g", v.n);
    if (v.t == V_TEXT)
        return (size_t)snprintf(out, size, "\"%.80s%s\"", v.s, strlen(v.s) > 80 ? "..." : "");
    return (size_t)snprintf(out, size, "null");
}

/* The top level's references and aggregates, in the order written. */
static void top_values(ectx *e, const gnode *n, char *out, size_t size, size_t *used)
{
    if (n == NULL || *used >= size)
        return;
    if (n->kind == G_REF || n->kind == G_AGG) {
        *used += (size_t)snprintf(out + *used, size - *used, "%s%.*s = ", *used ? ", " : "",
                                  n->end - n->pos, e->g->text + n->pos);
        if (*used < size)
            *used += put_val(out + *used, size - *used, eval(e, n));
        return;
    }
    top_values(e, n->a, out, size, used);
    top_values(e, n->b, out, size, used);
}

/* "kernels row 3 (name "ncclKernel...")" for each result combined. */
static void describe_rows(ectx *e, char *out, size_t size, size_t *used)
{
    const char *sep = " in ";
    for (size_t s = 0; s < e->g->n_slots && *used < size; s++) {
        const gslot *sl = &e->g->slots[s];
        if (!sl->top)
            continue;
        *used += (size_t)snprintf(out + *used, size - *used, "%s%s row %zu", sep, sl->id,
                                  e->row[s] + 1);
        sep = ", ";
        for (size_t c = 0; c < tp_result_ncols(sl->r) && *used < size; c++)
            if (tp_result_coltype(sl->r, (int)c) == TP_COL_STR) {
                *used += (size_t)snprintf(out + *used, size - *used, " (%s ",
                                          tp_result_colname(sl->r, (int)c));
                if (*used < size)
                    *used += put_val(out + *used, size - *used, cell(sl->r, e->row[s], (int)c));
                if (*used < size)
                    *used += (size_t)snprintf(out + *used, size - *used, ")");
                break;
            }
    }
}

/* The first top-level column reference's value (for --fail-if-slower). */
static const gnode *first_ref(const gnode *n)
{
    if (n == NULL || n->kind == G_AGG)
        return NULL;
    if (n->kind == G_REF)
        return n;
    const gnode *a = first_ref(n->a);
    return a ? a : first_ref(n->b);
}

static void combine(ectx *e, size_t s, tp_gate_outcome *out)
{
    tp_gate *g = e->g;
    while (s < g->n_slots && !g->slots[s].top)
        s++;
    if (s < g->n_slots) {
        size_t n = tp_result_nrows(g->slots[s].r);
        for (size_t i = 0; i < n; i++) {
            e->row[s] = i;
            if (row_passes(e, s))
                combine(e, s + 1, out);
        }
        return;
    }
    out->rows++;
    val v = eval(e, g->root);
    int tripped = v.t == V_BOOL && v.n != 0;
    const gnode *ref = first_ref(g->root);
    val first = ref ? eval(e, ref) : null_val;
    if (ref && ((out->trips == 0 && tripped) || (isnan(out->first_value) && first.t == V_NUM))) {
        out->first_value = first.t == V_NUM ? first.n : NAN;
        out->first_result = g->slots[ref->slot].r;
    }
    if (!tripped || out->trips++ > 0)
        return;
    size_t used = 0;
    top_values(e, g->root, out->detail, sizeof out->detail, &used);
    describe_rows(e, out->detail, sizeof out->detail, &used);
}

/* Each slot's result in run, each reference's column; 0 when a result is
 * missing (the gate is not evaluated). */
static int bind_run(tp_gate *g, tp_gate_lookup find, const void *ctx, double *combinations)
{
    *combinations = 1;
    for (size_t s = 0; s < g->n_slots; s++) {
        g->slots[s].r = find(ctx, g->slots[s].id);
        if (g->slots[s].r == NULL)
            return 0;
        if (g->slots[s].top)
            *combinations *= (double)tp_result_nrows(g->slots[s].r);
    }
    for (gnode *n = g->all; n; n = n->next_all)
        if (n->kind == G_REF)
            n->rcol = n->col ? tp_result_colfind(g->slots[n->slot].r, n->col) : -1;
    return 1;
}

int tp_gate_eval(tp_gate *g, tp_gate_lookup find, const void *ctx, tp_gate_outcome *out,
                 char *err, size_t errsz)
{
    memset(out, 0, sizeof *out);
    out->first_value = NAN;
    double combinations;
    if (!bind_run(g, find, ctx, &combinations))
        return TP_OK;
    out->evaluated = 1;
    if (combinations > GATE_MAX_COMBINATIONS) {
        snprintf(err, errsz, "%.0f row combinations of the results it names, more than 10^7: "
                 "aggregate one of them (sum(), max(), count())", combinations);
        return TP_EINVAL;
    }
    ectx e = {.g = g, .row = calloc(g->n_slots, sizeof *e.row),
              .md = pcre2_match_data_create(8, NULL)};
    int rc = TP_OK;
    if (e.row == NULL || e.md == NULL) {
        snprintf(err, errsz, "out of memory");
        rc = TP_ENOMEM;
    } else {
        combine(&e, 0, out);
    }
    free(e.row);
    pcre2_match_data_free(e.md);
    return rc;
}
