"""Independent check of iterations_once: the five "Optimizer.step#SGD.step"
host annotations of the trace are the iterations every stage uses."""
import csv
import gzip
import json
import os
import sys

OUT = sys.argv[1]
TRACE = "tests/data/kineto/corpus/hta_gpu_user_annotation_step_based.json.gz"
MARKER = "Optimizer.step#SGD.step"


def rows(name):
    with open(os.path.join(OUT, name + ".csv"), newline="") as f:
        return list(csv.DictReader(f))


def main():
    events = json.load(gzip.open(TRACE))["traceEvents"]
    steps = sorted((e["ts"], e["dur"]) for e in events
                   if e.get("name") == MARKER and e.get("cat") == "user_annotation")
    assert len(steps) == 5, steps

    got = rows("steps")
    assert len(got) == 5, got
    assert [float(r["dur_us"]) for r in got] == [float(d) for _, d in steps]
    starts = [float(r["start_us"]) for r in got]
    assert [s - starts[0] for s in starts] == [float(t - steps[0][0]) for t, _ in steps]
    assert [int(r["iteration"]) for r in got] == [0, 1, 2, 3, 4]  # no number after '#'

    # kernels by the iteration holding their launch, summed per name
    launch_ts = {e["args"]["correlation"]: e["ts"] for e in events
                 if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    per = {}
    for e in events:
        if e.get("cat") != "kernel":
            continue
        t = launch_ts.get(e["args"].get("correlation"))
        if t is None:
            continue
        k = [i for i, (s, d) in enumerate(steps) if s <= t < s + d]
        if k:
            per[e["name"]] = per.get(e["name"], 0) + e["dur"]
    ks = {r["name"]: r for r in rows("ks.iterations")}
    for name, r in ks.items():
        assert int(r["n_iterations"]) == 5, r
        assert abs(float(r["mean_us"]) * 5 - per.get(name, 0)) < 1e-9, (name, r, per.get(name))
    assert set(n for n, v in per.items() if v) <= set(ks), per

    # the pipeline's setting and each stage's own override agree exactly
    for a, b in (("ks.iterations", "ks_own.iterations"), ("rg.iterations", "rg_own.iterations"),
                 ("sa.idle", "sa_own.idle")):
        assert rows(a) == rows(b), (a, b)
    assert sorted({int(r["iteration"]) for r in rows("rg.iterations")}) == [0, 1, 2, 3]
    print("iterations_once: 5 iterations agree across iterations, kernel_stats, ranges, streams")


main()
