/*
 * analysis predict (issue 15): the performance models of ANALYSES.md
 * section 5 (predict_models.h) with a device preset (section 5.1,
 * the SDK's tp_sdk_presets.h), evaluated
 *
 * - on cases written in the pipeline: seed 004's embedding lookups
 *   (forward, SGD and row-wise Adagrad backward), element-wise ops, the
 *   generic roofline, the FC benchmark-table model:
 *
 *     cases:
 *       - "F1: fwd B=4096 E=500000 T=197 L=32 D=32 R=128 shmem=true"
 *       - "R1: elementwise op=relu s=2097152"
 *       - "Q1: fc B=4 M=512 N=1024 K=256"
 *
 *   one row per case: id, model, inputs, predicted_us, or the error (a case
 *   the model refuses, e.g. B > E, is a row with its message, not a failure);
 *
 * - or on the ops of a trace: each op that launched GPU work against the
 *   work's measured time (fbgemm's embedding lookups: predict_embedding.c;
 *   GEMMs by the table model when a table is given: predict_fc.c), per op
 *   type GMAE, and with e2e: true each iteration end to end (section 6).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk.h>
#include <tracepipe/tp_sdk_iter.h>

#include <tracepipe/tp_sdk_gemm.h>
#include "predict_embedding_index.h"
#include "predict_fc.h"
#include "predict_models.h"

typedef struct pr_config {
    const char *preset;
    const char *preset_file;
    double l2_gbps;
    tp_strlist cases;
    const char *fc_table;
    const char *fc_table_input;
    const char *kernel_prefix;
    int e2e;
    const char *step_prefix;
    tp_strlist skip;
    double kernel_overhead_us;
    const char *embedding_forward, *embedding_backward;
    int64_t embedding_dim, rows_per_block;
} pr_config;

static const tp_option pr_options[] = {
    TP_OPTION_STRING("preset", pr_config, preset, NULL,
                     "device preset: v100_seed, a100_sxm4_80gb, h100_sxm5_80gb, mi300x (default: "
                     "from the trace's device name, else v100_seed)"),
    TP_OPTION_STRING("preset_file", pr_config, preset_file, NULL,
                     "your device's figures instead of a preset: JSON or flat YAML (dram_gbps, "
                     "l2_gbps, fp32_gflops, tf32_gflops, fp16_gflops, bf16_gflops, sms, l2_bytes) "
                     "or a TraceLens arch JSON"),
    TP_OPTION_FLOAT("l2_gbps", pr_config, l2_gbps, "0", 0, 1e9,
                    "L2 bandwidth for the forward embedding model when the preset has none "
                    "(GB/s; 0: the preset's)"),
    TP_OPTION_LIST("cases", pr_config, cases,
                   "model cases, \"ID: MODEL k=v ...\" (fwd, sgd, adagrad: B E T L D R shmem; "
                   "elementwise: op s; roofline: flops bytes; fc: B M N K)"),
    TP_OPTION_STRING("fc_table", pr_config, fc_table, NULL,
                     "benchmark table for fc cases: CSV batch_size,M,N,K,kernel_name,"
                     "kernel_runtime (us); on a trace, GEMM ops by this table"),
    TP_OPTION_STRING("fc_table_input", pr_config, fc_table_input, NULL,
                     "the benchmark table is this result of an earlier stage (a csv_table "
                     "reader; list it in input: too) instead of fc_table's file"),
    TP_OPTION_STRING("kernel_prefix", pr_config, kernel_prefix, "",
                     "table rows kept: kernel names starting with this (seed 004: volta)"),
    TP_OPTION_BOOL("e2e", pr_config, e2e, "false",
                   "also predict each iteration end to end (section 6) from the ops' predictions "
                   "and overheads' T1-T5 means (input: the overheads stage)"),
    TP_OPTION_STRING("step_prefix", pr_config, step_prefix, NULL,
                     "e2e: override of the pipeline's iterations: marker for this stage: a name "
                     "prefix of the iteration markers"),
    TP_OPTION_LIST("skip", pr_config, skip,
                   "e2e: ops left out, by a part of their name (default: SliceBackward, "
                   "FusedDropoutBackward)"),
    TP_OPTION_FLOAT("kernel_overhead_us", pr_config, kernel_overhead_us, "0", 0, 1e9,
                    "e2e: added to each predicted kernel (0 as in 2021, 4 in 2022, 5 in 2023)"),
    TP_OPTION_STRING("embedding_forward", pr_config, embedding_forward,
                     "embedding_codegen_lookup_",
                     "a part of the names of fbgemm's forward embedding lookups (5.2 on a trace)"),
    TP_OPTION_STRING("embedding_backward", pr_config, embedding_backward, "LookupFunction_",
                     "a part of the names of their backward autograd nodes (5.3, 5.4)"),
    TP_OPTION_INT("embedding_dim", pr_config, embedding_dim, "0", 0, 1e9,
                  "embedding dimension D of the lookups (0: from the backward node's gradient "
                  "[B, T*D])"),
    TP_OPTION_INT("rows_per_block", pr_config, rows_per_block, "0", 0, 1e9,
                  "R of the forward model (0: block.y of the lookup's longest kernel)"),
    TP_OPTION_END};

/* A preset read from preset_file, kept from init (so a bad file fails
 * before any trace is read) to run. */
typedef struct pr_state {
    tp_preset file;
    char name[256];
    int have_file;
} pr_state;

static int pr_init(tp_stage *st, const void *config, void **state)
{
    const pr_config *cfg = config;
    if (cfg->preset && cfg->preset_file)
        return tp_fail(st, TP_EINVAL, "give preset or preset_file, not both");
    if (cfg->fc_table && cfg->fc_table_input)
        return tp_fail(st, TP_EINVAL, "give fc_table or fc_table_input, not both");
    if (cfg->preset && tp_preset_find(cfg->preset) == NULL)
        return tp_fail(st, TP_EINVAL, "preset: unknown device '%s' (v100_seed, a100_sxm4_80gb, "
                       "h100_sxm5_80gb, mi300x)", cfg->preset);
    pr_state *s = tp_calloc(1, sizeof *s);
    if (s == NULL)
        return TP_ENOMEM;
    *state = s;
    if (cfg->preset_file) {
        int rc = tp_preset_load(st, cfg->preset_file, &s->file, s->name, sizeof s->name);
        if (rc != TP_OK)
            return rc;
        s->have_file = 1;
    }
    return TP_OK;
}

