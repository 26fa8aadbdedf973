/*
 * A pipeline's gates (docs/gates.md): the top-level `fail_if:` list, the
 * command line's --fail-if and --fail-if-slower, each checked against the
 * results the pipeline declares when it loads, and run after a run whose
 * stages all succeeded (exit 3 when one trips).
 */
#include "tp_gate.h"
#include "tp_pipeline.h"
#include "tp_result.h"
#include "tp_schema.h"

#include <stdlib.h>
#include <string.h>

void tp_gate_list_free(tp_gate_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        tp_gate_free(l->v[i]);
    free(l->v);
    free(l->slower);
    memset(l, 0, sizeof *l);
}

static int list_add(tp_gate_list *l, tp_gate *g, double slower)
{
    tp_gate **v = realloc(l->v, (l->n + 1) * sizeof *v);
    if (v == NULL)
        return TP_ENOMEM;
    l->v = v;
    double *s = realloc(l->slower, (l->n + 1) * sizeof *s);
    if (s == NULL)
        return TP_ENOMEM;
    l->slower = s;
    l->v[l->n] = g;
    l->slower[l->n++] = slower;
    return TP_OK;
}

/* ---------------------------------------------------------------- schema */

static int schema_add(tp_gate_schema *s, const char *stage_id, const tp_result_decl *decls)
{
    for (const tp_result_decl *r = decls; r && r->name; r++) {
        tp_gate_result *v = realloc(s->v, (s->n + 1) * sizeof *v);
        if (v == NULL)
            return TP_ENOMEM;
        s->v = v;
        size_t len = strlen(stage_id) + strlen(r->name) + 2;
        if ((v[s->n].id = malloc(len)) == NULL)
            return TP_ENOMEM;
        snprintf(v[s->n].id, len, "%s%s%s", stage_id, *r->name ? "." : "", r->name);
        v[s->n++].decl = r;
    }
    return TP_OK;
}

int tp_gate_schema_of(const tp_pipeline *p, tp_gate_schema *s)
{
    memset(s, 0, sizeof *s);
    int rc = TP_OK;
    for (size_t i = 0; i < p->n && rc == TP_OK; i++) {
        const pstage *st = &p->stages[i];
        if (st->desc && st->id)
            rc = schema_add(s, st->id, tp_schema_of(st->desc, st->config));
        for (size_t k = 0; k < st->n_reqs && rc == TP_OK; k++)
            rc = schema_add(s, st->reqs[k].id, tp_schema_of(st->reqs[k].desc, st->reqs[k].config));
    }
    return rc;
}

void tp_gate_schema_free(tp_gate_schema *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i].id);
    free(s->v);
    memset(s, 0, sizeof *s);
}

/* ---------------------------------------------------------------- adding */

/* One expression compiled into p's gates; problems at file:line:col + the
 * column in the text (file NULL: the command line, "--fail-if LINE:COL"). */
static int add_one(tp_pipeline *p, const tp_gate_schema *s, const char *text, const char *file,
                   int line, int col, double slower, tp_diags *d)
{
    char where[512], err[1024];
    if (file)
        snprintf(where, sizeof where, "%s:%d:%d", file, line, col);
    else
        snprintf(where, sizeof where, "--fail-if %d", line);
    int at = 0;
    tp_gate *g = tp_gate_compile(text, s, where, err, sizeof err, &at);
    if (g == NULL) {
        if (file)
            tp_diags_add(d, file, line, col + at - 1, "error: fail_if: %s", err);
        else
            tp_diags_add(d, NULL, 0, 0, "--fail-if %d:%d: error: %s (in '%s')", line, at, err,
                         text);
        return TP_EINVAL;
    }
    if (list_add(&p->gates, g, slower) != TP_OK) {
        tp_gate_free(g);
        tp_diags_add(d, file, line, col, "error: out of memory");
        return TP_ENOMEM;
    }
    return TP_OK;
}

void tp_gate_load_yaml(tp_pipeline *p, const void *node_, const char *file, tp_diags *d)
{
    const tp_ynode *node = node_;
    if (node == NULL)
        return;
    tp_gate_schema s;
    if (tp_gate_schema_of(p, &s) != TP_OK) {
        tp_diags_add(d, file, node->line, node->col, "error: out of memory");
        tp_gate_schema_free(&s);
        return;
    }
    size_t n = node->type == TP_YNODE_SEQ ? node->n : 1;
    for (size_t i = 0; i < n; i++) {
        const tp_ynode *it = node->type == TP_YNODE_SEQ ? node->items[i] : node;
        if (it->type != TP_YNODE_SCALAR)
            tp_diags_add(d, file, it->line, it->col,
                         "error: fail_if must be a gate expression or a list of them, such as "
                         "- 'kernels.sum_us > 5000'");
        else
            add_one(p, &s, it->text, file, it->line, it->col + (it->quoted ? 1 : 0), NAN, d);
    }
    tp_gate_schema_free(&s);
}

