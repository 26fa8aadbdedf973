/* SDK: FLOP and byte counts of attention, norms and element-wise ops, and
 * the category of an op (tp_sdk_opmodel.h).  Formulas: docs/plugins/predict.md,
 * "Models of today's ops". */
#include <tracepipe/tp_sdk_opmodel.h>
#include <tracepipe/tp_plugin.h>
#include <tracepipe/tp_sdk_coll.h>
#include <tracepipe/tp_sdk_gemm.h>
#include <tracepipe/tp_sdk_json.h>
#include <tracepipe/tp_sdk_vocab.h>

#include <ctype.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OM_MAX_IN 40
#define OM_MAX_RANK 8

/* A call's args: per input its shape (rank -1: not a list of whole
 * numbers), its type and its concrete value as the trace writes them. */
typedef struct om_args {
    int n, ntypes, nconc;
    int rank[OM_MAX_IN];
    double dim[OM_MAX_IN][OM_MAX_RANK];
    char type[OM_MAX_IN][32];
    char conc[OM_MAX_IN][48];
} om_args;

static void om_dims(const char *v, size_t len, om_args *a)
{
    tp_json_iter outer, inner;
    const char *e, *d;
    size_t elen, dlen;
    if (v == NULL || tp_json_array(v, len, &outer) != TP_OK)
        return;
    while (a->n < OM_MAX_IN && tp_json_next(&outer, &e, &elen) == 1) {
        int r = 0, ok = tp_json_array(e, elen, &inner) == TP_OK;
        while (ok && tp_json_next(&inner, &d, &dlen) == 1) {
            int64_t x;
            ok = r < OM_MAX_RANK && tp_json_i64(d, dlen, &x) == TP_OK && x >= 0;
            if (ok)
                a->dim[a->n][r++] = (double)x;
        }
        a->rank[a->n++] = ok ? r : -1;
    }
}

/* The strings of a JSON array into out[i] (size 32 or 48), their count. */
static int om_strings(const char *v, size_t len, char *out, size_t size, int max)
{
    tp_json_iter it;
    const char *e;
    size_t elen;
    int n = 0;
    if (v == NULL || tp_json_array(v, len, &it) != TP_OK)
        return 0;
    while (n < max && tp_json_next(&it, &e, &elen) == 1) {
        char *o = out + (size_t)n * size;
        if (tp_json_str(e, elen, o, size) < 0)
            o[0] = '\0';
        n++;
    }
    return n;
}

static int om_read(const char *args, size_t len, om_args *a)
{
    size_t vlen;
    memset(a, 0, sizeof *a);
    const char *v = tp_json_get(args, len, "Input Dims", &vlen);
    if (v == NULL)
        v = tp_json_get(args, len, "Input dims", &vlen);
    om_dims(v, vlen, a);
    v = tp_json_get(args, len, "Input type", &vlen);
    a->ntypes = om_strings(v, vlen, &a->type[0][0], sizeof a->type[0], OM_MAX_IN);
    v = tp_json_get(args, len, "Concrete Inputs", &vlen);
    a->nconc = om_strings(v, vlen, &a->conc[0][0], sizeof a->conc[0], OM_MAX_IN);
    return a->n > 0;
}

/* Bytes per element of input i's type (the SDK's one table, tp_dtype_bpe;
 * float when unknown); bf16 set. */
static double om_bpe(const om_args *a, int i, int *bf16)
{
    const char *t = i < a->ntypes ? a->type[i] : "";
    double b = tp_dtype_bpe(t);
    if (bf16)
        *bf16 = strstr(t, "BFloat16") != NULL || strstr(t, "bfloat16") != NULL;
    return b > 0 ? b : 4;
}

static double om_numel(const om_args *a, int i)
{
    return i < a->n && a->rank[i] >= 0 ? tp_gemm_prod(a->dim[i], a->rank[i]) : 0;
}

/* A tensor input: a known shape of rank >= 1, or a 0-dim tensor (shape []
 * of a dtype: one element; a "Scalar", "" or "TensorList" is none). */
static int om_tensor(const om_args *a, int i)
{
    return i < a->n && (a->rank[i] >= 1 || (a->rank[i] == 0 && i < a->ntypes &&
                                             tp_dtype_bpe(a->type[i]) > 0));
}

/* Concrete input i is "True" (1), "False" (0), absent or other (-1). */
static int om_bool(const om_args *a, int i)
{
    if (i >= a->nconc)
        return -1;
    if (strcmp(a->conc[i], "True") == 0 || strcmp(a->conc[i], "true") == 0)
        return 1;
    if (strcmp(a->conc[i], "False") == 0 || strcmp(a->conc[i], "false") == 0)
        return 0;
    return -1;
}

/* An output_mask at Concrete Inputs[i] ("[True, True, False]") into
 * mask[0..2]; all true when the trace does not give it. */
static void om_mask(const om_args *a, int i, int mask[3])
{
    mask[0] = mask[1] = mask[2] = 1;
    const char *x = i < a->nconc && a->conc[i][0] == '[' ? a->conc[i] : NULL;
    for (int k = 0; x && k < 3 && (x = strpbrk(x, "TF")) != NULL; k++, x++)
        mask[k] = *x == 'T';
}

/* ---- attention (TraceLens's SDPA: flops_func, bytes_func, and their _bwd) */

typedef struct om_attention {
    const char *name;
    int q;      /* index of the query among the inputs (k, v follow) */
    int bnhd;   /* layout (B, N, H, d) (flash's); else (B, H, N, d) */
    int causal; /* index of is_causal among the Concrete Inputs */
    int bwd, flash;
    int cu;     /* variable length: index of cu_seqlens_q (k follows, then the max_seqlen
                 * q and k in Concrete Inputs); 0: none */
} om_attention;

static const om_attention om_attentions[] = {
    {"aten::_scaled_dot_product_flash_attention", 0, 0, 4, 0, 1, 0},
    {"aten::_scaled_dot_product_efficient_attention", 0, 0, 6, 0, 0, 0},
    {"aten::_scaled_dot_product_cudnn_attention", 0, 0, 6, 0, 0, 0},
    {"aten::_flash_attention_forward", 0, 1, 8, 0, 1, 3},
    {"flash_attn::_flash_attn_forward", 0, 1, 5, 0, 1, 0},
    {"flash_attn::_flash_attn_varlen_forward", 0, 1, 9, 0, 1, 3},
    {"aten::_scaled_dot_product_flash_attention_backward", 1, 0, 11, 1, 1, 0},
    {"aten::_scaled_dot_product_efficient_attention_backward", 1, 0, 11, 1, 0, 0},
    {"aten::_scaled_dot_product_cudnn_attention_backward", 1, 0, 14, 1, 0, 0},
    {"aten::_flash_attention_backward", 1, 1, 11, 1, 1, 6},
    {"flash_attn::_flash_attn_varlen_backward", 1, 1, 15, 1, 1, 9},
};

