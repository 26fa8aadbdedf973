/*
 * Helpers shared by the writer suites (check_csv.c, check_json.c,
 * check_text.c): a scratch output directory per test, pipelines over the
 * test-only `fixture_results` analysis, file and stdout comparisons.
 */
#ifndef TRACEPIPE_TESTS_WRITERS_UTIL_H
#define TRACEPIPE_TESTS_WRITERS_UTIL_H

#include <stddef.h>

#include "tp_test.h"

/* The current test's empty scratch directory (made by wu_setup). */
extern char wu_dir[256];

/* Checked-fixture hooks: make / remove wu_dir. */
void wu_setup(void);
void wu_teardown(void);

/* The YAML of a pipeline whose `stages:` list is `stages` (block sequence
 * text), with plugin_path at $TP_BUILD/testplugins and the variable
 * ${out} = wu_dir.  Static buffer. */
const char *wu_yaml(const char *stages);

/* Runs the stages; fails the test if they do not run. */
void wu_run(const char *stages);

/* Runs the stages, expecting a failure while running; returns the message. */
const char *wu_run_fails(const char *stages);

/* Runs the stages with stdout sent to a file; returns its text (new). */
char *wu_run_stdout(const char *stages);

/* Asserts that wu_dir/name holds exactly `expected`. */
void wu_expect_file(const char *name, const char *expected);

/* Writes len bytes of text to wu_dir/name (fails the test if it cannot). */
void wu_write(const char *name, const char *text, size_t len);

/* Number of entries in wu_dir (temporary files included). */
int wu_dir_entries(void);

#endif
