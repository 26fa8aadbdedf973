"""collectives_nsys_nvtx: each call's size and bandwidths recomputed from the export
with sqlite3: the NCCL range around each kernel's launch call, its payload (jsonText or
StringIds[jsonTextId]), the communicator's rank count from ncclCommInitRank's payload,
nccl-tests' size and bus bandwidth factors."""
import csv, json, os, sqlite3, sys

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
nranks = {p["NCCL communicator ID"]: p["No. of ranks"] for _, _, n, p in ranges
          if n == "ncclCommInitRank"}
kernels = db.execute(
    "SELECT k.start, k.end, r.start, r.end FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN "
    "CUPTI_ACTIVITY_KIND_RUNTIME r ON r.correlationId = k.correlationId AND r.eventClass = 0 "
    "JOIN StringIds s ON s.id = k.shortName WHERE s.value LIKE 'ncclDevKernel%' ORDER BY k.start").fetchall()
rows = list(csv.DictReader(open(os.path.join(out, "coll.calls.csv"))))
assert len(rows) == len(kernels) == 3
for row, (ks, ke, rs, re_) in zip(rows, kernels):
    (_, _, api, p), = [r for r in ranges if r[0] <= rs and re_ <= r[1]]
    if p is None:
        assert row["size_bytes"] == "" and row["busbw_gbps"] == "" and row["op"] == "", row
        continue
    n = nranks[p["NCCL communicator ID"]]
    per_rank = row["type"] in ("all_gather", "reduce_scatter")
    size = p["Message size [bytes]"] * (n if per_rank else 1)
    algbw = size / (ke - ks)
    factor = 2 * (n - 1) / n if row["type"] == "all_reduce" else (n - 1) / n
    assert row["op"] == api and int(row["group_size"]) == n, row
    assert int(row["size_bytes"]) == size, (row, size)
    assert abs(float(row["algbw_gbps"]) - algbw) < 1e-9, row
    assert abs(float(row["busbw_gbps"]) - algbw * factor) < 1e-9, row
    assert abs(float(row["link_percent"]) - algbw * factor / 300 * 100) < 1e-9, row
print("collectives_nsys_nvtx: 3 calls, sizes and bandwidths from the NVTX payloads")
