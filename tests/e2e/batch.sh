#!/bin/sh
# Batch runs (issue 17, items 1-2): one pipeline over a folder or glob of
# traces, -j, --max-memory, a bad trace among good ones, configuration errors.
# Every output is compared with the single-trace golden of the same trace.
#   sh tests/e2e/batch.sh [BUILD]    (from the repository root)
set -u
BUILD=${1:-build}
P="$BUILD/pipeline"
# the suite's hand-offs are a few MB: what it checks must not depend on how full the
# machine's disk is (a hand-off keeps 256 MiB to 4 GiB free by default; docs/batch.md)
export TRACEPIPE_HANDOFF_RESERVE_MB=16
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: batch: $1"; [ -f "$tmp/err" ] && head -20 "$tmp/err"; }
check() { # name, expected exit, expected text in stderr, command...
    name=$1 want=$2 text=$3
    shift 3
    "$@" >/dev/null 2>"$tmp/err"
    got=$?
    if [ "$got" != "$want" ]; then ko "$name: exit $got, expected $want"
    elif ! grep -qF -- "$text" "$tmp/err"; then ko "$name: no '$text'"
    else ok; fi
}

# a folder: two nsys exports (one in a subfolder), the JSON-lines form, and
# a Kineto trace cut short
mkdir -p "$tmp/in/sub"
cp tests/data/nsys/pipit_saxpy_mpi_cuda_perlmutter0.sqlite "$tmp/in/saxpy.sqlite"
cp tests/data/nsys/pipit_cloverleaf_cuda_perlmutter.sqlite "$tmp/in/sub/clover.sqlite"
cp tests/data/nsys/saxpy_from_sqlite.json "$tmp/in/saxpy_lines.json"
head -c 3000 tests/data/hand/hier_basic.json > "$tmp/in/broken.json"
echo "not a trace" > "$tmp/in/notes.md"
SAXPY=tests/pipelines/valid/nsys_saxpy/expected

"$P" run top_kernels --input "$tmp/in" --set out="$tmp/o2" -j 2 >"$tmp/stdout" 2>"$tmp/err"
rc=$?
if [ $rc != 1 ]; then ko "a folder with a broken trace: exit $rc, expected 1"
elif ! grep -q "batch: 4 trace(s), 3 ok, 1 failed" "$tmp/err"; then ko "summary line"
elif ! grep -q "broken: FAILED (exit 1): .*broken.json" "$tmp/err"; then ko "the failure names the trace"
elif ! cmp -s "$SAXPY/ks.csv" "$tmp/o2/saxpy/kernels.csv"; then ko "saxpy outputs"
elif ! cmp -s "$SAXPY/ks.csv" "$tmp/o2/saxpy_lines/kernels.csv"; then ko "JSON-lines outputs"
elif [ ! -s "$tmp/o2/sub/clover/kernels.csv" ]; then ko "subfolder label sub/clover"
elif [ -e "$tmp/o2/broken" ] && [ -n "$(ls -A "$tmp/o2/broken")" ]; then ko "the broken trace left outputs"
elif [ "$(grep -c '^==> ' "$tmp/stdout")" != 3 ]; then ko "stdout: one section per good trace"
else ok; fi

# a gzip file that is not a Kineto trace (a Chakra execution trace named
# .json.gz: JSON with "nodes", no traceEvents): the probe looks inside the
# gzip, no reader knows it, so it is skipped and counted, not failed
mkdir -p "$tmp/gz"
cp tests/data/kineto/basic.json.gz "$tmp/gz/rank0.json.gz"
printf '{"schema": "1.1.0-chakra.0.0.4", "pid": 1, "time": "2024", "nodes": [{"id": 1, "name": "[pytorch|profiler|execution_trace|thread]", "ctrl_deps": 0}]}' |
    gzip -n > "$tmp/gz/et.json.gz"
"$P" run top_kernels --input "$tmp/gz" --set out="$tmp/ogz" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc != 0 ]; then ko "a gzip non-trace in a folder: exit $rc, expected 0"; cat "$tmp/err"
elif ! grep -q "1 file(s) of $tmp/gz skipped: not known traces" "$tmp/err"; then ko "the gzip non-trace is counted"
elif ! grep -q "batch: 1 trace(s), 1 ok" "$tmp/err"; then ko "the Kineto gzip trace runs"; cat "$tmp/err"
else ok; fi

# one at a time, by a glob, within a tiny memory budget: the same files
"$P" run top_kernels --input "$tmp/in/*.sqlite" --set out="$tmp/o1" -j 1 --max-memory 1M \
    >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc != 0 ]; then ko "glob, -j 1: exit $rc"
elif ! diff -r "$tmp/o1/saxpy" "$tmp/o2/saxpy" >/dev/null; then ko "-j 1 and -j 2 differ"
elif [ -e "$tmp/o1/sub" ]; then ko "the glob took the subfolder"
else ok; fi

# a folder given as --set trace= is a batch too
"$P" run gpu_utilization --set trace="$tmp/in/sub" --set out="$tmp/o3" -q >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc != 0 ] || [ ! -s "$tmp/o3/clover/streams.csv" ]; then
    ko "--set trace=FOLDER: exit $rc"
else ok; fi

# the batch tables: OUT/kernels.csv holds every good trace's rows, first
# column trace, in label order
rows=0
for f in "$tmp/o2/saxpy/kernels.csv" "$tmp/o2/saxpy_lines/kernels.csv" "$tmp/o2/sub/clover/kernels.csv"; do
    rows=$((rows + $(wc -l < "$f") - 1))
done
if [ ! -s "$tmp/o2/kernels.csv" ]; then ko "no merged kernels.csv"
elif [ "$(head -1 "$tmp/o2/kernels.csv" | cut -d, -f1-3)" != "trace,name,count" ]; then ko "merged header"
elif [ "$(($(wc -l < "$tmp/o2/kernels.csv") - 1))" != "$rows" ]; then ko "merged rows: not $rows"
elif [ "$(tail -n +2 "$tmp/o2/kernels.csv" | cut -d, -f1 | uniq | tr '\n' ' ')" != "saxpy saxpy_lines sub/clover " ]; then
    ko "merged traces in label order"
else ok; fi

# shards, as a scheduler would start them (a Slurm job array's task ids, a
# Kubernetes Indexed Job's completion index, GNU parallel's sequence), each
# into the same folder, then merged: the same tables as one run
for SLURM_ARRAY_TASK_ID in 0 1; do
    "$P" run top_kernels --input "$tmp/in" --set out="$tmp/sh" -q \
        --shard "$SLURM_ARRAY_TASK_ID/3" >/dev/null 2>>"$tmp/err"
done
JOB_COMPLETION_INDEX=2 sh -c '"$0" run top_kernels --input "$1" --set out="$2" -q --shard "$JOB_COMPLETION_INDEX/3"' \
    "$P" "$tmp/in" "$tmp/sh" >/dev/null 2>>"$tmp/err"
