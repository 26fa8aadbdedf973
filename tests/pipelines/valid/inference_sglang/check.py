import subprocess, sys
out = sys.argv[1]
subprocess.run([sys.executable, "tests/tools/check_inference.py", "tests/data/hand/sglang_serving_steps.json",
                out + "/serving.steps.csv", out + "/serving.phases.csv"], check=True)
