#!/bin/sh
# `make check-cluster` (issue 34, item 3): `pipeline slurm --submit` on a real
# one-node Slurm cluster. Starts munged, slurmctld and slurmd from Debian's
# packages in a scratch folder on free localhost ports (proctrack/linuxproc,
# task/none: no cgroups, no systemd), then:
#   1. submits a 4-task array over the 8 DLRM ranks with the `ranks` pipeline
#      and its merge job, waits, and requires the merged outputs to be the
#      same bytes as one unsharded run;
#   2. submits again with every job held, cancels task 2 before it starts, and
#      requires the merge job (afterany) to fail with exit 1 naming shard 2;
#      re-runs task 2 alone (sbatch --array=2 of the array's own script) and
#      the merge, which must then finish with the same bytes as one run.
# Everything it started is stopped by PID on success, failure or signal, and
# the scratch folder removed. Skips (exit 0, with the reason) when the
# daemons cannot run here: not root, packages missing, a daemon not starting.
#   sh tests/e2e/cluster.sh [BUILD]    (from the repository root)
set -u
BUILD=${1:-build}
P=$(realpath "$BUILD/pipeline")
TIMEOUT=${CLUSTER_TIMEOUT:-100}
pass=0
fail=0
S=""
started=""

skip() { echo "check-cluster: skipped: $1"; exit 0; }
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: cluster: $1"; }

[ "$(id -u)" = 0 ] || skip "needs root to run munged, slurmctld and slurmd"
for d in munged slurmctld slurmd; do
    command -v "$d" >/dev/null 2>&1 || [ -x "/usr/sbin/$d" ] || skip "$d is not installed (Debian: slurm-wlm munge)"
done
for c in sbatch squeue scontrol scancel sinfo; do
    command -v "$c" >/dev/null 2>&1 || skip "$c is not installed (Debian: slurm-client)"
done
PATH="$PATH:/usr/sbin"

# ------------------------------------------------------------ start and stop
stop_all() {
    [ -n "$S" ] || return 0
    if [ -f "$S/slurm.conf" ] && [ -n "$started" ]; then
        SLURM_CONF="$S/slurm.conf" scancel --quiet --user=root 2>/dev/null
    fi
    for f in slurmd.pid slurmctld.pid munge/pid; do
        [ -f "$S/$f" ] && kill "$(cat "$S/$f" 2>/dev/null)" 2>/dev/null
    done
    # wait for them to go, then for any job step left over (found by the
    # scratch folder in its command line or environment): nothing stays
    i=0
    while [ $i -lt 50 ]; do
        alive=0
        for f in slurmd.pid slurmctld.pid munge/pid; do
            [ -f "$S/$f" ] && kill -0 "$(cat "$S/$f" 2>/dev/null)" 2>/dev/null && alive=1
        done
        [ $alive = 0 ] && break
        sleep 0.1
        i=$((i + 1))
    done
    for f in slurmd.pid slurmctld.pid munge/pid; do
        [ -f "$S/$f" ] && kill -9 "$(cat "$S/$f" 2>/dev/null)" 2>/dev/null
    done
    pkill -9 -f "$S/" 2>/dev/null
    rm -rf "$S"
    S=""
}
trap 'stop_all' EXIT
trap 'stop_all; exit 130' INT
trap 'stop_all; exit 143' TERM

port_free() { # a TCP port nothing listens on (hex in /proc/net/tcp*)
    hex=$(printf '%04X' "$1")
    ! cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk '{print $2}' | grep -q ":$hex\$"
}
free_port_pair() {
    p=$((20000 + ($$ % 20000)))
    while [ $p -lt 65000 ]; do
        if port_free $p && port_free $((p + 1)); then echo $p; return 0; fi
        p=$((p + 2))
    done
    return 1
}

S=$(mktemp -d /tmp/tracepipe-cluster.XXXXXX)
chmod 700 "$S"
mkdir -p "$S/munge" "$S/state" "$S/spool" "$S/log" "$S/jobs"
chmod 700 "$S/munge"
head -c 1024 /dev/urandom >"$S/munge/munge.key"
chmod 400 "$S/munge/munge.key"
munged --force --socket="$S/munge/sock" --key-file="$S/munge/munge.key" \
    --log-file="$S/munge/log" --pid-file="$S/munge/pid" --seed-file="$S/munge/seed" \
    2>"$S/munge/start.err" || skip "munged does not start: $(head -1 "$S/munge/start.err")"
started=1

