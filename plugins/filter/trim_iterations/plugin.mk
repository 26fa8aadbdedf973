# filter `trim_iterations`: PCRE2 for the marker regex.
LIBS_trim_iterations := $(shell pkg-config --libs libpcre2-8)
CFLAGS_trim_iterations := $(shell pkg-config --cflags libpcre2-8)
