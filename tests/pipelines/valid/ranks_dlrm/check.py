"""ranks, independently (Python's json): per rank the k-th nccl kernels in
start order; offset = median of (end_k - rank 0's end_k) as np.median (an
even count's is the mean of the two middles: times in half nanoseconds);
wait at k = the latest aligned start minus the rank's; the straggler arrives
last most often; its evidence row recomputed the same way."""
import csv, gzip, json, os, sys
C = "tests/data/kineto/corpus/"
def paths(late):
    p = ["tests/data/dlrm_worker0_step12.pt.trace.json.gz"] + [C + "dlrm_worker%d_step12.pt.trace.json.gz" % r for r in range(1, 8)]
    if late:
        p[2] = C + "dlrm_worker2_step12_late.pt.trace.json.gz"
    return p
def comm(path):
    ev = json.load(gzip.open(path))["traceEvents"]
    k = [e for e in ev if e.get("cat") == "kernel" and (e["name"].startswith("nccl") or "ncclKernel" in e["name"])]
    return sorted((round(e["ts"] * 1000), round((e["ts"] + e["dur"]) * 1000)) for e in k)
def expect(late):
    c = [comm(p) for p in paths(late)]
    n = min(len(x) for x in c)
    off2 = []  # twice the median, in ns: half nanoseconds
    for r in range(8):
        d = sorted(c[r][k][1] - c[0][k][1] for k in range(n))
        off2.append(2 * d[n // 2] if n % 2 else d[n // 2 - 1] + d[n // 2])
    wait, last, caused = [0] * 8, [0] * 8, [0] * 8
    for k in range(n):
        a = [2 * c[r][k][0] - off2[r] for r in range(8)]
        m = max(a)
        who = a.index(m)
        last[who] += 1
        for r in range(8):
            wait[r] += m - a[r]
            caused[who] += m - a[r]
    return [w / 2000 for w in wait], last, [x / 2000 for x in caused], n
out = sys.argv[1]
for name, late, who in (("job", False, 7), ("slow2", True, 2)):
    wait, last, caused, n = expect(late)
    rows = list(csv.DictReader(open(os.path.join(out, name + ".csv"))))
    for r in rows:
        i = int(r["rank"])
        assert abs(float(r["wait_us"]) - wait[i]) < 1e-9, (name, i, r["wait_us"], wait[i])
        assert int(r["last_arrivals"]) == last[i], (name, i)
        assert (r["straggler"] == "yes") == (i == who), (name, i)
    [s] = list(csv.DictReader(open(os.path.join(out, name + ".straggler.csv"))))
    # counts are integers in the file ("7", never "7.0")
    assert (s["rank"], s["collectives"], s["last_arrivals"]) == (str(who), str(n), str(last[who])), s
    others = sorted(wait[i] for i in range(8) if i != who)
    assert float(s["others_median_wait_us"]) == others[3], (s, others)
    assert abs(float(s["others_waited_for_it_us"]) - caused[who]) < 1e-9, (s, caused[who])
merged = json.load(open(os.path.join(out, "job.trace.json")))["traceEvents"]
want = 0
for r, p in enumerate(paths(False)):
    ev = json.load(gzip.open(p))["traceEvents"]
    names = [e for e in ev if e.get("ph") == "M" and e.get("name") == "process_name"]
    want += len(ev) - len(names)
    mine = [e for e in merged if e.get("ph") == "M" and e.get("name") == "process_name"
            and isinstance(e["pid"], int) and e["pid"] // 10**9 == r + 1]
    assert mine and all(e["args"]["name"].startswith("rank %d: " % r) for e in mine), r
    orig = {e["pid"]: e["args"]["name"] for e in names}
    for e in mine:
        p0 = e["pid"] - (r + 1) * 10**9
        if p0 in orig:
            assert e["args"]["name"] == "rank %d: %s" % (r, orig[p0]), (r, e)
others = [e for e in merged if not (e.get("ph") == "M" and e.get("name") == "process_name")]
assert len(others) == want, (len(others), want)
print("ranks_dlrm: straggler 7 in the job, 2 in the late copy; waits and arrivals checked")
