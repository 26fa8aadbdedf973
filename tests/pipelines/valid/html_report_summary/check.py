#!/usr/bin/env python3
"""The summary at the top of the report, recomputed from the raw hand trace:
step time, GPU busy over the window, exposed communication over the device's
span, the top kernel and its share; the findings link to rows of the advice
table that exist and name the rule; the 300-character kernel name is whole
in its cell and title; the summary comes before the traces and results."""
import json
import os
import re
import sys
from html import unescape

sys.path.insert(0, "tests/tools")
from tracecheck import union  # noqa: E402

out = sys.argv[1]
trace = json.load(open("tests/data/hand/report_long_name.json"))["traceEvents"]
html = open(os.path.join(out, "report.html"), encoding="utf-8").read()


def overlap(a, b):
    return sum(max(0, min(e1, e2) - max(s1, s2)) for s1, e1 in a for s2, e2 in b)


kern = [e for e in trace if e["cat"] == "kernel"]
step = [e for e in trace if e["name"].startswith("ProfilerStep#")][0]["dur"]
window = max(e["ts"] + e["dur"] for e in trace) - min(e["ts"] for e in trace)
busy = union([(e["ts"], e["ts"] + e["dur"]) for e in kern])
comm = [(e["ts"], e["ts"] + e["dur"]) for e in kern if e["name"].startswith("nccl")]
comp = [(e["ts"], e["ts"] + e["dur"]) for e in kern if not e["name"].startswith("nccl")]
span = max(e["ts"] + e["dur"] for e in kern) - min(e["ts"] for e in kern)
exposed = union(comm) - overlap(comm, comp)  # one comm kernel: no double count
top = max(kern, key=lambda e: e["dur"])
share = 100 * top["dur"] / sum(e["dur"] for e in kern)


def row(cls):
    m = re.search(r'<tr class="%s"><th>[^<]*</th><td>(.*?)</td></tr>' % cls, html, re.S)
    assert m, cls
    return unescape(re.sub(r"<[^>]+>", "", m.group(1)))


assert row("step").startswith("%g ms (median of 1 iteration)" % (step / 1000)), row("step")
assert row("busy").startswith("%.1f %% of %g ms (window_us)" % (100 * busy / window, window / 1000)), row("busy")
assert row("comm").startswith("device 0: %g us (%.1f %% of its span)" % (exposed, 100 * exposed / span)), row("comm")
assert row("kernel").startswith("%s %g us (%.1f %% of GPU activity time)" % (top["name"], top["dur"], share)), row("kernel")
assert len(top["name"]) == 300 and " " not in top["name"]
# the findings: each links to a row of the advice table naming its rule
links = re.findall(r'<a href="#(r-advice-\d+)">([a-z_0-9]+)</a>', html)
assert [r for _, r in links][:2] == ["exposed_comm", "comm_overlap"], links
for anchor, rule in links:
    assert re.search(r'<tr id="%s"><td title="%s">%s</td>' % (anchor, rule, rule), html), anchor
assert "gpu_idle" not in [r for _, r in links]
# the whole long name in a cell and its title (cut on screen by CSS only)
assert '<td title="%s">%s</td>' % (top["name"], top["name"]) in html
order = [html.index(s) for s in ('id="summary"', 'id="traces"', 'id="results"')]
assert order == sorted(order), order
assert "<h1>report_long_name</h1>" in html, "title from the trace's label"
print("html_report_summary: step %g us, busy %.1f %%, exposed %g us (%.1f %%), top kernel %.1f %%, "
      "%d findings linked" % (step, 100 * busy / window, exposed, 100 * exposed / span, share, len(links)))
