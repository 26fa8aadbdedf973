#!/usr/bin/env python3
"""Chart defaults (issue 25, item 5) on the hand-made ranks of
pipeline.yaml: the figures drawn are the hand-computed ones of its comment,
recomputed here from the run's CSV files where they come from a result."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../tools"))
import check_svg as cs  # noqa: E402

svgs = cs.check_dir(sys.argv[1])
out = sys.argv[1]


def rows(name):
    return cs.csv_rows(out, name)


def tips(svg, tag):
    return cs.tooltips(svgs[svg], tag)


# pie without columns: shares of time (sum_us), not of count
classes = rows("kernels.classes.csv")
total = sum(float(r["sum_us"]) for r in classes)
want = {r["kernel_class"]: f"{float(r['sum_us']) / total * 100:.1f}%" for r in classes}
if want != {"computation": "66.7%", "communication": "33.3%"}:
    cs.fail(f"kernel classes by time: {want}, hand: computation 66.7%, communication 33.3%")
got = {t.split(": ")[0]: t.split(": ")[1].split(" ")[0] for t in tips("kernel_classes_pie.svg", "path")}
if got != want:
    cs.fail(f"kernel_classes_pie: {got} != {want}")

# no pie of one slice: a line says why, the pie is of the step's parts
labels = cs.labels(svgs["host_pie.svg"])
if "ProfilerStep#1 holds 100.0% of Host runtime (1000 of 1000 us); its parts:" not in labels:
    cs.fail(f"host_pie: no one-slice line in {labels}")
if cs.tooltips(svgs["host_pie.svg"], "circle"):
    cs.fail("host_pie: a full-circle slice drawn")
got = sorted(tips("host_pie.svg", "path"))
want = sorted(["## forward ##: 50.0% (500 us)", "## backward ##: 40.0% (400 us)",
               "Unaccounted: 10.0% (100 us)"])
if got != want:
    cs.fail(f"host_pie slices {got} != {want}")

# one iteration: integral x ticks only
labels = cs.labels(svgs["iterations_line.svg"])
ticks = [t for t in labels if t.replace(".", "").isdigit()]
x_ticks = ticks[ticks.index("1000") + 1:]
if x_ticks != ["0", "1", "2"]:
    cs.fail(f"iterations_line: x ticks {x_ticks}, expected 0, 1, 2")
if [t for t in tips("iterations_line.svg", "circle") if ", " in t] != ["1, 1000"]:
    cs.fail("iterations_line: the one point is not (1, 1000)")

# nothing to draw: "no data" and why, no axes
labels = cs.labels(svgs["empty_line.svg"])
if "no data" not in labels or "result 'none' has no rows" not in labels:
    cs.fail(f"empty_line: {labels}")
if "<path" in open(os.path.join(out, "empty_line.svg")).read():
    cs.fail("empty_line: axes drawn")

# stacked parts add up: comm split into wait and the rest
job = {r["rank"]: r for r in rows("job.csv")}
want = {}
for rank, r in job.items():
    comm, wait = float(r["comm_us"]), float(r["wait_us"])
    want[f"{rank} / compute_us"] = float(r["compute_us"])
    want[f"{rank} / comm_us other than wait_us"] = comm - wait
    want[f"{rank} / wait_us"] = wait
hand = {"0 / compute_us": 300, "0 / comm_us other than wait_us": 120, "0 / wait_us": 30,
        "1 / compute_us": 340, "1 / comm_us other than wait_us": 120, "1 / wait_us": 20}
if want != hand:
    cs.fail(f"ranks: {want} != hand {hand}")
got = {t.rpartition(": ")[0]: cs.number(t.rpartition(": ")[2]) for t in tips("ranks_stacked.svg", "rect")}
if got != hand:
    cs.fail(f"ranks_stacked: {got} != {hand}")
for rank in ("0", "1"):
    drawn = sum(v for k, v in got.items() if k.startswith(rank + " / "))
    r = job[rank]
    if drawn != float(r["compute_us"]) + float(r["comm_us"]):
        cs.fail(f"ranks_stacked: rank {rank} bar {drawn} != compute + comm")
print("svg_defaults: ok")
