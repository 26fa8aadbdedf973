/* libFuzzer target: the tfprof reader (tests/fuzz/fuzz_reader.h). */
#define FUZZ_READER "tfprof"
#define FUZZ_SUFFIX ".txt"
#define FUZZ_EXTRA_STAGES "  - analysis: step_stats\n"
#include "fuzz_reader.h"
