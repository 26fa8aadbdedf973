#!/usr/bin/env python3
"""Checks `ranks`' tables of a generated job against the generator's own record.

    python3 tests/tools/check_ranks.py JOB.expected job.csv job.straggler.csv

JOB.expected/rank<R>.json (tests/tools/gen_ranks.py) hold what each rank's
trace holds: its steps, its computation kernels' time and every all-reduce's
start and end.  From them alone, with docs/plugins/ranks.md's definitions
(offsets: the median of the end differences to the first trace's; arrival =
start - offset; wait = the latest arrival - one's own; the straggler: the most
last arrivals, then the least wait, then the first), this recomputes every
row and compares with what tracepipe wrote.  Traces in the batch's label
order (file names in byte order), as the batch gives them to the stage.
Exit 0 when every figure agrees.
"""
import csv
import json
import os
import statistics
import sys


def load(folder):
    names = sorted(n for n in os.listdir(folder) if n.endswith(".json"))
    return [json.load(open(os.path.join(folder, n))) for n in names]


def expected(ranks):
    n = min(len(r["comm"]) for r in ranks)
    off = [statistics.median([2 * (r["comm"][k][1] - ranks[0]["comm"][k][1]) for k in range(n)])
           for r in ranks]  # half nanoseconds, as ranks keeps them
    wait = [0.0] * len(ranks)
    last = [0] * len(ranks)
    caused = [0.0] * len(ranks)
    for k in range(n):
        arr = [2 * r["comm"][k][0] - off[i] for i, r in enumerate(ranks)]
        hi = max(arr)
        who = arr.index(hi)
        last[who] += 1
        for i, a in enumerate(arr):
            wait[i] += hi - a
            caused[who] += 0 if i == who else hi - a
    rows = []
    for i, r in enumerate(ranks):
        steps = [s["dur_ns"] for s in r["steps"]]
        rows.append({"rank": r["rank"], "step_us": (sum(steps) // len(steps)) / 1000.0,
                     "compute_us": r["compute_ns"] / 1000.0,
                     "comm_us": sum(e - s for s, e in r["comm"]) / 1000.0,
                     "wait_us": wait[i] / 2000.0, "last_arrivals": last[i],
                     "offset_us": off[i] / 2000.0})
    s = min(range(len(ranks)), key=lambda i: (-last[i], wait[i], i))
    for i, row in enumerate(rows):
        row["straggler"] = "yes" if i == s else "no"
    others = [rows[i]["wait_us"] for i in range(len(rows)) if i != s]
    strag = {"rank": rows[s]["rank"], "collectives": n, "last_arrivals": last[s],
             "wait_us": rows[s]["wait_us"], "others_median_wait_us": statistics.median(others),
             "others_waited_for_it_us": caused[s] / 2000.0, "step_us": rows[s]["step_us"]}
    return rows, strag


def same(want, got):
    if isinstance(want, str):
        return want == got
    g = float(got)
    return abs(g - want) <= 1e-9 * max(1.0, abs(want))


def compare(name, want_rows, path):
    bad = 0
    with open(path, newline="") as f:
        got = list(csv.DictReader(f))
    if len(got) != len(want_rows):
        print("%s: %d rows, expected %d" % (name, len(got), len(want_rows)))
        return 1
    for want, row in zip(want_rows, got):
        for k, v in want.items():
            if not same(v, row[k]):
                print("%s: rank %s: %s = %s, expected %r" % (name, want["rank"], k, row[k], v))
                bad += 1
    return bad


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    rows, strag = expected(load(sys.argv[1]))
    bad = compare("job", rows, sys.argv[2]) + compare("straggler", [strag], sys.argv[3])
    if bad == 0:
        print("ranks: %d ranks, straggler rank %s, %d collectives: every figure agrees"
              % (len(rows), strag["rank"], strag["collectives"]))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
