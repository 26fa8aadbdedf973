"""counters_s1: the Chrome trace with counter overlays parses as JSON; its counter
events are well formed, non-decreasing in time per (pid, name) track, and carry the
hand-computed series of pipeline.yaml."""
import json, os, sys

out = sys.argv[1]
doc = json.load(open(os.path.join(out, "s1.trace.json")))
events = doc["traceEvents"]
counters = [e for e in events if e.get("ph") == "C"]
tracks = {}
for e in counters:
    assert isinstance(e["name"], str) and isinstance(e["pid"], int), e
    assert isinstance(e["ts"], (int, float)), e
    assert len(e["args"]) == 1 and all(isinstance(v, (int, float)) for v in e["args"].values()), e
    tracks.setdefault((e["pid"], e["name"]), []).append((e["ts"], list(e["args"].values())[0]))
for key, pts in tracks.items():
    ts = [t for t, _ in pts]
    assert ts == sorted(ts), f"track {key}: timestamps go back"
want = {
    (0, "queue_length stream 7"): [(-5, 1), (3, 2), (10, 1), (17, 0), (20, 1), (28, 0), (29, 1), (36, 0)],
    (0, "queue_length stream 20"): [(5, 1), (24, 0), (31, 1), (34, 0)],
    (0, "queue_length stream 9"): [(-2, 1), (8, 2), (10, 1), (15, 0), (28, 1), (34, 0)],
    (0, "memcpy_gbps stream 9"): [(0, 2), (10, 0), (10, 10), (15, 0), (30, 1), (34, 0)],
}
assert tracks == want, tracks
# the trace's own events are all still there
assert len([e for e in events if e.get("ph") == "X"]) == 18
print(f"counters_s1: {len(counters)} counter events on {len(tracks)} tracks, in order")

# <id>.summary: the hand figures of pipeline.yaml; no queue columns (launch_stats.queue's)
import csv
rows = list(csv.DictReader(open(os.path.join(out, "cnt.summary.csv"))))
assert not any(k in rows[0] for k in ("p50_queue", "p90_queue", "max_queue", "full_us")), rows[0]
summ = {r["stream"]: r for r in rows}
want_sum = {"7": (4, 0, None), "9": (3, 3, (2, 8.4, 10, 74000 / 19000)), "20": (2, 0, None)}
for s, (n, ncp, cp) in want_sum.items():
    r = summ[s]
    assert int(r["n_launches"]) == n and int(r["n_copies"]) == ncp, r
    if cp is None:
        assert r["p50_memcpy_gbps"] == "" and r["memcpy_gbps"] == "", r
    else:
        got = [float(r[k]) for k in ("p50_memcpy_gbps", "p90_memcpy_gbps", "max_memcpy_gbps", "memcpy_gbps")]
        assert all(abs(a - b) < 1e-9 for a, b in zip(got, cp)), got
print("counters_s1: summary of 3 streams as computed by hand")
