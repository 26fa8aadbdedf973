"""An independent Python version of predict's issue-27 models (docs/plugins/predict.md,
"Models of today's ops"): attention forward and backward, layer/batch/RMS norm,
element-wise ops and reductions by bytes; FLOPs and bytes from an op's args, then
the roofline on a preset.  Written from the documented formulas (TraceLens's
SDPA/Normalization classes), not from the C code.

    python3 tests/tools/check_models.py PRED_CSV TRACE PRESET

checks every row of predict's <id> table whose model is one of these against the
trace's ops of that name and Input Dims (any occurrence; the launch floor may raise
a prediction to k kernels x floor) and prints how many rows it checked.
"""
import csv
import gzip
import json
import sys

NEW = ("attention_fwd", "attention_bwd", "conv_fwd", "conv_bwd", "norm_fwd", "norm_bwd",
       "elementwise_bytes", "embedding_bag", "gather_bytes", "scaled_gemm", "grouped_gemm",
       "scaled_grouped_gemm", "fused_moe", "sparse_bytes", "tensor_list_bytes")

# docs/presets.md, the figures the models read (GFLOP/s, GB/s, us)
PRESETS = {
    "h100_sxm5_80gb": dict(fp32=66900, fp16=989400, bf16=989400, dram=3350, floor=1.6),
    "a100_sxm4_40gb": dict(fp32=19500, fp16=312000, bf16=312000, dram=1555, floor=1.344),
    "v100_sxm2": dict(fp32=12200, fp16=125000, bf16=0, dram=809, floor=1.248),
    "mi300x": dict(fp32=163400, fp16=1307400, bf16=1307400, fp8=2614900, dram=5300, floor=0),
    "b200": dict(fp32=75000, fp16=2250000, bf16=2250000, fp8=4500000, fp4=9000000, dram=8000, floor=0),
}


def bytes_per(t):
    """Bytes of one element as stored: torch's element_size() of the type the trace names
    (a packed FP4 pair, Float4_e2m1fn_x2, is one byte: its shape counts pairs)."""
    t = (t or "").lower()
    if t.startswith("c10::"):
        t = t[5:]
    if t.startswith("float8") or t.startswith("float4_e2m1fn_x2"):
        return 1
    if t in ("bool", "unsigned char", "signed char", "char", "byte", "int8", "uint8"):
        return 1
    if t in ("half", "bfloat16", "short int", "short", "int16", "unsigned short"):
        return 2
    if t in ("double", "long int", "long", "int64", "complex<float>"):
        return 8
    return 4


def numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


DTYPES = {"float", "double", "half", "bfloat16", "int", "long int", "long", "short int", "bool",
          "unsigned char", "signed char", "complex<float>", "complex<double>"}


def is_dtype(t):
    t = (t or "").lower()
    t = t[5:] if t.startswith("c10::") else t
    return t in DTYPES or t.startswith("float8") or t.startswith("float4")


def is_tensor(dims, i, types=None):
    """A shape of rank >= 1, or [] of a dtype (a 0-dim tensor: one element)."""
    if not (i < len(dims) and isinstance(dims[i], list) and all(isinstance(d, int) for d in dims[i])):
        return False
    return len(dims[i]) > 0 or (types is not None and i < len(types) and is_dtype(types[i]))


# name: (index of q, layout of q, index of is_causal in Concrete Inputs, backward, flash)
ATTENTION = {
    "aten::_scaled_dot_product_flash_attention": (0, "BHND", 4, False, True),
    "aten::_scaled_dot_product_efficient_attention": (0, "BHND", 6, False, False),
    "aten::_scaled_dot_product_cudnn_attention": (0, "BHND", 6, False, False),
    "aten::_flash_attention_forward": (0, "BNHD", 8, False, True),
    "flash_attn::_flash_attn_forward": (0, "BNHD", 5, False, True),
    "aten::_scaled_dot_product_flash_attention_backward": (1, "BHND", 11, True, True),
    "aten::_scaled_dot_product_efficient_attention_backward": (1, "BHND", 11, True, False),
    "aten::_scaled_dot_product_cudnn_attention_backward": (1, "BHND", 14, True, False),
    "aten::_flash_attention_backward": (1, "BNHD", 11, True, True),
    "flash_attn::_flash_attn_varlen_forward": (0, "BNHD", 9, False, True),
    "flash_attn::_flash_attn_varlen_backward": (1, "BNHD", 15, True, True),
}


