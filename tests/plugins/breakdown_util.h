/*
 * Helpers shared by the analysis suites (check_hierarchy.c,
 * check_host_breakdown.c, check_device_breakdown.c): pipelines over a trace
 * read by `kineto`, row lookups that fail loudly, tree invariants.
 */
#ifndef TRACEPIPE_TESTS_BREAKDOWN_UTIL_H
#define TRACEPIPE_TESTS_BREAKDOWN_UTIL_H

#include "tp_test.h"

#define BU_HAND "tests/data/hand/"
#define BU_DLRM "tests/data/dlrm_worker0_step12.pt.trace.json.gz"

/* Runs `reader: kineto` on trace followed by `stages` (block sequence
 * text, each line starting with "  - "). */
tp_run *bu_run(const char *trace, const char *stages);

/* The row of r whose `key` column equals value (and whose parent row is
 * named parent, unless NULL); fails the test when there is none. */
size_t bu_row(const tp_result *r, const char *key, const char *value, const char *parent);

/* value of the hierarchy count table's row `metric`. */
int64_t bu_count(const tp_result *r, const char *metric);

/* A hierarchy row attachment (int32) of the run's trace, checked to have n
 * elements (n = SIZE_MAX: any), or the test fails; _i64 for int64 ones. */
const int32_t *bu_attached(tp_run *run, const char *name, size_t n);
const int64_t *bu_attached_i64(tp_run *run, const char *name, size_t n);

/* Number of rows of r. */
size_t bu_rows(const tp_result *r);

/* Tree invariants: ids are row numbers, parents come first, every node's
 * children sum to at least its time (exact: to exactly its time), times
 * are never negative.  Returns the number of nodes with children. */
size_t bu_check_tree(const tp_result *r, int exact);

#endif
