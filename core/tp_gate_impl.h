/* Core-internal: the layout of a compiled gate, for tp_gate.c (parsing,
 * checking) and tp_gate_eval.c (evaluation) only. */
#ifndef TRACEPIPE_TP_GATE_IMPL_H
#define TRACEPIPE_TP_GATE_IMPL_H

#define PCRE2_CODE_UNIT_WIDTH 8
#include "tp_gate.h"

#include <pcre2.h>

typedef enum gkind {
    G_NUM,   /* a number */
    G_STR,   /* a string */
    G_SEV,   /* info, warn, error: num holds the rank */
    G_REF,   /* a column (or, in count(), a whole result) */
    G_AGG,   /* sum max min count mean over the rows of one result */
    G_NEG,   /* -a */
    G_ARITH, /* a + - * / b */
    G_CMP,   /* a < <= > >= == != b */
    G_MATCH, /* a =~ "regex" */
    G_NOT,
    G_AND,
    G_OR
} gkind;

/* comparison operators (G_CMP op) */
enum { OP_LT, OP_LE, OP_GT, OP_GE, OP_EQ, OP_NE };
/* aggregates (G_AGG op) */
enum { AGG_SUM, AGG_MAX, AGG_MIN, AGG_COUNT, AGG_MEAN };
/* value types, checked before any trace is read */
enum { TY_NUM = 1, TY_TEXT, TY_SEV, TY_BOOL, TY_ANY };

typedef struct gnode gnode;
struct gnode {
    gkind kind;
    int op;          /* G_ARITH: '+' '-' '*' '/'; G_CMP: OP_*; G_AGG: AGG_* */
    int pos, end;    /* the node's text: [pos, end) of the expression */
    int type;        /* TY_*: set by checking */
    double num;      /* G_NUM, G_SEV */
    char *text;      /* G_STR: the string; G_REF: the dotted name as written */
    gnode *a, *b;    /* operands; G_AGG: a is the argument */
    gnode *filter;   /* G_REF: `[...]` after the name, or NULL */
    char *col;       /* G_REF: the column, or NULL for a whole result */
    int dotted;      /* G_REF: names its result (else a column of the same row) */
    int slot;        /* G_REF: whose row it reads; G_AGG: the rows it ranges over */
    int rcol;        /* G_REF: the column's index in the run's result, -1: none */
    pcre2_code *re;  /* G_MATCH */
    gnode *next_all; /* every node of the gate, for freeing */
};

/* The rows of one result that an expression ranges over: the top level
 * has one slot per result it names, each aggregate one of its own. */
typedef struct gslot {
    const tp_gate_result *res; /* while checking (the schema is the loader's) */
    char *id;        /* the result's id, kept */
    gnode **filters; /* every `[...]` written on a reference to it: all must hold */
    size_t n_filters;
    int top;         /* 1: combined at the top level; 0: an aggregate's */
    const tp_result *r; /* at evaluation */
} gslot;

struct tp_gate {
    char *text, *where;
    gnode *root;
    gnode *all;
    gslot *slots;
    size_t n_slots;
};

/* The first problem of an expression: its message and 0-based offset. */
typedef struct tp_gate_error {
    char *text;
    size_t size;
    int pos;
    int failed;
} tp_gate_error;
/* Records the problem, unless one is recorded already. */
void tp_gate_fail(tp_gate_error *e, int pos, const char *fmt, ...) TP_PRINTF(3, 4);

/* Resolves every name of g against schema, gives every row reference its
 * slot and checks the types (tp_gate_check.c); a problem goes to e. */
void tp_gate_check(tp_gate *g, const tp_gate_schema *schema, tp_gate_error *e);

#endif