# variable-length attention: name -> (index of q, of cu_seqlens_q, of causal), packed (T, H, d)
VARLEN = {
    "flash_attn::_flash_attn_varlen_forward": (0, 3, 9, False),
    "aten::_flash_attention_forward": (0, 3, 8, False),
    "flash_attn::_flash_attn_varlen_backward": (1, 9, 15, True),
    "aten::_flash_attention_backward": (1, 6, 11, True),
}


def varlen_shapes(name, dims, conc):
    """(B, N, H, d) views of packed q, k, v when the lengths are exact: one sequence, or
    every sequence as long as max_seqlen (T = n * max); else None."""
    qi, cu, _, _ = VARLEN[name]
    q, k, v = dims[qi], dims[qi + 1], dims[qi + 2]
    if not (len(q) == len(k) == len(v) == 3) or not is_tensor(dims, cu) or len(dims[cu]) != 1:
        return None
    n = dims[cu][0] - 1
    try:
        mq, mk = int(conc[cu + 2]), int(conc[cu + 3])
    except (ValueError, IndexError):
        mq = mk = -1
    if n == 1:
        B, NQ, NK = 1, q[0], k[0]
    elif n > 1 and q[0] == n * mq and k[0] == n * mk:
        B, NQ, NK = n, mq, mk
    else:
        return None
    return [B, NQ, q[1], q[2]], [B, NK, k[1], k[2]], [B, NK, v[1], v[2]]


