"""predict_dlrm, independently: every prediction from the op's Input Dims
(v100_seed: FP32 12200 GFLOP/s, 809 GB/s); the measured time of ops with and
without a model adds up to at most the trace's GPU time; coverage."""
import csv, gzip, json, math, os, sys
P_F, P_BW = 12200.0, 809.0
EW = {"add": (1, 3), "add_": (1, 3), "sub": (1, 3), "mul": (1, 3), "div": (1, 3), "relu": (1, 2),
      "sigmoid": (4, 2), "sum": (1, 1), "tanh": (180, 2), "pow": (180, 2)}
def gemm(name, d):
    if name == "aten::mm":
        M, K, N = d[0][0], d[0][1], d[1][1]; return 2 * M * N * K, M * K + K * N + M * N
    if name == "aten::addmm":
        M, K, N = d[1][0], d[1][1], d[2][1]; return 2 * M * N * K + M * N, M * K + K * N + M * N + N
    if name == "aten::bmm":
        b, M, K, N = d[0][0], d[0][1], d[0][2], d[1][2]; return b * 2 * M * N * K, b * (M * K + K * N + M * N)
    return None
out = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(out, "pred.csv"))))
for r in rows:
    d = json.loads(r["input_dims"])
    name = r["name"]
    if r["model"] == "roofline":
        f, e = gemm(name, d)
        want = max(f / P_F / 1000, e * 4 / P_BW / 1000)
    else:
        c, a = EW[name.split("::")[-1]]
        s = math.prod(d[0])
        want = max(c * s / P_F / 1000, a * s * 4 / P_BW / 1000)
    assert abs(float(r["predicted_us"]) - want) <= 1e-12 * want, (name, r["predicted_us"], want)
ev = json.load(gzip.open("tests/data/dlrm_worker0_step12.pt.trace.json.gz"))["traceEvents"]
gpu = sum(e["dur"] for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"))
sup = sum(int(r["count"]) * float(r["measured_us"]) for r in rows)
uns = sum(float(r["measured_us"]) for r in csv.DictReader(open(os.path.join(out, "pred.unsupported.csv"))))
assert sup + uns <= gpu + 1e-6, (sup, uns, gpu)
allrow = [r for r in csv.DictReader(open(os.path.join(out, "pred.summary.csv"))) if r["op"] == "(all)"][0]
assert abs(float(allrow["measured_us"]) - sup) < 1e-6
assert abs(float(allrow["coverage_percent"]) - 100 * sup / gpu) < 1e-9
print("predict_dlrm: %d predictions recomputed; coverage %.2f %% of %g us GPU time" % (len(rows), 100 * sup / gpu, gpu))
