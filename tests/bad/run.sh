#!/bin/sh
# Bad-input corpus: every case must end as expected, never crash or hang
# (run from the repository root; see docs/robustness.md).
#
#   tests/bad/<case>/pipeline.yaml   the pipeline (paths relative to the repo root)
#   exit           expected exit status (default 0)
#   error          expected stderr, exactly, but for the "pipeline: wrote PATH"
#                  lines of a successful run (absent: stderr must be empty);
#                  with a file `prefix`, each line only has to begin the real one
#   expected/F     output file F of the run must equal it; expected/stdout is
#                  compared with what the run printed
#   command        pipeline command (default run)
#   args           extra arguments
#   setup          optional sh script, run as `sh setup WORK` first; exit 77
#                  skips the case (its output says why)
#   timeout        seconds instead of TP_TIMEOUT (without TP_WRAP): a scaling
#                  guard, at least 10x the run's time, that quadratic code exceeds
#   as_user        a user name: run `pipeline` as that user (setpriv, when
#                  this suite runs as root; skipped without setpriv), WORK and
#                  WORK/out writable by it (permissions that root bypasses)
#   in_work        run `pipeline` from WORK (relative paths in the pipeline
#                  are WORK's; the pipeline file and the build are absolute)
#   env            VAR=VALUE lines for the run ("@WORK@" stands for WORK)
#   ulimit_f       the run's file size limit (`ulimit -f`, SIGXFSZ ignored: a
#                  write past it fails with EFBIG, as a full TMPDIR would; root too)
# A pipeline naming ${out} / ${work} gets --set out=WORK/out / work=WORK.
# "@BUILD@" in args and error stands for the build directory, "@WORK@" in
# error for WORK.
#
# Every case also asserts: no crash or hang (20 s limit), inputs (the case
# folder, the tests/data files it names) unmodified, no temporary file left, and after a
# failure no output file at all.
# Prints "N passed, M failed" and exits non-zero on any failure.
#
#   sh tests/bad/run.sh [BUILD [CASE...]]    only the named cases when given
#   TP_WRAP="valgrind -q ..."                runs `pipeline` under a wrapper
#   (its messages on stderr then fail the case: tests/tools/valgrind.sh)
set -u
BUILD=${1:-build}
[ $# -gt 0 ] && shift
PIPELINE="$BUILD/pipeline"
WRAP=${TP_WRAP:-}
pass=0
fail=0
skip=0
tmp=$(mktemp -d)
trap 'chmod -R u+rwx "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: bad/$1"; }

same_text() { # expected, actual, case dir
    if [ -f "$3/prefix" ]; then
        awk 'NR == FNR { want[FNR] = $0; n = FNR; next }
             { got[FNR] = $0; m = FNR }
             END { if (n != m) exit 1
                   for (i = 1; i <= n; i++) if (index(got[i], want[i]) != 1) exit 1 }' "$1" "$2"
    else
        diff -u "$1" "$2"
    fi
}

# checksums of everything a case reads: its folder and the tests/data files
# its pipeline names
sums() {
    find "$1" $(grep -o 'tests/data/[^ ]*' "$1/pipeline.yaml") -type f -exec md5sum {} + \
        2>/dev/null | sort
}

# The command prefix that runs `pipeline` as the case's as_user (nothing
# without one, or when this suite is not root), else fails with why not.
run_as() { # case dir, work
    [ -f "$1/as_user" ] || return 0
    user=$(cat "$1/as_user")
    [ "$(id -u)" = 0 ] || return 0
    command -v setpriv >/dev/null 2>&1 || { echo "no setpriv to run as $user"; return 1; }
    chmod a+rx "$tmp" && chmod a+rwx "$2" "$2/out" || { echo "cannot open WORK to $user"; return 1; }
    echo "setpriv --reuid=$(id -u "$user") --regid=$(id -g "$user") --clear-groups"
}

run_case() { # case dir
    dir=$1
    name=$(basename "$dir")
    work="$tmp/$name"
    mkdir -p "$work/out"
    if [ -f "$dir/setup" ]; then
        sh "$dir/setup" "$work" >"$work/setup.out" 2>&1
        rc=$?
        if [ $rc = 77 ]; then
            skip=$((skip + 1)); echo "SKIP: bad/$name: $(cat "$work/setup.out")"; return
        fi
        [ $rc = 0 ] || { ko "$name: setup failed"; cat "$work/setup.out"; return; }
    fi
    want_exit=0
    [ -f "$dir/exit" ] && want_exit=$(cat "$dir/exit")
    cmd=run
    [ -f "$dir/command" ] && cmd=$(cat "$dir/command")
    args=""
    [ -f "$dir/args" ] && args=$(sed "s|@BUILD@|$BUILD|g" "$dir/args")
    grep -q '\${out}' "$dir/pipeline.yaml" && args="$args --set out=$work/out"
    grep -q '\${work}' "$dir/pipeline.yaml" && args="$args --set work=$work"
    before=$(sums "$dir")
    limit=${TP_TIMEOUT:-20}
    [ -f "$dir/timeout" ] && [ -z "$WRAP" ] && limit=$(cat "$dir/timeout")
    as=$(run_as "$dir" "$work") || { skip=$((skip + 1)); echo "SKIP: bad/$name: $as"; return; }
    envs=""
    [ -f "$dir/env" ] && envs=$(sed "s|@WORK@|$work|g" "$dir/env")
    rundir=. prog=$PIPELINE spec=$dir/pipeline.yaml
    if [ -f "$dir/in_work" ]; then
        rundir=$work spec=$PWD/$spec
        case $prog in /*) ;; *) prog=$PWD/$prog ;; esac
    fi
    # shellcheck disable=SC2086
    fsize=unlimited
    [ -f "$dir/ulimit_f" ] && fsize=$(cat "$dir/ulimit_f")
    (cd "$rundir" && trap '' XFSZ && ulimit -f "$fsize" && env $envs timeout "$limit" $as $WRAP "$prog" $cmd "$spec" --no-progress \
        $args) >"$work/stdout" 2>"$work/stderr.all"
    got_exit=$?
    # "wrote PATH" lines say where outputs went (tests/e2e/run.sh checks
    # them); the corpus compares errors and warnings
    grep -v '^pipeline: wrote ' "$work/stderr.all" >"$work/stderr"
    [ "$(sums "$dir")" = "$before" ] || { ko "$name: an input file changed"; return; }
    case $got_exit in
        124) ko "$name: hang (killed after $limit s)"; return ;;
        12[5-9]|1[3-9]?|2??) ko "$name: crashed (status $got_exit)"; cat "$work/stderr"; return ;;
    esac
    if [ "$got_exit" != "$want_exit" ]; then
        ko "$name: exit $got_exit, expected $want_exit"; cat "$work/stderr"; return
    fi
    if [ -f "$dir/error" ]; then
        sed -e "s|@BUILD@|$BUILD|g" -e "s|@WORK@|$work|g" "$dir/error" >"$work/want_err"
    else
        : >"$work/want_err"
    fi
    if ! same_text "$work/want_err" "$work/stderr" "$dir" >"$work/diff"; then
        ko "$name: stderr differs"; cat "$work/diff"; return
    fi
    if find "$work/out" "$dir" -name '*.tmp-*' | grep -q .; then
        ko "$name: temporary file left behind"; return
    fi
    if [ "$got_exit" != 0 ] && [ -n "$(ls -A "$work/out")" ]; then
        ko "$name: output left behind after a failure: $(ls -A "$work/out")"; return
    fi
    for exp in "$dir"/expected/*; do
        [ -f "$exp" ] || continue
        f=$(basename "$exp")
        got="$work/out/$f"
        [ "$f" = stdout ] && got="$work/stdout"
        if ! diff -u "$exp" "$got" >"$work/diff" 2>&1; then
            ko "$name: $f differs"; head -40 "$work/diff"; return
        fi
    done
    ok
}

cases=""
for c in "$@"; do cases="$cases tests/bad/$c"; done
[ -n "$cases" ] || cases=$(ls -d tests/bad/*/)
for dir in $cases; do
    dir=${dir%/}
    [ -f "$dir/pipeline.yaml" ] || continue
    run_case "$dir"
done

echo "bad: $pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