"$P" merge "$tmp/sh" -q 2>"$tmp/err"
same=1
for f in "$tmp/o2"/*.csv; do cmp -s "$f" "$tmp/sh/$(basename "$f")" || same=0; done
if [ $same != 1 ]; then ko "3 shards merged differ from one run"; else ok; fi
# --shard auto (issue 34): the same 3 shards, each from one scheduler's
# environment (a Slurm array --array=1-5:2 without TASK_COUNT, a Kubernetes
# Indexed Job with TRACEPIPE_SHARD_COUNT, the generic TRACEPIPE_SHARD), then
# merged: the same tables as one run
env SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=5 SLURM_ARRAY_TASK_STEP=2 \
    "$P" run top_kernels --input "$tmp/in" --set out="$tmp/auto" -q --shard auto >/dev/null 2>"$tmp/err"
env JOB_COMPLETION_INDEX=1 TRACEPIPE_SHARD_COUNT=3 \
    "$P" run top_kernels --input "$tmp/in" --set out="$tmp/auto" -q --shard auto >/dev/null 2>>"$tmp/err"
env TRACEPIPE_SHARD=2/3 "$P" run top_kernels --input "$tmp/in" --set out="$tmp/auto" -q \
    --shard auto/3 >/dev/null 2>>"$tmp/err"
"$P" merge "$tmp/auto" -q 2>>"$tmp/err"
if [ "$(ls -a "$tmp/auto" | grep -c '^.tracepipe-shard-[012]-of-3$')" != 3 ]; then ko "--shard auto: manifests"
elif ! cmp -s "$tmp/sh/kernels.csv" "$tmp/auto/kernels.csv"; then ko "--shard auto: merged tables differ"
else ok; fi
check "--shard auto with no scheduler" 2 "no shard in the environment" \
    env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX -u TRACEPIPE_SHARD "$P" run top_kernels --input "$tmp/in" --shard auto
check "--shard auto: a Kubernetes index without the count" 2 "give --shard auto/N or TRACEPIPE_SHARD_COUNT=N" \
    env JOB_COMPLETION_INDEX=0 "$P" run top_kernels --input "$tmp/in" --shard auto
check "--shard auto: a Slurm task past the count" 2 "the Slurm array gives shard 4 of 4" \
    env SLURM_ARRAY_TASK_ID=4 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=4 "$P" run top_kernels --input "$tmp/in" --shard auto
check "--shard auto: not a number" 2 "TRACEPIPE_SHARD is '1/x'" \
    env TRACEPIPE_SHARD=1/x "$P" run top_kernels --input "$tmp/in" --shard auto
check "--shard auto/N disagreeing with Slurm" 2 "--shard auto/3, but the Slurm array makes 4 shards" \
    env SLURM_ARRAY_TASK_ID=0 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_COUNT=4 "$P" run top_kernels --input "$tmp/in" --shard auto/3
# shards in folders of their own, merged into a third
for i in 0 1 2; do
    "$P" run top_kernels --input "$tmp/in" --set out="$tmp/own$i" -q --shard "$i/3" >/dev/null 2>&1
done
"$P" merge "$tmp/own0" "$tmp/own1" "$tmp/own2" --out "$tmp/merged" -q 2>"$tmp/err"
if ! cmp -s "$tmp/o2/kernels.csv" "$tmp/merged/kernels.csv"; then ko "merge of three folders"; else ok; fi

# shards of a pipeline with batch stages: each shard leaves a manifest, and
# `merge --pipeline` runs the batch stages over every shard's traces: the
# same files as one unsharded run
mkdir -p "$tmp/ranks_sh"
cp tests/data/dlrm_worker0_step12.pt.trace.json.gz tests/data/kineto/corpus/dlrm_worker[1-7]_step12.pt.trace.json.gz "$tmp/ranks_sh/"
for i in 0 1 2; do
    "$P" run tests/pipelines/batch/ranks_job.yaml --input "$tmp/ranks_sh" --set out="$tmp/rsh" -q \
        --shard "$i/3" >/dev/null 2>&1
done
"$P" run tests/pipelines/batch/ranks_job.yaml --input "$tmp/ranks_sh" --set out="$tmp/rone" -q \
    >/dev/null 2>&1
mv "$tmp/rsh/.tracepipe-shard-2-of-3" "$tmp/manifest2"
check "merge before every shard is done" 1 "shard 2 of 3 has not finished" \
    "$P" merge "$tmp/rsh" --pipeline tests/pipelines/batch/ranks_job.yaml
if [ -e "$tmp/rsh/job.csv" ] || [ -e "$tmp/rsh/host.csv" ]; then ko "a refused merge wrote tables"; else ok; fi
mv "$tmp/manifest2" "$tmp/rsh/.tracepipe-shard-2-of-3"
(cd "$tmp" && "$OLDPWD/$P" merge rsh --pipeline "$OLDPWD/tests/pipelines/batch/ranks_job.yaml" -q) \
    >/dev/null 2>"$tmp/err"
rc=$?
same=1
for f in host.csv job.csv job.straggler.csv job.trace.json; do
    cmp -s "$tmp/rone/$f" "$tmp/rsh/$f" || { same=0; echo "differs: $f"; }
done
if [ $rc != 0 ]; then ko "merge --pipeline: exit $rc"
elif [ $same != 1 ]; then ko "merge --pipeline: batch stages after shards differ from one run"
else ok; fi
# merge --pipeline checks the pipeline before writing anything
printf 'stages: [\n' > "$tmp/broken_pipeline.yaml"
mkdir -p "$tmp/rsh2" && cp -r "$tmp/rsh/." "$tmp/rsh2/" && rm -f "$tmp/rsh2"/*.csv "$tmp/rsh2"/*.json
check "merge --pipeline with a broken pipeline" 2 "broken_pipeline.yaml" \
    "$P" merge "$tmp/rsh2" --pipeline "$tmp/broken_pipeline.yaml"
check "merge --pipeline without batch stages" 2 "has no \`batch: true\` stages" \
    "$P" merge "$tmp/rsh2" --pipeline top_kernels
if ls "$tmp/rsh2"/*.csv >/dev/null 2>&1; then ko "a refused merge --pipeline wrote tables"; else ok; fi
# a shard with no traces (more tasks than traces) into a nested folder not made yet
"$P" run top_kernels --input "$tmp/in/sub" --set out="$tmp/deep/a/b" -q --shard 2/3 >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc != 0 ] || [ ! -f "$tmp/deep/a/b/.tracepipe-shard-2-of-3" ]; then ko "an empty shard's manifest: exit $rc"
else ok; fi
mkdir -p "$tmp/badman"
printf '# tracepipe shard 0/1\nnot a line of a manifest\n' > "$tmp/badman/.tracepipe-shard-0-of-1"
check "a damaged manifest" 1 "badman/.tracepipe-shard-0-of-1:2: not a manifest line" \
    "$P" merge "$tmp/badman"
check "merge --pipeline without manifests" 2 "no shard manifests" \
    "$P" merge "$tmp/o2" --pipeline tests/pipelines/batch/ranks_job.yaml

# a folder as the pipeline's own default trace
sed "s|^  trace: .*|  trace: $tmp/in/sub|" pipelines/top_kernels.yaml > "$tmp/folder_default.yaml"
"$P" run "$tmp/folder_default.yaml" --set out="$tmp/o5" -q >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc != 0 ] || [ ! -s "$tmp/o5/clover/kernels.csv" ]; then ko "a folder as the default trace: exit $rc"
else ok; fi

# batch stages: ranks and a merged Chrome trace once over the 8 ranks of a
# folder, equal to one pipeline with a reader per rank (valid/ranks_dlrm)
mkdir -p "$tmp/ranks"
cp tests/data/dlrm_worker0_step12.pt.trace.json.gz "$tmp/ranks/"
for i in 1 2 3 4 5 6 7; do
    cp "tests/data/kineto/corpus/dlrm_worker${i}_step12.pt.trace.json.gz" "$tmp/ranks/"
done
RANKS=tests/pipelines/valid/ranks_dlrm/expected
"$P" run tests/pipelines/batch/ranks_job.yaml --input "$tmp/ranks" --set out="$tmp/rj" -j 2 \
    >/dev/null 2>"$tmp/err"
rc=$?
"$P" run tests/pipelines/valid/ranks_dlrm/pipeline.yaml -q --set out="$tmp/rj1" >/dev/null 2>&1
if [ $rc != 0 ]; then ko "batch stages: exit $rc"
elif ! grep -q "3 batch stage(s) over 8 trace(s)" "$tmp/err"; then ko "batch stages: summary line"
elif ! cmp -s "$RANKS/job.csv" "$tmp/rj/job.csv"; then ko "batch stages: job.csv"
elif ! cmp -s "$RANKS/job.straggler.csv" "$tmp/rj/job.straggler.csv"; then ko "batch stages: straggler"
elif ! cmp -s "$tmp/rj1/job.trace.json" "$tmp/rj/job.trace.json"; then ko "batch stages: Chrome trace"
elif [ ! -s "$tmp/rj/dlrm_worker7_step12/host.csv" ] || [ -e "$tmp/rj/dlrm_worker7_step12/job.csv" ]
then ko "batch stages: per-trace outputs, and no batch stage run per trace"
else ok; fi
# collectives once over the 8 ranks of the folder (issue 30): the same tables as one
# pipeline with a reader per rank (valid/collectives_dlrm), every collective matched on
# all 8 ranks (its check.py)
COLL=tests/pipelines/valid/collectives_dlrm
coll_same() { # folder: same=1 when its three tables are valid/collectives_dlrm's
    same=1
    for f in coll.calls.csv coll.by_type.csv coll.matched.csv; do
        cmp -s "$COLL/expected/$f" "$1/$f" || same=0
    done
}
# (-v: the hierarchy's wide arrays, lazy, are filled for coll as it reads each rank late:
# the fill is the asking stage's, also inside a batch stage)
"$P" run tests/pipelines/batch/collectives_job.yaml --input "$tmp/ranks" --set out="$tmp/cj" \
    -j 2 -v >/dev/null 2>"$tmp/err"
rc=$?
coll_same "$tmp/cj"
fills=$(grep -c "\[coll\] attachment 'hierarchy.parent' filled on first use" "$tmp/err")
if [ $rc != 0 ]; then ko "batch collectives: exit $rc"; cat "$tmp/err"
elif [ $same != 1 ]; then ko "batch collectives: tables differ from valid/collectives_dlrm"
elif [ "$fills" != 8 ]; then ko "batch collectives: $fills lazy fills said for coll, not 8"
elif ! python3 "$COLL/check.py" "$tmp/cj" >"$tmp/chk" 2>&1; then ko "batch collectives: check.py"; cat "$tmp/chk"
else ok; fi
# --max-memory bounds the batch stages too.  collectives streams the ranks
# (issue 31): one trace at a time (~0.15 MiB estimated + 32 MiB fits
# 33 MiB) plus its calls, the same tables as above; under the largest trace
# plus the process it is not run, exit 1
"$P" run tests/pipelines/batch/collectives_job.yaml --input "$tmp/ranks" --set out="$tmp/cjm" \
    -j 1 --max-memory 33M >/dev/null 2>"$tmp/err"
rc=$?
coll_same "$tmp/cjm"
if [ $rc != 0 ]; then ko "streamed collectives within --max-memory: exit $rc"; cat "$tmp/err"
elif [ $same != 1 ]; then ko "streamed collectives: tables differ from valid/collectives_dlrm"
else ok; fi
check "streamed collectives over --max-memory" 1 "would hold the largest of the 8 traces" \
    "$P" run tests/pipelines/batch/collectives_job.yaml --input "$tmp/ranks" --set out="$tmp/cjm2" \
    -j 1 --max-memory 32M
if [ -e "$tmp/cjm2/coll.calls.csv" ]; then
    ko "--max-memory: a batch stage over the limit was run"
else ok; fi
# ranks and the merged Chrome trace stream the ranks (issue 31): one trace
# at a time (~0.15 MiB + 32 MiB fits 33 MiB), the same files as above
"$P" run tests/pipelines/batch/ranks_job.yaml --input "$tmp/ranks" --set out="$tmp/rjm" -j 1 \
    --max-memory 33M >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc != 0 ]; then ko "streamed batch stages within --max-memory: exit $rc"
elif ! cmp -s "$RANKS/job.csv" "$tmp/rjm/job.csv"; then ko "streamed batch stages: job.csv"
elif ! cmp -s "$RANKS/job.straggler.csv" "$tmp/rjm/job.straggler.csv"; then ko "streamed: straggler"
elif ! cmp -s "$tmp/rj1/job.trace.json" "$tmp/rjm/job.trace.json"; then ko "streamed: Chrome trace"
else ok; fi
# ranks, collectives and the merged Chrome trace side by side: each rank
# obtained once for the three (8, not 24), the same files as each alone; and
# obtained from its trace process's hand-off (issue 31), not read again: no
# `reader (batch)` line, 8 `loaded` lines (gzip traces: their args copied)
"$P" run tests/pipelines/batch/ranks_collectives_job.yaml --input "$tmp/ranks" --set out="$tmp/rcj" \
    -j 2 -v >/dev/null 2>"$tmp/err"
rc=$?
coll_same "$tmp/rcj"
reads=$(grep -c "reader (batch) done" "$tmp/err")
loads=$(grep -c "loaded from its trace process's hand-off" "$tmp/err")
if [ $rc != 0 ]; then ko "three streaming stages: exit $rc"
elif [ "$reads" != 0 ] || [ "$loads" != 8 ]; then ko "three streaming stages: $reads reads and $loads hand-offs, not 0 and 8"
elif [ $same != 1 ]; then ko "three streaming stages: collectives' tables differ"
elif ! cmp -s "$RANKS/job.csv" "$tmp/rcj/job.csv"; then ko "three streaming stages: job.csv"
elif ! cmp -s "$tmp/rj1/job.trace.json" "$tmp/rcj/job.trace.json"; then ko "three streaming stages: Chrome trace"
else ok; fi
# the estimate says one trace at a time: refused only below the largest
# trace plus the process (33 MiB is the least --max-memory takes above 32)
check "streamed batch stages over --max-memory" 1 "would hold the largest of the 8 traces" \
    "$P" run tests/pipelines/batch/ranks_job.yaml --input "$tmp/ranks" --set out="$tmp/rjm2" -j 1 \
    --max-memory 32M
# a generated data-parallel job (issue 31 item 3; tests/tools/gen_ranks.py,
# TP_RANKS_JOB=NxSIZE, 128x2M here, 128x150M by hand: docs/performance.md):
# ranks streams the ranks, so the batch's own process holds one trace at a
# time: it completes within --max-memory 2G, its peak RSS stays under 32 MiB
# (10 MiB measured; holding all 128 took 59 MiB before issue 31), and every
# figure agrees with the generator's record (check_ranks.py)
python3 tests/tools/gen_ranks.py "$tmp/job" >/dev/null
/usr/bin/time -v "$P" run tests/pipelines/batch/ranks_only.yaml --input "$tmp/job" \
    --set out="$tmp/jobo" -j 2 --max-memory 2G -v >/dev/null 2>"$tmp/err"
rc=$?
peak=$(sed -n 's/.*\[job\] analysis done .*peak so far \([0-9]*\) MiB.*/\1/p' "$tmp/err")
rss=$(sed -n 's/.*Maximum resident set size (kbytes): \([0-9]*\)/\1/p' "$tmp/err")
# AddressSanitizer keeps freed memory in quarantine (and shadow memory):
# its RSS says nothing of what tracepipe holds, so the bound is the release
# build's (the sanitizer build still checks that it completes and agrees)
if ldd "$P" 2>/dev/null | grep -q libasan; then peak=0 rss=0; fi
if [ $rc != 0 ]; then ko "generated job: exit $rc"
elif [ -z "$peak" ] || [ "$peak" -ge 32 ]; then ko "generated job: the batch's peak RSS ${peak:-?} MiB, not under 32"
elif [ -z "$rss" ] || [ "$rss" -ge 2097152 ]; then ko "generated job: RSS ${rss:-?} KiB, not under 2 GiB"
elif ! python3 tests/tools/check_ranks.py "$tmp/job.expected" "$tmp/jobo/job.csv" \
    "$tmp/jobo/job.straggler.csv" >"$tmp/chk" 2>&1; then ko "generated job: check_ranks.py"; cat "$tmp/chk"