/* An attention's counts from its sizes (B sequences of N_Q queries and
 * N_KV keys, H_Q and H_KV heads): TraceLens's SDPA flops_func and
 * bytes_func (and their _bwd).  0 for a causal attention with N_Q != N_KV. */
typedef struct om_attn_size {
    double B, HQ, HKV, NQ, NKV, DQK, DV;
} om_attn_size;

static int om_attention_counts(const om_attention *m, const om_attn_size *z, int causal,
                               const om_args *a, tp_op_cost *c)
{
    double B = z->B, HQ = z->HQ, HKV = z->HKV, NQ = z->NQ, NKV = z->NKV, DQK = z->DQK,
           DV = z->DV;
    if (causal && NQ != NKV) {
        c->why = "causal attention with N_q != N_kv (the masked share is not half)";
        return 0; /* TraceLens refuses it too */
    }
    double f;
    if (!m->bwd) {
        f = B * HQ * (2 * NQ * NKV * DQK) + B * HQ * (2 * NQ * DV * NKV);
        c->bytes = B * NQ * HQ * DQK + B * NKV * HKV * DQK + B * NKV * HKV * DV + B * NQ * HQ * DV;
    } else {
        double g = HQ / HKV - 1; /* GQA: dK, dV summed over the group */
        f = m->flash ? B * HQ * (2 * NQ * NKV * DQK) : 0;
        f += B * HQ * (2 * NKV * NQ * DV) + B * NKV * DV * g;
        f += B * HQ * (2 * NQ * NKV * DV);
        f += B * HQ * (2 * NQ * NKV * DQK);
        f += B * HQ * (2 * NKV * NQ * DQK) + B * NKV * DQK * g;
        c->bytes = 2 * (B * NQ * HQ * DQK + B * NKV * HKV * DQK + B * NKV * HKV * DV) +
                   B * NQ * HQ * DV;
    }
    c->flops = causal ? f / 2 : f;
    c->bpe = om_bpe(a, m->q, &c->bf16);
    c->bytes *= c->bpe;
    c->matrix = 1;
    c->model = m->bwd ? "attention_bwd" : "attention_fwd";
    c->category = TP_OPCAT_ATTENTION;
    return 1;
}

/* Concrete input i as a whole number >= 0, or -1. */
static double om_count(const om_args *a, int i)
{
    char *end;
    if (i >= a->nconc || a->conc[i][0] == '\0')
        return -1;
    double x = strtod(a->conc[i], &end);
    return *end == '\0' && x >= 0 && x == floor(x) ? x : -1;
}

/* A variable-length attention: q (T_Q, H_Q, d), k and v (T_KV, H_KV, d)
 * packed, cu_seqlens (n + 1) tensors whose values the trace does not
 * record, max_seqlen ints.  Its sizes are exact only when one sequence is
 * packed (B 1, N = T) or all are of the longest length (T = n * max);
 * else 0 (TraceLens estimates the others' lengths: we do not). */
static int om_varlen_size(const om_attention *m, const om_args *a, om_attn_size *z)
{
    int q = m->q, k = q + 1, v = q + 2;
    if (!(om_tensor(a, m->cu) && a->rank[m->cu] == 1 && a->dim[m->cu][0] >= 2))
        return 0;
    double n = a->dim[m->cu][0] - 1, mq = om_count(a, m->cu + 2), mk = om_count(a, m->cu + 3);
    double TQ = a->dim[q][0], TK = a->dim[k][0];
    z->HQ = a->dim[q][1], z->HKV = a->dim[k][1], z->DQK = a->dim[q][2], z->DV = a->dim[v][2];
    if (n == 1)
        z->B = 1, z->NQ = TQ, z->NKV = TK;
    else if (mq > 0 && mk > 0 && TQ == n * mq && TK == n * mk)
        z->B = n, z->NQ = mq, z->NKV = mk;
    else
        return 0; /* the sequences' lengths differ and are not recorded */
    return a->dim[v][0] == TK && a->dim[v][1] == z->HKV;
}

/* om_varlen_size for attention m, with the reason it gives up in c->why. */
static int om_varlen(const om_attention *m, const om_args *a, om_attn_size *z, tp_op_cost *c)
{
    if (om_varlen_size(m, a, z))
        return 1;
    c->why = "variable-length attention whose sequences differ in length (cu_seqlens values "
             "not recorded)";
    return 0;
}

static int om_attention_cost(const om_attention *m, const om_args *a, tp_op_cost *c)
{
    int q = m->q, k = q + 1, v = q + 2;
    om_attn_size z;
    if (!om_tensor(a, v))
        return 0;
    if (m->cu > 0 && a->rank[q] == 3 && a->rank[k] == 3 && a->rank[v] == 3) {
        if (!om_varlen(m, a, &z, c))
            return 0;
    } else if (a->rank[q] == 4 && a->rank[k] == 4 && a->rank[v] == 4) {
        int ih = m->bnhd ? 2 : 1, in = m->bnhd ? 1 : 2;
        z = (om_attn_size){a->dim[q][0], a->dim[q][ih], a->dim[k][ih], a->dim[q][in],
                           a->dim[k][in], a->dim[q][3], a->dim[v][3]};
        if (a->dim[k][0] != z.B || a->dim[v][0] != z.B || a->dim[v][ih] != z.HKV ||
            a->dim[v][in] != z.NKV || a->dim[k][3] != z.DQK)
            return 0;
    } else {
        return 0; /* unknown shapes */
    }
    if (z.HKV <= 0 || fmod(z.HQ, z.HKV) != 0)
        return 0;
    if (m->cu > 0 && a->rank[q] == 3 && z.DQK != a->dim[k][2])
        return 0;
    return om_attention_counts(m, &z, om_bool(a, m->causal) == 1, a, c);
}

/* ---- convolutions (TraceLens's CONV: flops_func, bytes_func and _bwd) */

