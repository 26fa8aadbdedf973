import subprocess, sys
subprocess.run([sys.executable, "tests/tools/check_nsys.py", "tests/data/nsys/pipit_saxpy_mpi_cuda_perlmutter0.sqlite", sys.argv[1], "--json"], check=True)
