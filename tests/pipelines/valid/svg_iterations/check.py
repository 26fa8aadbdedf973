#!/usr/bin/env python3
"""Charts of HTA's trace-diff control trace: valid, rendered, no overlapping
labels, and the drawn values are those of the run's CSV files (the
histogram recounted here from kernels.csv)."""
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


# line: every point of the three series, in iteration order
its = rows("iterations.csv")
points = [t for t in cs.tooltips(svgs["iterations_line.svg"], "circle") if ", " in t]
want = [f"{int(r['iteration'])}, {float(r[c]):.0f}" for c in ("dur_us", "gpu_busy_us", "gpu_span_us")
        for r in its]
if points != want:
    cs.fail(f"line points {points} != {want}")

# histogram: round buckets over the kernel means, counted again here
means = [float(r["mean_us"]) for r in rows("kernels.csv")]
bars = {}
for t in cs.tooltips(svgs["kernel_means_histogram.svg"], "rect"):
    label, _, value = t.rpartition(": ")
    bars[label] = cs.number(value)
labels = [t for t in cs.labels(svgs["kernel_means_histogram.svg"]) if "-" in t and t[0].isdigit()]
edges = []
for lab in labels:
    lo, hi = (float(x) for x in lab.split("-"))
    edges.append((lo, hi, lab))
if edges[0][0] > min(means) or edges[-1][1] <= max(means):
    cs.fail(f"histogram buckets {edges[0]}..{edges[-1]} miss the range of the means")
for lo, hi, lab in edges:
    n = sum(1 for m in means if lo <= m < hi)
    close(bars.get(lab, 0), n, 0, f"bucket {lab}")
if sum(bars.values()) != len(means):
    cs.fail("histogram: not every kernel counted once")

# pie of a flat table: shares of sum_us
classes = rows("kernels.classes.csv")
total = sum(float(r["sum_us"]) for r in classes)
slices = {t.split(": ")[0]: t for t in cs.tooltips(svgs["kernel_classes_pie.svg"], "path")}
for r in classes:
    pct = float(slices[r["kernel_class"]].split(": ")[1].split("%")[0])
    close(pct, float(r["sum_us"]) / total * 100, 0.051, r["kernel_class"])

# timeline of step 1010: its lanes and an axis that ends within the step
root = svgs["timeline_step1010.svg"]
texts = cs.labels(root)
if "Timeline of iteration 1010" not in texts:
    cs.fail("timeline title")
step = [r for r in its if r["iteration"] == "1010"][0]
ticks = [float(t) for t in texts if t.replace(".", "").isdigit()]
if max(ticks) > float(step["dur_us"]) / 1000 or max(ticks) < float(step["dur_us"]) / 1000 - 20:
    cs.fail(f"timeline axis ends at {max(ticks)} ms, step lasts {step['dur_us']} us")
for lane in ("GPU 3 stream 7", "GPU 3 stream 20", "GPU 3 stream 21", "GPU 3 stream 22"):
    if lane not in texts:
        cs.fail(f"timeline: no lane {lane}")
print("svg_iterations: ok")
