"""collectives_nsys_binary: every call's size and bandwidths recomputed from the export
with Python's sqlite3 and struct, independently of the reader: each NCCL range's payload
from NVTX_EVENTS.binaryData (32-byte header: u64 domain, u64 schema id, u64 payload size,
u64; then the entries at NVTX_PAYLOAD_SCHEMA_ENTRIES.offset, NULL meaning the next
self-aligned place) or from its DYNAMIC_NVTXPAYLOAD_DATATYPE_* row (NVTX_EVENTS_PAYLOAD_SCHEMAS,
NVTX_EXPORT_TRANSLATION); the communicator's rank count from ncclCommInitRank's payload;
nccl-tests' size and bus bandwidth factors."""
import csv, json, os, sqlite3, struct, sys

sys.path.insert(0, "tests/tools")
from nsys_nccl import check_calls, nccl_kernels

out = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
db = sqlite3.connect(os.path.join(here, "..", "..", "..", "data", "nsys", "nccl_payloads_binary.sqlite"))
SIZES = {5: "<i", 18: "<Q", 22: "<Q"}
entries = {}
for sid, name, etype, off in db.execute(
        'SELECT schemaId, name, "type", "offset" FROM NVTX_PAYLOAD_SCHEMA_ENTRIES ORDER BY schemaId, idx'):
    entries.setdefault(sid, []).append((name, etype, off))
enum_size = dict(db.execute("SELECT schemaId, size FROM NVTX_PAYLOAD_ENUMS"))


def decode(data):
    _, sid, size, _ = struct.unpack_from("<QQQQ", data)
    body, got, at = data[32:32 + size], {}, 0
    for name, etype, off in entries[sid]:
        fmt = SIZES.get(etype) or ("<i" if enum_size.get(etype) == 4 else None)
        n = struct.calcsize(fmt)
        off = off if off is not None else (at + n - 1) // n * n
        got[name] = struct.unpack_from(fmt, body, off)[0]
        at = off + n
    return got


translate = dict(db.execute("SELECT sanitizedName, originalName FROM NVTX_EXPORT_TRANSLATION"))
dynamic = {}
for ev, gpid, dom, sid in db.execute("SELECT * FROM NVTX_EVENTS_PAYLOAD_SCHEMAS"):
    cur = db.execute('SELECT * FROM "DYNAMIC_NVTXPAYLOAD_DATATYPE_%d_%d_%d" WHERE eventId = ?' % (gpid, dom, sid), (ev,))
    cols = [d[0] for d in cur.description]
    row = cur.fetchone()
    dynamic[ev] = {translate.get(c, c): v for c, v in zip(cols, row) if c != "eventId"}
ranges = []
for start, end, text, data, ev in db.execute(
        "SELECT start, end, text, binaryData, eventId FROM NVTX_EVENTS WHERE eventType = 59 AND text LIKE 'nccl%'"):
    ranges.append((start, end, text, decode(data) if data else dynamic.get(ev)))
check_calls(list(csv.DictReader(open(os.path.join(out, "coll.calls.csv")))), nccl_kernels(db), ranges)
# the reader's args of each NCCL range equal the payload decoded here (enum values by name)
enum_names = {(sid, v): n for sid, n, v in db.execute("SELECT schemaId, name, value FROM NVTX_PAYLOAD_ENUM_ENTRIES")}
redop = {name: etype for entries_ in entries.values() for name, etype, _ in entries_}
got = [e for e in json.load(open(os.path.join(out, "nccl_ranges.json")))["traceEvents"] if e["cat"] == "nvtx:NCCL"]
assert [e["name"] for e in got] == [r[2] for r in ranges], got
for e, (_, _, _, p) in zip(got, ranges):
    want = {k: enum_names.get((redop[k], v), v) for k, v in p.items()} if p else None
    assert e.get("args") == want, (e, want)
print("collectives_nsys_binary: 3 calls, sizes and bandwidths from binary and dynamic-table payloads")
