"""Independent streams figures for four real traces."""
import csv, gzip, json, os, re, sys
sys.path.insert(0, "tests/tools")
from tracecheck import union
from decimal import Decimal

TRACES = {"dlrm": "tests/data/dlrm_worker0_step12.pt.trace.json.gz",
          "nccl": "tests/data/kineto/corpus/hta_nccl_data.json.gz",
          "events": "tests/data/kineto/corpus/hta_cuda_event_sync_multistream.json.gz",
          "mi210": "tests/data/kineto/corpus/tracelens_mi210_gpu_only.json.gz"}
CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
NS = lambda us: int(Decimal(us) * 1000)  # exact integer ns from the decimal text, as the reader


def at_least_two(iv):
    edges = sorted([(a, 1) for a, b in iv if b > a] + [(b, -1) for a, b in iv if b > a],
                   key=lambda e: (e[0], e[1]))
    total, depth, prev = 0, 0, None
    for t, d in edges:
        if depth >= 2:
            total += t - prev
        depth += d; prev = t
    return total

def computation(s):
    if re.match(r"nccl|hip|hccl", s) or "ncclKernel" in s or re.match(r"Memcpy|Memset|dma", s):
        return False
    return not re.match(r"nccl|.*Memcpy|.*Memset|.*dma|^.*Sync|Stream Wait Event|"
                        r"cuda.*LaunchKernel|runFunction|hip|job_exe|packet|pe_exe|"
                        r"cpum_exe_subgraph|hccl|collective_subgraph_execution", s)

close = lambda a, b: abs(a - b) < 1e-6
checked = 0
for tid, path in TRACES.items():
    doc = json.load(gzip.open(path), parse_float=Decimal)
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    acts = [e for e in ev if e.get("ph") == "X" and e.get("cat") in CATS]
    iv = lambda es: [(NS(e["ts"]), NS(e["ts"]) + NS(e["dur"])) for e in es]
    streams = {}
    for e in acts:
        a = e.get("args", {})
        streams.setdefault((a.get("device", -1), a.get("stream", -1)), []).append(e)
    rows = list(csv.DictReader(open(os.path.join(sys.argv[1], "s_%s.csv" % tid))))
    assert len(rows) == len(streams), (tid, len(rows), len(streams))
    for r in rows:
        es = streams[(int(r["device"]), int(r["stream"]))]
        v = iv(es)
        span = max(b for a, b in v) - min(a for a, b in v)
        assert int(r["count"]) == len(es), (tid, r)
        assert close(float(r["busy_us"]), union(v) / 1000), (tid, r, union(v))
        assert close(float(r["span_us"]), span / 1000), (tid, r, span)
        assert float(r["busy_us"]) <= float(r["span_us"]) + 1e-9
        checked += 1
    for r in csv.DictReader(open(os.path.join(sys.argv[1], "s_%s.devices.csv" % tid))):
        es = [e for e in acts if e.get("args", {}).get("device", -1) == int(r["device"])]
        v = iv(es)
        span = max(b for a, b in v) - min(a for a, b in v)
        busy, comp = union(v), union(iv([e for e in es if computation(e["name"])]))
        assert close(float(r["busy_us"]), busy / 1000), (tid, r, busy)
        assert close(float(r["sum_dur_us"]), sum(b - a for a, b in v) / 1000), (tid, r)
        assert close(float(r["concurrent_us"]), at_least_two(v) / 1000), (tid, r, at_least_two(v))
        assert close(float(r["compute_us"]), comp / 1000), (tid, r, comp)
        total = float(r["compute_us"]) + float(r["non_compute_us"]) + float(r["idle_us"])
        assert close(total, float(r["span_us"])), (tid, r)
        checked += 1
print("streams_corpus: %d stream and device rows checked on %d traces" % (checked, len(TRACES)))
