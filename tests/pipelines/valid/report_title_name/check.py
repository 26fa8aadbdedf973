"""The HTML report's title and heading are the pipeline's name and the trace's label (no
`title:` option); the markdown heading is the name."""
import os
import re
import sys

html = open(os.path.join(sys.argv[1], "report.html"), encoding="utf-8").read()
title = re.search(r"<title>(.*?)</title>", html, re.S).group(1)
h1 = re.search(r"<h1>(.*?)</h1>", html, re.S).group(1)
want = "nightly step check: kernel_steps"
if title != want or h1 != want:
    sys.exit("title %r, h1 %r: want %r" % (title, h1, want))
md = open(os.path.join(sys.argv[1], "summary.md"), encoding="utf-8").read()
if not md.startswith("## nightly step check\n"):
    sys.exit("markdown heading: %r" % md.splitlines()[0])
