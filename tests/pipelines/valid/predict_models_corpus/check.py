"""predict_models_corpus: on every corpus trace with shapes, each prediction of
the issue-27 models (attention, norms, element-wise by bytes) equals
tests/tools/check_models.py's, computed again from the op's args; and the
categories add up to the trace's GPU activity time."""
import csv, gzip, json, math, os, subprocess, sys, tempfile
sys.path.insert(0, "tests/tools")
import check_launch  # noqa: E402
import check_models  # noqa: E402

C = "tests/data/kineto/corpus/"
TRACES = [(C + "tracelens_h100_bert_small.json.gz", "h100_sxm5_80gb"),
          (C + "hta_trace_diff_control.json.gz", "a100_sxm4_40gb"),
          ("tests/data/dlrm_worker0_step12.pt.trace.json.gz", "v100_sxm2")] + \
         [(C + "dlrm_worker%d_step12.pt.trace.json.gz" % r, "v100_sxm2") for r in range(1, 8)]
checked = launches = 0
for trace, preset in TRACES:
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run([os.environ.get("TP_PIPELINE", "build/pipeline"), "run", "predict",
                              "--set", "trace=" + trace, "--set", "out=" + tmp, "-q"],
                             capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        checked += check_models.check(os.path.join(tmp, "predict.csv"), trace, preset)
        launches += check_launch.check(os.path.join(tmp, "predict.csv"), trace)
        rows = {r["category"]: r for r in csv.DictReader(open(os.path.join(tmp, "predict.categories.csv")))}
        ev = json.load(gzip.open(trace))["traceEvents"]
        gpu = sum(e["dur"] for e in ev if e.get("ph") == "X" and e.get("cat") in
                  ("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"))
        cats = sum(float(r["gpu_us"]) for k, r in rows.items() if not k.startswith("("))
        assert math.isclose(cats, gpu, rel_tol=1e-9) and math.isclose(float(rows["(all)"]["gpu_us"]), gpu, rel_tol=1e-9), (trace, cats, gpu)
assert checked > 100, checked
# DLRM ranks 1 and 3: 24 Adam kernels each whose launches precede the trace, by identical launch
assert launches == 48, launches
print("predict_models_corpus: %d rows of the new models agree, %d kernels by identical launch"
      % (checked, launches))
