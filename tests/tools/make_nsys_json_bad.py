#!/usr/bin/env python3
"""Small hostile Nsight Systems JSON-lines exports for tests/bad (issue 32).

usage: make_nsys_json_bad.py OUT.json CASE
CASE:
  rows     the SQLite `rows` case of make_nsys_bad.py as JSON lines: two good
           kernels (k_good 100 ns, 300 ns), end before start, text in
           startNs, 1e400 as endNs... (jansson refuses 1e400: 1e300 * 10 is
           written as a real beyond int64 instead, 1e19), deviceId 2^40,
           contextId INT64_MAX, a name id not in the table, names k\\0a, k\\0b
  big_id   string ids 2^28 (a 400-byte file must not take 2 GiB) and 2^40
  span     two kernels at -9e18 and +9e18 ns
  cut      a valid export whose last line is cut at a line's end, no newline
  nvtx N   N NVTX ranges, each in its own domain
"""
import json, sys

out, case = sys.argv[1], sys.argv[2]
PID = 7 << 24
lines = []


def string(i, v):
    lines.append(json.dumps({"type": "String", "id": str(i), "value": v}, separators=(",", ":")))


def kernel(start, end, name, device=0, context="1"):
    ev = {"startNs": start, "endNs": end, "correlationId": 1, "deviceId": device,
          "contextId": context, "streamId": "7", "globalPid": str(PID),
          "kernel": {"shortName": str(name), "demangledName": str(name)}}
    lines.append(json.dumps({"Type": 79, "CudaEvent": ev}, separators=(",", ":")))


if case == "rows":
    string(1, "k_good")
    string(2, "k\0a")
    string(3, "k\0b")
    kernel("1000", "1100", 1)
    kernel("2000", "2300", 1, context="9223372036854775807")
    kernel("5000", "4000", 1)
    kernel("soon", "6100", 1)
    kernel("7000", 1e19, 1)
    kernel("8000", "8100", 1, device=1 << 40)
    kernel("9000", "9050", 99)
    kernel("10000", "10010", 2)
    kernel("11000", "11020", 3)
elif case == "big_id":
    string(1 << 28, "k_big")
    string(1 << 40, "k_huge")
    kernel("1000", "1500", 1 << 28)
    kernel("2000", "2100", 1 << 40)
elif case == "span":
    string(1, "k")
    kernel("-9000000000000000000", "-8999999999999999000", 1)
    kernel("9000000000000000000", "9000000000000001000", 1)
elif case == "cut":
    string(1, "k")
    kernel("1000", "1100", 1)
    kernel("2000", "2100", 1)
elif case == "nvtx":
    n = int(sys.argv[3])
    tid = str(PID + 1)
    for d in range(1, n + 1):
        lines.append(json.dumps({"Type": 75, "NvtxEvent": {"Type": 75, "Timestamp": "0", "Text":
                                 "domain%d" % d, "GlobalTid": tid, "DomainId": str(d)}},
                                separators=(",", ":")))
    for i in range(1, n + 1):
        lines.append(json.dumps({"Type": 59, "NvtxEvent": {"Type": 59, "Timestamp": str(i * 10),
                                 "EndTimestamp": str(i * 10 + 5), "Text": "range",
                                 "GlobalTid": tid, "DomainId": str(i)}},
                                separators=(",", ":")))
    string(1, "k")
    kernel("0", "10", 1)
with open(out, "w") as f:
    f.write("\n".join(lines) + ("" if case == "cut" else "\n"))
