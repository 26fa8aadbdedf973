#!/usr/bin/env python3
"""Independent check of graph-replay attribution (issue 26 item 1).

    check_graphs.py RUN_TRACE OUTDIR [CAPTURE_TRACE]

Recomputes from the raw Kineto JSON, without tracepipe:
  - the activities graph launches replay (kernels, memcpys, memsets sharing a
    graph launch call's correlation id), their count, replays and GPU time,
    against OUTDIR/ks.graphs.csv;
  - that none of that time is "(no op)" in OUTDIR/ks.ops.csv: the "(no op)"
    rows add up to exactly the time of the other activities whose launch has
    no cpu op around it;
  - with a capture trace: the capturing op of each replayed activity (the
    capture's launch calls between ...StreamBeginCapture and
    ...StreamEndCapture, in order, aligned one to one with the replay's
    activities by start, the kernel names checked where the capture records
    them) and the time per op, against ks.ops.csv summed per op; no
    "graph <id>" row is left;
  - that replayed time is busy, never idle: OUTDIR/st.csv's busy_us per
    (device, stream) equals the union of all that stream's activity intervals
    (replayed ones included), and idle_us = span - busy.
  - with a capture trace and OUTDIR/gt.csv (gemm_throughput): each replay's
    calls of the innermost captured product op (aten::mm: 2MNK flop;
    aten::addmm: 2MNK + MN), one per replay and capture-time op, their count,
    flop and busy time (the union of their kernels) per (op, Input Dims),
    against gt.csv's product rows; with OUTDIR/pred.csv (predict) their count
    and mean measured time.
Exits 1 with a message on the first difference.
"""
import csv
import gzip
import json
import re
import sys

GRAPH_LAUNCH = re.compile(r"^(cuda|cu|hip)GraphLaunch(_spt|_ptsz|_v\d+)?$")
LAUNCH = re.compile(r"^(cuda|cu|hip)(Ext)?(Module)?(Launch|Memcpy|Memset)")
ACTIVITY = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}


def load(path):
    op = gzip.open if path.endswith(".gz") else open
    with op(path, "rt") as f:
        d = json.load(f)
    return d["traceEvents"] if isinstance(d, dict) else d


def ns(x):
    return int(round(float(x) * 1000))


def complete(ev):
    return [e for e in ev if e.get("ph") == "X" and "ts" in e]


def fail(msg):
    print("check_graphs: " + msg)
    sys.exit(1)


def close(a, b, what):
    if abs(a - b) > 1e-6 * max(1.0, abs(b)):
        fail("%s: tracepipe %r, recomputed %r" % (what, a, b))


def ops_by_thread(ev):
    """cpu ops per (pid, tid): (start, end, name), by start, longest first."""
    out = {}
    for e in ev:
        if e.get("cat") == "cpu_op":
            s = ns(e["ts"])
            out.setdefault((e["pid"], e["tid"]), []).append((s, s + ns(e.get("dur", 0)), e["name"]))
    for v in out.values():
        v.sort(key=lambda o: (o[0], -o[1]))
    return out


def outer_op(ops, e):
    s = ns(e["ts"])
    t = s + ns(e.get("dur", 0))
    for o in ops.get((e["pid"], e["tid"]), []):
        if o[0] > s:
            break
        if o[0] <= s and t <= o[1] and not o[2].startswith("ProfilerStep#"):
            return o[2]
    return None


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def inner_op(ev_ops, e):
    """The innermost cpu_op event around launch e (latest start), or None."""
    s = ns(e["ts"])
    t = s + ns(e.get("dur", 0))
    best = None
    for o in ev_ops.get((e["pid"], e["tid"]), []):
        os_ = ns(o["ts"])
        if os_ > s:
            break
        if t <= os_ + ns(o.get("dur", 0)):
            best = o
    return best


