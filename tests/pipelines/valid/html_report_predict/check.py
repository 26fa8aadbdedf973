#!/usr/bin/env python3
"""The report's Summary against the hand values (83.25 % covered, GMAE 45.42 %,
pipeline.yaml) and against the (all) row of the summary's lossless JSON."""
import json
import math
import re
import sys

out = sys.argv[1]
page = open(f"{out}/report.html", encoding="utf-8").read()
cov = re.findall(r'<span class="coverage">([0-9.]+)</span>', page)
gmae = re.findall(r'<span class="gmae">([0-9.]+)</span>', page)
assert cov == ["83.25"] and gmae == ["45.42"], (cov, gmae)

res = json.load(open(f"{out}/summary.json"))["results"][0]
names = [c["name"] for c in res["columns"]]
rows = [dict(zip(names, r)) for r in res["rows"]]
total = max(rows, key=lambda r: r["coverage_percent"])
assert total["op"] == "(all)", total
assert f"{total['coverage_percent']:.2f}" == cov[0], total
assert f"{total['gmae_percent']:.2f}" == gmae[0], total
# hand: 52.2 of 62.7 us; cube root of the three relative errors' product
assert math.isclose(total["coverage_percent"], 100 * 52.2 / 62.7, rel_tol=1e-12)
e = [(3.7 - 1.344) / 3.7, (45 - 4194304 * 2 * 4 / 2039 / 1000) / 45, (3.5 - 2.688) / 3.5]
assert math.isclose(total["gmae_percent"], 100 * (e[0] * e[1] * e[2]) ** (1 / 3), rel_tol=1e-9)
print("report summary: coverage", cov[0], "GMAE", gmae[0])
