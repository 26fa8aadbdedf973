#!/usr/bin/env python3
"""Independent check of the advice analysis (issue 29) on a real trace.

    check_advice.py TRACE OUTDIR

OUTDIR holds advice.csv, written by the bundled pipelines/advice.yaml (default
thresholds) on TRACE: a Kineto JSON (.json / .json.gz), an Nsight Systems SQLite
export (.sqlite) or a dvdt-prof OpenCL profile (dvdt JSON list).  The trace is
read here with plain Python (json, gzip, sqlite3; no tracepipe code), and the
rules' figures are recomputed from it:

  per device (activities = kernels, memcpys, memsets; span = first start to
  last end; classes as HTA: a collective (nccl/rccl in the name) is
  communication, copies and sets memory, else computation):
    gpu_idle         fires iff (span - union) / span > 15 %; idle_us exact
    exposed_comm     fires iff communication not under computation > 5 % of span
    comm_overlap     fires iff overlapped / communication < 70 %
    memcpy_share     the copies' union and count ("N in all"); must fire when
                     their share > 5 %, must not when share <= 5 % and N <= 10
    gpu_gaps         every gap >= 500 ms between the union's intervals
    low_utilization  the number of the 30 chunks busy < 50 %
  pageable_memcpy    copies from or to pageable memory: Kineto's name says "Pageable";
                     an nsys export's srcKind/dstKind is its ENUM_CUDA_MEM_KIND's Pageable
  sync_memcpy        runtime calls named *Memcpy* / *Memset* without "Async", by name
  sync_api           runtime calls whose name (without _v<N>) ends in Synchronize
  launch_outliers    by correlation id: calls > 50 us (slow), else GPU work shorter
                     than its call (short), GPU starts > 100 us after the call's end
                     (late)  (Kineto and nsys)
  optimizer_single_tensor  names ending _single_tensor_{adam,sgd,adamw}
  matmul_fp16_dims   aten::mm/bmm/addmm in half/bfloat16 with a last-two dim % 8
  fp32_matmul        per NVIDIA device of compute capability >= 8 (deviceProperties) and per
                     family (matmul ops, convolution ops): GEMM kernels whose launching call
                     (correlation) lies inside a product op of the family recording a float
                     first input type (the innermost such op by time on the call's thread),
                     FP32 by name (sgemm, f32) or TF32 (tf32, s1688gemm); fires with the
                     FP32 count iff there are some and no TF32 one  (Kineto)
and which rules say "not checked" (no GPU work, no collectives, no runtime calls,
no cpu ops, no Python frames, no recorded shapes).  Exits 1 with the differences.
"""
import csv
import gzip
import json
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tracecheck import ns  # noqa: E402
from check_idle import device_of  # noqa: E402  (args.device, else the pid)

TOL = 1e-6
errors = []


def check(ok, msg):
    if not ok:
        errors.append(msg)


class Trace:
    def __init__(self):
        self.acts = []    # (device, start, end, kind, name, corr)
        self.calls = []   # (name, start, end, corr)
        self.ops = []     # (name, args) of cpu ops
        self.python = []  # names of Python frames
        self.format = "kineto"
        self.tf32_devices = set()  # NVIDIA, compute capability >= 8 (deviceProperties)
        self.cc_known = False
        self.op_spans = {}         # (pid, tid) -> [(start, end, name, args)] of cpu ops
        self.call_at = {}          # correlation -> (pid, tid, start, end) of runtime calls


# ------------------------------------------------------------------ readers

ACT = {"kernel": "kernel", "Kernel": "kernel", "mtia_ccp_events": "kernel",
       "gpu_memcpy": "memcpy", "Memcpy": "memcpy", "gpu_memset": "memset", "Memset": "memset"}


def is_runtime(cat):
    return cat in ("cuda_runtime", "cuda_driver", "Runtime") or cat.endswith("_runtime") \
        or cat.endswith("_driver")


