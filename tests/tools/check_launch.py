"""An independent Python version of predict's identical-launch rule (issue 27,
docs/plugins/predict.md "Kernels no op launched"): a kernel whose launch call is
not in the trace inherits the prediction of an op that launched only the same
kernel with the same grid, block, registers per thread and shared memory, when
every such op has one name and one Input Dims.  Written from the documented rule,
not from the C code; Kineto traces only (launch configuration in the kernel's args).

    python3 tests/tools/check_launch.py PRED_CSV TRACE

checks predict's <id> table: every `identical_launch` row's count, measured time,
input dims and predicted time (the op's own row's), and that no kernel the rule
takes is missing; prints how many kernels it checked.
"""
import bisect
import csv
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_models import load  # noqa: E402  (the same trace reader)

RUNTIME = ("cuda_runtime", "cuda_driver", "hip_runtime", "hip_driver")


def launch(k):
    a = k.get("args", {})
    if "grid" not in a or "block" not in a:
        return None
    return (k["name"], tuple(a["grid"]), tuple(a["block"]), a.get("registers per thread"),
            a.get("shared memory"))


def kernels_by_op(events):
    """(kernels no op launched, {op index: [its GPU activities]}, ops) by correlation id
    and the innermost cpu_op around the launch call on its thread."""
    calls = {e["args"]["correlation"]: e for e in events
             if e.get("ph") == "X" and e.get("cat") in RUNTIME and "correlation" in e.get("args", {})}
    ops = [e for e in events if e.get("ph") == "X" and e.get("cat") == "cpu_op"]
    by_thread = {}
    for i, o in enumerate(ops):
        by_thread.setdefault((o["pid"], o["tid"]), []).append(i)
    for idx in by_thread.values():  # by start, the longer first: scanning back meets
        idx.sort(key=lambda i: (ops[i]["ts"], -ops[i]["dur"]))  # the inner op first
    starts = {key: [ops[i]["ts"] for i in idx] for key, idx in by_thread.items()}
    unowned, owned = [], {}
    for k in events:
        if k.get("ph") != "X" or k.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset"):
            continue
        c = calls.get(k.get("args", {}).get("correlation"))
        best = None
        key = (c["pid"], c["tid"]) if c else None
        idx = by_thread.get(key, [])
        # the shortest op enclosing the whole call (properly nested ops: the one
        # with the latest start that encloses it)
        for j in range(bisect.bisect_right(starts.get(key, []), c["ts"]) - 1 if c else -1, -1, -1):
            o = ops[idx[j]]
            if c["ts"] + c.get("dur", 0) <= o["ts"] + o["dur"]:
                best = idx[j]
                break
        if best is None:
            if k["cat"] == "kernel":
                unowned.append(k)
        else:
            owned.setdefault(best, []).append(k)
    return unowned, owned, ops


def check(pred_csv, trace):
    events = load(trace)
    unowned, owned, ops = kernels_by_op(events)
    rows = list(csv.DictReader(open(pred_csv)))
    predicted = {(r["name"], r["input_dims"]): float(r["predicted_us"]) for r in rows
                 if r["model"] not in ("identical_launch", "")}
    donors = {}
    for i, ks in owned.items():
        dims = ops[i].get("args", {}).get("Input Dims")
        key = launch(ks[0]) if len(ks) == 1 and ks[0]["cat"] == "kernel" else None
        if key and dims is not None:
            donors.setdefault(key, set()).add((ops[i]["name"], json.dumps(dims)))
    want = {}
    for k in unowned:
        d = donors.get(launch(k)) if launch(k) else None
        if not d or len(d) != 1:
            continue
        name, dims = next(iter(d))
        if (name, dims) not in predicted:
            continue  # the op had no model: nothing to inherit
        w = want.setdefault((k["name"], dims), [0, 0.0, predicted[(name, dims)]])
        w[0] += 1
        w[1] += float(k["dur"])
    got = {(r["name"], r["input_dims"]): r for r in rows if r["model"] == "identical_launch"}
    assert set(got) == set(want), (sorted(got), sorted(want))
    for key, (count, dur, pred) in want.items():
        r = got[key]
        assert int(r["count"]) == count, (r, count)
        assert abs(float(r["measured_us"]) - dur / count) <= 1e-9 * dur, (r, dur)
        assert abs(float(r["predicted_us"]) - pred) <= 1e-12 * max(pred, 1e-12), (r, pred)
    return sum(w[0] for w in want.values())


if __name__ == "__main__":
    print("check_launch: %d kernels agree" % check(sys.argv[1], sys.argv[2]))
