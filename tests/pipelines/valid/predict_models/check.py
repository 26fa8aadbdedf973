"""predict_models, independently: every prediction from the op's args by
tests/tools/check_models.py (the formulas written again in Python), and the
categories' GPU time and coverage from the trace: each kernel to the op whose
launch it is under, its category by the op's name (an NCCL kernel: communication;
no op: other)."""
import csv, json, math, os, sys
sys.path.insert(0, "tests/tools")
import check_models  # noqa: E402

out = sys.argv[1]
trace = "tests/data/hand/predict_models.json"
assert check_models.check(os.path.join(out, "pred.csv"), trace, "h100_sxm5_80gb") == 16
ev = json.load(open(trace))["traceEvents"]
launch = {e["args"]["correlation"]: e for e in ev if e["cat"] == "cuda_runtime"}
ops = [e for e in ev if e["cat"] == "cpu_op"]
CAT = {"aten::_flash_attention_forward": "attention", "aten::_flash_attention_backward": "attention",
       "aten::_scaled_dot_product_efficient_attention": "attention",
       "aten::native_layer_norm": "norm", "aten::native_layer_norm_backward": "norm",
       "aten::copy_": "elementwise", "aten::fill_": "elementwise", "aten::tanh_backward": "elementwise",
       "aten::cat": "elementwise", "record_param_comms": "communication",
       "aten::cudnn_convolution": "conv", "aten::convolution_backward": "conv",
       "aten::_embedding_bag": "other", "aten::index_select": "other",
       "aten::native_group_norm": "norm", "aten::native_group_norm_backward": "norm",
       "aten::cudnn_batch_norm_backward": "norm", "aten::_fused_rms_norm_backward": "norm"}
gpu, per_op = {}, {}
for k in (e for e in ev if e["cat"] == "kernel"):
    call = launch[k["args"]["correlation"]]
    op = [o for o in ops if o["ts"] <= call["ts"] < o["ts"] + o["dur"]]
    cat = "communication" if k["name"].startswith("nccl") else CAT[op[0]["name"]] if op else "other"
    gpu[cat] = gpu.get(cat, 0) + k["dur"]
    if op:
        per_op.setdefault(id(op[0]), [op[0], 0])[1] += k["dur"]
modelled = {}
for r in csv.DictReader(open(os.path.join(out, "pred.csv"))):
    modelled[CAT[r["name"]]] = modelled.get(CAT[r["name"]], 0) + int(r["count"]) * float(r["measured_us"])
rows = {r["category"]: r for r in csv.DictReader(open(os.path.join(out, "pred.categories.csv")))}
total = sum(gpu.values())
for cat, us in gpu.items():
    r = rows[cat]
    assert math.isclose(float(r["gpu_us"]), us), (cat, r, us)
    assert math.isclose(float(r["modelled_us"]), modelled.get(cat, 0), abs_tol=1e-9), (cat, r)
    assert math.isclose(float(r["coverage_percent"]), 100 * modelled.get(cat, 0) / us, abs_tol=1e-9)
    assert math.isclose(float(r["share_percent"]), 100 * us / total)
allrow, nocomm = rows["(all)"], rows["(without communication)"]
assert math.isclose(float(allrow["gpu_us"]), total) and total == 1235
assert math.isclose(float(allrow["coverage_percent"]), 100 * 1150 / 1235)
assert math.isclose(float(nocomm["coverage_percent"]), 100 * 1150 / 1185)
# GMAE of attention over its three predicted calls
preds = {(r["name"], r["input_dims"]): r for r in csv.DictReader(open(os.path.join(out, "pred.csv")))}
errs = [float(r["error_percent"]) / 100 for r in preds.values() if CAT[r["name"]] == "attention"]
assert math.isclose(float(rows["attention"]["gmae_percent"]),
                    100 * math.exp(sum(map(math.log, errs)) / len(errs)), rel_tol=1e-12)
print("predict_models: categories and", len(preds), "predictions agree")
