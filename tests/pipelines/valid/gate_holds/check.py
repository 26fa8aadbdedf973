"""Independent check of the gates' figures on the DLRM rank-0 step: the NCCL
kernels' launches and time from the trace's "cat": "kernel" events, against
nccl.csv and against the thresholds of the gates (which must hold here, and
trip 2 us tighter: tests/pipelines/invalid/gate_trips); then the command
under test run with --fail-if on both sides of the total."""
import csv, gzip, json, os, subprocess, sys
from collections import defaultdict

ev = json.load(gzip.open("tests/data/dlrm_worker0_step12.pt.trace.json.gz"))["traceEvents"]
total, count = defaultdict(float), defaultdict(int)
for e in ev:
    if e.get("cat") == "kernel" and "nccl" in e["name"]:
        total[e["name"]] += e["dur"]
        count[e["name"]] += 1
assert sum(total.values()) == 5798, total
assert max(total.values()) == 3999 and max(count.values()) == 5, (total, count)
rows = {r["name"]: r for r in csv.DictReader(open(os.path.join(sys.argv[1], "nccl.csv")))}
assert set(rows) == set(total), rows.keys()
for name in total:
    assert float(rows[name]["sum_us"]) == total[name] and int(rows[name]["count"]) == count[name]
pipeline = os.environ.get("TP_PIPELINE", "build/pipeline")
here = "tests/pipelines/valid/gate_holds/pipeline.yaml"
for limit, want in ((5798, 0), (5797, 3)):
    gate = 'sum(k[name=~"nccl"].sum_us) > %d' % limit
    rc = subprocess.run([pipeline, "run", here, "-q", "--set", "out=" + sys.argv[1], "--fail-if", gate],
                        stderr=subprocess.PIPE, text=True)
    assert rc.returncode == want, (gate, rc.returncode, rc.stderr)
    assert want == 0 or "sum(k[name=~\"nccl\"].sum_us) = 5798;" in rc.stderr, rc.stderr
print("gate_holds: NCCL 3999 + 1799 = 5798 us, the gates hold at 5798 and trip at 5797")
