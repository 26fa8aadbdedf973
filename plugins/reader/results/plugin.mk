# results reader: jansson for the (small) lossless result files.
LIBS_results := -ljansson
