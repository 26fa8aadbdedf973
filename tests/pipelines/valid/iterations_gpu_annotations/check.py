import subprocess, sys
T = "tests/data/kineto/corpus/hta_gpu_user_annotation_step_based.json.gz"
for csvname, mode in (("gpu.csv", "gpu"), ("host.csv", "host")):
    subprocess.run([sys.executable, "tests/tools/check_iterations.py", T, sys.argv[1] + "/" + csvname,
                    r"^Optimizer\.step", mode], check=True)
