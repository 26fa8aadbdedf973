#!/usr/bin/env python3
"""The report's page against the run's CSV files: headings, escaped title,
both charts inline (from their <svg>, no XML prolog), every shown cell of
host and kernels, the tree's indentation, the max_rows note."""
import csv
import os
import sys
from html.parser import HTMLParser

out = sys.argv[1]


class Page(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables, self.h = [], []
        self.cur = self.row = self.cell = None
        self.text = ""
        self.svgs = 0
        self.in_h = None
        self.indents = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag in ("h1", "h2", "h3"):
            self.in_h = [tag, a.get("id"), ""]
        elif tag == "table":
            self.cur = {"id": self.h[-1][1] if self.h else None, "rows": [], "class": a.get("class")}
        elif tag == "tr" and self.cur is not None:
            self.row = []
        elif tag in ("td", "th") and self.row is not None:
            self.cell = ""
            if tag == "td" and "style" in a:
                self.indents.append(a["style"])
        elif tag == "svg":
            self.svgs += 1

    def handle_endtag(self, tag):
        if tag in ("h1", "h2", "h3") and self.in_h:
            self.h.append(tuple(self.in_h))
            self.in_h = None
        elif tag in ("td", "th") and self.cell is not None:
            self.row.append(self.cell)
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.cur["rows"].append(self.row)
            self.row = None
        elif tag == "table" and self.cur is not None:
            self.tables.append(self.cur)
            self.cur = None

    def handle_data(self, data):
        if self.in_h:
            self.in_h[2] += data
        if self.cell is not None:
            self.cell += data


text = open(os.path.join(out, "report.html"), encoding="utf-8").read()
assert "<?xml" not in text, "an SVG prolog inside the page"
assert "http://" not in text.replace("http://www.w3.org/2000/svg", ""), "a network address"
assert "&lt;report&gt; &amp; more" in text, "title not escaped"
p = Page()
p.feed(text)
heads = [h[2] for h in p.h]
assert heads[0] == "DLRM rank 0 <report> & more", heads[0]
assert "Traces" in heads and "Charts" in heads and "Results" in heads, heads
assert p.svgs == 2, p.svgs
tables = {t["id"]: t for t in p.tables if t["id"]}


def rows(name):
    with open(os.path.join(out, name), newline="") as f:
        return list(csv.DictReader(f))


def shown(v):
    x = float(v)
    return "%.3g" % x if x != 0 and abs(x) < 0.01 else "%.2f" % x


# host: a tree in its order, names indented by depth, every cell as in host.csv
host = tables["r-host"]
assert host["class"] == "tree"
header = host["rows"][0]
assert header[:5] == ["id", "parent_id", "depth", "name", "time_us"], header
want = rows("host.csv")
assert len(host["rows"]) - 1 == min(len(want), 10)
for got, w in zip(host["rows"][1:], want):
    assert got[3] == w["name"], (got, w)
    assert got[4] == shown(w["time_us"]), (got[4], w["time_us"])
    assert got[2] == w["depth"]
assert any("padding-left" in s for s in p.indents)
# kernels: sortable, names unescaped back equal to the CSV, 10 rows and a note
k = tables["r-kernels"]
assert k["class"] == "sortable"
kw = rows("kernels.csv")
assert [r[0] for r in k["rows"][1:]] == [r["name"] for r in kw[:10]]
assert [r[2] for r in k["rows"][1:]] == [shown(r["sum_us"]) for r in kw[:10]]
assert any("<" in r[0] for r in k["rows"][1:]), "no kernel name with < to test escaping"
more = len(kw) - 10
assert f"{more} more rows not shown" in text, more
print("html_report_dlrm: ok")
