"""Compares tests/tools/check_models.py's FLOPs and bytes (the formulas predict's
issue-27 models implement) with TraceLens's own functions, read from a copy of
TraceLens/PerfModel/perf_model.py (AMD-AGI/TraceLens; not part of this repository,
so not run by the test suites):

    python3 tests/tools/tracelens_agreement.py path/to/perf_model.py [TRACE ...]

With traces, also every attention op of theirs that check_models.py models (the real
shapes of tests/data/kineto/attention/ and the corpus) against TraceLens's SDPA.

Only the pure static formulas are taken from it (SDPA, Normalization, CONV), by
parsing the file: TraceLens's imports (torch ...) are not needed.  Prints one line
per vector and exits 1 on any difference."""
import ast
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_models as cm  # noqa: E402


def tracelens(path):
    ns = {"prod": math.prod}
    for node in ast.parse(open(path).read()).body:
        if isinstance(node, ast.ClassDef) and node.name in ("SDPA", "Normalization", "CONV", "RMSNormBwd"):
            node.bases, node.decorator_list = [], []
            node.body = [f for f in node.body if isinstance(f, ast.FunctionDef) and
                         ("func" in f.name or f.name in ("t", "flops_bwd", "bytes_bwd"))]
            exec(compile(ast.Module([node], []), path, "exec"), ns)
    return ns["SDPA"], ns["Normalization"], ns["CONV"], ns["RMSNormBwd"]


