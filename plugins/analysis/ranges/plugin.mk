# analysis `ranges`: PCRE2 for the include and marker regexes (the SDK's tp_sdk_markers.h).
LIBS_ranges := $(shell pkg-config --libs libpcre2-8)
CFLAGS_ranges := $(shell pkg-config --cflags libpcre2-8)
