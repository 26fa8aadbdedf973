/* libFuzzer target: the nsys_json reader (tests/fuzz/fuzz_reader.h). */
#define FUZZ_READER "nsys_json"
#define FUZZ_SUFFIX ".json"
#define FUZZ_EXTRA_STAGES ""
#include "fuzz_reader.h"