def attention(name, dims, types, conc):
    if name in VARLEN and len(dims) > VARLEN[name][0] + 2 and len(dims[VARLEN[name][0]]) == 3:
        got = varlen_shapes(name, dims, conc)
        if got is None:
            return None
        q, k, v = got
        qi, _, ci, bwd = VARLEN[name]
        layout, flash = "BNHD", True
    else:
        qi, layout, ci, bwd, flash = ATTENTION[name]
        q, k, v = (dims[i] if i < len(dims) else [] for i in (qi, qi + 1, qi + 2))
    if not (len(q) == len(k) == len(v) == 4):
        return None

    def bhnd(s):
        return (s[0], s[2], s[1], s[3]) if layout == "BNHD" else tuple(s)
    (B, HQ, NQ, D), (Bk, HK, NK, Dk), (Bv, HV, NV, DV) = bhnd(q), bhnd(k), bhnd(v)
    if B != Bk or B != Bv or HK != HV or NK != NV or D != Dk or HQ % HK:
        return None
    causal = ci < len(conc) and conc[ci].lower() == "true"
    if causal and NQ != NK:
        return None
    pairs = B * HQ * NQ * NK  # query-key pairs; each costs 2*D (QK) + 2*DV (PV) FLOPs forward
    if not bwd:
        flops = pairs * 2 * (D + DV)
        elems = B * (NQ * HQ * D + NK * HK * D + NK * HK * DV + NQ * HQ * DV)
    else:
        # dV = P^T dO, dP = dO V^T, dQ = dS K, dK = dS^T Q (+ QK^T again when flash);
        # GQA: dK and dV summed over the HQ/HK query heads of each KV head
        matmuls = 2 * DV + 2 * DV + 2 * D + 2 * D + (2 * D if flash else 0)
        flops = pairs * matmuls + B * NK * (D + DV) * (HQ // HK - 1)
        elems = 2 * B * (NQ * HQ * D + NK * HK * D + NK * HK * DV) + B * NQ * HQ * DV
    if causal:
        flops /= 2
    bpe = bytes_per(types[qi] if qi < len(types) else "")
    bf16 = "bfloat16" in (types[qi] if qi < len(types) else "").lower()
    return ("attention_bwd" if bwd else "attention_fwd", flops, elems * bpe, bpe, bf16, True)


def int_list(conc, i, n, default):
    """A Concrete Inputs list ("[2, 2]", one value for every dim, "" the default) or None."""
    if i >= len(conc):
        return None
    if conc[i] == "":
        return [default] * n
    vals = [int(x) for x in conc[i].strip("[]").split(",") if x.strip()]
    if len(vals) == 1:
        vals = vals * n
    return vals if len(vals) == n and min(vals) >= 0 else None


def conv(name, dims, types, conc):
    bpe = bytes_per(types[0] if types else "")
    if name in ("aten::cudnn_convolution", "aten::miopen_convolution", "aten::convolution",
                "aten::_convolution"):
        cudnn = "cudnn" in name or "miopen" in name
        if not (is_tensor(dims, 0) and is_tensor(dims, 1)) or not 3 <= len(dims[0]) <= 5 or len(dims[1]) != len(dims[0]):
            return None
        x, w = dims[0], dims[1]
        nd = len(x) - 2
        pad = int_list(conc, 2 if cudnn else 4, nd, 0)
        stride = int_list(conc, 3, nd, 1)
        dil = int_list(conc, 4 if cudnn else 5, nd, 1)
        if None in (pad, stride, dil) or (not cudnn and (len(conc) <= 6 or conc[6] != "False")):
            return None
        spatial = [(x[2 + k] + 2 * pad[k] - dil[k] * (w[2 + k] - 1) - 1) // stride[k] + 1 for k in range(nd)]
        if min(spatial) < 1:
            return None
        out = x[0] * w[0] * numel(spatial)
        bias = numel(dims[2]) if not cudnn and is_tensor(dims, 2) else 0
        flops = 2 * out * numel(w[1:]) + (out if bias else 0)
        return ("conv_fwd", flops, (numel(x) + numel(w) + bias + out) * bpe, bpe, "bfloat16" in types[0].lower(), True)
    if name == "aten::convolution_backward":
        if not all(is_tensor(dims, i) for i in range(3)) or len(dims[2]) != len(dims[1]):
            return None
        if len(conc) > 7 and conc[7] == "True":
            return None
        mask = [True, True, True]
        if len(conc) > 10 and conc[10].startswith("["):
            mask = [x.strip() == "True" for x in conc[10].strip("[]").split(",")]
        go, x, w = numel(dims[0]), numel(dims[1]), numel(dims[2])
        grads = mask[0] + mask[1]  # dgrad: grad_output * weight -> input; wgrad: grad_output * input -> weight
        flops = grads * 2 * go * numel(dims[2][1:]) + (go if mask[2] else 0)
        nbytes = grads * (go + w + x) + (go + dims[2][0] if mask[2] else 0)
        b = bytes_per(types[1] if len(types) > 1 else "")
        return ("conv_bwd", flops, nbytes * b, b, "bfloat16" in types[1].lower(), True)
    return None


def gather(name, dims, types, conc):
    def typ(i):
        return types[i] if i < len(types) else ""
    if name in ("aten::_embedding_bag", "aten::embedding_bag", "aten::_embedding_bag_forward_only"):
        if not (is_tensor(dims, 0) and len(dims[0]) == 2 and is_tensor(dims, 1) and is_tensor(dims, 2)):
            return None
        D, I, nb = dims[0][1], numel(dims[1]), numel(dims[2])
        bags = nb - (1 if len(conc) > 7 and conc[7] == "True" else 0)
        b = bytes_per(typ(0))
        nbytes = (I * D + bags * D) * b + I * bytes_per(typ(1)) + nb * bytes_per(typ(2))
        if is_tensor(dims, 6):
            nbytes += numel(dims[6]) * bytes_per(typ(6))
        return ("embedding_bag", I * D, nbytes, b, "bfloat16" in typ(0).lower(), False)
    if name in ("aten::_index_put_impl_", "aten::index_put_", "aten::index_put"):
        # values read and written into self; the index list's shapes are not written
        if not (is_tensor(dims, 0, types) and len(dims[0]) >= 1 and is_tensor(dims, 2, types)):
            return None
        v = numel(dims[2])
        acc = len(conc) > 3 and conc[3] == "True"
        return ("gather_bytes", v if acc else 0, v * (bytes_per(typ(2)) + bytes_per(typ(0))),
                bytes_per(typ(0)), "bfloat16" in typ(0).lower(), False)
    if name == "aten::index_select":
        if not (is_tensor(dims, 0) and is_tensor(dims, 2)) or len(conc) < 2:
            return None
        try:
            dim = int(conc[1])
        except ValueError:
            return None
        dim = dim + len(dims[0]) if dim < 0 else dim
        if not 0 <= dim < len(dims[0]) or dims[0][dim] <= 0:
            return None
        out = numel(dims[0]) // dims[0][dim] * numel(dims[2])
        b = bytes_per(typ(0))
        return ("gather_bytes", 0, 2 * out * b + numel(dims[2]) * bytes_per(typ(2)), b, "bfloat16" in typ(0).lower(), False)
    return None


def normalized(dims, conc, w, s):
    if is_tensor(dims, w):
        return numel(dims[w])
    if s < len(conc) and conc[s].startswith("["):
        vals = [int(x) for x in conc[s].strip("[]").split(",") if x.strip()]
        return numel(vals) if vals else 0
    return 0


def norm(name, dims, types, conc):
    def typ(i):
        return types[i] if i < len(types) else ""
    if name == "aten::native_layer_norm":
        if not is_tensor(dims, 0):
            return None
        N, C = numel(dims[0]), normalized(dims, conc, 2, 1)
        if C <= 0:
            return None
        b = bytes_per(typ(0))
        # TraceLens's LayerNorm: training, affine, bias: stats 3N + 6C, apply 2N;
        # input, output, weight, bias, mean, rstd (x2: saved)
        return ("norm_fwd", 5 * N + 6 * C, 2 * N * b + 6 * C * b, b, "bfloat16" in typ(0).lower(), False)
    if name == "aten::native_layer_norm_backward":
        if not is_tensor(dims, 1):
            return None
        N, C = numel(dims[1]), normalized(dims, conc, 5, 2)
        if C <= 0:
            return None
        mask = [True, True, True]
        if len(conc) > 7 and conc[7].startswith("["):
            mask = [x.strip() == "True" for x in conc[7].strip("[]").split(",")] + mask[3:]
        b = bytes_per(typ(1))
        epc = N / C
        flops = C * (4 * epc + (5 * epc if mask[0] else 2 * epc))
        nbytes = N * b + N * b * (2 if mask[0] else 1) + C * b
        if mask[1]:
            nbytes += C * b + C * b * (2 if mask[2] else 1)
        return ("norm_bwd", flops, nbytes, b, "bfloat16" in typ(1).lower(), False)
    if name in ("aten::native_batch_norm", "aten::cudnn_batch_norm", "aten::miopen_batch_norm"):
        if not is_tensor(dims, 0) or len(dims[0]) < 2 or len(conc) <= 5 or conc[5] not in ("True", "False"):
            return None
        N, C, training, affine = numel(dims[0]), dims[0][1], conc[5] == "True", is_tensor(dims, 1)
        b = bytes_per(typ(0))
        flops = 6 * C + (3 * N if training else 0) + 2 * N
        tensors = 2 + (2 if affine else 0) + (2 if training else 0)
        return ("norm_fwd", flops, 2 * N * b + tensors * C * b, b, "bfloat16" in typ(0).lower(), False)
    def stats_bwd(N, C, training, mask0, affine, b):
        # TraceLens's Normalization backward with a bias: per channel 4 (+5 training) FLOPs an
        # element (+3 for rstd at inference); grad_out, input (twice when training), grad_in
        f = C * ((0 if training else 3) + 4 * N / C + ((5 * N / C if training else 0) if mask0 else 2 * N / C))
        nb = N * b + N * b * (2 if mask0 and training else 1) + (C * b if training else 0)
        nb += (C * b + (2 * C * b if training else 0)) if affine else 0
        return f, nb
    if name in ("aten::cudnn_batch_norm_backward", "aten::miopen_batch_norm_backward",
                "aten::native_batch_norm_backward"):
        x = 1 if name == "aten::native_batch_norm_backward" else 0
        if x and (len(conc) <= 7 or conc[7] not in ("True", "False")):
            return None
        training = x == 1 and conc[7] == "True"
        if not is_tensor(dims, x) or len(dims[x]) < 2:
            return None
        b = bytes_per(typ(x))
        f, nb = stats_bwd(numel(dims[x]), dims[x][1], training, True, True, b)
        return ("norm_bwd", f, nb, b, "bfloat16" in typ(x).lower(), False)
    if name == "aten::native_group_norm":
        if not is_tensor(dims, 0) or len(dims[0]) < 2:
            return None
        N, C, b = numel(dims[0]), dims[0][1], bytes_per(typ(0))
        return ("norm_fwd", 5 * N + 6 * C, 2 * N * b + 6 * C * b, b, "bfloat16" in typ(0).lower(), False)
    if name == "aten::native_group_norm_backward":
        if not is_tensor(dims, 1) or len(dims[1]) < 2 or len(conc) <= 8:
            return None
        try:
            groups = int(conc[8])
        except ValueError:
            return None
        if groups <= 0:
            return None
        mask0 = not (len(conc) > 9 and conc[9].startswith("[") and conc[9].strip("[]").split(",")[0].strip() == "False")
        b = bytes_per(typ(1))
        f, nb = stats_bwd(numel(dims[1]), dims[1][1] / groups, True, mask0, True, b)
        return ("norm_bwd", f, nb, b, "bfloat16" in typ(1).lower(), False)
    if name in ("aten::_fused_rms_norm_backward", "aten::rms_norm_backward"):
        if not is_tensor(dims, 1):
            return None
        N, C = numel(dims[1]), normalized(dims, conc, 4, 2)
        if C <= 0:
            return None
        affine = is_tensor(dims, 4)
        mask = [True, True]
        if len(conc) > 5 and conc[5].startswith("["):
            mask = [x.strip() == "True" for x in conc[5].strip("[]").split(",")][:2]
        b = bytes_per(typ(1))
        f = (N if affine else 0) + N + (6 * N if mask[0] else 0)
        if mask[1] and affine:
            f += N + (N if N / C > 1 else 0)
        return ("norm_bwd", f, 3 * N * b + (2 * C * b if affine else 0), b, "bfloat16" in typ(1).lower(), False)
    if name in ("aten::rms_norm", "aten::_fused_rms_norm"):
        if not is_tensor(dims, 0):
            return None
        N, C = numel(dims[0]), normalized(dims, conc, 2, 1)
        if C <= 0:
            return None
        affine = is_tensor(dims, 2)
        b = bytes_per(typ(0))
        flops = N / C * (2 * C + 2) + N * (2 if affine else 1)
        return ("norm_fwd", flops, 2 * N * b + (C * b if affine else 0), b, "bfloat16" in typ(0).lower(), False)
    return None


FILL = {"fill_", "zero_"}
COPY = {"copy_"}
REDUCE = set("sum mean amax amin max min prod norm linalg_vector_norm argmax argmin any all var std".split())
OUT = set("""abs neg exp log sqrt rsqrt reciprocal sin cos tanh sigmoid relu gelu silu mul div add sub
rsub pow where clamp clamp_min clamp_max maximum minimum eq ne lt le gt ge logical_not logical_and
bitwise_and bitwise_or masked_fill nan_to_num tanh_backward sigmoid_backward threshold_backward
gelu_backward silu_backward hardtanh_backward leaky_relu_backward _softmax _softmax_backward_data
_log_softmax _log_softmax_backward_data erf sign floor ceil round addcmul addcdiv lerp
_foreach_add""".split())


def elementwise(name, dims, types, conc):
    if not name.startswith("aten::"):
        return None
    op = name[6:]
    kind = ("fill" if op in FILL else "copy" if op in COPY else "reduce" if op in REDUCE
            else "out" if op in OUT else "inplace" if op.endswith("_") and op[:-1] in OUT else None)
    if kind is None or not is_tensor(dims, 0, types):
        return None
    if any(not (isinstance(d, list) and all(isinstance(x, int) for x in d)) for d in dims):
        return None
    tensors = [(numel(d), bytes_per(types[i] if i < len(types) else "")) for i, d in enumerate(dims)
               if is_tensor(dims, i, types)]
    read = sum(n * b for n, b in tensors)
    largest = max(n for n, _ in tensors)
    b0 = bytes_per(types[0] if types else "")
    first = numel(dims[0]) * b0
    nbytes = {"fill": first, "copy": read, "reduce": read, "out": read + largest * b0,
              "inplace": read + first}[kind]
    flops = 0 if kind in ("fill", "copy") else largest
    return ("elementwise_bytes", flops, nbytes, b0, "bfloat16" in (types[0] if types else "").lower(), False)


# c10::ScalarType codes (out_dtype in Concrete Inputs) -> element size
SCALAR_TYPE = {0: 1, 1: 1, 2: 2, 3: 4, 4: 8, 5: 2, 6: 4, 7: 8, 11: 1, 15: 2, 23: 1, 24: 1, 25: 1, 26: 1}


def values_per(t):
    """Values per stored element: a packed FP4 pair holds two."""
    return 2 if "float4_e2m1fn_x2" in (t or "").lower() else 1


def products(name, dims, types, conc):
    """torch._scaled_mm, _grouped_mm, _scaled_grouped_mm: FLOPs 2*M*N*K over the products'
    totals (K in values), bytes every operand, scale, offs and bias as stored + the output."""
    def typ(i):
        return types[i] if i < len(types) else ""

    def stored(i):
        return numel(dims[i]) * bytes_per(typ(i)) if is_tensor(dims, i) else 0

    def out_bpe(i, inb):
        try:
            return SCALAR_TYPE[int(conc[i])]
        except (ValueError, IndexError, KeyError):
            return 2 if inb <= 1 else inb
    if name not in ("aten::_scaled_mm", "aten::_grouped_mm", "aten::_scaled_grouped_mm"):
        return None
    if not (is_tensor(dims, 0) and is_tensor(dims, 1)):
        return None
    a, b = dims[0], dims[1]
    K = a[-1] * values_per(typ(0))
    if len(b) < 2 or b[-2] * values_per(typ(1)) != K:
        return None
    compute = min(bytes_per(typ(0)) / values_per(typ(0)), bytes_per(typ(1)) / values_per(typ(1)))
    bf16 = "bfloat16" in typ(0).lower() and compute == 2
    if name == "aten::_scaled_mm":
        if len(a) != 2 or len(b) != 2:
            return None
        M, N = a[0], b[1]
        bias = is_tensor(dims, 4)
        flops = 2 * M * N * K + (M * N if bias else 0)
        nbytes = sum(stored(i) for i in range(5)) + M * N * out_bpe(6, bytes_per(typ(0)))
        return ("scaled_gemm", flops, nbytes, compute, bf16, True)
    scaled = name == "aten::_scaled_grouped_mm"
    offs, bias, outd = (4, 5, 7) if scaled else (2, 3, 4)
    if not (2 <= len(a) <= 3 and 2 <= len(b) <= 3):
        return None
    M, N = a[-2], b[-1]
    if len(a) == 3 and len(b) == 3:
        if a[0] != b[0]:
            return None
        G, out, flops = a[0], a[0] * M * N, 2 * a[0] * M * N * K   # batched
    elif len(a) == 2 and len(b) == 3:
        G, out, flops = b[0], M * N, 2 * M * N * K                  # rows of A jagged
    elif len(a) == 3:
        G, out, flops = a[0], M * N, 2 * M * N * K                  # columns of B jagged
    else:
        G = numel(dims[offs]) if is_tensor(dims, offs) else 0       # K jagged: G outputs
        out, flops = G * M * N, 2 * M * N * K
    if G <= 0:
        return None
    inb = bytes_per(typ(0))
    nbytes = stored(0) + stored(1) + stored(offs) + stored(bias) + \
        (stored(2) + stored(3) if scaled else 0) + out * (out_bpe(outd, inb) if scaled else inb)
    return ("scaled_grouped_gemm" if scaled else "grouped_gemm", flops, nbytes, compute, bf16, True)


def fused_moe(name, dims, types, conc):
    """vLLM's fused experts, TraceLens's FusedMoE: tokens T of width H, E experts of
    intermediate I (w1 2I rows when gated), top-k; weights of the expected active experts."""
    if name not in ("vllm::outplace_fused_experts", "vllm::inplace_fused_experts"):
        return None
    if not all(is_tensor(dims, i) for i in (0, 1, 2, 4)):
        return None
    (T, H), (E, up, H1), (E2, H2, I), (T2, k) = dims[0], dims[1], dims[2], dims[4]
    gated = up == 2 * I
    if not (gated or up == I) or H1 != H or E2 != E or H2 != H or T2 != T or not 1 <= k <= E:
        return None
    fc1 = 2 * T * H * I * k * (2 if gated else 1)
    flops = fc1 + 2 * T * H * I * k + T * H * (2 * k - 1)
    active = E * (1 - ((E - k) / E) ** T)
    inb, wb = bytes_per(types[0]), bytes_per(types[1])
    nbytes = T * H * inb * 2 + active * I * H * wb * (3 if gated else 2) + \
        numel(dims[3]) * bytes_per(types[3]) + numel(dims[4]) * bytes_per(types[4])
    compute = 1 if "float8" in types[1].lower() else inb
    return ("fused_moe", flops, nbytes, compute, "bfloat16" in types[0].lower() and compute == 2, True)


SPARSE = {"asynchronous_complete_cumsum": "complete", "asynchronous_exclusive_cumsum": "cumsum",
          "asynchronous_inclusive_cumsum": "cumsum", "bounds_check_indices": "read",
          "permute_pooled_embs_auto_grad": "copy", "permute_pooled_embs": "copy",
          "recat_embedding_grad_output_mixed_D_batch": "copy", "recat_embedding_grad_output": "copy",
          "permute_2D_sparse_data": "permute", "permute_sparse_features": "permute"}


def sparse(name, dims, types, conc):
    """fbgemm's sparse-feature ops by bytes (fbgemm_gpu sparse_ops): cumsums read N and
    write N (+1 complete), bounds checks read, pooled permutes read and write the pooled
    tensor, permutes read and write the permuted lengths (a lower bound: the selected
    indices' count is not recorded)."""
    kind = SPARSE.get(name.split("::")[-1])
    if kind is None and "PermutePooledEmbsFunction" in name:
        kind = "copy"
    if kind is None or not is_tensor(dims, 0, types) or not dims[0]:
        return None
    if any(not (isinstance(d, list) and all(isinstance(x, int) for x in d)) for d in dims):
        return None

    def stored(i):
        return numel(dims[i]) * bytes_per(types[i] if i < len(types) else "") if is_tensor(dims, i, types) else 0
    read = sum(stored(i) for i in range(len(dims)))
    b0, n0 = bytes_per(types[0] if types else ""), numel(dims[0])
    flops = n0 if kind in ("complete", "cumsum") else 0
    if kind == "complete":
        nbytes = n0 * b0 + (n0 + 1) * b0
    elif kind == "cumsum":
        nbytes = 2 * n0 * b0
    elif kind == "read":
        nbytes = read
    elif kind == "copy":
        nbytes = read + n0 * b0
    elif is_tensor(dims, 1, types) and len(dims[1]) == 2:
        nbytes = read + n0 * dims[1][1] * bytes_per(types[1])
    else:
        return None
    return ("sparse_bytes", flops, nbytes, b0, "bfloat16" in (types[0] if types else "").lower(), False)


def list_elements(v):
    """The elements of a tensor list as newer Kineto writes its shapes ([[32], [32, 4]]), or
    None (an empty list: older Kineto writes every list so, saying nothing)."""
    if not isinstance(v, list) or not v or not all(isinstance(s, list) for s in v):
        return None
    if not all(isinstance(d, int) and d >= 0 for s in v for d in s):
        return None
    return sum(numel(s) for s in v)


def tensor_list(name, dims, types, conc):
    """cat/concat/concatenate/stack: every element read and written once; _foreach_copy_:
    the source list read, the destination list written.  The list's dtype is not in the
    trace ("TensorList"): 4 bytes an element."""
    joins = ("aten::cat", "aten::concat", "aten::concatenate", "aten::stack", "aten::_cat")
    if name in joins:
        e = list_elements(dims[0])
        return None if e is None else ("tensor_list_bytes", 0, 2 * e * 4, 4, False, False)
    if name == "aten::_foreach_copy_" and len(dims) >= 2:
        a, b = list_elements(dims[0]), list_elements(dims[1])
        if a is None or b is None:
            return None
        return ("tensor_list_bytes", 0, (a + b) * 4, 4, False, False)
    return None


def cost(name, args):
    """(model, flops, bytes, bpe, bf16, matrix) of one call, or None."""
    dims = args.get("Input Dims", args.get("Input dims"))
    if not isinstance(dims, list) or not dims:
        return None
    types, conc = args.get("Input type", []), args.get("Concrete Inputs", [])
    if name in ATTENTION:
        got = attention(name, dims, types, conc)
        if got:
            return got
    return (products(name, dims, types, conc) or fused_moe(name, dims, types, conc) or
            conv(name, dims, types, conc) or norm(name, dims, types, conc) or
            elementwise(name, dims, types, conc) or gather(name, dims, types, conc) or
            sparse(name, dims, types, conc) or tensor_list(name, dims, types, conc))


def predict_us(c, p):
    model, flops, nbytes, bpe, bf16, matrix = c
    if matrix and bpe < 2:
        peak = p["fp8"] if bpe == 1 else p["fp4"]
    else:
        peak = (p["bf16"] if bf16 else p["fp16"]) if matrix and bpe == 2 else p["fp32"]
    return max(flops / peak / 1000 if flops else 0.0, nbytes / p["dram"] / 1000)


def floored(got, want, floor):
    if abs(got - want) <= 1e-9 * max(want, 1e-12):
        return True
    k = round(got / floor) if floor else 0
    return k >= 1 and abs(got - k * floor) <= 1e-9 * got and want < got


def load(trace):
    opener = gzip.open if trace.endswith(".gz") else open
    with opener(trace, "rt") as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


def check(pred_csv, trace, preset):
    p = PRESETS[preset]
    ops = {}
    for e in load(trace):
        if e.get("cat") in ("cpu_op", "Operator") and isinstance(e.get("args"), dict):
            ops.setdefault(e["name"], []).append(e["args"])
    n = 0
    for r in csv.DictReader(open(pred_csv)):
        if r["model"] not in NEW:
            continue
        dims = json.loads(r["input_dims"])
        wants = []
        for a in ops.get(r["name"], []):
            if a.get("Input Dims", a.get("Input dims")) != dims:
                continue
            c = cost(r["name"], a)
            if c and c[0] == r["model"]:
                wants.append(predict_us(c, p))
        got = float(r["predicted_us"])
        assert wants and any(floored(got, w, p["floor"]) for w in wants), (r, wants)
        n += 1
    return n


if __name__ == "__main__":
    print("check_models: %d rows agree" % check(sys.argv[1], sys.argv[2], sys.argv[3]))
