"""counters_cupti_hta: every row of cnt.kernels recomputed from the trace's JSON:
the i-th cuda_profiler_range event by time is the kernel of the i-th
cudaLaunchKernel call by time (HTA's cupti_counter_analysis); its ops are the
cpu_op events around the call on the call's thread (outermost and innermost);
its counters are the range's args.  And HTA's own test figures."""
import csv, gzip, json, os, sys

out = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
trace = os.path.join(here, "..", "..", "..", "data", "kineto", "hta_cupti_profiler.json.gz")
ev = json.load(gzip.open(trace))["traceEvents"]
ranges = sorted((e for e in ev if e.get("cat") == "cuda_profiler_range"), key=lambda e: e["ts"])
calls = sorted((e for e in ev if e.get("cat") == "cuda_runtime" and e["name"] == "cudaLaunchKernel"),
               key=lambda e: e["ts"])
ops = [e for e in ev if e.get("cat") == "cpu_op" and e.get("ph") == "X"]
assert len(ranges) == len(calls) == 77
rows = list(csv.DictReader(open(os.path.join(out, "cnt.kernels.csv"))))
assert len(rows) == 77, len(rows)
sass = ["smsp__sass_thread_inst_executed_op_%s_pred_on.sum" % o
        for o in ["ffma", "fmul", "fadd", "hfma", "hmul", "hadd", "dfma", "dmul", "dadd"]]
assert list(rows[0].keys())[7:16] == sass, list(rows[0].keys())
for r, g, call in zip(rows, ranges, calls):
    around = [o for o in ops if o["pid"] == call["pid"] and o["tid"] == call["tid"]
              and o["ts"] <= call["ts"] and call["ts"] + call["dur"] <= o["ts"] + o["dur"]]
    around.sort(key=lambda o: (o["ts"], -o["dur"]))
    assert r["source"] == "cuda_profiler_range" and r["kernel"] == g["name"], r
    assert float(r["start_us"]) - float(rows[0]["start_us"]) == g["ts"] - ranges[0]["ts"], r
    assert float(r["dur_us"]) == g["dur"], r
    assert r["op"] == around[0]["name"] and r["inner_op"] == around[-1]["name"], (r["op"], around)
    for k in sass:
        assert float(r[k]) == g["args"][k], (k, r[k], g["args"][k])
fifth = rows[5]
assert "fft2d_r2c_32x32" in fifth["kernel"]
assert float(fifth["smsp__sass_thread_inst_executed_op_fadd_pred_on.sum"]) == 86114304
assert fifth["op"] == "aten::conv2d" and fifth["inner_op"] == "aten::cudnn_convolution"
print("counters_cupti_hta: 77 kernels paired, ops and 9 counters each as HTA's")
