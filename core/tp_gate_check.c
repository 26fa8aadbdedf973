/*
 * Gates: checking a parsed expression against the results a pipeline
 * declares (docs/gates.md).  Names are resolved by CONVENTIONS' rule (the
 * longest declared result id that prefixes a dotted name wins, the rest is
 * its column), every reference gets the slot whose row it reads, and types
 * are checked: numbers, text, severities, conditions.
 */
#include "tp_gate_impl.h"
#include "tp_options.h"

#include <stdlib.h>
#include <string.h>

typedef struct checker {
    tp_gate *g;
    const tp_gate_schema *schema;
    tp_gate_error *e;
} checker;

#define fail_at(c, ...) tp_gate_fail((c)->e, __VA_ARGS__)

/* ------------------------------------------------------------- resolving */

static const tp_gate_result *find_result(const tp_gate_schema *s, const char *id, size_t len)
{
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->v[i].id) == len && strncmp(s->v[i].id, id, len) == 0)
            return &s->v[i];
    return NULL;
}

/* "; did you mean 'x'?" for a result id near name (empty if none). */
static void near_result(const tp_gate_schema *s, const char *name, char *out, size_t size)
{
    const char **ids = calloc(s->n + 1, sizeof *ids);
    const char *near = NULL;
    for (size_t i = 0; ids && i < s->n; i++)
        ids[i] = s->v[i].id;
    if (ids)
        near = tp_closest(name, ids, s->n);
    free(ids);
    if (near)
        snprintf(out, size, " (did you mean '%s'?)", near);
    else
        out[0] = '\0';
}

/* The result a reference names, and its column (NULL: the whole result);
 * 0 when it names none (a bare column), -1 after an error. */
static int resolve_ref(checker *c, gnode *n, const tp_gate_result **res)
{
    const tp_gate_schema *s = c->schema;
    const char *name = n->text;
    size_t len = strlen(name);
    char near[300];
    if (n->filter || n->col) { /* RESULT[...] or RESULT[...].COLUMN: the whole name */
        if ((*res = find_result(s, name, len)) != NULL)
            return 1;
        near_result(s, name, near, sizeof near);
        fail_at(c, n->pos, "no result '%s' in the pipeline%s", name, near);
        return -1;
    }
    if ((*res = find_result(s, name, len)) != NULL)
        return 1; /* a whole result: count(kernels) */
    for (size_t cut = len; cut-- > 0;) /* the longest prefix at a dot */
        if (name[cut] == '.' && (*res = find_result(s, name, cut)) != NULL) {
            n->col = strdup(name + cut + 1);
            return n->col ? 1 : (fail_at(c, n->pos, "out of memory"), -1);
        }
    if (strchr(name, '.') == NULL)
        return 0;
    char prefix[256];
    snprintf(prefix, sizeof prefix, "%.*s", (int)(strrchr(name, '.') - name), name);
    near_result(s, prefix, near, sizeof near);
    fail_at(c, n->pos, "no result of the pipeline prefixes '%s'%s", name, near);
    return -1;
}

static int slot_for(checker *c, const tp_gate_result *res, int top)
{
    tp_gate *g = c->g;
    for (size_t i = 0; top && i < g->n_slots; i++)
        if (g->slots[i].top && g->slots[i].res == res)
            return (int)i;
    gslot *v = realloc(g->slots, (g->n_slots + 1) * sizeof *v);
    if (v == NULL) {
        fail_at(c, 0, "out of memory");
        return -1;
    }
    g->slots = v;
    memset(&v[g->n_slots], 0, sizeof *v);
    v[g->n_slots].res = res;
    v[g->n_slots].top = top;
    return (int)g->n_slots++;
}

/* The declared type of a reference's column (TY_ANY where the result's
 * columns depend on the data). */
static void column_type(checker *c, gnode *n)
{
    const tp_result_decl *d = c->g->slots[n->slot].res->decl;
    if (n->col == NULL || d == NULL || d->n_cols == 0) {
        n->type = TY_ANY;
        return;
    }
    const char *names[256];
    size_t k = 0;
    char list[1024] = "";
    for (size_t i = 0; i < d->n_cols; i++) {
        if (strcmp(d->cols[i].name, n->col) == 0) {
            n->type = d->cols[i].type == TP_COL_STR ? TY_TEXT : TY_NUM;
            return;
        }
        if (k < 256)
            names[k++] = d->cols[i].name;
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", d->cols[i].name);
    }
    const char *near = tp_closest(n->col, names, k);
    fail_at(c, n->pos, "result '%s' has no column '%s'%s%s%s; its columns: %s",
            c->g->slots[n->slot].res->id, n->col, near ? " (did you mean '" : "",
            near ? near : "", near ? "'?)" : "", list);
}

/* ---------------------------------------------------------------- scopes */

typedef struct refs {
    gnode **v;
    size_t n, cap;
} refs;

static int push(refs *r, gnode *n)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 8;
        gnode **v = realloc(r->v, cap * sizeof *v);
        if (v == NULL)
            return -1;
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = n;
    return 0;
}

