/*
 * Shared helpers for tracepipe's Check suites.
 *
 * A test file registers its suite with TP_TEST_SUITE(fn): fn returns a
 * Suite *, and the runner of that folder (tests/unit/run_unit.c,
 * tests/plugins/run_plugins.c) adds every registered suite, so no list of
 * suites has to be edited by hand.  CK_RUN_SUITE / CK_RUN_CASE pick subsets.
 */
#ifndef TRACEPIPE_TP_TEST_H
#define TRACEPIPE_TP_TEST_H

#include <check.h>
#include <stddef.h>

#include "tp_core.h"

typedef Suite *(*tp_suite_fn)(void);
void tp_test_register(tp_suite_fn fn);

#define TP_TEST_SUITE(fn)                                                       \
    static void tp__register_##fn(void) __attribute__((constructor));          \
    static void tp__register_##fn(void) { tp_test_register(fn); }

/* The build directory under test ($TP_BUILD, default "build"). */
const char *tp_test_build_dir(void);

/* A plugin registry holding every plugin of $TP_BUILD/plugins. */
tp_ctx *tp_test_ctx(void);

/* Loads and runs a pipeline given as YAML text; fails the test (with the
 * diagnostics) if it does not validate or run.  Free with tp_run_free. */
tp_run *tp_test_run_yaml(const char *yaml);

/* Same, but expects failure: returns the run's exit class (TP_EXIT_USAGE for
 * a pipeline that does not validate, TP_EXIT_FAIL for one that fails while
 * running) and copies the first message into msg (may be NULL). */
int tp_test_run_yaml_fails(const char *yaml, char *msg, size_t msg_size);

/* Runs a pipeline at verbosity 2, its log captured into *log (malloc'd);
 * returns the pipeline's status; *out gets the run (free both). */
int tp_test_run_logged(const char *yaml, tp_run **out, char **log);

/* Looks up a result by id, failing the test if absent. */
const tp_result *tp_test_result(tp_run *run, const char *id);

/* Finds the first row of result r whose string column `col` equals value
 * (and, for trees, whose parent row has name parent_name unless NULL);
 * returns the row or -1. */
long tp_test_find_row(const tp_result *r, const char *col, const char *value,
                      const char *parent_name);

/* Cell accessors by column name (fail the test if the column is absent). */
int64_t tp_test_i64(const tp_result *r, size_t row, const char *col);
double tp_test_f64(const tp_result *r, size_t row, const char *col);
const char *tp_test_str(const tp_result *r, size_t row, const char *col);

/* Reads a whole file into a new NUL-terminated buffer (NULL if absent). */
char *tp_test_slurp(const char *path, size_t *len);

#endif
