/* Core-internal: gates (docs/gates.md).  A gate is an expression over the
 * columns of a run's results (`--fail-if EXPR`, a pipeline's top-level
 * `fail_if:` list); a run whose results make one true exits 3.
 *
 *   tp_gate.c          the language: lexer, parser, checking against the
 *                      declared result schemas (before any trace is read)
 *   tp_gate_eval.c     evaluation on a run's results, the one-line reports
 *   tp_gate_pipeline.c a pipeline's gates: `fail_if:`, --fail-if,
 *                      --fail-if-slower, running them after a run
 */
#ifndef TRACEPIPE_TP_GATE_H
#define TRACEPIPE_TP_GATE_H

#include "tp_core.h"

#include <math.h>
#include <stddef.h>

typedef struct tp_gate tp_gate;

/* A result a pipeline declares: its full id ("k", "k.summary") and its
 * declaration (columns, types); what gates are checked against. */
typedef struct tp_gate_result {
    char *id;
    const tp_result_decl *decl;
} tp_gate_result;

typedef struct tp_gate_schema {
    tp_gate_result *v;
    size_t n;
} tp_gate_schema;

/* Parses and checks text against schema.  NULL with a message (no
 * position in it) in err and the 1-based column in text in *col.  `where`
 * names the gate in reports ("--fail-if 1", "p.yaml:4:5"). */
tp_gate *tp_gate_compile(const char *text, const tp_gate_schema *schema, const char *where,
                         char *err, size_t errsz, int *col);
void tp_gate_free(tp_gate *g);
const char *tp_gate_text(const tp_gate *g);
const char *tp_gate_where(const tp_gate *g);

/* ---- evaluation (tp_gate_eval.c) */
typedef struct tp_gate_outcome {
    int evaluated;     /* 0: a result it names was not made by this run */
    size_t trips;      /* row combinations that made it true */
    size_t rows;       /* row combinations looked at */
    char detail[1024]; /* the first tripping row: the values, which row */
    const tp_result *first_result; /* the first result it iterates (for notes) */
    double first_value;            /* the value of its first column reference there */
} tp_gate_outcome;

/* Where the results are: the result of that id, or NULL (a run's:
 * tp_run_result; the unit tests' own tables). */
typedef const tp_result *(*tp_gate_lookup)(const void *ctx, const char *id);

/* Evaluates g on the results find gives.  TP_OK, or TP_EINVAL with err set
 * when the rows to combine are too many (more than 10^7). */
int tp_gate_eval(tp_gate *g, tp_gate_lookup find, const void *ctx, tp_gate_outcome *out,
                 char *err, size_t errsz);

/* ---- a pipeline's gates (tp_gate_pipeline.c) */
typedef struct tp_gate_list {
    tp_gate **v;
    double *slower; /* per gate: --fail-if-slower's limit, NaN for others */
    size_t n;
} tp_gate_list;

void tp_gate_list_free(tp_gate_list *l);
/* The results p declares (its stages' and their required analyses'). */
int tp_gate_schema_of(const tp_pipeline *p, tp_gate_schema *s);
void tp_gate_schema_free(tp_gate_schema *s);
/* Top-level `fail_if:` (a string or a list of strings): every problem in d
 * at FILE:LINE:COL of the expression's character. */
void tp_gate_load_yaml(tp_pipeline *p, const void *node, const char *file, tp_diags *d);
/* `--fail-if EXPR`s (problems as "--fail-if N:COL") and --fail-if-slower
 * (NaN: none) added to p's gates.  TP_OK, or TP_EINVAL with d filled. */
int tp_pipeline_add_gates(tp_pipeline *p, const char *const *exprs, size_t n, double slower,
                          tp_diags *d);
/* Runs p's gates on run (a run whose stages all succeeded): each tripped
 * gate one line on f; verbose: the gates that held too.  TP_EXIT_OK,
 * TP_EXIT_SLOWER (a gate tripped) or TP_EXIT_FAIL. */
int tp_pipeline_check_gates(const tp_pipeline *p, const tp_run *run, int verbosity, FILE *f);

#endif
