"""Recomputes launch_stats' per-launch table of the saxpy export from the
SQLite file: for each runtime call (class 0) with GPU work of the same
correlation id, the GPU row's name and the innermost NVTX push/pop or
start/end range (eventType 59/60) on the call's thread that holds it."""
import csv, os, sqlite3, sys

db = sqlite3.connect("file:tests/data/nsys/pipit_saxpy_mpi_cuda_perlmutter0.sqlite?mode=ro", uri=True)
S = dict(db.execute("SELECT id, value FROM StringIds"))
KINDS = {1: "HtoD", 2: "DtoH", 8: "DtoD", 10: "PtoP"}
gpu = {}
for corr, sid in db.execute("SELECT correlationId, demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL"):
    gpu[corr] = S[sid]
for corr, k in db.execute("SELECT correlationId, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY"):
    gpu[corr] = "Memcpy " + KINDS.get(k, "Unknown")
ranges = [(s, e, g, t if t is not None else S.get(tid)) for s, e, g, t, tid in db.execute(
    "SELECT start, end, globalTid, text, textId FROM NVTX_EVENTS WHERE eventType IN (59, 60)")]
want = {}
for corr, s, e, g in db.execute("SELECT correlationId, start, end, globalTid FROM "
                                "CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 0"):
    if corr not in gpu:
        continue
    inside = [r for r in ranges if r[2] == g and r[0] <= s and e <= r[1]]
    inner = max(inside, key=lambda r: r[0])[3] if inside else ""
    want[corr] = (gpu[corr], inner)
got = {int(r["correlation"]): (r["name"], r["range"])
       for r in csv.DictReader(open(os.path.join(sys.argv[1], "ls.launches.csv")))}
assert got == want, (sorted(got.items()), sorted(want.items()))
print("nsys_launches: %d launches, ranges checked" % len(got))