else ok; fi
# 8 generated ranks: the batch's streamed ranks and merged Chrome trace are
# byte-identical to one pipeline holding the 8 traces at once
python3 tests/tools/gen_ranks.py "$tmp/job8" --ranks 8 --size 1M >/dev/null
"$P" run tests/pipelines/batch/ranks_job.yaml --input "$tmp/job8" --set out="$tmp/job8b" -j 2 \
    -v >/dev/null 2>"$tmp/err8"
rc=$?
"$P" run tests/pipelines/batch/ranks_in_memory.yaml --set job="$tmp/job8" --set out="$tmp/job8m" \
    -q >/dev/null 2>>"$tmp/err"
rc2=$?
if [ $rc != 0 ] || [ $rc2 != 0 ]; then ko "8 generated ranks: exit $rc (batch), $rc2 (in memory)"
elif ! cmp -s "$tmp/job8m/job.csv" "$tmp/job8b/job.csv"; then ko "8 generated ranks: job.csv differs"
elif ! cmp -s "$tmp/job8m/job.straggler.csv" "$tmp/job8b/job.straggler.csv"; then ko "8 generated ranks: straggler differs"
elif ! cmp -s "$tmp/job8m/job.trace.json" "$tmp/job8b/job.trace.json"; then ko "8 generated ranks: Chrome trace differs"
elif ! python3 tests/tools/check_ranks.py "$tmp/job8.expected" "$tmp/job8b/job.csv" \
    "$tmp/job8b/job.straggler.csv" >"$tmp/chk" 2>&1; then ko "8 generated ranks: check_ranks.py"; cat "$tmp/chk"
else ok; fi
# critical_path's overlays over a folder of two ranks (batch: true) drawn by the streamed
# chrome_trace, which keeps each flow end while its rank is written (no rank asked for
# again): the same bytes as one pipeline with a reader per rank (valid/critical_path_overlay)
mkdir -p "$tmp/cpo"
cp tests/data/hand/cp_straggler_rank0.json tests/data/hand/cp_straggler_rank1.json "$tmp/cpo/"
"$P" run tests/pipelines/batch/critical_path_overlay_job.yaml --input "$tmp/cpo" \
    --set out="$tmp/cpo_out" -q >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc != 0 ]; then ko "batch critical_path overlay: exit $rc"; cat "$tmp/err"
elif ! cmp -s tests/pipelines/valid/critical_path_overlay/expected/job.trace.json \
    "$tmp/cpo_out/job.trace.json"; then ko "batch critical_path overlay: Chrome trace differs"
else ok; fi
# ranks and the merged Chrome trace stream side by side (core/tp_run_group.c):
# each rank is obtained once for both, not once per stage (8, not 16), from
# its hand-off (0 reads)
reads=$(grep -c "reader (batch) done" "$tmp/err8")
loads=$(grep -c "loaded from its trace process's hand-off" "$tmp/err8")
if [ "$reads" != 0 ] || [ "$loads" != 8 ]; then
    ko "8 generated ranks: $reads reads and $loads hand-offs for the batch stages, not 0 and 8"
