#!/usr/bin/env python3
"""Small Nsight Systems SQLite exports with copies whose memory kinds the
export records (issue 29: advice's pageable_memcpy on nsys), built at test
time by tests/e2e/advice_memkinds.sh (never committed as binaries).

usage: make_nsys_memcpy.py OUT.sqlite CASE
CASE (every copy on device 0, stream 7; a cudaMemcpyAsync call launches each):
  pageable   three copies: HtoD Pageable -> Device [1000, 1400) ns, DtoH
             Device -> Pageable [2000, 2100) ns, HtoD Pinned -> Device
             [3000, 3050) ns; the export's ENUM_CUDA_MEM_KIND numbers the
             kinds as Nsight Systems does (0 Pageable, 1 Pinned, 2 Device)
             -> 2 pageable copies, 500 ns = 0.5 us, from 0 to 1.1 us
  pinned     the same times, every host side Pinned -> no pageable copy
  renumbered as pageable, with an ENUM_CUDA_MEM_KIND whose ids differ (7
             Pageable, 3 Pinned, 5 Device): the reader follows the export's
             labels, not a fixed numbering -> 2 pageable copies
"""
import os
import sqlite3
import sys

out, case = sys.argv[1], sys.argv[2]
for suffix in ("", "-wal", "-shm", "-journal"):
    if os.path.exists(out + suffix):
        os.remove(out + suffix)
db = sqlite3.connect(out)
db.execute("CREATE TABLE StringIds (id INTEGER PRIMARY KEY, value TEXT NOT NULL)")
db.execute("CREATE TABLE EXPORT_META_DATA (name TEXT NOT NULL, value TEXT)")
db.execute("INSERT INTO EXPORT_META_DATA VALUES ('exportProgramName', 'make_nsys_memcpy.py')")
db.execute("CREATE TABLE ENUM_CUDA_MEM_KIND (id INTEGER PRIMARY KEY, name TEXT, label TEXT)")
db.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT "
           "NULL, eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER, nameId "
           "INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER)")
db.execute("CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT "
           "NULL, deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT "
           "NULL, correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind "
           "INTEGER NOT NULL, srcKind INTEGER, dstKind INTEGER)")
ids = {"Pageable": 0, "Pinned": 1, "Device": 2}
if case == "renumbered":
    ids = {"Pageable": 7, "Pinned": 3, "Device": 5}
for label, i in ids.items():
    db.execute("INSERT INTO ENUM_CUDA_MEM_KIND VALUES (?, ?, ?)",
               (i, "CUDA_MEMOPR_MEMORY_KIND_" + label.upper(), label))
db.execute("INSERT INTO StringIds VALUES (1, 'cudaMemcpyAsync_v3020')")
PID = 7 << 24
TID = PID | 7
host = "Pinned" if case == "pinned" else "Pageable"
copies = [(1000, 1400, 1, host, "Device"), (2000, 2100, 2, "Device", host),
          (3000, 3050, 1, "Pinned", "Device")]
for corr, (s, e, kind, src, dst) in enumerate(copies, 1):
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?, ?, 0, ?, ?, 1, 0, NULL)",
               (s - 300, s - 200, TID, corr))
    db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (?, ?, 0, 1, 7, ?, ?, 4096, ?, ?, ?)",
               (s, e, corr, PID, kind, ids[src], ids[dst]))
db.commit()
db.close()
