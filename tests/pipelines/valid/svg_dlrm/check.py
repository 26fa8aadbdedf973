#!/usr/bin/env python3
"""The DLRM charts: valid, rendered, no overlapping labels, and the values
they draw are the ones in the CSV files the same run wrote."""
import csv
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../tools"))
import check_svg as cs  # noqa: E402

out = sys.argv[1]
svgs = cs.check_dir(out)


def rows(name):
    with open(os.path.join(out, name), newline="") as f:
        return list(csv.DictReader(f))


def close(drawn, want, tol, what):
    if abs(drawn - want) > tol:
        cs.fail(f"{what}: drawn {drawn}, expected {want}")


def titled(svg, tag="rect"):
    """{label: value} from the tooltips 'LABEL: VALUE unit'."""
    out = {}
    for t in cs.tooltips(svgs[svg], tag):
        label, _, value = t.rpartition(": ")
        if label:
            out[label] = cs.number(value)
    return out


# pie: no pie of one slice.  The root's children are ProfilerStep#10 (99.7 %
# of the host runtime: one step) and two slivers, so the writer says so and
# draws ProfilerStep#10's children instead, as percent of their sum
host = rows("host.csv")
kids = [r for r in host if r["depth"] == "1"]
total = sum(float(r["time_us"]) for r in kids)
step = max(kids, key=lambda r: float(r["time_us"]))
share = float(step["time_us"]) / total * 100
if share < 99:
    cs.fail(f"host_pie: the case expects one step holding >= 99 % ({share:.1f} %)")
note = f"{step['name']} holds {share:.1f}% of Host runtime"
if not any(t.startswith(note) for t in cs.labels(svgs["host_pie.svg"])):
    cs.fail(f"host_pie: no line '{note} ...'")
if any(t.startswith(step["name"] + ": ") for t in cs.tooltips(svgs["host_pie.svg"], "path")):
    cs.fail("host_pie: a pie slice of the one step drawn")
parts = [r for r in host if r["depth"] == "2" and r.get("parent_id") == step["id"]]
ptotal = sum(float(r["time_us"]) for r in parts)
for r in parts:
    tip = [t for t in cs.tooltips(svgs["host_pie.svg"], "path") if t.startswith(r["name"] + ": ")]
    if not tip:
        continue  # folded into Others (top 8... of the step's children)
    pct = float(tip[0].split(": ")[1].split("%")[0])
    close(pct, float(r["time_us"]) / ptotal * 100, 0.051, f"host_pie {r['name']} percent")
if not any(t.startswith("## forward ##: 31.1%") for t in cs.tooltips(svgs["host_pie.svg"], "path")):
    cs.fail("host_pie: no pie of ProfilerStep#10's parts (## forward ## 31.1 %)")
# depth 2: then a pie of ## backward ##'s children
if not any(t.startswith("autograd::engine::evaluate_function: AddmmBackward0: ")
           for t in cs.tooltips(svgs["host_pie.svg"], "path")):
    cs.fail("host_pie: no second-level pie (## backward ##'s children)")

# stacked percent bars: active share per stream
bars = titled("streams_active.svg")
for r in rows("device.streams.csv"):
    close(bars[f"{r['stream']} / active_us"], float(r["active_percent"]), 0.051,
          f"stream {r['stream']} active percent")

# op mix per stream (tree, level 1): each child's time
tree = rows("device.tree.csv")
mix = titled("stream_ops.svg")
by_id = {r["id"]: r for r in tree}
checked = 0
for r in tree:
    if r["depth"] != "2" or r["name"] == "Others":
        continue
    parent = by_id[r["parent_id"]]
    key = f"{by_id[parent['parent_id']]['name']} / {parent['name']} / {r['name']}"
    if key in mix:
        close(mix[key], float(r["time_us"]), 0.51, key)
        checked += 1
if checked < 8:
    cs.fail(f"stream_ops: only {checked} parts matched the tree")

# kernel mix per op: the kept (op, kernel) pairs
ops = rows("kernels.ops.csv")
drawn = titled("kernel_mix.svg")
pairs = 0
for r in ops:
    key = f"{r['op']} / {r['name']}"
    if key in drawn:
        close(drawn[key], float(r["sum_us"]), 0.51, key)
        pairs += 1
if pairs < 5:
    cs.fail(f"kernel_mix: only {pairs} (op, kernel) parts matched")

# histogram of T1 gaps: percent per bucket
hist = titled("t1_histogram.svg")
for r in rows("overheads.t1_histogram.csv"):
    lo, hi = float(r["lo_us"]), float(r["hi_us"])
    key = f"{lo:.0f}-{hi:.0f}"
    close(hist.get(key, 0.0), float(r["percent"] or 0), 0.051, f"T1 bucket {key}")

# error bars: the 8 largest means, with their std as whiskers
kernels = rows("kernels.csv")
top8 = sorted(kernels, key=lambda r: -float(r["mean_us"]))[:8]
err = titled("kernels_error_bar.svg")
if len(err) != 8:
    cs.fail(f"kernels_error_bar: {len(err)} bars, expected 8")
for r in top8:
    close(err[r["name"]], float(r["mean_us"]), 0.051 * max(1, float(r["mean_us"])), r["name"])
whiskers = [p for p in svgs["kernels_error_bar.svg"].iter(cs.NS + "path")]
if len([r for r in top8 if float(r["std_us"] or 0) > 0]) != len(whiskers):
    cs.fail("kernels_error_bar: one whisker per kernel with a std")

# vertical bars: top 6 by sum and Others = the rest
bars = titled("kernels_bar.svg")
by_sum = sorted(kernels, key=lambda r: -float(r["sum_us"]))
for r in by_sum[:6]:
    close(bars[r["name"]], float(r["sum_us"]), 0.51, r["name"])
close(bars["Others"], sum(float(r["sum_us"]) for r in by_sum[6:]), 0.51, "Others")

# timeline: a lane per host thread with ops and per GPU stream
lanes = [t for t in cs.labels(svgs["timeline.svg"]) if t.startswith(("thread ", "GPU "))]
streams = {f"GPU {r['device']} stream {r['stream']}" for r in rows("device.streams.csv")}
if not streams <= set(lanes) or len(lanes) != len(streams) + 2:
    cs.fail(f"timeline lanes {lanes}")
print("svg_dlrm: ok")
