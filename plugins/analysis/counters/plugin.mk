# analysis `counters`: PCRE2 for the iterations (the ops' memo, tp_sdk_ops.h).
LIBS_counters := $(shell pkg-config --libs libpcre2-8)
CFLAGS_counters := $(shell pkg-config --cflags libpcre2-8)
