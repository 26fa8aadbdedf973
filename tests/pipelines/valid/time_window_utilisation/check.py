"""Independent utilisation inside the 50-60 % window of the DLRM step:
the span is the extent of every event with a duration (metadata and the
profiler's Trace span excluded), the window its 50-60 % part, and each
stream's busy time the union of its GPU activities cut to the window."""
import csv, gzip, json, os, sys
sys.path.insert(0, "tests/tools")
from tracecheck import union

ev = json.load(gzip.open("tests/data/dlrm_worker0_step12.pt.trace.json.gz"))["traceEvents"]
timed = [e for e in ev if e.get("ph") == "X" and e.get("cat") != "Trace"]
lo = min(e["ts"] for e in timed)
hi = max(e["ts"] + e["dur"] for e in timed)
# times relative to lo: absolute microseconds near 1.7e15 lose the decimals
ws, we = 0.5 * (hi - lo), 0.6 * (hi - lo)


gpu = {}
for e in ev:
    if e.get("ph") == "X" and e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
        a, b = max(e["ts"] - lo, ws), min(e["ts"] - lo + e["dur"], we)
        if b > a:
            gpu.setdefault((e["args"]["device"], e["args"]["stream"]), []).append((a, b))
out = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(out, "dev.streams.csv"))))
assert {(int(r["device"]), int(r["stream"])) for r in rows} == set(gpu), (rows, list(gpu))
for r in rows:
    assert abs(float(r["window_us"]) - (we - ws)) < 1e-6, r
    busy = union(gpu[(int(r["device"]), int(r["stream"]))])
    assert abs(float(r["active_us"]) - busy) < 1e-6, (r, busy)
dev = list(csv.DictReader(open(os.path.join(out, "dev.devices.csv"))))
allbusy = union([iv for v in gpu.values() for iv in v])
assert len(dev) == 1 and abs(float(dev[0]["busy_us"]) - allbusy) < 1e-6, (dev, allbusy)
assert abs(float(dev[0]["window_us"]) - (we - ws)) < 1e-6, dev
print("time_window_utilisation: window %.1f us, %d streams, device busy %.1f us checked"
      % (we - ws, len(rows), allbusy))
