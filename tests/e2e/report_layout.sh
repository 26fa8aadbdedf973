#!/bin/sh
# The report fits the page (issue 29 item 3): headless Chromium loads each
# report at 1400 px width with "#layout", where the page's own script
# measures itself and writes into <body data-layout>: the viewport's width,
# document.documentElement.scrollWidth, the numeric cells (td.n), how many of
# them end right of the viewport or are clipped (hidden), and how many text
# cells are cut with an ellipsis (cut).  It must say scroll <= 1400 and
# hidden=0, on:
#   - the largest corpus-derived Kineto trace in tests/data (by size) through
#     tests/pipelines/cli/report_layout.yaml (summary, advice, critical path,
#     every table);
#   - the 8 DLRM ranks as a batch through the bundled `ranks` pipeline (one
#     small chart per rank, the straggler, rank 7, highlighted);
#   - a diff of two DLRM ranks through the bundled `diff` pipeline;
#   - tests/data/hand/report_long_name.json, whose kernel name is 300
#     characters of ROCm `Cijk_...` without a space: cut on screen (cut >= 1)
#     with the whole name in the cell and its title.
# Skipped (exit 0, with the reason) only when Chromium cannot start.
#   sh tests/e2e/report_layout.sh [BUILD]    (from the repository root)
set -u
BUILD=${1:-build}
P="$BUILD/pipeline"
W=1400
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: report layout: $1"; }

browse() { # url, dom file
    timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage \
        --hide-scrollbars --window-size=$W,900 --user-data-dir="$tmp/profile" \
        --dump-dom "$1" >"$2" 2>>"$tmp/log"
}

printf '<!DOCTYPE html><html><body><p>up</p></body></html>\n' >"$tmp/probe.html"
if ! command -v chromium >/dev/null 2>&1; then
    echo "SKIP: report layout: chromium is not installed (make check installs Debian's chromium)"
    exit 0
fi
if ! browse "file://$tmp/probe.html" "$tmp/probe.dom" || ! grep -q '<p>up</p>' "$tmp/probe.dom"; then
    echo "SKIP: report layout: chromium cannot start:"; tail -3 "$tmp/log"
    exit 0
fi

# layout NAME REPORT: the page measured at W px
layout() {
    if [ ! -s "$2" ]; then ko "$1: no report written"; return; fi
    browse "file://$2#layout" "$tmp/$1.dom"
    m=$(grep -o 'data-layout="[^"]*"' "$tmp/$1.dom" | head -1)
    echo "report layout: $1: $m"
    width=$(echo "$m" | sed -n 's/.*width=\([0-9]*\).*/\1/p')
    scroll=$(echo "$m" | sed -n 's/.*scroll=\([0-9]*\).*/\1/p')
    cells=$(echo "$m" | sed -n 's/.*cells=\([0-9]*\).*/\1/p')
    hidden=$(echo "$m" | sed -n 's/.*hidden=\([0-9]*\).*/\1/p')
    if [ -z "$scroll" ]; then ko "$1: the page did not measure itself"; return; fi
    if [ "$width" = $W ]; then ok; else ko "$1: viewport $width px, expected $W"; fi
    if [ "$scroll" -le $W ]; then ok; else ko "$1: horizontal overflow: scrollWidth $scroll > $W"; fi
    if [ "$cells" -gt 0 ]; then ok; else ko "$1: no numeric cell measured"; fi
    if [ "$hidden" = 0 ]; then ok; else ko "$1: $hidden numeric cells off screen or clipped ($m)"; fi
    if grep -q '<h2>Summary</h2>' "$tmp/$1.dom"; then ok; else ko "$1: no summary"; fi
}

