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
NCCL = CORPUS + "hta_nccl_data.json.gz"

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
        x = args.get("External id", args.get("external id"))
        self.ext = x if isinstance(x, int) else None
        self.fid = e.get("id") if self.ph in "stf" else None
        self.args = args


def load(path):
    with gzip.open(path) as f:
        d = json.load(f, parse_float=Decimal)
    return d, [Ev(i, e) for i, e in enumerate(d["traceEvents"])]


def id_key(v):
    """pid/tid order of trim_iterations' tie-break: numbers before texts."""
    return (isinstance(v, str), v)


def trim_steps(evs, marker):
    """The iterations: on each (pid, tid), the markers not nested inside an
    earlier one; the track with the most wins (ties: lowest pid, tid)."""
    tracks = {}
    for e in evs:
        if (e.ph == "X" and e.dur is not None and e.dur >= 0 and e.kind not in GPU
                and e.kind not in ("flow", "metadata") and re.search(marker, e.name)):
            tracks.setdefault((e.pid, e.tid), []).append(e)
    steps = {}
    for key, lst in tracks.items():
        lst.sort(key=lambda e: (e.ts, -e.end, e.row))
        steps[key] = []
        for e in lst:
            if not any(p.ts <= e.ts and e.end <= p.end for p in steps[key]):
                steps[key].append(e)
    best = min(steps, key=lambda k: (-len(steps[k]), id_key(k[0]), id_key(k[1])))
    return steps[best]


def trim(evs, skip, iters, marker=r"^ProfilerStep#\d+$"):
    """trim_iterations (docs/plugins/trim_iterations.md, "What is kept")."""
    chosen = trim_steps(evs, marker)[skip:skip + iters]
    assert len(chosen) == iters
    ws = chosen[0].ts
    we = max(e.end for e in chosen)
    keep = set()

    def overlap(e):
        if e.dur is not None and e.dur > 0:
            return e.ts < we and e.end > ws
        return ws <= e.ts <= we

    def inside(e):
        return ws <= e.ts and e.end <= we

    calls = {}  # correlation id -> runtime calls by start
    for e in evs:
        if e.kind == "runtime" and e.corr is not None:
            calls.setdefault(e.corr, []).append(e)
    for lst in calls.values():
        lst.sort(key=lambda e: (e.ts, e.row))

    def launcher(corr, ts):
        """last call of that id starting at or before ts, else the first"""
        lst = calls.get(corr, [])
        before = [r for r in lst if r.ts <= ts]
        return before[-1] if before else (lst[0] if lst else None)

    ann_ext = set()
    for e in evs:
        if e.kind == "metadata":
            keep.add(e.row)
        elif e.kind not in GPU and e.kind not in ("flow", "trace") and overlap(e):
            keep.add(e.row)
            if e.kind == "annotation" and e.ext is not None:
                ann_ext.add(e.ext)
    gpu_all = {e.corr for e in evs if e.kind in GPU and e.corr is not None}
    orphan_kept = set()
    work = {}  # (pid, tid) -> [(ts, end)] of kept launched GPU work
    for e in sorted((e for e in evs if e.kind in GPU),
                    key=lambda e: e.kind == "gpu_annotation"):
        ln = launcher(e.corr, e.ts)
        if ln is not None:
            ok = ln.row in keep
            if ok and e.kind != "gpu_annotation":
                work.setdefault((e.pid, e.tid), []).append((e.ts, e.end))
        elif inside(e):
            ok = True
            if e.corr is not None:
                orphan_kept.add(e.corr)
        elif e.kind == "gpu_annotation":
            ok = (e.ext in ann_ext or
                  any(e.ts <= s and t <= e.end for s, t in work.get((e.pid, e.tid), [])))
        else:
            ok = False
        if ok:
            keep.add(e.row)
    groups = {}
    for e in evs:
        if e.kind != "flow":
            continue
        launch_flow = e.cat != "fwdbwd" and e.fid is not None
        ln = launcher(e.fid, e.ts) if launch_flow else None
        if ln is not None:
            if ln.row in keep:
                keep.add(e.row)
        elif launch_flow and e.fid in gpu_all:
            if e.fid in orphan_kept:
                keep.add(e.row)
        elif e.fid is None:
            if ws <= e.ts <= we:
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


