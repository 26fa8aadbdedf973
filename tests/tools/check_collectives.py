"""Independent check of the collectives analysis on a Kineto trace (issue 30, item 3).

    python3 tests/tools/check_collectives.py TRACE CALLS_CSV [LABEL]

CALLS_CSV is the analysis' per-call result (<id>.calls) as the csv writer writes it;
with LABEL only its rows of that trace are checked.  From the trace alone, in
plain Python: the NCCL kernels (names starting `nccl` / `void nccl`, or
holding ncclKernel / ncclDevKernel), each launched by the runtime call of
its correlation id, the host ops on that call's thread that contain it
(innermost first).  The op describing the call: the nearest with `In msg
nelems` / `Out msg nelems` (record_param_comms), else the nearest `nccl:*`
op with `Input Dims`.  Size = max(in, out) elements (the first input's
elements, times the group size for an all_gather, from Input Dims) x the
dtype's bytes; algbw = size / duration; busbw = algbw x NCCL's factor
(nccl-tests doc/PERFORMANCE.md: all_reduce 2(n-1)/n; all_gather,
reduce_scatter, all_to_all (n-1)/n; broadcast, reduce, send/recv 1).
Asserts: every NCCL kernel of the trace is a row, in start order, with the
same duration, type, dtype, group size, elements, size and bandwidths (to
1e-9 relative); every other row's bandwidths follow from its own size and
duration.
"""
import csv, gzip, json, math, os, sys
from decimal import Decimal

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tracecheck import ns

OPS = {"cpu_op", "user_annotation", "Operator"}
CALLS = {"cuda_runtime", "cuda_driver", "Runtime"}
WORDS = [("allreduce", "all_reduce"), ("reducescatter", "reduce_scatter"),
         ("allgather", "all_gather"), ("alltoall", "all_to_all"), ("broadcast", "broadcast"),
         ("sendrecv", "send_recv"), ("send", "send_recv"), ("recv", "send_recv"),
         ("reduce", "reduce")]
SIZES = {"float": 4, "float32": 4, "int": 4, "int32": 4, "uint32": 4, "half": 2, "float16": 2,
         "bfloat16": 2, "short": 2, "int16": 2, "uint16": 2, "double": 8, "float64": 8,
         "long": 8, "int64": 8, "long int": 8, "uint64": 8, "char": 1, "int8": 1, "byte": 1,
         "uint8": 1, "bool": 1, "complexfloat": 8, "complexdouble": 16}
FACTOR = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
          "reduce_scatter": lambda n: (n - 1) / n, "all_to_all": lambda n: (n - 1) / n,
          "broadcast": lambda n: 1.0, "reduce": lambda n: 1.0, "send_recv": lambda n: 1.0}


def is_nccl(name):
    return (name.startswith("nccl") or name.startswith("void nccl") or "ncclKernel" in name
            or "ncclDevKernel" in name)


def type_of(name):
    flat = name.split("(")[0].split("<")[0].replace("_", "").lower()
    for word, t in WORDS:
        if word in flat:
            return t
    return "other"


def dtype_bytes(t):
    t = t.lower()
    t = t[5:] if t.startswith("c10::") else t
    return 1 if t.startswith("float8") else SIZES.get(t, 0)


def close(a, b):
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= 1e-9 * max(abs(a), abs(b), 1e-12)


def num(cell, kind=float):
    return None if cell == "" else kind(cell)


