"""Writes predict_calib_types.json: 3 steps on an A100-SXM4-40GB, each with 8 FP32-input
GEMMs that ran as TF32 tensor-core kernels (cutlass s1688gemm) and 8 that ran as FP32 SIMT
kernels (ampere_sgemm), their times on known curves: TF32 2 + 1 x (roofline at the TF32
rate, 156 000 GFLOP/s), FP32 5 + 2 x (roofline at the FP32 rate, 19 500 GFLOP/s); HBM
1 555 GB/s.  tests/pipelines/valid/predict_calib_types recovers both curves."""
import json

SHAPES = [(512, 512, 512), (2048, 2048, 2048), (8192, 64, 8192), (1024, 1024, 1024)]


def bound(m, k, n, peak):
    flops, nbytes = 2.0 * m * n * k, (m * k + k * n + m * n) * 4.0
    return max(flops / peak / 1e3, nbytes / 1555 / 1e3)


ev, ts, corr = [], 0, 0
for step in range(3):
    start = ts
    body = []
    for i in range(16):
        m, k, n = SHAPES[i % 4]
        tf32 = i < 8
        dur = 2 + bound(m, k, n, 156000) if tf32 else 5 + 2 * bound(m, k, n, 19500)
        kname = ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>"
                 if tf32 else "ampere_sgemm_128x64_nn")
        corr += 1
        body.append({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1,
                     "ts": ts + 1, "dur": 20, "args": {"Input Dims": [[m, k], [k, n]],
                                                       "Input type": ["float", "float"]}})
        body.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1,
                     "tid": 1, "ts": ts + 5, "dur": 5, "args": {"correlation": corr}})
        body.append({"ph": "X", "cat": "kernel", "name": kname, "pid": 0, "tid": 7,
                     "ts": ts + 12, "dur": round(dur, 3),
                     "args": {"device": 0, "stream": 7, "correlation": corr}})
        ts += 2000
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (step + 1),
               "pid": 1, "tid": 1, "ts": start, "dur": ts - start - 1})
    ev += body
json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA A100-SXM4-40GB"}],
           "traceEvents": ev}, open("tests/data/hand/predict_calib_types.json", "w"))
