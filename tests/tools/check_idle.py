#!/usr/bin/env python3
"""Independent check of the idle figures (issue 25, item 4): none is ever negative,
and each is the one its name says (CONVENTIONS: `idle_us` over the group's own span,
`window_idle_us` over the trace window).

    check_idle.py TRACE OUTDIR [--invariants-only]

OUTDIR holds the csv results of tests/pipelines/cli/idle_corpus.yaml on TRACE:
`sa.csv`, `sa.devices.csv` (streams) and `db.streams.csv`, `db.devices.csv`
(device_breakdown). Checked on every row:

  - every column whose name holds `idle` is present and >= 0 (never null where
    its figures are set, never negative);
  - streams: idle_us = span_us - busy_us, busy_us <= span_us; devices also
    host_idle_us <= host_runtime_us (both null or both set);
  - device_breakdown: window_idle_us = window_us - active_us (streams) and
    window_us - busy_us (devices); one window_us in every row of both plugins.

Unless --invariants-only (a trim_iterations run, whose trace is no longer the
file's, or a trace that is not Kineto JSON: nsys, dvdt-prof), the figures are
recomputed from the Kineto JSON alone: activities = complete (ph X)
events of cat kernel/gpu_memcpy/gpu_memset (legacy Kernel/Memcpy/Memset) by
(args.device, args.stream, else the tid); host events = complete events of cat cpu_op/Operator,
user_annotation, python_function and runtime/driver calls; per stream span, union
(busy) and idle; per device the union, and host_idle_us = the host window (first
host start to last host end) minus the union's part inside it. Exits 1 with the
differences.
"""
import csv
import gzip
import json
import os
import sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tracecheck import ns, union  # noqa: E402

ACTIVITY = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset", "mtia_ccp_events"}
# device activity whose tid is a hardware queue, never a stream (MTIA)
QUEUE_TID = {"mtia_ccp_events"}
HOST = {"cpu_op", "Operator", "user_annotation", "python_function", "Runtime"}
TOL = 1e-3
errors = []


def check(ok, msg):
    if not ok:
        errors.append(msg)


def rows(out, name):
    path = os.path.join(out, name)
    return list(csv.DictReader(open(path))) if os.path.exists(path) else []


def f(r, col):
    return float(r[col]) if r.get(col) not in (None, "") else None


def is_host(cat):
    return cat in HOST or cat.endswith("_runtime") or cat.endswith("_driver")


def device_of(e):
    """args.device, else the pid (Kineto writes device activity under pid = device)."""
    a = e.get("args") or {}
    if "device" in a:
        return int(a["device"])
    pid = e.get("pid", -1)
    return pid if isinstance(pid, int) and 0 <= pid <= 2**31 - 1 else -1


def stream_of(e):
    """args.stream, else the tid as the reader takes it (a number, or "stream N")."""
    a = e.get("args") or {}
    if "stream" in a:
        return int(a["stream"])
    if e.get("cat") in QUEUE_TID:
        return -1
    tid = e.get("tid", -1)
    if isinstance(tid, str) and tid.startswith("stream ") and tid[7:].isdigit():
        return int(tid[7:])
    return int(tid) if isinstance(tid, int) else -1


def within(iv, lo, hi):
    """Length of the union of iv inside [lo, hi)."""
    return union([(max(a, lo), min(b, hi)) for a, b in iv if min(b, hi) > max(a, lo)])


def no_negative(out):
    for name in sorted(os.listdir(out)):
        if not name.endswith(".csv"):
            continue
        for r in rows(out, name):
            for col, v in r.items():
                if col and "idle" in col and v not in (None, ""):
                    check(float(v) >= 0, f"{name}: {col} = {v} < 0: {r}")


def identities(out):
    windows = set()
    for r in rows(out, "sa.csv") + rows(out, "sa.devices.csv"):
        span, busy, idle = f(r, "span_us"), f(r, "busy_us"), f(r, "idle_us")
        check(idle is not None and abs(span - busy - idle) < TOL, f"sa: idle != span - busy: {r}")
        check(busy <= span + TOL, f"sa: busy > span: {r}")
        windows.add(r["window_us"])
    for r in rows(out, "sa.devices.csv"):
        hr, hi = f(r, "host_runtime_us"), f(r, "host_idle_us")
        check((hr is None) == (hi is None), f"sa.devices: host_runtime_us / host_idle_us: {r}")
        if hr is not None:
            check(hi <= hr + TOL, f"sa.devices: host_idle_us > host_runtime_us: {r}")
        check("host_idle_sum_us" not in r, "sa.devices: host_idle_sum_us is back")
    for name, busy_col in (("db.streams.csv", "active_us"), ("db.devices.csv", "busy_us")):
        for r in rows(out, name):
            w, busy, idle = f(r, "window_us"), f(r, busy_col), f(r, "window_idle_us")
            check(idle is not None and abs(w - busy - idle) < TOL,
                  f"{name}: window_idle_us != window_us - {busy_col}: {r}")
            check("idle_us" not in r and "span_us" not in r, f"{name}: old column names: {r}")
            windows.add(r["window_us"])
    check(len({float(w) for w in windows}) <= 1, f"several windows: {sorted(windows)}")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        data = json.load(fh, parse_float=Decimal)
    return data["traceEvents"] if isinstance(data, dict) else data


def recompute(trace, out):
    acts, host = {}, []
    for e in load(trace):
        if e.get("ph") != "X" or "dur" not in e or Decimal(e["dur"]) < 0:
            continue
        t0 = ns(e["ts"])
        iv = (t0, t0 + ns(e["dur"]))
        cat = e.get("cat", "")
        if cat in ACTIVITY:
            dev = device_of(e)
            acts.setdefault((dev, stream_of(e)), []).append(iv)
        elif is_host(cat):
            host.append(iv)
    got = {(int(r["device"]), int(r["stream"])): r for r in rows(out, "sa.csv")}
    check(set(got) == set(acts), f"sa: streams {sorted(got)} != {sorted(acts)}")
    for key, iv in acts.items():
        r = got.get(key)
        if r is None:
            continue
        span = max(b for _, b in iv) - min(a for a, _ in iv)
        busy = union(iv)
        check(abs(f(r, "busy_us") - busy / 1000) < TOL, f"sa {key}: busy {r['busy_us']} != {busy / 1000}")
        check(abs(f(r, "idle_us") - (span - busy) / 1000) < TOL,
              f"sa {key}: idle {r['idle_us']} != {(span - busy) / 1000}")
    h0 = min((a for a, _ in host), default=None)
    h1 = max((b for _, b in host), default=None)
    for r in rows(out, "sa.devices.csv"):
        iv = [x for (d, _), v in acts.items() if d == int(r["device"]) for x in v]
        busy = union(iv)
        check(abs(f(r, "busy_us") - busy / 1000) < TOL, f"sa.devices: busy != {busy / 1000}: {r}")
        if h0 is None:
            check(f(r, "host_idle_us") is None, f"sa.devices: host_idle_us without host events: {r}")
            continue
        want = (h1 - h0 - within(iv, h0, h1)) / 1000
        check(f(r, "host_idle_us") is not None and abs(f(r, "host_idle_us") - want) < TOL,
              f"sa.devices: host_idle_us {r['host_idle_us']} != {want}")


def main():
    trace, out = sys.argv[1], sys.argv[2]
    no_negative(out)
    identities(out)
    if "--invariants-only" not in sys.argv[3:]:
        recompute(trace, out)
    for e in errors[:20]:
        print(f"check_idle: {trace}: {e}")
    if not errors:
        print(f"check_idle: {trace}: ok")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
