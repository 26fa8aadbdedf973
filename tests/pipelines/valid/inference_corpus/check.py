import subprocess, sys
out = sys.argv[1]
for trace, id in (("tracelens_vllm_decode_full", "vd"), ("tracelens_vllm_prefilldecode_piecewise", "vm"),
                  ("tracelens_sglang_qwen3_8b_decode", "sd"), ("tracelens_sglang_qwen3_8b_prefilldecode", "sp")):
    subprocess.run([sys.executable, "tests/tools/check_inference.py",
                    "tests/data/kineto/corpus/%s.json.gz" % trace,
                    "%s/%s.steps.csv" % (out, id), "%s/%s.phases.csv" % (out, id)], check=True)
