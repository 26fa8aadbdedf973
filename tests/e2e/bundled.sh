#!/bin/sh
# Every bundled pipeline by name from a scratch folder outside the tree
# (issue 35): installed into a scratch prefix (the release build) or, for
# another build (build/san), found through $TRACEPIPE_PIPELINE_PATH.
#  - without --set: it runs (seed004_predictors: its table is installed
#    beside it, ${pipeline_dir}/data) or fails with a hint whose every
#    `--set NAME=` names a variable the pipeline declares;
#  - with the hint's variables set to the sample traces (a Kineto trace):
#    exit 0 and every literal ${out}/FILE of the pipeline written;
#  - on an nsys export where its first reader is `auto` or `nsys` (ranks
#    and diff: not on one nsys trace, ranks needs two ranks);
#  - a closed standard output: the files are still written, exit 141.
#   sh tests/e2e/bundled.sh [BUILD]    (from the repository root)
set -u
BUILD=${1:-build}
SRC=$PWD
pass=0
fail=0
tmp=$(mktemp -d)
chmod 755 "$tmp"
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: bundled: $1"; [ -f "$tmp/err" ] && head -5 "$tmp/err"; }
if [ "$BUILD" = build ]; then
    make -s install PREFIX="$tmp/prefix" BUILD="$BUILD" >/dev/null || { echo "FAIL: bundled: install"; exit 1; }
    P="$tmp/prefix/bin/pipeline"
    unset TRACEPIPE_PIPELINE_PATH
else
    P="$SRC/$BUILD/pipeline"
    export TRACEPIPE_PIPELINE_PATH="$SRC/pipelines"
fi
NSYS="$SRC/tests/data/nsys/pipit_saxpy_mpi_cuda_perlmutter0.sqlite"
mkdir -p "$tmp/work"
cd "$tmp/work" || exit 1

declared() { grep -q "^  $2:" "$SRC/pipelines/$1.yaml"; }    # vars: are the first mapping indented by 2
default_of() { sed -n "s/^  $2: *\([^ #]*\).*/\1/p" "$SRC/pipelines/$1.yaml" | head -1; }
outputs_written() { # pipeline, out folder
    for f in $(sed -n 's/.*path: *\${out}\/\([^{}]*\)$/\1/p' "$SRC/pipelines/$1.yaml"); do
        [ -s "$2/$f" ] || { echo "$2/$f"; return 1; }
    done
    [ -n "$(ls -A "$2" 2>/dev/null)" ]
}

for yaml in "$SRC"/pipelines/*.yaml; do
    p=$(basename "$yaml" .yaml)
    "$P" run "$p" --set out="$tmp/o/$p/plain" >/dev/null 2>"$tmp/err"
    rc=$?
    sets=$(sed -n 's/.*hint:.*give yours: pipeline run [^ ]*\(.*\) (or --input.*/\1/p' "$tmp/err")
    if [ $rc = 0 ]; then
        if outputs_written "$p" "$tmp/o/$p/plain" >/dev/null; then ok; else ko "$p: outputs"; fi
        continue
    fi
    [ -n "$sets" ] || { ko "$p: failed without a hint (exit $rc)"; continue; }
    args=""
    bad=""
    for s in $sets; do
        case $s in --set) continue ;; esac
        name=${s%%=*}
        if declared "$p" "$name"; then args="$args --set $name=$SRC/$(default_of "$p" "$name")"
        else bad="$bad $name"; fi
    done
    [ -z "$bad" ] && ok || ko "$p: the hint names undeclared variable(s):$bad"
    # the hint followed: the sample traces given by their absolute paths
    # shellcheck disable=SC2086
    "$P" run "$p" $args --set out="$tmp/o/$p/kineto" >/dev/null 2>"$tmp/err"
    rc=$?
    if [ $rc != 0 ]; then ko "$p: with$args: exit $rc"
    elif ! outputs_written "$p" "$tmp/o/$p/kineto" >"$tmp/missing"; then ko "$p: missing $(cat "$tmp/missing")"
    else ok; fi
    reader=$(sed -n 's/^  - reader: *\([a-z_]*\).*/\1/p' "$yaml" | head -1)
    case "$p:$reader" in ranks:* | diff:*) continue ;; *:auto | *:nsys) ;; *) continue ;; esac
    "$P" run "$p" --set trace="$NSYS" --set out="$tmp/o/$p/nsys" >/dev/null 2>"$tmp/err"
    rc=$?
    if [ $rc != 0 ]; then ko "$p on an nsys export: exit $rc"
    elif ! outputs_written "$p" "$tmp/o/$p/nsys" >"$tmp/missing"; then ko "$p on nsys: missing $(cat "$tmp/missing")"
    else ok; fi
