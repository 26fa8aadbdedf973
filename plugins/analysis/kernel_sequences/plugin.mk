# analysis `kernel_sequences`: PCRE2 for the iteration markers (never an op; tp_sdk_ops.h).
LIBS_kernel_sequences := $(shell pkg-config --libs libpcre2-8)
CFLAGS_kernel_sequences := $(shell pkg-config --cflags libpcre2-8)
