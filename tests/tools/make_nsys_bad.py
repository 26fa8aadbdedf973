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
  cells       kernels of grid_x 77 (first, text in correlationId: skipped), 2 (kept)
              and 99 (text in correlationId: skipped): the kept one's cells
              are its own (issue 31: a skipped row's went to the row before)
  wal         one kernel, written in WAL mode, the rows left in OUT-wal
  nvtx N      N NVTX push/pop ranges, each in its own domain (lookups)
  payload     NVTX extended payloads with hostile schema rows and blobs (issue 30):
              ranges r1..r6 whose binaryData is: a payload size of 2^64-1; 20
              bytes; an unknown schema; schema 100 with entries "comm" (u64,
              offset NULL), "far" (u64 at 2^62), "huge" (a string of 2^63
              bytes), "wide" (an enum 2^40 bytes wide), "ok" (int at 8),
              "name" (a 6-byte string "a\"b\x01c" at 12): args {"comm": 5,
              "ok": 42, "name": "a\"b\u0001c"}; r5 schema 101 whose entries
              reach past its 4-byte payload (none kept); r6 none
  payload_generated  NVTX_PAYLOAD_SCHEMA_ENTRIES.name a generated column
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
elif case == "cells":
    string(1, "k")
    for start, corr, grid in ((1000, "x", 77), (2000, 5, 2), (3000, "y", 99)):
        db.execute("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL (start, end, deviceId, contextId, "
                   "streamId, correlationId, globalPid, demangledName, shortName, gridX) VALUES "
                   "(?, ?, 0, 1, 7, ?, ?, 1, 1, ?)", (start, start + 100, corr, PID, grid))
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
elif case in ("payload", "payload_generated"):
    import struct
    db.execute("CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER "
               "NOT NULL, text TEXT, globalTid INTEGER, textId INTEGER, domainId INTEGER, "
               "jsonText TEXT, jsonTextId INTEGER, binaryData TEXT, eventId INTEGER NOT NULL "
               "PRIMARY KEY)")
    db.execute("CREATE TABLE NVTX_PAYLOAD_SCHEMAS (domainId INTEGER, schemaId INTEGER, name TEXT, "
               "type INTEGER, flags INTEGER, numEntries INTEGER, payloadSize INTEGER, alignTo INTEGER)")
    name = ("name TEXT GENERATED ALWAYS AS (substr(replace(printf('%.*c', 20000000, 'x'), 'x', "
            "seed), 1, 40)) VIRTUAL, seed TEXT" if case == "payload_generated" else "name TEXT")
    db.execute("CREATE TABLE NVTX_PAYLOAD_SCHEMA_ENTRIES (domainId INTEGER NOT NULL, schemaId "
               "INTEGER NOT NULL, idx INTEGER NOT NULL, flags INTEGER, type INTEGER, %s, "
               "description TEXT, arrayOrUnionDetail INTEGER, offset INTEGER)" % name)
    db.execute("CREATE TABLE NVTX_PAYLOAD_ENUMS (domainId INTEGER, schemaId INTEGER, name TEXT, "
               "numEntries INTEGER, size INTEGER)")
    col = "seed" if case == "payload_generated" else "name"
    for sch, idx, etype, nm, detail, off in (
            (100, 0, 18, "comm", 0, None), (100, 1, 18, "far", 0, 1 << 62),
            (100, 2, 75, "huge", (1 << 63) - 1, 16), (100, 3, 1 << 40, "wide", 0, 16),
            (100, 4, 5, "ok", 0, 8), (100, 5, 75, "name", 6, 12),
            (101, 0, 18, "x", 0, None), (101, 1, 5, "y", 0, 8)):
        db.execute("INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES (domainId, schemaId, idx, flags, type, "
                   "%s, arrayOrUnionDetail, offset) VALUES (1, ?, ?, 0, ?, ?, ?, ?)" % col,
                   (sch, idx, etype, nm, detail, off))
    db.execute("INSERT INTO NVTX_PAYLOAD_SCHEMAS VALUES (1, 100, NULL, 1, 0, 6, 18, NULL)")
    db.execute("INSERT INTO NVTX_PAYLOAD_SCHEMAS VALUES (1, 101, NULL, 1, 0, 2, 4, NULL)")
    db.execute("INSERT INTO NVTX_PAYLOAD_ENUMS VALUES (1, ?, 'wide', 0, ?)", (1 << 40, 1 << 40))

    def head(schema, size):
        return struct.pack("<QQQQ", 1, schema, size, 32)
    good = struct.pack("<Qi", 5, 42) + b'a"b\x01c\x00'
    blobs = [head(100, (1 << 64) - 1) + good, head(100, 18)[:20], head(999, 18) + good,
             head(100, 18) + good, head(101, 4) + b"\x01\x02\x03\x04", None]
    tid = PID + 1
    for i, b in enumerate(blobs):
        db.execute("INSERT INTO NVTX_EVENTS VALUES (?, ?, 59, ?, ?, NULL, 1, NULL, NULL, ?, ?)",
                   (i * 100, i * 100 + 50, "r%d" % (i + 1), tid, b, i + 1))
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
