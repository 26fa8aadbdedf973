#!/usr/bin/env python3
"""A hand-made Nsight Systems SQLite export with NCCL's NVTX payloads in the
documented extended-payload layout (issue 30, item 3), from the corpus saxpy
export (its schema, strings and rows).

Sources followed exactly (docs/plugins/nsys.md "NVTX payloads" says which part
rests on which):
  - Nsight Systems "SQLite Schema Reference", 2026.4 release, schema 3.28.1:
    NVTX_EVENTS (binaryData TEXT "Binary payload", eventId INTEGER NOT NULL
    PRIMARY KEY), NVTX_PAYLOAD_SCHEMAS, NVTX_PAYLOAD_SCHEMA_ENTRIES,
    NVTX_PAYLOAD_ENUMS, NVTX_PAYLOAD_ENUM_ENTRIES, NVTX_EVENTS_PAYLOAD_SCHEMAS,
    NVTX_EXPORT_TRANSLATION and the dynamic tables
    DYNAMIC_NVTXPAYLOAD_DATATYPE_<globalPid>_<domainId>_<schemaId> of
    `nsys export --dynamic-tables=all` (and its "SQLite Examples": "Read NVTX
    Binary Payload Fields", joined on eventId);
  - NCCL's src/include/nvtx_payload_schemas.h: the entries' names and types
    (NVTX's nvToolsExtPayload.h: TYPE_INT 5, TYPE_UINT64 18, TYPE_SIZE 22;
    ncclRedOp_t as a registered enum), C struct layouts on x86-64;
  - binaryData's own format is not in NVIDIA's text ("See docs for format"):
    the 32-byte header (u64 domain id, u64 schema id, u64 payload size, u64
    32) then the payload is the one public decoders of real exports read
    (nsys-ai); schema ids from NVTX's static range (1 << 24).

Events, on the launching thread of the saxpy export, after its last event:
  domain "NCCL" (eventType 75, domainId 7);
  ncclCommInitRank: binaryData {comm 7001, No. of ranks 4, Rank 0, CUDA device 0};
  ncclAllReduce: binaryData {comm 7001, Message size 1048576, Reduction op Sum
    (enum value 0)}, kernel ncclDevKernel_AllReduce_Sum_f32_RING_LL, 100 us;
  ncclAllGather: no binaryData, its payload only in the dynamic table
    (sanitized column names through NVTX_EXPORT_TRANSLATION) {comm 7001,
    Message size 262144}, kernel ncclDevKernel_AllGather_RING_LL, 50 us;
  ncclAllReduce: no payload at all, 40 us.
The same figures as nccl_payloads.sqlite (the jsonText form).

usage: make_nsys_nccl_binary.py SRC.sqlite OUT.sqlite"""
import os, shutil, sqlite3, struct, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from nsys_nccl import CALLS, US, Export

src, out = sys.argv[1], sys.argv[2]
tmp = out + ".tmp"
shutil.copyfile(src, tmp)
db = sqlite3.connect(tmp)

NVTX_COLS = """start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL, rangeId INTEGER,
category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER,
textId INTEGER, domainId INTEGER, uint64Value INTEGER, int64Value INTEGER, doubleValue REAL,
uint32Value INTEGER, int32Value INTEGER, floatValue REAL, jsonTextId INTEGER, jsonText TEXT,
binaryData TEXT, eventId INTEGER NOT NULL PRIMARY KEY"""
old = [r[1] for r in db.execute("PRAGMA table_info(NVTX_EVENTS)")]
db.executescript(f"""
CREATE TABLE NVTX_EVENTS_new ({NVTX_COLS});
INSERT INTO NVTX_EVENTS_new ({",".join(old)}, eventId) SELECT {",".join(old)}, rowid FROM NVTX_EVENTS;
DROP TABLE NVTX_EVENTS;
ALTER TABLE NVTX_EVENTS_new RENAME TO NVTX_EVENTS;
CREATE TABLE NVTX_PAYLOAD_SCHEMAS (domainId INTEGER, schemaId INTEGER, name TEXT, type INTEGER,
    flags INTEGER, numEntries INTEGER, payloadSize INTEGER, alignTo INTEGER);
CREATE TABLE NVTX_PAYLOAD_SCHEMA_ENTRIES (domainId INTEGER NOT NULL, schemaId INTEGER NOT NULL,
    idx INTEGER NOT NULL, flags INTEGER, type INTEGER, name TEXT, description TEXT,
    arrayOrUnionDetail INTEGER, offset INTEGER);
CREATE TABLE NVTX_PAYLOAD_ENUMS (domainId INTEGER, schemaId INTEGER, name TEXT, numEntries INTEGER,
    size INTEGER);
CREATE TABLE NVTX_PAYLOAD_ENUM_ENTRIES (domainId INTEGER NOT NULL, schemaId INTEGER NOT NULL,
    idx INTEGER NOT NULL, name TEXT, value INTEGER, isFlag INTEGER);
CREATE TABLE NVTX_EVENTS_PAYLOAD_SCHEMAS (eventId INTEGER NOT NULL, globalPid INTEGER NOT NULL,
    domainId INTEGER NOT NULL, payloadSchemaID INTEGER NOT NULL);
CREATE TABLE NVTX_EXPORT_TRANSLATION (originalName TEXT NOT NULL, sanitizedName TEXT NOT NULL);
""")


