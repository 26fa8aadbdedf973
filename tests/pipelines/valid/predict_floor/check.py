"""predict_floor, independently: the family fallback's warning (the run again),
every prediction from the trace's Input Dims with a100_sxm4_80gb's figures and
its launch floor per kernel, GMAE and coverage from the trace's GPU activity."""
import csv, json, math, os, subprocess, sys, tempfile
F, BW, FLOOR = 19500.0, 2039.0, 1.344
EW = {"add": (1, 3), "relu": (1, 2), "sigmoid": (4, 2)}
out = sys.argv[1]
case = "tests/pipelines/valid/predict_floor/pipeline.yaml"
with tempfile.TemporaryDirectory() as tmp:
    run = subprocess.run([os.environ.get("TP_PIPELINE", "build/pipeline"), "run", case,
                          "--set", "out=" + tmp], capture_output=True, text=True)
assert run.returncode == 0, run.stderr
warning = ("pipeline: warning: [pred] preset a100_sxm4_80gb for the trace's device "
           "'NVIDIA A800-SXM4-80GB': not that part but the nearest preset of its family, whose "
           "figures (bandwidth, clocks, units) may differ; give preset_file: with the device's "
           "own figures to be exact")
assert warning in run.stderr.splitlines(), run.stderr

ev = json.load(open("tests/data/hand/predict_floor.json"))["traceEvents"]
launch = {e["args"]["correlation"]: e for e in ev if e["cat"] == "cuda_runtime"}
ops = [e for e in ev if e["cat"] == "cpu_op"]
work = {}  # op name -> [durations of its kernels]
for k in (e for e in ev if e["cat"] == "kernel"):
    call = launch[k["args"]["correlation"]]
    op = [o for o in ops if o["ts"] <= call["ts"] < o["ts"] + o["dur"]][0]
    work.setdefault(op["name"], []).append(k["dur"])
gpu = sum(e["dur"] for e in ev if e["cat"] in ("kernel", "gpu_memset", "gpu_memcpy"))
errors, modelled = [], 0.0
rows = {r["name"]: r for r in csv.DictReader(open(os.path.join(out, "pred.csv")))}
for o in ops:
    base = o["name"].split("::")[-1]
    if base not in EW:
        continue
    c, a = EW[base]
    s = math.prod(o["args"]["Input Dims"][0])
    model = max(c * s / F / 1000, a * s * 4 / BW / 1000)
    want = max(model, len(work[o["name"]]) * FLOOR)
    got = float(rows[o["name"]]["predicted_us"])
    assert abs(got - want) <= 1e-12 * want, (o["name"], got, want)
    meas = sum(work[o["name"]])
    errors.append(abs(want - meas) / meas)
    modelled += meas
assert float(rows["aten::add"]["predicted_us"]) == 1.344          # below the floor: one kernel
assert float(rows["aten::sigmoid"]["predicted_us"]) == 2 * 1.344  # two kernels
allrow = [r for r in csv.DictReader(open(os.path.join(out, "pred.summary.csv"))) if r["op"] == "(all)"][0]
gmae = math.exp(sum(math.log(e) for e in errors) / len(errors))
assert abs(float(allrow["gmae_percent"]) - 100 * gmae) < 1e-9, (allrow, gmae)
assert abs(float(allrow["coverage_percent"]) - 100 * modelled / gpu) < 1e-9
meta = json.load(open(os.path.join(out, "summary.json")))["results"][0]["meta"]
assert abs(float(meta["coverage_percent"]) - 100 * modelled / gpu) < 1e-9, meta
assert abs(float(meta["gpu_us"]) - gpu) < 1e-9 and meta["preset"] == "a100_sxm4_80gb", meta
assert "the models cover 83.25 % of the GPU time" in meta["title"], meta