static void pr_destroy(tp_stage *st, void *state)
{
    (void)st;
    tp_free(state);
}

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

/* ---- the benchmark table of fc cases */

typedef struct pr_table {
    pm_fc_row *rows;
    size_t n;
} pr_table;

/* One CSV line's fields (double quotes honoured), in place. */
static size_t split_csv(char *line, char **f, size_t max)
{
    size_t n = 0;
    char *p = line;
    while (n < max) {
        char *out = p;
        f[n++] = p;
        int quoted = *p == '"';
        if (quoted)
            p++;
        while (*p && (quoted || (*p != ',' && *p != '\n' && *p != '\r'))) {
            if (quoted && *p == '"') {
                if (p[1] == '"') {
                    *out++ = '"';
                    p += 2;
                    continue;
                }
                quoted = 0;
                p++;
                continue;
            }
            *out++ = *p++;
        }
        char end = *p;
        *out = '\0';
        if (end != ',')
            break;
        p++;
    }
    return n;
}

/* The table: rows with every field, kernels starting with prefix. */
static int read_table(tp_stage *st, const char *path, const char *prefix, pr_table *t)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return tp_fail(st, TP_EIO, "%s: cannot open: %s", path, strerror(errno));
    char line[4096];
    size_t line_no = 0, cap = 0;
    int col[6] = {-1, -1, -1, -1, -1, -1}, rc = TP_OK;
    static const char *const names[] = {"batch_size", "M", "N", "K", "kernel_name",
                                         "kernel_runtime"};
    while (rc == TP_OK && fgets(line, sizeof line, f)) {
        char *fld[32];
        size_t nf = split_csv(line, fld, 32);
        if (++line_no == 1) {
            for (size_t i = 0; i < nf; i++)
                for (int k = 0; k < 6; k++)
                    if (strcmp(fld[i], names[k]) == 0)
                        col[k] = (int)i;
            for (int k = 0; k < 6 && rc == TP_OK; k++)
                if (col[k] < 0)
                    rc = tp_fail(st, TP_EFORMAT, "%s:1: no column '%s' (batch_size,M,N,K,"
                                 "kernel_name,kernel_runtime)", path, names[k]);
            continue;
        }
        int empty = 0;
        for (int k = 0; k < 6; k++)
            empty |= (size_t)col[k] >= nf || fld[col[k]][0] == '\0';
        if (empty || strncmp(fld[col[4]], prefix, strlen(prefix)) != 0)
            continue; /* the seed drops rows with an empty field */
        pm_fc_row r;
        char *end;
        for (int k = 0; k < 4 && rc == TP_OK; k++) {
            r.v[k] = strtoll(fld[col[k]], &end, 10);
            if (*end)
                rc = tp_fail(st, TP_EFORMAT, "%s:%zu: %s '%s' is not a whole number", path,
                             line_no, names[k], fld[col[k]]);
        }
        r.runtime_us = strtod(fld[col[5]], &end);
        if (rc == TP_OK && (*end || !(r.runtime_us > 0)))
            rc = tp_fail(st, TP_EFORMAT, "%s:%zu: kernel_runtime '%s' is not a positive number",
                         path, line_no, fld[col[5]]);
        if (rc == TP_OK && t->n == cap) {
            cap = cap ? cap * 2 : 64;
            pm_fc_row *g = tp_realloc(t->rows, cap * sizeof *g);
            if (g == NULL)
                rc = tp_fail(st, TP_ENOMEM, "out of memory");
            else
                t->rows = g;
        }
        if (rc == TP_OK)
            t->rows[t->n++] = r;
    }
    fclose(f);
    if (rc == TP_OK && line_no == 0)
        rc = tp_fail(st, TP_EFORMAT, "%s: empty table", path);
    return rc;
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

/* The option's preset; else the trace's device's; else (no trace, cases)
 * the seed's v100_seed; NULL after saying why for a trace of another
 * device. */
static const tp_preset *preset_of(tp_stage *st, const pr_config *cfg, const pr_state *s)
{
    if (s && s->have_file)
        return &s->file;
    if (cfg->preset)
        return tp_preset_find(cfg->preset);
    const tp_trace *t = tp_stage_trace(st);
    const char *dev = t ? tp_trace_info_str(t, "device.0.name") : NULL;
    const char *p = tp_preset_for_device(dev);
    if (p) {
        tp_log(st, TP_LOG_INFO, "preset %s from the trace's device '%s'", p, dev);
        return tp_preset_find(p);
    }
    if (t != NULL && cfg->cases.n == 0) {
        tp_fail(st, TP_EINVAL, "no preset for the trace's device%s%s%s: give preset: "
                "(v100_seed, a100_sxm4_80gb, h100_sxm5_80gb, mi300x)", dev ? " '" : "",
                dev ? dev : " (the trace names none)", dev ? "'" : "");
        return NULL;
    }
    return tp_preset_find("v100_seed");
}

/* ------------------------------------------------------------ traces */

/* Per op occurrence that launched GPU work: its model's prediction. */
typedef struct pr_occ {
    int32_t row;
    tp_str name, dims;
    const char *model; /* NULL: unsupported */
    double predicted_us, measured_us;
} pr_occ;

/* "aten::relu" -> "relu"; "autograd::engine::evaluate_function: ReluBackward0" and
 * "ReluBackward0" -> "ReluBackward" (the element-wise table's names). */
static void model_name(const char *name, char *out, size_t size)
{
    const char *colon = strrchr(name, ':');
    const char *base = strncmp(name, "aten::", 6) == 0 ? name + 6
                       : colon && strstr(name, "evaluate_function") ? colon + 1
                                                                     : name;
    while (*base == ' ')
        base++;
    snprintf(out, size, "%s", base);
    size_t n = strlen(out);
    while (n > 0 && out[n - 1] >= '0' && out[n - 1] <= '9' && strstr(out, "Backward"))
        out[--n] = '\0';
}

/* Models of other plugins: F64 extension columns named "predict.MODEL"
 * that an analysis before predict filled, per call in µs, on the rows of
 * the ops it models (docs/plugins.md, "A model for predict"). */
#define PR_MODEL_PREFIX "predict."

