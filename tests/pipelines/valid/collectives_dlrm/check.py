"""collectives_dlrm: every collective of the 8 DLRM ranks matched on all 8, and each
rank's calls recomputed from its JSON (tests/tools/check_collectives.py); the waits
and skews recomputed from the calls' aligned arrivals in plain Python."""
import csv, os, subprocess, sys
from statistics import median

out = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
root = os.path.abspath(os.path.join(here, "..", "..", "..", ".."))
rows = list(csv.DictReader(open(os.path.join(out, "coll.calls.csv"))))
matched = list(csv.DictReader(open(os.path.join(out, "coll.matched.csv"))))
assert len(rows) == 64, len(rows)
assert len(matched) == 8 and all(m["n_ranks"] == "8" for m in matched), matched
assert all(r["collective"] != "" for r in rows), "a call is not matched"
for r in range(8):
    trace = (f"{root}/tests/data/dlrm_worker0_step12.pt.trace.json.gz" if r == 0 else
             f"{root}/tests/data/kineto/corpus/dlrm_worker{r}_step12.pt.trace.json.gz")
    subprocess.run([sys.executable, f"{root}/tests/tools/check_collectives.py", trace,
                    os.path.join(out, "coll.calls.csv"), f"dlrm_worker{r}_step12"],
                   check=True, stdout=subprocess.DEVNULL)
# arrivals: start_us are from each rank's own t0, so recompute from them the
# clock offsets (median end difference against rank 0) and the waits
by = {}
for r in rows:
    by.setdefault(int(r["collective"]), {})[int(r["rank"])] = r
# t0 differences do not matter: offsets absorb them (median of end differences)
off = {}
for rank in range(8):
    d = [float(by[c][rank]["start_us"]) + float(by[c][rank]["dur_us"])
         - float(by[c][0]["start_us"]) - float(by[c][0]["dur_us"]) for c in by]
    off[rank] = median(d)
for c, members in by.items():
    arr = {k: float(v["start_us"]) - off[k] for k, v in members.items()}
    last, first = max(arr.values()), min(arr.values())
    for k, v in members.items():
        assert abs(float(v["wait_us"]) - (last - arr[k])) < 1e-6, (c, k, v["wait_us"], last - arr[k])
        assert abs(float(v["skew_us"]) - (last - first)) < 1e-6
print("collectives_dlrm: 8 collectives x 8 ranks matched; sizes, bandwidths, waits checked")