DOMAIN = 7
STATIC = 1 << 24
INIT, ALLREDUCE, ALLGATHER, REDOP = STATIC + 1, STATIC + 2, STATIC + 3, STATIC + 4
COMM, SIZE, INT = 18, 22, 5
# (schema, C struct size, [(name, type, offset or None)]): nvtx_payload_schemas.h
schemas = [
    (INIT, 24, [("NCCL communicator ID", COMM, None), ("No. of ranks", INT, 8), ("Rank", INT, 12),
                ("CUDA device", INT, 16)]),
    (ALLREDUCE, 24, [("NCCL communicator ID", COMM, None), ("Message size [bytes]", SIZE, 8),
                     ("Reduction operation", REDOP, 16)]),
    (ALLGATHER, 16, [("NCCL communicator ID", COMM, None), ("Message size [bytes]", SIZE, 8)]),
]
for schema, size, entries in schemas:
    db.execute("INSERT INTO NVTX_PAYLOAD_SCHEMAS VALUES (?, ?, NULL, 1, 0, ?, ?, NULL)",
               (DOMAIN, schema, len(entries), size))
    for idx, (name, etype, off) in enumerate(entries):
        db.execute("INSERT INTO NVTX_PAYLOAD_SCHEMA_ENTRIES VALUES (?, ?, ?, 0, ?, ?, NULL, 0, ?)",
                   (DOMAIN, schema, idx, etype, name, off))
db.execute("INSERT INTO NVTX_PAYLOAD_ENUMS VALUES (?, ?, 'ncclRedOp_t', 5, 4)", (DOMAIN, REDOP))
for v, name in enumerate(["Sum", "Prod", "Max", "Min", "Avg"]):
    db.execute("INSERT INTO NVTX_PAYLOAD_ENUM_ENTRIES VALUES (?, ?, ?, ?, ?, 0)", (DOMAIN, REDOP, v, name, v))


def blob(schema, payload):
    return struct.pack("<QQQQ", DOMAIN, schema, len(payload), 32) + payload


x = Export(db)
ncols = [r[1] for r in db.execute("PRAGMA table_info(NVTX_EVENTS)")]
gpid = x.tid - (x.tid & 0xFFFFFF)
event = db.execute("SELECT max(eventId) FROM NVTX_EVENTS").fetchone()[0] + 1


def nvtx(etype, start, end, text, data=None):
    global event
    x.insert("NVTX_EVENTS", ncols, {"start": start, "end": end, "eventType": etype, "text": text,
                                    "globalTid": x.tid, "domainId": DOMAIN, "binaryData": data,
                                    "eventId": event})
    event += 1
    return event - 1


nvtx(75, x.t, None, "NCCL")
x.t += 10 * US
nvtx(59, x.t, x.t + 20 * US, "ncclCommInitRank", blob(INIT, struct.pack("<Qiiii", 7001, 4, 0, 0, 0)))
x.t += 100 * US
# the all_gather's dynamic table: sanitized names, as NVTX_EXPORT_TRANSLATION maps them
dyn = "DYNAMIC_NVTXPAYLOAD_DATATYPE_%d_%d_%d" % (gpid, DOMAIN, ALLGATHER)
db.execute('CREATE TABLE "%s" (eventId INTEGER NOT NULL, NCCL_communicator_ID INTEGER, '
           'Message_size_bytes INTEGER)' % dyn)
for orig, sane in (("NCCL communicator ID", "NCCL_communicator_ID"),
                   ("Message size [bytes]", "Message_size_bytes")):
    db.execute("INSERT INTO NVTX_EXPORT_TRANSLATION VALUES (?, ?)", (orig, sane))
payloads = [(blob(ALLREDUCE, struct.pack("<QQii", 7001, 1048576, 0, 0)), None),
            (None, (7001, 262144)),
            (None, None)]
for (api, kernel, dur_us), (data, dynamic) in zip(CALLS, payloads):
    ev = nvtx(59, x.t, x.t + 10 * US, api, data)
    if dynamic:
        db.execute("INSERT INTO NVTX_EVENTS_PAYLOAD_SCHEMAS VALUES (?, ?, ?, ?)", (ev, gpid, DOMAIN, ALLGATHER))
        db.execute('INSERT INTO "%s" VALUES (?, ?, ?)' % dyn, (ev,) + dynamic)
    x.launch(kernel, dur_us)
db.commit()
db.execute("VACUUM")
db.close()
os.rename(tmp, out)
