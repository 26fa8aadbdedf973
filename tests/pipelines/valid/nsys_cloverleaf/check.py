import subprocess, sys
subprocess.run([sys.executable, "tests/tools/check_nsys.py", "tests/data/nsys/pipit_cloverleaf_cuda_perlmutter.sqlite", sys.argv[1]], check=True)