static const char *registered_model(const tp_trace *t, size_t row, double *us)
{
    for (size_t k = 0; k < tp_trace_ext_count(t); k++) {
        const char *name = tp_trace_ext_name(t, (int)k);
        if (strncmp(name, PR_MODEL_PREFIX, sizeof PR_MODEL_PREFIX - 1) != 0 ||
            tp_trace_ext_type(t, (int)k) != TP_COL_F64)
            continue;
        double v = ((const double *)tp_trace_ext_data(t, (int)k))[row];
        if (isfinite(v) && v >= 0) {
            *us = v;
            return name + sizeof PR_MODEL_PREFIX - 1;
        }
    }
    return NULL;
}

/* An embedding op met on the trace: its inputs, or why no model took it. */
typedef struct pr_emb_row {
    pr_occ occ; /* its model: occ.model */
    pe_emb_inputs x;
    char why[160];
} pr_emb_row;

/* What predict_op needs besides the op: the preset, the trace's
 * embedding ops and the FC benchmark table (NULL: none). */
typedef struct pr_models {
    const tp_preset *p;
    pe_options emb_opt;
    pe_index emb;
    pf_ops *fc;
} pr_models;

/* The op's model and prediction (per call), or NULL: a model another
 * plugin registered for it, else fbgemm's embedding lookups by 5.2-5.4
 * (predict_embedding.h), GEMMs by the roofline of their FLOPs and bytes
 * (section 4), element-wise ops by 5.6's table. An embedding op the models
 * cannot take fills e->why. */
static const char *predict_op(tp_stage *st, const tp_trace *t, size_t row, const pr_models *m,
                              double *us, tp_str *dims_id, pr_emb_row *e)
{
    const tp_preset *p = m->p;
    const tp_cols *c = tp_trace_cols(t);
    const char *name = tp_str_text(st, c->name[row]);
    size_t alen = 0, dlen = 0, tlen = 0;
    const char *args = tp_trace_args(t, row, &alen);
    const char *dims = args ? tp_json_get(args, alen, "Input Dims", &dlen) : NULL;
    const char *types = args ? tp_json_get(args, alen, "Input type", &tlen) : NULL;
    tp_gemm_shape sh;
    int have = dims && tp_gemm_parse_dims(dims, dlen, &sh);
    *dims_id = dims ? tp_intern(st, dims, dlen) : 0;
    const char *theirs = registered_model(t, row, us);
    if (theirs)
        return theirs;
    const char *emb = pe_predict(&m->emb, row, &m->emb_opt, p, &e->x, us, e->why, sizeof e->why);
    if (emb || e->why[0])
        return emb;
    double flops, elems;
    if (have && tp_gemm_is_name(name) && tp_gemm_counts(name, &sh, &flops, &elems)) {
        if (m->fc && pf_predict_op(st, m->fc, (int32_t)row, c->name[row], *dims_id, &sh, p, us) == 1)
            return PF_MODEL; /* the benchmark table (5.5); else (logged) the roofline */
        double bpe = tp_gemm_bpe_of(types, tlen);
        tp_preset q = *p;
        if (bpe == 2 && p->fp16 > 0)
            q.fp32 = p->fp16; /* half-precision products run at the FP16 peak */
        *us = pm_roofline(flops, elems * bpe, &q);
        return "roofline";
    }
    char base[256];
    model_name(name, base, sizeof base);
    const pm_elementwise *ew = pm_elementwise_find(base);
    if (have && ew && sh.n > 0) {
        *us = pm_elementwise_us(ew, (int64_t)tp_gemm_prod(sh.dim[0], sh.rank[0]), p);
        return "elementwise";
    }
    return NULL;
}

/* The rows of the ops' GPU work: per trace row, the time of the work it
 * launched as the innermost cpu_op above the launch (0 for most rows). */
static int64_t *owned_work(const tp_trace *t, const tp_hier_view *v, double *all_us)
{
    const tp_cols *c = tp_trace_cols(t);
    int64_t *owned = tp_calloc(c->n ? c->n : 1, sizeof *owned);
    if (owned == NULL)
        return NULL;
    *all_us = 0;
    for (size_t a = 0; a < c->n; a++) {
        if (!tp_ev_is_activity(c, a) || c->dur[a] < 0)
            continue;
        *all_us += (double)c->dur[a] / 1000.0;
        int32_t op = tp_hier_launching_op(c, v, a);
        if (op >= 0)
            owned[op] += c->dur[a];
    }
    return owned;
}

/* Each op occurrence owning GPU work (the innermost cpu_op above the
 * launch) with its measured time: the sum of that work's durations; the
 * embedding ops among them in *emb. */
static int occurrences(tp_stage *st, const tp_trace *t, pr_models *m, pr_occ **out,
                       size_t *nout, double *all_us, pr_emb_row **emb, size_t *nemb)
{
    const tp_cols *c = tp_trace_cols(t);
    tp_hier_view v;
    if (tp_hier_view_require(st, t, &v) != TP_OK)
        return TP_ENOTFOUND;
    int64_t *owned = owned_work(t, &v, all_us);
    if (owned == NULL || pe_index_build(st, t, &v, &m->emb_opt, &m->emb) != TP_OK) {
        tp_free(owned);
        return TP_ENOMEM;
    }
    size_t n = 0, ne = 0;
    for (size_t r = 0; r < c->n; r++) {
        n += owned[r] > 0;
        ne += owned[r] > 0 && m->emb.slot[r] >= 0;
    }
    pr_occ *o = tp_malloc((n ? n : 1) * sizeof *o);
    pr_emb_row *er = tp_calloc(ne ? ne : 1, sizeof *er);
    if (o == NULL || er == NULL) {
        tp_free(owned);
        tp_free(o);
        tp_free(er);
        return TP_ENOMEM;
    }
    size_t k = 0, ke = 0;
    for (size_t r = 0; r < c->n; r++) {
        if (owned[r] <= 0)
            continue;
        pr_occ *x = &o[k++];
        pr_emb_row e = {.why = ""};
        x->row = (int32_t)r;
        x->name = c->name[r];
        x->measured_us = (double)owned[r] / 1000.0;
        x->predicted_us = 0;
        x->model = predict_op(st, t, r, m, &x->predicted_us, &x->dims, &e);
        if (m->emb.slot[r] >= 0) {
            e.occ = *x;
            er[ke++] = e;
        }
    }
    tp_free(owned);
    *out = o;
    *nout = k;
    *emb = er;
    *nemb = ke;
    return TP_OK;
}

