"""predict_models_gemm, independently: every prediction from the op's args by
tests/tools/check_models.py (grouped, scaled and fused-MoE products, variable-length
attention written again in Python), and the hand-computed figures of pipeline.yaml."""
import csv, math, os, sys
sys.path.insert(0, "tests/tools")
import check_models  # noqa: E402

out = sys.argv[1]
trace = "tests/data/hand/predict_models_gemm.json"
assert check_models.check(os.path.join(out, "pred.csv"), trace, "b200") == 7
want = {"scaled_gemm": [7.635497415111111, 61.083979320888886], "grouped_gemm": [20.997617891555553],
        "scaled_grouped_gemm": [2.364416], "fused_moe": [352.4527324448327],
        "attention_fwd": [15.270994830222222], "attention_bwd": [19.088743537777777]}
got = {}
for r in csv.DictReader(open(os.path.join(out, "pred.csv"))):
    got.setdefault(r["model"], []).append(float(r["predicted_us"]))
assert sorted(got) == sorted(want), got
for m, v in want.items():
    assert all(math.isclose(a, b, rel_tol=1e-9) for a, b in zip(sorted(got[m]), v)), (m, got[m])
uns = {r["name"]: r for r in csv.DictReader(open(os.path.join(out, "pred.unsupported.csv")))}
assert sorted(uns) == ["flash_attn::_flash_attn_varlen_forward", "mylib::mxfp4_bmm", "vllm::moe_forward"], uns
rows = {r["category"]: r for r in csv.DictReader(open(os.path.join(out, "pred.categories.csv")))}
assert float(rows["moe"]["modelled_us"]) == 441 and float(rows["moe"]["gpu_us"]) == 741
assert float(rows["attention"]["modelled_us"]) == 90 and float(rows["gemm"]["modelled_us"]) == 92
why = {r["reason"]: r for r in csv.DictReader(open(os.path.join(out, "pred.unmodelled.csv")))}
assert {k: float(r["gpu_us"]) for k, r in why.items()} == {
    "no model for the op (moe)": 300,
    "op without shapes (no Input Dims): GEMM kernel (cublas fp4, tile 256x128x128; no M, N, K in its name)": 100,
    "GPU activity no op launched: GEMM kernel (tensile bf16, tile 256x192x64; no M, N, K in its name)": 20,
    "variable-length attention whose sequences differ in length (cu_seqlens values not recorded)": 15}, why
total = float(rows["(all)"]["gpu_us"])
assert total == 1058 and sum(float(r["gpu_us"]) for r in why.values()) == total - float(rows["(all)"]["modelled_us"])
print("predict_models_gemm: 7 predictions agree; unmodelled time by reason adds up")
