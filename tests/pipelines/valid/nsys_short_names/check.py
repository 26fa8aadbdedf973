import os, shutil, subprocess, sys, tempfile
out = sys.argv[1]
subprocess.run([sys.executable, "tests/tools/check_nsys.py", "tests/data/nsys/pipit_cloverleaf_cuda_perlmutter.sqlite", out, "--short"], check=True)
with tempfile.TemporaryDirectory() as d:  # the JSON-lines reader's outputs, under the names check_nsys reads
    for f in ("ks", "info"):
        shutil.copy(os.path.join(out, "json_%s.csv" % f), os.path.join(d, "%s.csv" % f))
    subprocess.run([sys.executable, "tests/tools/check_nsys.py", "tests/data/nsys/pipit_saxpy_mpi_cuda_perlmutter0.sqlite", d, "--json", "--short"], check=True)
