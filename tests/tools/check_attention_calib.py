"""Independent check of predict's attention calibration on real traces (issue 27 item 4):
from each trace's JSON, every attention op check_models.py models (its bound: the
roofline before the launch floor) and the kernels launched under it (runtime call ->
kernel by correlation, the call's innermost enclosing cpu_op on its thread); then the
curve measured = t0 * kernels + slope * bound fitted as docs/prediction.md says
(relative least squares, then reweighted by 1 / max(|relative error|, 1e-3) until it
stops moving; t0 >= 0, slope >= 0), each trace predicted by the curve of the others,
and the GMAE.  Also each trace's attention share of its GPU time.

    import check_attention_calib as cac
    s = cac.samples(TRACE, PRESET, group)        # [(bound_us, measured_us, kernels, group)]
    t0, slope = cac.fit(s); errs = cac.leave_one_out(s); cac.gmae(errs)
"""
import bisect
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_models as cm  # noqa: E402
import check_launch as cl  # noqa: E402

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset")


def _innermost_ops(events):
    """{(pid, tid): (starts, ops)} of cpu_ops sorted by start, longest first on ties."""
    by = {}
    for e in events:
        if e.get("cat") == "cpu_op" and "dur" in e:
            by.setdefault((e["pid"], e["tid"]), []).append(e)
    out = {}
    for key, ops in by.items():
        ops.sort(key=lambda e: (e["ts"], -e["dur"]))
        out[key] = ([e["ts"] for e in ops], ops)
    return out


def _launcher(index, call):
    """The innermost cpu_op of call's thread enclosing its start (the latest start, the
    shortest on a tie: the first enclosing one scanning back), or None."""
    starts, ops = index.get((call["pid"], call["tid"]), ([], []))
    for i in range(bisect.bisect_right(starts, call["ts"]) - 1, -1, -1):
        if call["ts"] < ops[i]["ts"] + ops[i]["dur"]:
            return ops[i]
    return None


def gpu_time(events):
    return sum(e["dur"] for e in events if e.get("cat") in GPU_CATS and e.get("ph") == "X")


def samples(trace, preset, group):
    """The attention calls of trace: (bound_us, measured_us, kernels, group) each, and the
    trace's GPU time (us).  group: a label for all, or a function of the op event (None:
    in no group, so in every fold's fit and never predicted)."""
    events = cm.load(trace)
    peaks = cm.PRESETS[preset]
    kernels = {}
    for e in events:
        if e.get("cat") in GPU_CATS and e.get("ph") == "X" and "correlation" in e.get("args", {}):
            kernels.setdefault(e["args"]["correlation"], []).append(e["dur"])
    index = _innermost_ops(events)
    per_op = {}
    for e in events:
        if e.get("cat") in ("cuda_runtime", "cuda_driver") and e.get("args", {}).get(
                "correlation") in kernels:
            op = _launcher(index, e)
            if op is not None and op["name"] in cm.ATTENTION:
                per_op.setdefault(id(op), (op, []))[1].extend(kernels[e["args"]["correlation"]])
    out = []
    for op, durs in per_op.values():
        c = cm.cost(op["name"], op["args"])
        if c and c[0].startswith("attention"):
            g = group(op) if callable(group) else group
            out.append((cm.predict_us(c, peaks), float(sum(durs)), len(durs), g))
    out += _inherited(events, peaks, group)
    return out, gpu_time(events)


def _inherited(events, peaks, group):
    """Attention kernels no op launched that take an attention op's bound by an
    identical launch (check_launch.py's independent version of the rule): one sample
    each, one kernel.  group: a label (a function of the op: such kernels have none,
    so they are left out, and predict's grouping by iterations is not replayed here)."""
    import json
    if callable(group):
        return []
    unowned, owned, ops = cl.kernels_by_op(events)
    donors = {}
    for i, ks in owned.items():
        dims = ops[i].get("args", {}).get("Input Dims")
        key = cl.launch(ks[0]) if len(ks) == 1 and ks[0]["cat"] == "kernel" else None
        if key and dims is not None:
            donors.setdefault(key, {})[(ops[i]["name"], json.dumps(dims))] = ops[i]
    out = []
    for k in unowned:
        d = donors.get(cl.launch(k)) if cl.launch(k) else None
        if not d or len(d) != 1:
            continue
        op = next(iter(d.values()))
        c = cm.cost(op["name"], op["args"])
        if c and c[0].startswith("attention"):
            out.append((cm.predict_us(c, peaks), float(k["dur"]), 1, group))
    return out