# the largest corpus-derived trace
big=$(ls -S tests/data/kineto/corpus/*.json.gz | head -1)
"$P" run tests/pipelines/cli/report_layout.yaml -q --set trace="$big" --set out="$tmp/big" \
    >/dev/null 2>"$tmp/err" || { ko "report_layout on $big failed"; cat "$tmp/err"; }
layout "largest-$(basename "$big")" "$tmp/big/report.html"
for fact in 'class="step"' 'class="busy"' 'class="kernel"' 'class="findings"' 'class="bound"'; do
    if grep -q "<tr $fact><th>[^<]*</th><td>[^<]*<b>\|<tr $fact><th>[^<]*</th><td>[0-9]\|<tr $fact><th>[^<]*</th><td><span class=\"name\"" "$tmp/largest-$(basename "$big").dom"; then ok
    else ko "largest: summary row $fact not measured"; fi
done

# the 8 DLRM ranks, a batch
mkdir -p "$tmp/ranks"
cp tests/data/dlrm_worker0_step12.pt.trace.json.gz tests/data/kineto/corpus/dlrm_worker[1-7]_step12.pt.trace.json.gz "$tmp/ranks/"
"$P" run ranks --input "$tmp/ranks" --set out="$tmp/rk" -q -j 2 >/dev/null 2>"$tmp/err" ||
    { ko "ranks batch failed"; cat "$tmp/err"; }
layout dlrm-8-ranks "$tmp/rk/report.html"
n=$(grep -o '<figure class="rank[^"]*">' "$tmp/dlrm-8-ranks.dom" | wc -l)
if [ "$n" = 8 ]; then ok; else ko "ranks: $n per-rank charts, expected 8"; fi
if grep -q '<figure class="rank straggler"><figcaption>rank 7 ' "$tmp/dlrm-8-ranks.dom"; then ok
else ko "ranks: rank 7 not highlighted as the straggler"; fi
n=$(grep -o '<tr[^>]*><td class="t">kineto_[0-9]</td>' "$tmp/dlrm-8-ranks.dom" | wc -l)
if [ "$n" = 8 ]; then ok; else ko "ranks: $n traces listed, expected 8"; fi

# a diff of two ranks
"$P" run diff -q --set base=tests/data/dlrm_worker0_step12.pt.trace.json.gz \
    --set test=tests/data/kineto/corpus/dlrm_worker1_step12.pt.trace.json.gz --set out="$tmp/df" \
    >/dev/null 2>"$tmp/err" || { ko "diff failed"; cat "$tmp/err"; }
layout diff-dlrm "$tmp/df/report.html"
if grep -q '<tr class="delta"><th>' "$tmp/diff-dlrm.dom"; then ok; else ko "diff: no delta in the summary"; fi
if grep -q '<h1>base vs test</h1>' "$tmp/diff-dlrm.dom"; then ok; else ko "diff: title"; fi

# 300 characters of Cijk_ without a space
"$P" run tests/pipelines/cli/report_layout.yaml -q --set out="$tmp/long" >/dev/null 2>"$tmp/err" ||
    { ko "report_layout on the hand trace failed"; cat "$tmp/err"; }
layout long-name "$tmp/long/report.html"
name=$(python3 -c 'import json; print(max((e["name"] for e in json.load(open("tests/data/hand/report_long_name.json"))["traceEvents"]), key=len))')
if [ ${#name} = 300 ]; then ok; else ko "the hand trace's long name is ${#name} characters"; fi
if grep -qF "<td title=\"$name\">$name</td>" "$tmp/long-name.dom"; then ok
else ko "long-name: the whole name is not in a cell and its title"; fi
cut=$(grep -o 'data-layout="[^"]*"' "$tmp/long-name.dom" | sed -n 's/.*cut=\([0-9]*\).*/\1/p')
if [ "${cut:-0}" -ge 1 ]; then ok; else ko "long-name: no text cell cut with an ellipsis"; fi
if grep -q '<h1>report_long_name</h1>' "$tmp/long-name.dom"; then ok; else ko "long-name: title from the trace"; fi

echo "report layout: $pass passed, $fail failed"
[ $fail = 0 ]
