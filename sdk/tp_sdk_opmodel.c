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

#include "tp_sdk_opmodel_args.h"

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

/* ---- tensor-list ops by bytes */

/* Ops whose inputs are tensor lists, by the bytes they move (the list's
 * element type is not written: "TensorList"; the 4-byte default of an
 * unknown type is taken): cat, concat, concatenate, stack (tensors, dim):
 * every element read once and written once into the output, 2 * E * 4
 * bytes; _foreach_copy_ (self, src, non_blocking): src read, self written,
 * (E_src + E_self) * 4.  E = the sum of the list's tensors' elements, from
 * the list's shapes as newer Kineto writes them ([[32], [32]]); an empty
 * list (older Kineto's for every list) says nothing: no model, the tensor
 * list reason. */
static int om_list_cost(const char *name, const om_args *a, tp_op_cost *c)
{
    static const char *const joins[] = {"aten::cat", "aten::concat", "aten::concatenate",
                                        "aten::stack", "aten::_cat", NULL};
    int join = 0;
    for (size_t i = 0; joins[i]; i++)
        join |= strcmp(name, joins[i]) == 0;
    int copy = strcmp(name, "aten::_foreach_copy_") == 0;
    if (!(join || copy) || a->n < (copy ? 2 : 1) || a->ltensors[0] <= 0 ||
        (copy && a->ltensors[1] <= 0))
        return 0;
    c->bpe = om_bpe(a, 0, NULL);
    c->bytes = (join ? 2 * a->lnumel[0] : a->lnumel[0] + a->lnumel[1]) * c->bpe;
    c->flops = 0;
    c->bf16 = 0;
    c->matrix = 0;
    c->model = "tensor_list_bytes";
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
        ok = tp_om_gemm_family_cost(name, a, c);
    if (!ok)
        ok = om_conv_cost(name, a, c);
    if (!ok)
        ok = om_norm_cost(name, a, c);
    if (!ok)
        ok = om_elementwise_cost(name, a, c);
    if (!ok)
        ok = om_gather_cost(name, a, c);
    if (!ok)
        ok = om_list_cost(name, a, c);
    if (!ok)
        ok = tp_om_sparse_cost(name, a, c);
    for (int i = 0; !ok && !c->why && i < a->ntypes; i++)
        if (strcmp(a->type[i], "TensorList") == 0)
            c->why = "a tensor list (its shapes are not written)";
    if (!ok && !c->why && (strstr(name, "unified_attention") || strstr(name, "paged_attention")))
        c->why = "paged attention over a KV cache (its sequence and context lengths are not "
                 "in the op's args)";
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
        strcmp(base, "concat") == 0 || strcmp(base, "concatenate") == 0 ||
        strcmp(base, "stack") == 0 || strcmp(base, "_foreach_copy_") == 0 ||
        strcmp(base, "clone") == 0 || strcmp(base, "_to_copy") == 0 || strcmp(base, "to") == 0 ||
        strcmp(base, "contiguous") == 0 || strcmp(base, "dropout") == 0 ||
        strcmp(base, "native_dropout") == 0 || strcmp(base, "softmax") == 0)
        return TP_OPCAT_ELEMENTWISE;
    return TP_OPCAT_OTHER;
}