else ok; fi
# the hand-off (issue 31, docs/batch.md): each rank's process writes its parsed trace
# for the batch stages, which load it instead of reading the rank again.  A rank whose
# file changed after its process read it, or whose hand-off is truncated or damaged, is
# read again (one `reader (batch)` line, the others loaded): the same files every time,
# and the hand-off folder ($TMPDIR/tracepipe-handoff-*) gone at the end, or on SIGTERM.
# handoff_held WHAT [R]: handoff_job.yaml over 3 generated ranks, -j 1, rank R's (0's)
# process held at its json writer (a FIFO) once its hand-off is written, WHAT done, then
# let go
mkdir -p "$tmp/ho/in"
cp "$tmp/job8/rank0.json" "$tmp/job8/rank1.json" "$tmp/job8/rank2.json" "$tmp/ho/in/"
HOJ=tests/pipelines/batch/handoff_job.yaml
handoff_held() {
    r=${2:-0}
    rm -rf "$tmp/ho/out" "$tmp/ho/tmp"
    mkdir -p "$tmp/ho/out/rank$r" "$tmp/ho/tmp"
    mkfifo "$tmp/ho/out/rank$r/kernels.json"
    TMPDIR="$tmp/ho/tmp" "$P" run "$HOJ" --input "$tmp/ho/in" --set out="$tmp/ho/out" -j 1 -v \
        >/dev/null 2>"$tmp/ho/err" &
    pid=$!
    n=0
    while [ $n -lt 3000 ] && ! ls "$tmp/ho/tmp"/tracepipe-handoff-*/$r.trace >/dev/null 2>&1; do
        sleep 0.01
        n=$((n + 1))
    done
    f=$(ls "$tmp/ho/tmp"/tracepipe-handoff-*/$r.trace 2>/dev/null)
    case $1 in
    touch) touch -d '2001-01-01 00:00:00' "$tmp/ho/in/rank0.json" ;;
    rewrite) # the same size and mtime after a rewrite in place: only the ctime moves
        cp -p "$tmp/ho/in/rank0.json" "$tmp/ho/r0"
        cat "$tmp/ho/r0" >"$tmp/ho/in/rank0.json"
        touch -r "$tmp/ho/r0" "$tmp/ho/in/rank0.json" ;;
    truncate) truncate -s 5000 "$f" ;;
    damage) printf 'X' | dd of="$f" bs=1 seek=3000 conv=notrunc 2>/dev/null ;;
    term) kill -TERM $pid ;; # rank R's process dies of it too, never opening the FIFO
    killrank) kill -TERM $(pgrep -P $pid) 2>/dev/null ;; # rank R's process alone
    esac
    [ "$1" = term ] || [ "$1" = killrank ] || cat "$tmp/ho/out/rank$r/kernels.json" >/dev/null 2>&1
    wait $pid
    rc=$?
}
"$P" run "$HOJ" --input "$tmp/ho/in" --set out="$tmp/ho/ref" -j 1 -q >/dev/null 2>&1
for what in none touch rewrite truncate damage; do
    handoff_held $what
    reads=$(grep -c "reader (batch) done" "$tmp/ho/err")
    loads=$(grep -c "loaded from its trace process's hand-off" "$tmp/ho/err")
    case $what in
    none) want_reads=0 why="" ;;
    touch | rewrite) want_reads=1 why="not used (the trace file changed since its process read it)" ;;
    truncate) want_reads=1 why="not used (damaged (its digest differs))" ;;
    damage) want_reads=1 why="not used (damaged (its digest differs))" ;;
    esac
    same=1
    for f in job.csv job.straggler.csv job.trace.json; do
        cmp -s "$tmp/ho/ref/$f" "$tmp/ho/out/$f" || same=0
    done
    if [ $rc != 0 ]; then ko "hand-off ($what): exit $rc"; cat "$tmp/ho/err"
    elif [ "$reads" != $want_reads ] || [ $((reads + loads)) != 3 ]; then
        ko "hand-off ($what): $reads reads and $loads hand-offs, not $want_reads and $((3 - want_reads))"
    elif [ -n "$why" ] && ! grep -F "[kineto_0] hand-off $tmp/ho/tmp/tracepipe-handoff-" "$tmp/ho/err" |
        grep -qF "/0.trace $why: reading the trace"; then ko "hand-off ($what): no '$why'"
    elif [ $same != 1 ]; then ko "hand-off ($what): the batch stages' files differ"
    elif [ -n "$(ls -A "$tmp/ho/tmp")" ]; then ko "hand-off ($what): left $(ls -A "$tmp/ho/tmp")"
    else ok; fi
done
handoff_held term
if [ $rc != 143 ]; then ko "hand-off: SIGTERM: exit $rc, expected 143"
elif [ -n "$(ls -A "$tmp/ho/tmp")" ]; then ko "hand-off: SIGTERM left $(ls -A "$tmp/ho/tmp"/*)"
else ok; fi
# a rank's process killed by a signal takes only its own trace with it: the batch's
# hand-off folder is the batch's to remove (its processes forget it), so the other
# ranks are still loaded, none read again
handoff_held killrank 1
reads=$(grep -c "reader (batch) done" "$tmp/ho/err")
loads=$(grep -c "loaded from its trace process's hand-off" "$tmp/ho/err")
if [ $rc = 0 ]; then ko "hand-off: a rank's process killed: exit 0"
elif [ "$reads" != 0 ] || [ "$loads" != 2 ]; then
    ko "hand-off: a rank's process killed: $reads reads and $loads hand-offs, not 0 and 2"; cat "$tmp/ho/err"
elif [ -n "$(ls -A "$tmp/ho/tmp")" ]; then ko "hand-off: a rank's process killed: left $(ls -A "$tmp/ho/tmp")"
else ok; fi
# a batch killed with SIGKILL cannot remove its hand-off folder: the next batch does, its
# owner (pid and start time, in the folder's name) being gone, while a live batch's folder
# survives another batch's start.  held_batch OUT [OLD]: handoff_job.yaml into OUT, rank
# 0's process held at its FIFO once its hand-off is written in a folder other than OLD
# (pid: the batch; folder: its hand-off folder)
held_batch() {
    rm -rf "$1"
    mkdir -p "$1/rank0"
    mkfifo "$1/rank0/kernels.json"
    TMPDIR="$tmp/ho/tmp" "$P" run "$HOJ" --input "$tmp/ho/in" --set out="$1" -j 1 -v \
        >/dev/null 2>"$1.err" &
    pid=$!
    n=0
    folder=
    while [ $n -lt 3000 ] && [ -z "$folder" ]; do
        sleep 0.01
        n=$((n + 1))
        folder=$(ls "$tmp/ho/tmp"/tracepipe-handoff-*/0.trace 2>/dev/null | grep -vF "${2:-//}/" |
            sed 's,/0\.trace$,,')
    done
}
rm -rf "$tmp/ho/tmp"
mkdir -p "$tmp/ho/tmp"
held_batch "$tmp/ho/killed"
stale=$folder
kill -KILL $(pgrep -P $pid) $pid 2>/dev/null
wait $pid 2>/dev/null
left_by_kill=$(ls -d "$stale" 2>/dev/null)
held_batch "$tmp/ho/live" "$stale"
TMPDIR="$tmp/ho/tmp" "$P" run "$HOJ" --input "$tmp/ho/in" --set out="$tmp/ho/next" -j 1 -q \
    >/dev/null 2>&1
