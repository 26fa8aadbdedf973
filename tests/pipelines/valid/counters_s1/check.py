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
