"""Independent check of the markdown document: every table row has as many
cells as its header (an escaped | never splits one), text cells of the
kernel tables are at most max_name = 40 characters (cut ones end in the
ellipsis), the NCCL figures are the trace's (SendRecv 5 x 3999 us, AllReduce
3 x 1799 us, by hand from its "cat": "kernel" events), and the findings come
first with their long fix whole."""
import gzip, json, os, re, sys
from collections import defaultdict

text = open(os.path.join(sys.argv[1], "summary.md"), encoding="utf-8").read()
cells = lambda line: [c.strip() for c in re.split(r"(?<!\\)\|", line)[1:-1]]
unescape = lambda c: re.sub(r"\\(.)", r"\1", c)
tables, current = {}, None
for line in text.splitlines():
    if line.startswith("### "):
        current = line[4:].split(":")[0]
    elif line.startswith("|"):
        tables.setdefault(current, []).append(cells(line))
for name, rows in tables.items():
    assert all(len(r) == len(rows[0]) for r in rows), name
assert text.index("### advice") < text.index("### nccl.ops"), "findings first"
fix = tables["advice"][2][5]
assert unescape(fix).endswith("ncclWork*)") and len(unescape(fix)) > 40, fix
for name in ("nccl.ops", "k.ops"):
    for r in tables[name][2:]:
        for c in r[:2]:
            assert len(unescape(c)) <= 40, c
total, count = defaultdict(float), defaultdict(int)
for e in json.load(gzip.open("tests/data/dlrm_worker0_step12.pt.trace.json.gz"))["traceEvents"]:
    if e.get("cat") == "kernel" and "nccl" in e["name"]:
        total[e["name"]] += e["dur"]
        count[e["name"]] += 1
for r in tables["nccl.ops"][2:]:
    full = next(n for n in total if n.startswith(unescape(r[1]).rstrip("\u2026")))
    assert int(r[2]) == count[full] and float(r[3]) == total[full], (r, full)
    assert r[4] == "%.2f" % (total[full] / count[full]), r
assert "_No rows: the result is empty._" in text.split("### nccl.iterations")[1].split("###")[0]
assert "_106 more rows not shown (109 in all; option max_rows)._" in text
print("markdown_report: tables well formed, names cut at 40, NCCL figures from the trace")
