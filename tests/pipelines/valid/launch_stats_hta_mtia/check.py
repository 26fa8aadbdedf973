# HTA's test figure (correlation 423, within HTA's delta 2.0), HTA's own run's
# counts and means (pipeline.yaml), and every figure recomputed from the JSON
# the way HTA's pandas code does (tests/tools/check_hta_launch.py).
import csv, subprocess, sys

out = sys.argv[1]
rows = {r["measure"]: r for r in csv.DictReader(open(f"{out}/hta.csv"))}
hta = {"cpu_duration": (2424.2380538662032, "slow_launch", 3453),
       "gpu_duration": (2115.724587315378, "short_gpu", 0),
       "launch_delay": (0.020272227048942947, "late_start", 0)}
for m, (mean, outlier, n) in hta.items():
    r = rows[m]
    assert int(r["count"]) == 3453, r
    assert abs(float(r["mean_us"]) - mean) <= 1e-9 * mean, (r, mean)
    assert r["outlier"] == outlier and int(r["n_outliers"]) == n, r
l423 = [r for r in csv.DictReader(open(f"{out}/hta.launches.csv")) if r["correlation"] == "423"]
assert len(l423) == 1, l423
for col, want in (("cpu_duration_us", 435.2), ("gpu_duration_us", 124.768), ("launch_delay_us", 0)):
    assert abs(float(l423[0][col]) - want) <= 2.0, (col, l423[0][col], want)
q = {r["stream"]: r for r in csv.DictReader(open(f"{out}/hta.queue.csv"))}
assert sorted(q) == ["1", "102"], q
want = {"samples": 6, "mean_queue": 0.5, "std_queue": 0.547723, "min_queue": 0, "p25_queue": 0,
        "p50_queue": 0.5, "p75_queue": 1, "max_queue": 1}
for col, v in want.items():
    assert abs(float(q["102"][col]) - v) < 5e-7, (col, q["102"][col], v)
q1 = {r["stream"]: r for r in csv.DictReader(open(f"{out}/hta1.queue.csv"))}
assert float(q1["102"]["full_us"]) == 1060.0, q1["102"]
assert round(float(q1["102"]["full_ratio"]), 5) == round(0.000079, 5), q1["102"]
subprocess.run([sys.executable, "tests/tools/check_hta_launch.py",
                "tests/data/kineto/corpus/hta_mtia_rank0.json.gz", out], check=True)
