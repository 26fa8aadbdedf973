"""diff_renamed, independently: every op of the renamed copy is in both with
zero deltas but the two renamed ones; the rank-0 vs rank-1 iteration times
are the ProfilerStep durations read from the traces with Python's json (their
median: one step each), the GPU activity counts those of the kernel, gpu_memcpy
and gpu_memset events."""
import csv, gzip, json, os, statistics, sys
out = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(out, "same.csv"))))
ren = {r["name"]: r["matched"] for r in rows if r["status"] == "renamed"}
assert ren == {"aten::index": "aten::gather_rows", "aten::mm": "aten::matmul_fast"}, ren
assert all(r["status"] in ("both", "renamed") and float(r["delta_us"]) == 0 for r in rows)

def step_us(path):
    ev = json.load(gzip.open(path))["traceEvents"]
    steps = [e["dur"] for e in ev if e.get("name", "").startswith("ProfilerStep#") and e.get("ph") == "X"]
    return statistics.median(steps)


def activities(path):
    ev = json.load(gzip.open(path))["traceEvents"]
    return sum(1 for e in ev if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and e.get("ph") == "X")

b = step_us("tests/data/dlrm_worker0_step12.pt.trace.json.gz")
t = step_us("tests/data/kineto/corpus/dlrm_worker1_step12.pt.trace.json.gz")
s = {r["measure"]: r for r in csv.DictReader(open(os.path.join(out, "ranks.summary.csv")))}
assert abs(float(s["iteration_us"]["base"]) - b) < 1e-6 and abs(float(s["iteration_us"]["test"]) - t) < 1e-6
assert abs(float(s["iteration_us"]["delta_percent"]) - 100 * (t - b) / b) < 1e-9
assert s["iteration_us"]["change"] == "%.2f %% slower" % (100 * (t - b) / b)
kb = activities("tests/data/dlrm_worker0_step12.pt.trace.json.gz")
kt = activities("tests/data/kineto/corpus/dlrm_worker1_step12.pt.trace.json.gz")
n = {r["measure"]: r for r in csv.DictReader(open(os.path.join(out, "ranks.counts.csv")))}
assert (int(n["kernel_count"]["base"]), int(n["kernel_count"]["test"])) == (kb, kt), (kb, kt)
print("diff_renamed: 2 renamed ops matched, %d names unchanged; rank 1 %.2f %% slower" % (len(rows) - 2, 100 * (t - b) / b))
