/* libFuzzer target: the csv_table reader (tests/fuzz/fuzz_reader.h); the
 * trace analyses after it find no trace and stop the run: the reader's
 * parsing and typing are what is fuzzed. */
#define FUZZ_READER "csv_table"
#define FUZZ_SUFFIX ".csv"
#define FUZZ_EXTRA_STAGES ""
#include "fuzz_reader.h"
