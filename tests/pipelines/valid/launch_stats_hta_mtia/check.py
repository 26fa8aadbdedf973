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
subprocess.run([sys.executable, "tests/tools/check_hta_launch.py",
                "tests/data/kineto/corpus/hta_mtia_rank0.json.gz", out], check=True)
