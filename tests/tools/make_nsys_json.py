#!/usr/bin/env python3
"""Writes an Nsight Systems JSON-lines export (`nsys export --type json
--separate-strings true`, FORMATS.md section 2) of an nsys SQLite export's
content: the corpus has no JSON sample, so the test fixture is this shape
filled from the saxpy SQLite file, and the two readers must agree.

usage: make_nsys_json.py IN.sqlite OUT.json [--strings-last] [--single-strings]
64-bit values are quoted strings, 32-bit ones bare numbers, as protobuf's
JSON mapping writes them."""
import json, sqlite3, sys

src, dst = sys.argv[1], sys.argv[2]
strings_last = "--strings-last" in sys.argv
single = "--single-strings" in sys.argv
db = sqlite3.connect("file:%s?mode=ro" % src, uri=True)
tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
out = []

def q(v):
    return None if v is None else str(v)

events = []
for s, e, cls, g, corr, name, ret in db.execute(
        "SELECT start, end, eventClass, globalTid, correlationId, nameId, returnValue "
        "FROM CUPTI_ACTIVITY_KIND_RUNTIME"):
    if cls == 67:
        continue  # the JSON export has no backtrace copies
    events.append({"Type": 48, "TraceProcessEvent": {"startNs": q(s), "endNs": q(e),
                   "correlationId": corr, "eventClass": cls, "name": q(name),
                   "returnValue": q(ret), "globalTid": q(g)}})
for row in db.execute("SELECT start, end, deviceId, contextId, streamId, correlationId, globalPid, "
                      "shortName, demangledName, gridX, gridY, gridZ, blockX, blockY, blockZ, "
                      "registersPerThread FROM CUPTI_ACTIVITY_KIND_KERNEL"):
    s, e, dev, ctx, stream, corr, gp, short, dem, gx, gy, gz, bx, by, bz, regs = row
    events.append({"Type": 79, "CudaEvent": {"startNs": q(s), "endNs": q(e), "correlationId": corr,
                   "deviceId": dev, "contextId": q(ctx), "streamId": q(stream), "eventClass": 3,
                   "globalPid": q(gp), "kernel": {"shortName": q(short), "demangledName": q(dem),
                   "gridX": gx, "gridY": gy, "gridZ": gz, "blockX": bx, "blockY": by,
                   "blockZ": bz, "registersPerThread": regs}}})
for row in db.execute("SELECT start, end, deviceId, contextId, streamId, correlationId, globalPid, "
                      "bytes, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY"):
    s, e, dev, ctx, stream, corr, gp, nbytes, kind = row
    events.append({"Type": 80, "CudaEvent": {"startNs": q(s), "endNs": q(e), "correlationId": corr,
                   "deviceId": dev, "contextId": q(ctx), "streamId": q(stream), "eventClass": 1,
                   "globalPid": q(gp), "memcpy": {"sizebytes": q(nbytes), "copyKind": kind}}})
if "NVTX_EVENTS" in tables:
    strings = dict(db.execute("SELECT id, value FROM StringIds"))
    for s, e, t, g, text, tid, dom in db.execute(
            "SELECT start, end, eventType, globalTid, text, textId, domainId FROM NVTX_EVENTS"):
        ev = {"Type": t, "Timestamp": q(s), "GlobalTid": q(g), "DomainId": q(dom or 0), "NsTime": True}
        if e is not None:
            ev["EndTimestamp"] = q(e)
        if text is not None:
            ev["Text"] = text
        elif tid is not None:
            ev["TextId"] = q(tid)
        events.append({"Type": t, "NvtxEvent": ev})
string_rows = db.execute("SELECT id, value FROM StringIds ORDER BY id").fetchall()
if single:
    dense = [""] * (max(i for i, _ in string_rows) + 1)
    for i, v in string_rows:
        dense[i] = v
    string_lines = [{"data": dense}]
else:
    string_lines = [{"type": "String", "id": str(i), "value": v} for i, v in string_rows]
lines = (events + string_lines) if strings_last else (string_lines + events)
with open(dst, "w") as f:
    for obj in lines:
        f.write(json.dumps(obj, separators=(",", ":")) + "\n")