def expected_calls(events, world):
    ops = {}
    runtime = {}
    for e in events:
        if e.get("ph") != "X":
            continue
        a = e.get("args") or {}
        if e.get("cat") in OPS:
            ops.setdefault((e.get("pid"), e.get("tid")), []).append(e)
        elif e.get("cat") in CALLS and "correlation" in a:
            runtime[a["correlation"]] = e
    kernels = [e for e in events if e.get("ph") == "X" and e.get("cat") == "kernel"
               and is_nccl(e.get("name", ""))]
    kernels.sort(key=lambda e: ns(e["ts"]))
    out = []
    for k in kernels:
        a = k.get("args") or {}
        call = {"name": k["name"], "dur_ns": ns(k["dur"]), "type": type_of(k["name"]),
                "dtype": None, "group_size": world, "n_elements": None}
        src, dims = (k if ("In msg nelems" in a or "Out msg nelems" in a) else None), None
        rt = runtime.get(a.get("correlation"))
        if src is None and rt is not None:
            t0, t1 = ns(rt["ts"]), ns(rt["ts"]) + ns(rt.get("dur", 0))
            around = [o for o in ops.get((rt.get("pid"), rt.get("tid")), [])
                      if ns(o["ts"]) <= t0 and t1 <= ns(o["ts"]) + ns(o["dur"])]
            around.sort(key=lambda o: (ns(o["dur"]), -ns(o["ts"])))
            for o in around:
                oa = o.get("args") or {}
                if "In msg nelems" in oa or "Out msg nelems" in oa:
                    src = o
                    break
                if dims is None and o["name"].startswith("nccl") and "Input Dims" in oa:
                    dims = o
        op = src if src is not None else dims
        if op is not None and op is not k:
            oa = op.get("args") or {}
            t = type_of(oa["Collective name"]) if "Collective name" in oa else type_of(op["name"])
            if t != "other":
                call["type"] = t
        if op is not None:
            oa = op.get("args") or {}
            if oa.get("Group size") is not None:
                call["group_size"] = int(oa["Group size"])
        if src is not None:
            sa = src.get("args") or {}
            call["dtype"] = sa.get("dtype")
            vals = [int(sa[x]) for x in ("In msg nelems", "Out msg nelems")
                    if sa.get(x) is not None and int(sa[x]) >= 0]
            call["n_elements"] = max(vals) if vals else None
        elif dims is not None:
            da = dims["args"]
            types = da.get("Input type") or []
            call["dtype"] = types[0] if types and types[0] != "" else None
            first = (da["Input Dims"] or [[]])[0]
            n = math.prod(int(x) for x in first) if first else None
            if n is not None and call["type"] == "all_gather":
                n = n * call["group_size"] if call["group_size"] else None
            call["n_elements"] = n
        size = dtype_bytes(call["dtype"] or "")
        call["size_bytes"] = call["n_elements"] * size if call["n_elements"] is not None and size else None
        out.append(call)
    return out


def bandwidths(size, dur_ns, ctype, n):
    if size is None or dur_ns <= 0:
        return None, None
    alg = size / dur_ns
    f = FACTOR.get(ctype)
    return alg, (alg * f(n) if f and n and n >= 1 else None)


def main():
    trace, calls_csv = sys.argv[1], sys.argv[2]
    label = sys.argv[3] if len(sys.argv) > 3 else None
    opener = gzip.open if trace.endswith(".gz") else open
    with opener(trace, "rt") as f:
        doc = json.load(f, parse_float=Decimal)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    world = (doc.get("distributedInfo") or {}).get("world_size") if isinstance(doc, dict) else None
    with open(calls_csv, newline="") as f:
        rows = [r for r in csv.DictReader(f) if label is None or r["trace"] == label]
    bad = []
    for r in rows:  # every row's own arithmetic
        alg, bus = bandwidths(num(r["size_bytes"], int), round(float(r["dur_us"]) * 1000),
                              r["type"], num(r["group_size"], int))
        if not close(num(r["algbw_gbps"]), alg) or not close(num(r["busbw_gbps"]), bus):
            bad.append(f"row {r['start_us']} {r['name'][:40]}: bandwidths {r['algbw_gbps']}, "
                       f"{r['busbw_gbps']} != {alg}, {bus}")
    mine = [r for r in rows if is_nccl(r["name"])]
    want = expected_calls(events, int(world) if world is not None else None)
    if len(mine) != len(want):
        bad.append(f"{len(mine)} NCCL rows, the trace has {len(want)} NCCL kernels")
    for r, w in zip(mine, want):
        got = {"name": r["name"], "dur_ns": round(float(r["dur_us"]) * 1000), "type": r["type"],
               "dtype": r["dtype"] or None, "group_size": num(r["group_size"], int),
               "n_elements": num(r["n_elements"], int), "size_bytes": num(r["size_bytes"], int)}
        for key in got:
            if got[key] != w[key]:
                bad.append(f"{r['start_us']} {r['name'][:40]}: {key} {got[key]!r} != {w[key]!r}")
    if bad:
        print("\n".join(bad[:20]))
        sys.exit(1)
    sized = sum(1 for w in want if w["size_bytes"] is not None)
    print(f"{os.path.basename(trace)}: {len(want)} NCCL calls checked, {sized} with sizes")


if __name__ == "__main__":
    main()
