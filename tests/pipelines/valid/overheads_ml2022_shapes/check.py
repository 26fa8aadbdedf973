"""ml2022's shape keys rebuilt with Python: str((tuple(map(tuple, dims)),
((-1,),))) per op of the trace, against the CSV's shapes column and the
notebook's {name: {shapes: ...}} nesting."""
import csv, json, os, sys

def tup(x):
    return tuple(tup(v) for v in x) if isinstance(x, list) else x

ev = json.load(open("tests/data/hand/overheads_o1_shapes.json"))["traceEvents"]
key = {}
for e in ev:
    if e.get("cat") == "cpu_op":
        d = e.get("args", {}).get("Input Dims")
        key[e["name"]] = str((tup(d) if d is not None else ((-1,),), ((-1,),)))
out = sys.argv[1]
rows = list(csv.DictReader(open(os.path.join(out, "ml2022.csv"))))
n = 0
for r in rows:
    if r["overhead"] in ("t2", "t3", "t5"):
        assert r["shapes"] == key[r["key"]], (r["key"], r["shapes"], key[r["key"]])
        n += 1
nb = json.load(open(os.path.join(out, "notebook_ml2022.json")))
for t in ("t2", "t3", "t5"):
    for name, by in nb[t].items():
        assert list(by) == [key[name]], (t, name, list(by))
        assert len(by[key[name]]) == 3
want = {("t2", "aten::linear"): 6, ("t3", "aten::linear"): 27, ("t5", "aten::view"): 1,
        ("t3", "aten::to"): 0}
for (t, name), v in want.items():
    assert float([r for r in rows if r["overhead"] == t and r["key"] == name][0]["mean_us"]) == v
print("overheads_ml2022_shapes: %d keyed rows checked" % n)
