/*
 * Gates, the language (docs/gates.md): an expression over result columns,
 * parsed by recursive descent and checked against the results the
 * pipeline declares, so that a malformed or unknown expression is refused
 * with its column before any trace is read.
 *
 *   or    := and ("or" and)*
 *   and   := not ("and" not)*
 *   not   := "not" not | cmp
 *   cmp   := sum [(< <= > >= == !=) sum | =~ STRING]
 *   sum   := prod (("+" | "-") prod)*
 *   prod  := unary (("*" | "/") unary)*
 *   unary := "-" unary | NUMBER | STRING | info | warn | error
 *          | AGG "(" sum ")" | NAME ["[" or "]" ["." COLUMN]] | "(" or ")"
 *
 * A dotted NAME is resolved by CONVENTIONS' rule: the longest declared
 * result id that prefixes it wins, the rest is its column; a bare name is
 * a column of the row of a result named nearby (tp_gate_impl.h, slots).
 */
#include "tp_gate_impl.h"
#include "tp_options.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef enum {
    K_END, K_NUM, K_STR, K_NAME, K_LP, K_RP, K_LB, K_RB, K_DOT, K_ARITH, K_CMP, K_MATCH,
    K_AND, K_OR, K_NOT
} tkind;

typedef struct tok {
    tkind k;
    int pos, end;
    int op;
    double num;
    char *text; /* K_STR, K_NAME: new string, taken by the node that uses it */
} tok;

typedef struct parser {
    const char *s;
    tok t;
    tp_gate *g;
    tp_gate_error e;
    int cur; /* where the lexer goes on */
} parser;

void tp_gate_fail(tp_gate_error *e, int pos, const char *fmt, ...)
{
    if (e->failed)
        return;
    e->failed = 1;
    e->pos = pos;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->text, e->size, fmt, ap);
    va_end(ap);
}

#define fail_at(p, ...) tp_gate_fail(&(p)->e, __VA_ARGS__)

static gnode *new_node(parser *p, gkind kind, int pos, int end)
{
    gnode *n = calloc(1, sizeof *n);
    if (n == NULL) {
        fail_at(p, pos, "out of memory");
        return NULL;
    }
    n->kind = kind;
    n->pos = pos;
    n->end = end;
    n->rcol = -1;
    n->slot = -1;
    n->next_all = p->g->all;
    p->g->all = n;
    return n;
}

/* ------------------------------------------------------------------ lexer */

static int is_name_start(int c) { return isalpha(c) || c == '_' || c == '`'; }

/* One segment of a name at s[i]: an identifier or `anything but backquote`;
 * appended to out (without the backquotes).  The index after it, or -1. */
static int name_segment(const char *s, int i, char *out, size_t *len, size_t cap)
{
    int start = i, quoted = s[i] == '`';
    if (quoted) {
        for (i++; s[i] && s[i] != '`'; i++)
            ;
        if (s[i] != '`')
            return -1;
        i++;
    } else {
        while (isalnum((unsigned char)s[i]) || s[i] == '_')
            i++;
    }
    int from = start + quoted, to = i - quoted;
    for (int k = from; k < to && *len + 1 < cap; k++)
        out[(*len)++] = s[k];
    out[*len] = '\0';
    return i;
}

static void lex_name(parser *p, int i)
{
    size_t cap = strlen(p->s) + 1, len = 0;
    char *text = malloc(cap);
    if (text == NULL) {
        fail_at(p, i, "out of memory");
        return;
    }
    int at = name_segment(p->s, i, text, &len, cap);
    while (at > 0 && p->s[at] == '.' && is_name_start((unsigned char)p->s[at + 1])) {
        text[len++] = '.';
        at = name_segment(p->s, at + 1, text, &len, cap);
    }
    if (at < 0) {
        free(text);
        fail_at(p, i, "a name in backquotes has no closing `");
        return;
    }
    p->t.end = at;
    p->t.text = text;
    p->t.k = strcmp(text, "and") == 0 ? K_AND
             : strcmp(text, "or") == 0 ? K_OR
             : strcmp(text, "not") == 0 ? K_NOT
                                        : K_NAME;
    if (p->t.k != K_NAME) {
        free(text);
        p->t.text = NULL;
    }
}