/* The ints of a Concrete Inputs list ("[2, 2]"; "" is absent) into v[0,
 * n); a single value stands for every spatial dim.  1, or 0 when it is not
 * such a list. */
static int om_ints(const om_args *a, int i, int n, double dflt, double *v)
{
    for (int k = 0; k < n; k++)
        v[k] = dflt;
    if (i >= a->nconc)
        return 0;
    if (a->conc[i][0] == '\0')
        return 1;
    const char *x = a->conc[i] + (a->conc[i][0] == '[');
    int k = 0;
    while (*x && *x != ']' && k < n) {
        char *end;
        long long d = strtoll(x, &end, 10);
        if (end == x || d < 0)
            return 0;
        v[k++] = (double)d;
        x = end;
        while (*x == ',' || *x == ' ')
            x++;
    }
    for (int j = k; k == 1 && j < n; j++)
        v[j] = v[0];
    return k == 1 || k == n;
}

/* 2 FLOPs per weight element reached from an output element; the input,
 * weight and output read or written once (and the bias). */
static void om_conv_counts(double x, double w, double per_out, double out, double bias_c,
                           tp_op_cost *c)
{
    c->flops = out * 2 * per_out + (bias_c > 0 ? out : 0);
    c->bytes = x + w + bias_c + out;
}

/* A forward convolution: cudnn/miopen_convolution (self, weight, padding,
 * stride, dilation, groups ...) or convolution (input, weight, bias,
 * stride, padding, dilation, transposed, output_padding, groups). */
static int om_conv_fwd(const char *name, const om_args *a, tp_op_cost *c)
{
    int cudnn = strcmp(name, "aten::cudnn_convolution") == 0 ||
                strcmp(name, "aten::miopen_convolution") == 0;
    int conv = strcmp(name, "aten::convolution") == 0 || strcmp(name, "aten::_convolution") == 0;
    if (!(cudnn || conv) || !om_tensor(a, 0) || !om_tensor(a, 1) || a->rank[0] < 3 ||
        a->rank[0] > 5 || a->rank[1] != a->rank[0])
        return 0;
    int nd = a->rank[0] - 2, ip = cudnn ? 2 : 4, is = cudnn ? 3 : 3, id = cudnn ? 4 : 5;
    double pad[3], str[3], dil[3];
    if (!om_ints(a, ip, nd, 0, pad) || !om_ints(a, is, nd, 1, str) || !om_ints(a, id, nd, 1, dil))
        return 0;
    if (conv && om_bool(a, 6) != 0)
        return 0; /* transposed: not modelled */
    const double *x = a->dim[0], *w = a->dim[1];
    double out = x[0] * w[0];
    for (int k = 0; k < nd; k++) {
        double o = floor((x[2 + k] + 2 * pad[k] - dil[k] * (w[2 + k] - 1) - 1) / str[k]) + 1;
        if (!(str[k] > 0) || o < 1)
            return 0;
        out *= o;
    }
    double bias_c = conv && om_tensor(a, 2) ? om_numel(a, 2) : 0;
    om_conv_counts(om_numel(a, 0), om_numel(a, 1), tp_gemm_prod(w + 1, a->rank[1] - 1), out,
                   bias_c, c);
    c->model = "conv_fwd";
    return 1;
}

/* convolution_backward (grad_output, input, weight, bias_sizes, stride,
 * padding, dilation, transposed, output_padding, groups, output_mask): the
 * input gradient (grad_output, weight -> input size), the weight gradient
 * (grad_output, input -> weight size) and the bias's (grad_output read, the
 * bias written), each by output_mask (all three without it). */
static int om_conv_bwd(const char *name, const om_args *a, tp_op_cost *c)
{
    if (strcmp(name, "aten::convolution_backward") != 0 || !om_tensor(a, 0) ||
        !om_tensor(a, 1) || !om_tensor(a, 2) || a->rank[2] != a->rank[1])
        return 0;
    if (om_bool(a, 7) == 1)
        return 0; /* transposed: not modelled */
    int mask[3];
    om_mask(a, 10, mask);
    double go = om_numel(a, 0), in = om_numel(a, 1), w = om_numel(a, 2);
    double per_out = tp_gemm_prod(a->dim[2] + 1, a->rank[2] - 1), cout = a->dim[2][0];
    c->flops = (mask[0] + mask[1]) * go * 2 * per_out + (mask[2] ? go : 0);
    c->bytes = (mask[0] + mask[1]) * (go + w + in) + (mask[2] ? go + cout : 0);
    c->model = "conv_bwd";
    return 1;
}

static int om_conv_cost(const char *name, const om_args *a, tp_op_cost *c)
{
    int q = strcmp(name, "aten::convolution_backward") == 0 ? 1 : 0;
    if (!om_conv_fwd(name, a, c) && !om_conv_bwd(name, a, c))
        return 0;
    c->bpe = om_bpe(a, q, &c->bf16);
    c->bytes *= c->bpe;
    c->matrix = 1;
    c->category = TP_OPCAT_CONV;
    return 1;
}

/* ---- norms (TraceLens's Normalization, LayerNorm(Bwd), BatchNorm, RMSNorm) */

/* The elements of normalized_shape: the weight's when given (index w),
 * else the Concrete Inputs' list at index s ("[512]"), else 0. */
static double om_normalized(const om_args *a, int w, int s)
{
    if (om_tensor(a, w))
        return om_numel(a, w);
    double v[OM_MAX_RANK];
    int n = 0;
    for (const char *x = s < a->nconc ? a->conc[s] : ""; *x; x++)
        n += *x == ',';
    if (s >= a->nconc || a->conc[s][0] != '[' || n + 1 > OM_MAX_RANK ||
        !om_ints(a, s, n + 1, 0, v))
        return 0;
    return tp_gemm_prod(v, n + 1);
}

/* The forward of Normalization: N elements, C channels. */
static void om_norm_fwd(double N, double C, int affine, int bias, int training, double bpe,
                        tp_op_cost *c)
{
    double pc = C * 3 + (training ? N * 3 : 0) + C * 3;
    c->flops = pc + 2 * N;
    double w = 2 + (affine ? 1 + (bias ? 1 : 0) : 0) + (training ? 2 : 0);
    c->bytes = N * bpe + N * bpe + w * C * bpe;
}

