#!/usr/bin/env python3
"""Independent check of `memory` (issue 30, item 1): the allocator replayed.

    check_memory.py TRACE OUTDIR

TRACE is a Kineto JSON trace (.json or .json.gz); OUTDIR holds the csv results of
tests/pipelines/cli/memory_check.yaml on it (`mem.csv`, `mem.peak.csv`, `mem.oom.csv`).
Recomputed here from the JSON alone:

  allocator events = instant events named "[memory]" (and "[OutOfMemory]"), in
  (ts, file) order; a device is (args "Device Type", "Device Id"), named
  "cpu" for type 0, "<type>:<id>" otherwise ("<type>" without an id);
  level after an event = its "Total Allocated" (else the running sum of "Bytes");
  peak = the highest level, first reached; its time from t0 = the earliest start of
  the complete events (ph X, dur >= 0) other than cat Trace;
  frees pair with the live allocation of the same (device, "Addr"); a free of no
  live block is of a block allocated before the trace;
  the blocks live at the peak = allocations at or before the peak event not freed
  by then; each goes to its innermost op: the cpu_op (legacy Operator) on the
  event's own (pid, tid) whose [ts, ts + dur) holds it, latest start (then shortest)
  winning; live bytes by op at the peak must equal mem.peak.csv's "trace" rows,
  and the peak minus their sum its "before_trace" row.

Exits 1 with the differences, 0 when all agree.
"""
import bisect
import csv
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tracecheck import load_events, ns  # noqa: E402

TYPES = {0: "cpu", 1: "cuda", 6: "hip", 12: "xpu", 13: "mps", 19: "mtia"}
OPS = {"cpu_op", "Operator"}


def rows(out, name):
    with open(f"{out}/{name}", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


def device_name(a):
    t = int(a.get("Device Type", -1))
    if t == 0:
        return "cpu"
    i = int(a.get("Device Id", -1))
    name = TYPES.get(t, f"device_type_{t}")
    return name if i < 0 else f"{name}:{i}"


def t0_of(events):
    starts = [ns(e["ts"]) for e in events
              if e.get("ph") == "X" and "dur" in e and ns(e["dur"]) >= 0 and e.get("cat") != "Trace"]
    return min(starts) if starts else 0


def innermost_op(ops, e):
    """ops[(pid, tid)]: (start, -dur, name) sorted; the latest start holding the event
    (the shortest of equal starts) is the first holding it scanning back from it."""
    t = ns(e["ts"])
    lst = ops.get((e.get("pid"), e.get("tid")), [])
    k = bisect.bisect_right(lst, (t, float("inf"), "")) - 1
    while k >= 0:
        s, negd, name = lst[k]
        if s <= t < s - negd:
            return name
        k -= 1
    return ""


def replay(events):
    mem = [(ns(e["ts"]), i, e) for i, e in enumerate(events)
           if e.get("ph") in ("i", "I") and e.get("name") in ("[memory]", "[OutOfMemory]")]
    mem.sort(key=lambda x: (x[0], x[1]))
    dev = defaultdict(lambda: {"level": 0, "peak": None, "peak_ts": None, "peak_k": -1,
                               "allocs": 0, "frees": 0, "pre": 0, "oom": 0})
    live, freed_at = {}, {}
    for k, (ts, _, e) in enumerate(mem):
        a = e.get("args") or {}
        d = dev[device_name(a)]
        if e["name"] == "[OutOfMemory]":
            d["oom"] += 1
            continue
        b = int(a.get("Bytes", 0))
        key = (device_name(a), a.get("Addr"))
        if b > 0:
            d["allocs"] += 1
            live[key] = k
        elif b < 0:
            d["frees"] += 1
            if key in live:
                freed_at[live.pop(key)] = k
            else:
                d["pre"] += 1
        d["level"] = int(a["Total Allocated"]) if "Total Allocated" in a else d["level"] + b
        if d["peak"] is None or d["level"] > d["peak"]:
            d["peak"], d["peak_ts"], d["peak_k"] = d["level"], ts, k
    return mem, dev, freed_at


def main():
    trace, out = sys.argv[1], sys.argv[2]
    events = load_events(trace)
    t0 = t0_of(events)
    ops = defaultdict(list)
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in OPS and "dur" in e:
            ops[(e.get("pid"), e.get("tid"))].append((ns(e["ts"]), -ns(e["dur"]), e.get("name", "")))
    for lst in ops.values():
        lst.sort()
    mem, dev, freed_at = replay(events)
    by_op = defaultdict(int)
    for k, (ts, _, e) in enumerate(mem):
        a = e.get("args") or {}
        name = device_name(a)
        p = dev[name]["peak_k"]
        if e["name"] == "[memory]" and int(a.get("Bytes", 0)) > 0 and k <= p and \
                freed_at.get(k, len(mem)) > p:
            by_op[(name, innermost_op(ops, e))] += int(a["Bytes"])
    bad = []

    def check(cond, msg):
        if not cond:
            bad.append(msg)

    got = {r["device_name"]: r for r in rows(out, "mem.csv")}
    check(set(got) == set(dev), f"devices: {sorted(got)} != {sorted(dev)}")
    for name, d in dev.items():
        r = got.get(name)
        if r is None:
            continue
        if d["peak"] is not None:
            check(int(r["peak_allocated_bytes"]) == d["peak"],
                  f"{name}: peak {r['peak_allocated_bytes']} != {d['peak']}")
            want_us = (d["peak_ts"] - t0) / 1000
            check(abs(float(r["peak_us"]) - want_us) < 1e-3, f"{name}: peak_us {r['peak_us']} != {want_us}")
        for col, key in (("n_allocs", "allocs"), ("n_frees", "frees"), ("n_oom", "oom"),
                         ("n_before_trace_frees", "pre")):
            check(int(r[col]) == d[key], f"{name}: {col} {r[col]} != {d[key]}")
    peak_rows = defaultdict(int)
    before = {}
    for r in rows(out, "mem.peak.csv"):
        if r["origin"] == "trace":
            peak_rows[(r["device_name"], r["inner_op"])] += int(r["live_bytes"])
        else:
            before[r["device_name"]] = int(r["live_bytes"])
    check(dict(peak_rows) == dict(by_op), f"live bytes by op at the peak: {dict(peak_rows)} != {dict(by_op)}")
    for name, d in dev.items():
        if d["peak"] is None:
            continue
        rest = d["peak"] - sum(v for (n, _), v in by_op.items() if n == name)
        check(before.get(name, 0) == rest, f"{name}: before_trace {before.get(name, 0)} != {rest}")
    check(len(rows(out, "mem.oom.csv")) == sum(d["oom"] for d in dev.values()), "OOM rows")
    for m in bad:
        print(m)
    print(f"{trace}: {len(mem)} allocator events, {len(dev)} devices: "
          f"{'ok' if not bad else f'{len(bad)} differences'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