/* --fail-if-slower P: `<R>.slower_percent > P` for every result declaring
 * that column (diff's summary). */
static int add_slower(tp_pipeline *p, const tp_gate_schema *s, double limit, tp_diags *d)
{
    size_t added = 0;
    int rc = TP_OK;
    for (size_t i = 0; i < s->n && rc == TP_OK; i++) {
        const tp_result_decl *r = s->v[i].decl;
        for (size_t c = 0; r && c < r->n_cols; c++)
            if (strcmp(r->cols[c].name, "slower_percent") == 0) {
                char text[600];
                snprintf(text, sizeof text, "`%s`.slower_percent > %.17g", s->v[i].id, limit);
                rc = add_one(p, s, text, NULL, 0, 0, limit, d);
                added++;
            }
    }
    if (rc == TP_OK && added == 0) {
        tp_diags_add(d, NULL, 0, 0, "pipeline: error: --fail-if-slower needs a diff analysis in "
                     "the pipeline (trace: [base, test]), whose summary has slower_percent");
        rc = TP_EINVAL;
    }
    return rc;
}

int tp_pipeline_add_gates(tp_pipeline *p, const char *const *exprs, size_t n, double slower,
                          tp_diags *d)
{
    if (n == 0 && isnan(slower))
        return TP_OK;
    tp_gate_schema s;
    int rc = tp_gate_schema_of(p, &s), bad = 0;
    for (size_t i = 0; i < n && rc != TP_ENOMEM; i++)
        bad |= add_one(p, &s, exprs[i], NULL, (int)i + 1, 1, NAN, d) != TP_OK;
    if (rc == TP_OK && !isnan(slower))
        bad |= add_slower(p, &s, slower, d) != TP_OK;
    tp_gate_schema_free(&s);
    return rc != TP_OK ? rc : bad ? TP_EINVAL : TP_OK;
}

/* --------------------------------------------------------------- running */

/* "the test run is 37.68 % slower than the base (result r.summary, median
 * iteration)", "... 2.40 % faster than ...", "... as fast as ...". */
static void say_change(char *out, size_t size, double pct, const tp_result *r)
{
    const char *basis = r ? tp_result_meta_get(r, "run_time") : NULL;
    char words[48];
    if (pct == 0)
        snprintf(words, sizeof words, "as fast as");
    else
        snprintf(words, sizeof words, "%.2f %% %s than", fabs(pct), pct > 0 ? "slower" : "faster");
    snprintf(out, size, "the test run is %s the base (result %s%s%s)", words,
             r ? tp_result_get_id(r) : "?", basis ? ", " : "", basis ? basis : "");
}

static void report(const tp_gate *g, double slower, const tp_gate_outcome *o, int verbosity,
                   FILE *f)
{
    int tripped = o->trips > 0;
    if (!isnan(slower)) {
        char said[512];
        say_change(said, sizeof said, o->first_value, o->first_result);
        if (tripped)
            tp_print_line(f, "pipeline: %s, more than --fail-if-slower %g", said, slower);
        else if (verbosity > 0 && !isnan(o->first_value))
            tp_print_line(f, "pipeline: %s: within --fail-if-slower %g", said, slower);
        return;
    }
    if (tripped)
        tp_print_line(f, "pipeline: gate tripped (%s): %s: %s%s%zu of %zu row(s) trip",
                      tp_gate_where(g), tp_gate_text(g), o->detail, o->detail[0] ? "; " : "",
                      o->trips, o->rows);
    else if (verbosity > 1)
        tp_print_line(f, "pipeline: gate held (%s): %s (%zu row(s))", tp_gate_where(g),
                      tp_gate_text(g), o->rows);
}

static const tp_result *run_result(const void *run, const char *id)
{
    return tp_run_result(run, id);
}

int tp_pipeline_check_gates(const tp_pipeline *p, const tp_run *run, int verbosity, FILE *f)
{
    int rc = TP_EXIT_OK;
    for (size_t i = 0; p && run && i < p->gates.n; i++) {
        tp_gate_outcome o;
        char err[512];
        if (tp_gate_eval(p->gates.v[i], run_result, run, &o, err, sizeof err) != TP_OK) {
            tp_print_line(f, "pipeline: error: gate (%s): %s: %s", tp_gate_where(p->gates.v[i]),
                          tp_gate_text(p->gates.v[i]), err);
            rc = tp_exit_worst(rc, TP_EXIT_FAIL);
            continue;
        }
        if (!o.evaluated) {
            if (verbosity > 1)
                tp_print_line(f, "pipeline: gate not evaluated (%s): %s: a result it reads was "
                              "not made by this run", tp_gate_where(p->gates.v[i]),
                              tp_gate_text(p->gates.v[i]));
            continue;
        }
        report(p->gates.v[i], p->gates.slower[i], &o, verbosity, f);
        if (o.trips > 0)
            rc = tp_exit_worst(rc, TP_EXIT_SLOWER);
    }
    return rc;
}
