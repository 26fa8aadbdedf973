#!/usr/bin/env python3
"""ANALYSES.md section 6 written again from its text: per op T1, then T2,
each launch (a kernel starts 1 us after the previous or when its launch
returns), T5 between launches, T3; unsupported ops add their T4s and T5s.
Inputs are the run's CSVs: the ops predict simulated (e2e_ops), overheads'
means (overheads.csv) and launch lists (overheads.launches.csv)."""
import csv
import os
import sys

out = sys.argv[1]


def rows(name):
    with open(os.path.join(out, name), newline="") as f:
        return list(csv.DictReader(f))


means = {(r["overhead"], r["key"]): float(r["mean_us"]) for r in rows("overheads.csv")}
launches = {}
for r in rows("overheads.launches.csv"):
    launches.setdefault(r["key"], []).append((int(r["position"]), r["api"]))
t1 = means.get(("t1", ""), 0.0)

for it in rows("predict.e2e.csv"):
    ops = [r for r in rows("predict.e2e_ops.csv") if r["iteration"] == it["iteration"]]
    assert int(it["ops"]) == len(ops) > 100, (it["ops"], len(ops))
    cpu = gpu = active = 0.0
    unsupported = 0
    for op in ops:
        name = op["name"]
        for k, key in (("t2_us", "t2"), ("t3_us", "t3"), ("t5_us", "t5")):
            assert abs(float(op[k]) - means.get((key, name), 0.0)) < 1e-9, (name, k)
        cpu += t1
        apis = [a for _, a in sorted(launches.get(name, []))]
        assert int(op["launches"]) == len(apis), (name, op["launches"], apis)
        t2, t3, t5 = (means.get((k, name), 0.0) for k in ("t2", "t3", "t5"))
        if not apis:
            cpu += t5
            continue
        cpu += t2
        t4 = [means.get(("t4", a), 0.0) for a in apis]
        # t_1..t_m: the predictions of the op's calls that own GPU work, in time order
        kernels = [float(x) for x in op["call_us_list"].split(";")] if op["call_us_list"] else []
        assert abs(sum(kernels) - float(op["predicted_us"])) <= 1e-9 * max(1.0, sum(kernels))
        if op["supported"] == "1":
            active += sum(kernels)
            for j, x in enumerate(t4):
                gpu = max(gpu + 1, cpu + x)
                if j < len(kernels):
                    gpu += kernels[j]
                cpu += 2 if name == "aten::to" and op["leaf"] == "1" else x
                if j + 1 < len(t4):
                    cpu += t5
        else:
            unsupported += 1
            cpu += sum(t4) + t5 * (len(t4) - 1)
        cpu += t3
    e2e = max(cpu, gpu)
    for k, v in (("predicted_us", e2e), ("cpu_us", cpu), ("gpu_us", gpu), ("gpu_active_us", active)):
        assert abs(float(it[k]) - v) <= 1e-9 * max(1.0, v), (k, it[k], v)
    assert int(it["unsupported_ops"]) == unsupported
    measured = float(it["measured_us"])
    assert abs(float(it["error_percent"]) - abs(e2e - measured) / measured * 100) < 1e-9
print("predict_e2e: ok")