LAUNCHED = {"kernel", "memcpy", "memset"}


def launchers(evs):
    """GPU work -> runtime call with its correlation id starting last at or
    before it (the outermost on a tie), else the first such call."""
    calls = {}
    for e in evs:
        if e.kind == "runtime" and e.corr is not None:
            calls.setdefault(e.corr, []).append(e)
    out = {}
    for e in evs:
        if e.kind in LAUNCHED and e.corr in calls:
            lst = sorted(calls[e.corr], key=lambda r: (r.ts, -r.end, r.row))
            before = [r for r in lst if r.ts <= e.ts]
            if before:
                first_at = [r for r in before if r.ts == before[-1].ts]
                out[e.row] = first_at[0].row
            else:
                out[e.row] = lst[0].row
    return out


def regex_select(evs, include, keep_mode="matches", field="name", flags=0):
    """Without the hierarchy analysis: parents by time per (pid, tid) and
    launch links by correlation id; both count as "above"."""
    pats = [re.compile(p, flags) for p in include]
    text = (lambda e: e.name) if field == "name" else (lambda e: e.cat)
    matched = {e.row for e in evs if any(p.search(text(e)) for p in pats)}
    keep = set(matched)
    parent = parents_by_time(evs)
    launcher = launchers(evs)

    def ups(r):
        return [u for u in (parent.get(r), launcher.get(r)) if u is not None]

    if keep_mode in ("with_descendants", "with_both"):
        below = {}  # row -> lies at or below a match

        def resolve(r):
            todo = [r]
            while todo:
                x = todo[-1]
                if x in below:
                    todo.pop()
                    continue
                pending = [u for u in ups(x) if u not in below]
                if x not in matched and pending:
                    todo.extend(pending)
                    continue
                below[x] = x in matched or any(below[u] for u in ups(x))
                todo.pop()
            return below[r]

        keep.update(e.row for e in evs if resolve(e.row))
    if keep_mode in ("with_ancestors", "with_both"):
        todo = list(matched)
        seen = set(matched)
        while todo:
            for u in ups(todo.pop()):
                if u not in seen:
                    seen.add(u)
                    keep.add(u)
                    todo.append(u)
    keep.update(e.row for e in evs if e.kind == "metadata")
    return len(keep)


def time_window(evs, f0, f1, mode="overlap"):
    """The span leaves out metadata and the profiler's own span (kind
    trace), which is kept only inside the window.  mode starts: seed 004's
    trim_trace: span over starts, events starting strictly inside."""
    if mode == "starts":
        spans = [(e.ts, e.ts) for e in evs if e.kind not in ("metadata", "trace")]
    else:
        spans = [(e.ts, e.ts + e.dur) for e in evs
                 if e.dur is not None and e.kind not in ("metadata", "trace")]
    lo = min(s for s, _ in spans)
    hi = max(t for _, t in spans)
    ws = lo + round(Decimal(f0) * (hi - lo))
    we = lo + round(Decimal(f1) * (hi - lo))
    n = 0
    for e in evs:
        if e.kind == "metadata":
            n += 1
        elif mode == "starts":
            n += ws < e.ts and (e.end if e.kind == "trace" else e.ts) < we
        elif mode == "contained" or e.kind == "trace" or not e.dur:
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
    _, nccl = load(NCCL)
    print("CORPUS_NCCL_NCCL_ANC", regex_select(nccl, [r"(?i)nccl"], "with_ancestors"))
    print("CORPUS_DLRM_LAST_TENTH", time_window(dlrm, "0.9", "1.0"))
    print("CORPUS_DLRM_LAST_TENTH_CONTAINED", time_window(dlrm, "0.9", "1.0", "contained"))
    print("CORPUS_RESNET_SEED004_STARTS", time_window(resnet, "0.9", "1.0", "starts"),
          "of which metadata", sum(e.kind == "metadata" for e in resnet))
    print("CORPUS_NSRES_KERNELS_STREAM7", select(nsres, kinds={"kernel", "memcpy"}, streams={7}))
    dinfo, dlrm_evs = load(DLRM)
    assert dinfo["distributedInfo"]["rank"] == 0
    print("CORPUS_DLRM_RANK0_KERNELS", select(dlrm_evs, kinds={"kernel"}))


if __name__ == "__main__":
    main()
