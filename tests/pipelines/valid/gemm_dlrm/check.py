"""FLOPs, bytes and roofline of the DLRM step's matrix products, by hand rules."""
import csv, gzip, json, math, os, sys

ev = json.load(gzip.open("tests/data/dlrm_worker0_step12.pt.trace.json.gz"))["traceEvents"]
rows = list(csv.DictReader(open(os.path.join(sys.argv[1], "gemm.csv"))))
assert rows, "no rows"
PEAK, BW = 12200, 809  # v100_seed: FP32 GFLOP/s, DRAM GB/s

def counts(op, d):
    if op == "aten::addmm":
        M, K, N = d[1][0], d[1][1], d[2][1]
        return 2 * M * N * K + M * N, M * K + K * N + M * N + N
    if op == "aten::mm":
        M, K, N = d[0][0], d[0][1], d[1][1]
        return 2 * M * N * K, M * K + K * N + M * N
    if op == "aten::bmm":
        b, M, K, N = d[0][0], d[0][1], d[0][2], d[1][2]
        return b * 2 * M * N * K, b * (M * K + K * N + M * N)
    if op == "aten::linear":
        M, K, N = math.prod(d[0][:-1]), d[0][-1], d[1][0]
        bias = len(d) >= 3 and len(d[2]) >= 1
        return 2 * M * N * K + (M * N if bias else 0), M * K + N * K + M * N + (N if bias else 0)
    if op == "aten::matmul":
        a, b = d[0], d[1]
        if len(a) == 1 and len(b) == 1:
            return 2 * a[0], a[0] + b[0] + 1
        M = 1 if len(a) == 1 else a[-2]; K = a[-1]; N = 1 if len(b) == 1 else b[-1]
        la, lb = a[:-2], b[:-2]; n = max(len(la), len(lb)); nb = 1
        for i in range(n):
            x = la[len(la) - 1 - i] if i < len(la) else 1
            y = lb[len(lb) - 1 - i] if i < len(lb) else 1
            nb *= max(x, y)
        return nb * 2 * M * N * K, math.prod(a) + math.prod(b) + nb * M * N
    raise AssertionError(op)

seen = 0
for r in rows:
    dims = json.loads(r["input_dims"])
    flops, elems = counts(r["name"], dims)
    assert float(r["flop"]) == flops and float(r["bytes"]) == elems * 4, (r, flops, elems)
    calls = [e for e in ev if e.get("name") == r["name"] and e.get("args", {}).get("Input Dims") == dims]
    assert int(r["count"]) == len(calls), (r, len(calls))
    roof = max(flops / PEAK / 1000, elems * 4 / BW / 1000)
    assert abs(float(r["roofline_us"]) - roof) < 1e-12, (r, roof)
    seen += 1
print("gemm_dlrm: %d rows checked" % seen)
