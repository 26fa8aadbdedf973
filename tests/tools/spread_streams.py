#!/usr/bin/env python3
"""Spread a real trace's GPU activity over N streams (for looking at charts
of a many-stream trace): each kernel, memcpy and memset keeps its times and
goes to stream 1000 + (correlation mod N).  The launches' flows are kept.

    python3 tests/tools/spread_streams.py IN.json.gz OUT.json.gz N
"""
import gzip
import json
import sys

src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
with gzip.open(src, "rt") as f:
    trace = json.load(f)
for ev in trace["traceEvents"]:
    if ev.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset") and "args" in ev:
        stream = 1000 + int(ev["args"].get("correlation", 0)) % n
        ev["args"]["stream"] = stream
        ev["tid"] = stream
with gzip.open(dst, "wt") as f:
    json.dump(trace, f)
