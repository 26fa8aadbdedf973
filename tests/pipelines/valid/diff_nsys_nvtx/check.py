"""diff_nsys_nvtx, independently: the median of the `saxpy` NVTX ranges read
from the SQLite export with sqlite3, and the facts diff reports."""
import csv, os, sqlite3, statistics, sys

out = sys.argv[1]
db = sqlite3.connect("file:tests/data/nsys/pipit_saxpy_mpi_cuda_perlmutter0.sqlite?mode=ro", uri=True)
durs = [e - s for s, e in db.execute("SELECT start, end FROM NVTX_EVENTS WHERE text = 'saxpy'")]
med = statistics.median(durs) / 1000.0
s = {r["measure"]: r for r in csv.DictReader(open(os.path.join(out, "d.summary.csv")))}
assert len(durs) == 5 and abs(float(s["iteration_us"]["base"]) - med) < 1e-9, (durs, s)
assert s["iteration_us"]["change"] == "unchanged"
f = {r["fact"]: r for r in csv.DictReader(open(os.path.join(out, "d.facts.csv")))}
assert (f["producer"]["base"], f["producer"]["test"], f["producer"]["status"]) == ("nsys-sqlite", "nsys-json", "differs")
assert f["iterations"]["base"] == f["iterations"]["test"] == "5"
print("diff_nsys_nvtx: median of %d NVTX saxpy ranges %.3f us" % (len(durs), med))
