"""ranges_named_nesting: recomputes, by brute force from the JSON, the GPU work of
every range on the launching thread (tid 1: each range nests properly there): per
name, the kernels whose launch call starts inside a range of that name (each
range counting its own: gpu_count, gpu_sum_us), their union (gpu_busy_us), and
per step the work launched in the step to the name's entry if a range of the
name starts in it; and of the gpu ranges: the kernels on their stream starting
inside them."""
import csv, json, os, sys

out = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
trace = os.path.join(here, "..", "..", "..", "data", "hand", "ranges_named_nesting.json")
ev = json.load(open(trace))["traceEvents"]
steps = sorted((e["ts"], e["ts"] + e["dur"], int(e["name"].split("#")[1]))
               for e in ev if e["name"].startswith("ProfilerStep#"))
kern = {e["args"]["correlation"]: e for e in ev if e["cat"] == "kernel"}
calls = [e for e in ev if e["cat"] == "cuda_runtime"]
ranges = [e for e in ev if e["cat"] == "user_annotation" and e["tid"] == 1]


def step_of(ts):
    return next((s for b, e, s in steps if b <= ts < e), None)


def union(iv):
    total, end = 0, None
    for b, e in sorted(iv):
        if end is None or b > end:
            total, end = total + e - b, e
        elif e > end:
            total, end = total + e - end, e
    return total


want, busy, per_step = {}, {}, {}
for r in ranges:
    inside = [kern[c["args"]["correlation"]] for c in calls
              if r["ts"] <= c["ts"] < r["ts"] + r["dur"]]
    w = want.setdefault((r["name"], "host"), [0, 0])
    w[0] += len(inside)
    w[1] += sum(k["dur"] for k in inside)
    busy.setdefault((r["name"], "host"), set()).update((k["ts"], k["ts"] + k["dur"]) for k in inside)
    for c in calls:
        if r["ts"] <= c["ts"] < r["ts"] + r["dur"]:
            key = (step_of(c["ts"]), r["name"], "host")
            per_step[key] = per_step.get(key, 0) + kern[c["args"]["correlation"]]["dur"]
starts = {(step_of(r["ts"]), r["name"]) for r in ranges}
per_step = {k: v for k, v in per_step.items() if (k[0], k[1]) in starts}
for g in (e for e in ev if e["cat"] == "gpu_user_annotation"):
    inside = [k for k in kern.values() if k["tid"] == g["tid"] and g["ts"] <= k["ts"] < g["ts"] + g["dur"]]
    w = want.setdefault((g["name"], "gpu"), [0, 0])
    w[0] += len(inside)
    w[1] += sum(k["dur"] for k in inside)
    busy.setdefault((g["name"], "gpu"), set()).update((k["ts"], k["ts"] + k["dur"]) for k in inside)
    key = (step_of(g["ts"]), g["name"], "gpu")
    per_step[key] = per_step.get(key, 0) + sum(k["dur"] for k in inside)

got = {(r["name"], r["kind"]): r for r in csv.DictReader(open(os.path.join(out, "r.csv")))}
for key, (n, s) in want.items():
    row = got[key]
    have = (int(row["gpu_count"]), float(row["gpu_sum_us"]), float(row["gpu_busy_us"]))
    assert have == (n, s, union(busy[key])), (key, have, (n, s, union(busy[key])))
its = {(int(r["iteration"]), r["name"], r["kind"]): float(r["gpu_sum_us"])
       for r in csv.DictReader(open(os.path.join(out, "r.iterations.csv")))}
for key, v in per_step.items():
    assert its[key] == v, (key, its[key], v)
assert want[("A", "host")] == [7, 137] and union(busy[("B", "host")]) == 90
print(f"ranges_named_nesting: {len(want)} names and {len(per_step)} step entries as recomputed")
