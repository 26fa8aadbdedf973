#!/bin/sh
# html_report in a real browser (issue 16, item 2): pipelines/dlrm_breakdown.yaml
# writes report.html; headless Chromium loads it and the DOM it dumps must
# hold the headings, the charts and the tables, the page's script must have
# run (body data-ready) and sorted a table correctly (#selftest), and the
# page must log no console error.  Release suite only (Chromium under the
# sanitizer pass would test Chromium).
#   sh tests/e2e/report_chromium.sh [BUILD]    (from the repository root)
set -u
BUILD=${1:-build}
P="$BUILD/pipeline"
if ! command -v chromium >/dev/null 2>&1; then
    echo "FAIL: report: chromium is not installed (Debian package chromium; make check installs it)"
    exit 1
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: report: $1"; }

if ! "$P" run pipelines/dlrm_breakdown.yaml -q --set out="$tmp/out" >/dev/null 2>"$tmp/err"; then
    ko "dlrm_breakdown failed"; cat "$tmp/err"; exit 1
fi
report="$tmp/out/report.html"
# its own profile folder: no state from (or to) any other run
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --user-data-dir="$tmp/profile" \
    --enable-logging=stderr --v=0 --dump-dom "file://$report#selftest" \
    >"$tmp/dom" 2>"$tmp/log"
rc=$?
if [ $rc != 0 ] || [ ! -s "$tmp/dom" ]; then ko "chromium exit $rc"; tail -5 "$tmp/log"; fi
for want in '<h1>dlrm_breakdown: dlrm_worker0_step12</h1>' '<h2>Summary</h2>' '<h2>Traces</h2>' '<h2>Charts</h2>' \
    '<h2>Results</h2>' 'id="r-host"' 'id="r-device.streams"' 'id="r-iterations"' \
    '<figcaption>host_pie.svg</figcaption>' '<figcaption>streams_active.svg</figcaption>' \
    '<figcaption>stream_ops.svg</figcaption>' '<figcaption>iterations.svg</figcaption>' \
    'Tesla V100-SXM2-32GB' '<th>iterations</th><td>1 (10 to 10, result iterations)</td>' \
    'data-ready="1"' 'data-selftest="ok"'; do
    if grep -qF -- "$want" "$tmp/dom"; then ok; else ko "rendered page lacks $want"; fi
done
svgs=$(grep -o '<svg' "$tmp/dom" | wc -l)
if [ "$svgs" = 4 ]; then ok; else ko "$svgs charts rendered, expected 4"; fi
# the page's console: any message from the report's own file is an error here
if grep -E 'CONSOLE|Uncaught' "$tmp/log" | grep -q "report.html"; then
    ko "console messages:"; grep -E 'CONSOLE|Uncaught' "$tmp/log" | head -5
else ok; fi
# the test itself catches a script error (a broken copy of the page)
sed 's/document.body.setAttribute(.data-ready.,.1.);/undefinedFunction();/' "$report" \
    > "$tmp/out/broken.html"
timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --user-data-dir="$tmp/profile" \
    --enable-logging=stderr --v=0 --dump-dom "file://$tmp/out/broken.html" \
    >"$tmp/dom2" 2>"$tmp/log2"
if grep -E 'CONSOLE|Uncaught' "$tmp/log2" | grep -q "broken.html" &&
    ! grep -q 'data-ready="1"' "$tmp/dom2"; then ok; else ko "a script error went unnoticed"; fi
echo "report: $pass passed, $fail failed"
[ $fail = 0 ]
