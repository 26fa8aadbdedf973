# HTA's figures, recomputed from the JSON (tests/tools/check_hta_launch.py).
import subprocess, sys
subprocess.run([sys.executable, "tests/tools/check_hta_launch.py",
                "tests/data/kineto/corpus/hta_nccl_data.json.gz", sys.argv[1]], check=True)
