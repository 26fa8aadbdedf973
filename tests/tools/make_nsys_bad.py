#!/usr/bin/env python3
"""Small hostile Nsight Systems SQLite exports for tests/bad (issue 32),
built at test time by a case's `setup` (never committed as binaries).

usage: make_nsys_bad.py OUT.sqlite CASE
CASE:
  rows        two good kernels (k_good: 100 ns at 1000, 300 ns at 2000) and
              damaged rows: end before start, text in start, 1e400 in end,
              deviceId 2^40, contextId INT64_MAX (kept: no overflow), a
              kernel whose name id is not in StringIds, a kernel named
              "k\\0a" and one "k\\0b" (NUL bytes)
  generated   StringIds.value a generated column (the input's code)
  big_id      string ids 2^28 (no 2 GiB table) and 2^40, a kernel named by each
  span        two kernels at -9e18 and +9e18 ns (each fits, the span not)
  wal         one kernel, written in WAL mode, the rows left in OUT-wal
  nvtx N      N NVTX push/pop ranges, each in its own domain (lookups)
"""
import os, sqlite3, sys

out, case = sys.argv[1], sys.argv[2]
for suffix in ("", "-wal", "-shm", "-journal"):
    if os.path.exists(out + suffix):
        os.remove(out + suffix)
db = sqlite3.connect(out)
if case == "wal":
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA wal_autocheckpoint=0")
if case == "generated":
    db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, seed TEXT, value TEXT GENERATED "
               "ALWAYS AS (substr(replace(printf('%.*c', 20000000, 'x'), 'x', seed), 1, 40)) VIRTUAL)")
else:
    db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
db.execute("CREATE TABLE EXPORT_META_DATA (name TEXT NOT NULL, value TEXT)")
db.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT "
           "NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT "
           "NULL, correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL, "
           "shortName INTEGER NOT NULL, registersPerThread INTEGER, gridX INTEGER, gridY INTEGER, "
           "gridZ INTEGER, blockX INTEGER, blockY INTEGER, blockZ INTEGER, staticSharedMemory "
           "INTEGER, dynamicSharedMemory INTEGER)")
db.execute("INSERT INTO EXPORT_META_DATA VALUES ('exportProgramName', 'make_nsys_bad.py')")
PID = 7 << 24


def string(i, v):
    if case == "generated":
        db.execute("INSERT INTO StringIds (id, seed) VALUES (?, ?)", (i, v))
    else:
        db.execute("INSERT INTO StringIds VALUES (?, ?)", (i, v))


def kernel(start, end, name, device=0, context=1, corr=1):
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, "
               "streamId, correlationId, globalPid, demangledName, shortName) VALUES "
               "(?, ?, ?, ?, 7, ?, ?, ?, ?)", (start, end, device, context, corr, PID, name, name))


if case == "rows":
    string(1, "k_good")
    db.execute("INSERT INTO StringIds VALUES (2, CAST(X'6B0061' AS TEXT))")  # k\0a
    db.execute("INSERT INTO StringIds VALUES (3, CAST(X'6B0062' AS TEXT))")  # k\0b
    kernel(1000, 1100, 1)
    kernel(2000, 2300, 1, context=9223372036854775807)
    kernel(5000, 4000, 1)                       # ends before it starts
    kernel("soon", 6100, 1)                     # text in an integer column
    kernel(7000, float("inf"), 1)               # 1e400
    kernel(8000, 8100, 1, device=1 << 40)       # no such device
    kernel(9000, 9050, 99)                      # no string 99
    kernel(10000, 10010, 2)
    kernel(11000, 11020, 3)
elif case == "generated":
    for i in range(1, 200):
        string(i, "k%d" % i)
    for i in range(1, 200):
        kernel(i * 1000, i * 1000 + 10, i)
elif case == "big_id":
    string(1 << 28, "k_big")
    string(1 << 40, "k_huge")
    kernel(1000, 1500, 1 << 28)
    kernel(2000, 2100, 1 << 40)
elif case == "span":
    string(1, "k")
    kernel(-9000000000000000000, -8999999999999999000, 1)
    kernel(9000000000000000000, 9000000000000001000, 1)
elif case == "wal":
    db.commit()
    string(1, "k_in_wal")
    kernel(1000, 1250, 1)
elif case == "nvtx":
    n = int(sys.argv[3])
    db.execute("CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER "
               "NOT NULL, text TEXT, globalTid INTEGER, textId INTEGER, domainId INTEGER)")
    tid = PID + 1
    db.executemany("INSERT INTO NVTX_EVENTS VALUES (0, NULL, 75, ?, ?, NULL, ?)",
                   (("domain%d" % d, tid, d) for d in range(1, n + 1)))
    db.executemany("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, 'range', ?, NULL, ?)",
                   ((i * 10, i * 10 + 5, tid, i) for i in range(1, n + 1)))
    string(1, "k")
    kernel(0, 10, 1)
db.commit()
if case == "wal":
    # keep the rows in the -wal file: copy both while the writer is open
    import shutil
    shutil.copyfile(out, out + ".db")
    shutil.copyfile(out + "-wal", out + ".wal")
    db.close()
    os.replace(out + ".db", out)
    os.replace(out + ".wal", out + "-wal")
    for suffix in ("-shm",):
        if os.path.exists(out + suffix):
            os.remove(out + suffix)
else:
    db.close()
