"""collectives_nsys_nvtx: each call's size and bandwidths recomputed from the export
with sqlite3: the NCCL range around each kernel's launch call, its payload (jsonText or
StringIds[jsonTextId]), the communicator's rank count from ncclCommInitRank's payload,
nccl-tests' size and bus bandwidth factors."""
import csv, json, os, sqlite3, sys

sys.path.insert(0, "tests/tools")
from nsys_nccl import check_calls, nccl_kernels

out = sys.argv[1]
here = os.path.dirname(os.path.abspath(__file__))
db = sqlite3.connect(os.path.join(here, "..", "..", "..", "data", "nsys", "nccl_payloads.sqlite"))
strings = dict(db.execute("SELECT id, value FROM StringIds"))
ranges = []
for start, end, text, jtext, jid in db.execute(
        "SELECT start, end, text, jsonText, jsonTextId FROM NVTX_EVENTS WHERE eventType = 59 "
        "AND text LIKE 'nccl%'"):
    j = jtext if jtext is not None else strings.get(jid)
    ranges.append((start, end, text, json.loads(j) if j else None))
check_calls(list(csv.DictReader(open(os.path.join(out, "coll.calls.csv")))), nccl_kernels(db), ranges)
print("collectives_nsys_nvtx: 3 calls, sizes and bandwidths from the NVTX payloads")
