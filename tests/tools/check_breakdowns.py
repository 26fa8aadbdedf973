#!/usr/bin/env python3
"""Invariants of host/device breakdown CSVs, checked independently of tracepipe.

usage: check_breakdowns.py TRACE OUTDIR   (OUTDIR holds host.csv, device.streams.csv, device.tree.csv)

- host tree: every node with children has an Unaccounted child with 0 <= time <= node time, and
  the children's times plus Unaccounted cover the node (an interval union is <= the sum);
  percent_of_parent = 100 * time / parent time.
- device tree: children sum exactly to their parent; the "all streams (sum)" node equals the summed
  duration of every GPU activity (kernel, memcpy, memset) in the trace, each counted once.
- devices (when device.devices.csv is there): busy = the union of all the device's activities
  computed here, sum_stream_busy_us = the streams' active times added, busy + idle = window.
- streams: active + idle = span, active_percent = 100 * active / span, and each stream's active
  time equals the union of its activities' intervals computed here from the trace.
Prints "breakdown invariants: N passed, M failed".
"""
import csv, gzip, json, os, sys
from decimal import Decimal

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
EPS = 1e-6
passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL:", what)


def load_tree(path):
    rows = list(csv.DictReader(open(path)))
    kids = {}
    for r in rows:
        kids.setdefault(r["parent_id"], []).append(r)
    return rows, kids


def host_invariants(path):
    rows, kids = load_tree(path)
    for r in rows:
        ch = kids.get(r["id"], [])
        if not ch:
            continue
        t = float(r["time_us"])
        un = [c for c in ch if c["name"] == "Unaccounted"]
        check(len(un) == 1, f"{path}: node {r['name']} has one Unaccounted")
        if un:
            u = float(un[0]["time_us"])
            check(-EPS <= u <= t + EPS, f"{path}: Unaccounted of {r['name']} within [0, {t}]: {u}")
        total = sum(float(c["time_us"]) for c in ch)
        check(total + EPS >= t, f"{path}: children of {r['name']} cover it: {total} < {t}")
        for c in ch:
            if t > 0 and c["percent_of_parent"]:
                want = 100 * float(c["time_us"]) / t
                check(abs(float(c["percent_of_parent"]) - want) < 1e-6,
                      f"{path}: percent of {c['name']}: {c['percent_of_parent']} != {want}")


def gpu_events(trace):
    opener = gzip.open if trace.endswith(".gz") else open
    with opener(trace, "rt") as f:
        data = json.load(f, parse_float=Decimal, parse_int=Decimal)
    events = data["traceEvents"] if isinstance(data, dict) else data
    out = []
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in GPU_CATS and "dur" in e:
            ts = int((Decimal(e["ts"]) * 1000).to_integral_value(rounding="ROUND_HALF_UP"))
            dur = int((Decimal(e["dur"]) * 1000).to_integral_value(rounding="ROUND_HALF_UP"))
            args = e.get("args", {})
            out.append((int(args.get("device", -1)), int(args.get("stream", -1)), ts, dur))
    return out


def union(intervals):
    total, end = 0, None
    for s, d in sorted(intervals):
        e = s + d
        if end is None or s > end:
            total += d
            end = e
        elif e > end:
            total += e - end
            end = e
    return total


def device_invariants(trace, tree_path, streams_path):
    gpu = gpu_events(trace)
    rows, kids = load_tree(tree_path)
    for r in rows:
        ch = kids.get(r["id"], [])
        if ch:
            total = sum(float(c["time_us"]) for c in ch)
            check(abs(total - float(r["time_us"])) < 1e-6,
                  f"{tree_path}: children of {r['name']} sum to {total}, not {r['time_us']}")
    all_streams = [r for r in rows if r["name"] == "all streams (sum)"]
    expect = sum(d for _, _, _, d in gpu) / 1000
    if gpu:
        check(len(all_streams) == 1 and abs(float(all_streams[0]["time_us"]) - expect) < 1e-6,
              f"{tree_path}: all streams = {all_streams[0]['time_us'] if all_streams else None}, "
              f"GPU activity sums to {expect}")
    for r in csv.DictReader(open(streams_path)):
        span, act, idle = float(r["window_us"]), float(r["active_us"]), float(r["window_idle_us"])
        check(abs(act + idle - span) < 1e-6, f"{streams_path}: active + window idle != window: {r}")
        if span > 0:
            check(abs(float(r["active_percent"]) - 100 * act / span) < 1e-6,
                  f"{streams_path}: active_percent: {r}")
        mine = [(ts, d) for dev, st, ts, d in gpu
                if dev == int(r["device"]) and st == int(r["stream"])]
        check(abs(union(mine) / 1000 - act) < 1e-6,
              f"{streams_path}: stream {r['stream']} active {act} != union {union(mine) / 1000}")
    devices_path = streams_path.replace(".streams.csv", ".devices.csv")
    if os.path.exists(devices_path):
        active = {}
        for r in csv.DictReader(open(streams_path)):
            active[int(r["device"])] = active.get(int(r["device"]), 0) + float(r["active_us"])
        devs = list(csv.DictReader(open(devices_path)))
        check(sorted(int(r["device"]) for r in devs) == sorted(active),
              f"{devices_path}: devices {[r['device'] for r in devs]} != {sorted(active)}")
        for r in devs:
            dev, busy = int(r["device"]), float(r["busy_us"])
            mine = [(ts, d) for dv, _, ts, d in gpu if dv == dev]
            check(abs(union(mine) / 1000 - busy) < 1e-6,
                  f"{devices_path}: device {dev} busy {busy} != union {union(mine) / 1000}")
            check(abs(float(r["sum_stream_busy_us"]) - active.get(dev, 0)) < 1e-6,
                  f"{devices_path}: device {dev} sum of stream busy times")
            check(abs(busy + float(r["window_idle_us"]) - float(r["window_us"])) < 1e-6,
                  f"{devices_path}: busy + window idle != window: {r}")


def path_invariants(tree_path):
    """The CSV writer's `path` column: the parent's path, " / ", the name."""
    rows = list(csv.DictReader(open(tree_path)))
    if not rows or "path" not in rows[0]:
        return
    by_id = {r["id"]: r for r in rows}
    for r in rows:
        want = r["name"] if not r["parent_id"] else by_id[r["parent_id"]]["path"] + " / " + r["name"]
        check(r["path"] == want, f"{tree_path}: row {r['id']} path {r['path']!r} != {want!r}")


trace, out = sys.argv[1], sys.argv[2]
path_invariants(f"{out}/host.csv")
path_invariants(f"{out}/device.tree.csv")
host_invariants(f"{out}/host.csv")
device_invariants(trace, f"{out}/device.tree.csv", f"{out}/device.streams.csv")
print(f"breakdown invariants: {passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
