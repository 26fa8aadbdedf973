"""diff_hand, independently: the figures of d.* and w.summary recomputed from
the hand-made traces with Python's json and statistics.median (skip_first 1,
as the pipeline's iterations:), and the report holding both traces and the
warnings."""
import csv, json, os, re, statistics, sys

out = sys.argv[1]
H = "tests/data/hand/"
base, test, nosteps = (json.load(open(H + f)) for f in
                       ("diff_base.json", "diff_test.json", "diff_test_nosteps.json"))


def table(name):
    return list(csv.DictReader(open(os.path.join(out, name + ".csv"))))


def step_median(tr):
    d = [e["dur"] for e in tr["traceEvents"] if re.match(r"^ProfilerStep#\d+$", e["name"])]
    return statistics.median(d[1:])  # skip_first: 1


def window(tr):
    ev = tr["traceEvents"]
    return max(e["ts"] + e["dur"] for e in ev) - min(e["ts"] for e in ev)


def calls(tr):
    kinds = {"user_annotation": "annotation", "cuda_runtime": "runtime"}
    agg = {}
    for e in tr["traceEvents"]:
        k = kinds.get(e["cat"])
        if k and not re.match(r"^ProfilerStep#\d+$", e["name"]):
            c, s = agg.get((k, e["name"]), (0, 0))
            agg[(k, e["name"])] = (c + 1, s + e["dur"])
    return agg


def kernels(tr):
    return [e["dur"] for e in tr["traceEvents"] if e["cat"] == "kernel"]


s = {r["measure"]: r for r in table("d.summary")}
b, t = step_median(base), step_median(test)
assert (b, t) == (104, 101.5), (b, t)
it = s["iteration_us"]
assert float(it["base"]) == b and float(it["test"]) == t
assert abs(float(it["delta_percent"]) - 100 * (t - b) / b) < 1e-12
assert it["change"] == "%.2f %% faster" % (100 * (b - t) / b) == "2.40 % faster", it["change"]
n = {r["measure"]: r for r in table("d.counts")}  # integers, written as such
assert int(n["kernel_count"]["base"]) == len(kernels(base)) == 4
assert int(n["kernel_count"]["test"]) == len(kernels(test)) == 5
assert "kernel_count" not in s
assert float(s["kernel_us"]["test"]) == sum(kernels(test)) and s["kernel_us"]["change"] == "25.00 % more"

w = {r["measure"]: r for r in table("w.summary")}
assert "iteration_us" not in w
wb, wt = window(base), window(nosteps)
assert (wb, wt) == (4104, 5073), (wb, wt)
assert float(w["window_us"]["base"]) == wb and float(w["window_us"]["test"]) == wt
assert w["window_us"]["change"] == "%.2f %% slower" % (100 * (wt - wb) / wb)

cb, ct = calls(base), calls(test)
rows = {(r["kind"], r["name"]): r for r in table("d.calls")}
assert set(rows) == set(cb) | set(ct), sorted(rows)
for key, r in rows.items():
    bc, bs = cb.get(key, (0, 0))
    tc, ts = ct.get(key, (0, 0))
    status = "both" if key in cb and key in ct else "base_only" if key in cb else "test_only"
    assert (int(r["base_count"]), int(r["test_count"]), r["status"]) == (bc, tc, status), r
    assert (float(r["base_us"]), float(r["test_us"])) == (bs, ts), r
assert rows[("annotation", "nccl:all_reduce")]["status"] == "base_only"
assert rows[("runtime", "cudaDeviceSynchronize")]["status"] == "test_only"

facts = {r["fact"]: r for r in table("d.facts")}
for tr, side in ((base, "base"), (test, "test")):
    assert facts["device"][side] == tr["deviceProperties"][0]["name"]
    assert facts["world_size"][side] == str(tr["distributedInfo"]["world_size"])
assert facts["device"]["status"] == facts["world_size"]["status"] == "differs"
assert facts["producer"]["status"] == "same"

html = open(os.path.join(out, "report.html")).read()
# both traces a row of the report's traces table (issue 29: a diff lists every trace)
assert '<td class="t">base</td>' in html and '<td class="t">test</td>' in html, "both traces"
assert html.count('<p class="warn"') == 2, "facts and window warnings in the report"
assert "NVIDIA A100-SXM4-80GB vs Tesla V100-SXM2-16GB" in html
print("diff_hand: median %g vs %g us (%s), windows %d vs %d us, %d call rows, device and "
      "world_size differ" % (b, t, it["change"], wb, wt, len(rows)))