port=$(free_port_pair) || skip "no two free TCP ports"
node=$(hostname -s)
plugins=$(dirname "$(find /usr/lib -name 'select_cons_tres.so' 2>/dev/null | head -1)")
[ -d "$plugins" ] || skip "Slurm's plugins are not installed"
cat >"$S/slurm.conf" <<EOF
ClusterName=tracepipe-check
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$S/munge/sock
CredType=cred/munge
PluginDir=$plugins
StateSaveLocation=$S/state
SlurmdSpoolDir=$S/spool
SlurmctldPidFile=$S/slurmctld.pid
SlurmdPidFile=$S/slurmd.pid
SlurmctldLogFile=$S/log/slurmctld.log
SlurmdLogFile=$S/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=600
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=check Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
EOF
export SLURM_CONF="$S/slurm.conf"
slurmctld -f "$S/slurm.conf" 2>"$S/log/ctld.err" || skip "slurmctld does not start: $(head -1 "$S/log/ctld.err")"
slurmd -f "$S/slurm.conf" -N "$node" 2>"$S/log/d.err" || skip "slurmd does not start: $(head -1 "$S/log/d.err")"
i=0
until [ "$(sinfo -h -o '%t' 2>/dev/null)" = idle ]; do
    i=$((i + 1))
    [ $i -gt 100 ] && skip "the node did not come up in 10 s: $(sinfo -h 2>&1 | head -1); $(tail -1 "$S/log/slurmd.log")"
    sleep 0.1
done
echo "check-cluster: a one-node Slurm cluster ($(slurmctld -V)) on 127.0.0.1:$port, scratch $S"

# ------------------------------------------------------------------ helpers
wait_jobs() { # job ids...: until none is pending or running, at most TIMEOUT s
    t=0
    while [ -n "$(squeue -h -j "$(echo "$@" | tr ' ' ,)" -o %i 2>/dev/null)" ]; do
        t=$((t + 1))
        if [ $t -gt $((TIMEOUT * 5)) ]; then
            ko "jobs $* still queued after $TIMEOUT s: $(squeue -h -o '%i %T %r' | tr '\n' ';')"
            return 1
        fi
        sleep 0.2
    done
}
job_state() { # job id: STATE EXIT (as sacct would say, from the controller)
    scontrol -o show job "$1" | tr ' ' '\n' | sed -n 's/^JobState=//p; s/^ExitCode=//p' | tr '\n' ' '
}
submitted() { # the ids `pipeline slurm --submit` reported: "array job A (N tasks), merge job M"
    sed -n 's/.*array job \([0-9]*\) .*merge job \([0-9]*\) .*/\1 \2/p' "$1"
}
same_as_one_run() { # outputs folder, what: equal file lists and bytes
    (cd "$S/one" && find . -type f ! -name '.tracepipe-*' | sort) >"$S/one.files"
    (cd "$1" && find . -type f ! -name '.tracepipe-*' | sort) >"$S/got.files"
    if ! cmp -s "$S/one.files" "$S/got.files"; then
        ko "$2: not one run's files: $(diff "$S/one.files" "$S/got.files" | head -5 | tr '\n' ' ')"
        return
    fi
    while read -r f; do
        cmp -s "$S/one/$f" "$1/$f" || { ko "$2: $f differs from one run's"; return; }
    done <"$S/one.files"
    [ "$(wc -l <"$S/one.files")" -ge 10 ] || { ko "$2: one run wrote only $(wc -l <"$S/one.files") files"; return; }
    ok
}

mkdir -p "$S/in"
cp tests/data/dlrm_worker0_step12.pt.trace.json.gz tests/data/kineto/corpus/dlrm_worker[1-7]_step12.pt.trace.json.gz "$S/in/"
"$P" run ranks --input "$S/in" --set out="$S/one" -q >/dev/null 2>"$S/one.err" || ko "one run: exit $? ($(head -1 "$S/one.err"))"

# ------------------------------------- 1. the array and its merge, as submitted
cd "$S/jobs" || exit 1
"$P" slurm ranks --input "$S/in" --shards 4 --out "$S/out" --submit -- \
    --output="$S/log/%x-%A_%a.out" >"$S/submit1" 2>"$S/submit1.err"
