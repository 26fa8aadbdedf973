#!/usr/bin/env python3
"""critical_path against HTA's own overlaid critical-path output (issue 28).

Usage: check_critical_path.py TRACE HTA_OVERLAID OUTDIR [MIN_AGREE]

OUTDIR holds the case's cp.path.csv (the path), cp.bound_by.csv and cp.replay.csv.
Independently of tracepipe it checks, from the JSON files alone:
  - the events HTA marks critical (args.critical, ph X; HTA's graph has no
    user annotations or Python frames) are on tracepipe's path, at least
    MIN_AGREE of them (default 0.99); every one that is not is GPU work that
    ended before a host synchronisation on tracepipe's path started (the
    documented difference: that sync did not wait, the host is critical);
  - tracepipe's path events HTA does not mark are user annotations (HTA
    leaves them out), zero-length calls (HTA's zero-weight edges mark no
    event), or host events overlapping those GPU events' time; at most 1 %
    others;
  - the measured time is the trace's first start to last end of host events
    and GPU activity; the path's on_path_us sum to it; bound-by sums to 100 %.
"""
import csv
import gzip
import json
import sys

HOST = {"cpu_op", "user_annotation", "cuda_runtime", "python_function", "cuda_driver"}
GPU = {"kernel", "gpu_memcpy", "gpu_memset"}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)["traceEvents"]


def main():
    trace, hta, out = sys.argv[1:4]
    min_agree = float(sys.argv[4]) if len(sys.argv) > 4 else 0.99
    ev = [e for e in load(trace) if e.get("ph") == "X" and "dur" in e]
    nodes = [e for e in ev if e.get("cat") in HOST | GPU]
    t0 = min(e["ts"] for e in nodes)
    t1 = max(e["ts"] + e["dur"] for e in nodes)
    by_key = {}
    for e in ev:
        by_key.setdefault((e["name"], round(e["ts"] - t0), round(e["dur"])), e)
    crit = {(e["name"], round(e["ts"] - t0), round(e["dur"]))
            for e in load(hta)
            if e.get("ph") == "X" and e.get("args", {}).get("critical")
            and e.get("cat") not in ("user_annotation", "python_function")}
    path = list(csv.DictReader(open(f"{out}/cp.path.csv")))
    ours = {(r["name"], round(float(r["start_us"])), round(float(r["dur_us"]))) for r in path}
    fails = []

    agree = len(crit & ours) / len(crit)
    if agree < min_agree:
        fails.append(f"only {len(crit & ours)} of HTA's {len(crit)} critical events on the path")
    syncs = [by_key[k] for k in ours
             if k in by_key and by_key[k].get("cat") == "cuda_runtime" and "Synchronize" in k[0]]
    missed = [by_key[k] for k in crit - ours]
    for m in missed:
        end = m["ts"] + m["dur"]
        if m.get("cat") not in GPU or not any(s["ts"] >= end for s in syncs):
            fails.append(f"HTA-critical {m['name'][:60]} at {m['ts'] - t0} us is off the path, unexplained")
    lo = min((m["ts"] for m in missed), default=0)
    hi = max((m["ts"] + m["dur"] for m in missed), default=0)
    others = [k for k in ours - crit
              if by_key[k].get("cat") != "user_annotation" and k[2] != 0
              and not (by_key[k]["ts"] < hi and by_key[k]["ts"] + by_key[k]["dur"] > lo)]
    if len(others) > 0.01 * len(ours):
        fails.append(f"{len(others)} path events HTA does not mark, unexplained: {others[:5]}")

    replay = list(csv.DictReader(open(f"{out}/cp.replay.csv")))
    measured = (t1 - t0)
    for r in replay:
        if abs(float(r["measured_us"]) - measured) > 1e-6 * measured:
            fails.append(f"measured {r['measured_us']} us, the trace spans {measured}")
        if abs(float(r["replayed_us"]) - measured) > 0.01 * measured:
            fails.append(f"replayed {r['replayed_us']} us is not within 1 % of {measured}")
    on_path = sum(float(r["on_path_us"]) for r in path)
    if abs(on_path - measured) > 1e-6 * measured:
        fails.append(f"on_path_us sums to {on_path}, not {measured}")
    pct = sum(float(r["percent"]) for r in csv.DictReader(open(f"{out}/cp.bound_by.csv")))
    if abs(pct - 100) > 1e-9:
        fails.append(f"bound-by percentages sum to {pct}")

    print(f"check_critical_path: {len(crit & ours)}/{len(crit)} of HTA's critical events on the "
          f"path ({100 * agree:.1f} %), {len(missed)} off it (GPU work a sync did not wait for)")
    for f in fails:
        print("check_critical_path: " + f, file=sys.stderr)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
