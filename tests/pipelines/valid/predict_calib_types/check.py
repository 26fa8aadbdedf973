"""predict_calib_types, independently: the samples' bounds recomputed in Python (each kernel's
type from its name, TF32 kernels at the TF32 rate), a least-squares line through each type's
(bound, measured) recovers the curves the trace was made with, and predict's fitted curves
and out-of-sample GMAE agree."""
import csv, json, math, os, sys

out = sys.argv[1]
ev = json.load(open("tests/data/hand/predict_calib_types.json"))["traceEvents"]
ops = {e["ts"]: e for e in ev if e["cat"] == "cpu_op"}
pts = {"tf32": [], "fp32": []}
for k in (e for e in ev if e["cat"] == "kernel"):
    op = ops[k["ts"] - 11]
    (m, kk), (_, n) = op["args"]["Input Dims"]
    typ = "tf32" if "s1688gemm" in k["name"] else "fp32"
    peak = 156000 if typ == "tf32" else 19500
    b = max(2.0 * m * n * kk / peak / 1e3, (m * kk + kk * n + m * n) * 4.0 / 1555 / 1e3)
    pts[typ].append((b, k["dur"]))
want = {}
for typ, p in pts.items():
    mx = sum(b for b, _ in p) / len(p)
    my = sum(y for _, y in p) / len(p)
    slope = sum((b - mx) * (y - my) for b, y in p) / sum((b - mx) ** 2 for b, _ in p)
    want[typ] = (my - slope * mx, slope)  # one kernel per call: t0 is the intercept
assert all(math.isclose(a, b, abs_tol=1e-3) for a, b in zip(want["tf32"], (2, 1))), want
assert all(math.isclose(a, b, abs_tol=1e-3) for a, b in zip(want["fp32"], (5, 2))), want
rows = {r["dtype"]: r for r in csv.DictReader(open(os.path.join(out, "pred.calibration.csv")))}
assert sorted(rows) == ["fp32", "tf32"], rows
for typ, (t0, slope) in want.items():
    r = rows[typ]
    assert r["n_fit"] == "24" and r["n_groups"] == "3" and r["holdout"] == "iteration", r
    assert math.isclose(float(r["t0_us"]), t0, abs_tol=1e-3), (typ, r["t0_us"], t0)
    assert math.isclose(float(r["slope"]), slope, rel_tol=1e-4), (typ, r["slope"], slope)
    assert float(r["gmae_percent"]) < 0.01, r
cat = {r["category"]: r for r in csv.DictReader(open(os.path.join(out, "pred.categories.csv")))}
assert cat["gemm"]["n_calibrated"] == "48" and float(cat["gemm"]["calibrated_gmae_percent"]) < 0.01
print("predict_calib_types: tf32 and fp32 curves recovered (%s, %s)" % (want["tf32"], want["fp32"]))
