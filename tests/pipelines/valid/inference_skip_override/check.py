import subprocess, sys
out = sys.argv[1]
subprocess.run([sys.executable, "tests/tools/check_inference.py", "tests/data/hand/vllm_serving_steps.json",
                out + "/serving.steps.csv", out + "/serving.phases.csv", "--skip-first", "0", "--skip-last", "1"],
               check=True)
