#!/bin/sh
# What writers do to the file system (run from the repository root; part of
# `make check-pipelines`; docs/robustness.md): the old file's mode is kept, a
# symlink stays and its target is written, devices and FIFOs are written in
# place (never replaced), a write error on /dev/full fails, a 244-byte name
# works, SIGINT/SIGTERM/SIGHUP leave no temporary file, and the commands
# that only print fail when stdout cannot be written.
# Prints "N passed, M failed" and exits non-zero on any failure.
set -u
BUILD=${1:-build}
PIPELINE="$BUILD/pipeline"
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: outputs: $1"; }

# writes host_breakdown.summary of a small trace as CSV to $1
csv_pipeline() {
    cat >"$tmp/p.yaml" <<EOF
stages:
  - reader: kineto
    path: tests/data/hand/hier_zero.json
  - analysis: host_breakdown
  - writer: csv
    input: host_breakdown.summary
    path: "$1"
EOF
}
run_csv() { # path; stderr in $tmp/err, exit status returned
    csv_pipeline "$1"
    "$PIPELINE" run "$tmp/p.yaml" -q >/dev/null 2>"$tmp/err"
}
no_temp_in() { # dir...
    ! find "$@" -maxdepth 1 -name '*.tmp-*' | grep -q .
}

# the reference output, written to a fresh name
mkdir -p "$tmp/d"
run_csv "$tmp/d/ref.csv" || { ko "reference run failed"; cat "$tmp/err"; }

# an existing file keeps its mode
printf 'old\n' >"$tmp/d/kept.csv"
chmod 0640 "$tmp/d/kept.csv"
if run_csv "$tmp/d/kept.csv" && cmp -s "$tmp/d/ref.csv" "$tmp/d/kept.csv" &&
    [ "$(stat -c %a "$tmp/d/kept.csv")" = 640 ]; then ok; else
    ko "mode 0640 not kept: $(stat -c %a "$tmp/d/kept.csv")"; cat "$tmp/err"; fi

# a symlink stays a symlink; its target (in another folder) is written,
# and the temporary was made beside the target
mkdir -p "$tmp/real"
printf 'old\n' >"$tmp/real/target.csv"
ln -s ../real/target.csv "$tmp/d/link.csv"
if run_csv "$tmp/d/link.csv" && [ -L "$tmp/d/link.csv" ] &&
    cmp -s "$tmp/d/ref.csv" "$tmp/real/target.csv" && no_temp_in "$tmp/d" "$tmp/real"; then ok
else ko "symlink replaced or target not written"; ls -la "$tmp/d" "$tmp/real"; cat "$tmp/err"; fi

# a dangling symlink: its target is created
ln -s ../real/new.csv "$tmp/d/dangling.csv"
if run_csv "$tmp/d/dangling.csv" && [ -L "$tmp/d/dangling.csv" ] &&
    cmp -s "$tmp/d/ref.csv" "$tmp/real/new.csv"; then ok
else ko "dangling symlink: target not created"; cat "$tmp/err"; fi

# devices are written in place: /dev/null stays /dev/null (as root it used
# to be replaced by a regular file)
if run_csv /dev/null && [ -c /dev/null ] && [ ! -s "$tmp/err" ]; then ok
else ko "/dev/null: exit or stderr"; cat "$tmp/err"; fi

# /dev/full: the write error is an error, and /dev/full stays a device
run_csv /dev/full
rc=$?
if [ $rc = 1 ] && grep -q "/dev/full: .*No space left on device" "$tmp/err" && [ -c /dev/full ]
then ok; else ko "/dev/full: exit $rc"; cat "$tmp/err"; fi

# a FIFO is written in place, not replaced
mkfifo "$tmp/d/fifo"
cat "$tmp/d/fifo" >"$tmp/from_fifo" &
reader=$!
if run_csv "$tmp/d/fifo" && wait $reader && [ -p "$tmp/d/fifo" ] &&
    cmp -s "$tmp/d/ref.csv" "$tmp/from_fifo"; then ok
else ko "FIFO replaced or not written"; cat "$tmp/err"; kill $reader 2>/dev/null; fi

# a legal 244-byte name (the temporary name must stay within NAME_MAX)
long=$(printf '%0240d' 0).csv
if run_csv "$tmp/d/$long" && cmp -s "$tmp/d/ref.csv" "$tmp/d/$long"; then ok
else ko "244-byte output name"; cat "$tmp/err"; fi

# signals during a write: the temporary is removed, the exit status says
# which signal (128 + n)
for pair in INT:130 TERM:143 HUP:129; do
    sig=${pair%:*}
    want=${pair#*:}
    mkdir -p "$tmp/sig$sig"
    cat >"$tmp/slow.yaml" <<EOF
stages:
  - writer: slow_probe
    path: $tmp/sig$sig/out.txt
    seconds: 15
EOF
    # a background job of a script starts with SIGINT ignored (and pipeline
    # keeps an ignored signal ignored, as nohup wants): restore it
    env --default-signal=INT "$PIPELINE" run "$tmp/slow.yaml" --plugin-dir "$BUILD/testplugins" \
        -q 2>"$tmp/err" &
    pid=$!
    tries=0
    while no_temp_in "$tmp/sig$sig" && [ $tries -lt 500 ]; do
        sleep 0.01; tries=$((tries + 1))
    done
    kill -s $sig $pid
    { wait $pid; } 2>/dev/null # no "Terminated" note from the shell
    rc=$?
    if [ $rc = $want ] && [ -z "$(ls -A "$tmp/sig$sig")" ]; then ok
    else ko "SIG$sig: exit $rc (want $want), left: $(ls -A "$tmp/sig$sig")"; cat "$tmp/err"; fi
done

# commands that only print fail when stdout cannot be written
for cmd in "--help" "--version" "plugins" "describe kineto" \
    "validate pipelines/dlrm_breakdown.yaml"; do
    # shellcheck disable=SC2086
    "$PIPELINE" $cmd >/dev/full 2>"$tmp/err"
    rc=$?
    if [ $rc = 1 ] && grep -q "cannot write to standard output: No space left" "$tmp/err"
    then ok; else ko "'$cmd >/dev/full': exit $rc"; cat "$tmp/err"; fi
done

# a writer to stdout says so itself, once
csv_pipeline x && sed -i '/path: "x"/d' "$tmp/p.yaml"
"$PIPELINE" run "$tmp/p.yaml" -q >/dev/full 2>"$tmp/err"
rc=$?
if [ $rc = 1 ] && [ "$(wc -l <"$tmp/err")" = 1 ] &&
    grep -q "writer 'csv': <stdout>: write failed: No space left" "$tmp/err"
then ok; else ko "csv to stdout on /dev/full: exit $rc"; cat "$tmp/err"; fi

echo "outputs: $pass passed, $fail failed"
[ "$fail" = 0 ]
