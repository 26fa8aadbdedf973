/* SDK: FLOP and byte counts of grouped, scaled (FP8, MX / NVFP4) and
 * fused-MoE GEMMs, and of fbgemm's sparse-feature ops by their bytes
 * (tp_sdk_opmodel.h).  Formulas: docs/plugins/predict.md, "Models of
 * today's ops". */
#include "tp_sdk_opmodel_args.h"

/* ---- grouped, scaled (FP8, MX / NVFP4) and fused-MoE GEMMs */

/* Input i is a packed FP4 pair per element (Float4_e2m1fn_x2): 2 values. */
static double om_pack(const om_args *a, int i)
{
    return i < a->ntypes && strstr(a->type[i], "Float4_e2m1fn_x2") ? 2 : 1;
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

int tp_om_gemm_family_cost(const char *name, const om_args *a, tp_op_cost *c)
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

int tp_om_sparse_cost(const char *name, const om_args *a, tp_op_cost *c)
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
