"""Recomputes the SGLang decode step's graph attribution from the raw JSON
(tests/tools/check_graphs.py, with the capture trace)."""
import subprocess, sys
sys.exit(subprocess.call([sys.executable, "tests/tools/check_graphs.py",
                          "tests/data/kineto/corpus/tracelens_sglang_decode_graphs.json.gz", sys.argv[1],
                          "tests/data/kineto/capture/tracelens_sglang_decode_capture_bs32_rank0.json.gz"]))
