# analysis `memory`: PCRE2 for the iterations (the SDK's tp_sdk_iter.h).
LIBS_memory := $(shell pkg-config --libs libpcre2-8)
CFLAGS_memory := $(shell pkg-config --cflags libpcre2-8)
