#!/usr/bin/env python3
"""Independent reference for the corpus counts asserted in check_filters.c.

Re-implements the selections of the filters trim_iterations, regex_select,
time_window and select in plain Python over the raw JSON (exact nanosecond
times via Decimal, Python's re module instead of PCRE2), and prints the
number of events each corpus case keeps.  Run from the repository root:

    python3 tests/plugins/filters_reference.py

and compare with the CORPUS_* constants in tests/plugins/check_filters.c.
"""
import gzip
import json
import re
from decimal import Decimal

CORPUS = "tests/data/kineto/corpus/"
RESNET = CORPUS + "kineto_tbplugin_resnet50_profapi_nw0_2021-01.pt.trace.json.gz"
NSRES = CORPUS + "hta_ns_resolution_rank0.pt.trace.json.gz"
DLRM = "tests/data/dlrm_worker0_step12.pt.trace.json.gz"

GPU = {"kernel", "memcpy", "memset", "gpu_annotation"}
CATS = {
    "cpu_op": "cpu_op", "Operator": "cpu_op", "kernel": "kernel", "Kernel": "kernel",
    "cuda_runtime": "runtime", "cuda_driver": "runtime", "Runtime": "runtime",
    "user_annotation": "annotation", "gpu_user_annotation": "gpu_annotation",
    "python_function": "python", "gpu_memcpy": "memcpy", "Memcpy": "memcpy",
    "gpu_memset": "memset", "Memset": "memset", "ac2g": "flow", "async_cpu_to_gpu": "flow",
    "async_gpu": "flow", "fwdbwd": "flow", "cpu_instant_event": "instant", "Trace": "trace",
}


def kind_of(e):
    ph, cat = e["ph"], e.get("cat", "")
    if ph == "M":
        return "metadata"
    if ph == "C":
        return "counter"
    if cat in CATS:
        return CATS[cat]
    if cat.endswith("_runtime") or cat.endswith("_driver"):
        return "runtime"
    if ph in "stf":
        return "flow"
    if ph in "iI":
        return "instant"
    return "other"


def ns(v):
    x = Decimal(v) * 1000
    assert x == int(x), v
    return int(x)


class Ev:
    def __init__(self, row, e):
        self.row, self.ph, self.name = row, e["ph"], e.get("name", "")
        self.cat = e.get("cat", "")
        self.kind = kind_of(e)
        self.ts = ns(e.get("ts", 0))
        self.dur = ns(e["dur"]) if "dur" in e else None
        self.end = self.ts + max(self.dur or 0, 0)
        self.pid, self.tid = e.get("pid", ""), e.get("tid", "")
        args = e.get("args", {})
        c = args.get("correlation")
        self.corr = c if isinstance(c, int) else None
        self.fid = e.get("id") if self.ph in "stf" else None
        self.args = args


def load(path):
    with gzip.open(path) as f:
        d = json.load(f, parse_float=Decimal)
    return d, [Ev(i, e) for i, e in enumerate(d["traceEvents"])]


def trim(evs, skip, iters, marker=r"^ProfilerStep#\d+$"):
    marks = sorted((e.ts, e.row) for e in evs
                   if e.ph == "X" and e.dur is not None and e.kind not in GPU
                   and e.kind not in ("flow", "metadata") and re.search(marker, e.name))
    chosen = marks[skip:skip + iters]
    assert len(chosen) == iters
    ws = chosen[0][0]
    we = max(evs[r].end for _, r in chosen)
    keep = set()

    def overlap(e):
        if e.dur is not None and e.dur > 0:
            return e.ts < we and e.end > ws
        return ws <= e.ts <= we

    rt_all, rt_kept, gpu_all, gpu_kept = set(), set(), set(), set()
    for e in evs:
        if e.kind == "metadata":
            keep.add(e.row)
        elif e.kind in GPU:
            if e.corr is not None:
                gpu_all.add(e.corr)
        elif e.kind != "flow" and overlap(e):
            keep.add(e.row)
        if e.kind == "runtime" and e.corr is not None:
            rt_all.add(e.corr)
            if e.row in keep:
                rt_kept.add(e.corr)
    for e in evs:
        if e.kind in GPU and ((e.corr in rt_kept) or (ws <= e.ts and e.end <= we)):
            keep.add(e.row)
            if e.corr is not None:
                gpu_kept.add(e.corr)
    groups = {}
    for e in evs:
        if e.kind != "flow":
            continue
        if e.cat != "fwdbwd" and (e.fid in rt_all or e.fid in gpu_all):
            if e.fid in rt_kept or (e.fid not in rt_all and e.fid in gpu_kept):
                keep.add(e.row)
        else:
            groups.setdefault((e.cat, e.fid), []).append(e)
    for g in groups.values():
        if all(ws <= e.ts <= we for e in g):
            keep.update(e.row for e in g)
    return len(keep)


