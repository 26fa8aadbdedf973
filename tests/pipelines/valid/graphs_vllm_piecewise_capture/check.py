"""Recomputes the vLLM piecewise step's graph attribution from the raw JSON
(tests/tools/check_graphs.py, with the capture trace)."""
import subprocess, sys
sys.exit(subprocess.call([sys.executable, "tests/tools/check_graphs.py",
                          "tests/data/kineto/corpus/tracelens_vllm_prefilldecode_piecewise.json.gz", sys.argv[1],
                          "tests/data/kineto/capture/tracelens_vllm_prefilldecode_piecewise_capture_rank0.pt.trace.json.gz"]))
