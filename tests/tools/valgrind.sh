#!/bin/sh
# make check-valgrind: the unit and plugin suites (in-process: CK_FORK=no) and
# a selection of pipeline runs under valgrind memcheck; any leak or memory
# error fails.  Run from the repository root.  See docs/robustness.md.
set -u
BUILD=${1:-build}
VG="valgrind -q --leak-check=full --show-leak-kinds=definite,indirect,possible \
--errors-for-leak-kinds=definite,indirect,possible --error-exitcode=99"
# PCRE2's JIT code is opaque to valgrind (uninitialised-value reports with
# unknown frames): regexes run in the interpreter here (TRACEPIPE_NO_JIT), so
# every error is still reported.
# TP_UNDER_VALGRIND: a gzip trace's two-thread split is a race valgrind's
# scheduling can lose; the plugin tests then do not require it.
export CK_FORK=no TP_BUILD="$BUILD" TRACEPIPE_PLUGIN_PATH= TRACEPIPE_NO_JIT=1 TP_UNDER_VALGRIND=1
fail=0
step() { # description, command...
    desc=$1; shift
    if "$@"; then echo "check-valgrind: $desc: clean"; else echo "check-valgrind: $desc: FAILED"; fail=1; fi
}
step "unit tests" env TP_TESTPLUGIN_DIR="$BUILD/testplugins" $VG "$BUILD/tests/unit_tests"
for suite in $(grep -ho 'suite_create("[a-z_0-9]*")' tests/plugins/*.c | cut -d'"' -f2 | sort -u); do
    step "plugin suite $suite" env CK_RUN_SUITE="$suite" $VG "$BUILD/tests/plugin_tests"
done
# pipeline runs: the sample pipeline and bad inputs through every error path
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
step "pipeline run pipelines/dlrm_breakdown.yaml" \
    $VG "$BUILD/pipeline" run pipelines/dlrm_breakdown.yaml -q --set out="$out"
step "bad inputs" env TP_WRAP="$VG" TP_TIMEOUT=120 sh tests/bad/run.sh "$BUILD" \
    legal_odd_strings legal_zero_parent_with_children skip_bad_fields fail_on_first_of_many \
    trunc_gzip corrupt_gzip trunc_in_args trunc_in_string deep_nesting legal_duplicate_keys \
    end_before_begin yaml_billion_laughs yaml_deep_nesting yaml_wrong_option_type \
    plugin_wrong_abi plugin_path_not_a_plugin output_missing_dir output_is_directory \
    trace_is_directory fuzz_hb_empty_qsort fuzz_yaml_nonscalar_key fuzz_yaml_bad_id_then_input
[ $fail = 0 ] && echo "check-valgrind: no leaks, no memory errors"
exit $fail