def parents_by_time(evs):
    parent = {}
    threads = {}
    for e in evs:
        if e.ph == "X" and e.dur is not None and e.kind not in ("flow", "metadata", "counter"):
            threads.setdefault((str(e.pid), str(e.tid)), []).append(e)
    for lst in threads.values():
        lst.sort(key=lambda e: (e.ts, -(e.ts + e.dur), e.row))
        stack = []
        for e in lst:
            while stack and not (e.ts + e.dur <= stack[-1].end and e.ts < stack[-1].end):
                stack.pop()
            parent[e.row] = stack[-1].row if stack else None
            stack.append(e)
    return parent


def regex_select(evs, include, keep_mode="matches", field="name", flags=0):
    pats = [re.compile(p, flags) for p in include]
    text = (lambda e: e.name) if field == "name" else (lambda e: e.cat)
    matched = {e.row for e in evs if any(p.search(text(e)) for p in pats)}
    keep = set(matched)
    parent = parents_by_time(evs)
    if keep_mode in ("with_descendants", "with_both"):
        for e in evs:
            r = e.row
            while r is not None:
                if r in matched:
                    keep.add(e.row)
                    break
                r = parent.get(r)
    if keep_mode in ("with_ancestors", "with_both"):
        for r in matched:
            p = parent.get(r)
            while p is not None:
                keep.add(p)
                p = parent.get(p)
    keep.update(e.row for e in evs if e.kind == "metadata")
    return len(keep)


def time_window(evs, f0, f1, contained=False):
    spans = [e for e in evs if e.dur is not None and e.kind != "metadata"]
    lo = min(e.ts for e in spans)
    hi = max(e.ts + e.dur for e in spans)
    ws = lo + round(Decimal(f0) * (hi - lo))
    we = lo + round(Decimal(f1) * (hi - lo))
    n = 0
    for e in evs:
        if e.kind == "metadata":
            n += 1
        elif contained or not e.dur:
            n += ws <= e.ts and e.end <= we
        else:
            n += e.ts < we and e.end > ws
    return n


def select(evs, kinds=None, streams=None):
    n = 0
    for e in evs:
        stream = e.args.get("stream") if e.kind in GPU else None
        if stream is None and e.kind in GPU and isinstance(e.tid, int):
            stream = e.tid
        n += (kinds is None or e.kind in kinds) and (streams is None or stream in streams)
    return n


def main():
    _, resnet = load(RESNET)
    _, nsres = load(NSRES)
    _, dlrm = load(DLRM)
    print("CORPUS_RESNET_EVENTS", len(resnet))
    print("CORPUS_RESNET_TRIM_SKIP1_KEEP2", trim(resnet, 1, 2))
    print("CORPUS_NSRES_TRIM_DEFAULT", trim(nsres, 0, 1))
    print("CORPUS_NSRES_TRIM_SKIP2_KEEP3", trim(nsres, 2, 3))
    print("CORPUS_RESNET_CONV_BN_DESC",
          regex_select(resnet, [r"^aten::(?:conv|batch_norm)"], "with_descendants"))
    print("CORPUS_NSRES_NCCL_ANC", regex_select(nsres, [r"(?i)nccl"], "with_ancestors"))
    print("CORPUS_DLRM_LAST_TENTH", time_window(dlrm, "0.9", "1.0"))
    print("CORPUS_DLRM_LAST_TENTH_CONTAINED", time_window(dlrm, "0.9", "1.0", contained=True))
    print("CORPUS_NSRES_KERNELS_STREAM7", select(nsres, kinds={"kernel", "memcpy"}, streams={7}))
    dinfo, dlrm_evs = load(DLRM)
    assert dinfo["distributedInfo"]["rank"] == 0
    print("CORPUS_DLRM_RANK0_KERNELS", select(dlrm_evs, kinds={"kernel"}))


if __name__ == "__main__":
    main()