done

# dlrm_breakdown's batch_size: 2048 samples x 1 iteration / 14504 us = 141202.43 samples/s
"$P" run dlrm_breakdown --set trace="$SRC/tests/data/dlrm_worker0_step12.pt.trace.json.gz" \
    --set batch_size=2048 --set out="$tmp/o/bs" -q >/dev/null 2>"$tmp/err"
if grep -q '^14504,1,2048,141202.4269' "$tmp/o/bs/host.summary.csv"; then ok
else ko "batch_size: $(tail -1 "$tmp/o/bs/host.summary.csv")"; fi

# dlrm_breakdown's report measures every summary field on its sample (issue 29): step 14504 us
# (the one iteration), GPU busy 6590 / 14504 = 45.4 % (device_breakdown), exposed communication
# 5537 us = 42.6 % of device 0's 13009 us span (streams; advice's exposed_comm says 5537.0),
# top kernel ncclKernel_SendRecv 3999 us (kernel_stats), 11 findings (advice)
if python3 - "$tmp/o/bs/report.html" <<'PY'
import re, sys
h = open(sys.argv[1], encoding="utf-8").read()
facts = {m.group(1): re.sub(r"<[^>]+>", "", m.group(2)) for m in
         re.finditer(r'<tr class="(\w+)"><th>[^<]*</th><td>(.*?)</td></tr>', h, re.S)}
want = {"step": "14.5 ms (median of 1 iteration)", "busy": "45.4 % of 14.5 ms",
        "comm": "device 0: 5.54 ms (42.6 % of its span)",
        "kernel": "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, "
                  "ncclWork*) 4 ms (58.4 % of GPU activity time)",
        "findings": "11 findings"}
bad = [(k, facts.get(k)) for k, v in want.items() if not (facts.get(k) or "").startswith(v)]
sys.exit("%s; not measured: %d" % (bad, h.count('class="nm"')) if bad or 'class="nm"' in h else 0)
PY
then ok; else ko "dlrm_breakdown's report summary"; fi

# inference's sample: one vLLM step of 9 prefill and 37 decode requests, 8155 + 37 = 8192 tokens
"$P" run inference --set trace="$SRC/tests/data/kineto/corpus/tracelens_vllm_prefilldecode_piecewise.json.gz" \
    --set out="$tmp/o/inf" -q >/dev/null 2>"$tmp/err"
if grep -q '^mixed,1,46,8192,' "$tmp/o/inf/serving.phases.csv" && grep -q '^all,1,46,8192,' "$tmp/o/inf/serving.phases.csv"
then ok; else ko "inference: $(sed -n 2p "$tmp/o/inf/serving.phases.csv" 2>/dev/null)"; fi

# diff's gate: the sample test run is 2.40 % faster, the swapped pair 2.46 % slower
"$P" run diff --set base="$SRC/tests/data/hand/diff_test.json" --set test="$SRC/tests/data/hand/diff_base.json" \
    --set out="$tmp/o/gate" --fail-if-slower 1 >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc = 3 ] && grep -q "2.46 % slower than the base" "$tmp/err"; then ok; else ko "diff gate: exit $rc"; fi

# ranks by name from a folder that holds a `ranks/` folder of the job's traces
# (a folder is never taken for the pipeline file)
mkdir -p "$tmp/named/ranks"
cp "$SRC/tests/data/kineto/corpus/dlrm_worker1_step12.pt.trace.json.gz" "$tmp/named/ranks/"
cp "$SRC/tests/data/kineto/corpus/dlrm_worker3_step12.pt.trace.json.gz" "$tmp/named/ranks/"
if (cd "$tmp/named" && "$P" run ranks --input ranks --set out="$tmp/o/named_ranks" -q >/dev/null 2>"$tmp/err") &&
    [ -s "$tmp/o/named_ranks/job.csv" ] && [ "$(wc -l <"$tmp/o/named_ranks/job.csv")" = 3 ]
then ok; else ko "ranks by name beside a ranks/ folder"; fi
# the ranks report's summary (issue 29): GPU busy and exposed communication per rank and
# overall, recomputed here from the batch table OUT/streams.devices.csv (busy_us / window_us;
# comm_us x (100 - comm_comp_overlap_percent) / 100 over span_us): on the sample's 7 ranks
# busy 43.3 % overall (rank 1: 12321 / 19951 = 61.8 %), exposed 41.4 ms = 39.6 % of the spans;
# top kernel and findings from the batch tables OUT/kernels.csv and OUT/advice.csv
"$P" run ranks --set trace="$SRC/tests/data/kineto/corpus/dlrm_worker?_step12.pt.trace.json.gz" \
    --set out="$tmp/o/ranks7" -q >/dev/null 2>"$tmp/err"
