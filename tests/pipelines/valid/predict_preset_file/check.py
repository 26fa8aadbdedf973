#!/usr/bin/env python3
"""preset_file: the v100_seed figures as YAML give the seed preset's table
exactly; TraceLens's MI300X file keeps the bandwidth of preset mi300x
(5300 GB/s: element-wise predictions equal) and lowers the FLOP rates to
the measured ones (GEMM predictions longer, by at most the rate ratio)."""
import csv
import os
import sys

out = sys.argv[1]


def read(name):
    with open(os.path.join(out, name + ".csv"), newline="") as f:
        return list(csv.DictReader(f))


if read("seed") != read("yaml"):
    sys.exit("yaml preset_file differs from preset v100_seed")
a, b = read("preset_mi300x"), read("tracelens")
assert len(a) == len(b) and len(a) > 20, (len(a), len(b))
gemm = embedding = 0
for x, y in zip(a, b):
    assert (x["name"], x["input_dims"]) == (y["name"], y["input_dims"])
    px, py = float(x["predicted_us"]), float(y["predicted_us"])
    if x["model"] in ("elementwise", "adagrad"):  # bandwidth-bound: the same 5300 GB/s
        assert px == py, (x, y)
        embedding += x["model"] == "adagrad"
    elif x["name"] in ("aten::mm", "aten::addmm", "aten::bmm"):
        gemm += 1
        # fp32 GEMMs: the preset's fp32 is 163400 GFLOP/s, the file's
        # vector_fp32 81 TFLOP/s, so at most 163400/81000 times longer
        assert py >= px * (1 - 1e-12), (x, y)
        assert py <= px * 163400 / 81000 * (1 + 1e-9), (x, y)
assert gemm >= 3 and embedding == 2, (gemm, embedding)
print("predict_preset_file: ok")
