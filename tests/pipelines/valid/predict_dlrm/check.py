"""predict_dlrm, independently: every prediction from the op's Input Dims
(v100_sxm2: FP32 12200 GFLOP/s, 809 GB/s, launch floor 1.248 us a kernel); the measured time of ops with and
without a model adds up to at most the trace's GPU time; coverage."""
import csv, gzip, json, math, os, sys
P_F, P_BW, FLOOR = 12200.0, 809.0, 1.248
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
def floored(got, want):
    """got is the model's want, or want raised to the launch floor: k kernels x FLOOR."""
    if abs(got - want) <= 1e-12 * want:
        return True
    k = round(got / FLOOR)
    return k >= 1 and abs(got - k * FLOOR) <= 1e-12 * got and want < got
sys.path.insert(0, "tests/tools")
import check_models  # noqa: E402
out = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(out, "pred.csv"))))
assert check_models.check(os.path.join(out, "pred.csv"), "tests/data/dlrm_worker0_step12.pt.trace.json.gz",
                          "v100_sxm2") > 0
for r in rows:
    d = json.loads(r["input_dims"])
    name = r["name"]
    if r["model"] == "roofline":
        f, e = gemm(name, d)
        want = max(f / P_F / 1000, e * 4 / P_BW / 1000)
    elif r["model"] in ("fwd", "sgd", "adagrad"):
        continue  # the embedding lookups: below, from the trace itself
    elif r["model"] in check_models.NEW:
        continue  # issue 27's models: below, by tests/tools/check_models.py
    else:
        c, a = EW[name.split("::")[-1]]
        s = math.prod(d[0])
        want = max(c * s / P_F / 1000, a * s * 4 / P_BW / 1000)
    assert floored(float(r["predicted_us"]), want), (name, r["predicted_us"], want)
ev = json.load(gzip.open("tests/data/dlrm_worker0_step12.pt.trace.json.gz"))["traceEvents"]
gpu = sum(e["dur"] for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"))
sup = sum(int(r["count"]) * float(r["measured_us"]) for r in rows)
uns = sum(float(r["measured_us"]) for r in csv.DictReader(open(os.path.join(out, "pred.unsupported.csv"))))
assert sup + uns <= gpu + 1e-6, (sup, uns, gpu)
allrow = [r for r in csv.DictReader(open(os.path.join(out, "pred.summary.csv"))) if r["op"] == "(all)"][0]
assert abs(float(allrow["measured_us"]) - sup) < 1e-6
assert abs(float(allrow["coverage_percent"]) - 100 * sup / gpu) < 1e-9

# fbgemm's embedding lookups, read from the trace again (docs/plugins/predict.md,
# "Embedding lookups"): forward shapes give T (D_offsets), B (offsets), L
# (indices), the weights; the backward node's gradient [B, T*D] gives D.
sys.path.insert(0, "tests/tools")
from embedding_models import adagrad_model, fwd_model  # noqa: E402

fwd, Rs = {}, {}
for e in ev:
    a = e.get("args", {})
    if e.get("cat") != "cpu_op" or "embedding_codegen_lookup_" not in e["name"]:
        continue
    dims, types = a["Input Dims"], a["Input type"]
    doff = next(i for i in range(len(dims) - 1) if types[i] == "int" and len(dims[i]) == 1 and types[i + 1] == "Scalar")
    idx = next(i for i in range(doff + 1, len(dims) - 1) if len(dims[i]) == len(dims[i + 1]) == 1
               and types[i] == types[i + 1] and types[i] in ("int", "long int"))
    T = dims[doff][0] - 1
    B = (dims[idx + 1][0] - 1) // T
    L = max(1, round(dims[idx][0] / (T * B)))
    W = max(dims[i][0] for i in range(doff) if len(dims[i]) == 1 and types[i] == "float")
    opt = "dense" if e["name"].startswith("fbgemm::dense") else e["name"].split("_lookup_")[1][: -len("_function")]
    fwd[opt] = (e["name"], B, T, L, W)
    # R: block.y of the longest kernel launched inside the op
    corr = {x["args"].get("correlation") for x in ev if x.get("cat") == "cuda_runtime" and x["tid"] == e["tid"]
            and e["ts"] <= x["ts"] <= e["ts"] + e["dur"]}
    ks = [x for x in ev if x.get("cat") == "kernel" and x["args"].get("correlation") in corr]
    Rs[e["name"]] = max(ks, key=lambda x: x["dur"])["args"]["block"][1]
emb = {r["name"]: r for r in csv.DictReader(open(os.path.join(out, "pred.embedding.csv")))}
assert len(emb) == 4, sorted(emb)
checked = 0
for e in ev:
    if e.get("cat") != "cpu_op" or not e["name"].startswith("torch::autograd::CppNode<SplitLookupFunction_"):
        continue
    opt = e["name"].split("LookupFunction_")[1].split("_Op")[0].lower()
    B, total_d = e["args"]["Input Dims"][0]
    fname, fB, T, L, W = fwd[opt]
    assert fB == B
    D = total_d // T
    E = W // (T * D)
    got = emb[e["name"]]
    assert (got["model"], int(got["B"]), int(got["E"]), int(got["T"]), int(got["L"]), int(got["D"])) == ("adagrad", B, E, T, L, D), got
    want = adagrad_model(B, T, L, D)
    assert floored(float(got["predicted_us"]), want), (got, want)
    f = emb[fname]
    assert (int(f["B"]), int(f["E"]), int(f["T"]), int(f["L"]), int(f["D"])) == (B, E, T, L, D), f
    if E < B:  # the seed's loop divides by zero
        assert f["model"] == "" and "exceeds" in f["reason"], f
    else:
        assert int(f["R"]) == Rs[fname], (f, Rs)
        want = fwd_model(B, E, T, L, D, Rs[fname])
        assert f["model"] == "fwd" and floored(float(f["predicted_us"]), want), (f, want)
    checked += 2
assert checked == 4
print("predict_dlrm: %d embedding lookups recomputed" % checked)
print("predict_dlrm: %d predictions recomputed; coverage %.2f %% of %g us GPU time" % (len(rows), 100 * sup / gpu, gpu))
