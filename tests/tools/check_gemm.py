"""Independent check of GEMM accounting on a Kineto trace (issue 24, item 3).

    python3 tests/tools/check_gemm.py TRACE OUTDIR

OUTDIR holds gt.csv (gemm_throughput, preset from the trace), gt_h100.csv
(gemm_throughput, preset h100_sxm5_80gb) and gk.csv (gemm_kernels), as
tests/pipelines/cli/gemm_check.yaml writes them.  From the trace alone, in
plain Python: the product calls (aten::mm, addmm, bmm, baddbmm, linear,
matmul with dims the formulas take), nesting by containment on a thread,
launches by correlation id.  A call holding another is a wrapper, else a
product; an activity belongs to the innermost call above its launch and
carries FLOPs only when that call is a product.  Asserts:
  - sum of gemm_kernels' flop and bytes = sum over the products that launched
    GPU work (the innermost products), to 1e-9;
  - every gemm_throughput row's count, flop, bytes and busy_us (per call the
    union of the work launched from its subtree) equal the recomputed ones;
  - no roofline_percent above 100 in either result.
"""
import csv, gzip, json, math, os, sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tracecheck import union, ns

OPS = {"cpu_op", "Operator"}
CALLS = {"cuda_runtime", "Runtime", "cuda_driver", "mtia_runtime"}
ACTS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset", "mtia_ccp_events"}
CLAMP = 1000  # ns: hierarchy nests a child ending less than 1 us past its parent


def flops_elems(op, d):
    """FLOPs and elements moved of one call, or None (docs/plugins/gemm_throughput.md)."""
    r = [len(x) for x in d]
    if op == "aten::mm" and len(d) >= 2 and r[0] == 2 and r[1] == 2:
        (M, K), N = d[0], d[1][1]
        return 2 * M * N * K, M * K + K * N + M * N
    if op == "aten::addmm" and len(d) >= 3 and r[1] == 2 and r[2] == 2:
        (M, K), N = d[1], d[2][1]
        return 2 * M * N * K + M * N, M * K + K * N + M * N + N
    if op == "aten::bmm" and len(d) >= 2 and r[0] == 3 and r[1] == 3:
        (b, M, K), N = d[0], d[1][2]
        return b * 2 * M * N * K, b * (M * K + K * N + M * N)
    if op == "aten::baddbmm" and len(d) >= 3 and r[1] == 3 and r[2] == 3:
        (b, M, K), N = d[1], d[2][2]
        return b * (2 * M * N * K + M * N), b * (M * K + K * N + M * N + N)
    if op == "aten::linear" and len(d) >= 2 and r[0] >= 1 and r[1] == 2:
        M, K, N = math.prod(d[0][:-1]), d[0][-1], d[1][0]
        bias = len(d) >= 3 and r[2] >= 1
        return 2 * M * N * K + (M * N if bias else 0), M * K + N * K + M * N + (N if bias else 0)
    if op == "aten::matmul" and len(d) >= 2 and r[0] >= 1 and r[1] >= 1:
        a, b = d[0], d[1]
        if len(a) == 1 and len(b) == 1:
            return 2 * a[0], a[0] + b[0] + 1
        M = 1 if len(a) == 1 else a[-2]
        K, N = a[-1], 1 if len(b) == 1 else b[-1]
        la, lb = a[:-2], b[:-2]
        nb = 1
        for i in range(max(len(la), len(lb))):
            nb *= max(la[-1 - i] if i < len(la) else 1, lb[-1 - i] if i < len(lb) else 1)
        return nb * 2 * M * N * K, math.prod(a) + math.prod(b) + nb * M * N
    return None


def bytes_per_element(types):
    t = (types[0] if types else "").lower() if isinstance(types, list) else ""
    if "float8" in t:
        return 1
    if t in ("c10::half", "c10::bfloat16", "half", "bfloat16"):
        return 2
    return 8 if t in ("double", "long int") else 4


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    doc = json.load(opener(path), parse_float=Decimal)
    return doc["traceEvents"] if isinstance(doc, dict) else doc


