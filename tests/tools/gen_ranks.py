#!/usr/bin/env python3
"""Writes a generated data-parallel job: N rank traces of about S bytes each.

    python3 tests/tools/gen_ranks.py OUT --ranks 128 --size 2M [--straggler R] [-j 2]

OUT/rank<R>.json for each rank (tests/tools/gen_trace.py's rank mode: an NCCL
all-reduce per step on a common schedule, clocks a few microseconds apart, one
straggler that pauses before each all-reduce), its expectations in
OUT.expected/rank<R>.json.  The size
is per rank (the steps it takes, ~175 KB each).  TP_RANKS_JOB=NxS (e.g. 128x2M)
sets --ranks and --size when they are not given: CI runs it small, a machine
with the disk runs it at 128 x 150M (docs/performance.md).
tests/tools/check_ranks.py recomputes what `ranks` finds from the expectations.
"""
import argparse
import multiprocessing
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_trace  # noqa: E402

STEP_BYTES = 175_000  # one generated step, measured


def one(args):
    out, rank, world, straggler, steps = args
    path = os.path.join(out, "rank%d.json" % rank)
    gen_trace.write_trace(path, iterations=steps, seed=1000 + rank,
                          dist=gen_trace.job_rank(rank, world, straggler))
    # beside the folder, not in it: a batch over OUT sees traces only
    os.replace(path + ".expected.json", os.path.join(out + ".expected", "rank%d.json" % rank))
    return rank


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--ranks", type=int)
    ap.add_argument("--size", help="per rank, e.g. 2M, 150M")
    ap.add_argument("--straggler", type=int, help="default: the rank in the middle")
    ap.add_argument("-j", "--jobs", type=int, default=2)
    a = ap.parse_args()
    job = os.environ.get("TP_RANKS_JOB", "128x2M").lower().split("x")
    ranks = a.ranks or int(job[0])
    size = gen_trace.parse_size(a.size or job[1])
    straggler = a.straggler if a.straggler is not None else ranks // 2 + 1
    steps = max(2, size // STEP_BYTES)
    os.makedirs(a.out, exist_ok=True)
    os.makedirs(a.out + ".expected", exist_ok=True)
    work = [(a.out, r, ranks, straggler, steps) for r in range(ranks)]
    with multiprocessing.Pool(max(1, a.jobs)) as pool:
        for _ in pool.imap_unordered(one, work):
            pass
    print("%d ranks x %d steps (~%.1f MB each), straggler rank %d, in %s"
          % (ranks, steps, steps * STEP_BYTES / 1e6, straggler, a.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
