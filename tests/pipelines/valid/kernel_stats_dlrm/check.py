"""Independent per-kernel statistics of the DLRM step: count, sum, mean,
population and sample std, min, max, p50/p90/p99 (numpy's linear method),
share of device time; HTA's kernel classes by regex; per-op totals add up."""
import csv, gzip, json, math, os, re, sys

ev = json.load(gzip.open("tests/data/dlrm_worker0_step12.pt.trace.json.gz"))["traceEvents"]
acts = [e for e in ev if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset")]
total = sum(e["dur"] for e in acts)

def pct(v, p):
    n, q = len(v), p / 100
    r = n * q + (1 + q * (1 - 1 - 1)) - 1
    lo = math.floor(r)
    if lo + 1 >= n:
        return v[-1]
    t, a, b = r - lo, v[lo], v[lo + 1]
    return b - (b - a) * (1 - t) if t >= 0.5 else a + (b - a) * t

by = {}
for e in acts:
    by.setdefault(e["name"], []).append(float(e["dur"]))
out = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(out, "ks.csv"))))
assert len(rows) == len(by), (len(rows), len(by))
assert [float(r["sum_us"]) for r in rows] == sorted((float(r["sum_us"]) for r in rows), reverse=True)
close = lambda a, b: abs(a - b) <= 1e-9 * max(1.0, abs(b))
for r in rows:
    v = sorted(by[r["name"]]); n = len(v); mean = sum(v) / n
    ss = sum((x - mean) ** 2 for x in v)
    want = {"count": n, "sum_us": sum(v), "mean_us": mean,
            "min_us": v[0], "max_us": v[-1], "p50_us": pct(v, 50), "p90_us": pct(v, 90),
            "p99_us": pct(v, 99), "time_percent": 100 * sum(v) / total}
    for k, w in want.items():
        assert close(float(r[k]), w), (r["name"], k, r[k], w)
    if n > 1:
        assert close(float(r["std_us"]), math.sqrt(ss / n)), r
        assert close(float(r["std_sample_us"]), math.sqrt(ss / (n - 1))), r
    else:  # the convention: no spread from one sample (null, never 0)
        assert r["std_us"] == "" and r["std_sample_us"] == "", r

def hta(s):
    if re.match(r"nccl|hip|hccl", s) or "ncclKernel" in s:
        return "communication"
    if re.match(r"(hip)?Memcpy|(hip)?Memset|dma", s):
        return "memory"
    if re.match(r"nccl|.*Memcpy|.*Memset|.*dma|^.*Sync|Stream Wait Event|cuda.*LaunchKernel|"
                r"runFunction|hip|job_exe|packet|pe_exe|cpum_exe_subgraph|hccl|"
                r"collective_subgraph_execution", s):
        return "other"
    return "computation"

cls = {}
for e in acts:
    c = cls.setdefault(hta(e["name"]), [0, 0]); c[0] += 1; c[1] += e["dur"]
got = {r["kernel_class"]: r for r in csv.DictReader(open(os.path.join(out, "ks.classes.csv")))}
assert set(got) == set(cls), (got, cls)
for k, (n, s) in cls.items():
    assert int(got[k]["count"]) == n and close(float(got[k]["sum_us"]), s), (k, got[k], n, s)
mine = {}
for e in acts:
    k = next((c for c, rx in (("communication", "^nccl"), ("gemm", "gemm|sgemm"),
                              ("elementwise", "elementwise_kernel")) if re.search(rx, e["name"])), "other")
    m = mine.setdefault(k, [0, 0]); m[0] += 1; m[1] += e["dur"]
got = {r["kernel_class"]: r for r in csv.DictReader(open(os.path.join(out, "mine.classes.csv")))}
assert set(got) == set(mine), (got, mine)
for k, (n, s) in mine.items():
    assert int(got[k]["count"]) == n and close(float(got[k]["sum_us"]), s), (k, got[k], n, s)
ops = list(csv.DictReader(open(os.path.join(out, "ks.ops.csv"))))
assert sum(int(r["count"]) for r in ops) == len(acts)
assert close(sum(float(r["sum_us"]) for r in ops), total)
print("kernel_stats_dlrm: %d kernels, %d classes, %d (op, kernel) rows checked" % (len(rows), len(cls), len(ops)))