/* The references and aggregates of one scope, in the order written: not
 * those inside a filter or an aggregate's argument (scopes of their own). */
static void collect(checker *c, gnode *n, refs *out)
{
    if (n == NULL || c->e->failed)
        return;
    if (n->kind == G_REF || n->kind == G_AGG) {
        if (push(out, n) != 0)
            fail_at(c, n->pos, "out of memory");
        return;
    }
    collect(c, n->a, out);
    collect(c, n->b, out);
}

enum { SCOPE_TOP, SCOPE_AGG, SCOPE_FILTER };
static void check_scope(checker *c, gnode *root, int mode, int slot);

/* The slot of a reference that names its result, by the scope's rule. */
static int named_slot(checker *c, gnode *n, const tp_gate_result *res, int mode, int *slot)
{
    if (mode == SCOPE_TOP)
        return slot_for(c, res, 1);
    if (*slot < 0 && mode == SCOPE_AGG) /* the aggregate ranges over the first result named */
        c->g->slots[-*slot - 2].res = res, *slot = -*slot - 2;
    if (c->g->slots[*slot].res != res)
        fail_at(c, n->pos, "%s reads the rows of one result (%s); '%s' is another",
                mode == SCOPE_AGG ? "an aggregate" : "a row filter", c->g->slots[*slot].res->id,
                res->id);
    return *slot;
}

/* The slot of a bare name: the nearest reference before it that names its
 * result, else the nearest after it; in a filter or an aggregate, theirs. */
static int bare_slot(const refs *r, size_t i, int mode, int slot)
{
    if (mode != SCOPE_TOP)
        return slot;
    for (size_t k = i; k-- > 0;)
        if (r->v[k]->kind == G_REF && r->v[k]->dotted)
            return r->v[k]->slot;
    for (size_t k = i + 1; k < r->n; k++)
        if (r->v[k]->kind == G_REF && r->v[k]->dotted)
            return r->v[k]->slot;
    return -1;
}

static int add_filter(checker *c, gslot *s, gnode *f)
{
    gnode **v = realloc(s->filters, (s->n_filters + 1) * sizeof *v);
    if (v == NULL) {
        fail_at(c, f->pos, "out of memory");
        return -1;
    }
    s->filters = v;
    v[s->n_filters++] = f;
    return 0;
}

/* An aggregate: a slot of its own, resolved from its argument. */
static void check_aggregate(checker *c, gnode *n)
{
    int s = slot_for(c, NULL, 0);
    if (s < 0)
        return;
    n->slot = s;
    check_scope(c, n->a, SCOPE_AGG, -s - 2); /* "not yet named" until a reference names it */
    if (!c->e->failed && c->g->slots[s].res == NULL)
        fail_at(c, n->a->pos, "an aggregate needs a result's column, such as "
                "sum(kernels.sum_us), or a result, such as count(kernels)");
}

/* slot: the scope's row (a filter's; an aggregate's, -2 - slot until named). */
static void check_scope(checker *c, gnode *root, int mode, int slot)
{
    refs r = {0};
    collect(c, root, &r);
    for (size_t i = 0; i < r.n && !c->e->failed; i++) { /* names of results first */
        gnode *n = r.v[i];
        const tp_gate_result *res = NULL;
        if (n->kind != G_REF)
            continue;
        int named = resolve_ref(c, n, &res);
        if (named > 0) {
            n->dotted = 1;
            n->slot = named_slot(c, n, res, mode, &slot);
        }
    }
    for (size_t i = 0; i < r.n && !c->e->failed; i++) {
        gnode *n = r.v[i];
        if (n->kind == G_AGG) {
            check_aggregate(c, n);
            continue;
        }
        if (!n->dotted) {
            if ((n->col = strdup(n->text)) == NULL || (n->slot = bare_slot(&r, i, mode, slot)) < 0)
                fail_at(c, n->pos, "'%s' is no result of the pipeline, and a bare name is a "
                        "column of the row of a result the expression names (RESULT.%s)",
                        n->text, n->text);
            if (c->e->failed)
                break;
        }
        column_type(c, n);
        if (n->filter && !c->e->failed && add_filter(c, &c->g->slots[n->slot], n->filter) == 0)
            check_scope(c, n->filter, SCOPE_FILTER, n->slot);
    }
    free(r.v);
}

/* ----------------------------------------------------------------- types */

static const char *type_words(int t)
{
    return t == TY_NUM ? "a number" : t == TY_TEXT ? "text" : t == TY_SEV ? "a severity"
           : t == TY_BOOL ? "a condition" : "a value";
}

static int is_value(int t) { return t != TY_BOOL; }

static int type_of(checker *c, gnode *n);