/* A number: digits, a fraction, an exponent; no units after it. */
static void lex_number(parser *p, int i)
{
    const char *s = p->s;
    int j = i;
    while (isdigit((unsigned char)s[j]))
        j++;
    if (s[j] == '.')
        for (j++; isdigit((unsigned char)s[j]);)
            j++;
    if ((s[j] == 'e' || s[j] == 'E') &&
        (isdigit((unsigned char)s[j + 1]) ||
         ((s[j + 1] == '+' || s[j + 1] == '-') && isdigit((unsigned char)s[j + 2]))))
        for (j += 2; isdigit((unsigned char)s[j]);)
            j++;
    if (isalpha((unsigned char)s[j]) || s[j] == '_') {
        fail_at(p, j, "a number is written without a unit (columns carry theirs: 5000 for "
                      "5000 us in a *_us column)");
        return;
    }
    char buf[64];
    snprintf(buf, sizeof buf, "%.*s", j - i, s + i);
    p->t.num = strtod(buf, NULL);
    p->t.end = j;
    p->t.k = K_NUM;
}

/* "..." or '...': every character as written (regexes keep their
 * backslashes), but a backslash before the quote, which puts the quote in. */
static void lex_string(parser *p, int i)
{
    const char *s = p->s;
    char q = s[i];
    char *text = malloc(strlen(s + i) + 1);
    if (text == NULL) {
        fail_at(p, i, "out of memory");
        return;
    }
    size_t n = 0;
    int j = i + 1;
    for (; s[j] && s[j] != q; j++) {
        if (s[j] == '\\' && s[j + 1] == q)
            j++;
        text[n++] = s[j];
    }
    text[n] = '\0';
    if (s[j] != q) {
        free(text);
        fail_at(p, i, "a string has no closing %c", q);
        return;
    }
    p->t.text = text;
    p->t.end = j + 1;
    p->t.k = K_STR;
}

static const struct {
    const char *text;
    tkind k;
    int op;
} symbols[] = {{"<=", K_CMP, OP_LE}, {">=", K_CMP, OP_GE}, {"==", K_CMP, OP_EQ},
               {"!=", K_CMP, OP_NE}, {"=~", K_MATCH, 0}, {"<", K_CMP, OP_LT},
               {">", K_CMP, OP_GT},  {"(", K_LP, 0},     {")", K_RP, 0},
               {"[", K_LB, 0},       {"]", K_RB, 0},     {".", K_DOT, 0},
               {"+", K_ARITH, '+'},  {"-", K_ARITH, '-'}, {"*", K_ARITH, '*'},
               {"/", K_ARITH, '/'}};

static void lex_symbol(parser *p, int i)
{
    const char *s = p->s + i;
    for (size_t k = 0; k < sizeof symbols / sizeof symbols[0]; k++) {
        size_t len = strlen(symbols[k].text);
        if (strncmp(s, symbols[k].text, len) == 0) {
            p->t.k = symbols[k].k;
            p->t.op = symbols[k].op;
            p->t.end = i + (int)len;
            return;
        }
    }
    const char *hint = s[0] == '=' ? ": compare with ==" : s[0] == '&' ? ": join with and"
                       : s[0] == '|' ? ": join with or" : s[0] == '!' ? ": negate with not" : "";
    if (isprint((unsigned char)s[0]))
        fail_at(p, i, "unexpected '%c'%s", s[0], hint);
    else
        fail_at(p, i, "unexpected byte 0x%02x", (unsigned char)s[0]);
}

static void next(parser *p)
{
    free(p->t.text);
    memset(&p->t, 0, sizeof p->t);
    if (p->e.failed) {
        p->t.k = K_END;
        return;
    }
    const char *s = p->s;
    int at = p->cur;
    while (isspace((unsigned char)s[at]))
        at++;
    p->t.pos = at;
    if (s[at] == '\0')
        p->t.k = K_END, p->t.end = at;
    else if (isdigit((unsigned char)s[at]) || (s[at] == '.' && isdigit((unsigned char)s[at + 1])))
        lex_number(p, at);
    else if (s[at] == '"' || s[at] == '\'')
        lex_string(p, at);
    else if (is_name_start((unsigned char)s[at]))
        lex_name(p, at);
    else
        lex_symbol(p, at);
    if (!p->e.failed)
        p->cur = p->t.end;
    else
        p->t.k = K_END;
}

/* ----------------------------------------------------------------- parser */

static gnode *parse_or(parser *p);
static gnode *parse_sum(parser *p);

static gnode *binary(parser *p, gkind kind, int op, gnode *a, gnode *b)
{
    if (a == NULL || b == NULL)
        return NULL;
    gnode *n = new_node(p, kind, a->pos, b->end);
    if (n) {
        n->op = op;
        n->a = a;
        n->b = b;
    }
    return n;
}

