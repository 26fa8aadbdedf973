#!/bin/sh
# `pipeline slurm` (issue 34, item 2): the printed submission scripts as
# goldens (tests/e2e/slurm/*.sh, with the program's path and the current
# folder replaced by @PIPELINE@ and @CWD@), then --submit with a fake sbatch
# on PATH that records each job's arguments and script and prints "Submitted
# batch job N"; the recorded scripts are then run here as Slurm would (the
# array tasks with SLURM_ARRAY_TASK_* set, then the merge): the merged
# outputs must be the same bytes as one unsharded run, and the merge before
# every task has ended must fail naming the missing shard. Then the
# Kubernetes manifests of docs/cluster.md (tests/e2e/k8s_manifests.py). The
# same on a real Slurm cluster: tests/e2e/cluster.sh (make check-cluster).
#   sh tests/e2e/slurm.sh [BUILD]    (from the repository root)
set -u
BUILD=${1:-build}
P="$BUILD/pipeline"
SELF=$(realpath "$P")
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: slurm: $1"; [ -f "$tmp/err" ] && head -20 "$tmp/err"; }
normalise() { sed -e "s|$SELF|@PIPELINE@|g" -e "s|'$PWD'|'@CWD@'|g"; }
golden() { # name, then the arguments of pipeline slurm
    name=$1
    shift
    "$P" slurm "$@" >"$tmp/$name.out" 2>"$tmp/err"
    rc=$?
    normalise <"$tmp/$name.out" >"$tmp/$name.sh"
    if [ $rc != 0 ]; then ko "$name: exit $rc"
    elif [ "${UPDATE:-}" = 1 ]; then cp "$tmp/$name.sh" "tests/e2e/slurm/$name.sh"; ok
    elif ! diff -u "tests/e2e/slurm/$name.sh" "$tmp/$name.sh"; then ko "$name: differs from its golden"
    elif ! sh -n "$tmp/$name.out"; then ko "$name: not a valid sh script"
    else ok; fi
}
check() { # name, expected exit, expected text in stderr, command...
    name=$1 want=$2 text=$3
    shift 3
    "$@" >"$tmp/stdout" 2>"$tmp/err"
    got=$?
    if [ "$got" != "$want" ]; then ko "$name: exit $got, expected $want"
    elif ! grep -qF -- "$text" "$tmp/err"; then ko "$name: no '$text'"
    else ok; fi
}

# values a shell would split or expand are single-quoted, quotes included;
# options after -- go to both sbatch calls
golden top_kernels top_kernels --input "runs/job 42/" --shards 4 --set 'top=7' \
    --out "out dir/it's \$HOME" -- --partition=gpu '--comment=a b;`x`'
# a pipeline with batch stages: the merge also runs them (merge --pipeline)
golden ranks ranks --input tests/data/kineto/corpus --shards 4 --out results/ranks

check "slurm without --shards" 2 "slurm needs PIPELINE --input DIR --shards N" \
    "$P" slurm ranks --input tests/data/kineto/corpus
check "slurm --shards 0" 2 "--shards needs a number of array tasks" \
    "$P" slurm ranks --input tests/data/kineto/corpus --shards 0
check "slurm with a line break in a value" 2 "a value may not hold a line break" \
    "$P" slurm ranks --input "a
b" --shards 2
printf 'vars:\n  trace: t.json\nstages:\n  - reader: auto\n    path: ${trace}\n' >"$tmp/no_out.yaml"
check "slurm over a pipeline without out" 2 "declares no \`out\` variable" \
    "$P" slurm "$tmp/no_out.yaml" --input tests/data/nsys --shards 2

# --submit with a fake sbatch: job ids 123 then 124
mkdir -p "$tmp/bin" "$tmp/jobs"
cat >"$tmp/bin/sbatch" <<'FAKE'
#!/bin/sh
n=$(ls "$SBATCH_LOG" | grep -c '^args')
printf '%s\n' "$@" >"$SBATCH_LOG/args$n"
cat >"$SBATCH_LOG/job$n.sh"
echo "Submitted batch job $((123 + n))"
FAKE
chmod +x "$tmp/bin/sbatch"
mkdir -p "$tmp/in"
cp tests/data/dlrm_worker0_step12.pt.trace.json.gz tests/data/kineto/corpus/dlrm_worker[1-7]_step12.pt.trace.json.gz "$tmp/in/"
PATH="$tmp/bin:$PATH" SBATCH_LOG="$tmp/jobs" "$P" slurm ranks --input "$tmp/in" --shards 4 \
    --out "$tmp/out" --submit -- --time=5 >"$tmp/stdout" 2>"$tmp/err"