rc_next=$?
survived=$(ls "$folder/0.trace" 2>/dev/null)
cat "$tmp/ho/live/rank0/kernels.json" >/dev/null
wait $pid
rc_live=$?
if [ -z "$left_by_kill" ] || [ -z "$folder" ]; then ko "hand-off, SIGKILL: no folder to find ($stale, $folder)"
elif [ $rc_next != 0 ] || [ $rc_live != 0 ]; then ko "hand-off, SIGKILL: exits $rc_next and $rc_live"
elif [ -e "$stale" ]; then ko "hand-off, SIGKILL: the next batch left $stale"
elif ! grep -qF "pipeline: batch: removed $stale, the hand-off folder of a batch that is gone" "$tmp/ho/live.err"
then ko "hand-off, SIGKILL: no -v line for the stale folder"; cat "$tmp/ho/live.err"
elif [ -z "$survived" ]; then ko "hand-off, SIGKILL: another batch removed a live batch's hand-off"
elif [ "$(grep -c "loaded from its trace process's hand-off" "$tmp/ho/live.err")" != 3 ]; then
    ko "hand-off, SIGKILL: the live batch lost its hand-offs"; cat "$tmp/ho/live.err"
elif ! cmp -s "$tmp/ho/ref/job.csv" "$tmp/ho/live/job.csv"; then ko "hand-off, SIGKILL: the live batch's job.csv differs"
elif [ -n "$(ls -A "$tmp/ho/tmp")" ]; then ko "hand-off, SIGKILL: left $(ls -A "$tmp/ho/tmp")"
else ok; fi
# only what is provably stale: a pid reused (another start time), or on this host an earlier
# boot whose folder has not changed since before this boot, goes; a live owner, another host
# (a TMPDIR shared by nodes), another boot's folder changed since this boot (a virtual
# machine sharing TMPDIR), another pid or time namespace, a folder of another mode, a symbolic
# link (never followed) and a folder holding more than hand-offs stay. The host's hash and
# the time namespace are read from the killed batch's folder name (PID-START-BOOT-HOST-PIDNS-
# TIMENS-XXXXXX).
start=$(sed 's/.*) //' /proc/$$/stat | cut -d' ' -f20)
boot=$(head -c 8 /proc/sys/kernel/random/boot_id)
ns=$(stat -L -c %i /proc/self/ns/pid)
host=$(basename "$stale" | cut -d- -f6)
tns=$(basename "$stale" | cut -d- -f8)
btime=$(sed -n 's/^btime //p' /proc/stat)
other_boot=$(printf '%s' "$boot" | tr '0-9a-f' '1-9a-f0')
other_host=$(printf '%s' "$host" | tr '0-9a-f' '1-9a-f0')
H="$tmp/ho/tmp/tracepipe-handoff"
mkdir -m 700 "$H-$$-$((start + 1))-$boot-$host-$ns-$tns-reused" \
    "$H-$$-$start-$other_boot-$host-$ns-$tns-booted" \
    "$H-$$-$start-$other_boot-$host-$ns-$tns-bootednew" \
    "$H-999999999-1-$other_boot-$other_host-$ns-$tns-otherhost" \
    "$H-$$-$start-$boot-$host-$ns-$tns-liveok" "$H-999999999-1-$boot-$host-1-$tns-otherns" \
    "$H-999999999-1-$boot-$host-$ns-$((tns + 1))-othertime" \
    "$H-999999999-1-$boot-$host-$ns-$tns-extras" "$tmp/ho/target"
mkdir -m 755 "$H-999999999-1-$boot-$host-$ns-$tns-mode55"
: >"$H-$$-$((start + 1))-$boot-$host-$ns-$tns-reused/0.trace"
: >"$H-999999999-1-$boot-$host-$ns-$tns-extras/0.trace"
: >"$H-999999999-1-$boot-$host-$ns-$tns-extras/notes.txt"
: >"$tmp/ho/target/0.trace"
touch -d "@$((btime - 60))" "$H-$$-$start-$other_boot-$host-$ns-$tns-booted" \
    "$H-999999999-1-$other_boot-$other_host-$ns-$tns-otherhost"
ln -s "$tmp/ho/target" "$H-999999999-1-$boot-$host-$ns-$tns-linked"
TMPDIR="$tmp/ho/tmp" "$P" run "$HOJ" --input "$tmp/ho/in" --set out="$tmp/ho/next" -j 1 -q \
    >/dev/null 2>&1
left=$(cd "$tmp/ho/tmp" && ls -d tracepipe-handoff-* | sed 's/.*-//' | sort | tr '\n' ' ')
if [ -z "$host" ] || [ -z "$tns" ] || [ -z "$btime" ]; then ko "hand-off: stale folders: no host, time namespace or boot time ($stale)"
elif [ "$left" != "bootednew extras linked liveok mode55 otherhost otherns othertime " ]; then
    ko "hand-off: stale folders: left $left"
elif [ ! -e "$tmp/ho/target/0.trace" ] || [ ! -e "$H-999999999-1-$boot-$host-$ns-$tns-extras/notes.txt" ]; then
    ko "hand-off: stale folders: a file not its own removed"
else ok; fi
rm -rf "$tmp/ho/tmp" "$tmp/ho/target"
# a file system with less room than a hand-off plus the reserve gets none: the batch
# reads the ranks, with the same files
rm -rf "$tmp/ho/out" "$tmp/ho/tmp"
mkdir -p "$tmp/ho/tmp"
TMPDIR="$tmp/ho/tmp" TRACEPIPE_HANDOFF_RESERVE_MB=1000000000000 "$P" run "$HOJ" \
    --input "$tmp/ho/in" --set out="$tmp/ho/out" -j 1 -v >/dev/null 2>"$tmp/ho/err"
rc=$?
reads=$(grep -c "reader (batch) done" "$tmp/ho/err")
loads=$(grep -c "loaded from its trace process's hand-off" "$tmp/ho/err")
same=1
for f in job.csv job.straggler.csv job.trace.json; do
    cmp -s "$tmp/ho/ref/$f" "$tmp/ho/out/$f" || same=0
done
if [ $rc != 0 ]; then ko "hand-off, no room: exit $rc"
elif [ "$reads" != 3 ] || [ "$loads" != 0 ]; then ko "hand-off, no room: $reads reads and $loads hand-offs, not 3 and 0"
elif ! grep -q "no hand-off for the batch stages (.* MiB free; the hand-off takes up to .* MiB and .* MiB must stay free" "$tmp/ho/err"; then
    ko "hand-off, no room: no reason given"; cat "$tmp/ho/err"
elif [ $same != 1 ]; then ko "hand-off, no room: the batch stages' files differ"
else ok; fi
# a rank given a capture trace is read with the capture by its process, without by the
# batch's reader: its hand-off is refused (other options) and the rank read again
cp tests/data/hand/graph_cuda_capture.json "$tmp/ho/in/graph_capture_rank_1.json"
"$P" run "$HOJ" --input "$tmp/ho/in" --set out="$tmp/ho/cap" -j 2 -v >/dev/null 2>"$tmp/ho/err"
rc=$?
reads=$(grep -c "reader (batch) done" "$tmp/ho/err")
if [ $rc != 0 ]; then ko "hand-off with a capture: exit $rc"; cat "$tmp/ho/err"
elif [ "$reads" != 1 ]; then ko "hand-off with a capture: $reads reads, not 1"
elif ! grep -q "\[kineto_1\] hand-off .*/1\.trace not used (the trace process read it with another reader or options): reading the trace" "$tmp/ho/err"
then ko "hand-off with a capture: not refused"
elif ! cmp -s "$tmp/ho/ref/job.csv" "$tmp/ho/cap/job.csv"; then ko "hand-off with a capture: job.csv differs"
else ok; fi
rm -f "$tmp/ho/in/graph_capture_rank_1.json"
# the streaming stages run side by side, but a failure still stops the
# pipeline at its place: ranks fails (a rank without communication), so the
# Chrome trace after it is not written, as when they ran one after the other
mkdir -p "$tmp/nocomm"
cp "$tmp/job8/rank0.json" "$tmp/job8/rank1.json" "$tmp/nocomm/"
cp tests/data/hand/hier_basic.json "$tmp/nocomm/rank2.json"
check "streamed side by side: an earlier stage fails" 1 "analysis 'job': a rank has no communication" \
    "$P" run tests/pipelines/batch/ranks_job.yaml --input "$tmp/nocomm" --set out="$tmp/nocommo" -j 2
if [ -e "$tmp/nocommo/job.trace.json" ]; then ko "streamed side by side: a stage after a failed one wrote its file"
else ok; fi
# the cores are shared among the traces a batch runs at once (tp_threads):
# a gzip trace over 1 MB is parsed on two threads alone (-j 1, two cores or
# more), on one in a batch running as many traces as there are cores
mkdir -p "$tmp/gz2"
cp tests/data/kineto/corpus/hta_mtia_rank0.json.gz "$tmp/gz2/a.json.gz"
cp tests/data/kineto/corpus/hta_mtia_rank0.json.gz "$tmp/gz2/b.json.gz"
cores=$(nproc)
"$P" run top_kernels --input "$tmp/gz2" --set out="$tmp/gz2o" -j "$cores" -v -v >/dev/null 2>"$tmp/err"
rc=$?
"$P" run top_kernels --input "$tmp/gz2" --set out="$tmp/gz2o1" -j 1 -v -v >/dev/null 2>"$tmp/err1"
rc1=$?
split=$(grep -c "parsed on two threads" "$tmp/err")
split1=$(grep -c "parsed on two threads" "$tmp/err1")
if [ $rc != 0 ] || [ $rc1 != 0 ]; then ko "threads per trace: exit $rc, $rc1"
# two traces at once (the batch never runs more than it has): each gets cores / 2 threads
elif [ "$split" != "$(( cores / 2 >= 2 ? 2 : 0 ))" ]; then ko "threads per trace: $split traces split at -j $cores"
elif [ "$cores" -ge 2 ] && [ "$split1" != 2 ]; then ko "threads per trace: $split1 of 2 split at -j 1"
elif ! cmp -s "$tmp/gz2o/kernels.csv" "$tmp/gz2o1/kernels.csv"; then ko "threads per trace: outputs differ"
else ok; fi
# a streaming group after a stage that holds every rank (critical_path, batch: true) uses
# the ranks held, reading none again: each of the 2 ranks obtained once (it read 4), from its
# hand-off
mkdir -p "$tmp/cpstream"
cp tests/data/hand/cp_straggler_rank0.json tests/data/hand/cp_straggler_rank1.json "$tmp/cpstream/"
"$P" run tests/pipelines/batch/cp_then_streamed_job.yaml --input "$tmp/cpstream" \
    --set out="$tmp/cpso" -v >/dev/null 2>"$tmp/err"
rc=$?
reads=$(grep -c "reader (batch) done" "$tmp/err")
loads=$(grep -c "loaded from its trace process's hand-off" "$tmp/err")
if [ $rc != 0 ]; then ko "streamed after a holding stage: exit $rc"; cat "$tmp/err"
elif [ "$reads" != 0 ] || [ "$loads" != 2 ]; then ko "streamed after a holding stage: $reads reads and $loads hand-offs, not 0 and 2"
elif ! cmp -s tests/pipelines/valid/critical_path_overlay/expected/job.trace.json "$tmp/cpso/job.trace.json"
then ko "streamed after a holding stage: Chrome trace differs"
else ok; fi
# a later streaming stage that fails at once while an earlier one still reads: a clean
# error at its place (the earlier one's trace was freed under it: ASan/valgrind saw it)
mkdir -p "$tmp/onerank"
cp tests/data/hand/cp_straggler_rank0.json "$tmp/onerank/"
check "streamed: a later stage fails first" 1 "analysis 'job': give the ranks' traces" \
    "$P" run tests/pipelines/batch/streamed_later_fails_job.yaml --input "$tmp/onerank" --set out="$tmp/onero"
# a stage the streaming group overtook fails (ranks_job.yaml's csv writer of ranks' results,
# between ranks and chrome_trace; its job.csv is a folder): exit 1 at its place, and the
# group's later stage (chrome_trace) leaves no file, not even its temporary, as when the
# stages ran one after the other (it had completed job.trace.json before the mend)
mkdir -p "$tmp/overtaken/job.csv"
check "streamed: an overtaken stage fails" 1 "writer 'csv_2': $tmp/overtaken/job.csv: is a directory" \
    "$P" run tests/pipelines/batch/ranks_job.yaml --input "$tmp/cpstream" --set out="$tmp/overtaken"
left=$(ls -A "$tmp/overtaken" | grep -c "job\.trace")
if [ "$left" != 0 ]; then ko "streamed: an overtaken stage fails: the later stage left $left file(s)"
elif [ ! -s "$tmp/overtaken/host.csv" ]; then ko "streamed: an overtaken stage fails: no batch table"
else ok; fi
# one bad rank: the batch stages run over the others and the exit says a trace failed
head -c 2000 tests/data/hand/hier_basic.json > "$tmp/ranks/broken.json"
"$P" run tests/pipelines/batch/ranks_job.yaml --input "$tmp/ranks" --set out="$tmp/rj2" -j 2 \
    >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc != 1 ]; then ko "batch stages with a bad trace: exit $rc, expected 1"
