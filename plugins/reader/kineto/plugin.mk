# kineto reader: ISA-L (igzip) for gzip input, pthread for the inflate and
# split threads; jansson for the small metadata values read into trace info.
LIBS_kineto := -lisal -lpthread -ljansson

# The fuzz build reads through a 4 KiB window in reads of at most 1000 bytes,
# so the fuzzer's inputs (up to 64 KiB) reach what otherwise takes megabytes:
# units straddling refills, window growth, squeezed whitespace runs.
ifeq ($(VARIANT),fuzz)
CFLAGS_kineto := -DKIN_WINDOW_SIZE=4096 -DKIN_TEST_READ_MAX=1000
endif
