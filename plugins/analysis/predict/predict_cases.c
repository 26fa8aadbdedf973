/*
 * analysis predict, mode cases: the cases written in the pipeline
 * ("ID: MODEL k=v ..."), parsed, evaluated by their model, one row each.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "predict_internal.h"
#include "predict_results.h"

/* ---- one case */

typedef struct pr_case {
    char id[64], model[32], op[64];
    pm_emb emb;
    int64_t s, fc[4]; /* fc: B M N K */
    double flops, bytes;
    int have_shmem;
} pr_case;

static int set_key(pr_case *c, const char *k, const char *v, char *err, size_t errsz)
{
    char *end;
    errno = 0;
    if (strcmp(k, "shmem") == 0) {
        c->have_shmem = 1;
        c->emb.shmem = strcmp(v, "true") == 0 || strcmp(v, "yes") == 0 || strcmp(v, "1") == 0;
        if (!c->emb.shmem && strcmp(v, "false") && strcmp(v, "no") && strcmp(v, "0")) {
            snprintf(err, errsz, "shmem=%s: true or false", v);
            return -1;
        }
        return 0;
    }
    if (strcmp(k, "op") == 0) {
        snprintf(c->op, sizeof c->op, "%.63s", v);
        return 0;
    }
    if (strcmp(k, "flops") == 0 || strcmp(k, "bytes") == 0) {
        double d = strtod(v, &end);
        if (*end || end == v || errno) {
            snprintf(err, errsz, "%s=%s: a number", k, v);
            return -1;
        }
        *(k[0] == 'f' ? &c->flops : &c->bytes) = d;
        return 0;
    }
    long long n = strtoll(v, &end, 10);
    if (*end || end == v || errno || n < 0) {
        snprintf(err, errsz, "%s=%s: a whole number", k, v);
        return -1;
    }
    int fc = strcmp(c->model, "fc") == 0;
    int64_t *dst = fc && strcmp(k, "B") == 0 ? &c->fc[0]
                   : fc && strcmp(k, "M") == 0 ? &c->fc[1]
                   : fc && strcmp(k, "N") == 0 ? &c->fc[2]
                   : fc && strcmp(k, "K") == 0 ? &c->fc[3]
                   : strcmp(k, "B") == 0   ? &c->emb.B
                   : strcmp(k, "E") == 0 ? &c->emb.E
                   : strcmp(k, "T") == 0 ? &c->emb.T
                   : strcmp(k, "L") == 0 ? &c->emb.L
                   : strcmp(k, "D") == 0 ? &c->emb.D
                   : strcmp(k, "R") == 0 ? &c->emb.R
                   : strcmp(k, "s") == 0 ? &c->s
                                         : NULL;
    if (dst == NULL) {
        snprintf(err, errsz, "unknown input '%s'", k);
        return -1;
    }
    *dst = n;
    return 0;
}

/* "ID: MODEL k=v k=v" */
static int parse_case(const char *text, pr_case *c, char *err, size_t errsz)
{
    memset(c, 0, sizeof *c);
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", text);
    char *colon = strchr(buf, ':');
    char *rest = buf;
    if (colon) {
        *colon = '\0';
        snprintf(c->id, sizeof c->id, "%.63s", buf);
        rest = colon + 1;
    }
    char *save = NULL;
    char *tok = strtok_r(rest, " \t", &save);
    if (tok == NULL) {
        snprintf(err, errsz, "no model");
        return -1;
    }
    snprintf(c->model, sizeof c->model, "%.31s", tok);
    while ((tok = strtok_r(NULL, " \t", &save)) != NULL) {
        char *eq = strchr(tok, '=');
        if (eq == NULL) {
            snprintf(err, errsz, "'%s': inputs are k=v", tok);
            return -1;
        }
        *eq = '\0';
        if (set_key(c, tok, eq + 1, err, errsz) != 0)
            return -1;
    }
    return 0;
}