static int by_name_dims(const void *a, const void *b, void *ctx)
{
    tp_stage *st = ctx;
    const pr_occ *x = a, *y = b;
    int c = strcmp(tp_str_text(st, x->name), tp_str_text(st, y->name));
    if (c)
        return c;
    c = strcmp(x->dims ? tp_str_text(st, x->dims) : "", y->dims ? tp_str_text(st, y->dims) : "");
    return c ? c : (x->row > y->row) - (x->row < y->row);
}

static double rel_error(const pr_occ *x) { return fabs(x->predicted_us - x->measured_us) / x->measured_us; }

/* Error statistics of occurrences [from, to): GMAE (eps 0 unless an error
 * is 0, then the later code's 4e-4), mean, population std. */
static void error_stats(const pr_occ *o, size_t from, size_t to, double *gmae, double *mean,
                        double *sd)
{
    double sl = 0, se = 0, ss = 0;
    size_t n = to - from;
    int zero = 0;
    for (size_t i = from; i < to; i++)
        zero |= rel_error(&o[i]) == 0;
    for (size_t i = from; i < to; i++) {
        double e = rel_error(&o[i]);
        se += e;
        sl += log(e + (zero ? 4e-4 : 0));
    }
    *mean = se / (double)n;
    for (size_t i = from; i < to; i++)
        ss += (rel_error(&o[i]) - *mean) * (rel_error(&o[i]) - *mean);
    *sd = sqrt(ss / (double)n);
    *gmae = exp(sl / (double)n);
}

static tp_result *table(tp_stage *st, const char *name, const char *title,
                        const char *const *cols, const tp_coltype *types, int n)
{
    tp_result *r = tp_result_new(st, name);
    for (int i = 0; r && i < n; i++)
        if (tp_result_add_col(st, r, cols[i], types[i]) != i)
            r = NULL;
    if (r)
        tp_result_set_meta(st, r, "title", title);
    return r;
}

static int trace_results(tp_stage *st, pr_occ *o, size_t n, double all_us, const tp_preset *p)
{
    static const char *const c1[] = {"name", "input_dims", "model", "count", "measured_us",
                                     "predicted_us", "error_percent"};
    static const tp_coltype t1[] = {TP_COL_STR, TP_COL_STR, TP_COL_STR, TP_COL_I64,
                                    TP_COL_F64, TP_COL_F64, TP_COL_F64};
    static const char *const c2[] = {"op", "count", "measured_us", "gmae_percent",
                                     "mean_error_percent", "std_error_percent", "coverage_percent"};
    static const tp_coltype t2[] = {TP_COL_STR, TP_COL_I64, TP_COL_F64, TP_COL_F64,
                                    TP_COL_F64, TP_COL_F64, TP_COL_F64};
    static const char *const c3[] = {"name", "count", "measured_us"};
    static const tp_coltype t3[] = {TP_COL_STR, TP_COL_I64, TP_COL_F64};
    tp_result *ops = table(st, NULL, "Ops: measured vs predicted GPU time", c1, t1, 7);
    tp_result *sum = table(st, "summary", "Prediction error per op type", c2, t2, 7);
    tp_result *uns = table(st, "unsupported", "Ops with GPU work and no model", c3, t3, 3);
    if (ops == NULL || sum == NULL || uns == NULL)
        return TP_ENOMEM;
    tp_result_set_meta(st, ops, "preset", p->name);
    int rc = tp_sort(o, n, sizeof *o, by_name_dims, st);
    double covered = 0;
    size_t nsup = 0;
    for (size_t i = 0; i < n && rc == TP_OK;) {
        size_t j = i, k = i;
        while (j < n && o[j].name == o[i].name)
            j++; /* one op name: [i, j) */
        double meas = 0;
        for (size_t x = i; x < j; x++)
            meas += o[x].measured_us;
        size_t row;
        if (o[i].model == NULL) {
            rc = tp_result_add_row(st, uns, &row);
            rc = rc ? rc : tp_result_set_str(st, uns, row, 0, tp_str_text(st, o[i].name));
            rc = rc ? rc : tp_result_set_i64(st, uns, row, 1, (int64_t)(j - i));
            rc = rc ? rc : tp_result_set_f64(st, uns, row, 2, meas);
            i = j;
            continue;
        }
        for (; k < j && rc == TP_OK;) { /* per input dims */
            size_t m = k;
            double km = 0, ke = 0;
            while (m < j && o[m].dims == o[k].dims) {
                km += o[m].measured_us;
                ke += rel_error(&o[m]);
                m++;
            }
            rc = tp_result_add_row(st, ops, &row);
            rc = rc ? rc : tp_result_set_str(st, ops, row, 0, tp_str_text(st, o[k].name));
            if (rc == TP_OK && o[k].dims)
                rc = tp_result_set_str(st, ops, row, 1, tp_str_text(st, o[k].dims));
            rc = rc ? rc : tp_result_set_str(st, ops, row, 2, o[k].model);
            rc = rc ? rc : tp_result_set_i64(st, ops, row, 3, (int64_t)(m - k));
            rc = rc ? rc : tp_result_set_f64(st, ops, row, 4, km / (double)(m - k));
            rc = rc ? rc : tp_result_set_f64(st, ops, row, 5, o[k].predicted_us);
            rc = rc ? rc : tp_result_set_f64(st, ops, row, 6, 100 * ke / (double)(m - k));
            k = m;
        }
        double g, mean, sd;
        error_stats(o, i, j, &g, &mean, &sd);
        rc = rc ? rc : tp_result_add_row(st, sum, &row);
        rc = rc ? rc : tp_result_set_str(st, sum, row, 0, tp_str_text(st, o[i].name));
        rc = rc ? rc : tp_result_set_i64(st, sum, row, 1, (int64_t)(j - i));
        rc = rc ? rc : tp_result_set_f64(st, sum, row, 2, meas);
        rc = rc ? rc : tp_result_set_f64(st, sum, row, 3, 100 * g);
        rc = rc ? rc : tp_result_set_f64(st, sum, row, 4, 100 * mean);
        rc = rc ? rc : tp_result_set_f64(st, sum, row, 5, 100 * sd);
        if (rc == TP_OK && all_us > 0)
            rc = tp_result_set_f64(st, sum, row, 6, 100 * meas / all_us);
        covered += meas;
        nsup += j - i;
        i = j;
    }
    /* overall: every supported occurrence */
    if (rc == TP_OK && nsup > 0) {
        pr_occ *sup = tp_malloc(nsup * sizeof *sup);
        if (sup == NULL)
            return TP_ENOMEM;
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (o[i].model)
                sup[k++] = o[i];
        double g, mean, sd;
        error_stats(sup, 0, k, &g, &mean, &sd);
        tp_free(sup);
        size_t row;
        rc = tp_result_add_row(st, sum, &row);
        rc = rc ? rc : tp_result_set_str(st, sum, row, 0, "(all)");
        rc = rc ? rc : tp_result_set_i64(st, sum, row, 1, (int64_t)k);
        rc = rc ? rc : tp_result_set_f64(st, sum, row, 2, covered);
        rc = rc ? rc : tp_result_set_f64(st, sum, row, 3, 100 * g);
        rc = rc ? rc : tp_result_set_f64(st, sum, row, 4, 100 * mean);
        rc = rc ? rc : tp_result_set_f64(st, sum, row, 5, 100 * sd);
        if (rc == TP_OK && all_us > 0)
            rc = tp_result_set_f64(st, sum, row, 6, 100 * covered / all_us);
    }
    return rc;
}