elif ! grep -q "3 batch stage(s) over 8 trace(s)" "$tmp/err"; then ko "batch stages skip the bad trace"
elif ! cmp -s "$RANKS/job.csv" "$tmp/rj2/job.csv"; then ko "batch stages with a bad trace: job.csv"
else ok; fi
rm "$tmp/ranks/broken.json"
# a rank for traces that record none, from the file name; a recorded rank wins
mkdir -p "$tmp/named"
cp tests/data/kineto/corpus/tracelens_h100_bert_small.json.gz "$tmp/named/bert_rank1.json.gz"
cp tests/data/kineto/corpus/tracelens_h100_bert_small.json.gz "$tmp/named/bert_Worker-12.json.gz"
cp tests/data/dlrm_worker0_step12.pt.trace.json.gz "$tmp/named/dlrm_rank5.pt.trace.json.gz"
"$P" run top_kernels --input "$tmp/named" --set out="$tmp/named_out" -q >/dev/null 2>"$tmp/err"
rc=$?
ranks=$(python3 -c "
import csv, sys
rows = csv.DictReader(open(sys.argv[1]))
print(' '.join(sorted({r['trace'] + '=' + r['rank'] for r in rows})))" "$tmp/named_out/kernels.csv" 2>&1)
if [ $rc != 0 ]; then ko "ranks from file names: exit $rc"
elif [ "$ranks" != "bert_Worker-12=12 bert_rank1=1 dlrm_rank5=0" ]; then ko "ranks from file names: $ranks"
else ok; fi
# reader: auto over traces of two formats: each trace is read by the reader
# that knows it for the batch stages too (one Chrome trace of both)
mkdir -p "$tmp/mixed"
cp tests/data/nsys/pipit_saxpy_mpi_cuda_perlmutter0.sqlite "$tmp/mixed/saxpy.sqlite"
cp tests/data/hand/hier_basic.json "$tmp/mixed/basic.json"
"$P" run tests/pipelines/batch/auto_merge.yaml --input "$tmp/mixed" --set out="$tmp/am" -q \
    >/dev/null 2>"$tmp/err"
rc=$?
names=$(python3 -c "
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
names = {e.get('name') for e in ev}
print(int('saxpy' in names and 'MPI_Init' in names), int('mm_k' in names and 'aten::mm' in names))" \
    "$tmp/am/all.trace.json" 2>&1)
if [ $rc != 0 ]; then ko "reader auto, batch stage over two formats: exit $rc"
elif [ "$names" != "1 1" ]; then ko "reader auto: the merged trace lacks one format's events ($names)"
else ok; fi
# per-trace results into batch stages: the batch table read back by a
# csv_table reader (batch: true) and drawn, a stacked bar per rank; every
# drawn value is the rank's row of the per-trace table
"$P" run tests/pipelines/batch/kernel_mix.yaml --input "$tmp/ranks" --set out="$tmp/km" -q \
    >/dev/null 2>"$tmp/err"
rc=$?
drawn=$(python3 -c "
import csv, glob, os, re, sys
sys.path.insert(0, 'tests/tools')
import check_svg
out = sys.argv[1]
check_svg.check_file(os.path.join(out, 'kernel_mix.svg'))
want = {}
for f in glob.glob(os.path.join(out, '*', 'kernels.classes.csv')):
    label = os.path.basename(os.path.dirname(f))
    for r in csv.DictReader(open(f)):
        want['%s / %s' % (label, r['kernel_class'])] = float(r['sum_us'])
got = {}
for t in re.findall(r'<title>([^<]*): ([0-9.]+) us</title>', open(os.path.join(out, 'kernel_mix.svg')).read()):
    got[t[0]] = float(t[1])
assert len(want) >= 16 and set(got) == set(want), (sorted(got), sorted(want))
assert all(abs(got[k] - want[k]) <= 0.5 + 1e-6 * want[k] for k in want), [(k, got[k], want[k]) for k in want if got[k] != want[k]]
print(len(got))" "$tmp/km" 2>&1)
if [ $rc != 0 ]; then ko "batch reader of the batch tables: exit $rc"
elif ! [ "$drawn" -ge 16 ] 2>/dev/null; then ko "kernel mix chart: $drawn"
else ok; fi
# a batch stage may not take a per-trace stage's results
sed 's/    input: \[job, job.straggler\]/    input: [job, host]/' tests/pipelines/batch/ranks_job.yaml \
    > "$tmp/bad_batch.yaml"
check "batch stage on per-trace results" 2 "takes input 'host' of the per-trace stage 'host'" \
    "$P" run "$tmp/bad_batch.yaml" --input "$tmp/ranks" --set out="$tmp/rj3"
check "no such input" 2 "no such file or folder" \
    "$P" run top_kernels --input "$tmp/nothing"
check "-j 0" 2 "-j needs a number" "$P" run top_kernels --input "$tmp/in" -j 0
check "bad size" 2 "--max-memory needs a size" "$P" run top_kernels --input "$tmp/in" --max-memory 8X
# --input overrides the first reader's path, ${trace} or not: the nsys reader
# reads the two SQLite exports; the folder's other files are not nsys
# traces (its probe says), so they are skipped, and counted
check "--input without a trace var" 0 "2 file(s) of $tmp/in skipped: not nsys traces" \
    "$P" run tests/pipelines/valid/nsys_saxpy/pipeline.yaml --input "$tmp/in" --set out="$tmp/o9"
"$P" run tests/pipelines/valid/nsys_saxpy/pipeline.yaml --input "$tmp/in" --set out="$tmp/o9v" -v \
    >/dev/null 2>"$tmp/err"
if grep -q "skipped $tmp/in/saxpy_lines.json: no nsys trace" "$tmp/err" &&
    grep -q "skipped $tmp/in/broken.json: no nsys trace" "$tmp/err"; then ok
else ko "-v names the files skipped"; fi
# a folder of licences and notes only: nothing to run
mkdir -p "$tmp/texts"
cp /dev/null "$tmp/texts/empty.json"
printf 'MIT License\n' > "$tmp/texts/LICENSE.txt"
check "a folder without traces the reader knows" 2 "no traces there that the pipeline's reader knows" \
    "$P" run top_kernels --input "$tmp/texts" --set out="$tmp/o11"
if cmp -s tests/pipelines/valid/nsys_saxpy/expected/ks.csv "$tmp/o9/saxpy/ks.csv"; then ok
else ko "--input without a trace var: saxpy outputs"; fi
# a folder written as the reader's own path is a batch too
sed "s|    path: tests/data/nsys/pipit_saxpy_mpi_cuda_perlmutter0.sqlite|    path: $tmp/in/sub|" \
    tests/pipelines/valid/nsys_saxpy/pipeline.yaml > "$tmp/folder_path.yaml"
"$P" run "$tmp/folder_path.yaml" --set out="$tmp/o10" -q >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc != 0 ] || [ ! -s "$tmp/o10/clover/ks.csv" ]; then ko "reader path: FOLDER: exit $rc"
else ok; fi
mkdir -p "$tmp/empty"
check "empty folder" 2 "no traces there" "$P" run top_kernels --input "$tmp/empty"
check "bad shard" 2 "--shard needs I/N" "$P" run top_kernels --input "$tmp/in" --shard 3/3
check "merge the same trace twice" 1 "is in both" "$P" merge "$tmp/own0" "$tmp/own0/.." "$tmp/own0"
check "merge nothing" 2 "merge needs" "$P" merge

# exit statuses a CI script tells apart (CONVENTIONS: the worst of the
# traces', 1 > 2 > 3 > 0), gated by diff against tests/data/hand/diff_base.json
# (median iteration 104 us): same.json is the base itself (0 %), slower.json
# the base with ProfilerStep#4 at 140 us instead of 104 (median 120 us:
# +15.38 %), broken.json cut short (a failure)
DB=tests/pipelines/cli/diff_batch.yaml
mkdir -p "$tmp/gate_ok" "$tmp/gate_slow" "$tmp/gate_mixed"
cp tests/data/hand/diff_base.json "$tmp/gate_ok/same.json"
cp tests/data/hand/diff_base.json "$tmp/gate_slow/same.json"
sed 's/"name": "ProfilerStep#4", "pid": 1, "tid": 1, "ts": 5000, "dur": 104/"name": "ProfilerStep#4", "pid": 1, "tid": 1, "ts": 5000, "dur": 140/' \
    tests/data/hand/diff_base.json > "$tmp/gate_slow/slower.json"
cp "$tmp/gate_slow/"*.json "$tmp/gate_mixed/"
head -c 1000 tests/data/hand/diff_base.json > "$tmp/gate_mixed/broken.json"
check "gate: every trace within" 0 "batch: 1 trace(s), 1 ok, 0 failed (" "$P" run "$DB" --input "$tmp/gate_ok" --set out="$tmp/g0" --fail-if-slower 5
check "gate: a regression in a batch is 3" 3 "slower: PAST A GATE (exit 3): pipeline: the test run is 15.38 % slower than the base (result d.summary, median iteration), more than --fail-if-slower 5" \
    "$P" run "$DB" --input "$tmp/gate_slow" --set out="$tmp/g3" --fail-if-slower 5
if grep -qF "batch: 2 trace(s), 1 ok, 0 failed, 1 past a gate" "$tmp/err" &&
    [ -s "$tmp/g3/slower/summary.csv" ] && grep -q "^slower,iteration_us,104,120," "$tmp/g3/summary.csv"
then ok; else ko "gate: the summary counts the gated trace apart, its outputs written and merged"; fi
check "gate: a regression and a failure is 1" 1 "broken: FAILED (exit 1)" \
    "$P" run "$DB" --input "$tmp/gate_mixed" --set out="$tmp/g1" --fail-if-slower 5
check "gate: a gate without a diff in a batch is 2" 2 "--fail-if-slower needs a diff analysis" \
    "$P" run top_kernels --input "$tmp/gate_ok" --set out="$tmp/g2" --fail-if-slower 5
check "gate: a gate trips in one run: 3" 3 "15.38 % slower" \
    "$P" run "$DB" --set trace="$tmp/gate_slow/slower.json" --set out="$tmp/gs" --fail-if-slower 5
check "gate: misuse in one run: 2" 2 "--fail-if-slower needs a percentage" \
    "$P" run "$DB" --set trace="$tmp/gate_slow/slower.json" --fail-if-slower fast

# the same with --fail-if (docs/gates.md): a gate that trips is 3, a
# failure beside it 1, a gate that does not compile 2 before any trace runs
check "fail-if: a regression in a batch is 3" 3 "slower: PAST A GATE (exit 3): pipeline: gate tripped (--fail-if 1): d.summary.slower_percent > 5: d.summary.slower_percent = 15.38461538 in d.summary row 1 (measure \"iteration_us\"); 1 of 2 row(s) trip" \
    "$P" run "$DB" --input "$tmp/gate_slow" --set out="$tmp/f3" --fail-if 'd.summary.slower_percent > 5'
check "fail-if: every trace within is 0" 0 "batch: 2 trace(s), 2 ok, 0 failed (" \
    "$P" run "$DB" --input "$tmp/gate_slow" --set out="$tmp/f0" --fail-if 'd.summary.slower_percent > 16'
check "fail-if: a regression and a failure is 1" 1 "broken: FAILED (exit 1)" \
    "$P" run "$DB" --input "$tmp/gate_mixed" --set out="$tmp/f1" --fail-if 'd.summary.slower_percent > 5'
check "fail-if: an unknown column is 2, before any trace" 2 "--fail-if 1:1: error: result 'd.summary' has no column 'slower_pct'" \
    "$P" run "$DB" --input "$tmp/gate_mixed" --set out="$tmp/f2" --fail-if 'd.summary.slower_pct > 5'
if [ -e "$tmp/f2" ]; then ko "fail-if: a refused gate ran traces"; else ok; fi

# issue 32: strict -j, --max-memory and --shard (atoi made 4294967297 one
# trace at once and 4x four; 100000000 failed without a word; 0.5, 1e-300
# and nan bytes meant no limit; merge ignored manifests over 65536 shards)
for j in 100000000 4294967297 4x -1 ""; do
    check "-j '$j'" 2 "-j needs a number of traces at once, 1 to 4096, got $j" \
        "$P" run top_kernels --input "$tmp/in" -j "$j"
done
for m in 0.5 1e-300 nan inf -8G 0x10M 8Q; do
    check "--max-memory $m" 2 "--max-memory needs a size of at least 1M" \
        "$P" run top_kernels --input "$tmp/in" --max-memory "$m"
done
check "--shard over the limit" 2 "0 <= I < N <= 65536" "$P" run top_kernels --input "$tmp/in" --shard 0/100000
check "--shard I out of range" 2 "--shard needs I/N" "$P" run top_kernels --input "$tmp/in" --shard 4294967296/3

# issue 32: a link to a folder is not followed (`self -> .` ran one trace 33
# times, and merge made 33 traces' rows of it); a link to a file is a trace
mkdir -p "$tmp/loop"
cp tests/data/nsys/saxpy_from_sqlite.json "$tmp/loop/a.json"
ln -s . "$tmp/loop/self"
ln -s "$PWD/tests/data/nsys/saxpy_from_sqlite.json" "$tmp/loop/b.json"
check "a folder with a link to itself" 0 "batch: 2 trace(s) from $tmp/loop" \
    "$P" run top_kernels --input "$tmp/loop" --set out="$tmp/oloop" -j 2
ln -s .. "$tmp/oloop/a/up"
"$P" merge "$tmp/oloop" --out "$tmp/mloop" -q 2>"$tmp/err"
# saxpy's kernels.csv: a header and 3 kernels; two traces: 1 + 2 x 3 lines
if [ "$(wc -l < "$tmp/oloop/kernels.csv")" != 7 ]; then ko "batch table over a linked folder"
elif [ "$(wc -l < "$tmp/mloop/kernels.csv")" != 7 ]; then ko "merge over a linked folder"
else ok; fi

# issue 32: labels are paths below the inputs' deepest common folder
# (runs/*/rank0.json over three runs gave rank0, rank0-2, rank0-2: the third
# overwrote the second, "3 ok"); two that would share one keep their full
# file names; a collision left is an error
for r in a b c; do
    mkdir -p "$tmp/runs/$r" && cp tests/data/nsys/saxpy_from_sqlite.json "$tmp/runs/$r/rank0.json"
done
cp tests/data/nsys/saxpy_from_sqlite.json "$tmp/runs/c/rank0.jsonl"
check "a glob over runs" 0 "batch: 3 trace(s), 3 ok" \
    "$P" run top_kernels --input "$tmp/runs/*/rank0.json" --set out="$tmp/oruns" -v
if [ "$(cut -d, -f1 "$tmp/oruns/kernels.csv" | uniq | tr '\n' ' ')" != "trace a/rank0 b/rank0 c/rank0 " ]
then ko "labels of a glob over runs: $(ls "$tmp/oruns")"; else ok; fi
check "two files that would share a label" 0 "rank0.jsonl: ok" \
    "$P" run top_kernels --input "$tmp/runs/c/*" --set out="$tmp/oc" -v
[ -s "$tmp/oc/rank0.json/kernels.csv" ] && [ -s "$tmp/oc/rank0.jsonl/kernels.csv" ] && ok ||
    ko "full file names as labels"
cp tests/data/nsys/saxpy_from_sqlite.json "$tmp/runs/c/rank0.json.json"
check "labels that still collide" 2 "would both be labelled 'rank0.json'" \
    "$P" run top_kernels --input "$tmp/runs/c" --set out="$tmp/oc2"

# issue 32: batch tables hold this run's traces that went through only
# (they held an earlier run's traces, a failed trace's partial rows, and
# merge --out inside OUT run twice doubled every row)
"$P" run top_kernels --input "$tmp/runs/a" --set out="$tmp/own" -q >/dev/null 2>&1
"$P" run top_kernels --input "$tmp/runs/b" --set out="$tmp/own" -q >/dev/null 2>&1
if [ "$(cut -d, -f1 "$tmp/own/kernels.csv" | uniq | tr '\n' ' ')" != "trace rank0 " ] ||
    [ "$(wc -l < "$tmp/own/kernels.csv")" != 4 ]; then ko "an earlier run's traces in the tables"
else ok; fi
"$P" merge "$tmp/oruns" --out "$tmp/oruns/m" -q 2>"$tmp/err"
"$P" merge "$tmp/oruns" --out "$tmp/oruns/m" -q 2>"$tmp/err"
# three traces of three kernels and a header
if [ "$(wc -l < "$tmp/oruns/m/kernels.csv")" != 10 ]; then ko "merge --out inside OUT twice"; else ok; fi
mkdir -p "$tmp/dirfile/kernels.ops.csv" # a writer of every trace fails after the first wrote
sed -e 's|input: \[kernels, kernels.ops, kernels.classes, kernels.iterations\]|input: [kernels]|' \
    -e '/^  - writer: text/,$d' pipelines/top_kernels.yaml > "$tmp/half.yaml"
printf '  - writer: csv\n    input: [kernels.ops]\n    path: %s/{id}.csv\n' "$tmp/dirfile" >> "$tmp/half.yaml"
check "a trace failing after a writer" 1 "is a directory, not a file" \
    "$P" run "$tmp/half.yaml" --input "$tmp/runs/a" --set out="$tmp/ohalf"
if [ -s "$tmp/ohalf/rank0/kernels.csv" ] && [ ! -e "$tmp/ohalf/kernels.csv" ]; then ok
else ko "a failed trace's partial rows in the batch tables"; fi
# only batch writers: OUT has no trace folder, the merge makes it
mkdir -p "$tmp/two_ranks"
cp tests/data/dlrm_worker0_step12.pt.trace.json.gz tests/data/kineto/corpus/dlrm_worker1_step12.pt.trace.json.gz "$tmp/two_ranks/"
sed '/^  - writer: csv$/{N;/input: host/{N;d}}' tests/pipelines/batch/ranks_job.yaml > "$tmp/batch_only.yaml"
check "only batch writers" 0 "batch: 2 trace(s)" "$P" run "$tmp/batch_only.yaml" --input "$tmp/two_ranks" --set out="$tmp/obo/new"
[ -s "$tmp/obo/new/job.csv" ] && [ ! -e "$tmp/obo/new/host.csv" ] && ok || ko "only batch writers: job.csv"

# issue 32: manifests belong to (pipeline, trace list, N): a trace added
# between shard runs made merge exit 0 with a trace run twice or never
mkdir -p "$tmp/grow"
cp tests/data/nsys/saxpy_from_sqlite.json "$tmp/grow/b.json"
cp tests/data/nsys/saxpy_from_sqlite.json "$tmp/grow/c.json"
"$P" run top_kernels --input "$tmp/grow" --set out="$tmp/ogrow" -q --shard 0/2 >/dev/null 2>&1
cp tests/data/nsys/saxpy_from_sqlite.json "$tmp/grow/a.json"
"$P" run top_kernels --input "$tmp/grow" --set out="$tmp/ogrow" -q --shard 1/2 >/dev/null 2>&1
check "shards over different trace lists" 1 "another list of traces" "$P" merge "$tmp/ogrow"
"$P" run top_kernels --input "$tmp/grow" --set out="$tmp/ogrow" -q --shard 0/2 >/dev/null 2>&1
check "a shard run again replaces its own manifest" 0 "table(s) merged" "$P" merge "$tmp/ogrow"
# a, b, c: each once (3 kernels each) and a header
[ "$(wc -l < "$tmp/ogrow/kernels.csv")" = 10 ] && ok || ko "shards merged after the re-run"
"$P" run "$tmp/half.yaml" --input "$tmp/grow" --set out="$tmp/ogrow" -q --shard 1/2 >/dev/null 2>&1
check "shards of different pipelines" 1 "another pipeline" "$P" merge "$tmp/ogrow"

# issue 32: SIGTERM to the parent alone reaches the children, which are
# waited for (they wrote outputs after the parent's 143: 0 files, then 6)
mkdir -p "$tmp/many"
for i in 0 1 2 3 4 5; do
    mkdir -p "$tmp/many/c$i"
    cp tests/data/dlrm_worker0_step12.pt.trace.json.gz tests/data/kineto/corpus/dlrm_worker[1-7]_step12.pt.trace.json.gz "$tmp/many/c$i/"
done
"$P" run tests/pipelines/batch/ranks_job.yaml --input "$tmp/many" --set out="$tmp/oterm" -j 2 >/dev/null 2>&1 &
bg=$!
sleep 0.3
kill -TERM $bg
wait $bg
rc=$?
n1=$(find "$tmp/oterm" -type f 2>/dev/null | wc -l)
sleep 1
n2=$(find "$tmp/oterm" -type f 2>/dev/null | wc -l)
if [ $rc != 143 ]; then ko "SIGTERM to a batch: exit $rc, expected 143"
elif [ "$n1" != "$n2" ]; then ko "children wrote after the batch died of SIGTERM ($n1, then $n2 files)"
else ok; fi

# issue 32: file names reach the terminal escaped (a name could retitle or
# clear it): progress lines, ==> headers, messages
mkdir -p "$tmp/esc"
cp tests/data/nsys/saxpy_from_sqlite.json "$tmp/esc/$(printf 'a\033]0;owned\007')x.json"
cp tests/data/nsys/saxpy_from_sqlite.json "$tmp/esc/$(printf 'b\033[2J')y.json"
"$P" run top_kernels --input "$tmp/esc" --set out="$tmp/oesc" -v -v >"$tmp/stdout" 2>"$tmp/err"
if grep -q "$(printf '\033')" "$tmp/err" "$tmp/stdout"; then ko "a raw ESC on the terminal"
elif ! grep -qF '] a\x1b]0;owned\x07x: ok' "$tmp/err"; then ko "the progress line escapes"
elif ! grep -qF '==> b\x1b[2Jy <==' "$tmp/stdout"; then ko "the header escapes"
else ok; fi

# graph capture traces paired by rank (issue 26): rank0 and rank2 replay the
# graphs of hand/graph_cuda.json, rank1 those of hand/graph_multistream_hip.json;
# graph_capture_rank_0 and _1 are their captures, graph_capture_rank_3 no
# trace's.  Each rank's ops equal the single-trace goldens with its own
# capture (graphs_cuda_capture, graphs_multistream_hip: capturing ops), rank2
# (no capture of its rank) those without (graphs_cuda: graph <id>), and both
# unpaired traces are reported.  Rank 1 given rank 0's capture would match
# none of its replays, so a mismatch shows in its ops.
mkdir -p "$tmp/cap"
cp tests/data/hand/graph_cuda.json "$tmp/cap/rank0.json"
cp tests/data/hand/graph_multistream_hip.json "$tmp/cap/rank1.json"
cp tests/data/hand/graph_cuda.json "$tmp/cap/rank2.json"
cp tests/data/hand/graph_cuda_capture.json "$tmp/cap/graph_capture_rank_0.json"
cp tests/data/hand/graph_multistream_hip_capture.json "$tmp/cap/graph_capture_rank_1.json"
cp tests/data/hand/graph_cuda_capture.json "$tmp/cap/graph_capture_rank_3.json"
V=tests/pipelines/valid
"$P" run tests/pipelines/batch/capture_pairs.yaml --input "$tmp/cap" --set out="$tmp/ocap" \
    >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc != 0 ]; then ko "capture pairs: exit $rc"
elif ! grep -q "batch: 3 trace(s), 3 ok, 0 failed" "$tmp/err"; then ko "capture pairs: the captures ran as traces"
elif ! cut -d, -f1-6 "$tmp/ocap/rank0/ks.ops.csv" | cmp -s - "$V/graphs_cuda_capture/expected/ks.ops.csv"; then ko "capture pairs: rank0 ops"
elif ! cut -d, -f1-6 "$tmp/ocap/rank1/ks.ops.csv" | cmp -s - "$V/graphs_multistream_hip/expected/ks.ops.csv"; then ko "capture pairs: rank1 ops"
elif ! cut -d, -f1-6 "$tmp/ocap/rank2/ks.ops.csv" | cmp -s - "$V/graphs_cuda/expected/ks.ops.csv"; then ko "capture pairs: rank2 ops"
elif ! grep -qF "rank2: no capture trace of rank 2" "$tmp/err"; then ko "capture pairs: rank2 not reported"
elif ! grep -qF "graph_capture_rank_3.json: no trace of its rank takes it" "$tmp/err"; then ko "capture pairs: rank 3's capture not reported"
else ok; fi
mkdir -p "$tmp/cap2"
cp tests/data/hand/graph_multistream_hip.json "$tmp/cap2/worker_1.json"
cp tests/data/hand/graph_multistream_hip_capture.json "$tmp/cap2/bs_8_rank1.json"
"$P" run tests/pipelines/batch/capture_pairs.yaml --input "$tmp/cap2" --captures 'bs_*' \
    --set out="$tmp/ocap2" >/dev/null 2>"$tmp/err"
rc=$?
if [ $rc != 0 ]; then ko "--captures: exit $rc"
elif ! cut -d, -f1-6 "$tmp/ocap2/worker_1/ks.ops.csv" | cmp -s - "$V/graphs_multistream_hip/expected/ks.ops.csv"; then ko "--captures: worker_1 ops"
else ok; fi
check "captures a pipeline cannot take" 0 "3 capture trace(s) (*graph_capture*) left out: the pipeline declares no \`capture\` variable" \
    "$P" run top_kernels --input "$tmp/cap" --set out="$tmp/ocap3" -j 1

echo "batch: $pass passed, $fail failed"
[ $fail = 0 ]
