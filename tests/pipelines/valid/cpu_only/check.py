"""Independent check of the per-thread subtrees on the CPU-only gloo trace:
no node exceeds its parent (percent_of_parent <= 100), each `thread T` node
spans its thread's top-level events (first start to last end), and the step's
two overlapping gloo:all_reduce of threads 3553 and 3554 are kept apart with
their own durations."""
import csv, gzip, json, os, sys

ev = [e for e in json.load(gzip.open("tests/data/kineto/corpus/hta_cpu_only_rank34.pt.trace.json.gz"))["traceEvents"]
      if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "user_annotation")]
rows = list(csv.DictReader(open(os.path.join(sys.argv[1], "host.csv"))))
for r in rows:
    assert float(r["percent_of_parent"]) <= 100 + 1e-9, r
step = next(e for e in ev if e["name"].startswith("ProfilerStep#"))
s0, s1 = step["ts"], step["ts"] + step["dur"]
for r in rows:
    if r["name"].startswith("thread "):
        tid = int(r["name"].split()[1])
        mine = [e for e in ev if e["tid"] == tid and not (e["ts"] >= s0 and e["ts"] + e["dur"] <= s1)]
        span = max(e["ts"] + e["dur"] for e in mine) - min(e["ts"] for e in mine)
        assert abs(float(r["time_us"]) - span) < 1e-3, (r, span)
for tid in (3553, 3554):
    inside = [e for e in ev if e["tid"] == tid and e["name"] == "gloo:all_reduce"
              and e["ts"] >= s0 and e["ts"] + e["dur"] <= s1]
    assert len(inside) == 1, inside
    row = next(r for r in rows if r["name"] == "gloo:all_reduce [thread %d]" % tid)
    assert abs(float(row["time_us"]) - inside[0]["dur"]) < 1e-3, (row, inside)
print("cpu_only: per-thread nodes and parallel siblings checked")
