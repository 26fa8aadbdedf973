"""HTA's launch statistics and queue-length summary recomputed from a Kineto
trace's JSON the way HTA's pandas code does (hta/analyzers/
cuda_kernel_analysis.py cuda_kernel_launch_stats, trace_counters.py, the
TraceAnalysis trace filter and parser), in plain Python, and compared with
launch_stats compat: hta's <id>.csv and <id>.queue.csv.

usage: check_hta_launch.py TRACE OUTDIR [ID]"""
import csv, gzip, json, math, re, sys

LAUNCH = {"cudaLaunchKernel", "cudaLaunchKernelExC", "cudaMemcpyAsync", "cudaMemsetAsync",
          "runFunction - job_prep_and_submit_for_execution"}
QUEUE = LAUNCH | {"cuLaunchKernel", "cuLaunchKernelEx", "hipLaunchKernel",
                  "hipExtModuleLaunchKernel", "hipMemsetAsync", "hipMemcpyAsync",
                  "hipMemcpyWithStream"}


def load(path):
    d = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    ev = d["traceEvents"] if isinstance(d, dict) else d
    floats = any(isinstance(e.get("ts"), float) or "ts" not in e for e in ev)
    rows = []
    for i, e in enumerate(ev):  # the parser: rows with dur and cat, no "Trace"
        if e.get("dur") is None or e.get("cat") is None or e["cat"] == "Trace":
            continue
        a = e.get("args") or {}
        ts, dur = e["ts"], e["dur"]
        if floats:  # round_down_time_stamps
            end = math.floor(ts + dur)
            ts = math.ceil(ts)
            dur = end - ts
        try:
            s = int(a.get("stream", -1))
        except (TypeError, ValueError):
            s = -1
        rows.append(dict(i=i, name=e.get("name"), ts=ts, dur=dur, stream=s,
                         corr=a.get("correlation", -1)))
    return rows


def last_step_filter(rows):  # Trace._filter_irrelevant_gpu_kernels
    steps = {r["name"] for r in rows if re.match(r"^ProfilerStep#(\d+)", r["name"])}
    if len(steps) < 2:
        return rows
    gpu = lambda r: (r["stream"] >= 0 and r["corr"] >= 0) or r["name"] in ("Event Sync", "Context Sync")
    cpu = [r for r in rows if not gpu(r)]
    last = max(r["ts"] for r in cpu if r["name"] in steps)
    cpu = [r for r in cpu if r["ts"] < last]
    n = {}
    for r in cpu:
        n[r["corr"]] = n.get(r["corr"], 0) + 1
    return [r for r in rows if gpu(r) for _ in range(n.get(r["corr"], 0))] + cpu


def launches(rows):
    ids = {r["corr"] for r in rows if r["name"] in LAUNCH}
    gpu = {}
    for r in rows:
        if r["stream"] != -1 and r["corr"] in ids:
            gpu.setdefault(r["corr"], []).append(r)
    return [(c["dur"], g["dur"], max(0, g["ts"] - c["ts"] - c["dur"]))
            for c in rows if c["stream"] == -1 and c["corr"] in ids
            for g in gpu.get(c["corr"], [])]


def pct(v, p):
    v = sorted(v)
    k = (len(v) - 1) * p
    f = math.floor(k)
    c = min(f + 1, len(v) - 1)
    return v[f] + (v[c] - v[f]) * (k - f)


def queues(rows, full):
    calls = [r for r in rows if r["name"] in QUEUE]
    gpu = [r for r in rows if r["stream"] != -1]
    by = {}
    for g in gpu:
        by.setdefault(g["corr"], []).append(g)
    ids = {c["corr"] for c in calls}
    pts = [(c["ts"], 0, 1, g["stream"]) for c in calls for g in by.get(c["corr"], [])]
    pts += [(g["ts"], 1, -1, g["stream"]) for g in gpu if g["corr"] in ids]
    pts.sort(key=lambda p: (p[0], p[1]))  # calls first at equal times
    out = {}
    for s in sorted({p[3] for p in pts}):
        q, ser = 0, []
        for p in pts:
            if p[3] == s:
                q += p[2]
                ser.append((p[0], q))
        v = [x[1] for x in ser]
        n, m = len(v), sum(v) / len(v)
        out[s] = dict(samples=n, mean=m, max=max(v), min=min(v),
                      std=math.sqrt(sum((x - m) ** 2 for x in v) / (n - 1)) if n > 1 else None,
                      p25=pct(v, .25), p50=pct(v, .5), p75=pct(v, .75),
                      full=sum(ser[i + 1][0] - ser[i][0] for i in range(n - 1) if ser[i][1] >= full))
    return out


def close(a, b):
    return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(b)))


def main():
    trace, outdir = sys.argv[1], sys.argv[2]
    sid = sys.argv[3] if len(sys.argv) > 3 else "hta"
    rows = last_step_filter(load(trace))
    ls = launches(rows)
    want = {"slow_launch": sum(c > 50 for c, g, d in ls),
            "short_gpu": sum(c <= 50 and g < c for c, g, d in ls),
            "late_start": sum(d > 100 for c, g, d in ls)}
    mean = {"cpu_duration": sum(c for c, g, d in ls) / len(ls),
            "gpu_duration": sum(g for c, g, d in ls) / len(ls),
            "launch_delay": sum(d for c, g, d in ls) / len(ls)}
    bad = 0
    for r in csv.DictReader(open(f"{outdir}/{sid}.csv")):
        if int(r["count"]) != len(ls) or int(r["n_outliers"]) != want[r["outlier"]] \
                or not close(r["mean_us"], mean[r["measure"]]):
            print(f"{r['measure']}: got {r}, HTA {len(ls)} {want[r['outlier']]} {mean[r['measure']]}")
            bad += 1
    q = queues(rows, 1024)
    got = list(csv.DictReader(open(f"{outdir}/{sid}.queue.csv")))
    if sorted(int(r["stream"]) for r in got) != sorted(q):
        print(f"queue streams: got {[r['stream'] for r in got]}, HTA {sorted(q)}")
        bad += 1
    for r in got:
        h = q.get(int(r["stream"]))
        for k, col in (("samples", "samples"), ("mean", "mean_queue"), ("max", "max_queue"),
                       ("min", "min_queue"), ("std", "std_queue"), ("p25", "p25_queue"),
                       ("p50", "p50_queue"), ("p75", "p75_queue")):
            if h is None or (h[k] is None) != (r[col] == "") or (h[k] is not None and not close(r[col], h[k])):
                print(f"queue stream {r['stream']} {col}: got {r[col]}, HTA {h and h[k]}")
                bad += 1
        if h is not None and not close(r["full_us"], h["full"]):
            bad += 1
    print(f"{trace}: {len(ls)} launches, {want}, {len(q)} streams", "differ" if bad else "as HTA")
    sys.exit(1 if bad else 0)


main()