/* The backward of Normalization, output_mask[0] = mask0. */
static void om_norm_bwd(double N, double C, int affine, int bias, int training, int mask0,
                        double bpe, tp_op_cost *c)
{
    double epc = N / C, fpc = training ? 0 : 3;
    fpc += 4 * epc;
    if (mask0)
        fpc += training ? 5 * epc : 0;
    else
        fpc += 2 * epc;
    c->flops = C * fpc;
    double b = N * bpe + N * bpe * (mask0 && training ? 2 : 1);
    if (training)
        b += C * bpe;
    if (affine) {
        b += C * bpe;
        if (training)
            b += C * bpe * (bias ? 2 : 1);
    }
    c->bytes = b;
}

/* The backwards of batch, group and RMS norm (TraceLens's BatchNormBwd,
 * GroupNormBwd, RMSNormBwd); 1 and c's counts, else 0. */
static int om_norm_bwd_cost(const char *name, const om_args *a, tp_op_cost *c, int *bf16)
{
    int mask[3];
    if (strcmp(name, "aten::cudnn_batch_norm_backward") == 0 ||
        strcmp(name, "aten::miopen_batch_norm_backward") == 0 ||
        strcmp(name, "aten::native_batch_norm_backward") == 0) {
        int native = name[6] == 'n', x = native ? 1 : 0;
        int training = native ? om_bool(a, 7) : 0; /* cuDNN's and MIOpen's: inference stats */
        if (!om_tensor(a, x) || a->rank[x] < 2 || training < 0)
            return 0;
        c->bpe = om_bpe(a, x, bf16);
        om_norm_bwd(om_numel(a, x), a->dim[x][1], 1, 1, training, 1, c->bpe, c);
        return 1;
    }
    if (strcmp(name, "aten::native_group_norm_backward") == 0) {
        char *end = NULL;
        long groups = a->nconc > 8 ? strtol(a->conc[8], &end, 10) : 0;
        if (!om_tensor(a, 1) || a->rank[1] < 2 || groups <= 0 || *end)
            return 0;
        om_mask(a, 9, mask);
        c->bpe = om_bpe(a, 1, bf16);
        om_norm_bwd(om_numel(a, 1), a->dim[1][1] / (double)groups, 1, 1, 1, mask[0], c->bpe, c);
        return 1;
    }
    if (strcmp(name, "aten::_fused_rms_norm_backward") == 0 ||
        strcmp(name, "aten::rms_norm_backward") == 0) {
        /* (grad_out, input, normalized_shape, rstd, weight, output_mask) */
        double N = om_numel(a, 1), C = om_normalized(a, 4, 2);
        if (!om_tensor(a, 1) || C <= 0)
            return 0;
        int affine = om_tensor(a, 4);
        om_mask(a, 5, mask);
        c->bpe = om_bpe(a, 1, bf16);
        c->flops = (affine ? N : 0) + N + (mask[0] ? 6 * N : 0) +
                   (mask[1] && affine ? N + (N / C > 1 ? N : 0) : 0);
        c->bytes = 3 * N * c->bpe + (affine ? 2 * C * c->bpe : 0);
        return 1;
    }
    return 0;
}

static int om_norm_cost(const char *name, const om_args *a, tp_op_cost *c)
{
    int bf16 = 0;
    double N, C;
    if (strcmp(name, "aten::native_layer_norm") == 0) {
        N = om_numel(a, 0), C = om_normalized(a, 2, 1);
        if (!om_tensor(a, 0) || C <= 0)
            return 0;
        c->bpe = om_bpe(a, 0, &bf16);
        om_norm_fwd(N, C, 1, 1, 1, c->bpe, c); /* TraceLens: affine, bias, training */
        c->model = "norm_fwd";
    } else if (strcmp(name, "aten::native_layer_norm_backward") == 0) {
        N = om_numel(a, 1), C = om_normalized(a, 5, 2);
        if (!om_tensor(a, 1) || C <= 0)
            return 0;
        int mask[3]; /* output_mask, Concrete Inputs[7]: "[True, True, True]" */
        om_mask(a, 7, mask);
        c->bpe = om_bpe(a, 1, &bf16);
        om_norm_bwd(N, C, mask[1], mask[2], 1, mask[0], c->bpe, c);
        c->model = "norm_bwd";
    } else if (strcmp(name, "aten::native_batch_norm") == 0 ||
               strcmp(name, "aten::cudnn_batch_norm") == 0 ||
               strcmp(name, "aten::miopen_batch_norm") == 0) {
        if (!om_tensor(a, 0) || a->rank[0] < 2)
            return 0;
        N = om_numel(a, 0), C = a->dim[0][1];
        int training = om_bool(a, 5);
        if (training < 0 || C <= 0)
            return 0;
        c->bpe = om_bpe(a, 0, &bf16);
        om_norm_fwd(N, C, om_tensor(a, 1), 1, training, c->bpe, c);
        c->model = "norm_fwd";
    } else if (strcmp(name, "aten::native_group_norm") == 0) {
        if (!om_tensor(a, 0) || a->rank[0] < 2)
            return 0;
        c->bpe = om_bpe(a, 0, &bf16); /* TraceLens's GroupNorm: C channels, as a batch norm's */
        om_norm_fwd(om_numel(a, 0), a->dim[0][1], 1, 1, 1, c->bpe, c);
        c->model = "norm_fwd";
    } else if (om_norm_bwd_cost(name, a, c, &bf16)) {
        c->model = "norm_bwd";
    } else if (strcmp(name, "aten::rms_norm") == 0 || strcmp(name, "aten::_fused_rms_norm") == 0) {
        N = om_numel(a, 0), C = om_normalized(a, 2, 1);
        if (!om_tensor(a, 0) || C <= 0)
            return 0;
        int affine = om_tensor(a, 2);
        c->bpe = om_bpe(a, 0, &bf16);
        c->flops = N / C * (2 * C + 2) + N * (affine ? 2 : 1);
        c->bytes = 2 * N * c->bpe + (affine ? C * c->bpe : 0);
        c->model = "norm_fwd";
    } else {
        return 0;
    }
    c->bf16 = bf16;
    c->matrix = 0;
    c->category = TP_OPCAT_NORM;
    return 1;
}

/* ---- element-wise ops and reductions by bytes */

/* How an op moves its tensors: out-of-place (reads its inputs, writes one
 * output as large as its largest input), in place (reads its inputs, writes
 * the first again), copy (reads the source, writes the destination: each
 * input once), fill (writes its first input only), reduction (reads its
 * inputs; the output is small). */
enum { OM_OUT, OM_INPLACE, OM_COPY, OM_FILL, OM_REDUCE };