if python3 - "$tmp/o/ranks7" <<'PY'
import csv, os, re, sys
out = sys.argv[1]
h = open(os.path.join(out, "report.html"), encoding="utf-8").read()
facts = {m.group(1): re.sub(r"<[^>]+>", "", m.group(2)) for m in
         re.finditer(r'<tr class="(\w+)"><th>[^<]*</th><td>(.*?)</td></tr>', h, re.S)}
rows = list(csv.DictReader(open(os.path.join(out, "streams.devices.csv"))))
f = lambda r, k: float(r[k])
busy, comm = facts.get("busy", ""), facts.get("comm", "")
want = ["rank %s device %s: %.1f %%" % (r["rank"], r["device"], 100 * f(r, "busy_us") / f(r, "window_us"))
        for r in rows]
want.append("overall %.1f %% (%d rows)" % (100 * sum(f(r, "busy_us") for r in rows) /
                                          sum(f(r, "window_us") for r in rows), len(rows)))
exp = [f(r, "comm_us") * (100 - f(r, "comm_comp_overlap_percent")) / 100 for r in rows]
want_c = ["rank %s device %s" % (r["rank"], r["device"]) for r in rows]
want_c.append("= %.1f %% of the spans" % (100 * sum(exp) / sum(f(r, "span_us") for r in rows)))
bad = [w for w in want if w not in busy] + [w for w in want_c if w not in comm]
# top kernel: the largest sum_us among every rank's kernel rows with a mean (Others has
# none), its share and rank; findings: the warn and error rows of every rank's advice
ks = [r for r in csv.DictReader(open(os.path.join(out, "kernels.csv"))) if r["mean_us"]]
top = max(ks, key=lambda r: f(r, "sum_us"))
kern = facts.get("kernel", "")
want_k = "%.1f %% of GPU activity time, on rank %s)" % (f(top, "time_percent"), top["rank"])
if top["name"] not in kern or want_k not in kern:
    bad.append("top kernel %s %s" % (top["name"], want_k))
adv = [r for r in csv.DictReader(open(os.path.join(out, "advice.csv")))
       if r["severity"] in ("warn", "error")]
if not facts.get("findings", "").startswith("%d findings" % len(adv)):
    bad.append("%d findings" % len(adv))
bad += ["%s not measured" % k for k, v in facts.items() if "not measured" in v]
ok = len(rows) == 7 and "overall 43.3 %" in busy and "overall 41.4 ms = 39.6 %" in comm
sys.exit("missing %s in %r / %r" % (bad, busy, comm) if bad or not ok else 0)
PY
then ok; else ko "ranks report: GPU busy, exposed communication, top kernel and findings per rank"; cat "$tmp/err"; fi
# nsys ranks without collectives: ranks says what it needs (exit 1, no crash)
cp "$NSYS" "$tmp/named/rank0.sqlite" && cp "$NSYS" "$tmp/named/rank1.sqlite"
(cd "$tmp/named" && "$P" run ranks --input 'rank*.sqlite' --set out="$tmp/o/nsys_ranks" -q >/dev/null 2>"$tmp/err")
rc=$?
if [ $rc = 1 ] && grep -q "no communication kernels" "$tmp/err"; then ok; else ko "ranks on nsys ranks: exit $rc"; fi

# a closed standard output: the text writer stops, the file writers run
python3 - "$P" "$SRC" "$tmp/o/pipe" >"$tmp/err" 2>&1 <<'PY'
import os, subprocess, sys
P, SRC, out = sys.argv[1:]
r, w = os.pipe()
os.close(r)  # the reader is gone before the first write
p = subprocess.run([P, "run", "dlrm_breakdown", "--set", "trace=%s/tests/data/dlrm_worker0_step12.pt.trace.json.gz" % SRC,
                    "--set", "out=" + out, "-q"], stdout=w, stderr=subprocess.PIPE)
assert p.returncode == 141, (p.returncode, p.stderr)
assert b"standard output was closed early" in p.stderr, p.stderr
for f in ("host.csv", "breakdown.json", "report.html", "iterations.svg"):
    assert os.path.getsize(os.path.join(out, f)) > 0, f
PY
if [ $? = 0 ]; then ok; else ko "closed stdout"; fi

echo "bundled: $pass passed, $fail failed"
[ $fail = 0 ]