/* <id>.embedding: each embedding op occurrence with the inputs read from
 * the trace, its prediction, or why there is none. */
static int by_measured_desc(const void *a, const void *b, void *ctx)
{
    const pr_occ *x = &((const pr_emb_row *)a)->occ, *y = &((const pr_emb_row *)b)->occ;
    (void)ctx;
    if (x->measured_us != y->measured_us)
        return x->measured_us > y->measured_us ? -1 : 1;
    return (x->row > y->row) - (x->row < y->row);
}

static int embedding_results(tp_stage *st, pr_emb_row *e, size_t n)
{
    static const char *const cols[] = {"name", "model", "B", "E", "T", "L", "D", "R",
                                       "measured_us", "predicted_us", "error_percent", "reason"};
    static const tp_coltype types[] = {TP_COL_STR, TP_COL_STR, TP_COL_I64, TP_COL_I64,
                                       TP_COL_I64, TP_COL_I64, TP_COL_I64, TP_COL_I64,
                                       TP_COL_F64, TP_COL_F64, TP_COL_F64, TP_COL_STR};
    tp_result *r = table(st, "embedding", "Embedding lookups: model inputs from the trace", cols,
                         types, 12);
    if (r == NULL)
        return TP_ENOMEM;
    int rc = tp_sort(e, n, sizeof *e, by_measured_desc, NULL);
    for (size_t i = 0; i < n && rc == TP_OK; i++) {
        const pr_occ *x = &e[i].occ;
        const int64_t in[] = {e[i].x.B, e[i].x.E, e[i].x.T, e[i].x.L, e[i].x.D, e[i].x.R};
        size_t row;
        rc = tp_result_add_row(st, r, &row);
        rc = rc ? rc : tp_result_set_str(st, r, row, 0, tp_str_text(st, x->name));
        if (rc == TP_OK && x->model)
            rc = tp_result_set_str(st, r, row, 1, x->model);
        for (int k = 0; k < 6 && rc == TP_OK; k++)
            if (in[k] > 0)
                rc = tp_result_set_i64(st, r, row, 2 + k, in[k]);
        rc = rc ? rc : tp_result_set_f64(st, r, row, 8, x->measured_us);
        if (rc == TP_OK && x->model) {
            rc = tp_result_set_f64(st, r, row, 9, x->predicted_us);
            rc = rc ? rc : tp_result_set_f64(st, r, row, 10, 100 * rel_error(x));
        }
        if (rc == TP_OK && !x->model && e[i].why[0])
            rc = tp_result_set_str(st, r, row, 11, e[i].why);
    }
    return rc;
}

/* ------------------------------------------------------------ end to end */

/* Overheads' means, by kind and key, from its main result. */
typedef struct pr_means {
    const tp_result *r;
    int over, key, mean;
    const tp_result *launches; /* key, position, api */
    int l_key, l_pos, l_api;
} pr_means;

static int has_cols(const tp_result *r, const char *a, const char *b, const char *c)
{
    return tp_result_find_col(r, a) >= 0 && tp_result_find_col(r, b) >= 0 &&
           tp_result_find_col(r, c) >= 0;
}

static int find_means(tp_stage *st, pr_means *m)
{
    memset(m, 0, sizeof *m);
    for (size_t i = 0; i < tp_input_count(st); i++) {
        const tp_result *r = tp_input(st, i);
        if (!m->r && has_cols(r, "overhead", "key", "mean_us")) {
            m->r = r;
            m->over = tp_result_find_col(r, "overhead");
            m->key = tp_result_find_col(r, "key");
            m->mean = tp_result_find_col(r, "mean_us");
        } else if (!m->launches && has_cols(r, "key", "position", "api")) {
            m->launches = r;
            m->l_key = tp_result_find_col(r, "key");
            m->l_pos = tp_result_find_col(r, "position");
            m->l_api = tp_result_find_col(r, "api");
        }
    }
    if (!m->r || !m->launches)
        return tp_fail(st, TP_EINVAL, "e2e needs the overheads analysis' results: give predict "
                       "input: OVERHEADS_ID (its main result and .launches)");
    return TP_OK;
}

/* The mean of overhead t (t1..t5) for key (NULL: T1's row without one); 0 when absent. */
static double mean_of(const pr_means *m, const char *t, const char *key)
{
    for (size_t i = 0; i < tp_result_rows(m->r); i++) {
        const char *o = tp_result_get_str(m->r, i, m->over);
        const char *k = tp_result_get_str(m->r, i, m->key);
        if (o && strcmp(o, t) == 0 && (key ? k && strcmp(k, key) == 0 : k == NULL))
            return tp_result_is_null(m->r, i, m->mean) ? 0 : tp_result_get_f64(m->r, i, m->mean);
    }
    return 0;
}

/* launches[name] (the APIs of the first occurrence of name that launched)
 * as their T4 means, in order: a new array (tp_free) of *n, or NULL with
 * *n = 0 when name has none. */
