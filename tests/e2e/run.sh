#!/bin/sh
# End-to-end tests of the `pipeline` command (run from the repository root).
#
#   tests/pipelines/invalid/<case>/pipeline.yaml  + error   expected stderr of
#       `pipeline validate`, exactly; + exit (optional, default 2)
#   tests/pipelines/valid/<case>/pipeline.yaml    + expected/<file>...
#       `pipeline run pipeline.yaml --set out=DIR` must exit 0 and write each
#       expected file into DIR with exactly that content (expected/stdout is
#       compared with what the run printed). An optional `args` file adds
#       command-line arguments; `uses` names a pipeline file to run instead of
#       pipeline.yaml; `invariants` names the trace whose breakdown outputs
#       tests/tools/check_breakdowns.py checks independently; a `check.py`
#       in the case is run as `python3 check.py OUTDIR` (TP_PIPELINE: the
#       command under test) and must exit 0 (an
#       independent computation of the case's figures from the trace).
#   Every Kineto trace of tests/data/kineto/corpus and the bundled DLRM trace
#       goes through tests/pipelines/cli/ranges_corpus.yaml and
#       tests/tools/check_ranges.py (no range counted twice), and
#       tests/pipelines/cli/idle_corpus.yaml (+ _trimmed) and
#       tests/tools/check_idle.py (no negative idle); those with allocator events,
#       tests/data/kineto/hta_df_index_resolver.json.gz and tests/data/hand/memory_*.json
#       through tests/pipelines/cli/memory_check.yaml and tests/tools/check_memory.py (an
#       independent replay); every one through tests/pipelines/cli/kernel_sequences_check.yaml
#       and tests/tools/check_kernel_sequences.py (an independent count).
#   The bundled advice pipeline runs on every corpus trace (Kineto, nsys, dvdt-prof) and
#       tests/tools/check_advice.py recomputes its rules' figures from the raw trace.
# Prints "N passed, M failed" and exits non-zero on any failure.
set -u
BUILD=${1:-build}
PIPELINE="$BUILD/pipeline"
EXTRA="--plugin-dir $BUILD/testplugins"
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $1"; }

# Lines of `error` must equal stderr's lines; with a file `prefix` in the
# case, each only has to begin stderr's line (for messages that list every
# installed plugin, which grows).
same_text() { # expected, actual
    if [ -f "$(dirname "$1")/prefix" ]; then
        awk 'NR == FNR { want[FNR] = $0; n = FNR; next }
             { got[FNR] = $0; m = FNR }
             END { if (n != m) exit 1
                   for (i = 1; i <= n; i++) if (index(got[i], want[i]) != 1) exit 1 }' "$1" "$2"
    else
        diff -u "$1" "$2"
    fi
}