rc=$?
if [ $rc != 0 ]; then ko "--submit: exit $rc"
elif [ "$(cat "$tmp/stdout")" != "pipeline slurm: array job 123 (4 tasks), merge job 124 (after it)" ]; then
    ko "--submit: reported '$(cat "$tmp/stdout")'"
elif [ "$(tr '\n' ' ' <"$tmp/jobs/args0")" != "--job-name=tracepipe --array=0-3 --time=5 " ]; then
    ko "--submit: the array's sbatch arguments: $(tr '\n' ' ' <"$tmp/jobs/args0")"
elif [ "$(tr '\n' ' ' <"$tmp/jobs/args1")" != "--job-name=tracepipe-merge --dependency=afterany:123 --time=5 " ]; then
    ko "--submit: the merge's sbatch arguments: $(tr '\n' ' ' <"$tmp/jobs/args1")"
else ok; fi

# the recorded jobs run as Slurm would: tasks 0, 1, 3; the merge refuses
# (shard 2 missing); task 2 re-run alone; the merge goes through, equal to one run
task() {
    env SLURM_ARRAY_JOB_ID=123 SLURM_ARRAY_TASK_ID=$1 SLURM_ARRAY_TASK_MIN=0 SLURM_ARRAY_TASK_MAX=3 \
        SLURM_ARRAY_TASK_STEP=1 SLURM_ARRAY_TASK_COUNT=4 sh "$tmp/jobs/job0.sh" >/dev/null 2>>"$tmp/tasks.err"
}
for i in 0 1 3; do task $i || ko "array task $i: exit $?"; done
check "merge job with a task missing" 1 "shard 2 of 4 has not finished" sh "$tmp/jobs/job1.sh"
# re-run alone, as `sbatch --array=2` of the array's script: an array of one task
env SLURM_ARRAY_JOB_ID=125 SLURM_ARRAY_TASK_ID=2 SLURM_ARRAY_TASK_MIN=2 SLURM_ARRAY_TASK_MAX=2 \
    SLURM_ARRAY_TASK_STEP=1 SLURM_ARRAY_TASK_COUNT=1 sh "$tmp/jobs/job0.sh" >/dev/null 2>>"$tmp/tasks.err" ||
    ko "array task 2 re-run alone: exit $?"
[ -f "$tmp/out/.tracepipe-shard-2-of-4" ] || ko "the re-run task left no manifest of shard 2 of 4"
sh "$tmp/jobs/job1.sh" >/dev/null 2>"$tmp/err" || ko "merge job: exit $?"
"$P" run ranks --input "$tmp/in" --set out="$tmp/one" -q >/dev/null 2>"$tmp/err" || ko "one run: exit $?"
(cd "$tmp/one" && find . -type f ! -name '.tracepipe-*' | sort) >"$tmp/one.files"
(cd "$tmp/out" && find . -type f ! -name '.tracepipe-*' | sort) >"$tmp/out.files"
same=1
while read -r f; do cmp -s "$tmp/one/$f" "$tmp/out/$f" || { echo "differs: $f"; same=0; }; done <"$tmp/one.files"
if ! cmp -s "$tmp/one.files" "$tmp/out.files"; then ko "the array's files are not one run's: $(diff "$tmp/one.files" "$tmp/out.files" | head -5)"
elif [ $same != 1 ]; then ko "the array's merged outputs differ from one run"
elif [ "$(wc -l <"$tmp/one.files")" -lt 10 ]; then ko "one run wrote only $(wc -l <"$tmp/one.files") files"
else ok; fi

# the Kubernetes manifests of docs/cluster.md, each pod's command run as the
# kubelet would (JOB_COMPLETION_INDEX 0..N-1, volumes mapped to scratch folders)
if python3 tests/e2e/k8s_manifests.py "$BUILD" >"$tmp/k8s" 2>&1; then ok
else ko "the Kubernetes manifests of docs/cluster.md: $(cat "$tmp/k8s" | tail -3)"; fi

echo "slurm: $pass passed, $fail failed"
[ "$fail" = 0 ]
