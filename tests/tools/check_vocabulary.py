#!/usr/bin/env python3
"""Every linked launch counted once, in overheads' T4 and in launch_stats alike.

usage: check_vocabulary.py [--pipeline build/pipeline] TRACE...

For each Kineto trace, independently of tracepipe: a launch is a runtime or
driver call (cat cuda_runtime, cuda_driver, Runtime, *_runtime, *_driver)
whose correlation id a GPU activity (kernel, memcpy, memset) carries; of
several calls with the id, the longest (the outermost) launched it.  Counts
the distinct launching calls per call name, then runs overheads (default
definition) and launch_stats and checks, per API: overheads.by_api `linked`
and `counted` >= linked with `left_out` 0, T4's count for the API = the
API's `counted`, and launch_stats.by_api `calls` all equal those counts.
"""
import collections, csv, gzip, json, os, subprocess, sys, tempfile

PIPE = """stages:
  - reader: kineto
    path: {trace}
    keep_args: false
  - analysis: hierarchy
  - {{analysis: overheads, id: oh}}
  - {{analysis: launch_stats, id: ls}}
  - writer: csv
    input: [oh, oh.by_api, ls.by_api]
    path: {out}/{{id}}.csv
"""
GPU = ("kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset", "mtia_ccp_events")


def is_call(cat):
    return cat in ("cuda_runtime", "cuda_driver", "Runtime") or cat.endswith(("_runtime", "_driver"))


def corr(e):
    a = e.get("args") or {}
    return a.get("correlation", a.get("correlation id"))


def linked_calls(trace):
    doc = json.load(gzip.open(trace) if trace.endswith(".gz") else open(trace))
    ev = doc["traceEvents"] if isinstance(doc, dict) else doc
    calls = collections.defaultdict(list)
    for i, e in enumerate(ev):
        if e.get("ph") == "X" and is_call(e.get("cat", "")) and corr(e) is not None:
            calls[corr(e)].append(i)
    launched = set()
    for e in ev:
        if e.get("ph") == "X" and e.get("cat") in GPU and corr(e) in calls:
            launched.add(max(calls[corr(e)], key=lambda i: (float(ev[i].get("dur", 0)), -i)))
    return collections.Counter(ev[i]["name"] for i in launched)


def rows(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def check(pipeline, trace):
    want = linked_calls(trace)
    with tempfile.TemporaryDirectory() as d:
        with open(os.path.join(d, "p.yaml"), "w") as f:
            f.write(PIPE.format(trace=os.path.abspath(trace), out=d))
        subprocess.run([pipeline, "run", os.path.join(d, "p.yaml"), "-q", "--no-progress"], check=True)
        oh = {r["api"]: r for r in rows(os.path.join(d, "oh.by_api.csv"))}
        ls = {r["api"]: r for r in rows(os.path.join(d, "ls.by_api.csv"))}
        t4 = {r["key"]: int(r["count"]) for r in rows(os.path.join(d, "oh.csv")) if r["overhead"] == "t4"}
    bad = []
    for api in set(want) | set(ls) | {a for a, r in oh.items() if int(r["linked"])}:
        n = want.get(api, 0)
        o = oh.get(api, {})
        got = (int(o.get("linked", 0)), int(ls.get(api, {}).get("calls", 0)))
        if got != (n, n) or int(o.get("left_out", 0)) != 0:
            bad.append(f"{api}: linked {n}, overheads.by_api linked {got[0]} left_out "
                       f"{o.get('left_out')}, launch_stats.by_api calls {got[1]}")
    for api, r in oh.items():
        if t4.get(api, 0) != int(r["counted"]) or int(r["counted"]) != int(r["count"]):
            bad.append(f"{api}: T4 count {t4.get(api, 0)}, by_api counted {r['counted']} count {r['count']}")
    return sum(want.values()), bad


def main(argv):
    pipeline = "build/pipeline"
    if argv[:1] == ["--pipeline"]:
        pipeline, argv = argv[1], argv[2:]
    failed = 0
    for trace in argv:
        n, bad = check(pipeline, trace)
        for b in bad:
            print(f"{trace}: {b}")
        failed += bool(bad)
        if not bad:
            print(f"{os.path.basename(trace)}: {n} linked launches, each once in T4 and launch_stats")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
