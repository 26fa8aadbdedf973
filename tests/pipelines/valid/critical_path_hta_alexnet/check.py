# The path of HTA's alexnet trace: sync edges on it (HTA's test asserts SYNC_DEPENDENCY edges),
# times recomputed from the JSON.
import csv, gzip, json, sys
out = sys.argv[1]
ev = [e for e in json.load(gzip.open("tests/data/kineto/corpus/hta_cp_alexnet.json.gz"))["traceEvents"]
      if e.get("ph") == "X" and "dur" in e and e.get("cat") in
      {"cpu_op", "user_annotation", "cuda_runtime", "python_function", "kernel", "gpu_memcpy", "gpu_memset"}]
span = max(e["ts"] + e["dur"] for e in ev) - min(e["ts"] for e in ev)
path = list(csv.DictReader(open(f"{out}/cp.path.csv")))
syncs = sum(1 for r in path if r["edge"] == "sync")
assert syncs > 0, "no sync edge on the path"
assert abs(sum(float(r["on_path_us"]) for r in path) - span) < 1e-6 * span, "on_path_us"
rep = list(csv.DictReader(open(f"{out}/cp.replay.csv")))
assert abs(float(rep[0]["measured_us"]) - span) < 1e-9 * span and rep[0]["replayed_us"] == rep[0]["measured_us"]
pct = sum(float(r["percent"]) for r in csv.DictReader(open(f"{out}/cp.bound_by.csv")))
assert abs(pct - 100) < 1e-9, pct
print(f"alexnet: {syncs} sync edges on the path, {span} us")