static const struct om_ew {
    const char *name; /* without "aten::" */
    int kind;
} om_ews[] = {
    {"copy_", OM_COPY}, {"fill_", OM_FILL}, {"zero_", OM_FILL},
    {"sum", OM_REDUCE}, {"mean", OM_REDUCE}, {"amax", OM_REDUCE}, {"amin", OM_REDUCE},
    {"max", OM_REDUCE}, {"min", OM_REDUCE}, {"prod", OM_REDUCE}, {"norm", OM_REDUCE},
    {"linalg_vector_norm", OM_REDUCE}, {"argmax", OM_REDUCE}, {"argmin", OM_REDUCE},
    {"any", OM_REDUCE}, {"all", OM_REDUCE}, {"var", OM_REDUCE}, {"std", OM_REDUCE},
    {"abs", OM_OUT}, {"neg", OM_OUT}, {"exp", OM_OUT}, {"log", OM_OUT}, {"sqrt", OM_OUT},
    {"rsqrt", OM_OUT}, {"reciprocal", OM_OUT}, {"sin", OM_OUT}, {"cos", OM_OUT},
    {"tanh", OM_OUT}, {"sigmoid", OM_OUT}, {"relu", OM_OUT}, {"gelu", OM_OUT},
    {"silu", OM_OUT}, {"mul", OM_OUT}, {"div", OM_OUT}, {"add", OM_OUT}, {"sub", OM_OUT},
    {"rsub", OM_OUT}, {"pow", OM_OUT}, {"where", OM_OUT}, {"clamp", OM_OUT},
    {"clamp_min", OM_OUT}, {"clamp_max", OM_OUT}, {"maximum", OM_OUT}, {"minimum", OM_OUT},
    {"eq", OM_OUT}, {"ne", OM_OUT}, {"lt", OM_OUT}, {"le", OM_OUT}, {"gt", OM_OUT},
    {"ge", OM_OUT}, {"logical_not", OM_OUT}, {"logical_and", OM_OUT},
    {"bitwise_and", OM_OUT}, {"bitwise_or", OM_OUT}, {"masked_fill", OM_OUT},
    {"nan_to_num", OM_OUT}, {"tanh_backward", OM_OUT}, {"sigmoid_backward", OM_OUT},
    {"threshold_backward", OM_OUT}, {"gelu_backward", OM_OUT}, {"silu_backward", OM_OUT},
    {"hardtanh_backward", OM_OUT}, {"leaky_relu_backward", OM_OUT}, {"_softmax", OM_OUT},
    {"_softmax_backward_data", OM_OUT}, {"_log_softmax", OM_OUT},
    {"_log_softmax_backward_data", OM_OUT}, {"erf", OM_OUT}, {"sign", OM_OUT},
    {"floor", OM_OUT}, {"ceil", OM_OUT}, {"round", OM_OUT}, {"addcmul", OM_OUT},
    {"addcdiv", OM_OUT}, {"lerp", OM_OUT}, {"_foreach_add", OM_OUT},
};

/* The table's entry of op `base` ("add_" is "add" in place), or -1. */
static int om_ew_kind(const char *base)
{
    char stem[64];
    size_t n = strlen(base);
    for (size_t i = 0; i < sizeof om_ews / sizeof *om_ews; i++)
        if (strcmp(om_ews[i].name, base) == 0)
            return om_ews[i].kind;
    if (n == 0 || n >= sizeof stem || base[n - 1] != '_')
        return -1;
    memcpy(stem, base, n - 1);
    stem[n - 1] = '\0';
    for (size_t i = 0; i < sizeof om_ews / sizeof *om_ews; i++)
        if (strcmp(om_ews[i].name, stem) == 0 && om_ews[i].kind == OM_OUT)
            return OM_INPLACE;
    return -1;
}

static int om_elementwise_cost(const char *name, const om_args *a, tp_op_cost *c)
{
    if (strncmp(name, "aten::", 6) != 0)
        return 0;
    int kind = om_ew_kind(name + 6);
    if (kind < 0 || !om_tensor(a, 0))
        return 0;
    double sum = 0, big = 0;
    for (int i = 0; i < a->n; i++) {
        if (a->rank[i] < 0) {
            c->why = "a tensor list (its shapes are not written)";
            return 0;
        }
        if (!om_tensor(a, i))
            continue;
        double e = om_numel(a, i);
        sum += e * om_bpe(a, i, NULL);
        big = e > big ? e : big;
    }
    int bf16;
    c->bpe = om_bpe(a, 0, &bf16);
    c->bf16 = bf16;
    double first = om_numel(a, 0) * c->bpe;
    c->bytes = kind == OM_FILL ? first
               : kind == OM_OUT ? sum + big * c->bpe
               : kind == OM_INPLACE ? sum + first
                                    : sum;
    c->flops = kind == OM_FILL || kind == OM_COPY ? 0 : big;
    c->matrix = 0;
    c->model = "elementwise_bytes";
    c->category = TP_OPCAT_ELEMENTWISE;
    return 1;
}

/* ---- gathers: embedding bags and index_select by their bytes */

/* aten::_embedding_bag / embedding_bag (weight [E, D], indices [I],
 * offsets [B or B+1], scale_grad_by_freq, mode, sparse, per_sample_weights,
 * include_last_offset, padding_idx): I rows of D read and summed, B rows of
 * D written, the indices, offsets and per-sample weights read.
 * aten::index_select (self, dim, index): numel(index) slices of self read
 * and written, the index read. */