static double *launch_t4s(const pr_means *m, const char *name, size_t *n)
{
    size_t rows = tp_result_rows(m->launches), k = 0;
    *n = 0;
    for (size_t i = 0; i < rows; i++) {
        const char *key = tp_result_get_str(m->launches, i, m->l_key);
        k += key && strcmp(key, name) == 0;
    }
    double *t4 = k ? tp_malloc(k * sizeof *t4) : NULL;
    for (size_t i = 0; t4 && i < rows; i++) {
        const char *key = tp_result_get_str(m->launches, i, m->l_key);
        if (key && strcmp(key, name) == 0)
            t4[(*n)++] = mean_of(m, "t4", tp_result_get_str(m->launches, i, m->l_api));
    }
    return t4;
}

/* An iteration's number (CONVENTIONS: the step number ending the marker's
 * name, else the 0-based ordinal) into column 0 of row. */
static int iteration_cell(tp_stage *st, const tp_trace *t, tp_result *r, size_t row,
                          const tp_iterations *it, size_t k)
{
    const char *name = tp_str_text(st, tp_trace_cols(t)->name[it->it[k].row]);
    const char *p = name + strlen(name);
    while (p > name && p[-1] >= '0' && p[-1] <= '9')
        p--;
    int64_t number = *p ? strtoll(p, NULL, 10) : (int64_t)k;
    return tp_result_set_i64(st, r, row, 0, number);
}

typedef struct pr_e2e_op {
    int32_t row, index;
    double predicted_us; /* the sum of its calls' */
    int unsupported;
    size_t first, ncalls; /* its calls' predictions: calls[first .. first + ncalls) */
} pr_e2e_op;

/* Occurrences in time order (then row), for each op's calls in order. */
static int by_time(const void *a, const void *b, void *ctx)
{
    const tp_cols *c = ctx;
    int32_t x = ((const pr_occ *)a)->row, y = ((const pr_occ *)b)->row;
    if (c->ts[x] != c->ts[y])
        return c->ts[x] < c->ts[y] ? -1 : 1;
    return (x > y) - (x < y);
}