def calls_of(events):
    """The product calls: dicts with thread, interval, name, dims, counts."""
    out = []
    for i, e in enumerate(events):
        if e.get("ph") != "X" or e.get("cat") not in OPS or "dur" not in e:
            continue
        a = e.get("args") or {}
        dims = a.get("Input Dims", a.get("Input dims"))
        try:
            fe = flops_elems(e["name"], [[int(x) for x in t] for t in dims])
        except (TypeError, ValueError):
            fe = None
        if fe is None:
            continue
        s = ns(e["ts"])
        out.append({"i": i, "thr": (e.get("pid"), e.get("tid")), "s": s, "e": s + ns(e["dur"]),
                    "name": e["name"], "dims": json.dumps(dims), "flop": fe[0],
                    "bytes": fe[1] * bytes_per_element(a.get("Input type")), "acts": []})
    return out


def inside(inner, outer):
    """inner nested in outer (same thread, hierarchy's order: start, longer, row)."""
    if inner["thr"] != outer["thr"] or inner is outer:
        return False
    if not (outer["s"] <= inner["s"] and inner["e"] <= outer["e"] + CLAMP):
        return False
    return (outer["s"], -(outer["e"] - outer["s"]), outer["i"]) < \
           (inner["s"], -(inner["e"] - inner["s"]), inner["i"])


def check(trace, outdir, results=("gt.csv", "gt_h100.csv")):
    events = load(trace)
    calls = calls_of(events)
    by_thr = {}
    for c in calls:
        by_thr.setdefault(c["thr"], []).append(c)
    for c in calls:
        c["wrapper"] = any(inside(o, c) for o in by_thr[c["thr"]])
    launch = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in CALLS and "correlation" in (e.get("args") or {}):
            launch.setdefault(e["args"]["correlation"], e)
    for e in events:
        a = e.get("args") or {}
        if e.get("ph") != "X" or e.get("cat") not in ACTS or a.get("correlation") not in launch:
            continue
        L = launch[a["correlation"]]
        lc = {"thr": (L.get("pid"), L.get("tid")), "s": ns(L["ts"]),
              "e": ns(L["ts"]) + ns(L.get("dur", 0)), "i": -1}
        above = [c for c in by_thr.get(lc["thr"], []) if inside(lc, c)]
        iv = (ns(e["ts"]), ns(e["ts"]) + ns(e["dur"]))
        for c in above:
            c["acts"].append(iv)
        if above:
            inner = max(above, key=lambda c: (c["s"], -(c["e"] - c["s"]), c["i"]))
            inner.setdefault("own", []).append(iv)
    products = [c for c in calls if not c["wrapper"] and c.get("own")]
    want_f = sum(c["flop"] for c in products)
    want_b = sum(c["bytes"] for c in products)
    gk = list(csv.DictReader(open(os.path.join(outdir, "gk.csv"))))
    got_f = sum(float(r["flop"]) for r in gk)
    got_b = sum(float(r["bytes"]) for r in gk)
    assert abs(got_f - want_f) <= 1e-9 * max(want_f, 1), ("flop", got_f, want_f)
    assert abs(got_b - want_b) <= 1e-9 * max(want_b, 1), ("bytes", got_b, want_b)
    groups = {}
    for c in calls:
        g = groups.setdefault((c["name"], c["dims"], "wrapper" if c["wrapper"] else "product"),
                              [0, c["flop"], c["bytes"], 0])
        g[0] += 1
        g[3] += union(c["acts"])
    worst = None
    for name in results:
        rows = list(csv.DictReader(open(os.path.join(outdir, name))))
        assert len(rows) == len(groups), (name, len(rows), len(groups))
        for r in rows:
            n, f, b, busy = groups[(r["name"], r["input_dims"], r["role"])]
            assert int(r["count"]) == n and float(r["flop"]) == f and float(r["bytes"]) == b, (r, n, f, b)
            assert abs(float(r["busy_us"]) - busy / 1000) < 1e-6, (r, busy)
            if r["roofline_percent"]:
                p = float(r["roofline_percent"])
                assert p <= 100, ("roofline_percent above 100", name, r)
                worst = p if worst is None else max(worst, p)
    return len(calls), len(products), want_f, worst


if __name__ == "__main__":
    n, p, f, worst = check(sys.argv[1], sys.argv[2])
    print("%s: %d product calls, %d innermost with GPU work, %.6g flop on their kernels, "
          "max roofline %s %%" % (os.path.basename(sys.argv[1]), n, p, f,
                                  "-" if worst is None else "%.2f" % worst))
