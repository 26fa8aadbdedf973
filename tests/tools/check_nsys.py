#!/usr/bin/env python3
"""An nsys SQLite export read independently (Python's sqlite3), against the
nsys reader's results: per-name count and total of kernels (demangledName;
shortName with --short, the reader's kernel_name: short) and
copies ("Memcpy " + kind), the number of events (runtime rows without the
backtrace copies, kernels, copies, sets, syncs, NVTX ranges and marks, OS
runtime rows) and the devices' names.

usage: check_nsys.py FILE.sqlite OUTDIR [--json] [--short]   (OUTDIR holds ks.csv, info.csv)
With --json the outputs came from the JSON-lines export of FILE.sqlite
(tests/tools/make_nsys_json.py), which has no device table.
"""
import csv, os, sqlite3, sys

db = sqlite3.connect("file:%s?mode=ro" % sys.argv[1], uri=True)
out = sys.argv[2]
tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
strings = dict(db.execute("SELECT id, value FROM StringIds"))
KINDS = {1: "HtoD", 2: "DtoH", 8: "DtoD", 10: "PtoP"}
want, events = {}, 0

def add(name, dur):
    w = want.setdefault(name, [0, 0]); w[0] += 1; w[1] += dur

if "CUPTI_ACTIVITY_KIND_KERNEL" in tables:
    col = "shortName" if "--short" in sys.argv else "demangledName"
    for sid, s, e in db.execute("SELECT %s, start, end FROM CUPTI_ACTIVITY_KIND_KERNEL" % col):
        add(strings[sid], e - s); events += 1
if "CUPTI_ACTIVITY_KIND_MEMCPY" in tables:
    for k, s, e in db.execute("SELECT copyKind, start, end FROM CUPTI_ACTIVITY_KIND_MEMCPY"):
        add("Memcpy " + KINDS.get(k, "Unknown"), e - s); events += 1
for table, where in (("CUPTI_ACTIVITY_KIND_RUNTIME", "eventClass != 67"),
                     ("CUPTI_ACTIVITY_KIND_MEMSET", "1"), ("CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "1"),
                     ("NVTX_EVENTS", "eventType IN (34, 59, 60)"), ("OSRT_API", "1")):
    if table in tables:
        events += db.execute("SELECT count(*) FROM %s WHERE %s" % (table, where)).fetchone()[0]
rows = {r["name"]: r for r in csv.DictReader(open(os.path.join(out, "ks.csv")))}
assert set(rows) == set(want), (sorted(rows), sorted(want))
for name, (n, ns) in want.items():
    assert int(rows[name]["count"]) == n, (name, rows[name]["count"], n)
    assert abs(float(rows[name]["sum_us"]) - ns / 1000) < 1e-6, (name, rows[name]["sum_us"], ns)
info = {r["key"]: r["value"] for r in csv.DictReader(open(os.path.join(out, "info.csv")))}
assert int(info["events"]) == events, (info["events"], events)
for dev, name in [] if "--json" in sys.argv else db.execute("SELECT cuDevice, name FROM TARGET_INFO_GPU"):
    assert info["device.%d.name" % dev] == name, (dev, name)
print("check_nsys: %s: %d events, %d activity names checked" % (os.path.basename(sys.argv[1]), events, len(want)))