static int om_gather_cost(const char *name, const om_args *a, tp_op_cost *c)
{
    int bf16;
    if (strcmp(name, "aten::_embedding_bag") == 0 || strcmp(name, "aten::embedding_bag") == 0 ||
        strcmp(name, "aten::_embedding_bag_forward_only") == 0) {
        if (!om_tensor(a, 0) || a->rank[0] != 2 || !om_tensor(a, 1) || !om_tensor(a, 2))
            return 0;
        double D = a->dim[0][1], I = om_numel(a, 1), nb = om_numel(a, 2);
        double B = nb - (om_bool(a, 7) == 1 ? 1 : 0);
        c->bpe = om_bpe(a, 0, &bf16);
        c->bytes = (I * D + B * D) * c->bpe + I * om_bpe(a, 1, NULL) + nb * om_bpe(a, 2, NULL) +
                   (om_tensor(a, 6) ? om_numel(a, 6) * om_bpe(a, 6, NULL) : 0);
        c->flops = I * D;
        c->model = "embedding_bag";
    } else if (strcmp(name, "aten::index_select") == 0) {
        if (!om_tensor(a, 0) || !om_tensor(a, 2) || a->nconc < 2)
            return 0;
        char *end;
        long dim = strtol(a->conc[1], &end, 10);
        if (end == a->conc[1] || *end)
            return 0;
        if (dim < 0)
            dim += a->rank[0];
        if (dim < 0 || dim >= a->rank[0] || a->dim[0][dim] <= 0)
            return 0;
        double out = om_numel(a, 0) / a->dim[0][dim] * om_numel(a, 2);
        c->bpe = om_bpe(a, 0, &bf16);
        c->bytes = 2 * out * c->bpe + om_numel(a, 2) * om_bpe(a, 2, NULL);
        c->flops = 0;
        c->model = "gather_bytes";
    } else if (strcmp(name, "aten::_index_put_impl_") == 0 ||
               strcmp(name, "aten::index_put_") == 0 || strcmp(name, "aten::index_put") == 0) {
        /* (self, indices, values, accumulate): the values read and written
         * into self; the indices are a tensor list whose shapes the trace
         * does not write: a lower bound without them */
        if (!om_tensor(a, 0) || !om_tensor(a, 2) || a->rank[0] < 1)
            return 0;
        c->bpe = om_bpe(a, 0, &bf16);
        c->bytes = om_numel(a, 2) * (om_bpe(a, 2, NULL) + c->bpe);
        c->flops = om_bool(a, 3) == 1 ? om_numel(a, 2) : 0;
        c->model = "gather_bytes";
    } else {
        return 0;
    }
    c->bf16 = bf16;
    c->matrix = 0;
    c->category = TP_OPCAT_OTHER;
    return 1;
}

/* ---- grouped, scaled (FP8, MX / NVFP4) and fused-MoE GEMMs */

/* Input i is a packed FP4 pair per element (Float4_e2m1fn_x2): 2 values. */
static double om_pack(const om_args *a, int i)
{
    return i < a->ntypes && strstr(a->type[i], "Float4_e2m1fn_x2") ? 2 : 1;
}

/* The bytes of input i as stored (0 when it is not a tensor). */
static double om_stored(const om_args *a, int i)
{
    return om_tensor(a, i) ? om_numel(a, i) * om_bpe(a, i, NULL) : 0;
}

/* The element size of a scaled product's output: its out_dtype (Concrete
 * input i: a c10 ScalarType code as the profiler writes it) when given,
 * else TraceLens's assumption (2 bytes after 1-byte inputs, else the
 * input's size). */
static double om_out_bpe(const om_args *a, int i, double in_bpe)
{
    static const double by_code[] = {1, 1, 2, 4, 8, 2, 4, 8, 4, 8, 16, 1, 1, 1, 4, 2,
                                     0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1};
    double code = om_count(a, i);
    if (code >= 0 && code < (double)(sizeof by_code / sizeof *by_code) && by_code[(int)code] > 0)
        return by_code[(int)code];
    return in_bpe <= 1 ? 2 : in_bpe;
}

/* The compute type of a product of inputs 0 and 1: the narrower's (a packed
 * FP4 pair computes at 0.5 byte per value: the preset's FP4 peak). */
static void om_product_type(const om_args *a, tp_op_cost *c)
{
    int bf16;
    double x = om_bpe(a, 0, &bf16) / om_pack(a, 0), y = om_bpe(a, 1, NULL) / om_pack(a, 1);
    c->bpe = x < y ? x : y;
    c->bf16 = bf16 && c->bpe == 2;
    c->matrix = 1;
}

/* aten::_scaled_mm (self (M, K), mat2 (K, N), scale_a, scale_b, bias,
 * scale_result, out_dtype, use_fast_accum): 2·M·N·K FLOPs (K in values: a
 * packed FP4 pair is two) + M·N with a bias; bytes the operands as
 * stored, the scales (per tensor, row or block: MX's e8m0, NVFP4's e4m3),
 * the bias and the output of out_dtype. */
static int om_scaled_mm(const om_args *a, tp_op_cost *c)
{
    if (!om_tensor(a, 0) || !om_tensor(a, 1) || a->rank[0] != 2 || a->rank[1] != 2)
        return 0;
    double M = a->dim[0][0], K = a->dim[0][1] * om_pack(a, 0), N = a->dim[1][1];
    if (a->dim[1][0] * om_pack(a, 1) != K)
        return 0;
    int bias = om_tensor(a, 4);
    c->flops = 2 * M * N * K + (bias ? M * N : 0);
    c->bytes = om_stored(a, 0) + om_stored(a, 1) + om_stored(a, 2) + om_stored(a, 3) +
               om_stored(a, 4) + M * N * om_out_bpe(a, 6, om_bpe(a, 0, NULL));
    c->model = "scaled_gemm";
    return 1;
}

/* aten::_grouped_mm (mat_a, mat_b, offs, bias, out_dtype) and
 * aten::_scaled_grouped_mm (mat_a, mat_b, scale_a, scale_b, offs, bias,
 * scale_result, out_dtype, use_fast_accum): G products whose group sizes
 * offs holds (its values are not needed: FLOPs and bytes depend on the
 * totals).  2-D x 3-D: A (M, K), B (G, K, N) -> (M, N); 3-D x 3-D: A
 * (G, M, K), B (G, K, N) -> (G, M, N); 2-D x 2-D (K jagged): A (M, K),
 * B (K, N) -> (G, M, N); 3-D x 2-D (N jagged): A (G, M, K), B (K, N) ->
 * (M, N).  FLOPs 2 · (output elements of one group's width) · K, i.e.
 * 2·M·N·K over the totals; bytes A, B, offs, scales, bias as stored and
 * the output (TraceLens's GroupedGemm: (M·K + G·K·N)·bpe_in + M·N·bpe_out,
 * plus offs and scales). */
