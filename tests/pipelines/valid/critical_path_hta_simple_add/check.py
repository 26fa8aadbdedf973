# HTA's own overlaid critical path, compared event by event (tests/tools/check_critical_path.py).
import subprocess, sys
subprocess.run([sys.executable, "tests/tools/check_critical_path.py",
                "tests/data/kineto/corpus/hta_simple_add.json.gz",
                "tests/data/kineto/corpus/hta_simple_add_overlaid_critical_path.json.gz",
                sys.argv[1]], check=True)