def read_kineto(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        doc = json.load(f, parse_float=str)
    events = doc["traceEvents"] if isinstance(doc, dict) else doc
    t = Trace()
    for p in (doc.get("deviceProperties") or []) if isinstance(doc, dict) else []:
        if "computeMajor" in p:
            t.cc_known = True
            if int(p["computeMajor"]) >= 8 and not re.search("amd|instinct|radeon", p.get("name", ""), re.I):
                t.tf32_devices.add(p.get("id"))
    for e in events:
        if not isinstance(e, dict) or e.get("ph") == "M" or "ts" not in e:
            continue
        cat = e.get("cat", "")
        if cat == "Trace":
            continue
        ts = ns(e["ts"])
        if e.get("ph") != "X" or "dur" not in e or ns(e["dur"]) < 0:
            continue
        end = ts + ns(e["dur"])
        args = e.get("args") or {}
        corr = args.get("correlation", args.get("correlation id"))
        name = e.get("name", "")
        if cat in ACT:
            t.acts.append((device_of(e), ts, end, ACT[cat], name, corr))
        elif is_runtime(cat):
            t.calls.append((name, ts, end, corr))
            if corr is not None:
                t.call_at[corr] = (e.get("pid"), e.get("tid"), ts, end)
        elif cat in ("cpu_op", "Operator"):
            t.ops.append((name, args))
            t.op_spans.setdefault((e.get("pid"), e.get("tid")), []).append((ts, end, name, args))
        elif cat == "python_function":
            t.python.append(name)
    return t


KINDS = {1: "HtoD", 2: "DtoH", 8: "DtoD", 10: "PtoP"}


def read_nsys(path):
    db = sqlite3.connect("file:%s?mode=ro&immutable=1" % path, uri=True)
    tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    strings = dict(db.execute("SELECT id, value FROM StringIds"))
    t = Trace()
    if "CUPTI_ACTIVITY_KIND_KERNEL" in tables:
        for d, s, e, c, n in db.execute("SELECT deviceId, start, end, correlationId, "
                                        "demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL"):
            t.acts.append((d, s, e, "kernel", strings.get(n, ""), c))
    if "CUPTI_ACTIVITY_KIND_MEMCPY" in tables:
        # the memory kinds as the export labels them (ENUM_CUDA_MEM_KIND), else its
        # documented numbering (0 pageable, 1 pinned, 2 device, ...), named the way
        # Kineto names them: "Memcpy HtoD (Pageable -> Device)"
        mk = {0: "Pageable", 1: "Pinned", 2: "Device", 3: "Array", 4: "Managed"}
        if "ENUM_CUDA_MEM_KIND" in tables:
            mk = dict(db.execute("SELECT id, label FROM ENUM_CUDA_MEM_KIND"))
        cols = [r[1] for r in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_MEMCPY)")]
        kinds = "srcKind, dstKind" if "srcKind" in cols and "dstKind" in cols else "NULL, NULL"
        for d, s, e, c, k, sk, dk in db.execute(
                "SELECT deviceId, start, end, correlationId, copyKind, %s "
                "FROM CUPTI_ACTIVITY_KIND_MEMCPY" % kinds):
            name = "Memcpy " + KINDS.get(k, "Unknown")
            if sk in mk or dk in mk:
                name += " (%s -> %s)" % (mk.get(sk, "Unknown"), mk.get(dk, "Unknown"))
            t.acts.append((d, s, e, "memcpy", name, c))
    if "CUPTI_ACTIVITY_KIND_MEMSET" in tables:
        for d, s, e, c in db.execute("SELECT deviceId, start, end, correlationId "
                                     "FROM CUPTI_ACTIVITY_KIND_MEMSET"):
            t.acts.append((d, s, e, "memset", "Memset", c))
    if "CUPTI_ACTIVITY_KIND_RUNTIME" in tables:
        for n, s, e, c in db.execute("SELECT nameId, start, end, correlationId FROM "
                                     "CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass != 67"):
            t.calls.append((strings.get(n, ""), s, e, c))
    t.format = "nsys"
    return t


def read_dvdt(path):
    t = Trace()
    t.format = "dvdt"
    for r in json.load(open(path)):
        if r.get("call") == "clEnqueueNDRangeKernel" and "profiling" in r:
            p = r["profiling"]
            t.acts.append((0, p["start"], p["end"], "kernel", r.get("name", ""), None))
    t.calls.append(("clEnqueueNDRangeKernel", 0, 0, None))  # it has runtime calls
    return t


def read(path):
    if path.endswith(".sqlite"):
        return read_nsys(path)
    with (gzip.open if path.endswith(".gz") else open)(path, "rt") as f:
        head = f.read(4096)
    if head.lstrip().startswith("[") and '"call"' in head:
        return read_dvdt(path)
    return read_kineto(path)


# ------------------------------------------------------------------ figures

def union(iv):
    out = []
    for a, b in sorted(iv):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def length(u):
    return sum(b - a for a, b in u)


def overlap(u, v):
    i = j = total = 0
    while i < len(u) and j < len(v):
        a, b = max(u[i][0], v[j][0]), min(u[i][1], v[j][1])
        total += max(0, b - a)
        if u[i][1] < v[j][1]:
            i += 1
        else:
            j += 1
    return total


def within(u, lo, hi):
    return sum(max(0, min(b, hi) - max(a, lo)) for a, b in u)


def klass(kind, name):
    low = name.lower()
    if "nccl" in low or "rccl" in low:
        return "comm"
    if kind in ("memcpy", "memset") or is_copy(kind, name) or low.startswith("memset"):
        return "memory"
    for w in ("Memcpy", "Memset", "dma", "Sync"):
        if w in name:
            return "other"
    return "comp"


COPY_NAME = re.compile(r"^(Memcpy|dma|MEMCPY|\[?CUDA memcpy|hipMemcpy|Copy\w+To\w+$|clEnqueue(Read|Write|Copy)"
                       r"|clEnqueue(Map|Unmap)|clEnqueueSVMMemcpy)")


def is_copy(kind, name):
    """A memcpy: its kind, or a copy's name (HTA/MTIA dma, TF MEMCPY, nsys, ROCm, OpenCL)."""
    return kind == "memcpy" or (kind != "memset" and bool(COPY_NAME.match(name)))


def rows_of(out):
    return list(csv.DictReader(open(os.path.join(out, "advice.csv"))))


def fired(rows, rule, where=None):
    return [r for r in rows if r["rule"] == rule and r["severity"] != "info"
            and (where is None or r["where"] == where or r["where"].startswith(where + ","))]


def skipped(rows, rule):
    return any(r["rule"] == rule and r["severity"] == "info" for r in rows)


def near(a, b):
    return abs(float(a) - b) <= TOL * max(1.0, abs(b))


def check_device(rows, dev, acts):
    where = "device %d" % dev
    lo, hi = min(a[1] for a in acts), max(a[2] for a in acts)
    span = hi - lo
    u = union([(a[1], a[2]) for a in acts])
    busy = length(u)
    # gpu_idle
    idle = span - busy
    r = fired(rows, "gpu_idle", where)
    want = span > 0 and 100.0 * idle / span > 15
    check(bool(r) == want, "gpu_idle %s: fired %s, idle %.3f %%" % (where, bool(r), 100.0 * idle / max(span, 1)))
    if r and want:
        check(near(r[0]["value_us"], idle / 1000), "gpu_idle %s: %s us, want %s" % (where, r[0]["value_us"], idle / 1000))
    # communication
    comm = union([(a[1], a[2]) for a in acts if klass(a[3], a[4]) == "comm"])
    comp = union([(a[1], a[2]) for a in acts if klass(a[3], a[4]) == "comp"])
    if comm:
        c, both = length(comm), overlap(comm, comp)
        want = 100.0 * (c - both) / span > 5
        r = fired(rows, "exposed_comm", where)
        check(bool(r) == want, "exposed_comm %s: fired %s, exposed %d of %d ns" % (where, bool(r), c - both, span))
        if r and want:
            check(near(r[0]["value_us"], (c - both) / 1000), "exposed_comm %s: %s us" % (where, r[0]["value_us"]))
        want = 100.0 * both / c < 70
        r = fired(rows, "comm_overlap", where)
        check(bool(r) == want, "comm_overlap %s: fired %s, overlap %.3f %%" % (where, bool(r), 100.0 * both / c))
    # memcpy_share
    copies = [a for a in acts if is_copy(a[3], a[4])]
    cu = union([(a[1], a[2]) for a in copies])
    share = 100.0 * length(cu) / span if span else 0
    r = fired(rows, "memcpy_share", where)
    if copies and share > 5:
        check(bool(r), "memcpy_share %s: not fired at %.3f %%" % (where, share))
    if not copies or (share <= 5 and len(copies) <= 10):
        check(not r, "memcpy_share %s: fired at %.3f %%, %d copies" % (where, share, len(copies)))
    if r:
        check(near(r[0]["value_us"], length(cu) / 1000), "memcpy_share %s: %s us" % (where, r[0]["value_us"]))
        check(("%d in all" % len(copies)) in r[0]["evidence"], "memcpy_share %s: %s, want %d copies" % (where, r[0]["evidence"], len(copies)))
    # gpu_gaps
    gaps = [u[i][0] - u[i - 1][1] for i in range(1, len(u)) if u[i][0] - u[i - 1][1] >= 500_000_000]
    got = sorted(float(x["value_us"]) for x in fired(rows, "gpu_gaps", where))
    check(len(got) == len(gaps) and all(near(g, w / 1000) for g, w in zip(got, sorted(gaps))),
          "gpu_gaps %s: %s, want %s" % (where, got, [g / 1000 for g in sorted(gaps)]))
    # low_utilization
    low = 0
    for k in range(30):
        c0, c1 = lo + span * k // 30, lo + span * (k + 1) // 30
        if c1 > c0 and 100.0 * within(u, c0, c1) / (c1 - c0) < 50:
            low += 1
    r = fired(rows, "low_utilization", where)
    check(len(r) == (1 if low else 0) and (not r or int(r[0]["count"]) == low),
          "low_utilization %s: %s, want %d low chunks" % (where, r and r[0]["count"], low))
    # pageable_memcpy
    pageable = sum(1 for a in copies if "->" in a[4] and "pageable" in a[4].lower())
    r = fired(rows, "pageable_memcpy", where)
    check((int(r[0]["count"]) if r else 0) == pageable, "pageable_memcpy %s: %s, want %d" % (where, r and r[0]["count"], pageable))


def base(name):
    return re.sub(r"(_v\d+|_ptsz|_ptds)+$", "", name)


def check_calls(rows, t):
    sync_copy, sync_call = {}, {}
    for name, s, e, _ in t.calls:
        b = base(name)
        if re.match(r"^(cuda|cu|hip)Mem(cpy|set)", b) and "Async" not in b:
            sync_copy[b] = sync_copy.get(b, 0) + 1
        if re.match(r"^(cuda|cu|hip)\w*Synchronize$", b):
            sync_call[b] = sync_call.get(b, 0) + 1
    for rule, want in (("sync_memcpy", sync_copy), ("sync_api", sync_call)):
        got = {base(r["where"].split(";")[0]): int(r["count"]) for r in fired(rows, rule)}
        check(got == want, "%s: %s, want %s" % (rule, got, want))


def check_launches(rows, t):
    by_corr = {}
    for name, s, e, c in t.calls:
        if c is not None:
            by_corr.setdefault(c, (s, e))
    slow = late = brief = n = 0
    for d, s, e, kind, name, c in t.acts:
        if c is None or c not in by_corr:
            continue
        cs, ce = by_corr[c]
        n += 1
        slow += (ce - cs) / 1000 > 50
        brief += (ce - cs) / 1000 <= 50 and e - s < ce - cs
        late += (s - ce) / 1000 > 100
    got = {r["finding"]: int(r["count"]) for r in fired(rows, "launch_outliers")}
    want = {}
    if slow:
        want["slow launch calls"] = slow
    if late:
        want["GPU work starts late after its launch"] = late
    if brief:
        want["GPU work shorter than the call that launched it"] = brief
    check(got == want, "launch_outliers: %s, want %s (of %d launches)" % (got, want, n))
    check((n == 0) == skipped(rows, "launch_outliers"), "launch_outliers: skipped %s with %d launches" % (skipped(rows, "launch_outliers"), n))


def check_torch(rows, t):
    shapes = any("Input type" in a for _, a in t.ops)
    check(skipped(rows, "matmul_fp16_dims") == (not t.ops or not shapes), "matmul_fp16_dims: skip row")
    check(skipped(rows, "optimizer_single_tensor") == (not t.python), "optimizer_single_tensor: skip row")
    single = sum(1 for n in t.python if re.search(r"_single_tensor_(adam|sgd|adamw)$", n))
    r = fired(rows, "optimizer_single_tensor")
    check((int(r[0]["count"]) if r else 0) == single, "optimizer_single_tensor: want %d" % single)
    half = 0
    for name, a in t.ops:
        if name not in ("aten::mm", "aten::bmm", "aten::addmm") or not a.get("Input type"):
            continue
        ty = str(a["Input type"][0]).lower()
        dims = a.get("Input Dims") or []
        if ("half" in ty or "bfloat16" in ty) and any(int(x) % 8 for d in dims for x in d[-2:]):
            half += 1
    r = fired(rows, "matmul_fp16_dims")
    check((int(r[0]["count"]) if r else 0) == half, "matmul_fp16_dims: want %d" % half)


MATMULS = {"aten::" + n for n in ("mm", "bmm", "addmm", "baddbmm", "addbmm", "matmul", "linear")}
CONVS = {"aten::" + n for n in ("conv1d", "conv2d", "conv3d", "convolution", "_convolution",
                                "cudnn_convolution", "conv_transpose1d", "conv_transpose2d",
                                "conv_transpose3d", "convolution_backward",
                                "cudnn_convolution_backward")}


def gemm_type(name):
    low = name.lower()
    if not re.search(r"gemm|xmma|nvjet", low) or "fbgemm" in low:
        return None
    if re.search(r"tf32|s1688gemm", low):
        return "tf32"
    if re.search(r"bf16|fp16|f16|half|fp8|e4m3|e5m2|i8816|dgemm|hgemm", low):
        return None
    return "fp32" if re.search(r"sgemm|f32", low) else None


def product_of(t, corr):
    """The family of the innermost product op recording input types around the call."""
    if corr not in t.call_at:
        return None
    pid, tid, s, e = t.call_at[corr]
    inner = None
    for os_, oe, name, args in t.op_spans.get((pid, tid), []):
        if (name in MATMULS or name in CONVS) and args.get("Input type") and os_ <= s and e <= oe:
            if inner is None or (os_, -oe) > (inner[0], -inner[1]):
                inner = (os_, oe, name, args)
    if inner is None or inner[3]["Input type"][0] != "float":
        return None
    return "matmul" if inner[2] in MATMULS else "conv"


def check_fp32(rows, t):
    if t.format != "kineto" or not t.ops or not any("Input type" in a for _, a in t.ops):
        return
    want = {}
    for d, s, e, kind, name, c in t.acts:
        ty = gemm_type(name) if kind == "kernel" and d in t.tf32_devices else None
        fam = product_of(t, c) if ty else None
        if fam:
            want.setdefault((d, fam), {"fp32": 0, "tf32": 0})[ty] += 1
    want = {k: v["fp32"] for k, v in want.items() if v["fp32"] and not v["tf32"]}
    got = {}
    for r in fired(rows, "fp32_matmul"):
        fam = "matmul" if "matmuls" in r["finding"] else "conv"
        got[(int(r["where"].split(";")[0].split()[1]), fam)] = int(r["count"])
    check(got == want, "fp32_matmul: %s, want %s" % (got, want))
    if t.acts:
        check(skipped(rows, "fp32_matmul") == (not t.tf32_devices),
              "fp32_matmul: skip row with TF32 devices %s" % sorted(t.tf32_devices))


def main():
    path, out = sys.argv[1], sys.argv[2]
    t = read(path)
    rows = rows_of(out)
    devices = sorted({a[0] for a in t.acts})
    check(skipped(rows, "gpu_idle") == (not devices), "gpu_idle: skip row with %d devices" % len(devices))
    comm = any(klass(a[3], a[4]) == "comm" for a in t.acts)
    check(skipped(rows, "exposed_comm") == (bool(devices) and not comm) or (not devices),
          "exposed_comm: skip row (collectives: %s)" % comm)
    for d in devices:
        check_device(rows, d, [a for a in t.acts if a[0] == d])
    check(skipped(rows, "sync_api") == (not t.calls), "sync_api: skip row with %d calls" % len(t.calls))
    check_calls(rows, t)
    if t.format != "dvdt":  # dvdt's host and device clocks differ: no launch delays here
        check_launches(rows, t)
    check_torch(rows, t)
    check_fp32(rows, t)
    if errors:
        print("check_advice: %s:" % os.path.basename(path))
        for e in errors:
            print("  " + e)
        sys.exit(1)
    n = sum(1 for r in rows if r["severity"] != "info")
    print("check_advice: %s: %d devices, %d findings checked" % (os.path.basename(path), len(devices), n))


if __name__ == "__main__":
    main()