static int om_grouped_mm(const om_args *a, int scaled, tp_op_cost *c)
{
    int ra = om_tensor(a, 0) ? a->rank[0] : 0, rb = om_tensor(a, 1) ? a->rank[1] : 0;
    int offs = scaled ? 4 : 2, bias = scaled ? 5 : 3, outd = scaled ? 7 : 4;
    if (ra < 2 || ra > 3 || rb < 2 || rb > 3)
        return 0;
    const double *A = a->dim[0], *B = a->dim[1];
    double K = A[ra - 1] * om_pack(a, 0), M = A[ra - 2], N = B[rb - 1];
    double G = ra == 3 ? A[0] : rb == 3 ? B[0] : om_tensor(a, offs) ? om_numel(a, offs) : 0;
    if (B[rb - 2] * om_pack(a, 1) != K || G <= 0 || (ra == 3 && rb == 3 && B[0] != G))
        return 0;
    double out = ra == 2 && rb == 2 ? G * M * N : ra == 3 && rb == 3 ? G * M * N : M * N;
    double flops_k = ra == 3 && rb == 3 ? G * M * N : M * N; /* K summed over the groups when jagged */
    double in_bpe = om_bpe(a, 0, NULL);
    c->flops = 2 * flops_k * K;
    c->bytes = om_stored(a, 0) + om_stored(a, 1) + om_stored(a, offs) + om_stored(a, bias) +
               (scaled ? om_stored(a, 2) + om_stored(a, 3) : 0) +
               out * (scaled ? om_out_bpe(a, outd, in_bpe) : in_bpe);
    c->model = scaled ? "scaled_grouped_gemm" : "grouped_gemm";
    return 1;
}

/* vLLM's fused experts (vllm::outplace_fused_experts, inplace_fused_experts:
 * hidden_states (T, H), w1 (E, 2·I or I, H), w2 (E, H, I), topk_weights and
 * topk_ids (T, k)): TraceLens's FusedMoE, FLOPs 2·T·H·I·k·(2 if gated) +
 * 2·T·H·I·k + T·H·(2k − 1) (the weighted sum); bytes the tokens read and
 * written, the routing, and the weights of the experts used: E_active =
 * E·(1 − ((E − k)/E)^T), the expected number under uniform routing (the
 * trace does not record which experts the tokens went to). */
static int om_fused_moe(const om_args *a, tp_op_cost *c)
{
    if (!om_tensor(a, 0) || !om_tensor(a, 1) || !om_tensor(a, 2) || !om_tensor(a, 4) ||
        a->rank[0] != 2 || a->rank[1] != 3 || a->rank[2] != 3 || a->rank[4] != 2)
        return 0;
    double T = a->dim[0][0], H = a->dim[0][1], E = a->dim[1][0], I = a->dim[2][2];
    double k = a->dim[4][1], up = a->dim[1][1];
    int gated = up == 2 * I;
    if (!(gated || up == I) || a->dim[1][2] != H || a->dim[2][0] != E || a->dim[2][1] != H ||
        a->dim[4][0] != T || k < 1 || k > E)
        return 0;
    double active = E * (1 - pow((E - k) / E, T));
    double in_bpe = om_bpe(a, 0, NULL), w_bpe = om_bpe(a, 1, NULL);
    c->flops = 2 * T * H * I * k * (gated ? 2 : 1) + 2 * T * H * I * k + T * H * (2 * k - 1);
    c->bytes = 2 * T * H * in_bpe + active * I * H * w_bpe * (gated ? 3 : 2) +
               om_stored(a, 3) + om_stored(a, 4);
    int bf16;
    double x = om_bpe(a, 0, &bf16);
    c->bpe = w_bpe == 1 && strstr(a->type[1], "Float8") ? 1 : x; /* W8A8: the FP8 rate */
    c->bf16 = bf16 && c->bpe == 2;
    c->matrix = 1;
    c->model = "fused_moe";
    c->category = TP_OPCAT_MOE;
    return 1;
}

static int om_gemm_family_cost(const char *name, const om_args *a, tp_op_cost *c)
{
    int ok = 0;
    if (strcmp(name, "aten::_scaled_mm") == 0)
        ok = om_scaled_mm(a, c);
    else if (strcmp(name, "aten::_grouped_mm") == 0)
        ok = om_grouped_mm(a, 0, c);
    else if (strcmp(name, "aten::_scaled_grouped_mm") == 0)
        ok = om_grouped_mm(a, 1, c);
    else if (strcmp(name, "vllm::outplace_fused_experts") == 0 ||
             strcmp(name, "vllm::inplace_fused_experts") == 0)
        return om_fused_moe(a, c);
    if (ok) {
        om_product_type(a, c);
        c->category = strstr(name, "grouped") ? TP_OPCAT_MOE : TP_OPCAT_GEMM;
    }
    return ok;
}

/* ---- fbgemm's sparse-feature ops by their bytes (fbgemm_gpu's sparse_ops) */

/* How an op moves its tensors: SP_CUMSUM reads x (N) and writes N + 1
 * (complete) or N values; SP_READ reads its tensors (bounds_check_indices:
 * it writes only what it clamps); SP_COPY reads its tensors and writes one
 * as large as the first (permute_pooled_embs, recat_embedding_grad_output:
 * the pooled embeddings permuted); SP_PERMUTE (permute, lengths (T, B),
 * indices[, weights]) reads them and writes the permuted lengths (permute
 * x B): a lower bound, since how many indices the permutation selects is
 * not recorded. */
enum { SP_CUMSUM_COMPLETE, SP_CUMSUM, SP_READ, SP_COPY, SP_PERMUTE };

static const struct om_sparse {
    const char *name; /* after the last "::", or a part of an autograd node's name */
    int kind;
} om_sparses[] = {
    {"asynchronous_complete_cumsum", SP_CUMSUM_COMPLETE},
    {"asynchronous_exclusive_cumsum", SP_CUMSUM},
    {"asynchronous_inclusive_cumsum", SP_CUMSUM},
    {"bounds_check_indices", SP_READ},
    {"permute_pooled_embs_auto_grad", SP_COPY},
    {"permute_pooled_embs", SP_COPY},
    {"recat_embedding_grad_output_mixed_D_batch", SP_COPY},
    {"recat_embedding_grad_output", SP_COPY},
    {"permute_2D_sparse_data", SP_PERMUTE},
    {"permute_sparse_features", SP_PERMUTE},
};

static int om_sparse_kind(const char *name)
{
    const char *base = strrchr(name, ':') ? strrchr(name, ':') + 1 : name;
    for (size_t i = 0; i < sizeof om_sparses / sizeof *om_sparses; i++)
        if (strcmp(base, om_sparses[i].name) == 0)
            return om_sparses[i].kind;
    if (strstr(name, "PermutePooledEmbsFunction")) /* its backward: the gradient permuted back */
        return SP_COPY;
    return -1;
}

