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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nsys_nccl import CALLS, US, Export

src, out = sys.argv[1], sys.argv[2]
tmp = out + ".tmp"
shutil.copyfile(src, tmp)
db = sqlite3.connect(tmp)
x = Export(db)
ncols = [r[1] for r in db.execute("PRAGMA table_info(NVTX_EVENTS)")]


def nvtx(etype, start, end, text, domain, json_text=None, json_id=None):
    x.insert("NVTX_EVENTS", ncols, {"start": start, "end": end, "eventType": etype, "text": text,
                                    "globalTid": x.tid, "domainId": domain, "jsonText": json_text,
                                    "jsonTextId": json_id})


nvtx(75, x.t, None, "NCCL", 7)
x.t += 10 * US
nvtx(59, x.t, x.t + 20 * US, "ncclCommInitRank", 7,
     json.dumps({"NCCL communicator ID": 7001, "No. of ranks": 4, "Rank": 0, "CUDA device": 0}))
x.t += 100 * US
payloads = [({"NCCL communicator ID": 7001, "Message size [bytes]": 1048576, "Reduction operation": "Sum"}, False),
            ({"NCCL communicator ID": 7001, "Message size [bytes]": 262144}, True),
            (None, False)]
for (api, kernel, dur_us), (payload, by_id) in zip(CALLS, payloads):
    text = json.dumps(payload) if payload else None
    nvtx(59, x.t, x.t + 10 * US, api, 7, None if by_id else text, x.string(text) if by_id and text else None)
    x.launch(kernel, dur_us)
db.commit()
db.execute("VACUUM")
db.close()
os.rename(tmp, out)
