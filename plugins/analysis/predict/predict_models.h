/*
 * predict's models (ANALYSES.md section 5), as pure functions of their
 * inputs and a device preset, so they can be checked against every vector
 * bit for bit: integer steps stay integers (Python's ints in the seed),
 * floating steps happen in the seed's order.  Each returns 0 and the time
 * in microseconds, or -1 and a message.
 */
#ifndef TRACEPIPE_PREDICT_MODELS_H
#define TRACEPIPE_PREDICT_MODELS_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracepipe/tp_sdk_presets.h>

/* ceil(x / 32) * 32 */
static inline int64_t pm_r32(int64_t x) { return (x + 31) / 32 * 32; }

/* Python's floor division (toward minus infinity). */
static inline int64_t pm_floordiv(int64_t a, int64_t b)
{
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

typedef struct pm_emb {
    int64_t B, E, T, L, D, R;
    int shmem;
} pm_emb;

/* 5.2: embedding lookup forward, the L2 hit-rate model. */
static inline int pm_emb_forward(const pm_emb *x, const tp_preset *p, double l2_gbps, double *us,
                                 char *err, size_t errsz)
{
    if (x->B <= 0 || x->E <= 0 || x->D <= 0 || x->R <= 0) {
        snprintf(err, errsz, "B, E, D and R must be positive");
        return -1;
    }
    if (!(l2_gbps > 0)) {
        snprintf(err, errsz, "preset %s lacks peak_l2_bw (give l2_gbps)", p->name);
        return -1;
    }
    int64_t tables_simul = (p->sms * x->R + x->B - 1) / x->B;
    int64_t l2 = (int64_t)p->l2_bytes;
    int64_t A = pm_floordiv(l2, tables_simul);
    if (x->E * x->D * 4 < A)
        A = x->E * x->D * 4;
    int64_t idx = x->shmem ? 0 : pm_r32(4 * x->L);
    int64_t X = pm_floordiv(pm_floordiv(A - idx, 4), x->D);
    if (x->B > x->E) { /* the seed's loop below reaches E - i == 0 */
        snprintf(err, errsz, "batch %lld exceeds the table's %lld rows (the seed divides by "
                 "zero)", (long long)x->B, (long long)x->E);
        return -1;
    }
    double h = 1.0;
    for (int64_t i = 0; i < x->B && h != 0.0; i++) /* over B, as the seed does; 0 stays 0 */
        h = h * ((double)(X - i) / (double)(x->E - i));
    int64_t il2 = x->shmem ? 0 : (x->D * x->R >= 4096 ? pm_r32(4 * x->L) : 0);
    int64_t W = x->L * pm_r32(4 * x->D), O = pm_r32(4 * x->D), I = pm_r32(4 * x->L);
    double wb_a = (double)(W * x->B - A);
    double l2_bytes = (double)x->T * ((double)((64 + il2) * x->B) + h * wb_a);
    double dram_bytes = (double)x->T * ((double)((I + O) * x->B) + (1 - h) * wb_a + (double)A);
    double t_dram = dram_bytes / p->dram_gbps / 1000, t_l2 = l2_bytes / l2_gbps / 1000;
    *us = t_dram > t_l2 ? t_dram : t_l2;
    return 0;
}

/* 5.3: embedding backward, SGD. */
static inline int pm_emb_sgd(const pm_emb *x, const tp_preset *p, double *us)
{
    int64_t idx = x->shmem ? pm_r32(4 * x->L) : 32 * x->L;
    int64_t go = x->shmem ? pm_r32(4 * x->D) : 2 * x->L * pm_r32(4 * x->D);
    int64_t per_warp = 64 + idx + 2 * x->L * pm_r32(4 * x->D) + go;
    int64_t bytes = x->B * x->T * per_warp;
    int64_t macs = x->B * x->T * x->L * 4 * pm_floordiv(x->D, 4);
    double t_mem = (double)bytes / p->dram_gbps / 1000, t_mac = (double)macs / p->fp32 / 1000;
    *us = t_mem > t_mac ? t_mem : t_mac;
    return 0;
}

/* 5.4: embedding backward, row-wise Adagrad. */
static inline int pm_emb_adagrad(const pm_emb *x, const tp_preset *p, double *us)
{
    int64_t r = pm_r32(4 * x->D);
    int64_t per_warp = 64 + 2 * pm_r32(4 * x->L) + x->L * r + (x->L + 1) * r + x->L * r;
    *us = (double)(x->B * x->T * per_warp) / p->dram_gbps / 1000;
    return 0;
}

/* 5.6: the generic roofline of an op with FLOP and byte counts. */
static inline double pm_roofline(double flops, double bytes, const tp_preset *p)
{
    double a = flops / p->fp32 / 1000, b = bytes / p->dram_gbps / 1000;
    return a > b ? a : b;
}

/* A roofline at a given peak (GFLOP/s) and bandwidth (GB/s): max(flops /
 * peak, bytes / bw) in us; an op without FLOPs needs no peak.  -1 when a
 * figure it needs is 0 (the preset does not publish it). */
static inline double pm_roofline_at(double flops, double bytes, double peak, double bw)
{
    if ((flops > 0 && !(peak > 0)) || !(bw > 0))
        return -1;
    double a = flops > 0 ? flops / peak / 1000 : 0, b = bytes / bw / 1000;
    return a > b ? a : b;
}

/* The preset's launch floor over a prediction of `kernels` kernels: no
 * kernel of the device runs shorter than launch_floor_us (0 in v100_seed:
 * the seed's models as written). */
static inline double pm_floor(double us, int64_t kernels, const tp_preset *p)
{
    double floor = (double)kernels * p->launch_floor_us;
    return us > floor ? us : floor;
}

/* 5.6: element-wise ops, (FLOPs, element accesses) per element of the
 * first input (s elements); 0 if the op has no entry. */
typedef struct pm_elementwise {
    const char *name;
    int64_t c, a;
} pm_elementwise;

static const pm_elementwise pm_elementwise_ops[] = {
    {"relu", 1, 2}, {"ReluBackward", 1, 2}, {"sigmoid", 4, 2}, {"SigmoidBackward", 2, 2},
    {"binary_cross_entropy", 7, 3}, {"BinaryCrossEntropyBackward", 4, 3}, {"mse_loss", 3, 3},
    {"add", 1, 3}, {"add_", 1, 3}, {"sub", 1, 3}, {"mul", 1, 3}, {"div", 1, 3},
    {"__and__", 1, 3}, {"AddBackward", 1, 3}, {"SubBackward", 1, 3}, {"MulBackward", 1, 3},
    {"DivBackward", 1, 3}, {"MseLossBackward", 1, 3}, {"sum", 1, 1}, {"gelu", 175, 2},
    {"GeluBackward", 255, 2}, {"softmax", 174, 2}, {"SoftmaxBackward", 2, 4}, {"tanh", 180, 2},
    {"pow", 180, 2}, {"TanhBackward", 260, 2}, {"DropoutBackward", 2, 3},
};

static inline const pm_elementwise *pm_elementwise_find(const char *name)
{
    for (size_t i = 0; i < sizeof pm_elementwise_ops / sizeof *pm_elementwise_ops; i++)
        if (strcmp(pm_elementwise_ops[i].name, name) == 0)
            return &pm_elementwise_ops[i];
    return NULL;
}

static inline double pm_elementwise_us(const pm_elementwise *e, int64_t s, const tp_preset *p)
{
    double f = (double)(e->c * s) / p->fp32 / 1000, m = (double)(e->a * s * 4) / p->dram_gbps / 1000;
    return f > m ? f : m;
}

/* Section 6's error metric: GMAE = exp(mean(ln(e + eps))), e = |pred - actual| / actual;
 * also the mean of e.  n > 0. */
static inline double pm_gmae(const double *pred, const double *actual, size_t n, double eps,
                             double *mean)
{
    double sl = 0, se = 0;
    for (size_t i = 0; i < n; i++) {
        double e = fabs(pred[i] - actual[i]) / actual[i];
        se += e;
        sl += log(e + eps);
    }
    *mean = se / (double)n;
    return exp(sl / (double)n);
}

/* ---- 5.5: FC/GEMM by interpolating a benchmark table */

typedef struct pm_fc_row {
    int64_t v[4]; /* batch_size, M, N, K */
    double runtime_us;
} pm_fc_row;

#define PM_FC_MAX_POINTS 16 /* 2^4: every dimension unmatched */

typedef struct pm_fc_point {
    uint8_t rows_ok;      /* (a point is the set of table rows matching its constraints) */
    int64_t fixed[4];     /* the value each constrained dimension must have */
    uint8_t constrained[4];
    uint8_t limited[4];   /* dimensions interpolated: their (low, high) */
    int64_t low[4], high[4];
    uint8_t has_low[4], has_high[4];
    uint8_t zero[4], peak[4];
} pm_fc_point;

static inline int pm_fc_in(const pm_fc_point *p, const pm_fc_row *r)
{
    for (int d = 0; d < 4; d++)
        if (p->constrained[d] && r->v[d] != p->fixed[d])
            return 0;
    return 1;
}

static inline int cmp_i64_asc(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The seed's fc_forward_predictor (ANALYSES.md 5.5), step by step; the
 * efficiencies it interpolated in *eff_f, *eff_bw (for the vectors). */
static inline int pm_fc_predict(const pm_fc_row *t, size_t n, const int64_t q[4],
                                const tp_preset *p, double *us, double *eff_f, double *eff_bw,
                                char *err, size_t errsz)
{
    for (size_t i = 0; i < n; i++) /* 1: an exact match */
        if (t[i].v[0] == q[0] && t[i].v[1] == q[1] && t[i].v[2] == q[2] && t[i].v[3] == q[3]) {
            *us = t[i].runtime_us;
            *eff_f = *eff_bw = NAN;
            return 0;
        }
    int matched[4], unmatched = 0;
    for (int d = 0; d < 4; d++) { /* 2: a value of q present anywhere in its column */
        matched[d] = 0;
        for (size_t i = 0; i < n && !matched[d]; i++)
            matched[d] = t[i].v[d] == q[d];
        unmatched += !matched[d];
    }
    if (unmatched == 0) {
        snprintf(err, errsz, "every value is in the table but not this combination");
        return -1;
    }
    pm_fc_point pts[PM_FC_MAX_POINTS], next[PM_FC_MAX_POINTS];
    size_t np = 1;
    memset(&pts[0], 0, sizeof pts[0]);
    for (int d = 0; d < 4; d++)
        if (matched[d]) {
            pts[0].constrained[d] = 1;
            pts[0].fixed[d] = q[d];
        }
    int64_t *u = (int64_t *)malloc((n ? n : 1) * sizeof *u);
    if (u == NULL) {
        snprintf(err, errsz, "out of memory");
        return -1;
    }
    for (int d = 0; d < 4; d++) { /* 4: each unmatched dimension splits every point */
        if (matched[d])
            continue;
        size_t nn = 0;
        for (size_t k = 0; k < np; k++) {
            size_t m = 0;
            for (size_t i = 0; i < n; i++)
                if (pm_fc_in(&pts[k], &t[i]))
                    u[m++] = t[i].v[d];
            if (m == 0) {
                free(u);
                snprintf(err, errsz, "no table rows to interpolate dimension %d from", d);
                return -1;
            }
            qsort(u, m, sizeof *u, cmp_i64_asc);
            pm_fc_point lo = pts[k], hi = pts[k];
            lo.limited[d] = hi.limited[d] = 1;
            lo.constrained[d] = hi.constrained[d] = 1;
            if (q[d] < u[0]) {
                lo.has_low[d] = hi.has_low[d] = 0;
                lo.has_high[d] = hi.has_high[d] = 1;
                lo.high[d] = hi.high[d] = u[0];
                lo.fixed[d] = hi.fixed[d] = u[0];
                lo.zero[d] = 1;
            } else if (q[d] > u[m - 1]) {
                lo.has_low[d] = hi.has_low[d] = 1;
                lo.has_high[d] = hi.has_high[d] = 0;
                lo.low[d] = hi.low[d] = u[m - 1];
                lo.fixed[d] = hi.fixed[d] = u[m - 1];
                hi.peak[d] = 1;
            } else {
                size_t j = 0;
                while (j + 1 < m && u[j + 1] < q[d])
                    j++;
                size_t h = j + 1;
                while (h < m && u[h] <= q[d])
                    h++;
                lo.has_low[d] = hi.has_low[d] = lo.has_high[d] = hi.has_high[d] = 1;
                lo.low[d] = hi.low[d] = u[j];
                lo.high[d] = hi.high[d] = u[h];
                lo.fixed[d] = u[j];
                hi.fixed[d] = u[h];
            }
            next[nn++] = lo;
            next[nn++] = hi;
        }
        memcpy(pts, next, nn * sizeof *pts);
        np = nn;
    }
    free(u);
    double sum_f = 0, sum_bw = 0;
    for (size_t k = 0; k < np; k++) { /* 5: each point's value */
        const pm_fc_row *r = NULL;
        for (size_t i = 0; i < n && r == NULL; i++)
            if (pm_fc_in(&pts[k], &t[i]))
                r = &t[i];
        if (r == NULL) {
            snprintf(err, errsz, "an interpolation point has no table row");
            return -1;
        }
        int zero = 0, peak = 0;
        for (int d = 0; d < 4; d++) {
            zero |= pts[k].limited[d] && pts[k].zero[d];
            peak |= pts[k].limited[d] && pts[k].peak[d];
        }
        const int64_t *v = r->v;
        double Tr = (double)(v[0] * v[1] * v[2] * v[3]) / r->runtime_us / 1000;
        double Wr = (double)(v[0] * (v[1] * v[3] + v[3] * v[2] + v[1] * v[2])) / r->runtime_us /
                    1000 * 4;
        double cf = 0, cb = 0;
        int dims = 0;
        for (int d = 0; d < 4; d++) {
            if (!pts[k].limited[d])
                continue;
            double wl, wh;
            const pm_fc_point *pt = &pts[k];
            if (!pt->has_high[d]) {
                wl = 0.5;
                wh = 0.5;
            } else if (!pt->has_low[d]) {
                wl = (double)q[d] / (double)pt->high[d];
                wh = (double)(pt->high[d] - q[d]) / (double)pt->high[d];
            } else {
                wl = (double)(q[d] - pt->low[d]) / (double)(pt->high[d] - pt->low[d]);
                wh = (double)(pt->high[d] - q[d]) / (double)(pt->high[d] - pt->low[d]);
            }
            double f, b;
            if (zero) {
                f = 0;
                b = 0;
            } else if (peak) {
                f = p->fp32 * wh;
                b = p->dram_gbps * wh;
            } else if (pt->has_low[d] && v[d] == pt->low[d]) {
                f = Tr * wl; /* the low row gets wl: swapped, as the seed does */
                b = Wr * wl;
            } else {
                f = Tr * wh;
                b = Wr * wh;
            }
            cf += f;
            cb += b;
            dims++;
        }
        sum_f += cf / dims;
        sum_bw += cb / dims;
    }
    *eff_f = sum_f / ((double)np / 2);
    *eff_bw = sum_bw / ((double)np / 2);
    if (*eff_f == 0 || *eff_bw == 0) {
        snprintf(err, errsz, "interpolated efficiency is 0");
        return -1;
    }
    int64_t B = q[0], M = q[1], N = q[2], K = q[3];
    double a = (double)(B * M * N * K) / *eff_f, b = (double)(4 * B * (M * K + K * N + M * N)) / *eff_bw;
    *us = (a > b ? a : b) / 1000;
    return 0;
}

/* Seed 004's query (batch, M, N, K) of GEMM op `name` from its n input
 * shapes (rank[i] dims dim[i][..]): addmm (1; M, K = dims[1]; N =
 * dims[2][1]), mm (1; M, K = dims[0]; N = dims[1][1]), bmm (b, M, K =
 * dims[0]; N = dims[1][2]), baddbmm (as bmm from dims[1], dims[2]), linear
 * ((..., K) x weight (N, K): 1, M = the product of the leading dims),
 * matmul ((b, M, K) x (b, K, N), or (..., K) x (K, N) as linear).  1, or 0
 * when the shapes do not map (broadcast batches, dot products, a zero). */
#define PM_MAX_RANK 8

static inline double pm_prod(const double *d, int n)
{
    double p = 1;
    for (int i = 0; i < n; i++)
        p *= d[i];
    return p;
}

static inline int pm_fc_query(const char *name, int n_in, const int *r,
                              const double (*d)[PM_MAX_RANK], int64_t q[4])
{
    double b = 1, m, n, k;
    if (strcmp(name, "aten::addmm") == 0 && n_in >= 3 && r[1] == 2 && r[2] == 2)
        m = d[1][0], k = d[1][1], n = d[2][1];
    else if (strcmp(name, "aten::mm") == 0 && n_in >= 2 && r[0] == 2 && r[1] == 2)
        m = d[0][0], k = d[0][1], n = d[1][1];
    else if (strcmp(name, "aten::bmm") == 0 && n_in >= 2 && r[0] == 3 && r[1] == 3)
        b = d[0][0], m = d[0][1], k = d[0][2], n = d[1][2];
    else if (strcmp(name, "aten::baddbmm") == 0 && n_in >= 3 && r[1] == 3 && r[2] == 3)
        b = d[1][0], m = d[1][1], k = d[1][2], n = d[2][2];
    else if (strcmp(name, "aten::linear") == 0 && n_in >= 2 && r[0] >= 1 && r[1] == 2)
        m = pm_prod(d[0], r[0] - 1), k = d[0][r[0] - 1], n = d[1][0]; /* weight (N, K) */
    else if (strcmp(name, "aten::matmul") == 0 && n_in >= 2 && r[0] == 3 && r[1] == 3 &&
             d[0][0] == d[1][0])
        b = d[0][0], m = d[0][1], k = d[0][2], n = d[1][2];
    else if (strcmp(name, "aten::matmul") == 0 && n_in >= 2 && r[0] >= 1 && r[1] == 2)
        m = pm_prod(d[0], r[0] - 1), k = d[0][r[0] - 1], n = d[1][1]; /* (..., K) x (K, N) */
    else
        return 0;
    const double v[4] = {b, m, n, k};
    for (int i = 0; i < 4; i++) {
        if (!(v[i] >= 1 && v[i] < 9007199254740992.0))
            return 0;
        q[i] = (int64_t)v[i];
    }
    return 1;
}

/* ---- section 6: one iteration, end to end */

/* An op of the iteration, its overheads looked up by the caller (the means
 * of overheads' notebook: T2, T3, T5 by op name; T4 per launch by API). */
typedef struct pm_e2e_op {
    int has_launches;         /* launches[name] exists */
    size_t n_launches;
    const double *t4;         /* per launch */
    int supported;            /* kernel times known */
    size_t m;                 /* kernel times t[0..m) */
    const double *t;
    double t2, t3, t5;
    int to_without_children;  /* aten::to with no children: a launch costs 2 */
} pm_e2e_op;

typedef struct pm_e2e_result {
    double e2e, cpu, gpu, gpu_active;
} pm_e2e_result;

/* Single stream (inference.py 20987e2): a kernel starts 1 us after the
 * previous one or when its launch returns, whichever is later. */
static inline void pm_e2e(const pm_e2e_op *ops, size_t n, double t1, double kernel_overhead,
                          pm_e2e_result *r)
{
    double cpu = 0, gpu = 0, active = 0;
    for (size_t i = 0; i < n; i++) {
        const pm_e2e_op *o = &ops[i];
        cpu += t1;
        if (!o->has_launches) {
            cpu += o->t5;
            continue;
        }
        cpu += o->t2;
        if (o->supported) {
            for (size_t j = 0; j < o->m; j++)
                active += o->t[j] + kernel_overhead;
            for (size_t j = 0; j < o->n_launches; j++) {
                double t4 = o->to_without_children ? 2 : o->t4[j];
                gpu = gpu + 1 > cpu + o->t4[j] ? gpu + 1 : cpu + o->t4[j];
                if (j < o->m)
                    gpu += o->t[j] + kernel_overhead;
                cpu += t4;
                if (j + 1 < o->n_launches)
                    cpu += o->t5;
            }
        } else {
            double s4 = 0;
            for (size_t j = 0; j < o->n_launches; j++)
                s4 += o->t4[j];
            cpu += s4 + o->t5 * (double)(o->n_launches - 1);
        }
        cpu += o->t3;
    }
    r->cpu = cpu;
    r->gpu = gpu;
    r->gpu_active = active;
    r->e2e = gpu > cpu ? gpu : cpu;
}

#endif
