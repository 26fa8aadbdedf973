"""critical_path_overlay: the written trace's flow events are valid Chrome-trace flows (each
id once as "s" and once as "f" in its category, the "f" binding to the enclosing slice, "s"
not after "f", each end inside an "X" slice of its (pid, tid)), the events marked
"critical": true are exactly the rows of cp.path.csv (by rank, name, start), and the flows
join each path event to the next: the innermost slice of the "s"'s and of the "f"'s
(pid, tid) holding its time (from a slice's start, before its end: where Chrome and
Perfetto bind a flow end) are consecutive path events -- the entries into host events that
started earlier (rank 0's sync at 152.5, its step at 157.5: after their last path child,
before their end) included."""
import csv, json, os, sys

out = sys.argv[1]
events = json.load(open(os.path.join(out, "job.trace.json")))["traceEvents"]
slices = [e for e in events if e.get("ph") == "X"]
flows = [e for e in events if e.get("ph") in ("s", "f")]
own_ids = {e["id"] for e in flows if e.get("cat") != "cp.flows"}
by_id = {}
for e in flows:
    if e.get("cat") != "cp.flows":
        continue
    assert isinstance(e["id"], int) and e["id"] not in own_ids, e
    by_id.setdefault(e["id"], {}).setdefault(e["ph"], []).append(e)
    inside = [x for x in slices if x["pid"] == e["pid"] and x["tid"] == e["tid"]
              and x["ts"] <= e["ts"] <= x["ts"] + x["dur"]]
    assert inside, f"flow end outside any slice: {e}"
for i, ends in by_id.items():
    assert sorted(ends) == ["f", "s"] and len(ends["s"]) == 1 and len(ends["f"]) == 1, (i, ends)
    s, f = ends["s"][0], ends["f"][0]
    assert f.get("bp") == "e" and s["name"] == f["name"], (s, f)
    assert s["ts"] <= f["ts"], f"flow {i} goes back in time"
assert len(by_id) == 6, sorted(by_id)
names = [by_id[i]["s"][0]["name"] for i in sorted(by_id)]
assert names == ["nesting", "launch", "stream", "collective", "sync", "nesting"], names
rank_of = lambda e: e["pid"] // 1000000000 - 1
marked = sorted((rank_of(e), e["name"], e["ts"]) for e in slices if e.get("args", {}).get("critical") is True)
rows = list(csv.DictReader(open(os.path.join(out, "cp.path.csv"))))
path = sorted((int(r["rank"]), r["name"], float(r["start_us"])) for r in rows)
assert marked == path, (marked, path)
assert len(marked) == 7


def innermost(e):
    """The innermost "X" slice of e's (pid, tid) holding e's time."""
    holds = [x for x in slices if x["pid"] == e["pid"] and x["tid"] == e["tid"] and
             x["ts"] <= e["ts"] < x["ts"] + x["dur"]]
    assert holds, f"no slice holds {e}"
    return min(holds, key=lambda x: x["dur"])


key = lambda x: (rank_of(x), x["name"], x["ts"])
steps = [(int(r["rank"]), r["name"], float(r["start_us"])) for r in sorted(rows, key=lambda r: int(r["step"]))]
joined = [(key(innermost(by_id[i]["s"][0])), key(innermost(by_id[i]["f"][0]))) for i in sorted(by_id)]
assert joined == list(zip(steps, steps[1:])), (joined, steps)
print(f"critical_path_overlay: {len(by_id)} flows valid and joining the path's events, {len(marked)} events marked")