rc=$?
set -- $(submitted "$S/submit1")
if [ $rc != 0 ] || [ $# != 2 ]; then
    ko "submit: exit $rc: $(cat "$S/submit1" "$S/submit1.err" | head -3 | tr '\n' ' ')"
else
    array=$1 merge=$2
    if wait_jobs "$array" "$merge"; then
        ok_tasks=0
        for i in 0 1 2 3; do
            case $(job_state "${array}_$i") in "COMPLETED 0:0 ") ok_tasks=$((ok_tasks + 1)) ;; esac
        done
        if [ $ok_tasks != 4 ]; then ko "array $array: $ok_tasks of 4 tasks completed"
        else ok; fi
        if [ "$(job_state "$merge")" != "COMPLETED 0:0 " ]; then
            ko "merge job $merge: $(job_state "$merge"); $(cat "$S"/log/tracepipe-merge-*.out 2>/dev/null | tail -3)"
        else ok; fi
        for i in 0 1 2 3; do
            [ -f "$S/out/.tracepipe-shard-$i-of-4" ] || ko "no manifest of shard $i of 4"
        done
        same_as_one_run "$S/out" "the array's merged outputs"
    fi
fi

# --------------- 2. task 2 cancelled before it starts; the merge names it;
#                    task 2 re-run alone, then the merge, as the script says
rm -f "$S"/log/*.out
"$P" slurm ranks --input "$S/in" --shards 4 --out "$S/out2" >"$S/jobs.sh" 2>"$S/print.err" ||
    ko "printing the scripts: exit $?"
sed -n "/<<'TRACEPIPE_ARRAY_JOB'/,/^TRACEPIPE_ARRAY_JOB\$/p" "$S/jobs.sh" | sed '1d;$d' >"$S/array.sh"
sed -n "/<<'TRACEPIPE_MERGE_JOB'/,/^TRACEPIPE_MERGE_JOB\$/p" "$S/jobs.sh" | sed '1d;$d' >"$S/merge.sh"
"$P" slurm ranks --input "$S/in" --shards 4 --out "$S/out2" --submit -- --hold \
    --output="$S/log/%x-%A_%a.out" >"$S/submit2" 2>"$S/submit2.err"
rc=$?
set -- $(submitted "$S/submit2")
if [ $rc != 0 ] || [ $# != 2 ]; then
    ko "held submit: exit $rc: $(cat "$S/submit2" "$S/submit2.err" | head -3 | tr '\n' ' ')"
else
    array=$1 merge=$2
    scancel "${array}_2"
    scontrol release "$array"
    scontrol release "$merge"
    if wait_jobs "$array" "$merge"; then
        # a pending task cancelled leaves the array's record: only 0, 1, 3 ran
        ran=$(scontrol -o show job "$array" | sed -n 's/.* ArrayTaskId=\([0-9]*\) .*JobState=COMPLETED .*/\1/p' | sort | tr '\n' ' ')
        if [ "$ran" != "0 1 3 " ] || [ -f "$S/out2/.tracepipe-shard-2-of-4" ]; then
            ko "with task 2 cancelled, completed tasks: '$ran', shard 2's manifest: $(ls "$S/out2" | grep -c 'shard-2-of')"
        else ok; fi
        if [ "$(job_state "$merge")" != "FAILED 1:0 " ]; then ko "merge job $merge with task 2 cancelled: $(job_state "$merge"), expected FAILED 1:0"
        elif ! grep -q "shard 2 of 4 has not finished" "$S"/log/tracepipe-merge-*.out; then
            ko "the failed merge does not name shard 2: $(cat "$S"/log/tracepipe-merge-*.out | tail -2)"
        else ok; fi
        rerun=$(sbatch --parsable --array=2 --output="$S/log/rerun-%A_%a.out" "$S/array.sh")
        if wait_jobs "$rerun"; then
            [ "$(job_state "${rerun}_2")" = "COMPLETED 0:0 " ] || ko "task 2 re-run: $(job_state "${rerun}_2")"
            remerge=$(sbatch --parsable --output="$S/log/remerge-%j.out" "$S/merge.sh")
            if wait_jobs "$remerge"; then
                if [ "$(job_state "$remerge")" != "COMPLETED 0:0 " ]; then
                    ko "merge after the re-run: $(job_state "$remerge"); $(tail -2 "$S"/log/remerge-*.out)"
                else ok; fi
                same_as_one_run "$S/out2" "the merged outputs after task 2 was re-run"
            fi
        fi
    fi
fi
cd - >/dev/null || true

# nothing left behind: no process of the scratch cluster, no scratch folder
scratch=$S
stop_all
trap - EXIT
if pgrep -f "$scratch/" >/dev/null; then ko "processes left behind: $(pgrep -af "$scratch/" | head -3 | tr '\n' ';')"
elif [ -e "$scratch" ]; then ko "scratch folder left behind: $scratch"
else ok; fi

echo "cluster: $pass passed, $fail failed"
[ "$fail" = 0 ]
