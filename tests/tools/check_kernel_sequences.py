#!/usr/bin/env python3
"""Independent check of `kernel_sequences` (issue 30, item 4).

    check_kernel_sequences.py TRACE KS_CSV [LENGTH]

TRACE is a Kineto JSON trace (.json or .json.gz); KS_CSV the `<id>` result of a
kernel_sequences stage with `length: LENGTH` (default 3), `min_count: 2`, `top: 0`,
written by the csv writer. Recomputed here from the JSON alone: the kernels (complete
events of cat kernel / Kernel) of each (args.device, args.stream) in (ts, file) order;
every window of LENGTH consecutive kernels is a sequence of names; an occurrence counts
when it starts at or after the end of the last counted occurrence of the same sequence
on the stream; sum_us = the kernels' durations over the counted occurrences. Every
sequence counted at least twice must be a row with that count and sum (1e-3 us), and
every row of those streams such a sequence. Kernels without args.device and args.stream
(MTIA's, other categories) are left out with their streams: the reader places them by
other rules. Exits 1 with the differences.
"""
import csv
import os
import sys
from collections import defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tracecheck import load_events, ns  # noqa: E402

KERNEL = {"kernel", "Kernel"}


def expected(events, length):
    streams = defaultdict(list)
    for i, e in enumerate(events):
        if e.get("ph") != "X" or e.get("cat") not in KERNEL or "dur" not in e or ns(e["dur"]) < 0:
            continue
        a = e.get("args") or {}
        if "device" not in a or "stream" not in a:
            continue
        streams[(int(a["device"]), int(a["stream"]))].append((ns(e["ts"]), i, e["name"], ns(e["dur"])))
    want = {}
    for key, ks in streams.items():
        ks.sort()
        counted = {}
        for i in range(len(ks) - length + 1):
            seq = tuple(k[2] for k in ks[i:i + length])
            count, next_free, total = counted.get(seq, (0, 0, 0))
            if i >= next_free:
                counted[seq] = (count + 1, i + length, total + sum(k[3] for k in ks[i:i + length]))
        for seq, (count, _, total) in counted.items():
            if count >= 2:
                want[(key[0], key[1], " -> ".join(seq))] = (count, total / 1000)
    return want, set(streams)


def main():
    trace, path = sys.argv[1], sys.argv[2]
    length = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    want, streams = expected(load_events(trace), length)
    with open(path, newline="", encoding="utf-8") as f:
        got = {(int(r["device"]), int(r["stream"]), r["sequence"]): (int(r["count"]), float(r["sum_dur_us"]))
               for r in csv.DictReader(f)}
    got = {k: v for k, v in got.items() if (k[0], k[1]) in streams}
    bad = [f"missing {k}: {v}" for k, v in want.items() if k not in got]
    bad += [f"extra {k}: {v}" for k, v in got.items() if k not in want]
    bad += [f"{k}: got {got[k]}, want {v}" for k, v in want.items()
            if k in got and (got[k][0] != v[0] or abs(got[k][1] - v[1]) > 1e-3)]
    for m in bad[:20]:
        print(m)
    print(f"{trace}: {len(want)} sequences on {len(streams)} streams: "
          f"{'ok' if not bad else f'{len(bad)} differences'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