static int by_index(const void *a, const void *b)
{
    const pr_e2e_op *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

static int skipped(const pr_config *cfg, const char *name)
{
    static const char *const defaults[] = {"SliceBackward", "FusedDropoutBackward"};
    if (cfg->skip.n == 0) {
        for (size_t i = 0; i < 2; i++)
            if (strstr(name, defaults[i]))
                return 1;
        return 0;
    }
    for (size_t i = 0; i < cfg->skip.n; i++)
        if (cfg->skip.items[i][0] && strstr(name, cfg->skip.items[i]))
            return 1;
    return 0;
}

/* Attributes each occurrence to the e2e op above it, in time order: an
 * op's calls that own GPU work are its kernel times t_1..t_m of section 6
 * (each call's work predicted as one kernel), in *calls. */
static int attribute_calls(const tp_cols *c, const tp_hier_view *v, const int32_t *slot,
                           pr_occ *o, size_t n, pr_e2e_op *ops, size_t nops, double **calls)
{
    int rc = tp_sort(o, n, sizeof *o, by_time, (void *)c);
    double *t = rc == TP_OK ? tp_calloc(n ? n : 1, sizeof *t) : NULL;
    int32_t *owner = t ? tp_malloc((n ? n : 1) * sizeof *owner) : NULL;
    if (owner == NULL) {
        tp_free(t);
        return rc == TP_OK ? TP_ENOMEM : rc;
    }
    for (size_t i = 0; i < n; i++) { /* each owner of GPU work to the op above it */
        int32_t x = o[i].row;
        while (x >= 0 && slot[x] < 0)
            x = v->parent[x];
        owner[i] = x < 0 ? -1 : slot[x];
        if (x < 0)
            continue;
        pr_e2e_op *e = &ops[slot[x]];
        if (o[i].model) {
            e->predicted_us += o[i].predicted_us; /* an occurrence is one call */
            e->ncalls++;
        } else {
            e->unsupported = 1;
        }
    }
    size_t at = 0;
    for (size_t k = 0; k < nops; k++) {
        ops[k].first = at;
        at += ops[k].ncalls;
        ops[k].ncalls = 0;
    }
    for (size_t i = 0; i < n; i++)
        if (owner[i] >= 0 && o[i].model) {
            pr_e2e_op *e = &ops[owner[i]];
            t[e->first + e->ncalls++] = o[i].predicted_us;
        }
    tp_free(owner);
    *calls = t;
    return TP_OK;
}

/* The ops of overheads (attachment overheads.op) with the predictions of
 * the GPU work under each (attribute_calls), unsupported when any part has
 * no model.  *nops ops, in walk order. */
static int e2e_ops(tp_stage *st, const tp_trace *t, pr_occ *o, size_t n, pr_e2e_op **out,
                   size_t *nops, double **calls)
{
    const tp_cols *c = tp_trace_cols(t);
    size_t got = 0;
    const int32_t *op = tp_trace_attached(t, "overheads.op", TP_COL_I32, &got);
    tp_hier_view v;
    if (op == NULL || got != c->n)
        return tp_fail(st, TP_EINVAL, "e2e needs the overheads analysis run before predict "
                       "on the same trace (its attachment overheads.op)");
    if (tp_hier_view_require(st, t, &v) != TP_OK)
        return TP_ENOTFOUND;
    size_t k = 0;
    for (size_t r = 0; r < c->n; r++)
        k += op[r] >= 0;
    pr_e2e_op *ops = tp_calloc(k ? k : 1, sizeof *ops);
    int32_t *slot = tp_malloc((c->n ? c->n : 1) * sizeof *slot);
    if (ops == NULL || slot == NULL) {
        tp_free(ops);
        tp_free(slot);
        return TP_ENOMEM;
    }
    k = 0;
    for (size_t r = 0; r < c->n; r++) {
        slot[r] = -1;
        if (op[r] >= 0) {
            ops[k] = (pr_e2e_op){.row = (int32_t)r, .index = op[r]};
            slot[r] = (int32_t)k++;
        }
    }
    int rc = attribute_calls(c, &v, slot, o, n, ops, k, calls);
    tp_free(slot);
    if (rc != TP_OK) {
        tp_free(ops);
        return rc;
    }
    qsort(ops, k, sizeof *ops, by_index);
    *out = ops;
    *nops = k;
    return TP_OK;
}

/* A cell "t1;t2;..." of an op's call predictions (%.17g: exact). */
static int set_call_list(tp_stage *st, tp_result *r, size_t row, int col, const double *t,
                         size_t m)
{
    if (m == 0)
        return TP_OK;
    char *buf = tp_malloc(m * 26 + 1);
    if (buf == NULL)
        return TP_ENOMEM;
    size_t used = 0;
    for (size_t j = 0; j < m; j++)
        used += (size_t)snprintf(buf + used, m * 26 + 1 - used, "%s%.17g", j ? ";" : "", t[j]);
    int rc = tp_result_set_str(st, r, row, col, buf);
    tp_free(buf);
    return rc;
}

/* Section 6 for each iteration: <id>.e2e, and the ops it used as <id>.e2e_ops. */
static int e2e_results(tp_stage *st, const pr_config *cfg, const tp_trace *t, pr_occ *o,
                       size_t n)
{
    pr_means m;
    int rc = find_means(st, &m);
    if (rc != TP_OK)
        return rc;
    const tp_cols *c = tp_trace_cols(t);
    pr_e2e_op *ops = NULL;
    double *calls = NULL;
    size_t nops = 0;
    tp_hier_view v;
    if (tp_hier_view_require(st, t, &v) != TP_OK)
        return TP_ENOTFOUND;
    if ((rc = e2e_ops(st, t, o, n, &ops, &nops, &calls)) != TP_OK)
        return rc;
    tp_iter_override ov = {.prefix = cfg->step_prefix, .option = "step_prefix"};
    tp_iter_view steps;
    rc = tp_iter_view_get(st, (tp_trace *)t, &ov, &steps);
    tp_iterations it = tp_iter_as_iterations(&steps);
    if (rc == TP_OK && it.n == 0)
        rc = tp_fail(st, TP_EINVAL, "e2e: no iteration markers (regex '%s') in the trace",
                     steps.marker);
    tp_result *r = rc == TP_OK ? tp_result_new(st, "e2e") : NULL;
    tp_result *ro = r ? tp_result_new(st, "e2e_ops") : NULL;
    static const char *const cols[] = {"iteration", "measured_us", "predicted_us", "cpu_us",
                                       "gpu_us", "gpu_active_us", "ops", "unsupported_ops",
                                       "error_percent"};
    static const char *const ocols[] = {"iteration", "position", "name", "launches", "supported",
                                        "predicted_us", "t2_us", "t3_us", "t5_us", "leaf"};
    for (int i = 0; r && ro && i < 9; i++)
        if (tp_result_add_col(st, r, cols[i], i == 0 || i == 6 || i == 7 ? TP_COL_I64 : TP_COL_F64) != i ||
            tp_result_add_col(st, ro, ocols[i], i == 2 ? TP_COL_STR : i <= 4 ? TP_COL_I64 : TP_COL_F64) != i)
            r = NULL;
    if (ro && tp_result_add_col(st, ro, ocols[9], TP_COL_I64) != 9) /* no children: aten::to's rule */
        r = NULL;
    if (ro && tp_result_add_col(st, ro, "call_us_list", TP_COL_STR) != 10) /* t_1..t_m, ';' */
        r = NULL;
    if (rc == TP_OK && (r == NULL || ro == NULL))
        rc = TP_ENOMEM;
    if (rc == TP_OK) {
        tp_result_set_kind(st, r, "series");
        tp_result_set_meta(st, r, "title", "End-to-end iteration time, predicted and measured");
        tp_result_set_meta(st, ro, "title", "The ops of each iteration the prediction ran over");
    }
    double t1 = rc == TP_OK ? mean_of(&m, "t1", NULL) : 0;
    double *pred = tp_calloc(it.n ? it.n : 1, sizeof *pred), *meas = tp_calloc(it.n ? it.n : 1, sizeof *meas);
    pm_e2e_op *sim = tp_calloc(nops ? nops : 1, sizeof *sim);
    if (rc == TP_OK && (!pred || !meas || !sim))
        rc = TP_ENOMEM;
    size_t done = 0;
    for (size_t k = 0; k < it.n && rc == TP_OK; k++) {
        size_t ns = 0, unsupported = 0;
        for (size_t i = 0; i < nops && rc == TP_OK; i++) {
            int32_t row = ops[i].row;
            if (tp_iteration_of(&it, c->ts[row]) != (int32_t)k)
                continue;
            const char *name = tp_str_text(st, c->name[row]);
            if (skipped(cfg, name))
                continue;
            size_t nl = 0;
            double *t4 = launch_t4s(&m, name, &nl);
            pm_e2e_op *e = &sim[ns];
            *e = (pm_e2e_op){0};
            e->has_launches = nl > 0;
            e->n_launches = nl;
            e->t4 = t4;
            e->supported = !ops[i].unsupported;
            e->m = ops[i].ncalls; /* its calls' predictions, in time order */
            e->t = calls + ops[i].first;
            e->t2 = mean_of(&m, "t2", name);
            e->t3 = mean_of(&m, "t3", name);
            e->t5 = mean_of(&m, "t5", name);
            e->to_without_children = strcmp(name, "aten::to") == 0 && v.first_child[row] < 0;
            unsupported += nl > 0 && ops[i].unsupported;
            size_t orow;
            rc = tp_result_add_row(st, ro, &orow);
            const int64_t iv[] = {0, (int64_t)ns, 0, (int64_t)nl, e->supported};
            rc = rc ? rc : tp_result_set_i64(st, ro, orow, 1, iv[1]);
            rc = rc ? rc : tp_result_set_str(st, ro, orow, 2, name);
            rc = rc ? rc : tp_result_set_i64(st, ro, orow, 3, iv[3]);
            rc = rc ? rc : tp_result_set_i64(st, ro, orow, 4, iv[4]);
            rc = rc ? rc : tp_result_set_f64(st, ro, orow, 5, ops[i].predicted_us);
            rc = rc ? rc : tp_result_set_f64(st, ro, orow, 6, e->t2);
            rc = rc ? rc : tp_result_set_f64(st, ro, orow, 7, e->t3);
            rc = rc ? rc : tp_result_set_f64(st, ro, orow, 8, e->t5);
            rc = rc ? rc : tp_result_set_i64(st, ro, orow, 9, v.first_child[row] < 0);
            rc = rc ? rc : set_call_list(st, ro, orow, 10, e->t, e->m);
            rc = rc ? rc : iteration_cell(st, t, ro, orow, &it, k);
            ns++;
        }
        if (rc != TP_OK) {
            for (size_t i = 0; i < ns + (ns < nops); i++)
                tp_free((void *)sim[i].t4);
            break;
        }
        pm_e2e_result res;
        pm_e2e(sim, ns, t1, cfg->kernel_overhead_us, &res);
        for (size_t i = 0; i < ns; i++)
            tp_free((void *)sim[i].t4);
        double measured = (double)(it.it[k].end - it.it[k].start) / 1000.0;
        pred[done] = res.e2e;
        meas[done++] = measured;
        size_t row;
        rc = tp_result_add_row(st, r, &row);
        const double dv[] = {0, measured, res.e2e, res.cpu, res.gpu, res.gpu_active};
        for (int i = 1; i < 6 && rc == TP_OK; i++)
            rc = tp_result_set_f64(st, r, row, i, dv[i]);
        rc = rc ? rc : tp_result_set_i64(st, r, row, 6, (int64_t)ns);
        rc = rc ? rc : tp_result_set_i64(st, r, row, 7, (int64_t)unsupported);
        if (rc == TP_OK && measured > 0)
            rc = tp_result_set_f64(st, r, row, 8, fabs(res.e2e - measured) / measured * 100);
        rc = rc ? rc : iteration_cell(st, t, r, row, &it, k);
    }
    if (rc == TP_OK && done > 0) {
        double mean, gmae = pm_gmae(pred, meas, done, 0, &mean);
        char buf[64];
        snprintf(buf, sizeof buf, "%.17g", gmae * 100);
        tp_result_set_meta(st, r, "gmae_percent", buf);
        snprintf(buf, sizeof buf, "%.17g", mean * 100);
        tp_result_set_meta(st, r, "mean_error_percent", buf);
    }
    tp_free(pred);
    tp_free(meas);
    tp_free(sim);
    tp_free(ops);
    tp_free(calls);
    tp_iter_view_release(&steps);
    return rc;
}

/* The fc table: fc_table's file or fc_table_input's result (TP_OK and no
 * rows without either). */
static int load_table(tp_stage *st, const pr_config *cfg, pr_table *t)
{
    if (cfg->fc_table)
        return read_table(st, cfg->fc_table, cfg->kernel_prefix, t);
    if (cfg->fc_table_input)
        return pf_table_from_input(st, cfg->fc_table_input, cfg->kernel_prefix, &t->rows, &t->n);
    return TP_OK;
}

static int trace_mode(tp_stage *st, const tp_preset *p, const pr_config *cfg)
{
    const tp_trace *t = tp_stage_trace(st);
    if (t == NULL)
        return tp_fail(st, TP_EINVAL, "no trace and no cases: put a reader first, or give cases");
    pr_models m = {.p = p,
                   .emb_opt = {cfg->embedding_forward ? cfg->embedding_forward : "",
                               cfg->embedding_backward ? cfg->embedding_backward : "",
                               cfg->embedding_dim, cfg->rows_per_block, cfg->l2_gbps}};
    pr_occ *o = NULL;
    pr_emb_row *emb = NULL;
    size_t n = 0, nemb = 0;
    double all_us = 0;
    pr_table table = {0};
    int rc = load_table(st, cfg, &table), with_table = cfg->fc_table || cfg->fc_table_input;
    if (rc != TP_OK) {
        tp_free(table.rows);
        return rc;
    }
    pf_ops fc = {.rows = table.rows, .n = table.n};
    m.fc = with_table ? &fc : NULL;
    rc = occurrences(st, t, &m, &o, &n, &all_us, &emb, &nemb);
    for (size_t i = 0; rc == TP_OK && with_table && i < n; i++)
        pf_measured(&fc, o[i].row, o[i].measured_us, o[i].predicted_us, o[i].model);
    if (rc == TP_OK)
        rc = trace_results(st, o, n, all_us, p);
    if (rc == TP_OK)
        rc = embedding_results(st, emb, nemb);
    if (rc == TP_OK && with_table)
        rc = pf_results(st, &fc);
    if (rc == TP_OK && cfg->e2e)
        rc = e2e_results(st, cfg, t, o, n);
    tp_free(o);
    tp_free(emb);
    pe_index_free(&m.emb);
    pf_free(&fc);
    tp_free(table.rows);
    if (rc == TP_EINVAL || rc == TP_ENOTFOUND)
        return rc;
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static int pr_run(tp_stage *st, const void *config, void *state)
{
    const pr_config *cfg = config;
    const tp_preset *p = preset_of(st, cfg, state);
    if (p == NULL)
        return TP_EINVAL;
    if (cfg->cases.n == 0)
        return trace_mode(st, p, cfg);
    static const char *const cols[] = {"id", "model", "inputs", "predicted_us", "error"};
    tp_result *r = tp_result_new(st, NULL);
    for (int i = 0; r && i < 5; i++)
        if (tp_result_add_col(st, r, cols[i], i == 3 ? TP_COL_F64 : TP_COL_STR) != i)
            r = NULL;
    if (r == NULL)
        return tp_fail(st, TP_ENOMEM, "out of memory");
    tp_result_set_meta(st, r, "title", "Model predictions");
    tp_result_set_meta(st, r, "preset", p->name);
    pr_table table = {0};
    int rc = load_table(st, cfg, &table);
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
        rc = rc ? rc : tp_result_set_str(st, r, row, 0, c.id[0] ? c.id : c.model);
        rc = rc ? rc : tp_result_set_str(st, r, row, 1, c.model);
        rc = rc ? rc : tp_result_set_str(st, r, row, 2, inputs);
        if (rc == TP_OK && ok)
            rc = tp_result_set_f64(st, r, row, 3, us);
        if (rc == TP_OK && !ok)
            rc = tp_result_set_str(st, r, row, 4, err);
    }
    tp_free(table.rows);
    return rc == TP_OK ? TP_OK : tp_fail(st, rc, "out of memory");
}

static const tp_stage_desc pr_stages[] = {
    TP_STAGE_FULL(TP_STAGE_ANALYSIS, "predict",
                  "performance models (seed 004 embeddings, element-wise, roofline, the FC "
                  "benchmark-table model) on cases or a trace's ops, with device presets",
                  pr_options, pr_config, NULL, TP_PRODUCES("", "summary", "unsupported", "embedding", "e2e", "e2e_ops", "fc_table"), 0, pr_init,
                  pr_run, pr_destroy),
    TP_STAGE_END};

TP_PLUGIN_DEFINE("predict", "0.1.0", pr_stages);
