"""Independent check of the Python-stack host tree: with the python_function
frames left out, the roots are ProfilerStep#6 and the trailing
cudaDeviceSynchronize, and the step's children by name (count and summed
duration) are the host events whose innermost enclosing host event is the
step.  No tracepipe code involved: containment by plain interval tests."""
import csv, gzip, json, os, sys

src = json.load(gzip.open("tests/data/kineto/corpus/tracelens_h100_bert_small.json.gz"))["traceEvents"]
HOST = {"cpu_op", "user_annotation", "cuda_runtime", "cuda_driver"}
ev = [e for e in src if e.get("ph") == "X" and e.get("cat") in HOST]
ev.sort(key=lambda e: (e["tid"], e["ts"], -e["dur"]))
parent, stack = {}, []
for i, e in enumerate(ev):
    while stack and (ev[stack[-1]]["tid"] != e["tid"]
                     or ev[stack[-1]]["ts"] + ev[stack[-1]]["dur"] < e["ts"] + e["dur"] - 1e-3):
        stack.pop()
    parent[i] = stack[-1] if stack else None
    stack.append(i)
roots = [ev[i] for i in parent if parent[i] is None]
assert [r["name"] for r in roots] == ["ProfilerStep#6", "cudaDeviceSynchronize"], [r["name"] for r in roots]
step = ev.index(roots[0])
kids = {}
for i, p in parent.items():
    if p == step:
        k = kids.setdefault(ev[i]["name"], [0, 0.0]); k[0] += 1; k[1] += ev[i]["dur"]
rows = list(csv.DictReader(open(os.path.join(sys.argv[1], "host.csv"))))
runtime = roots[-1]["ts"] + roots[-1]["dur"] - roots[0]["ts"]
assert abs(float(rows[0]["time_us"]) - runtime) < 1e-3, (rows[0], runtime)
assert rows[1]["name"] == "ProfilerStep#6" and abs(float(rows[1]["time_us"]) - roots[0]["dur"]) < 1e-3
named = [r for r in rows if r["parent_id"] == rows[1]["id"] and r["name"] not in ("Others", "Unaccounted")]
assert len(named) >= 3, named
for r in named:
    cnt, dur = kids[r["name"]]
    assert int(r["count"]) == cnt and abs(float(r["time_us"]) - dur) < 1e-3, (r, cnt, dur)
top = sorted(kids.items(), key=lambda kv: -kv[1][1])[:len(named)]
assert [k for k, _ in top] == [r["name"] for r in named], (top, named)
print("python_stacks: roots, runtime %.3f us and the step's top %d children checked" % (runtime, len(named)))
