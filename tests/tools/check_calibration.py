#!/usr/bin/env python3
"""Independent check of predict's calibration (issue 27 item 4) on a hand trace of
aten::mm ops: the GEMM bound 2*M*N*K / peak (FP32, compute-bound shapes), one kernel per
op, iterations from ProfilerStep#N annotations; the fit of
measured = t0 * kernels + slope * bound minimising the absolute relative errors, leave one
iteration out, GMAE.  Usage: check_calibration.py TRACE FP32_GFLOPS OUTDIR [CALIBRATION_FILE]
(with a calibration file: its gemm curve applied instead of fitted)."""
import csv
import json
import math
import sys


def samples(trace, gflops):
    ev = json.load(open(trace))["traceEvents"]
    steps = [(e["ts"], e["ts"] + e["dur"]) for e in ev if e["name"].startswith("ProfilerStep#")]
    launch = {}
    for e in ev:
        if e.get("cat") == "kernel":
            launch[e["args"]["correlation"]] = e["dur"]
    ops = [e for e in ev if e.get("cat") == "cpu_op" and e["name"] == "aten::mm"]
    calls = [e for e in ev if e.get("cat") == "cuda_runtime"]
    out = []
    for op in ops:
        (m, k), (_, n) = op["args"]["Input Dims"]
        bound = 2.0 * m * n * k / (gflops * 1e3)
        meas = sum(launch[c["args"]["correlation"]] for c in calls
                   if op["ts"] <= c["ts"] < op["ts"] + op["dur"])
        group = next(i for i, (a, b) in enumerate(steps) if a <= op["ts"] < b)
        out.append((bound, meas, group))
    return out


def wls(s, w):
    """Weighted least squares of m ~ t0 + slope * b (one kernel per op), t0, slope >= 0."""
    kk = sum(wi for wi, (b, m, _) in zip(w, s))
    kb = sum(wi * b for wi, (b, m, _) in zip(w, s))
    bb = sum(wi * b * b for wi, (b, m, _) in zip(w, s))
    km = sum(wi * m for wi, (b, m, _) in zip(w, s))
    bm = sum(wi * b * m for wi, (b, m, _) in zip(w, s))
    det = kk * bb - kb * kb
    t0, sl = (km * bb - kb * bm) / det, (kk * bm - kb * km) / det
    if t0 < 0:
        t0, sl = 0.0, bm / bb
    if sl <= 0:
        t0, sl = km / kk, 0.0
    return t0, sl


def fit(s):
    """Least absolute relative error: relative least squares, then reweighted by
    1 / max(|r|, 1e-3) until the curve stops moving (1e-12) or 200 rounds."""
    t0, sl = wls(s, [1 / m ** 2 for b, m, _ in s])
    for _ in range(200):
        w = [1 / (m * m * max(abs(t0 + sl * b - m) / m, 1e-3)) for b, m, _ in s]
        n0, ns = wls(s, w)
        still = abs(n0 - t0) <= 1e-12 * abs(n0) and abs(ns - sl) <= 1e-12 * abs(ns)
        t0, sl = n0, ns
        if still:
            break
    return t0, sl


def gmae(errs):
    eps = 4e-4 if any(e == 0 for e in errs) else 0
    return math.exp(sum(math.log(e + eps) for e in errs) / len(errs))


def close(a, b, what):
    if abs(a - b) > 1e-8 * max(1.0, abs(b)):
        sys.exit(f"check_calibration: {what}: tracepipe {a}, Python {b}")


def main():
    trace, gflops, outdir = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    s = samples(trace, gflops)
    row = next(csv.DictReader(open(f"{outdir}/pred.calibration.csv")))
    if len(sys.argv) > 4:
        c = json.load(open(sys.argv[4]))["curves"][0]
        t0, sl = c["t0_us"], c["slope"]
        pred = [t0 + sl * b for b, m, g in s]
    else:
        t0, sl = fit(s)
        pred = []
        for b, m, g in s:
            t, k = fit([x for x in s if x[2] != g])
            pred.append(t + k * b)
        doc = json.load(open(f"{outdir}/calibration.json"))
        close(doc["curves"][0]["t0_us"], t0, "file t0_us")
        close(doc["curves"][0]["slope"], sl, "file slope")
    close(float(row["t0_us"]), t0, "t0_us")
    close(float(row["slope"]), sl, "slope")
    errs = [abs(p - m) / m for p, (b, m, g) in zip(pred, s)]
    close(float(row["gmae_percent"]), 100 * gmae(errs), "gmae_percent")
    close(float(row["mean_error_percent"]), 100 * sum(errs) / len(errs), "mean_error_percent")
    close(float(row["bound_gmae_percent"]), 100 * gmae([abs(b - m) / m for b, m, g in s]),
          "bound_gmae_percent")
    print(f"check_calibration: t0 {t0:.6f} us, slope {sl:.6f}, GMAE {100 * gmae(errs):.4f} % "
          f"over {len(s)} ops: agree")


main()