def capture_ops(path, inner=None):
    """Per capture, in order: (kind, kernel name or None, outermost op); the
    innermost op's event of each launch appended to inner (a list), in the
    same order, when given."""
    ev = complete(load(path))
    ops = ops_by_thread(ev)
    ev_ops = {}
    for e in sorted((e for e in ev if e.get("cat") == "cpu_op"),
                    key=lambda e: (ns(e["ts"]), -ns(e.get("dur", 0)))):
        ev_ops.setdefault((e["pid"], e["tid"]), []).append(e)
    calls = sorted((e for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver")),
                   key=lambda e: (e["pid"], e["tid"], ns(e["ts"])))
    caps, cur = [], None
    for e in calls:
        n = e["name"]
        if re.search(r"StreamBeginCapture", n):
            cur = []
        elif re.search(r"StreamEndCapture", n):
            if cur:
                caps.append(cur)
            cur = None
        elif cur is not None and LAUNCH.match(n) and not GRAPH_LAUNCH.match(n):
            kind = "memcpy" if "Memcpy" in n else "memset" if "Memset" in n else "kernel"
            cur.append((kind, e.get("args", {}).get("kernel"), outer_op(ops, e),
                        inner_op(ev_ops, e)))
    return caps


def gemm_flop(name, dims):
    """FLOPs of one product call, None when not a 2-D mm/addmm."""
    if name == "aten::mm" and len(dims) >= 2 and len(dims[0]) == 2 and len(dims[1]) == 2:
        return 2.0 * dims[0][0] * dims[1][1] * dims[0][1]
    if name == "aten::addmm" and len(dims) >= 3 and len(dims[1]) == 2 and len(dims[2]) == 2:
        m, k, n = dims[1][0], dims[1][1], dims[2][1]
        return 2.0 * m * n * k + m * n
    return None


def union_ns(iv):
    busy, end = 0, None
    for s, e in sorted(iv):
        if end is None or s > end:
            busy += e - s
            end = e
        elif e > end:
            busy += e - end
            end = e
    return busy


def check_replayed_gemms(out, calls):
    """calls: (replay, capture op) -> (op event, replayed activities)."""
    import os
    if not os.path.exists(out + "/gt.csv"):
        return
    want = {}
    for op, acts in calls.values():
        dims = op.get("args", {}).get("Input Dims")
        flop = gemm_flop(op["name"], dims) if dims is not None else None
        if flop is None:
            continue
        key = (op["name"], str(dims))
        w = want.setdefault(key, [0, flop, 0, 0])
        w[0] += 1
        w[2] += union_ns([(ns(a["ts"]), ns(a["ts"]) + ns(a["dur"])) for a in acts])
        w[3] += sum(ns(a["dur"]) for a in acts)
    if not want:
        fail("no replayed product call recomputed")
    rows = {(r["name"], r["input_dims"]): r for r in read_csv(out + "/gt.csv")
            if r["role"] == "product"}
    for key, (count, flop, busy, _) in sorted(want.items()):
        r = rows.get(key)
        if r is None:
            fail("gt.csv lacks replayed product %r" % (key,))
        if int(r["count"]) != count:
            fail("gt.csv %r: count %s, recomputed %d" % (key, r["count"], count))
        close(float(r["flop"]), flop, "flop of %r" % (key,))
        close(float(r["busy_us"]), busy / 1000.0, "busy_us of %r" % (key,))
    if os.path.exists(out + "/pred.csv"):
        pred = {(r["name"], str(json.loads(r["input_dims"]))): r for r in read_csv(out + "/pred.csv")}
        for key, (count, _, _, dur) in sorted(want.items()):
            r = pred.get(key)
            if r is None or int(r["count"]) != count or not r["model"]:
                fail("pred.csv %r: %r, recomputed %d modelled calls" % (key, r, count))
            close(float(r["measured_us"]), dur / 1000.0 / count, "measured_us of %r" % (key,))
    print("check_graphs: %d replayed product calls of %d shapes"
          % (sum(w[0] for w in want.values()), len(want)))


def kind_of(a):
    c = a.get("cat", "")
    return "memcpy" if "emcpy" in c else "memset" if "emset" in c else "kernel"


def main():
    run, out = sys.argv[1], sys.argv[2]
    capture = sys.argv[3] if len(sys.argv) > 3 else None
    ev = complete(load(run))
    rt = [e for e in ev if e.get("cat") in ("cuda_runtime", "cuda_driver")]
    graph_corr = {e["args"]["correlation"] for e in rt if GRAPH_LAUNCH.match(e["name"])}
    launch_of = {e["args"].get("correlation"): e for e in rt}
    acts = [e for e in ev if e.get("cat") in ACTIVITY]
    replayed = [a for a in acts if a.get("args", {}).get("correlation") in graph_corr]
    others = [a for a in acts if a.get("args", {}).get("correlation") not in graph_corr]
    if not replayed:
        fail("no graph replay in " + run)

    # graphs: count, replays, GPU time
    graphs = read_csv(out + "/ks.graphs.csv")
    close(sum(float(g["sum_us"]) for g in graphs), sum(ns(a["dur"]) for a in replayed) / 1000.0,
          "graphs' GPU time")
    if sum(int(g["count"]) for g in graphs) != len(replayed):
        fail("graphs' activities differ from %d" % len(replayed))
    if sum(int(g["replays"]) for g in graphs) != len({a["args"]["correlation"] for a in replayed}):
        fail("graphs' replays differ")

    # "(no op)": only non-replayed activities launched outside any cpu op
    ops = ops_by_thread(ev)
    no_op = 0
    for a in others:
        l = launch_of.get(a.get("args", {}).get("correlation"))
        if l is None or outer_op(ops, l) is None:
            no_op += ns(a["dur"])
    rows = read_csv(out + "/ks.ops.csv")
    close(sum(float(r["sum_us"]) for r in rows if r["op"] == "(no op)"), no_op / 1000.0,
          "(no op) time")

    # with the capture: the capturing op of every replayed activity
    if capture:
        caps = capture_ops(capture)
        want = {}
        gemm = {}
        by_replay = {}
        for a in replayed:
            by_replay.setdefault(a["args"]["correlation"], []).append(a)
        for corr, rep in by_replay.items():
            rep.sort(key=lambda a: ns(a["ts"]))
            cap = next((c for c in caps if len(c) == len(rep) and all(
                k == kind_of(a) and (n is None or kind_of(a) != "kernel" or n == a["name"])
                for (k, n, _, _), a in zip(c, rep))), None)
            if cap is None:
                fail("replay %s aligns with no capture one to one" % corr)
            for (_, _, op, inner), a in zip(cap, rep):
                want[op] = want.get(op, 0) + ns(a["dur"])
                if inner is not None:
                    gemm.setdefault((corr, id(inner)), (inner, []))[1].append(a)
        for a in others:
            l = launch_of.get(a.get("args", {}).get("correlation"))
            op = outer_op(ops, l) if l is not None else None
            if op is not None:
                want[op] = want.get(op, 0) + ns(a["dur"])
        got = {}
        for r in rows:
            if r["op"] != "(no op)":
                got[r["op"]] = got.get(r["op"], 0.0) + float(r["sum_us"])
        for op in sorted(set(want) | set(got)):
            close(got.get(op, 0.0), want.get(op, 0) / 1000.0, "op %r" % op)
        if any(re.match(r"^graph \d+$", op) for op in got):
            fail("a replayed activity stays under graph <id>")
        check_replayed_gemms(out, gemm)

    # busy, never idle
    streams = {}
    for a in acts:
        args = a.get("args", {})
        s = ns(a["ts"])
        streams.setdefault((args.get("device"), args.get("stream")), []).append((s, s + ns(a["dur"])))
    st = {(int(r["device"]), int(r["stream"])): r for r in read_csv(out + "/st.csv")}
    for key, iv in streams.items():
        iv.sort()
        busy = union_ns(iv)
        span = max(e for _, e in iv) - iv[0][0]
        r = st.get(key)
        if r is None:
            fail("stream %r missing from st.csv" % (key,))
        close(float(r["busy_us"]), busy / 1000.0, "busy_us of %r" % (key,))
        close(float(r["idle_us"]), (span - busy) / 1000.0, "idle_us of %r" % (key,))
    print("check_graphs: %d replayed activities, %.3f us, none under (no op) or idle"
          % (len(replayed), sum(ns(a["dur"]) for a in replayed) / 1000.0))


if __name__ == "__main__":
    main()
