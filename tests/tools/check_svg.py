#!/usr/bin/env python3
"""Independent checks of the svg writer's files (tests/pipelines/valid/svg_*).

check_dir(DIR) checks every DIR/*.svg:
  - well-formed XML (xmllint --noout) in the SVG namespace, version 1.1,
    using only SVG 1.1 elements the writer is meant to use;
  - renders: rsvg-convert makes a PNG of the declared size;
  - no two <text> labels overlap, by the writer's own width estimate
    (docs/plugins/svg.md: narrow glyphs .36 em, wide .95, capitals .72,
    others .64, any non-ASCII character 1 em; box from 0.8 em above the
    baseline to 0.22 em below).
Helpers return the drawn tooltips (<title> of rects/paths) so a case's
check.py can compare drawn values with the CSV files of the same run.
"""
import os
import re
import shutil
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"
ALLOWED = {"svg", "title", "rect", "text", "line", "path", "circle", "polyline", "g"}


def fail(msg):
    print("check_svg: " + msg)
    sys.exit(1)


def glyph_em(ch):
    if ord(ch) >= 0x80:
        return 1.0
    if ch in "iljtfI.,:;'|!()[] ":
        return 0.36
    if ch in "MWmw@%":
        return 0.95
    if "A" <= ch <= "Z":
        return 0.72
    return 0.64


def text_box(el, default_size):
    size = float(el.get("font-size", default_size))
    x, y = float(el.get("x")), float(el.get("y"))
    text = el.text or ""
    if len(el):  # <title> first, the label after it
        text = el[-1].tail or ""
    w = sum(glyph_em(c) for c in text) * size
    anchor = el.get("text-anchor", "start")
    x0 = x if anchor == "start" else x - w / 2 if anchor == "middle" else x - w
    return (x0, y - 0.8 * size, x0 + w, y + 0.22 * size, text)


def overlaps(a, b):
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def check_file(path):
    if shutil.which("xmllint") is None or shutil.which("rsvg-convert") is None:
        fail("xmllint and rsvg-convert are needed (Debian libxml2-utils, librsvg2-bin)")
    r = subprocess.run(["xmllint", "--noout", path], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{path}: xmllint: {r.stderr.strip()}")
    root = ET.parse(path).getroot()
    if root.tag != NS + "svg" or root.get("version") != "1.1":
        fail(f"{path}: root is not an SVG 1.1 <svg>")
    for el in root.iter():
        if not el.tag.startswith(NS) or el.tag[len(NS):] not in ALLOWED:
            fail(f"{path}: unexpected element {el.tag}")
    width, height = int(root.get("width")), int(root.get("height"))
    png = path[:-4] + ".check.png"
    r = subprocess.run(["rsvg-convert", path, "-o", png], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"{path}: rsvg-convert: {r.stderr.strip()}")
    with open(png, "rb") as f:
        head = f.read(24)
    os.unlink(png)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or struct.unpack(">II", head[16:24]) != (width, height):
        fail(f"{path}: the rendered PNG is not {width}x{height}")
    size = float(root.get("font-size", "12"))
    boxes = [text_box(t, size) for t in root.iter(NS + "text")]
    for i in range(len(boxes)):
        for j in range(i + 1, len(boxes)):
            if overlaps(boxes[i], boxes[j]):
                fail(f"{path}: labels overlap: {boxes[i][4]!r} and {boxes[j][4]!r}")
    return root


def check_dir(d):
    files = sorted(f for f in os.listdir(d) if f.endswith(".svg"))
    if not files:
        fail(f"{d}: no .svg files")
    return {f: check_file(os.path.join(d, f)) for f in files}


def tooltips(root, tag):
    """The <title> texts of every `tag` element (rect, path, circle)."""
    out = []
    for el in root.iter(NS + tag):
        t = el.find(NS + "title")
        if t is not None:
            out.append(t.text)
    for g in root.iter(NS + "g"):  # pie slices: <g><title/><path/></g>
        t = g.find(NS + "title")
        if t is not None and g.find(NS + tag) is not None:
            out.append(t.text)
    return out


def labels(root):
    return [text_box(t, 12)[4] for t in root.iter(NS + "text")]


def number(text):
    m = re.search(r"(-?[0-9.]+)([kMGT]?)", text)
    scale = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m.group(2)]
    return float(m.group(1)) * scale


if __name__ == "__main__":
    check_dir(sys.argv[1])
    print("check_svg: ok")


def csv_rows(folder, name):
    """The rows of a CSV file a run wrote, as dicts."""
    import csv
    with open(os.path.join(folder, name), newline="") as f:
        return list(csv.DictReader(f))
