#!/usr/bin/env python3
"""A hand-made Nsight Systems SQLite export with NCCL's NVTX payloads (issue 30,
item 3): the corpus saxpy export (its schema, strings and rows) with, after its
last event, on its launching thread: a domain "NCCL" (eventType 75); an
ncclCommInitRank range whose payload says communicator 7001 has 4 ranks; and
three NCCL calls, each an NVTX push/pop range around a cudaLaunchKernel whose
kernel runs on stream 13:
  ncclAllReduce  payload {comm 7001, Message size [bytes] 1048576, Sum} (jsonText),
                 kernel ncclDevKernel_AllReduce_Sum_f32_RING_LL, 100 us
  ncclAllGather  payload {comm 7001, Message size [bytes] 262144} (jsonTextId,
                 through StringIds), kernel ncclDevKernel_AllGather_RING_LL, 50 us
  ncclAllReduce  no payload (jsonText NULL), kernel as the first, 40 us
NCCL's payload entry names are those of its nvtx_payload_schemas.h; the JSON
object is how this project expects nsys to render them (no corpus export has one).

usage: make_nsys_nccl.py SRC.sqlite OUT.sqlite"""
import json, os, shutil, sqlite3, sys

src, out = sys.argv[1], sys.argv[2]
tmp = out + ".tmp"
shutil.copyfile(src, tmp)
db = sqlite3.connect(tmp)
sid = db.execute("SELECT max(id) FROM StringIds").fetchone()[0] + 1


def string(value):
    global sid
    db.execute("INSERT INTO StringIds (id, value) VALUES (?, ?)", (sid, value))
    sid += 1
    return sid - 1


kcols = [r[1] for r in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_KERNEL)")]
rcols = [r[1] for r in db.execute("PRAGMA table_info(CUPTI_ACTIVITY_KIND_RUNTIME)")]
ncols = [r[1] for r in db.execute("PRAGMA table_info(NVTX_EVENTS)")]
kt = dict(zip(kcols, db.execute("SELECT * FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1").fetchone()))
rt = dict(zip(rcols, db.execute(
    "SELECT r.* FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s ON s.id = r.nameId "
    "WHERE s.value = 'cudaLaunchKernel_v7000' AND r.eventClass = 0 LIMIT 1").fetchone()))
tid = rt["globalTid"]
corr = db.execute("SELECT max(correlationId) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()[0] + 1
t = max(db.execute("SELECT max(end) FROM %s" % tb).fetchone()[0]
        for tb in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_RUNTIME", "NVTX_EVENTS")) + 1000000
US = 1000


def insert(table, cols, row):
    db.execute("INSERT INTO %s (%s) VALUES (%s)" % (table, ",".join(cols), ",".join("?" * len(cols))),
               [row.get(c) for c in cols])


def nvtx(etype, start, end, text, domain, json_text=None, json_id=None):
    insert("NVTX_EVENTS", ncols, {"start": start, "end": end, "eventType": etype, "text": text,
                                  "globalTid": tid, "domainId": domain, "jsonText": json_text,
                                  "jsonTextId": json_id})


nvtx(75, t, None, "NCCL", 7)
t += 10 * US
nvtx(59, t, t + 20 * US, "ncclCommInitRank", 7,
     json.dumps({"NCCL communicator ID": 7001, "No. of ranks": 4, "Rank": 0, "CUDA device": 0}))
t += 100 * US
calls = [("ncclAllReduce", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 100,
          {"NCCL communicator ID": 7001, "Message size [bytes]": 1048576, "Reduction operation": "Sum"}, False),
         ("ncclAllGather", "ncclDevKernel_AllGather_RING_LL", 50,
          {"NCCL communicator ID": 7001, "Message size [bytes]": 262144}, True),
         ("ncclAllReduce", "ncclDevKernel_AllReduce_Sum_f32_RING_LL", 40, None, False)]
names = {}
for api, kernel, dur_us, payload, by_id in calls:
    text = json.dumps(payload) if payload else None
    nvtx(59, t, t + 10 * US, api, 7, None if by_id else text, string(text) if by_id and text else None)
    insert("CUPTI_ACTIVITY_KIND_RUNTIME", rcols, dict(rt, start=t + 2 * US, end=t + 8 * US, correlationId=corr))
    if kernel not in names:
        names[kernel] = string(kernel)
    insert("CUPTI_ACTIVITY_KIND_KERNEL", kcols,
           dict(kt, start=t + 20 * US, end=t + (20 + dur_us) * US, correlationId=corr, streamId=13,
                shortName=names[kernel], demangledName=names[kernel], mangledName=names[kernel]))
    corr += 1
    t += 1000 * US
db.commit()
db.execute("VACUUM")
db.close()
os.rename(tmp, out)
