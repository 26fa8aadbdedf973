# analysis `iterations`: PCRE2 for the marker regex (the SDK's tp_sdk_markers.h).
LIBS_iterations := $(shell pkg-config --libs libpcre2-8)
CFLAGS_iterations := $(shell pkg-config --cflags libpcre2-8)