class Obj:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def main(path):
    SDPA, Norm, CONV, RMSBwd = tracelens(path)
    N_g, N_bn, N_rms = 8 * 256 * 32 * 32, 32 * 256 * 14 * 14, 4 * 2048 * 4096
    rms = Obj(num_elems=N_rms, num_channels=4096, is_affine=True, output_mask=[True, True], bpe_in=2, bpe_out=2)
    bf = ["c10::BFloat16"] * 4
    q, kv = [2, 1024, 32, 128], [2, 1024, 8, 128]
    x, w, o = [32, 64, 56, 56], [128, 64, 3, 3], [32, 128, 28, 28]
    vectors = [
        ("flash fwd, causal, GQA 4", cm.attention("aten::_flash_attention_forward", [q, kv, kv], bf, [""] * 8 + ["True"]),
         SDPA.flops_func(2, 1024, 32, 1024, 8, 128, 128, True), SDPA.bytes_func(2, 1024, 32, 1024, 8, 128, 128, True, 2)),
        ("flash bwd, causal, GQA 4", cm.attention("aten::_flash_attention_backward", [q, q, kv, kv], bf, [""] * 11 + ["True"]),
         SDPA.flops_bwd_func(2, 1024, 32, 1024, 8, 128, 128, True, True), SDPA.bytes_bwd_func(2, 1024, 32, 1024, 8, 128, 128, True, 2)),
        ("efficient fwd, MQA", cm.attention("aten::_scaled_dot_product_efficient_attention",
                                            [[4, 16, 512, 64], [4, 1, 512, 64], [4, 1, 512, 64]], bf, [""] * 6 + ["False"]),
         SDPA.flops_func(4, 512, 16, 512, 1, 64, 64, False), SDPA.bytes_func(4, 512, 16, 512, 1, 64, 64, False, 2)),
        ("efficient bwd, MQA", cm.attention("aten::_scaled_dot_product_efficient_attention_backward",
                                            [[4, 16, 512, 64]] * 2 + [[4, 1, 512, 64]] * 2, bf, [""] * 11 + ["False"]),
         SDPA.flops_bwd_func(4, 512, 16, 512, 1, 64, 64, False, False), SDPA.bytes_bwd_func(4, 512, 16, 512, 1, 64, 64, False, 2)),
        ("layer norm fwd", cm.norm("aten::native_layer_norm", [[8, 1024, 4096], [], [4096], [4096], []], bf, ["", "[4096]"]),
         Norm.flops_func(True, True, True, 8 * 1024 * 4096, 4096), Norm.bytes_func(True, True, True, 8 * 1024 * 4096, 4096, 2, 2)),
        ("layer norm bwd", cm.norm("aten::native_layer_norm_backward", [[1024, 4864], [1024, 4864], [], [1024, 1], [1024, 1], [4864], [4864], []], ["float"] * 7, []),
         Norm.flops_func_bwd(True, True, True, 1024 * 4864, 4864, [True, True, True]),
         Norm.bytes_func_bwd(True, True, True, 1024 * 4864, 4864, 4, 4, [True, True, True])),
        ("batch norm fwd, training", cm.norm("aten::cudnn_batch_norm", [[32, 64, 56, 56], [64], [64], [64], [64]], ["float"] * 5, [""] * 5 + ["True"]),
         Norm.flops_func(True, True, True, 32 * 64 * 56 * 56, 64), Norm.bytes_func(True, True, True, 32 * 64 * 56 * 56, 64, 4, 4)),
        ("group norm fwd", cm.norm("aten::native_group_norm", [[8, 256, 32, 32], [256], [256]], ["float"] * 3, []),
         Norm.flops_func(True, True, True, N_g, 256), Norm.bytes_func(True, True, True, N_g, 256, 4, 4)),
        ("group norm bwd, 32 groups", cm.norm("aten::native_group_norm_backward", [[8, 256, 32, 32], [8, 256, 32, 32], [8, 32], [8, 32], [256]],
                                               ["float"] * 5, ["", "", "", "", "", "8", "256", "1024", "32", "[True, True, True]"]),
         Norm.flops_func_bwd(True, True, True, N_g, 8, [True, True, True]),
         Norm.bytes_func_bwd(True, True, True, N_g, 8, 4, 4, [True, True, True])),
        ("cudnn batch norm bwd", cm.norm("aten::cudnn_batch_norm_backward", [[32, 256, 14, 14], [32, 256, 14, 14], [256]], ["float"] * 3, []),
         Norm.flops_func_bwd(True, True, False, N_bn, 256, [True]), Norm.bytes_func_bwd(True, True, False, N_bn, 256, 4, 4, [True])),
        ("fused RMS norm bwd", cm.norm("aten::_fused_rms_norm_backward", [[4, 2048, 4096], [4, 2048, 4096], [], [4, 2048, 1], [4096]],
                                       ["c10::BFloat16"] * 5, ["", "", "[4096]", "", "", "[True, True]"]),
         RMSBwd.flops_bwd(rms), RMSBwd.bytes_bwd(rms)),
        ("conv fwd 3x3 stride 2", cm.conv("aten::cudnn_convolution", [x, w], bf, ["", "", "[1, 1]", "[2, 2]", "[1, 1]", "1"]),
         CONV.flops_func(tuple(x), tuple(w), tuple(o), False), CONV.bytes_func(tuple(x), tuple(w), tuple(o), False, 2)),
        ("conv bwd (input and weight)", cm.conv("aten::convolution_backward", [o, x, w], bf,
                                                ["", "", "", "[0]", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1", "[True, True, False]"]),
         CONV.flops_bwd_func(tuple(o), tuple(x), tuple(w), False), CONV.bytes_bwd_func(tuple(x), tuple(w), tuple(o), False, 2)),
    ]
    bad = 0
    for label, mine, flops, nbytes in vectors:
        ok = mine is not None and mine[1] == flops and mine[2] == nbytes
        bad += not ok
        print("%-30s FLOPs %s / %s, bytes %s / %s: %s" % (label, mine and mine[1], flops, mine and mine[2], nbytes,
                                                         "agree" if ok else "DIFFER"))
    return 1 if bad else 0


def bhnd(dims, name):
    """(B, N, H, d) of q, k, v from an attention op's Input Dims (BNHD for flash)."""
    q, k, v = (dims[i] for i in (cm.ATTENTION[name][0] + j for j in range(3)))
    if cm.ATTENTION[name][1] == "BNHD":
        return [(s[0], s[1], s[2], s[3]) for s in (q, k, v)]
    return [(s[0], s[2], s[1], s[3]) for s in (q, k, v)]


def traces(path, files):
    """Each distinct attention shape of files: check_models.py against TraceLens's SDPA."""
    SDPA = tracelens(path)[0]
    seen, bad = set(), 0
    for f in files:
        for e in cm.load(f):
            a = e.get("args", {})
            if e.get("cat") != "cpu_op" or e.get("name") not in cm.ATTENTION or \
                    cm.ATTENTION[e["name"]][3] or "Input Dims" not in a:
                continue
            mine = cm.cost(e["name"], a)
            if mine is None or (e["name"], str(a["Input Dims"]), str(a.get("Concrete Inputs"))) in seen:
                continue
            seen.add((e["name"], str(a["Input Dims"]), str(a.get("Concrete Inputs"))))
            (B, NQ, HQ, D), (_, NK, HK, _), (_, _, _, DV) = bhnd(a["Input Dims"], e["name"])
            causal = a.get("Concrete Inputs", [""] * 20)[cm.ATTENTION[e["name"]][2]] == "True"
            flops = SDPA.flops_func(B, NQ, HQ, NK, HK, D, DV, causal)
            nbytes = SDPA.bytes_func(B, NQ, HQ, NK, HK, D, DV, causal, mine[3])
            ok = mine[1] == flops and mine[2] == nbytes
            bad += not ok
            print("%-24s %-40s %-26s FLOPs %s / %s, bytes %s / %s: %s" % (
                os.path.basename(f)[:24], e["name"][6:46], str([B, NQ, HQ, D]) + (" causal" if causal else ""),
                mine[1], flops, mine[2], nbytes, "agree" if ok else "DIFFER"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]) | (traces(sys.argv[1], sys.argv[2:]) if len(sys.argv) > 2 else 0))