static int type_compare(checker *c, gnode *n)
{
    int a = type_of(c, n->a), b = type_of(c, n->b);
    if (c->e->failed)
        return 0;
    if (!is_value(a) || !is_value(b)) {
        fail_at(c, (!is_value(a) ? n->a : n->b)->pos,
                "a comparison compares values, not conditions (use and, or, not)");
        return 0;
    }
    int any = a == TY_ANY || b == TY_ANY;
    int sev = (a == TY_SEV && b != TY_NUM) || (b == TY_SEV && a != TY_NUM);
    int ordering = n->op == OP_LT || n->op == OP_LE || n->op == OP_GT || n->op == OP_GE;
    if (any || (a == TY_NUM && b == TY_NUM) || sev || (!ordering && a == TY_TEXT && b == TY_TEXT))
        return TY_BOOL;
    fail_at(c, n->pos, ordering ? "'<', '<=', '>', '>=' order numbers, or severities "
                                  "(info < warn < error); here %s and %s"
                                : "'==' and '!=' compare like with like; here %s and %s",
            type_words(a), type_words(b));
    return 0;
}

static int type_numbers(checker *c, gnode *n, gnode *a, gnode *b, const char *what)
{
    int ta = type_of(c, a), tb = b ? type_of(c, b) : TY_NUM;
    if (c->e->failed)
        return 0;
    gnode *bad = ta != TY_NUM && ta != TY_ANY ? a : tb != TY_NUM && tb != TY_ANY ? b : NULL;
    if (bad)
        fail_at(c, bad->pos, "%s takes numbers; this is %s", what,
                type_words(bad == a ? ta : tb));
    (void)n;
    return TY_NUM;
}

static int type_logic(checker *c, gnode *n)
{
    static const char *const words[] = {"not", "and", "or"};
    const char *w = words[n->kind == G_NOT ? 0 : n->kind == G_AND ? 1 : 2];
    gnode *ops[2] = {n->a, n->b};
    for (int i = 0; i < 2 && ops[i] && !c->e->failed; i++)
        if (type_of(c, ops[i]) != TY_BOOL && !c->e->failed)
            fail_at(c, ops[i]->pos, "'%s' takes conditions; this is %s (compare it: x > 0)", w,
                    type_words(ops[i]->type));
    return TY_BOOL;
}

static void type_filter(checker *c, gnode *ref)
{
    if (ref->filter && type_of(c, ref->filter) != TY_BOOL && !c->e->failed)
        fail_at(c, ref->filter->pos, "a row filter is a condition, such as name =~ \"nccl\"");
}

static int type_aggregate(checker *c, gnode *n)
{
    gnode *a = n->a;
    if (a->kind == G_REF && a->col == NULL) {
        if (n->op != AGG_COUNT)
            fail_at(c, a->pos, "%s() takes a column, such as %s.sum_us; count() takes a whole "
                    "result", n->op == AGG_SUM ? "sum" : n->op == AGG_MAX ? "max"
                    : n->op == AGG_MIN ? "min" : "mean", a->text);
        type_filter(c, a);
        a->type = TY_ANY;
        return TY_NUM;
    }
    if (n->op == AGG_COUNT) {
        if (is_value(type_of(c, a)) || c->e->failed)
            return TY_NUM;
        fail_at(c, a->pos, "count() counts a result's rows or a column's values, not conditions");
        return TY_NUM;
    }
    return type_numbers(c, n, a, NULL, "an aggregate other than count()");
}

static int type_of(checker *c, gnode *n)
{
    int t = 0;
    switch (n->kind) {
    case G_NUM: t = TY_NUM; break;
    case G_STR: t = TY_TEXT; break;
    case G_SEV: t = TY_SEV; break;
    case G_REF:
        if (n->col == NULL)
            fail_at(c, n->pos, "'%s' is a whole result: name one of its columns (%s.COLUMN), "
                    "or count() it", n->text, n->text);
        type_filter(c, n);
        t = n->type;
        break;
    case G_AGG: t = type_aggregate(c, n); break;
    case G_NEG: t = type_numbers(c, n, n->a, NULL, "'-'"); break;
    case G_ARITH: t = type_numbers(c, n, n->a, n->b, "arithmetic"); break;
    case G_CMP: t = type_compare(c, n); break;
    case G_MATCH: {
        int a = type_of(c, n->a);
        if (!c->e->failed && a != TY_TEXT && a != TY_ANY)
            fail_at(c, n->a->pos, "=~ matches text; this is %s", type_words(a));
        t = TY_BOOL;
        break;
    }
    case G_NOT: case G_AND: case G_OR: t = type_logic(c, n); break;
    }
    n->type = t;
    return t;
}

void tp_gate_check(tp_gate *g, const tp_gate_schema *schema, tp_gate_error *e)
{
    checker c = {.g = g, .schema = schema, .e = e};
    check_scope(&c, g->root, SCOPE_TOP, -1);
    if (!e->failed && type_of(&c, g->root) != TY_BOOL && !e->failed)
        fail_at(&c, g->root->pos, "a gate is a condition, such as kernels.sum_us > 5000; this "
                "is %s", type_words(g->root->type));
    if (!e->failed && g->n_slots == 0)
        fail_at(&c, g->root->pos, "a gate reads a result: name one (RESULT.COLUMN)");
    for (size_t i = 0; !e->failed && i < g->n_slots; i++) {
        if ((g->slots[i].id = strdup(g->slots[i].res->id)) == NULL)
            fail_at(&c, 0, "out of memory");
        g->slots[i].res = NULL;
    }
}
