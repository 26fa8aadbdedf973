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
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_attention_calib as cac  # noqa: E402


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


def fit(s):
    """The curve of (bound, measured, group) samples, one kernel each: least absolute
    relative error (check_attention_calib.fit)."""
    return cac.fit([(b, m, 1, g) for b, m, g in s])


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
