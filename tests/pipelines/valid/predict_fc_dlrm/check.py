"""predict_fc_dlrm, independently: every GEMM op's (batch, M, N, K) from its
Input Dims (seed 004's mapping), ANALYSES.md 5.5's interpolation written
again from the spec over pipelines/data/fc1_table.csv (volta rows, v100_seed:
12200 GFLOP/s, 809 GB/s), compared with predict's fc_table predictions; ops
the table cannot answer must be the roofline's (ANALYSES.md 4) and counted in
the notes of pred.fc_table; no other op took fc_table."""
import csv, json, math, os, sys
P_F, P_BW = 12200.0, 809.0
out = sys.argv[1]

table = []
for r in csv.DictReader(open("pipelines/data/fc1_table.csv")):
    if all(r[k] for k in ("batch_size", "M", "N", "K", "kernel_name", "kernel_runtime")) and \
            r["kernel_name"].startswith("volta"):
        table.append((int(r["batch_size"]), int(r["M"]), int(r["N"]), int(r["K"]),
                      float(r["kernel_runtime"])))

def fc(q):
    """5.5, step by step; None when the table cannot answer."""
    for r in table:
        if r[:4] == q:
            return r[4]
    matched = [any(r[d] == q[d] for r in table) for d in range(4)]
    if all(matched):
        return None  # values present, combination absent
    pts = [({d: q[d] for d in range(4) if matched[d]}, {}, {})]  # (fixed, limits, marks)
    for d in range(4):
        if matched[d]:
            continue
        nxt = []
        for fixed, lim, mark in pts:
            U = sorted({r[d] for r in table if all(r[k] == v for k, v in fixed.items())})
            if not U:
                return None
            if q[d] < U[0]:
                f = {**fixed, d: U[0]}; l = {**lim, d: (None, U[0])}
                nxt += [(f, l, {**mark, d: "zero"}), (f, l, dict(mark))]
            elif q[d] > U[-1]:
                f = {**fixed, d: U[-1]}; l = {**lim, d: (U[-1], None)}
                nxt += [(f, l, dict(mark)), (f, l, {**mark, d: "peak"})]
            else:
                lo = max(u for u in U if u < q[d]); hi = min(u for u in U if u > q[d])
                l = {**lim, d: (lo, hi)}
                nxt += [({**fixed, d: lo}, l, dict(mark)), ({**fixed, d: hi}, l, dict(mark))]
        pts = nxt
    sf = sb = 0.0
    for fixed, lim, mark in pts:
        r = next(r for r in table if all(r[k] == v for k, v in fixed.items()))
        zero = "zero" in mark.values(); peak = "peak" in mark.values()
        B, M, N, K, rt = r
        Tr = B * M * N * K / rt / 1000
        Wr = B * (M * K + K * N + M * N) / rt / 1000 * 4
        cf = cb = 0.0
        for d in sorted(lim):
            lo, hi = lim[d]
            if hi is None:
                wl, wh = 0.5, 0.5
            elif lo is None:
                wl, wh = q[d] / hi, (hi - q[d]) / hi
            else:
                wl, wh = (q[d] - lo) / (hi - lo), (hi - q[d]) / (hi - lo)
            if zero:
                f = b = 0.0
            elif peak:
                f, b = P_F * wh, P_BW * wh
            elif r[d] == lo:
                f, b = Tr * wl, Wr * wl  # the low row gets wl (the seed's swap)
            else:
                f, b = Tr * wh, Wr * wh
            cf += f; cb += b
        sf += cf / len(lim); sb += cb / len(lim)
    ef, eb = sf / (len(pts) / 2), sb / (len(pts) / 2)
    if ef == 0 or eb == 0:
        return None
    B, M, N, K = q
    return max(B * M * N * K / ef, 4 * B * (M * K + K * N + M * N) / eb) / 1000

def query(name, d):
    if name == "aten::addmm":
        return (1, d[1][0], d[2][1], d[1][1])
    if name == "aten::mm":
        return (1, d[0][0], d[1][1], d[0][1])
    if name == "aten::bmm":
        return (d[0][0], d[0][1], d[1][2], d[0][2])
    return None

def roofline(name, d):
    if name == "aten::mm":
        M, K, N = d[0][0], d[0][1], d[1][1]; f, e = 2 * M * N * K, M * K + K * N + M * N
    elif name == "aten::addmm":
        M, K, N = d[1][0], d[1][1], d[2][1]; f, e = 2 * M * N * K + M * N, M * K + K * N + M * N + N
    else:
        b, M, K, N = d[0][0], d[0][1], d[0][2], d[1][2]; f, e = b * 2 * M * N * K, b * (M * K + K * N + M * N)
    return max(f / P_F / 1000, e * 4 / P_BW / 1000)

n_table = n_fallback = 0
for r in csv.DictReader(open(os.path.join(out, "pred.csv"))):
    q = query(r["name"], json.loads(r["input_dims"]))
    if q is None:
        assert r["model"] != "fc_table", r
        continue
    want = fc(q)
    got = float(r["predicted_us"])
    if want is None:
        assert r["model"] == "roofline", (r, q)
        want = roofline(r["name"], json.loads(r["input_dims"]))
        n_fallback += int(r["count"])
    else:
        assert r["model"] == "fc_table", (r, q)
        n_table += int(r["count"])
    assert got == want or abs(got - want) <= 1e-12 * want, (r["name"], q, got, want)
res = json.load(open(os.path.join(out, "fc_table.json")))["results"][0]
meta = res["meta"]
assert int(meta["table_ops"]) == n_table and int(meta["fallback_ops"]) == n_fallback, (meta, n_table, n_fallback)
assert int(meta["gemm_ops"]) == n_table + n_fallback + int(meta["unmapped_ops"])
cols = [c["name"] for c in res["columns"]]
for row in res["rows"]:
    x = dict(zip(cols, row))
    assert (x["batch_size"], x["M"], x["N"], x["K"]) == query(x["name"], json.loads(x["input_dims"]))
assert open(os.path.join(out, "pred.fc_table.csv")).read() == \
    open(os.path.join(out, "pred_file.fc_table.csv")).read(), "fc_table: FILE and fc_table_input differ"
print("predict_fc_dlrm: %d GEMM calls by the table recomputed, %d fell back to the roofline; "
      "table GMAE %s %%" % (n_table, n_fallback, meta.get("gmae_percent")))