def _solve(s, w):
    kk = sum(wi * k * k for wi, (b, m, k, g) in zip(w, s))
    kb = sum(wi * k * b for wi, (b, m, k, g) in zip(w, s))
    bb = sum(wi * b * b for wi, (b, m, k, g) in zip(w, s))
    km = sum(wi * k * m for wi, (b, m, k, g) in zip(w, s))
    bm = sum(wi * b * m for wi, (b, m, k, g) in zip(w, s))
    det = kk * bb - kb * kb
    t0, sl = -1.0, 0.0
    if det > 1e-12 * kk * bb:
        t0, sl = (km * bb - kb * bm) / det, (kk * bm - kb * km) / det
    if t0 < 0 and bb > 0:
        t0, sl = 0.0, bm / bb
    if sl <= 0 or t0 < 0:
        t0, sl = km / kk, 0.0
    return t0, sl


def fit(s):
    t0, sl = _solve(s, [1 / (m * m) for b, m, k, g in s])
    for _ in range(200):
        w = [1 / (m * m * max(abs(t0 * k + sl * b - m) / m, 1e-3)) for b, m, k, g in s]
        n0, ns = _solve(s, w)
        still = abs(n0 - t0) <= 1e-12 * abs(n0) and abs(ns - sl) <= 1e-12 * abs(ns)
        t0, sl = n0, ns
        if still:
            break
    return t0, sl


def leave_one_out(s):
    """Each grouped sample's relative error under the curve fitted on the others."""
    curves = {g: fit([x for x in s if x[3] != g]) for g in {x[3] for x in s} if g is not None}
    return [abs(curves[g][0] * k + curves[g][1] * b - m) / m for b, m, k, g in s if g is not None]


def gmae(errs):
    eps = 4e-4 if any(e == 0 for e in errs) else 0
    return math.exp(sum(math.log(e + eps) for e in errs) / len(errs))


def close(got, want, what, rel=1e-6):
    assert abs(got - want) <= rel * max(1e-9, abs(want)), (what, got, want)


def check_row(row, s, floor_us, holdout="trace"):
    """predict's calibration row of the attention cell against the Python figures (the
    roofline's own GMAE with the preset's launch floor per kernel)."""
    t0, sl = fit(s)
    errs = leave_one_out(s)
    groups = {x[3] for x in s if x[3] is not None}
    assert int(row["count"]) == len(s) and int(row["n_predicted"]) == len(errs), row
    assert int(row["n_groups"]) == len(groups) and row["holdout"] == holdout, row
    close(float(row["t0_us"]), t0, "t0_us")
    close(float(row["slope"]), sl, "slope")
    close(float(row["gmae_percent"]), 100 * gmae(errs), "gmae_percent")
    close(float(row["mean_error_percent"]), 100 * sum(errs) / len(errs), "mean_error_percent")
    close(float(row["bound_gmae_percent"]),
          100 * gmae([abs(max(b, k * floor_us) - m) / m for b, m, k, g in s]), "bound_gmae_percent")
    return t0, sl, 100 * gmae(errs)


def check_traces(out, traces, preset):
    """Each (label, path) of traces: its samples (group = label), its predict stage
    <label>_pred's attention row in OUT against them (modelled calls and time; the GPU time
    its share implies) and check_models.py on a predict run of it.  (samples, rows agreed)."""
    import csv
    s, agree = [], 0
    for label, path in traces:
        agree += models_agree(path, preset)
        got, gpu_us = samples(path, preset, label)
        s += got
        rows = csv.DictReader(open(os.path.join(out, label + "_pred.categories.csv")))
        att = next(r for r in rows if r["category"] == "attention")
        assert int(att["n_modelled"]) == len(got), (label, att)
        close(float(att["modelled_us"]), sum(m for b, m, k, g in got), label + " attention us")
        close(100 * float(att["gpu_us"]) / float(att["share_percent"]), gpu_us, label + " GPU time")
    return s, agree


def models_agree(trace, preset):
    """Runs the bundled predict pipeline on trace and checks every row of the issue-27
    models with check_models.py; the number of rows checked."""
    import subprocess
    import tempfile
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run([os.environ.get("TP_PIPELINE", "build/pipeline"), "run", "predict",
                              "--set", "trace=" + trace, "--set", "out=" + tmp, "-q"],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        return cm.check(os.path.join(tmp, "predict.csv"), trace, preset)
