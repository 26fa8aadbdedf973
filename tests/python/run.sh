#!/bin/sh
# The Python module's tests (issue 33): `import tracepipe` from the build
# tree, with Debian's python3 (python3-dev built the module; python3-numpy
# and python3-pandas for the tables).  The invalid-pipeline cases need the
# test plugins, as tests/e2e/run.sh gives them.
#   sh tests/python/run.sh [BUILD]    (from the repository root)
set -u
BUILD=${1:-build}
PY=${PYTHON:-/usr/bin/python3}
if ! ls "$BUILD"/python/tracepipe/_tracepipe*.so >/dev/null 2>&1; then
    echo "check-python: no module in $BUILD/python (python3-dev missing?)" >&2
    exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
TP_BUILD=$BUILD TRACEPIPE_PLUGIN_PATH=$BUILD/testplugins PYTHONPATH=$BUILD/python \
    "$PY" -m unittest -v tests/python/test_tracepipe.py >"$log" 2>&1
rc=$?
if [ $rc = 0 ]; then tail -n 3 "$log"; else cat "$log"; fi
exit $rc
