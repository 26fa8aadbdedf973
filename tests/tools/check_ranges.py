#!/usr/bin/env python3
"""Independent check of `ranges` (issue 24, item 2): no range counted twice.

    check_ranges.py TRACE RANGES_CSV

TRACE is a Kineto JSON trace (.json or .json.gz), RANGES_CSV the `<id>` result of a
`ranges` stage with default options (include '.', no normalize) written by the csv
writer. Recomputed here from the JSON alone, per (name, kind):

  host  = complete (ph X, dur >= 0) events of cat user_annotation,
  gpu   = complete events of cat gpu_user_annotation;
  count and sum_us of those events (so a record_function and its GPU projection are
  each counted once, never added together);
  gpu ranges: gpu_count / gpu_sum_us = kernels, memcpys and memsets on the range's
  own (pid, tid) starting inside it;
  host ranges: at least the activities whose launching runtime call (same
  correlation id) runs on the range's thread and starts inside it (the plugin also
  credits work the hierarchy places under the range from other threads, e.g.
  autograd's backward thread under "## backward ##": a lower bound here).

The CSV must hold exactly these rows, counts and sums (to 1e-3 us). Exits 1 with
the differences, 0 when all agree.
"""
import bisect
import csv
import gzip
import json
import sys
from collections import defaultdict

ACTIVITY = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
KINDS = {"user_annotation": "host", "gpu_user_annotation": "gpu"}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    return data["traceEvents"] if isinstance(data, dict) else data


def complete(e):
    return e.get("ph") == "X" and isinstance(e.get("dur"), (int, float)) and e["dur"] >= 0


def corr_of(e):
    a = e.get("args") or {}
    return a.get("correlation")


def expected(events):
    want = defaultdict(lambda: {"count": 0, "sum_us": 0.0, "gpu_count": 0, "gpu_sum_us": 0.0})
    ranges = [e for e in events if complete(e) and e.get("cat") in KINDS]
    acts = [e for e in events if complete(e) and e.get("cat") in ACTIVITY]
    # activities per stream, by start, for the gpu ranges
    on_stream = defaultdict(list)
    for a in acts:
        on_stream[(a.get("pid"), a.get("tid"))].append((float(a["ts"]), float(a["dur"])))
    for v in on_stream.values():
        v.sort()
    # launching calls by correlation id, for the host ranges
    calls = defaultdict(list)
    for e in events:
        if complete(e) and e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime") \
                and corr_of(e) is not None:
            calls[corr_of(e)].append(e)
    launched = defaultdict(list)  # (pid, tid) -> [(call start, activity dur)]
    for a in acts:
        for c in calls.get(corr_of(a), [])[:1]:
            launched[(c.get("pid"), c.get("tid"))].append((float(c["ts"]), float(a["dur"])))
    for v in launched.values():
        v.sort()
    for r in ranges:
        kind = KINDS[r["cat"]]
        w = want[(r["name"], kind)]
        w["count"] += 1
        w["sum_us"] += float(r["dur"])
        start, end = float(r["ts"]), float(r["ts"]) + float(r["dur"])
        pool = (on_stream if kind == "gpu" else launched)[(r.get("pid"), r.get("tid"))]
        lo = bisect.bisect_left(pool, (start, float("-inf")))
        for ts, dur in pool[lo:]:
            if ts >= end:
                break
            w["gpu_count"] += 1
            w["gpu_sum_us"] += dur
    return want


def main():
    trace, table = sys.argv[1], sys.argv[2]
    want = expected(load(trace))
    with open(table, newline="", encoding="utf-8") as f:
        got = {(row["name"], row["kind"]): row for row in csv.DictReader(f)}
    bad = []
    if set(got) != set(want):
        bad.append("rows differ: only in output %s, only in trace %s"
                   % (sorted(set(got) - set(want))[:5], sorted(set(want) - set(got))[:5]))
    for key in sorted(set(got) & set(want)):
        g, w = got[key], want[key]
        exact = key[1] == "gpu"  # host GPU work: a lower bound
        for col in ("count", "gpu_count", "sum_us", "gpu_sum_us"):
            have, need = float(g[col]), float(w[col])
            if col in ("count", "sum_us") or exact:
                wrong = abs(have - need) > 1e-3
            else:
                wrong = have < need - 1e-3
            if wrong:
                bad.append("%s %s: %s %s, the trace has %s%.3f"
                           % (key[0], key[1], col, g[col], "" if exact or col in
                              ("count", "sum_us") else "at least ", need))
    n_host = sum(w["count"] for k, w in want.items() if k[1] == "host")
    n_gpu = sum(w["count"] for k, w in want.items() if k[1] == "gpu")
    if bad:
        print("check_ranges: %s: %d differences" % (trace, len(bad)))
        print("\n".join(bad[:20]))
        return 1
    print("check_ranges: %s: %d names, %d host and %d gpu ranges, each counted once"
          % (trace, len(want), n_host, n_gpu))
    return 0


if __name__ == "__main__":
    sys.exit(main())