static int expect(parser *p, tkind k, const char *what)
{
    if (p->t.k == k) {
        next(p);
        return 1;
    }
    fail_at(p, p->t.pos, "expected %s%s", what, p->t.k == K_END ? " at the end" : "");
    return 0;
}

static const char *const agg_names[] = {"sum", "max", "min", "count", "mean", NULL};
static const char *const sev_names[] = {"info", "warn", "error", NULL};

static int index_of(const char *const *names, const char *s)
{
    for (int i = 0; names[i]; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

/* After the name at p->t: is '(' next? */
static int call_follows(const parser *p)
{
    int at = p->t.end;
    while (isspace((unsigned char)p->s[at]))
        at++;
    return p->s[at] == '(';
}

static gnode *parse_aggregate(parser *p, int which)
{
    int pos = p->t.pos;
    next(p);
    next(p); /* the '(' */
    gnode *arg = parse_sum(p);
    int end = p->t.end;
    if (arg == NULL || !expect(p, K_RP, "')' closing the aggregate"))
        return NULL;
    gnode *n = new_node(p, G_AGG, pos, end);
    if (n) {
        n->op = which;
        n->a = arg;
    }
    return n;
}

/* NAME ["[" or "]" ["." COLUMN]] */
static gnode *parse_ref(parser *p)
{
    gnode *n = new_node(p, G_REF, p->t.pos, p->t.end);
    if (n == NULL)
        return NULL;
    n->text = p->t.text;
    p->t.text = NULL;
    next(p);
    if (p->t.k != K_LB)
        return n;
    next(p);
    n->filter = parse_or(p);
    n->end = p->t.end;
    if (n->filter == NULL || !expect(p, K_RB, "']' closing the row filter"))
        return NULL;
    if (p->t.k != K_DOT)
        return n;
    next(p);
    if (p->t.k != K_NAME || strchr(p->t.text, '.')) {
        fail_at(p, p->t.pos, "expected a column name after '].'");
        return NULL;
    }
    n->col = p->t.text;
    p->t.text = NULL;
    n->end = p->t.end;
    next(p);
    return n;
}

static gnode *parse_name(parser *p)
{
    int agg = index_of(agg_names, p->t.text), sev = index_of(sev_names, p->t.text);
    if (call_follows(p)) {
        if (agg >= 0)
            return parse_aggregate(p, agg);
        fail_at(p, p->t.pos, "unknown function '%s'; the aggregates are sum, max, min, count "
                "and mean", p->t.text);
        return NULL;
    }
    if (sev >= 0) {
        gnode *n = new_node(p, G_SEV, p->t.pos, p->t.end);
        if (n)
            n->num = sev;
        next(p);
        return n;
    }
    return parse_ref(p);
}

static gnode *parse_unary(parser *p)
{
    int pos = p->t.pos, end = p->t.end;
    gnode *n = NULL;
    switch (p->t.k) {
    case K_ARITH:
        if (p->t.op != '-')
            break;
        next(p);
        gnode *a = parse_unary(p);
        if (a && (n = new_node(p, G_NEG, pos, a->end)) != NULL)
            n->a = a;
        return n;
    case K_NUM:
        if ((n = new_node(p, G_NUM, pos, end)) != NULL)
            n->num = p->t.num;
        next(p);
        return n;
    case K_STR:
        if ((n = new_node(p, G_STR, pos, end)) != NULL) {
            n->text = p->t.text;
            p->t.text = NULL;
        }
        next(p);
        return n;
    case K_NAME:
        return parse_name(p);
    case K_LP:
        next(p);
        n = parse_or(p);
        if (n == NULL || !expect(p, K_RP, "')'"))
            return NULL;
        return n;
    default:
        break;
    }
    fail_at(p, pos, p->t.k == K_END ? "expected a value at the end"
                                    : "expected a value: a number, a string, a column or '('");
    return NULL;
}

typedef gnode *(*parse_fn)(parser *p);

/* operand (k operand)*, left-associative; ops: which operators of k (NULL: k's one). */
static gnode *left_assoc(parser *p, parse_fn operand, tkind k, const char *ops, gkind kind)
{
    gnode *a = operand(p);
    while (a && p->t.k == k && (ops == NULL || strchr(ops, p->t.op) != NULL)) {
        int op = p->t.op;
        next(p);
        a = binary(p, kind, op, a, operand(p));
    }
    return a;
}

static gnode *parse_prod(parser *p) { return left_assoc(p, parse_unary, K_ARITH, "*/", G_ARITH); }
static gnode *parse_sum(parser *p) { return left_assoc(p, parse_prod, K_ARITH, "+-", G_ARITH); }

static gnode *parse_match(parser *p, gnode *a)
{
    next(p);
    if (p->t.k != K_STR) {
        fail_at(p, p->t.pos, "=~ takes a regex in quotes: name =~ \"nccl\"");
        return NULL;
    }
    gnode *n = new_node(p, G_MATCH, a->pos, p->t.end);
    if (n == NULL)
        return NULL;
    n->a = a;
    n->text = p->t.text;
    p->t.text = NULL;
    int code;
    PCRE2_SIZE off;
    n->re = pcre2_compile((PCRE2_SPTR)n->text, PCRE2_ZERO_TERMINATED,
                          PCRE2_UTF | PCRE2_UCP | PCRE2_MATCH_INVALID_UTF, &code, &off, NULL);
    if (n->re == NULL) {
        PCRE2_UCHAR text[200];
        pcre2_get_error_message(code, text, sizeof text);
        fail_at(p, p->t.pos + 1 + (int)off, "bad regex: %s", (const char *)text);
        return NULL;
    }
    next(p);
    return n;
}

static gnode *parse_cmp(parser *p)
{
    gnode *a = parse_sum(p);
    if (a == NULL)
        return NULL;
    if (p->t.k == K_MATCH)
        a = parse_match(p, a);
    else if (p->t.k == K_CMP) {
        int op = p->t.op;
        next(p);
        a = binary(p, G_CMP, op, a, parse_sum(p));
    } else
        return a;
    if (a && (p->t.k == K_CMP || p->t.k == K_MATCH))
        fail_at(p, p->t.pos, "comparisons do not chain: join them with and");
    return p->e.failed ? NULL : a;
}

static gnode *parse_not(parser *p)
{
    if (p->t.k != K_NOT)
        return parse_cmp(p);
    int pos = p->t.pos;
    next(p);
    gnode *a = parse_not(p), *n = NULL;
    if (a && (n = new_node(p, G_NOT, pos, a->end)) != NULL)
        n->a = a;
    return n;
}

static gnode *parse_and(parser *p) { return left_assoc(p, parse_not, K_AND, NULL, G_AND); }
static gnode *parse_or(parser *p) { return left_assoc(p, parse_and, K_OR, NULL, G_OR); }

tp_gate *tp_gate_compile(const char *text, const tp_gate_schema *schema, const char *where,
                         char *err, size_t errsz, int *col)
{
    tp_gate *g = calloc(1, sizeof *g);
    if (g == NULL || (g->text = strdup(text)) == NULL || (g->where = strdup(where)) == NULL) {
        tp_gate_free(g);
        snprintf(err, errsz, "out of memory");
        *col = 1;
        return NULL;
    }
    parser p = {.s = g->text, .g = g, .e = {.text = err, .size = errsz}};
    next(&p);
    g->root = parse_or(&p);
    if (g->root && (p.t.k == K_RB || p.t.k == K_RP))
        fail_at(&p, p.t.pos, "unbalanced '%c'", p.t.k == K_RB ? ']' : ')');
    else if (g->root && p.t.k != K_END)
        fail_at(&p, p.t.pos, "expected and, or, or the end here");
    if (g->root && !p.e.failed)
        tp_gate_check(g, schema, &p.e);
    free(p.t.text);
    if (p.e.failed || g->root == NULL) {
        if (!p.e.failed)
            fail_at(&p, 0, "empty expression");
        *col = p.e.pos + 1;
        tp_gate_free(g);
        return NULL;
    }
    return g;
}

void tp_gate_free(tp_gate *g)
{
    if (g == NULL)
        return;
    for (gnode *n = g->all, *nx; n; n = nx) {
        nx = n->next_all;
        free(n->text);
        free(n->col);
        if (n->re)
            pcre2_code_free(n->re);
        free(n);
    }
    for (size_t i = 0; i < g->n_slots; i++) {
        free(g->slots[i].filters);
        free(g->slots[i].id);
    }
    free(g->slots);
    free(g->text);
    free(g->where);
    free(g);
}

const char *tp_gate_text(const tp_gate *g) { return g->text; }
const char *tp_gate_where(const tp_gate *g) { return g->where; }