static int om_sparse_cost(const char *name, const om_args *a, tp_op_cost *c)
{
    int kind = om_sparse_kind(name), bf16;
    if (kind < 0 || !om_tensor(a, 0) || a->rank[0] < 1)
        return 0;
    double read = 0;
    for (int i = 0; i < a->n; i++)
        if (a->rank[i] < 0)
            return 0;
        else
            read += om_stored(a, i);
    double first = om_stored(a, 0), n0 = om_numel(a, 0);
    c->bpe = om_bpe(a, 0, &bf16);
    c->flops = kind == SP_CUMSUM_COMPLETE || kind == SP_CUMSUM ? n0 : 0;
    if (kind == SP_CUMSUM_COMPLETE)
        c->bytes = first + (n0 + 1) * c->bpe;
    else if (kind == SP_CUMSUM)
        c->bytes = 2 * first;
    else if (kind == SP_READ)
        c->bytes = read;
    else if (kind == SP_COPY)
        c->bytes = read + first;
    else if (om_tensor(a, 1) && a->rank[1] == 2)
        c->bytes = read + n0 * a->dim[1][1] * om_bpe(a, 1, NULL);
    else
        return 0;
    c->bf16 = bf16;
    c->matrix = 0;
    c->model = "sparse_bytes";
    c->category = TP_OPCAT_OTHER;
    return 1;
}

int tp_op_cost_of(const char *name, const char *args, size_t len, tp_op_cost *c)
{
    om_args *a = malloc(sizeof *a);
    int ok = 0;
    memset(c, 0, sizeof *c);
    if (a == NULL || name == NULL || args == NULL || !om_read(args, len, a)) {
        free(a);
        return 0;
    }
    for (size_t i = 0; !ok && i < sizeof om_attentions / sizeof *om_attentions; i++)
        if (strcmp(om_attentions[i].name, name) == 0)
            ok = om_attention_cost(&om_attentions[i], a, c);
    if (!ok)
        ok = om_gemm_family_cost(name, a, c);
    if (!ok)
        ok = om_conv_cost(name, a, c);
    if (!ok)
        ok = om_norm_cost(name, a, c);
    if (!ok)
        ok = om_elementwise_cost(name, a, c);
    if (!ok)
        ok = om_gather_cost(name, a, c);
    if (!ok)
        ok = om_sparse_cost(name, a, c);
    for (int i = 0; !ok && !c->why && i < a->ntypes; i++)
        if (strcmp(a->type[i], "TensorList") == 0)
            c->why = "a tensor list (its shapes are not written)";
    if (ok)
        c->why = NULL;
    free(a);
    return ok;
}

/* ---- categories */

const char *tp_op_category_name(tp_op_category c)
{
    static const char *const names[TP_OPCAT_N] = {"gemm", "attention", "moe", "norm", "conv",
                                                  "elementwise", "communication", "other"};
    return (unsigned)c < TP_OPCAT_N ? names[c] : "other";
}

/* Whether the lower-cased name holds one of the words. */
static int om_has_any(const char *low, const char *const *words)
{
    for (size_t i = 0; words[i]; i++)
        if (strstr(low, words[i]))
            return 1;
    return 0;
}

tp_op_category tp_op_category_of(const char *name)
{
    return tp_op_category_in(tp_vocab_builtin(), name);
}

tp_op_category tp_op_category_in(const tp_vocab *v, const char *name)
{
    static const char *const moe[] = {"moe", "expert", "grouped_mm", "grouped_gemm", NULL};
    static const char *const attn[] = {"attention", "attn", "sdpa", "fmha", NULL};
    static const char *const norm[] = {"layer_norm", "layernorm", "rms_norm", "rmsnorm",
                                       "batch_norm", "batchnorm", "group_norm", "groupnorm",
                                       "instance_norm", "instancenorm", NULL};
    static const char *const conv[] = {"convolution", "conv1d", "conv2d", "conv3d",
                                       "conv_transpose", "convbias", "conv_depthwise", NULL};
    static const char *const gemm[] = {"gemm", "matmul", "scaled_mm", "mmbackward", NULL};
    static const char *const gemm_ops[] = {"mm", "addmm", "bmm", "baddbmm", "addmv", "mv", "dot",
                                           "linear", "_addmm_activation", "einsum", NULL};
    char low[256];
    size_t n = 0;
    for (; name && name[n] && n + 1 < sizeof low; n++)
        low[n] = (char)tolower((unsigned char)name[n]);
    low[n] = '\0';
    for (char *fb = strstr(low, "fbgemm"); fb; fb = strstr(fb, "fbgemm"))
        memcpy(fb, "fb_lib", 6); /* fbgemm's ops (embeddings, permutes) are not products */
    const char *base = strrchr(low, ':') ? strrchr(low, ':') + 1 : low; /* "aten::add_" -> "add_" */
    while (*base == ' ')
        base++;
    if (name && tp_vocab_collective(v, name) != TP_COLL_NONE)
        return TP_OPCAT_COMMUNICATION; /* the collectives' vocabulary (nccl:all_reduce) */
    if (om_has_any(low, moe))
        return TP_OPCAT_MOE;
    if (om_has_any(low, attn))
        return TP_OPCAT_ATTENTION;
    if (om_has_any(low, norm))
        return TP_OPCAT_NORM;
    if (om_has_any(low, conv))
        return TP_OPCAT_CONV;
    for (size_t i = 0; gemm_ops[i]; i++)
        if (strcmp(base, gemm_ops[i]) == 0)
            return TP_OPCAT_GEMM;
    if (om_has_any(low, gemm))
        return TP_OPCAT_GEMM;
    char stem[256];
    snprintf(stem, sizeof stem, "%s", base);
    char *bw = strstr(stem, "backward");
    if (bw && bw > stem && bw[-1] != '_') /* ReluBackward0 -> relu */
        *bw = '\0';
    if (om_ew_kind(stem) >= 0 || om_ew_kind(base) >= 0 || strcmp(base, "cat") == 0 ||
        strcmp(base, "clone") == 0 || strcmp(base, "_to_copy") == 0 || strcmp(base, "to") == 0 ||
        strcmp(base, "contiguous") == 0 || strcmp(base, "dropout") == 0 ||
        strcmp(base, "native_dropout") == 0 || strcmp(base, "softmax") == 0)
        return TP_OPCAT_ELEMENTWISE;
    return TP_OPCAT_OTHER;
}
