#!/usr/bin/env python3
"""Iterations computed from a Kineto JSON, independently of tracepipe.

usage: check_iterations.py TRACE CSV MARKER_REGEX host|gpu

host: iterations are the complete host events (cpu_op, user_annotation)
matching the regex on the thread holding most of them, by start; a GPU
activity belongs to the iteration holding the start of the runtime call
with its correlation id (the outermost, i.e. earliest and longest, call).
gpu: iterations are the gpu_user_annotation events matching it on the
track holding most of them; an activity belongs to the one holding its
start on the same process (device).  Checks start_us (from the earliest
start of any timed event), dur_us, count, gpu_busy_us and gpu_span_us.
"""
import csv, gzip, json, os, re, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tracecheck import union
from decimal import Decimal

trace, out, marker, mode = sys.argv[1:5]
doc = json.load(gzip.open(trace) if trace.endswith(".gz") else open(trace), parse_float=Decimal)
ev = doc["traceEvents"] if isinstance(doc, dict) else doc
ns = lambda v: int(Decimal(v) * 1000)
GPU = ("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset")
timed = [e for e in ev if e.get("ph") == "X" and e.get("cat") != "Trace"]
t0 = min(ns(e["ts"]) for e in timed)
rx = re.compile(marker)
if mode == "host":
    cands = [e for e in timed if e.get("cat") in ("cpu_op", "user_annotation", "Operator") and rx.search(e["name"])]
else:
    cands = [e for e in timed if e.get("cat") == "gpu_user_annotation" and rx.search(e["name"])]
tracks = {}
for e in cands:
    tracks.setdefault((e["pid"], e["tid"]), []).append(e)
best = max(tracks.values(), key=len)
its = sorted(best, key=lambda e: (ns(e["ts"]), -ns(e["dur"])))
launch = {}
for e in timed:
    if e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime"):
        c = e.get("args", {}).get("correlation")
        if c is not None and (c not in launch or (ns(e["ts"]), -ns(e["dur"])) < launch[c]):
            launch[c] = (ns(e["ts"]), -ns(e["dur"]))

def holder(t, pid=None):
    for k, e in enumerate(its):
        if ns(e["ts"]) <= t < ns(e["ts"]) + ns(e["dur"]) and (pid is None or e["pid"] == pid):
            return k
    return None

work = {}
for e in timed:
    if e.get("cat") not in GPU:
        continue
    if mode == "host":
        c = e.get("args", {}).get("correlation")
        k = holder(launch[c][0]) if c in launch else holder(ns(e["ts"]))
    else:
        k = holder(ns(e["ts"]), e["pid"])
    if k is not None:
        work.setdefault(k, []).append((ns(e["ts"]), ns(e["ts"]) + ns(e["dur"])))


rows = list(csv.DictReader(open(out)))
assert len(rows) == len(its), (len(rows), len(its))
for k, (r, e) in enumerate(zip(rows, its)):
    assert Decimal(r["start_us"]) == Decimal(ns(e["ts"]) - t0) / 1000, (k, r, e["ts"])
    assert Decimal(r["dur_us"]) == Decimal(ns(e["dur"])) / 1000, (k, r, e["dur"])
    w = work.get(k, [])
    assert int(r["count"]) == len(w), (k, r, len(w))
    if w:
        assert Decimal(r["gpu_busy_us"]) == Decimal(union(w)) / 1000, (k, r, union(w))
        span = max(b for a, b in w) - min(a for a, b in w)
        assert Decimal(r["gpu_span_us"]) == Decimal(span) / 1000, (k, r, span)
print("check_iterations: %d iterations of %s checked" % (len(rows), trace.split("/")[-1]))