static int eval_case(const pr_case *c, const tp_preset *p, double l2_gbps, const pr_table *fc,
                     double *us, char *err, size_t errsz)
{
    if (strcmp(c->model, "fc") == 0) {
        double ef, eb;
        if (fc == NULL || fc->n == 0) {
            snprintf(err, errsz, "fc needs fc_table or fc_table_input (with rows)");
            return -1;
        }
        return pm_fc_predict(fc->rows, fc->n, c->fc, p, us, &ef, &eb, err, errsz);
    }
    if (strcmp(c->model, "fwd") == 0) {
        if (!c->have_shmem) {
            snprintf(err, errsz, "fwd needs shmem=true|false");
            return -1;
        }
        return pm_emb_forward(&c->emb, p, l2_gbps > 0 ? l2_gbps : p->l2_gbps, us, err, errsz);
    }
    if (strcmp(c->model, "sgd") == 0)
        return pm_emb_sgd(&c->emb, p, us);
    if (strcmp(c->model, "adagrad") == 0)
        return pm_emb_adagrad(&c->emb, p, us);
    if (strcmp(c->model, "elementwise") == 0) {
        const pm_elementwise *e = pm_elementwise_find(c->op);
        if (e == NULL) {
            snprintf(err, errsz, "no element-wise model for op '%s'", c->op);
            return -1;
        }
        *us = pm_elementwise_us(e, c->s, p);
        return 0;
    }
    if (strcmp(c->model, "roofline") == 0) {
        *us = pm_roofline(c->flops, c->bytes, p);
        return 0;
    }
    snprintf(err, errsz, "unknown model '%s' (fwd, sgd, adagrad, elementwise, roofline, fc)",
             c->model);
    return -1;
}

/* Mode cases: one row per case of the option `cases`. */
int pr_cases_mode(tp_stage *st, const tp_preset *p, const pr_config *cfg)
{
    tp_result *r = tp_result_declared(st, NULL);
    if (r == NULL)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    tp_result_set_meta(st, r, "title", "Model predictions");
    tp_result_set_meta(st, r, "preset", p->name);
    pr_table table = {0};
    int rc = pr_load_table(st, cfg, &table);
    if (rc != TP_OK) {
        tp_free(table.rows);
        return rc;
    }
    for (size_t i = 0; i < cfg->cases.n && rc == TP_OK; i++) {
        pr_case c;
        char err[256] = "";
        double us = 0;
        int ok = parse_case(cfg->cases.items[i], &c, err, sizeof err) == 0 &&
                 eval_case(&c, p, cfg->l2_gbps, &table, &us, err, sizeof err) == 0;
        if (!ok && c.model[0] == '\0') {
            tp_free(table.rows);
            return tp_fail(st, TP_EINVAL, "cases[%zu]: %s", i, err);
        }
        const char *inputs = strchr(cfg->cases.items[i], ':');
        inputs = inputs ? inputs + 1 : cfg->cases.items[i];
        while (*inputs == ' ')
            inputs++;
        while (*inputs && *inputs != ' ') /* the model's name */
            inputs++;
        while (*inputs == ' ')
            inputs++;
        size_t row;
        rc = tp_result_add_row(st, r, &row);
        rc = rc ? rc : tp_result_set_str(st, r, row, pr_cases_id, c.id[0] ? c.id : c.model);
        rc = rc ? rc : tp_result_set_str(st, r, row, pr_cases_model, c.model);
        rc = rc ? rc : tp_result_set_str(st, r, row, pr_cases_inputs, inputs);
        if (rc == TP_OK && ok) /* a case is one kernel */
            rc = tp_result_set_f64(st, r, row, pr_cases_predicted_us, pm_floor(us, 1, p));
        if (rc == TP_OK && !ok)
            rc = tp_result_set_str(st, r, row, pr_cases_error, err);
    }
    tp_free(table.rows);
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}
