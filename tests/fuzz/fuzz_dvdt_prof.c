/* libFuzzer target: the dvdt_prof reader (tests/fuzz/fuzz_reader.h). */
#define FUZZ_READER "dvdt_prof"
#define FUZZ_SUFFIX ".json"
#define FUZZ_EXTRA_STAGES ""
#include "fuzz_reader.h"