for dir in tests/pipelines/invalid/*/; do
    dir=${dir%/}
    [ -f "$dir/pipeline.yaml" ] || continue
    name=$(basename "$dir")
    want_exit=2
    [ -f "$dir/exit" ] && want_exit=$(cat "$dir/exit")
    args=""
    [ -f "$dir/args" ] && args=$(cat "$dir/args")
    cmd=validate
    [ -f "$dir/command" ] && cmd=$(cat "$dir/command")
    # shellcheck disable=SC2086
    "$PIPELINE" $cmd "$dir/pipeline.yaml" $EXTRA --no-progress $args >"$tmp/out" 2>"$tmp/err"
    got_exit=$?
    if [ "$got_exit" != "$want_exit" ]; then
        ko "invalid/$name: exit $got_exit, expected $want_exit"; cat "$tmp/err"; continue
    fi
    if ! same_text "$dir/error" "$tmp/err" >"$tmp/diff"; then
        ko "invalid/$name: stderr differs"; cat "$tmp/diff"; continue
    fi
    ok
done

for dir in tests/pipelines/valid/*/; do
    dir=${dir%/}
    [ -f "$dir/pipeline.yaml" ] || [ -f "$dir/uses" ] || continue
    name=$(basename "$dir")
    out="$tmp/valid-$name"
    mkdir -p "$out"
    args=""
    [ -f "$dir/args" ] && args=$(cat "$dir/args")
    pipe="$dir/pipeline.yaml"
    [ -f "$dir/uses" ] && pipe=$(cat "$dir/uses")   # a pipeline shipped in pipelines/
    # shellcheck disable=SC2086
    if ! "$PIPELINE" run "$pipe" $EXTRA -q --set out="$out" $args \
        >"$out/stdout" 2>"$tmp/err"; then
        ko "valid/$name: run failed"; cat "$tmp/err"; continue
    fi
    bad=0
    for exp in "$dir"/expected/*; do
        [ -f "$exp" ] || continue
        f=$(basename "$exp")
        if ! diff -u "$exp" "$out/$f" >"$tmp/diff" 2>&1; then
            ko "valid/$name: $f differs"; head -40 "$tmp/diff"; bad=1
        fi
    done
    # independent invariants of breakdown outputs (tests/tools/check_breakdowns.py)
    if [ -f "$dir/invariants" ] && ! python3 tests/tools/check_breakdowns.py \
        "$(cat "$dir/invariants")" "$out" >"$tmp/inv" 2>&1; then
        ko "valid/$name: invariants"; cat "$tmp/inv"; bad=1
    fi
    if [ -f "$dir/check.py" ] && ! TP_PIPELINE="$PIPELINE" python3 "$dir/check.py" "$out" >"$tmp/chk" 2>&1; then
        ko "valid/$name: check.py"; cat "$tmp/chk"; bad=1
    fi
    # a lossless result file read back and written again is the same file
    # (but for the reader's id prefix)
    if [ "$name" = results_roundtrip ] &&
        ! sed 's/"id": "rd\./"id": "/' "$out/b.json" | cmp -s - "$out/a.json"; then
        ko "valid/$name: b.json is not a.json read back"; bad=1
    fi
    # no temporary output may be left behind
    if ls -A "$out" | grep -q '\.tmp-'; then ko "valid/$name: temporary file left"; bad=1; fi
    [ $bad = 0 ] && ok
done

# ranges counts no range twice (tests/tools/check_ranges.py, issue 24): on every Kineto trace
# of the corpus and the bundled DLRM trace
for trace in tests/data/kineto/corpus/*.json.gz tests/data/dlrm_worker0_step12.pt.trace.json.gz; do
    out="$tmp/ranges-$(basename "$trace")"
    if "$PIPELINE" run tests/pipelines/cli/ranges_corpus.yaml -q --set trace="$trace" \
        --set out="$out" >/dev/null 2>"$tmp/err" &&
        python3 tests/tools/check_ranges.py "$trace" "$out/rg.csv" >"$tmp/chk" 2>&1; then ok
    else ko "ranges on $trace: check_ranges.py"; cat "$tmp/err" "$tmp/chk"; fi
done

# GEMM accounting on every Kineto corpus trace and the bundled DLRM step, checked
# independently (tests/tools/check_gemm.py): kernels' FLOPs = innermost products',
# no roofline_percent above 100
for trace in tests/data/kineto/corpus/*.json.gz tests/data/dlrm_worker0_step12.pt.trace.json.gz; do
    out="$tmp/gemm-$(basename "$trace")"
    mkdir -p "$out"
    if "$PIPELINE" run tests/pipelines/cli/gemm_check.yaml -q --set trace="$trace" --set out="$out" \
        >/dev/null 2>"$tmp/err" && python3 tests/tools/check_gemm.py "$trace" "$out" >"$tmp/chk" 2>&1
    then ok; else ko "gemm accounting: $trace"; cat "$tmp/err" "$tmp/chk"; fi
done

# collectives' sizes and bandwidths on every Kineto corpus trace, the bundled DLRM step and
# the hand-made vectors, recomputed from the JSON (tests/tools/check_collectives.py, issue 30)
for trace in tests/data/kineto/corpus/*.json.gz tests/data/dlrm_worker0_step12.pt.trace.json.gz \
    tests/data/hand/coll_rank*.json; do
    out="$tmp/coll-$(basename "$trace")"
    if "$PIPELINE" run tests/pipelines/cli/collectives_check.yaml -q --set trace="$trace" \
        --set out="$out" >/dev/null 2>"$tmp/err" &&
        python3 tests/tools/check_collectives.py "$trace" "$out/coll.calls.csv" >"$tmp/chk" 2>&1
    then ok; else ko "collectives: $trace: check_collectives.py"; cat "$tmp/err" "$tmp/chk"; fi
done

# no idle figure is negative, each is the one its name says (tests/tools/check_idle.py,
# issue 25): on every Kineto corpus trace and the bundled DLRM step, recomputed from the
# JSON; on those with ProfilerStep markers also after trim_iterations; on the nsys and
# dvdt-prof traces, its invariants
idle_check() { # pipeline (in tests/pipelines/cli), trace, check_idle.py flag
    out="$tmp/$1-$(basename "$2")"
    if "$PIPELINE" run "tests/pipelines/cli/$1.yaml" -q --set trace="$2" --set out="$out" \
        >/dev/null 2>"$tmp/err" &&
        python3 tests/tools/check_idle.py "$2" "$out" $3 >"$tmp/chk" 2>&1; then ok
    else ko "idle figures ($1) on $2: check_idle.py"; cat "$tmp/err" "$tmp/chk"; fi
}
for trace in tests/data/kineto/corpus/*.json.gz tests/data/dlrm_worker0_step12.pt.trace.json.gz; do
    idle_check idle_corpus "$trace" ""
    if gzip -dc "$trace" | grep -q 'ProfilerStep#'; then
        idle_check idle_corpus_trimmed "$trace" --invariants-only
    fi
done
for trace in tests/data/nsys/*.sqlite tests/data/dvdt_prof/armcl_mali_tmp-dvdt-prof.json; do
    idle_check idle_corpus "$trace" --invariants-only
done

# memory's figures equal an independent replay of the allocator events
# (tests/tools/check_memory.py, issue 30): on every Kineto corpus trace that has them,
# HTA's df_index_resolver trace (28 010 of them) and the hand-made allocator traces
for trace in tests/data/kineto/corpus/*.json.gz tests/data/kineto/hta_df_index_resolver.json.gz \
    tests/data/hand/memory_*.json; do
    gzip -dcf "$trace" | grep -q '"\[memory\]"' || continue
    out="$tmp/memory-$(basename "$trace")"
    if "$PIPELINE" run tests/pipelines/cli/memory_check.yaml -q --set trace="$trace" \
        --set out="$out" >/dev/null 2>"$tmp/err" &&
        python3 tests/tools/check_memory.py "$trace" "$out" >"$tmp/chk" 2>&1; then ok
    else ko "memory on $trace: check_memory.py"; cat "$tmp/err" "$tmp/chk"; fi
done

# kernel_sequences' counts and times equal an independent count of each stream's kernel
# windows (tests/tools/check_kernel_sequences.py, issue 30) on every Kineto corpus trace and
# the bundled DLRM step (and the df_index_resolver training step)
for trace in tests/data/kineto/corpus/*.json.gz tests/data/dlrm_worker0_step12.pt.trace.json.gz \
    tests/data/kineto/hta_df_index_resolver.json.gz; do
    out="$tmp/kseq-$(basename "$trace")"
    if "$PIPELINE" run tests/pipelines/cli/kernel_sequences_check.yaml -q --set trace="$trace" \
        --set out="$out" >/dev/null 2>"$tmp/err" &&
        python3 tests/tools/check_kernel_sequences.py "$trace" "$out/ks.csv" >"$tmp/chk" 2>&1; then ok
    else ko "kernel_sequences on $trace: check_kernel_sequences.py"; cat "$tmp/err" "$tmp/chk"; fi
done

# advice's rules recomputed from the raw trace (tests/tools/check_advice.py, issue 29): the
# bundled advice pipeline on every Kineto corpus trace, the bundled DLRM step, the nsys SQLite
# exports and the dvdt-prof profile
for trace in tests/data/kineto/corpus/*.json.gz tests/data/dlrm_worker0_step12.pt.trace.json.gz \
    tests/data/nsys/*.sqlite tests/data/dvdt_prof/armcl_mali_tmp-dvdt-prof.json; do
    out="$tmp/advice-$(basename "$trace")"
    if "$PIPELINE" run pipelines/advice.yaml -q --set trace="$trace" --set out="$out" \
        >/dev/null 2>"$tmp/err" && python3 tests/tools/check_advice.py "$trace" "$out" >"$tmp/chk" 2>&1
    then ok; else ko "advice on $trace: check_advice.py"; cat "$tmp/err" "$tmp/chk"; fi
done

# every shipped pipeline validates and runs (into a scratch output folder)
for pipe in pipelines/*.yaml; do
    out="$tmp/shipped-$(basename "$pipe" .yaml)"
    mkdir -p "$out"
    if "$PIPELINE" run "$pipe" -q --set out="$out" >/dev/null 2>"$tmp/err" &&
        [ -n "$(ls -A "$out")" ]; then ok; else ko "shipped $pipe"; cat "$tmp/err"; fi
done

# command-line behaviour
check_cli() { # description, expected exit, expected text in output, command...
    desc=$1; want=$2; text=$3; shift 3
    "$@" >"$tmp/cli" 2>&1
    rc=$?
    if [ "$rc" != "$want" ]; then ko "cli: $desc: exit $rc, expected $want"; cat "$tmp/cli"; return; fi
    if ! grep -qF -- "$text" "$tmp/cli"; then ko "cli: $desc: no '$text' in output"; cat "$tmp/cli"; return; fi
    ok
}
check_cli "--help" 0 "Usage: pipeline COMMAND" "$PIPELINE" --help
# the CI gate on diff (rank 1 is 37.68 % slower than rank 0 per iteration)
DIFFP=tests/pipelines/valid/diff_renamed/pipeline.yaml
check_cli "--fail-if-slower within" 0 "37.68 % slower than the base (result ranks.summary, median iteration): within --fail-if-slower 40" \
    "$PIPELINE" run "$DIFFP" --set out="$tmp/gate" --fail-if-slower 40
check_cli "--fail-if-slower over" 3 "37.68 % slower than the base (result ranks.summary, median iteration), more than --fail-if-slower 30" \
    "$PIPELINE" run "$DIFFP" --set out="$tmp/gate" --fail-if-slower 30
# the hand-made pair (tests/pipelines/valid/diff_hand): faster in words, the
# capture-window fallback named by the gate and warned, the facts warned
DIFFH=tests/pipelines/valid/diff_hand/pipeline.yaml
check_cli "--fail-if-slower faster" 3 "the test run is 2.40 % faster than the base (result d.summary, median iteration): within --fail-if-slower 5" \
    "$PIPELINE" run "$DIFFH" --set out="$tmp/gate" --fail-if-slower 5
check_cli "--fail-if-slower on capture windows" 3 "23.61 % slower than the base (result w.summary, capture window), more than --fail-if-slower 5" \
    "$PIPELINE" run "$DIFFH" --set out="$tmp/gate" --fail-if-slower 5
check_cli "diff: no steps warned" 0 "warning: [w] no iterations in the test trace (marker '^ProfilerStep#\\d+\$'): comparing capture windows" \
    "$PIPELINE" run "$DIFFH" --set out="$tmp/gate"
check_cli "diff: facts differ warned" 0 "warning: [d] the traces differ in device (NVIDIA A100-SXM4-80GB vs Tesla V100-SXM2-16GB), world_size (8 vs 4)" \
    "$PIPELINE" run "$DIFFH" --set out="$tmp/gate"
check_cli "--fail-if-slower without a diff" 2 "--fail-if-slower needs a diff analysis" \
    "$PIPELINE" run tests/pipelines/valid/streams_s1/pipeline.yaml --set out="$tmp/gate" --fail-if-slower 5
check_cli "--fail-if-slower not a number" 2 "--fail-if-slower needs a percentage" \
    "$PIPELINE" run "$DIFFP" --fail-if-slower lots
# --fail-if (docs/gates.md) on real traces: rank 1 of the DLRM job is
# 37.67554479 % slower than rank 0 (check.py of diff_renamed); the same
# gate --fail-if-slower makes, written out, and over a whole table
check_cli "--fail-if trips" 3 "pipeline: gate tripped (--fail-if 1): ranks.summary.slower_percent > 30: ranks.summary.slower_percent = 37.67554479 in ranks.summary row 1 (measure \"iteration_us\"); 1 of 2 row(s) trip" \
    "$PIPELINE" run "$DIFFP" --set out="$tmp/gate" --fail-if 'ranks.summary.slower_percent > 30'
check_cli "--fail-if holds" 0 "gate held (--fail-if 1): ranks.summary.slower_percent > 40 or same.summary.slower_percent != 0 (4 row(s))" \
    "$PIPELINE" run "$DIFFP" --set out="$tmp/gate" -v -v --fail-if 'ranks.summary.slower_percent > 40 or same.summary.slower_percent != 0'
# NCCL kernels of the DLRM rank-0 step, by hand: 3999 + 1799 = 5798 us
check_cli "--fail-if on an aggregate" 3 "gate tripped (--fail-if 2): sum(same.kernels[name=~\"nccl\"].base_us) > 5797: sum(same.kernels[name=~\"nccl\"].base_us) = 5798; 1 of 1 row(s) trip" \
    "$PIPELINE" run "$DIFFP" --set out="$tmp/gate" --fail-if 'sum(same.kernels[name=~"nccl"].base_us) > 5798' \
    --fail-if 'sum(same.kernels[name=~"nccl"].base_us) > 5797'
check_cli "--fail-if refused before reading" 2 "--fail-if 1:28: error: result 'ranks.summary' has no column 'slower_pct'" \
    "$PIPELINE" run "$DIFFP" --set out="$tmp/gate" --fail-if 'ranks.summary.delta > 0 or ranks.summary.slower_pct > 1'
check_cli "--fail-if in validate" 2 "--fail-if 1:13: error: expected a value at the end (in 'same.delta >')" \
    "$PIPELINE" validate "$DIFFP" --fail-if 'same.delta >'
check_cli "--help names --fail-if" 0 "docs/gates.md" "$PIPELINE" --help
check_cli "advice: unknown rule" 2 "rules: unknown rule 'gpu_idel' (docs/plugins/advice.md lists them)" \
    "$PIPELINE" run tests/pipelines/cli/advice_unknown_rule.yaml -q
check_cli "--version" 0 "plugin ABI 3." "$PIPELINE" --version
check_cli "no command" 2 "Usage: pipeline COMMAND" "$PIPELINE"
check_cli "unknown command" 2 "pipeline: unknown command 'frobnicate'" "$PIPELINE" frobnicate
check_cli "command did you mean" 2 "unknown command 'rn'; did you mean 'run'?" "$PIPELINE" rn x
check_cli "describe did you mean" 2 "no stage named 'kernel_stat'; did you mean 'kernel_stats'?" \
    "$PIPELINE" describe kernel_stat
check_cli "a trace given as the pipeline" 2 \
    "is a trace, not a pipeline; run a pipeline on it, e.g.: pipeline run dlrm_breakdown --set trace=" \
    "$PIPELINE" run tests/data/dlrm_worker0_step12.pt.trace.json.gz
check_cli "a bundled pipeline by name" 0 "dlrm_breakdown: ok (17 stages)" \
    "$PIPELINE" validate dlrm_breakdown
check_cli "bundled pipelines from anywhere" 0 "top_kernels: ok" \
    env TRACEPIPE_PIPELINE_PATH="$PWD/pipelines" sh -c "cd / && '$PWD/$PIPELINE' validate top_kernels --set trace='$PWD/tests/data/dlrm_worker0_step12.pt.trace.json.gz'"
if [ -f "$(dirname "$PIPELINE")/../pipelines/top_kernels.yaml" ]; then # build/, not build/san/
    check_cli "bundled pipelines beside the program" 0 "top_kernels: ok" \
        env -u TRACEPIPE_PIPELINE_PATH sh -c "cd / && '$PWD/$PIPELINE' validate top_kernels --set trace='$PWD/tests/data/dlrm_worker0_step12.pt.trace.json.gz'"
    # reader: auto probes the file while validating: a missing one is exit 2
    check_cli "a bundled pipeline elsewhere says how to give a trace" 2 \
        "hint: the bundled pipeline 'dlrm_breakdown' reads sample traces of the tracepipe sources by default; give yours: pipeline run dlrm_breakdown --set trace=FILE" \
        env -u TRACEPIPE_PIPELINE_PATH sh -c "cd / && '$PWD/$PIPELINE' run dlrm_breakdown --set out=/tmp"
fi
check_cli "no such bundled pipeline" 2 "no pipeline file 'nosuch' and no bundled pipeline named 'nosuch'" \
    "$PIPELINE" validate nosuch
check_cli "--set did you mean" 2 "declares no variable 'trac' under vars: (did you mean 'trace'?)" \
    "$PIPELINE" validate pipelines/dlrm_breakdown.yaml --set trac=x
check_cli "--set twice warns" 0 "warning: --set out given more than once: the last value wins" \
    "$PIPELINE" validate pipelines/dlrm_breakdown.yaml --set out=/tmp/a --set out=/tmp/b
check_cli "output folder under a file" 2 "output path '/etc/passwd/x.csv': '/etc/passwd' is not a folder" \
    "$PIPELINE" validate tests/pipelines/cli/output_under_file.yaml
nested="$tmp/new/deeper/still"
if "$PIPELINE" run tests/pipelines/cli/nested_output.yaml -q --set out="$nested" &&
    [ -f "$nested/info.csv" ]; then ok; else ko "cli: writers create folders: no $nested/info.csv"; fi
check_cli "vars refer to vars" 0 "pipeline: wrote $tmp/vv/out/info.csv" \
    "$PIPELINE" run tests/pipelines/cli/vars_of_vars.yaml -v --set root="$tmp/vv"
check_cli "wrote lines with -v" 0 "pipeline: wrote $nested/info.csv" \
    "$PIPELINE" run tests/pipelines/cli/nested_output.yaml -v --set out="$nested"
check_cli "unknown option" 2 "pipeline: unknown option --frob" "$PIPELINE" run x.yaml --frob
check_cli "bad --set" 2 "--set needs NAME=VALUE" "$PIPELINE" run x.yaml --set novalue
check_cli "missing pipeline" 2 "nope.yaml: error: cannot open pipeline: No such file or directory" \
    "$PIPELINE" run nope.yaml
check_cli "pipeline is a directory" 2 "tests: error: cannot read pipeline" "$PIPELINE" validate tests
check_cli "plugins lists kineto" 0 "reader    kineto" "$PIPELINE" plugins
check_cli "describe probe" 0 "count            int        3          [1, 100]" \
    "$PIPELINE" describe probe $EXTRA
check_cli "describe unknown" 2 "no stage named 'nosuch'" "$PIPELINE" describe nosuch
# columns sized to the longest cell (issue 25): streams' 27-character option
# name and svg's float-list range no longer push their rows out of line
check_cli "describe aligns long names" 0 "  consecutive_kernel_delay_us float   30         [0, 1000000000000] a gap" \
    "$PIPELINE" describe streams
check_cli "describe aligns the header" 0 "  OPTION                      TYPE    DEFAULT    RANGE/CHOICES      HELP" \
    "$PIPELINE" describe streams
check_cli "describe aligns long columns" 0 "    others_waited_for_it_us double  us        the other ranks'" \
    "$PIPELINE" describe ranks
# every stage: each option and column line starts its TYPE, DEFAULT/UNIT and
# RANGE cells where the header's do
check_cli "describe aligns every stage" 0 "misaligned lines 0" python3 tests/tools/describe_align.py "$PIPELINE"
check_cli "refused plugins are named" 0 "abi_major.so: plugin refused: ABI version 4.0, this core has 3.4" \
    "$PIPELINE" plugins --plugin-dir "$BUILD/testplugins/bad"

# docs match the code: every built-in stage has docs/plugins/<name>.md naming each option
"$PIPELINE" plugins 2>/dev/null | awk 'NR > 1 { print $2 }' >"$tmp/stages"
while read -r stage; do
    doc="docs/plugins/$stage.md"
    if [ ! -f "$doc" ]; then ko "docs: $doc missing"; continue; fi
    missing=""
    for opt in $("$PIPELINE" describe "$stage" | awk '/^  OPTION/ { on = 1; next } on && !NF { exit } on { print $1 }'); do
        [ "$opt" = "(no" ] && continue
        grep -q "\`$opt\`" "$doc" || missing="$missing $opt"
    done
    if [ -n "$missing" ]; then ko "docs: $doc does not document:$missing"; else ok; fi
done <"$tmp/stages"

# the columns tables of the plugin pages equal the stages' declarations
if sh tests/tools/doc_columns.sh "$BUILD" >"$tmp/doc_columns" 2>&1; then ok; else
    cat "$tmp/doc_columns"; ko "docs: columns tables (tests/tools/doc_columns.sh $BUILD --write rewrites them)"; fi

echo "e2e: $pass passed, $fail failed"
[ "$fail" = 0 ]
