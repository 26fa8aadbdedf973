/* libFuzzer target: the nsys reader (tests/fuzz/fuzz_reader.h). */
#define FUZZ_READER "nsys"
#define FUZZ_SUFFIX ".sqlite"
#define FUZZ_EXTRA_STAGES ""
#include "fuzz_reader.h"
