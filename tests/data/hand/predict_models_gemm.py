import json
ops = [
 ("aten::_scaled_mm", [[4096, 8192], [8192, 4096], [4096, 1], [1, 4096], [], [], [], []],
  ["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float", "", "", "Scalar", "Scalar"],
  ["", "", "", "", "", "", "15", "False"], "sm100_xmma_gemm_e4m3e4m3_bf16_f32_tn_n_tilesize128x256x64", 80),
 ("aten::_scaled_mm", [[2048, 4096], [4096, 2048], [2048, 256], [2048, 256], [], [], [], []],
  ["c10::Float4_e2m1fn_x2", "c10::Float4_e2m1fn_x2", "c10::Float8_e8m0fnu", "c10::Float8_e8m0fnu", "", "", "Scalar", "Scalar"],
  ["", "", "", "", "", "", "15", "False"], "nvjet_mxf4_tst_256x128_64x4", 12),
 ("aten::_grouped_mm", [[8192, 2048], [8, 2048, 1408], [8], [], []],
  ["c10::BFloat16", "c10::BFloat16", "int", "", ""], ["", "", "", "", ""],
  "cutlass3x_sm100_bstensorop_grouped_gemm_bf16", 35),
 ("aten::_scaled_grouped_mm", [[4, 512, 1024], [4, 1024, 2048], [4, 512], [4, 2048], [], [], [], [], []],
  ["c10::Float8_e4m3fn", "c10::Float8_e4m3fn", "float", "float", "", "", "", "Scalar", "Scalar"],
  ["", "", "", "", "", "", "", "15", "False"], "cutlass3x_sm100_grouped_gemm_e4m3", 6),
 ("vllm::outplace_fused_experts", [[64, 4096], [8, 28672, 4096], [8, 4096, 14336], [64, 2], [64, 2]],
  ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "float", "int"], ["", "", "", "", ""],
  "fused_moe_kernel", 400),
 ("vllm::moe_forward", [[64, 4096], [64, 8], []], ["c10::BFloat16", "c10::BFloat16", "Scalar"],
  ["", "", "'model.layers.0.mlp.experts'"], "fused_moe_kernel", 300),
 ("flash_attn::_flash_attn_varlen_forward", [[4096, 32, 128], [4096, 8, 128], [4096, 8, 128], [5], [5], [], [], [], [], [], [], [], [], [], []],
  ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "int", "int", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "", "Scalar"],
  ["", "", "", "", "", "1024", "1024", "0.", "0.088", "True", "-1", "-1", "0.", "", "False"], "flash_fwd_kernel", 40),
 ("flash_attn::_flash_attn_varlen_forward", [[3000, 32, 128], [3000, 8, 128], [3000, 8, 128], [4], [4], [], [], [], [], [], [], [], [], [], []],
  ["c10::BFloat16", "c10::BFloat16", "c10::BFloat16", "int", "int", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar", "", "Scalar"],
  ["", "", "", "", "", "1024", "1024", "0.", "0.088", "True", "-1", "-1", "0.", "", "False"], "flash_fwd_kernel", 15),
 ("aten::_flash_attention_backward", [[2048, 16, 64], [2048, 16, 64], [2048, 16, 64], [2048, 16, 64], [2048, 16, 64], [16, 2048], [2], [2], [], [], [], [], [], [], []],
  ["c10::BFloat16"] * 5 + ["float", "int", "int", "Scalar", "Scalar", "Scalar", "Scalar", "long int", "long int", "Scalar"],
  ["", "", "", "", "", "", "", "", "2048", "2048", "0.", "False", "", "", "0.125"], "flash_bwd_kernel", 50),
]
ops.append(("mylib::mxfp4_bmm", None, None, None,
            "sm100_xmma_gemm_e2m1e2m1_bf16_f32_tn_n_tilesize256x128x128_kernel", 100))
ev = []
ts = 100
for i, (name, dims, types, conc, kern, dur) in enumerate(ops, 1):
    args = {"Input Dims": dims, "Input type": types, "Concrete Inputs": conc} if dims else {}
    ev.append({"ph": "X", "cat": "cpu_op", "name": name, "pid": 1, "tid": 1, "ts": ts, "dur": 20,
               "args": args})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1,
               "ts": ts + 2, "dur": 5, "args": {"correlation": i}})
    ev.append({"ph": "X", "cat": "kernel", "name": kern, "pid": 0, "tid": 7, "ts": ts + 8,
               "dur": float(dur), "args": {"device": 0, "stream": 7, "correlation": i}})
    ts += dur + 40
# a kernel whose launch is not in the trace (no op): its name gives type and tile only
ev.append({"ph": "X", "cat": "kernel", "name": "Cijk_Alik_Bljk_BBS_BH_MT256x192x64_MI16x16x1_SN_LDSB1",
           "pid": 0, "tid": 7, "ts": ts + 8, "dur": 20.0, "args": {"device": 0, "stream": 7, "correlation": 999}})
json.dump({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "NVIDIA B200"}],
           "traceEvents": ev}, open("tests/data/hand/predict_models_gemm.json", "w"))
